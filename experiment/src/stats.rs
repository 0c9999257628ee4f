//! Medians, quartiles and means of measurements, and the correlation of
//! paired ones.

/// The `q` quantile (0..=1) of `values`, linearly interpolated between
/// the closest ranks; `NaN` for no values.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// The median.
pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// The arithmetic mean; `NaN` for no values.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// Pearson's correlation coefficient of `(x, y)` points (Whaley 2000,
/// section 6.1: "the covariances divided by the product of the standard
/// deviations"); `None` for fewer than two points or when either side has
/// no variance.
pub fn pearson(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in points {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// Spearman's rank correlation of `(x, y)` points: Pearson's over their
/// ranks (ties given the mean of their ranks); `None` as for [`pearson`].
pub fn spearman(points: &[(f64, f64)]) -> Option<f64> {
    let xs = ranks(&points.iter().map(|p| p.0).collect::<Vec<_>>());
    let ys = ranks(&points.iter().map(|p| p.1).collect::<Vec<_>>());
    pearson(&xs.into_iter().zip(ys).collect::<Vec<_>>())
}

/// The rank of each value (1 for the least), ties sharing their mean rank.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let mean_rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            r[k] = mean_rank;
        }
        i = j + 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_interpolate() {
        let v = [4.0, 1.0, 3.0, 2.0, 5.0];
        assert_eq!(median(&v), 3.0);
        assert_eq!(quantile(&v, 0.25), 2.0);
        assert_eq!(quantile(&v, 0.75), 4.0);
        assert_eq!(median(&[1.0, 2.0]), 1.5);
        assert!(median(&[]).is_nan());
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
    }

    #[test]
    fn pearson_is_one_for_a_line_and_none_without_variance() {
        let line = [(1.0, 3.0), (2.0, 5.0), (3.0, 7.0)];
        assert!((pearson(&line).unwrap() - 1.0).abs() < 1e-12);
        let down = [(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)];
        assert!((pearson(&down).unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(pearson(&[(1.0, 2.0), (1.0, 5.0)]), None);
        assert_eq!(pearson(&[(1.0, 2.0)]), None);
    }

    #[test]
    fn spearman_sees_order_not_distance_and_shares_ties() {
        let curve = [(1.0, 1.0), (2.0, 8.0), (3.0, 27.0), (4.0, 1000.0)];
        assert!((spearman(&curve).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(ranks(&[5.0, 1.0, 5.0, 3.0]), vec![3.5, 1.0, 3.5, 2.0]);
        let down = [(1.0, 9.0), (2.0, 4.0), (3.0, 1.0)];
        assert!((spearman(&down).unwrap() + 1.0).abs() < 1e-12);
    }
}

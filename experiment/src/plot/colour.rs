//! Colours: a palette for series that colour-blind readers can tell
//! apart (Okabe & Ito's eight, then six more), and viridis, a perceptual
//! scale for heat maps (equal steps in value look like equal steps in
//! colour, and it stays readable in grey).

/// Series colours, in order: Okabe & Ito's palette (its black last), then
/// six more for suites of many programs.
pub const SERIES: [&str; 14] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
    "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF", "#9467BD", "#AEC7E8",
];

/// The colour of series `i`.
pub fn series(i: usize) -> &'static str {
    SERIES[i % SERIES.len()]
}

/// Viridis at ten evenly spaced points from 0 to 1.
const VIRIDIS: [(u8, u8, u8); 10] = [
    (0x44, 0x01, 0x54),
    (0x48, 0x28, 0x78),
    (0x3e, 0x49, 0x89),
    (0x31, 0x68, 0x8e),
    (0x26, 0x82, 0x8e),
    (0x1f, 0x9e, 0x89),
    (0x35, 0xb7, 0x79),
    (0x6e, 0xce, 0x58),
    (0xb5, 0xde, 0x2b),
    (0xfd, 0xe7, 0x25),
];

/// Viridis at `t` (0: dark violet, 1: yellow), interpolated.
pub fn viridis(t: f64) -> (u8, u8, u8) {
    let x = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// `#rrggbb`.
pub fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Black or white, whichever reads better on `c` (by its relative
/// luminance).
pub fn ink_on((r, g, b): (u8, u8, u8)) -> &'static str {
    let lin = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let l = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    // Contrast with white (1.05 / (l + 0.05)) against black ((l + 0.05) / 0.05).
    if 1.05 / (l + 0.05) > (l + 0.05) / 0.05 {
        "#fff"
    } else {
        "#000"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_runs_dark_to_light_and_text_follows() {
        assert_eq!(hex(viridis(0.0)), "#440154");
        assert_eq!(hex(viridis(1.0)), "#fde725");
        assert_eq!(ink_on(viridis(0.0)), "#fff");
        assert_eq!(ink_on(viridis(1.0)), "#000");
    }
}

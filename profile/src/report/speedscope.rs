//! A speedscope file (its published file-format schema): the frames of all
//! the profiles in `shared.frames`, one per method, with the program as its
//! `file` (speedscope groups and totals by frame, so a frame per method and
//! call line split `main` into as many root frames as it has calls: the
//! call lines are in the text report and the DOT graph); then one
//! `sampled` profile per input profile, each calling
//! context with weight one stack (root first, as indexes into the frames)
//! with its `self` weight. Several profiles of one program (say cbs,
//! timer and exhaustive) become one file, and the viewer's drop-down
//! switches between them. The trees are pruned at `min_percent` like the
//! flame graph's (`(other)` frames hold the rest).

use std::collections::HashMap;

use serde_json::{json, Value};

use super::tree::Full;
use crate::Profile;

/// The schema a speedscope file names.
pub const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

/// The speedscope document of `profiles` (each with a `cct`), each named
/// by `names` (usually its file name).
pub fn document(profiles: &[(&Profile, String)], min_percent: f64) -> Value {
    let mut frames: Vec<Value> = Vec::new();
    let mut frame_ids: HashMap<(String, String), usize> = HashMap::new();
    let mut out = Vec::new();
    for (p, name) in profiles {
        let pruned = Full::new(p.cct.as_deref().unwrap_or(&[])).prune(min_percent);
        let mut samples: Vec<Vec<usize>> = Vec::new();
        let mut weights: Vec<u64> = Vec::new();
        pruned.walk(|i, path| {
            let node = &pruned.nodes[i];
            if node.self_ == 0 {
                return;
            }
            let stack = path
                .iter()
                .map(|&j| {
                    let n = &pruned.nodes[j];
                    let key = (n.method.clone(), p.program.clone());
                    *frame_ids.entry(key).or_insert_with(|| {
                        frames.push(json!({"name": n.method, "file": p.program}));
                        frames.len() - 1
                    })
                })
                .collect();
            samples.push(stack);
            weights.push(node.self_);
        });
        // Summed in 128 bits; a total past 2^64 (a JSON reader's numbers
        // are doubles anyway) is written as a double.
        let total = super::total(weights.iter().copied());
        let total = u64::try_from(total).map_or_else(|_| json!(total as f64), |t| json!(t));
        let unit = if p.config.profile == "exhaustive" {
            "instructions"
        } else {
            "samples"
        };
        out.push(json!({
            "type": "sampled",
            "name": format!("{name} ({} profile, {unit})", p.config.profile),
            "unit": "none",
            "startValue": 0,
            "endValue": total,
            "samples": samples,
            "weights": weights,
        }));
    }
    let title = profiles
        .first()
        .map(|(p, _)| p.program.clone())
        .unwrap_or_default();
    json!({
        "$schema": SCHEMA,
        "name": title,
        "exporter": format!("vm report {}", env!("CARGO_PKG_VERSION")),
        "activeProfileIndex": 0,
        "shared": {"frames": frames},
        "profiles": out,
    })
}

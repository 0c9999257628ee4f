#!/usr/bin/env bash
# walk_cost.sh - cost per sample against stack depth, for the stack walks
# of --record=cct: full, marked and incremental (docs/PERFORMANCE.md,
# "Cost per sample against stack depth").
#
# Usage:
#   bench/walk_cost.sh                  depths 10 100 1000 5000
#   bench/walk_cost.sh 10 1000          only these depths
#
# Environment:
#   RUNS=N         timed runs per command (default 3; one warmup run before)
#   CALLS=N        calls made at the bottom of the recursion (default 10000000)
#   EVERY=N        --every of the counter profile (default 10)
#   RESULTS_DIR    where results go (default: bench-results/walk_cost/)
#
# The program (tests/programs/contexts/walk_cost.bc) recurses DEPTH frames
# deep and makes CALLS calls to a leaf from there. For each depth ONE
# hyperfine invocation times, side by side:
#
#   none         vm run walk_cost.bc --set DEPTH=D --set CALLS=C
#   top          ... --profile=counter --every=N --record=dcg          (reference)
#   full         ... --profile=counter --every=N --record=cct --walk=full --max-walk=100000
#   marked       ... --profile=counter --every=N --record=cct --walk=marked --max-walk=100000
#   incremental  ... --profile=counter --every=N --record=cct --walk=incremental
#
# (--max-walk=100000 so that no walk is cut: a real full walk, and a
# marked walk whose first sample finds the entry frame.) Each profiled
# command also runs once with --profile-out to read its number of samples
# (run.samples). Cost per sample = (median(W) - median(none)) / samples:
# it includes what every counter sample costs whatever the walk (the
# listener taking every prologue and epilogue yieldpoint, the DCG sample),
# which the `top` column shows on its own; the last columns subtract `top`
# instead, leaving the walk alone: (median(W) - median(top)) / samples.
# Medians, not means: the machine is shared.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
prog="$root/tests/programs/contexts/walk_cost.bc"
results="${RESULTS_DIR:-$root/bench-results/walk_cost}"
runs="${RUNS:-3}"
calls="${CALLS:-10000000}"
every="${EVERY:-10}"

die() { echo "walk_cost.sh: $*" >&2; exit 1; }
command -v hyperfine >/dev/null || die "hyperfine is missing (apt-get install -y hyperfine)"
command -v python3 >/dev/null || die "python3 is missing (to read hyperfine's JSON)"
for v in "$runs" "$calls" "$every"; do
    [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "RUNS, CALLS and EVERY must be positive integers (got '$v')"
done

depths=("$@")
((${#depths[@]})) || depths=(10 100 1000 5000)
for d in "${depths[@]}"; do
    [[ "$d" =~ ^[1-9][0-9]*$ ]] || die "a depth must be a positive integer (got '$d')"
done

echo "== building the release binary" >&2
(cd "$root" && cargo build --release --quiet) || die "cargo build --release failed"
vm="$root/target/release/vm"
mkdir -p "$results"

declare -A walk_args=(
    [top]="--profile=counter --every=$every --record=dcg"
    [full]="--profile=counter --every=$every --record=cct --walk=full --max-walk=100000"
    [marked]="--profile=counter --every=$every --record=cct --walk=marked --max-walk=100000"
    [incremental]="--profile=counter --every=$every --record=cct --walk=incremental"
)
walks=(top full marked incremental)

for d in "${depths[@]}"; do
    base="$vm run $prog --set DEPTH=$d --set CALLS=$calls"
    for w in "${walks[@]}"; do
        # The seed only picks the first countdown; fix it for equal runs.
        $base ${walk_args[$w]} --seed=1 --profile-out="$results/d$d-$w.profile.json" >/dev/null
    done
    args=(-N --warmup 1 --runs "$runs" --export-json "$results/d$d.json" -n none "$base")
    for w in "${walks[@]}"; do
        args+=(-n "$w" "$base ${walk_args[$w]} --seed=1")
    done
    echo "== depth $d" >&2
    hyperfine "${args[@]}" >&2 || die "hyperfine failed at depth $d"
done

python3 - "$results" "${walks[*]}" "${depths[@]}" <<'PY' | tee "$results/summary.md"
import json, sys
results, walks, depths = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
walked = [w for w in walks if w != "top"]
print("| depth | samples | none (ms) | " + " | ".join(f"{w} (ms)" for w in walks)
      + " | " + " | ".join(f"{w} ns/sample" for w in walks)
      + " | " + " | ".join(f"{w} - top ns/sample" for w in walked) + " |")
print("|---:|---:|---:|" + "---:|" * (2 * len(walks) + len(walked)))
for d in depths:
    med = {r["command"]: r["median"] for r in json.load(open(f"{results}/d{d}.json"))["results"]}
    samples = {w: json.load(open(f"{results}/d{d}-{w}.profile.json"))["run"]["samples"] for w in walks}
    ms = [f"{med[w] * 1e3:.1f}" for w in walks]
    ns = [f"{(med[w] - med['none']) * 1e9 / samples[w]:.0f}" for w in walks]
    walk = [f"{(med[w] - med['top']) * 1e9 / samples[w]:.0f}" for w in walked]
    print(f"| {d} | {samples['incremental']} | {med['none'] * 1e3:.1f} | " + " | ".join(ms)
          + " | " + " | ".join(ns) + " | " + " | ".join(walk) + " |")
PY

#!/usr/bin/env bash
# adaptive.sh - does `vm run --adaptive` end sooner than the plain run?
#
# Usage:
#   bench/adaptive.sh                 programs/bench and the Are We Fast Yet suite
#   bench/adaptive.sh static_calls    only these (bench/lib.sh: NAME, awfy/NAME, bench, awfy)
#
# Environment:
#   ROUNDS=N      interleaved rounds (default 11)
#   RESULTS_DIR   where results go (default: bench-results/adaptive/)
#
# For each program, bench/paired.py runs, interleaved, ROUNDS times:
#   none      vm run P.bc
#   cbs       vm run P.bc --profile=cbs          (the profile the controller reads)
#   adaptive  vm run P.bc --adaptive             (cbs + the controller + recompiled code)
# and gives the median of the per-round ratios against `none` (wall clock),
# with the 25th-75th percentile range. One more run with
# --print-compilation counts what the controller recompiled and when the
# first recompilation was installed.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/adaptive}"
rounds="${ROUNDS:-11}"

need hyperfine python3
positive ROUNDS "$rounds"

select_programs "$@"

build_vm
mkdir -p "$results"

for p in "${programs[@]}"; do
    program "$p"
    echo "== $p" >&2
    # shellcheck disable=SC2086 # bc is the file and its arguments
    "$vm" run $bc --adaptive --print-compilation 2> "$results/$p.log" > /dev/null ||
        die "$p failed under --adaptive (see $results/$p.log)"
    python3 "$here/paired.py" --rounds "$rounds" --json "$results/$p.json" \
        "none=$vm run $bc" "cbs=$vm run $bc --profile=cbs" "adaptive=$vm run $bc --adaptive" >&2 ||
        die "paired.py failed for $p"
done

python3 - "$results" "${programs[@]}" <<'PY' | tee "$results/summary.md"
import json, re, sys
results, programs = sys.argv[1], sys.argv[2:]
print("| program | none (ms) | cbs % | adaptive % | recompiled | first installed at |")
print("|---|---:|---:|---:|---:|---:|")
for p in programs:
    r = json.load(open(f"{results}/{p}.json"))["commands"]
    log = open(f"{results}/{p}.log").read().splitlines()
    comp = [l for l in log if l.startswith("vm: adaptive: ") and " instrs)" in l
            and "not recompiled" not in l]
    first = re.search(r"([0-9.]+)ms", comp[0]).group(1) + " ms" if comp else "-"
    names = ", ".join(re.search(r"\d+  (\S+) \(", l).group(1) for l in comp)
    cell = lambda k: f"{r[k]['wall_pct']:+.1f} [{r[k]['wall_pct_q1']:+.1f}, {r[k]['wall_pct_q3']:+.1f}]"
    print(f"| {p} | {r['none']['median_wall_s'] * 1000:.1f} | {cell('cbs')} | {cell('adaptive')} | "
          f"{len(comp)} ({names or 'none'}) | {first} |")
PY

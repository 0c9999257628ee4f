#!/usr/bin/env bash
# profile_overhead.sh - what each --profile costs against --profile=none.
#
# Usage:
#   bench/profile_overhead.sh                 every programs/bench/*.bc
#   bench/profile_overhead.sh fib sieve       only these (names without .bc)
#
# Environment:
#   ROUNDS=N      interleaved rounds (default 15)
#   PROFILES      the profiles to time (default "timer cbs counter exhaustive")
#   EXTRA         more vm run options for every profiled command (e.g.
#                 "--interval=100us"; it must apply to every profile in
#                 PROFILES)
#   RESULTS_DIR   where results go (default: bench-results/overhead/)
#
# For each program, bench/paired.py runs `vm run P.bc` and
# `vm run P.bc --profile=K` for each K interleaved, ROUNDS times (one
# hyperfine invocation per round, the order rotated). The table gives the
# median wall time of the plain run and, for each profile, the median of
# the per-round ratios as an overhead in percent with the 25th-75th
# percentile range in brackets (wall clock; the CPU time of all threads is
# in the JSON files). Paired, interleaved medians, because on a shared
# machine a block of runs of one command can be disturbed as a whole by
# more than the 1% being measured. Wall clock, default interval (1 ms) and
# every profile's defaults unless EXTRA says otherwise.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/overhead}"
rounds="${ROUNDS:-15}"
read -r -a profiles <<< "${PROFILES:-timer cbs counter exhaustive}"
extra="${EXTRA:-}"

need hyperfine python3
positive ROUNDS "$rounds"

select_programs "${@:-bench}"

build_vm
mkdir -p "$results"

for p in "${programs[@]}"; do
    program "$p"
    cmds=("none=$vm run $bc")
    for k in "${profiles[@]}"; do
        cmds+=("$k=$vm run $bc --profile=$k $extra")
    done
    echo "== $p" >&2
    python3 "$here/paired.py" --rounds "$rounds" --json "$results/$p.json" "${cmds[@]}" >&2 ||
        die "paired.py failed for $p"
done

python3 - "$results" "${profiles[*]}" "${programs[@]}" <<'PY' | tee "$results/summary.md"
import json, sys
results, profiles, programs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
print("| program | none (ms) | " + " | ".join(f"{k} %" for k in profiles) + " |")
print("|---|---:|" + "---:|" * len(profiles))
for p in programs:
    r = json.load(open(f"{results}/{p}.json"))["commands"]
    cells = [
        f"{r[k]['wall_pct']:+.1f} [{r[k]['wall_pct_q1']:+.1f}, {r[k]['wall_pct_q3']:+.1f}]"
        for k in profiles
    ]
    print(f"| {p} | {r['none']['median_wall_s'] * 1000:.1f} | " + " | ".join(cells) + " |")
PY

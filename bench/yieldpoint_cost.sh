#!/usr/bin/env bash
# yieldpoint_cost.sh - what the yieldpoints cost, counted in machine
# instructions and in seconds.
#
# Usage:
#   bench/yieldpoint_cost.sh               every programs/bench/*.bc
#   bench/yieldpoint_cost.sh fib sieve     only these
#
# Runs each program twice under `valgrind --tool=callgrind` (which counts
# the machine instructions the process executes; the count is the same
# from run to run whatever else the machine is doing): once as loaded, once
# with `--no-yieldpoints`, and prints the extra instructions in percent.
# This is the noise-free companion of the wall-clock column of compare.sh:
# a yieldpoint's fast path is a load and a branch, so its cost shows up in
# instructions executed; the wall-clock figure also includes what the
# branch costs the pipeline. Slow (about 50x a normal run).
#
# Then it times the two side by side with bench/paired.py (ROUNDS
# interleaved rounds, default 15; ROUNDS=0 skips this): the median of the
# per-round wall-time ratios, with the 25th-75th percentile range.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

need valgrind

select_programs "${@:-bench}"

build_vm_for_callgrind

# instructions ARGS...: the instructions callgrind counted for `vm ARGS`.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$vm" "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

rounds="${ROUNDS:-15}"
[[ "$rounds" =~ ^[0-9]+$ ]] || die "ROUNDS must be a number (got '$rounds')"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "| program | instructions with yieldpoints | without | instructions % | wall % [q1, q3] |"
echo "|---|---:|---:|---:|---:|"
for p in "${programs[@]}"; do
    echo "== $p" >&2
    program "$p"
    # shellcheck disable=SC2086 # bc is the file and its arguments
    with="$(instructions run $bc)"
    # shellcheck disable=SC2086
    without="$(instructions run $bc --no-yieldpoints)"
    [[ -n "$with" && -n "$without" ]] || die "$p: no instruction count from callgrind"
    wall="-"
    if ((rounds > 0)); then
        python3 "$here/paired.py" --rounds "$rounds" --json "$tmp/$p.json" \
            "no-yieldpoints=$vm run $bc --no-yieldpoints" \
            "yieldpoints=$vm run $bc" > /dev/null
        wall="$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["commands"]["yieldpoints"]
print("%+.1f [%+.1f, %+.1f]" % (e["wall_pct"], e["wall_pct_q1"], e["wall_pct_q3"]))' "$tmp/$p.json")"
    fi
    awk -v p="$p" -v a="$with" -v b="$without" -v w="$wall" \
        'BEGIN { printf "| %s | %.0f | %.0f | %+.2f | %s |\n", p, a, b, (a - b) / b * 100, w }'
done

#!/usr/bin/env bash
# model_overheads.sh - the overhead of a few profile configurations on the
# Are We Fast Yet suite in the cost model: each run's profiler work as a
# percentage of the program's cycles (run.profiler_cycles / run.cycles,
# docs/PERFORMANCE.md "What a profile costs"). Deterministic: the same
# table on every machine, in a minute.
#
# Usage:
#   bench/model_overheads.sh               every awfy benchmark at its timing size
#   bench/model_overheads.sh awfy/richards only these (see bench/lib.sh)

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

need python3
build_vm
select_programs "${@:-awfy}"

# (label, options): the papers' cheap setting and an expensive one.
configs=(
    "cbs 3/16|--profile=cbs --stride=3 --samples=16"
    "timer 1ms|--profile=timer"
    "cct full-walk timer 100us|--profile=timer --interval=100us --record=cct --walk=full"
    "cct full-walk cbs 3/16|--profile=cbs --record=cct --walk=full"
)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-16s' program
for c in "${configs[@]}"; do printf ' | %26s' "${c%%|*}"; done
echo
for label in "${programs[@]}"; do
    program "$label"
    printf '%-16s' "$label"
    for c in "${configs[@]}"; do
        # shellcheck disable=SC2086
        "$vm" run $bc ${c#*|} --clock=virtual --seed=1 --profile-out="$tmp/p.json" >/dev/null
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["run"]; print("%.3f" % (100*r["profiler_cycles"]/r["cycles"]))' "$tmp/p.json" >"$tmp/pct"
        printf ' | %25s%%' "$(cat "$tmp/pct")"
        cat "$tmp/pct" >>"$tmp/${c%%|*}"
    done
    echo
done
printf '%-16s' mean
for c in "${configs[@]}"; do
    printf ' | %25s%%' "$(python3 -c 'import sys; v=[float(x) for x in open(sys.argv[1])]; print("%.3f" % (sum(v)/len(v)))' "$tmp/${c%%|*}")"
done
echo

#!/usr/bin/env bash
# profile_accuracy.sh - how close each sampled DCG is to the exact one.
#
# Usage:
#   bench/profile_accuracy.sh            programs/bench, programs/examples and
#                                        the Are We Fast Yet suite (timing sizes)
#   bench/profile_accuracy.sh fib.bc     only these (bench/lib.sh: NAME, PATH.bc,
#                                        awfy/NAME, bench, examples, awfy)
#
# Environment:
#   REPEATS=N     sampled runs per setting, seeds 1..N (default 3)
#   SETTINGS      ";"-separated vm run options, one setting each (default:
#                 timer; cbs stride 1 samples 1; cbs defaults (3, 16);
#                 cbs 7/16; cbs 3/64)
#   EXTRA         more options for every sampled run (e.g. "--clock=virtual"
#                 or "--interval=100us")
#   RESULTS_DIR   where profiles go (default: bench-results/accuracy/)
#
# For each program: one `--profile=exhaustive` run gives the reference;
# each setting then runs REPEATS times (seed i for run i) and is scored
# with `vm compare ... --json` (docs/LANGUAGE.md "Accuracy metrics"). A cell is the mean
# dcg-overlap over the repeats, the lowest in brackets, then the mean
# number of samples; runs whose sample held no call edge at all (vm compare
# leaves dcg-overlap out) are counted apart. A program with no call at all has an empty exact DCG:
# any profile that also records no edge scores 100 (they agree).

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/accuracy}"
repeats="${REPEATS:-3}"
extra="${EXTRA:-}"
IFS=';' read -r -a settings <<< "${SETTINGS:---profile=timer;--profile=cbs --stride=1 --samples=1;--profile=cbs;--profile=cbs --stride=7 --samples=16;--profile=cbs --stride=3 --samples=64}"

need python3
positive REPEATS "$repeats"

if (($#)); then select_programs "$@"; else select_programs bench examples awfy; fi

build_vm
mkdir -p "$results"

header="| program | exact calls |"
rule="|---|---:|"
for s in "${settings[@]}"; do
    header+=" ${s//--profile=/} |"
    rule+="---:|"
done
echo "$header" > "$results/summary.md"
echo "$rule" >> "$results/summary.md"

for name in "${programs[@]}"; do
    program "$name"
    echo "== $name" >&2
    ref="$results/$name.exact.json"
    # shellcheck disable=SC2086 # bc is the file and its arguments
    "$vm" run $bc --profile=exhaustive --profile-out="$ref" > /dev/null
    calls="$(python3 -c 'import json,sys; print(sum(e["weight"] for e in json.load(open(sys.argv[1]))["dcg"]))' "$ref")"
    row="| $name | $calls |"
    for s in "${settings[@]}"; do
        scores=()
        for ((i = 1; i <= repeats; i++)); do
            out="$results/$name.sampled.json"
            # shellcheck disable=SC2086 # the setting is a list of options
            "$vm" run $bc $s $extra --seed="$i" --profile-out="$out" > /dev/null
            scores+=("$("$vm" compare "$out" "$ref" --json | python3 -c '
import json, sys
c = json.load(sys.stdin)
p = json.load(open(sys.argv[1]))
# vm compare leaves dcg-overlap out when the sample has no edge at all
print("%s,%d" % (c.get("dcg-overlap", "nan"), p["run"]["samples"]))' "$out")")
        done
        row+=" $(python3 -c '
import sys
pairs = [tuple(map(float, a.split(","))) for a in sys.argv[1:]]
ov = [a for a, _ in pairs if a == a]
n = sum(b for _, b in pairs) / len(pairs)
if len(ov) == len(pairs):
    print("%.1f [%.1f] (%d)" % (sum(ov) / len(ov), min(ov), round(n)))
else:
    # runs whose sample held no edge: no percentages to compare
    print("%s%d of %d runs: no edge sampled (%d)" % (
        "%.1f [%.1f], " % (sum(ov) / len(ov), min(ov)) if ov else "",
        len(pairs) - len(ov), len(pairs), round(n)))' "${scores[@]}") |"
    done
    echo "$row" >> "$results/summary.md"
done

echo
echo "dcg-overlap against --profile=exhaustive: mean [lowest] over $repeats seeded runs (mean samples)${extra:+, with $extra}"
echo
cat "$results/summary.md"

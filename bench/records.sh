#!/usr/bin/env bash
# records.sh - what each calling-context record costs under --profile=cbs,
# and how close its tree comes to the exact calling context tree.
#
# Usage:
#   bench/records.sh
#
# Environment:
#   ROUNDS=N       interleaved rounds of the overhead measurement (default 11)
#   REPEATS=N      profiled runs per (record, interval) for accuracy, seeds
#                  1..N (default 3)
#   PROGRAMS       programs, as bench/lib.sh names them (default "bench
#                  awfy": every programs/bench/*.bc and the Are We Fast Yet
#                  suite at its timing sizes)
#   RECORDS        records to compare (default "cct pcct acct ccmap")
#   INTERVALS      cbs intervals (default "1ms 100us")
#   EXTRA          more vm run options for every profiled run
#   RESULTS_DIR    where results go (default: bench-results/records/)
#   CARGO_TARGET_DIR  honoured: the binary is $CARGO_TARGET_DIR/release/vm
#
# Every profiled run is `vm run P.bc --profile=cbs --interval=IV
# --record=R` with each record's default walk (docs/CLI.md: `full` for cct
# and ccmap, `marked` for pcct and acct) and cbs's defaults (stride 3,
# samples 16), wall clock.
#
# Overhead: for each program, one bench/paired.py measurement runs the plain
# `vm run P.bc` (--profile=none) and every (record, interval) interleaved,
# ROUNDS rounds, no --profile-out; the cell is the median of the per-round
# wall-time ratios as a percentage, 25th-75th percentile in brackets.
#
# Accuracy: the reference is `vm run P.bc --profile=exhaustive --record=cct
# --profile-out=REF`; every (record, interval) then runs REPEATS times
# (--seed=i) with --profile-out and is scored with `vm compare PROF REF
# --json` (docs/LANGUAGE.md "Accuracy metrics"). A cell is the mean over the seeds, the lowest in
# brackets; the cct-overlap table also gives the mean number of samples
# (run.samples) in parentheses. The reference of a deeply recursive program
# is large (fib: 7 million contexts, about 1 GB of JSON, each compare
# 15 s); it is deleted once its program is scored.
#
# Writes bench-results/records/summary.md (three tables: overhead,
# cct-overlap, hot-edge-coverage), the raw paired.py JSON per program and
# rows.tsv (one line per scored profile).

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/records}"
rounds="${ROUNDS:-11}"
repeats="${REPEATS:-3}"
extra="${EXTRA:-}"
read -r -a records <<< "${RECORDS:-cct pcct acct ccmap}"
read -r -a intervals <<< "${INTERVALS:-1ms 100us}"

need hyperfine python3
positive ROUNDS "$rounds"
positive REPEATS "$repeats"
((${#records[@]})) || die "RECORDS is empty"
((${#intervals[@]})) || die "INTERVALS is empty"

read -r -a names <<< "${PROGRAMS:-}"
select_programs "${names[@]}"

build_vm
mkdir -p "$results"
rows="$results/rows.tsv"
: > "$rows"

for p in "${programs[@]}"; do
    program "$p"

    cmds=("none=$vm run $bc")
    for iv in "${intervals[@]}"; do
        for r in "${records[@]}"; do
            cmds+=("$r-$iv=$vm run $bc --profile=cbs --interval=$iv --record=$r $extra")
        done
    done
    echo "== $p: overhead, $rounds rounds" >&2
    python3 "$here/paired.py" --rounds "$rounds" --json "$results/$p.json" "${cmds[@]}" >&2 ||
        die "paired.py failed for $p"

    echo "== $p: accuracy, $repeats seeds" >&2
    ref="$results/$p.exact.json"
    # shellcheck disable=SC2086 # bc is the file and its arguments
    "$vm" run $bc --profile=exhaustive --record=cct --profile-out="$ref" > /dev/null
    for iv in "${intervals[@]}"; do
        for r in "${records[@]}"; do
            for ((i = 1; i <= repeats; i++)); do
                out="$results/$p.$r.$iv.$i.json"
                # shellcheck disable=SC2086 # EXTRA is a list of options
                "$vm" run $bc --profile=cbs --interval="$iv" --record="$r" $extra \
                    --seed="$i" --profile-out="$out" > /dev/null
                "$vm" compare "$out" "$ref" --json | python3 -c '
import json, sys
c = json.load(sys.stdin)
prof = json.load(open(sys.argv[1]))
print("\t".join(sys.argv[2:] + [
    prof["config"].get("walk", "?"),
    str(prof["run"]["samples"]),
    str(len(prof.get("cct", []))),
    str(c.get("cct-overlap", "nan")),
    str(c.get("hot-edge-coverage", "nan")),
]))' "$out" "$p" "$iv" "$r" "$i" >> "$rows"
            done
        done
    done
    rm -f "$ref"
done

python3 - "$results" "$rows" "$rounds" "$repeats" "${records[*]}" "${intervals[*]}" "${programs[@]}" <<'PY' | tee "$results/summary.md"
import json, sys
from collections import defaultdict
results, rows, rounds, repeats = sys.argv[1:5]
records, intervals, programs = sys.argv[5].split(), sys.argv[6].split(), sys.argv[7:]

acc = defaultdict(list)
walks = {}
for line in open(rows):
    p, iv, r, _seed, walk, samples, contexts, ov, hot = line.rstrip("\n").split("\t")
    acc[p, iv, r].append((float(ov), float(hot), int(samples), int(contexts)))
    walks[r] = walk

head = "| program | interval | " + " | ".join(f"{r} ({walks.get(r, '?')})" for r in records) + " |"
rule = "|---|---|" + "---:|" * len(records)

print(f"Overhead against --profile=none, wall time: median of {rounds} interleaved "
      "paired rounds, % [25th, 75th percentile]; plain run's median in ms.")
print()
print(head.replace("| interval |", "| interval | none (ms) |"))
print(rule.replace("|---|---|", "|---|---|---:|"))
for p in programs:
    t = json.load(open(f"{results}/{p}.json"))["commands"]
    for iv in intervals:
        cells = []
        for r in records:
            c = t[f"{r}-{iv}"]
            cells.append(f"{c['wall_pct']:+.1f} [{c['wall_pct_q1']:+.1f}, {c['wall_pct_q3']:+.1f}]")
        print(f"| {p} | {iv} | {t['none']['median_wall_s'] * 1000:.0f} | " + " | ".join(cells) + " |")

for title, k in (("cct-overlap", 0), ("hot-edge-coverage", 1)):
    print()
    what = " (mean samples)" if k == 0 else ""
    print(f"{title} against --profile=exhaustive --record=cct: mean [lowest] over "
          f"seeds 1..{repeats}{what}.")
    print()
    print(head)
    print(rule)
    for p in programs:
        for iv in intervals:
            cells = []
            for r in records:
                xs = acc[p, iv, r]
                v = [x[k] for x in xs]
                cell = f"{sum(v) / len(v):.2f} [{min(v):.2f}]"
                if k == 0:
                    cell += f" ({round(sum(x[2] for x in xs) / len(xs))})"
                cells.append(cell)
            print(f"| {p} | {iv} | " + " | ".join(cells) + " |")
PY

#!/usr/bin/env bash
# samplers.sh - what sampling many threads costs with each --sampler, and
# how accurate the calling context tree it gives is (Hofer et al. 2015,
# section 7: overhead and CCT overlap of JVMTI-style global safepoints,
# partial safepoints and self-sampling).
#
# Usage:
#   bench/samplers.sh
#
# Environment:
#   ROUNDS=N       interleaved rounds per (threads, interval) (default 5)
#   THREADS        thread counts (default "8 32")
#   INTERVALS      sampling intervals (default "10ms 1ms 100us")
#   SAMPLERS       samplers (default "safepoint partial self"); a sampler
#                  written NAME/FLAG/FLAG.. runs with --FLAG for each,
#                  e.g. self/runnable-only/no-hold (docs/SAMPLERS.md)
#   WALKS          walks (default "full incremental": every sampler is
#                  timed with every walk; the paper's ISPS is
#                  self+incremental)
#   WORK           iterations, divided by the number of threads: each
#                  computing thread's share (default 12000000: 1.5-2 s on
#                  2 cores)
#   BUSY=N         only N threads compute, the others sleep (default:
#                  three of every four compute); each does WORK/N
#   DEPTH=N        every thread starts N frames deep (default 0): the
#                  deep stacks a full walk examines at every sample
#   REPEATS=N      profiled runs per setting for the accuracy (default 3)
#   RESULTS_DIR    where results go (default: bench-results/samplers/)
#
# The program is tests/programs/samplers/many.bc with --set threads=N
# --set work=WORK/N: of every four threads three compute and one sleeps
# 1 ms at a time for as long as any computing thread runs (with BUSY, the
# first BUSY threads compute and the others sleep; with DEPTH, every
# thread works DEPTH frames deep). Each
# sampler runs --profile=timer --record=cct --walk=WALK at each interval.
# Overhead: bench/paired.py, the plain run (--profile=none) and every
# sampler interleaved, ROUNDS rounds; the median of per-round wall-time
# ratios in percent, 25th-75th percentile in brackets (wall clock, and the
# CPU time of all threads). Accuracy: REPEATS more runs of each write
# profiles; `vm compare` gives each one's cct-overlap against the exhaustive
# profile (--profile=exhaustive --record=cct) of the same program: the mean,
# and the lowest in brackets. The profile's own counters are listed too,
# means over the repeats: safepoints, samples taken and requested, held-ms
# (the time threads spent held parked, summed over threads, until each got
# the CPU back) and pause-ms (from each request to each release, summed
# over safepoints).

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/samplers}"
rounds="${ROUNDS:-5}"
work="${WORK:-12000000}"
repeats="${REPEATS:-3}"
read -r -a thread_counts <<< "${THREADS:-8 32}"
read -r -a intervals <<< "${INTERVALS:-10ms 1ms 100us}"
read -r -a samplers <<< "${SAMPLERS:-safepoint partial self}"
read -r -a walks <<< "${WALKS:-full incremental}"

need hyperfine python3
positive ROUNDS "$rounds"
positive WORK "$work"
positive REPEATS "$repeats"

# NAME/FLAG/FLAG.. as command-line flags: --sampler=NAME --FLAG --FLAG..
sampler_flags() {
    local parts p flags
    IFS=/ read -r -a parts <<< "$1"
    flags="--sampler=${parts[0]}"
    for p in "${parts[@]:1}"; do flags+=" --$p"; done
    echo "$flags"
}

build_vm
mkdir -p "$results"
rows="$results/rows.tsv"
: > "$rows"

for n in "${thread_counts[@]}"; do
    many_threads "$n"
    for iv in "${intervals[@]}"; do
        cmds=("none=$base")
        for s in "${samplers[@]}"; do
            for w in "${walks[@]}"; do
                cmds+=("$s-$w=$base --profile=timer --interval=$iv $(sampler_flags "$s") --record=cct --walk=$w")
            done
        done
        echo "== $n threads, $iv" >&2
        json="$results/t$n-$iv.json"
        python3 "$here/paired.py" --rounds "$rounds" --json "$json" "${cmds[@]}" >&2 ||
            die "paired.py failed"
        for s in "${samplers[@]}"; do
            for w in "${walks[@]}"; do
                outs=() overlaps=()
                for ((i = 1; i <= repeats; i++)); do
                    out="$results/t$n-$iv-${s//\//-}-$w-$i.json"
                    $base --profile=timer --interval="$iv" $(sampler_flags "$s") --record=cct \
                        --walk="$w" --seed="$i" --profile-out "$out" >/dev/null
                    o=$("$vm" compare "$out" "$ref" | sed -n 's/^cct-overlap: //p')
                    outs+=("$out") overlaps+=("${o:-nan}")
                done
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$iv" "$s" "$w" "$json" \
                    "${outs[*]}" "${overlaps[*]}" >> "$rows"
            done
        done
    done
done

python3 - "$rows" <<'PY' | tee "$results/summary.md"
import json, sys
print("| threads | interval | sampler | walk | plain (ms) | wall overhead % [q1, q3] "
      "| cpu overhead % [q1, q3] | cct-overlap mean [min] | safepoints "
      "| samples taken / requested | held-ms | pause-ms |")
print("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for line in open(sys.argv[1]):
    n, iv, s, w, timing, profs, overlaps = line.rstrip("\n").split("\t")
    r = json.load(open(timing))["commands"]
    c = r[f"{s}-{w}"]
    runs = [json.load(open(p))["run"] for p in profs.split()]
    mean = lambda k: sum(x.get(k, 0) for x in runs) / len(runs)
    o = [float(x) for x in overlaps.split()]
    print(f"| {n} | {iv} | {s} | {w} | {r['none']['median_wall_s'] * 1000:.0f} "
          f"| {c['wall_pct']:+.1f} [{c['wall_pct_q1']:+.1f}, {c['wall_pct_q3']:+.1f}] "
          f"| {c['cpu_pct']:+.1f} [{c['cpu_pct_q1']:+.1f}, {c['cpu_pct_q3']:+.1f}] "
          f"| {sum(o) / len(o):.1f} [{min(o):.1f}] | {mean('safepoints'):.0f} "
          f"| {mean('samples_taken'):.0f} / {mean('samples_requested'):.0f} "
          f"| {mean('held_ns') / 1e6:.1f} | {mean('pause_ns') / 1e6:.1f} |")
PY

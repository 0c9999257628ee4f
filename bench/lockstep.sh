#!/usr/bin/env bash
# lockstep.sh - why a global safepoint looks more accurate than it is when
# a program has more computing threads than the machine has cores.
#
# Usage:
#   bench/lockstep.sh
#
# Environment:
#   THREADS        thread counts (default "2 8 32"; of every four threads
#                  three compute, see tests/programs/samplers/many.bc)
#   WORK           iterations of all computing threads together (default
#                  12000000)
#   INTERVAL       sampling interval (default 1ms)
#   SEEDS          runs per setting (default "1 2 3")
#   RESULTS_DIR    where results go (default: bench-results/lockstep/)
#
# It builds the `vm` binary with the `sample-trace` feature (into
# target/sample-trace, apart from the normal build), which prints where
# each sample was taken (profiler/src/trace.rs), and runs many.bc under
# `safepoint` (full walk), `partial` (full walk) and `self` (incremental
# walk) with --profile=timer --record=cct. For each run it prints:
#   next-yp %     of the consecutive samples of one computing thread, the
#                 share taken at the very next yieldpoint in program order
#                 (the loop of `compute`: backedge, step's prologue,
#                 backedges, epilogue, pair's prologue, triple's prologue
#                 and epilogue, seventh's, pair's epilogue): the thread
#                 moved one yieldpoint between the two samples;
#   chance %      the same share with each thread's samples shuffled (what
#                 independent samples give), mean of 20 shuffles;
#   pair %        the share of the sampled calls credited to `pair` (25% in
#                 the exact profile);
#   cct-overlap   against --profile=exhaustive --record=cct.
# A thread that gets no CPU between two ticks can only move to its next
# yieldpoint before a global safepoint stops it again; sampled at every
# yieldpoint in turn, it is counted as an exhaustive profile counts, not as
# a timer samples (docs/SAMPLERS.md).

set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
need python3
results="${RESULTS_DIR:-$root/bench-results/lockstep}"
work="${WORK:-12000000}"
interval="${INTERVAL:-1ms}"
read -r -a thread_counts <<< "${THREADS:-2 8 32}"
read -r -a seeds <<< "${SEEDS:-1 2 3}"
positive WORK "$work"

export CARGO_TARGET_DIR="$root/target/sample-trace"   # apart from the normal build
build_vm --features sample-trace
mkdir -p "$results"
rows="$results/rows.tsv"
: > "$rows"

for n in "${thread_counts[@]}"; do
    many_threads "$n"
    for sw in safepoint:full partial:full self:incremental; do
        s="${sw%%:*}" w="${sw##*:}"
        for seed in "${seeds[@]}"; do
            echo "== $n threads, $s, seed $seed" >&2
            out="$results/t$n-$s-$seed.json"
            trace="$results/t$n-$s-$seed.trace"
            $base --profile=timer --interval="$interval" --sampler="$s" --walk="$w" \
                --record=cct --seed="$seed" --profile-out "$out" 2> "$trace" >/dev/null
            o=$("$vm" compare "$out" "$ref" | sed -n 's/^cct-overlap: //p')
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$s" "$w" "$trace" "$out" "${o:-nan}" >> "$rows"
        done
    done
done

python3 - "$rows" <<'PY' | tee "$results/summary.md"
import collections, json, random, sys

# One iteration of compute's loop, yieldpoint by yieldpoint.
LOOP = [("compute", "backedge"), ("step", "prologue"), ("step", "backedge"),
        ("step", "epilogue"), ("pair", "prologue"), ("triple", "prologue"),
        ("triple", "epilogue"), ("seventh", "prologue"), ("seventh", "epilogue"),
        ("pair", "epilogue")]
NEXT = {a: LOOP[(i + 1) % len(LOOP)] for i, a in enumerate(LOOP)}
COMPUTING = {m for m, _ in LOOP}

def next_share(seqs):
    moved = total = 0
    for seq in seqs:
        for a, b in zip(seq, seq[1:]):
            if a == b == ("step", "backedge"):
                continue  # step's own loop: a successor of itself
            total += 1
            moved += NEXT.get(a) == b
    return 100 * moved / total if total else float("nan")

def pair_share(profile):
    nodes = json.load(open(profile))["cct"]
    calls = collections.Counter()
    for n in nodes:
        if n["parent"] is not None:
            calls[n["method"]] += n["calls"]
    total = sum(calls.values())
    return 100 * calls["pair"] / total if total else float("nan")

groups = collections.OrderedDict()
for line in open(sys.argv[1]):
    n, s, w, trace, out, overlap = line.rstrip("\n").split("\t")
    seqs = collections.defaultdict(list)
    for l in open(trace):
        f = l.split()
        if len(f) == 5 and f[0] == "sample-trace" and f[2] in COMPUTING:
            seqs[f[1]].append((f[2], f[3]))
    seqs = list(seqs.values())
    rng = random.Random(1)
    chance = []
    for _ in range(20):
        shuffled = [rng.sample(q, len(q)) for q in seqs]
        chance.append(next_share(shuffled))
    samples = json.load(open(out))["run"]["samples_taken"]
    groups.setdefault((n, s, w), []).append(
        (next_share(seqs), sum(chance) / len(chance), pair_share(out), float(overlap), samples))

print("| threads | sampler | walk | samples | next-yp % | chance % | pair % (exact 25) | cct-overlap |")
print("|---:|---|---|---:|---:|---:|---:|---:|")
for (n, s, w), rs in groups.items():
    mean = lambda i: sum(r[i] for r in rs) / len(rs)
    print(f"| {n} | {s} | {w} | {mean(4):.0f} | {mean(0):.1f} | {mean(1):.1f} | {mean(2):.1f} | {mean(3):.1f} |")
PY

#!/usr/bin/env bash
# inlining.sh - what `vm inline` buys: simulated cycles and wall time of each
# bench program before and after inlining, with each policy and profile.
#
# Usage:
#   bench/inlining.sh                 programs/bench, then `vm experiment
#                                     arnold-grove-fig5` (the suite)
#   bench/inlining.sh oo_small_calls  only these (bench/lib.sh: NAME, awfy/NAME, bench, awfy)
#
# `linear` and `static` on the Are We Fast Yet suite, in simulated cycles,
# are the experiment `vm experiment arnold-grove-fig5` (docs/EXPERIMENTS.md),
# which this script runs after programs/bench when it is given no names
# (its files in RESULTS_DIR). What the script measures that the experiment
# does not: the `hot-edge` policy, wall time, and programs/bench.
#
# Environment:
#   ROUNDS=N      interleaved wall-time rounds (default 10; 0 skips wall time)
#   CLOCK         clock of the cbs and timer profiles: wall (default, what
#                 an adaptive system sees) or virtual (reproducible)
#   SEED          seed of the cbs and timer profiles (default 1)
#   RESULTS_DIR   where results go (default: bench-results/inlining/)
#
# For each program P it emits the optimized programs
#   static           vm inline P.bc --policy=static
#   POLICY-PROFILE   vm inline P.bc --policy=POLICY --profile=PROFILE
# for POLICY in hot-edge, linear and PROFILE in exhaustive, cbs, timer
# (defaults of each profile, --seed=$SEED, --clock=$CLOCK for cbs and
# timer), checks that each prints what the original prints (and the
# original P.out, where the program has one), and measures:
#   - simulated cycles (`vm run --cycles`, deterministic: one run each), as
#     a speedup before/after;
#   - wall time, with bench/paired.py: the original and every optimized
#     program run interleaved, ROUNDS rounds; the speedup is 1 / the median
#     of the per-round ratios (optimized / original), with the 25th-75th
#     percentile range of the ratios in brackets.
# The emitted programs and the inlining logs stay in RESULTS_DIR.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/inlining}"
rounds="${ROUNDS:-10}"
clock="${CLOCK:-wall}"
seed="${SEED:-1}"

need python3
[[ "$rounds" =~ ^[0-9]+$ ]] || die "ROUNDS must be a whole number (got '$rounds')"
((rounds == 0)) || command -v hyperfine >/dev/null ||
    die "hyperfine is missing (apt-get install -y hyperfine)"
[[ "$clock" == wall || "$clock" == virtual ]] || die "CLOCK must be wall or virtual"

if (($#)); then select_programs "$@"; suite=0; else select_programs bench; suite=1; fi

build_vm
mkdir -p "$results"

variants=(static)
for policy in hot-edge linear; do
    for profile in exhaustive cbs timer; do variants+=("$policy-$profile"); done
done

# cycles P VARIANT FILE [ARGS..]: runs FILE with --cycles, checks its output
# against the expected output (the original's, and for the original P.out
# if there is one), appends "P VARIANT CYCLES INSTRUCTIONS" to cycles.txt.
cycles() {
    local p="$1" v="$2" f="$3" err want
    shift 3
    err="$("$vm" run "$f" "$@" --cycles 2>&1 >"$results/$p.$v.stdout")" ||
        die "$p ($v): vm run failed: $err"
    want="$results/$p.original.stdout"
    [[ "$v" == original ]] && want="$expected"
    if [[ -n "$want" ]]; then
        cmp -s "$results/$p.$v.stdout" "$want" ||
            die "$p ($v): the output differs from ${want##*/}"
    fi
    read -r _ _ c _ i <<<"$(grep '^vm: cycles:' <<<"$err")"
    echo "$p $v $c $i" >>"$results/cycles.txt"
}

: >"$results/cycles.txt"
for p in "${programs[@]}"; do
    program "$p"
    read -r -a run_args <<<"$bc"   # the file, then its --set arguments
    src="${run_args[0]}" sets=("${run_args[@]:1}")
    echo "== $p: emitting" >&2
    cycles "$p" original "$src" "${sets[@]}"
    for v in "${variants[@]}"; do
        out="$results/$p.$v.bc"
        if [[ "$v" == static ]]; then
            args=(--policy=static)
        else
            policy="${v%-*}" profile="${v##*-}"
            args=("--policy=$policy" "--profile=$profile")
            if [[ "$profile" != exhaustive ]]; then
                args+=("--seed=$seed" "--clock=$clock")
            fi
        fi
        "$vm" inline "$src" "${sets[@]}" "${args[@]}" "--emit=$out" >/dev/null 2>"$results/$p.$v.log" ||
            die "$p: vm inline ${args[*]} failed (see $results/$p.$v.log)"
        cycles "$p" "$v" "$out" "${sets[@]}"
    done
    if ((rounds > 0)); then
        echo "== $p: wall time" >&2
        cmds=("original=$vm run $bc")
        for v in "${variants[@]}"; do cmds+=("$v=$vm run $results/$p.$v.bc ${sets[*]}"); done
        python3 "$here/paired.py" --rounds "$rounds" --json "$results/$p.json" "${cmds[@]}" >&2 ||
            die "paired.py failed for $p"
    fi
done

python3 - "$results" "$rounds" "${variants[*]}" "${programs[@]}" <<'PY' | tee "$results/summary.md"
import json, os, sys
results, rounds, variants, programs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
cyc = {}
for line in open(f"{results}/cycles.txt"):
    p, v, c, i = line.split()
    cyc[(p, v)] = int(c)
head = "| program | original | " + " | ".join(variants) + " |"
rule = "|---|---:|" + "---:|" * len(variants)
print("Simulated cycles: the original's (millions), then the speedup (original / optimized).\n")
print(head)
print(rule)
for p in programs:
    base = cyc[(p, "original")]
    cells = [f"{base / cyc[(p, v)]:.3f}" for v in variants]
    print(f"| {p} | {base / 1e6:.1f} M | " + " | ".join(cells) + " |")
if rounds > 0:
    print(f"\nWall time: the original's median (ms), then the speedup (1 / median of the "
          f"per-round ratios optimized / original, {rounds} interleaved rounds) "
          "[25th-75th percentile range].\n")
    print(head)
    print(rule)
    for p in programs:
        r = json.load(open(f"{results}/{p}.json"))["commands"]
        cells = []
        for v in variants:
            # Speedup = 1 / ratio; the quartiles swap places.
            s = 100 / (100 + r[v]["wall_pct"])
            lo, hi = 100 / (100 + r[v]["wall_pct_q3"]), 100 / (100 + r[v]["wall_pct_q1"])
            cells.append(f"{s:.2f} [{lo:.2f}, {hi:.2f}]")
        print(f"| {p} | {r['original']['median_wall_s'] * 1000:.0f} | " + " | ".join(cells) + " |")
PY

if ((suite)); then
    echo "== the Are We Fast Yet suite: vm experiment arnold-grove-fig5" >&2
    (cd "$root" && nice -n 10 "$vm" experiment arnold-grove-fig5 --out "$results") ||
        die "vm experiment arnold-grove-fig5 failed"
fi

#!/usr/bin/env bash
# samplers_simulated.sh - Hofer et al.'s comparison (ICPE 2015, section 7)
# on the simulated machine (`vm run --clock=virtual --cores=N`,
# docs/SAMPLERS.md "Simulated cores"): what self-sampling with incremental
# walks (ISPS) costs against a global safepoint with full walks (JVMTI), in
# virtual cycles, and how alike their calling context trees are to the
# exhaustive one (`vm compare`, cct-overlap). Every number is exact and the
# same on every run and machine: the runs are deterministic (--seed).
#
# For tests/programs/samplers/many.bc at 2, 8 and 32 threads (all computing
# unless BUSY says otherwise: a sleeping thread ends the run at the end of
# a sleep, which hides what the samplers cost the computing threads), with
# a core per thread and with 2 cores (32 threads: also 8),
# at 10 ms and 1 ms: the plain run's length (--profile=none), then each
# technique's: overhead = its length / the plain length - 1.
#
# Usage:
#   bench/samplers_simulated.sh
#
# Environment:
#   THREADS      thread counts (default "2 8 32")
#   INTERVALS    intervals (default "10ms 1ms")
#   WORK         iterations all computing threads make together
#                (default 600000)
#   DEPTH        frames every thread descends first (default 0)
#   BUSY         computing threads per run, as a fraction: "all" (default)
#                or "3/4" (the rest sleep 1 ms at a time)
#   TECHNIQUES   which techniques, by name (default: all five)
#   RESULTS_DIR  where the profiles and the table go (default
#                bench-results/samplers_simulated/)
#   VM           a vm binary to use instead of building the release one
#
# Prints a Markdown table on stdout (also written to RESULTS_DIR/table.md).

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/samplers_simulated}"
threads_list="${THREADS:-2 8 32}"
intervals="${INTERVALS:-10ms 1ms}"
work="${WORK:-600000}"
depth="${DEPTH:-0}"
busy="${BUSY:-all}"
wanted="${TECHNIQUES:-}"
positive WORK "$work"
need python3

if [[ -n "${VM:-}" ]]; then vm="$VM"; else build_vm; fi
mkdir -p "$results"

# The techniques: name, then the options beside --profile=timer.
techniques=(
    "safepoint+full|--sampler=safepoint --walk=full"
    "partial+full|--sampler=partial --walk=full"
    "self+full|--sampler=self --walk=full"
    "self+marked|--sampler=self --walk=marked"
    "self+incremental|--sampler=self --walk=incremental"
)

# virtual_ns ARGS...: the run's length in virtual cycles (--stats).
virtual_ns() {
    nice -n 10 "$vm" "$@" --stats 2>&1 >/dev/null | sed -n 's/.*virtual-ns \([0-9]*\).*/\1/p'
}

# overlap PROFILE REF: cct-overlap of PROFILE against REF.
overlap() {
    "$vm" compare "$1" "$2" | sed -n 's/^cct-overlap: //p'
}

table="$results/table.md"
{
    echo "| threads | cores | interval | technique | overhead % | pause cycles | walk cycles | samples | cct-overlap |"
    echo "|---|---|---|---|---|---|---|---|---|"
} >"$table"

for n in $threads_list; do
    case "$busy" in
        all) computing=$n ;;
        3/4) computing=$(( n * 3 / 4 > 0 ? n * 3 / 4 : 1 )) ;;
        *) die "BUSY must be all or 3/4, not $busy" ;;
    esac
    prog=("$root/tests/programs/samplers/many.bc" --set "threads=$n" --set "busy=$computing"
          --set "work=$((work / computing))" --set "depth=$depth")
    core_counts="$n"
    [[ "$n" -gt 2 ]] && core_counts+=" 2"
    [[ "$n" -gt 8 ]] && core_counts+=" 8"
    for cores in $core_counts; do
        sim=(--clock=virtual "--cores=$cores")
        ref="$results/exact-$n-$cores.json"
        nice -n 10 "$vm" run "${prog[@]}" "${sim[@]}" --profile=exhaustive --record=cct --seed=1 \
            --profile-out "$ref" >/dev/null
        plain=$(virtual_ns run "${prog[@]}" "${sim[@]}" --profile=none)
        [[ -n "$plain" ]] || die "no virtual-ns for the plain run ($n threads, $cores cores)"
        for interval in $intervals; do
            for t in "${techniques[@]}"; do
                name="${t%%|*}"
                if [[ -n "$wanted" && " $wanted " != *" $name "* ]]; then continue; fi
                read -r -a opts <<<"${t#*|}"
                out="$results/$name-$n-$cores-$interval.json"
                nice -n 10 "$vm" run "${prog[@]}" "${sim[@]}" --profile=timer \
                    "--interval=$interval" --record=cct --seed=1 "${opts[@]}" --profile-out "$out" >/dev/null
                read -r len pause walk samples < <(python3 - "$out" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["run"]
print(r["wall_ns"], r.get("pause_cycles", 0), r.get("walk_cycles", 0), r["samples"])
EOF
                )
                over=$(python3 -c "print(f'{($len / $plain - 1) * 100:.2f}')")
                echo "| $n | $cores | $interval | $name | $over | $pause | $walk | $samples | $(overlap "$out" "$ref") |" >>"$table"
            done
        done
    done
done
cat "$table"

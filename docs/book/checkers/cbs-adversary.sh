#!/bin/sh
# Checker of the exercise "a program that defeats cbs at the default stride"
# (docs/book, chapter "Counter-based sampling").
#
#   sh docs/book/checkers/cbs-adversary.sh PROG.bc
#
# PASS when, for each of the seeds 1, 2 and 3, `vm run PROG.bc --profile=cbs
# --clock=virtual --seed=S` (default --stride=3 --samples=16 --interval=1ms)
# scores a dcg-overlap below 70 against the exact profile
# (--profile=exhaustive) in `vm compare`. A cbs profile of fewer than 100
# edge samples is too few to judge: FAIL, whatever its score.
set -eu
. "$(dirname "$0")/lib/profile.sh"
prog=${1:?usage: cbs-adversary.sh PROG.bc}
need_program "$prog"
work_dir
vm run "$prog" --profile=exhaustive --profile-out="$CHECK_DIR/exact.json" >/dev/null
if [ "$(dcg_edges "$CHECK_DIR/exact.json" | wc -l)" -lt 2 ]; then
    echo "FAIL: the program has fewer than two call edges: nothing to get wrong"
    exit 1
fi
for seed in 1 2 3; do
    vm run "$prog" --profile=cbs --clock=virtual --seed=$seed \
        --profile-out="$CHECK_DIR/cbs.json" >/dev/null
    enough_samples "$CHECK_DIR/cbs.json" $seed "make the program run longer: each 1 ms tick (1,000,000 cycles, vm run PROG --cycles) opens a window of up to 16"
    o=$(overlap "$CHECK_DIR/cbs.json" "$CHECK_DIR/exact.json")
    if [ -z "$o" ]; then
        echo "FAIL: seed $seed: cbs took no edge sample (is the program long enough for a 1 ms tick?)"
        exit 1
    fi
    echo "seed $seed: dcg-overlap $o"
    if ! awk -v o="$o" 'BEGIN { exit !(o < 70) }'; then
        echo "FAIL: cbs is accurate on this program (dcg-overlap $o is not below 70 at seed $seed)"
        exit 1
    fi
done
echo "PASS: cbs scores below 70 at the default stride for seeds 1, 2 and 3"

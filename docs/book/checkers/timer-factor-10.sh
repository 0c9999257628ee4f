#!/bin/sh
# Checker of the exercise "a program on which the timer profile is wrong by
# a factor of 10" (docs/book, chapter "Timer sampling and its bias").
#
#   sh docs/book/checkers/timer-factor-10.sh PROG.bc
#
# PASS when, for each of the seeds 1, 2 and 3, some call edge of
# `vm run PROG.bc --profile=timer --clock=virtual --seed=S` (1 ms ticks)
# has a share of the timer's call graph at least 10 times, or at most a
# tenth of, its share of the exact call graph (--profile=exhaustive), the
# larger of the two shares being at least 5%. An edge the timer never
# sampled has a share of 0. Shares are percentages of each profile's total
# edge weight, as `vm compare` normalizes them. A timer profile of fewer
# than 100 edge samples (a run under about 100 ms of virtual time) is too
# few to judge: FAIL, whatever its factor.
set -eu
. "$(dirname "$0")/lib/profile.sh"
prog=${1:?usage: timer-factor-10.sh PROG.bc}
need_program "$prog"
work_dir
vm run "$prog" --profile=exhaustive --profile-out="$CHECK_DIR/exact.json" >/dev/null
dcg_edges "$CHECK_DIR/exact.json" > "$CHECK_DIR/exact.edges"
for seed in 1 2 3; do
    vm run "$prog" --profile=timer --clock=virtual --seed=$seed \
        --profile-out="$CHECK_DIR/timer.json" >/dev/null
    enough_samples "$CHECK_DIR/timer.json" $seed "make the program run longer: a 1 ms tick takes one every 1,000,000 cycles (vm run PROG --cycles)"
    dcg_edges "$CHECK_DIR/timer.json" > "$CHECK_DIR/timer.edges"
    # worst: the edge with the largest factor, "EDGE exact% timer% factor"
    worst=$(awk '
        FNR == NR { exact[$1] = $2; te += $2; next }
        { timer[$1] = $2; tt += $2 }
        END {
            if (te == 0 || tt == 0) { print "none"; exit }
            for (e in exact) seen[e] = 1
            for (e in timer) seen[e] = 1
            best = 0
            for (e in seen) {
                x = 100 * exact[e] / te; t = 100 * timer[e] / tt
                hi = x > t ? x : t; lo = x > t ? t : x
                if (hi < 5) continue
                f = lo == 0 ? 1e9 : hi / lo
                shown = lo == 0 ? "never-sampled" : sprintf("%.1f", f)
                if (f > best) { best = f; line = sprintf("%s %.1f%% %.1f%% %s", e, x, t, shown) }
            }
            print (best == 0 ? "none" : line)
        }' "$CHECK_DIR/exact.edges" "$CHECK_DIR/timer.edges")
    if [ "$worst" = none ]; then
        echo "FAIL: seed $seed: no call edge to compare (does the program make calls, and run long enough for a 1 ms tick?)"
        exit 1
    fi
    set -- $worst
    if [ "$4" = never-sampled ]; then
        echo "seed $seed: worst edge $1: exact $2, timer $3 (never sampled)"
        continue
    fi
    echo "seed $seed: worst edge $1: exact $2, timer $3 (factor $4)"
    if ! awk -v f="$4" 'BEGIN { exit !(f >= 10) }'; then
        echo "FAIL: the timer is off by a factor of $4 at most on this program, not 10"
        exit 1
    fi
done
echo "PASS: the timer profile is wrong by a factor of 10 or more for seeds 1, 2 and 3"

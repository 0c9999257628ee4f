#!/bin/sh
# Checker of the exercise "a call site the linear policy gets wrong with a
# timer profile" (docs/book, chapter "Inlining with profiles").
#
#   sh docs/book/checkers/linear-timer-wrong.sh PROG.bc
#
# PASS when, for each of the seeds 1, 2 and 3, `vm inline PROG.bc
# --policy=linear --profile=timer --clock=virtual --seed=S` decides a call
# site differently (inlines it where the exact profile does not, or the
# other way round) from `vm inline PROG.bc --policy=linear
# --profile=exhaustive`. A site is a line `@ LINE CALLEE (...)   DECISION`
# of the log under its method's header; it is inlined when the decision
# reads `inline (...)` or `guarded inline (...)`. Only sites with a weight
# above 0 in both logs count: a site the timer never sampled is "too cold"
# for a trivial reason. A timer profile of fewer than 100 edge samples is
# too few to judge: FAIL, whatever the decisions.
set -eu
. "$(dirname "$0")/lib/profile.sh"
prog=${1:?usage: linear-timer-wrong.sh PROG.bc}
need_program "$prog"
work_dir
# decisions LOG: "METHOD|@LINE|CALLEE yes|no", one per top-level call site
decisions() {
    awk '
        /^[^ ].*:$/ { method = $0; next }
        /^  @ / {
            if (!match($0, /weight [0-9]+/)) next
            if (substr($0, RSTART + 7, RLENGTH - 7) + 0 == 0) next
            split($0, half, ")   ")
            inl = (half[2] ~ /(^|guarded )inline \(/) ? "yes" : "no"
            print method "|@" $2 "|" $3, inl
        }' "$1" | sort -u
}
vm inline "$prog" --policy=linear --profile=exhaustive >/dev/null 2>"$CHECK_DIR/exact.log"
decisions "$CHECK_DIR/exact.log" > "$CHECK_DIR/exact.dec"
if [ ! -s "$CHECK_DIR/exact.dec" ]; then
    echo "FAIL: the exact profile's log has no call site (does the program make calls?)"
    exit 1
fi
for seed in 1 2 3; do
    vm inline "$prog" --policy=linear --profile=timer --clock=virtual --seed=$seed \
        --profile-out="$CHECK_DIR/timer.json" >/dev/null 2>"$CHECK_DIR/timer.log"
    enough_samples "$CHECK_DIR/timer.json" $seed "make the program run longer: a 1 ms tick takes one every 1,000,000 cycles (vm run PROG --cycles)"
    decisions "$CHECK_DIR/timer.log" > "$CHECK_DIR/timer.dec"
    differ=$(join "$CHECK_DIR/exact.dec" "$CHECK_DIR/timer.dec" | awk '$2 != $3 { print $1 " exact:" $2 " timer:" $3; exit }')
    if [ -z "$differ" ]; then
        echo "FAIL: seed $seed: the timer profile leads the linear policy to the same decisions as the exact one"
        exit 1
    fi
    echo "seed $seed: $differ"
done
echo "PASS: with a timer profile the linear policy decides a call site differently for seeds 1, 2 and 3"

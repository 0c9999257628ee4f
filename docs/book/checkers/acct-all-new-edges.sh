#!/bin/sh
# Checker of the exercise "a program where all-new-edges misleads the ACCT"
# (docs/book, chapter "Calling contexts").
#
#   sh docs/book/checkers/acct-all-new-edges.sh PROG.bc
#
# PASS when, for each of the seeds 1, 2 and 3, the approximate CCT of
# `vm run PROG.bc --profile=counter --every=100 --seed=S --record=acct`
# scores a cct-overlap (vm compare, against --profile=exhaustive
# --record=cct) below 35 with --acct-update=all-new-edges, and of 90 or
# more with the default --acct-update=last-edge: the strategy, not the
# sampling, is what goes wrong. A profile of fewer than 100 samples (a
# program of fewer than 10,000 calls) is too few to judge: FAIL.
set -eu
. "$(dirname "$0")/lib/profile.sh"
prog=${1:?usage: acct-all-new-edges.sh PROG.bc}
need_program "$prog"
work_dir
vm run "$prog" --profile=exhaustive --record=cct --profile-out="$CHECK_DIR/exact.json" >/dev/null
cct_overlap() {
    vm compare "$1" "$CHECK_DIR/exact.json" 2>/dev/null | sed -n 's/^cct-overlap: //p'
}
for seed in 1 2 3; do
    for update in last-edge all-new-edges; do
        vm run "$prog" --profile=counter --every=100 --seed=$seed --record=acct \
            --acct-update=$update --profile-out="$CHECK_DIR/$update.json" >/dev/null
    done
    for update in last-edge all-new-edges; do
        enough_samples "$CHECK_DIR/$update.json" $seed "make the program call more: --every=100 samples one call in 100"
    done
    last=$(cct_overlap "$CHECK_DIR/last-edge.json")
    all=$(cct_overlap "$CHECK_DIR/all-new-edges.json")
    if [ -z "$last" ] || [ -z "$all" ]; then
        echo "FAIL: seed $seed: no cct-overlap (does the program make at least 100 calls?)"
        exit 1
    fi
    echo "seed $seed: cct-overlap last-edge $last, all-new-edges $all"
    if ! awk -v o="$last" 'BEGIN { exit !(o >= 90) }'; then
        echo "FAIL: last-edge is not accurate either ($last < 90): the sampling is off, not the strategy"
        exit 1
    fi
    if ! awk -v o="$all" 'BEGIN { exit !(o < 35) }'; then
        echo "FAIL: all-new-edges scores $all, not below 35"
        exit 1
    fi
done
echo "PASS: all-new-edges misleads the ACCT (below 35) where last-edge does not (90 or more)"

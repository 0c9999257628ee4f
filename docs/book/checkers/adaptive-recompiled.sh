#!/bin/sh
# Checker of the exercise "restructure a program so that the adaptive
# controller recompiles its hot method" (docs/book, chapter "The adaptive
# controller").
#
#   sh docs/book/checkers/adaptive-recompiled.sh PROG.bc
#
# PASS when `vm run PROG.bc --adaptive --print-compilation` recompiles at
# least one method (its last line reads `N recompiled` with N > 0) and
# prints what `vm run PROG.bc` prints. The controller runs on the wall
# clock: give the program a few tenths of a second of work at least.
set -eu
. "$(dirname "$0")/lib/profile.sh"
prog=${1:?usage: adaptive-recompiled.sh PROG.bc}
need_program "$prog"
work_dir
vm run "$prog" > "$CHECK_DIR/plain.out"
# The profile on the virtual clock with a seed, so that the samples, and
# so the verdict, are the same in every run however busy the machine:
# on the wall clock a first tick that comes before a once-called method
# is entered can sample that call (the adaptive chapter, "A hot method
# that is never recompiled").
vm run "$prog" --adaptive --print-compilation --clock=virtual --seed=1 > "$CHECK_DIR/adaptive.out" 2> "$CHECK_DIR/log"
if ! cmp -s "$CHECK_DIR/plain.out" "$CHECK_DIR/adaptive.out"; then
    echo "FAIL: the program prints something else with --adaptive"
    exit 1
fi
n=$(sed -n 's/^vm: adaptive: \([0-9][0-9]*\) recompiled.*/\1/p' "$CHECK_DIR/log" | tail -n 1)
grep '^vm: adaptive:' "$CHECK_DIR/log" | sed 's/^/  /'
if [ -z "$n" ]; then
    echo "FAIL: no summary line from --print-compilation"
    exit 1
fi
if [ "$n" -eq 0 ]; then
    echo "FAIL: the controller recompiled nothing"
    exit 1
fi
echo "PASS: the controller recompiled $n method(s)"

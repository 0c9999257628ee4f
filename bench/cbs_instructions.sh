#!/usr/bin/env bash
# cbs_instructions.sh - what counter-based sampling adds, counted in
# instructions (callgrind), not timed: the wall-clock overhead of cbs is
# within the noise of a shared machine, so this pins it down another way.
#
# Usage:
#   bench/cbs_instructions.sh                 every programs/bench/*.bc
#   bench/cbs_instructions.sh fib sieve       only these
#
# Environment:
#   CBS           cbs options (default: its defaults, "--profile=cbs")
#
# For each program, callgrind counts the instructions of three runs:
#   plain     vm run P.bc
#   counting  vm run P.bc --cycles                       (the counting interpreter, no profiler)
#   cbs       vm run P.bc $CBS --clock=virtual --seed=1  (the same interpreter, plus cbs)
# The virtual clock ticks every 1 ms of the cost model's time, which is
# deterministic under valgrind (a wall clock would tick some 50 times as
# often per instruction there). cbs - counting is the work sampling adds:
# the control-word changes, the slow paths of the yieldpoints in each
# burst, the samples, the buffers; its ratio to the plain run is the
# overhead sampling adds to a plain run, in instructions. The cost model
# runs faster than this interpreter's real time (fib: 169 M cycles in about
# 0.1 s), so virtual ticks come 1-2 times as often as 1 ms wall ticks would:
# the figure errs on the high side.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
cbs="${CBS:---profile=cbs}"

need valgrind python3
select_programs "${@:-bench}"
build_vm_for_callgrind

# instructions ARGS...: the instructions callgrind counted for `vm ARGS`.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$vm" "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "| program | plain | counting | cbs (virtual clock) | cbs - counting | sampling overhead % |"
echo "|---|---:|---:|---:|---:|---:|"
for p in "${programs[@]}"; do
    program "$p"
    echo "== $p" >&2
    plain=$(instructions run $bc)
    counting=$(instructions run $bc --cycles)
    # shellcheck disable=SC2086
    sampled=$(instructions run $bc $cbs --clock=virtual --seed=1)
    python3 -c "
p, c, s = $plain, $counting, $sampled
print(f'| $p | {p:,} | {c:,} | {s:,} | {s - c:,} | {100 * (s - c) / p:+.3f} |')"
done

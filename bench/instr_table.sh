#!/usr/bin/env bash
# instr_table.sh - does a change to the instruction set's definition
# (vm/src/instr.rs) leave the interpreter's dispatch as it was? Counted in
# machine instructions (callgrind), which are the same from run to run
# whatever else the machine is doing.
#
# Usage:
#   BASE=/path/to/old/vm bench/instr_table.sh              every programs/bench/*.bc
#   BASE=/path/to/old/vm bench/instr_table.sh fib sieve    only these
#
# Environment:
#   BASE        the binary to compare with (required), e.g. a release build
#               of the commit before the change
#   TOLERANCE   the largest difference accepted, in percent (default 0.5)
#
# Builds this tree's release binary, then for each program counts the
# instructions of `vm run P.bc` under both binaries, one run after the
# other (each takes about 50 times a normal run: about 1-4 minutes), and
# prints a table with the difference in percent. Exits 1 if a difference
# is larger than TOLERANCE.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

need valgrind
[[ -n "${BASE:-}" ]] || die "set BASE to the binary to compare with"
[[ -x "$BASE" ]] || die "BASE is not an executable: $BASE"
tolerance="${TOLERANCE:-0.5}"
[[ "$tolerance" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "TOLERANCE must be a number (got '$tolerance')"

select_programs "$@"
build_vm

# instructions BIN ARGS...: the instructions callgrind counted for `BIN ARGS`.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

status=0
echo "| program | base | this tree | difference % |"
echo "|---|---:|---:|---:|"
for p in "${programs[@]}"; do
    echo "== $p" >&2
    base="$(instructions "$BASE" run "$bench_dir/$p.bc")"
    this="$(instructions "$vm" run "$bench_dir/$p.bc")"
    [[ -n "$base" && -n "$this" ]] || die "$p: no instruction count from callgrind"
    awk -v p="$p" -v a="$base" -v b="$this" -v tol="$tolerance" 'BEGIN {
        d = (b - a) / a * 100
        printf "| %s | %.0f | %.0f | %+.3f |\n", p, a, b, d
        exit (d > tol || d < -tol) ? 1 : 0
    }' || status=1
done
((status == 0)) || echo "$script: a difference is larger than $tolerance%" >&2
exit "$status"

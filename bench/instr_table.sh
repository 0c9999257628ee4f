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
#
# First, if objdump is installed, it compares the machine code of the
# interpreter's dispatch loop (every `vm::interp::Interp::run`, one per
# mode) in the two binaries, with addresses and PC-relative offsets blanked
# out: "identical" means the dispatch compiled to the same instructions.

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
build_vm_for_callgrind

# instructions BIN ARGS...: the instructions callgrind counted for `BIN ARGS`.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# dispatch BIN SYMBOL: SYMBOL's instructions, addresses blanked out.
dispatch() {
    objdump -d --no-show-raw-insn --disassemble="$2" "$1" | sed -n '/>:$/,$p' |
        sed -E 's/^ *[0-9a-f]+:[[:space:]]*//; s/#.*$//; s/-?0x[0-9a-f]+\(%rip\)/RIP/g;
                s/[0-9a-f]{5,}/ADDR/g; s/<[^>]*>//g'
}

if command -v objdump >/dev/null; then
    for sym in $(nm "$BASE" | awk '$3 ~ /Interp3run17h/ { print $3 }'); do
        base_code="$(dispatch "$BASE" "$sym")"
        this_sym="$(nm "$vm" | awk -v s="${sym%17h*}" 'index($3, s) == 1 { print $3 }' |
            while read -r t; do
                [[ "$(dispatch "$vm" "$t")" == "$base_code" ]] && { echo "$t"; break; }
            done)"
        n="$(wc -l <<<"$base_code")"
        if [[ -n "$this_sym" ]]; then
            echo "Interp::run ($sym): $n lines of machine code, identical" >&2
        else
            echo "Interp::run ($sym): $n lines of machine code, no identical copy in this tree" >&2
        fi
    done
fi

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

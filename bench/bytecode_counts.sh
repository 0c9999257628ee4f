#!/usr/bin/env bash
# bytecode_counts.sh - why the VM runs more machine instructions than
# LuaJIT's interpreter: how many bytecodes each executes for the same
# program, and (CALLGRIND=1) how many machine instructions each spends per
# bytecode (docs/PERFORMANCE.md, "Issue 19's targets").
#
# For each program of programs/bench/ with a LuaJIT twin
# (programs/bench/peers/luajit/P.lua):
#   - the VM's bytecodes: the instructions of the source it executed
#     (`vm run P.bc --cycles`, "instructions");
#   - LuaJIT's: `luajit -joff` with a count hook every 100 virtual-machine
#     instructions (`debug.sethook(f, "", 100)`; the interpreter alone,
#     so every instruction is a bytecode);
#   - with CALLGRIND=1, each one's callgrind instructions and their
#     quotient, machine instructions per bytecode.
#
# Usage:
#   bench/bytecode_counts.sh [PROGRAM...]   (default: every bench program)
#
# Environment:
#   VM         a vm binary to use instead of building the release one
#   CALLGRIND  1: also count machine instructions (slow: minutes a program)
#
# Prints a Markdown table.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
need luajit
if [[ "${CALLGRIND:-0}" == 1 ]]; then need valgrind; fi
if [[ -n "${VM:-}" ]]; then vm="$VM"; else build_vm; fi

hook="$(mktemp --suffix=.lua)"
trap 'rm -f "$hook"' EXIT
cat >"$hook" <<'EOF'
local n = 0
debug.sethook(function() n = n + 1 end, "", 100)
dofile(arg[1])
debug.sethook()
io.stderr:write(string.format("bytecodes %d\n", n * 100))
EOF

# callgrind CMD...: the machine instructions CMD executes.
callgrind() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

(($#)) || set -- $(cd "$bench_dir/peers/luajit" && ls ./*.lua | sed 's|^\./||; s|\.lua$||')
if [[ "${CALLGRIND:-0}" == 1 ]]; then
    echo "| program | vm bytecodes | luajit bytecodes | vm / luajit | vm instr / bytecode | luajit instr / bytecode |"
    echo "|---|---:|---:|---:|---:|---:|"
else
    echo "| program | vm bytecodes | luajit bytecodes | vm / luajit |"
    echo "|---|---:|---:|---:|"
fi
for p in "$@"; do
    lua="$bench_dir/peers/luajit/$p.lua"
    [[ -f "$lua" ]] || die "no LuaJIT twin $lua"
    ours=$("$vm" run "$bench_dir/$p.bc" --cycles 2>&1 >/dev/null | sed -n 's/.*instructions: \([0-9]*\).*/\1/p')
    theirs=$(luajit -joff "$hook" "$lua" 2>&1 >/dev/null | sed -n 's/^bytecodes \([0-9]*\)$/\1/p')
    [[ -n "$ours" && -n "$theirs" ]] || die "$p: no count (vm '$ours', luajit '$theirs')"
    row="| $p | $ours | $theirs | $(python3 -c "print(f'{$ours / $theirs:.2f}')")"
    if [[ "${CALLGRIND:-0}" == 1 ]]; then
        m_ours=$(callgrind "$vm" run "$bench_dir/$p.bc")
        m_theirs=$(callgrind luajit -joff "$lua")
        row+=" | $(python3 -c "print(f'{$m_ours / $ours:.1f}')") | $(python3 -c "print(f'{$m_theirs / $theirs:.1f}')")"
    fi
    echo "$row |"
done

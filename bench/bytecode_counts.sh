#!/usr/bin/env bash
# bytecode_counts.sh - why the VM runs more (or fewer) machine instructions
# than a twin interpreter: how many bytecodes each executes for the same
# program, and (CALLGRIND=1) how many machine instructions each spends per
# bytecode (docs/PERFORMANCE.md, "Issue 19's targets").
#
# For each program (bench/lib.sh's names: NAME, awfy/NAME, bench, awfy)
# with a twin for PEER:
#   - the VM's bytecodes: the instructions of the source it executed
#     (`vm run P.bc --cycles`, "instructions");
#   - LuaJIT's (PEER=luajit, the default): `luajit -joff` with a count hook
#     every 100 virtual-machine instructions (`debug.sethook(f, "", 100)`;
#     the interpreter alone, so every instruction is a bytecode);
#   - Lua 5.4's (PEER=lua): `lua5.4` with the same count hook;
#   - CPython's (PEER=python): a trace function with `f_trace_opcodes`
#     counting every `opcode` event (the trace function's own bytecodes
#     are not traced);
#   - with CALLGRIND=1, each one's callgrind instructions (of a run without
#     the counting) and their quotient, machine instructions per bytecode.
#
# Usage:
#   bench/bytecode_counts.sh [PROGRAM...]   (default: every bench program)
#   PEER=python INNER=2000 bench/bytecode_counts.sh awfy/deltablue
#
# Environment:
#   VM         a vm binary to use instead of building the release one
#   PEER       luajit (default), lua or python
#   INNER      an awfy benchmark's `inner` instead of its timing size
#   CALLGRIND  1: also count machine instructions (slow: minutes a program)
#
# Prints a Markdown table.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
peer="${PEER:-luajit}"
case "$peer" in
luajit) need luajit ;;
lua) need lua5.4 ;;
python)
    need python3
    # The distribution's CPython (as bench/compare.sh), the interpreter
    # itself, not a pyenv shim (a shell script callgrind would count).
    py=python3; [[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
    python="$("$py" -c 'import os, sys; print(os.path.realpath(sys.executable))')" ;;
*) die "PEER must be luajit, lua or python (got '$peer')" ;;
esac
if [[ -n "${INNER:-}" ]]; then positive INNER "$INNER"; fi
if [[ "${CALLGRIND:-0}" == 1 ]]; then need valgrind; fi
if [[ -n "${VM:-}" ]]; then
    vm="$VM"
elif [[ "${CALLGRIND:-0}" == 1 ]]; then
    build_vm_for_callgrind
else
    build_vm
fi

hook="$(mktemp -d)"
trap 'rm -rf "$hook"' EXIT
cat >"$hook/count.lua" <<'EOF'
local n = 0
local script = table.remove(arg, 1)
arg[0] = script -- a twin finds its harness beside itself
debug.sethook(function() n = n + 1 end, "", 100)
dofile(script)
debug.sethook()
io.stderr:write(string.format("bytecodes %d\n", n * 100))
EOF
cat >"$hook/count.py" <<'EOF'
import os, runpy, sys
n = 0
def opcodes(frame, event, arg):
    global n
    if event == "opcode":
        n += 1
    return opcodes
def calls(frame, event, arg):
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    return opcodes
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
sys.settrace(calls)
try:
    runpy.run_path(script, run_name="__main__")
finally:
    sys.settrace(None)
    sys.stderr.write(f"bytecodes {n}\n")
EOF

# callgrind CMD...: the machine instructions CMD executes.
callgrind() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

(($#)) || set -- bench
select_programs "$@"
if [[ "${CALLGRIND:-0}" == 1 ]]; then
    echo "| program | vm bytecodes | $peer bytecodes | vm / $peer | vm instr / bytecode | $peer instr / bytecode |"
    echo "|---|---:|---:|---:|---:|---:|"
else
    echo "| program | vm bytecodes | $peer bytecodes | vm / $peer |"
    echo "|---|---:|---:|---:|"
fi
for label in "${programs[@]}"; do
    program "$label"
    if [[ -n "${INNER:-}" && "$bc" == *" --set inner="* ]]; then
        bc="${bc% --set inner=*} --set inner=$INNER"
        peer_args="1 $INNER"
    fi
    case "$peer" in
    luajit) twin="$luajit_peer" run=(luajit -joff) count=(luajit -joff "$hook/count.lua") ;;
    lua) twin="$lua_peer" run=(lua5.4) count=(lua5.4 "$hook/count.lua") ;;
    python) twin="$python_peer" run=("$python") count=("$python" "$hook/count.py") ;;
    esac
    [[ -n "$twin" ]] || die "$label has no $peer twin"
    # shellcheck disable=SC2086 # $bc and $peer_args are word lists
    ours=$("$vm" run $bc --cycles 2>&1 >/dev/null | sed -n 's/.*instructions: \([0-9]*\).*/\1/p')
    # shellcheck disable=SC2086
    theirs=$("${count[@]}" "$twin" $peer_args 2>&1 >/dev/null | sed -n 's/^bytecodes \([0-9]*\)$/\1/p')
    [[ -n "$ours" && -n "$theirs" ]] || die "$label: no count (vm '$ours', $peer '$theirs')"
    row="| $label | $ours | $theirs | $(python3 -c "print(f'{$ours / $theirs:.2f}')")"
    if [[ "${CALLGRIND:-0}" == 1 ]]; then
        # shellcheck disable=SC2086
        m_ours=$(callgrind "$vm" run $bc)
        # shellcheck disable=SC2086
        m_theirs=$(callgrind "${run[@]}" "$twin" $peer_args)
        row+=" | $(python3 -c "print(f'{$m_ours / $ours:.1f}')") | $(python3 -c "print(f'{$m_theirs / $theirs:.1f}')")"
    fi
    echo "$row |"
done

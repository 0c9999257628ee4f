#!/usr/bin/env bash
# check.sh - check that the Lua, LuaJIT and Python twins of the Are We Fast Yet
# benchmarks print exactly what the .bc programs print, with the same exit
# status: at the default size (the output must also equal NAME.out), at a
# second size with several iterations, and with a wrong expected result
# (every version must then fail its check, status 1).
#
# Mandelbrot and NBody are the exception: their twins compute in floating
# point as the suite does, so their result lines are not compared (see
# FLOAT_TWINS below); everything else is.
#
# Usage:
#   programs/awfy/peers/check.sh            every benchmark in programs/awfy/src
#   programs/awfy/peers/check.sh sieve ...  only these
#
# Environment:
#   VM        the vm binary (default: target/release/vm of this checkout;
#             build it with `cargo build --release`)
#   LUA       the Lua interpreter (default lua5.4; skipped if not installed)
#   LUAJIT    LuaJIT (default luajit, run with -joff; skipped if missing).
#             The LuaJIT twins are in luajit/; a benchmark without one
#             (see LUAJIT_LEFT_OUT) is reported and not compared
#   PYTHON    the Python interpreter (default python3; skipped if missing)
#
# Exit status 0 if every comparison held, 1 otherwise.

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
awfy="$(cd "$here/.." && pwd)"
root="$(cd "$awfy/../.." && pwd)"
vm="${VM:-$root/target/release/vm}"
lua="${LUA:-lua5.4}"
python="${PYTHON:-python3}"
luajit="${LUAJIT:-luajit}"

[[ -x "$vm" ]] || { echo "check.sh: no vm at $vm (cargo build --release, or set VM)" >&2; exit 1; }
peers=()
if command -v "$python" >/dev/null 2>&1; then peers+=(python); else echo "check.sh: $python not found: Python twins not checked" >&2; fi
if command -v "$lua" >/dev/null 2>&1; then peers+=(lua); else echo "check.sh: $lua not found: Lua twins not checked" >&2; fi
if command -v "$luajit" >/dev/null 2>&1; then peers+=(luajit); else echo "check.sh: $luajit not found: LuaJIT twins not checked" >&2; fi

# Benchmarks without a LuaJIT twin, space-separated between the outer
# spaces: a benchmark whose result LuaJIT's doubles cannot compute (docs/
# AWFY.md, "The LuaJIT twins"). None at present; luajit/nbody.lua is the one
# that is not bit-exact at every size (its header says where).
LUAJIT_LEFT_OUT=" "
left_out() { [[ $1 == luajit && $LUAJIT_LEFT_OUT == *" $2 "* ]]; }

# Benchmarks whose twins compute in floating point, as the suite does, where
# the .bc computes in fixed point: their results differ from the VM's (see
# docs/AWFY.md, "Fixed point: Mandelbrot and NBody"). For these the result
# lines (every integer line after the three of the header) are not compared;
# the rest is, and the exit status, so a twin must still report its own
# result correct (status 0) or fail a wrong expected one (status 1).
FLOAT_TWINS=" mandelbrot nbody "
results_masked() { # results_masked NAME TEXT: TEXT with its result lines blanked
    if [[ $FLOAT_TWINS == *" $1 "* ]]; then
        sed -E '4,$ s/^-?[0-9]+$/<result>/' <<<"$2"
    else
        printf '%s\n' "$2"
    fi
}

# A second size per benchmark: "ITERATIONS INNER" (for Mandelbrot, NBody,
# CD and Havlak INNER is the problem size and must be one whose result they
# know; CD's is a number of aircraft, which must be even).
second_size() {
    case "$1" in
        mandelbrot) echo "2 200" ;;
        nbody) echo "2 10000" ;;
        cd) echo "2 2" ;;
        havlak) echo "2 1" ;;
        *) echo "2 3" ;;
    esac
}

if (($#)); then names=("$@"); else
    names=()
    for f in "$awfy"/src/*.bc; do names+=("$(basename "$f" .bc)"); done
fi

failed=0
fail() { echo "FAIL $*"; failed=1; this_failed=1; }

# run_all NAME ITERATIONS INNER EXPECTED: runs every version, compares each
# twin to the vm; leaves the vm's exit status in $st
run_all() {
    local name="$1" it="$2" inner="$3" exp="$4" want got st_want st_got p
    want="$("$vm" run "$awfy/$name.bc" --set iterations="$it" --set inner="$inner" --set expected="$exp" 2>&1)"
    st_want=$?
    if [[ $it == 0 && $inner == 0 && $exp == 0 ]]; then
        if [[ "$want" != "$(cat "$awfy/$name.out")" ]]; then
            fail "$name: vm output differs from $name.out"
        fi
        [[ $st_want == 0 ]] || fail "$name: vm exits $st_want at the default size"
    fi
    for p in "${peers[@]}"; do
        left_out "$p" "$name" && continue
        case $p in
            python) got="$("$python" "$here/python/$name.py" "$it" "$inner" "$exp" 2>&1)" ;;
            lua) got="$("$lua" "$here/lua/$name.lua" "$it" "$inner" "$exp" 2>&1)" ;;
            luajit) got="$("$luajit" -joff "$here/luajit/$name.lua" "$it" "$inner" "$exp" 2>&1)" ;;
        esac
        st_got=$?
        if [[ "$(results_masked "$name" "$got")" != "$(results_masked "$name" "$want")" ||
            $st_got != "$st_want" ]]; then
            fail "$name ($p, iterations=$it inner=$inner expected=$exp): status $st_got, vm $st_want"
            diff <(echo "$want") <(echo "$got") | head -10
        fi
    done
    st=$st_want
}

for name in "${names[@]}"; do
    this_failed=0
    [[ -f "$awfy/$name.bc" ]] || { fail "$name: no $name.bc"; continue; }
    checked=()
    for p in "${peers[@]}"; do
        ext=py; [[ $p == lua* ]] && ext=lua
        if left_out "$p" "$name"; then
            [[ -f "$here/$p/$name.$ext" ]] && fail "$name: $p/$name.$ext exists but is in LUAJIT_LEFT_OUT"
            continue
        fi
        checked+=("$p")
        [[ -f "$here/$p/$name.$ext" ]] || fail "$name: no $p/$name.$ext"
    done
    read -r it inner <<<"$(second_size "$name")"
    run_all "$name" 0 0 0
    run_all "$name" "$it" "$inner" 0
    [[ $st == 0 ]] || fail "$name: vm exits $st at iterations=$it inner=$inner"
    run_all "$name" 0 0 987654321
    [[ $st == 1 ]] || fail "$name: a wrong expected result did not fail (vm status $st)"
    note=""
    for p in "${peers[@]}"; do left_out "$p" "$name" && note=" (no $p twin: see docs/AWFY.md)"; done
    ((this_failed)) || echo "ok   $name (${checked[*]})$note"
done
exit $failed

#!/usr/bin/env bash
# check.sh - check that the peers of programs/bench/*.bc print exactly the
# program's expected output, programs/bench/NAME.out, and exit 0:
#   lua5.4 peers/NAME.lua, luajit -joff peers/luajit/NAME.lua,
#   python3 peers/NAME.py.
# (The .bc programs themselves are checked against NAME.out by the e2e
# tests.) peers/luajit/ holds a LuaJIT version of every program: a copy
# rewritten for Lua 5.1 and the bit library where the Lua 5.4 peer does not
# run under LuaJIT, else a symbolic link to the Lua 5.4 peer.
#
# Usage:
#   programs/bench/peers/check.sh            every programs/bench/*.bc
#   programs/bench/peers/check.sh fib ...    only these
#
# Environment:
#   LUA       Lua 5.4 (default lua5.4), LUAJIT (default luajit),
#   PYTHON    Python 3 (default python3): each skipped, with a note, if it
#             is not installed
#
# Exit status 0 if every installed peer printed NAME.out, 1 otherwise.
# Takes about a minute (the Python peers are the slowest).

set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(cd "$here/.." && pwd)"
lua="${LUA:-lua5.4}"
luajit="${LUAJIT:-luajit}"
python="${PYTHON:-python3}"

peers=()
for p in lua luajit python; do
    case $p in
        lua) cmd=$lua ;;
        luajit) cmd=$luajit ;;
        python) cmd=$python ;;
    esac
    if command -v "$cmd" >/dev/null 2>&1; then peers+=("$p"); else
        echo "check.sh: $cmd not found: the $p peers are not checked" >&2
    fi
done

if (($#)); then names=("$@"); else
    names=()
    for f in "$bench"/*.bc; do names+=("$(basename "$f" .bc)"); done
fi

failed=0
for name in "${names[@]}"; do
    this_failed=0
    if [[ ! -f "$bench/$name.out" ]]; then
        echo "FAIL $name: no $name.out"
        failed=1
        continue
    fi
    for p in "${peers[@]}"; do
        case $p in
            lua) file="$here/$name.lua"; run=("$lua" "$file") ;;
            luajit) file="$here/luajit/$name.lua"; run=("$luajit" -joff "$file") ;;
            python) file="$here/$name.py"; run=("$python" "$file") ;;
        esac
        if [[ ! -f "$file" ]]; then
            echo "FAIL $name ($p): no ${file#"$bench/"}"
            failed=1; this_failed=1
            continue
        fi
        got="$("${run[@]}" 2>&1)"
        st=$?
        if [[ $st != 0 || "$got" != "$(cat "$bench/$name.out")" ]]; then
            echo "FAIL $name ($p): status $st"
            diff <(cat "$bench/$name.out") <(echo "$got") | head -10
            failed=1; this_failed=1
        fi
    done
    ((this_failed)) || echo "ok   $name (${peers[*]})"
done
exit $failed

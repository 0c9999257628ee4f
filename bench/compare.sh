#!/usr/bin/env bash
# compare.sh - time the benchmark programs on the VM side by side with the
# same programs in Lua 5.4 and Python 3. (The cost of the yieldpoints, a
# difference of a few percent, is measured by yieldpoint_cost.sh, which
# interleaves its runs.)
#
# Usage:
#   bench/compare.sh                  every programs/bench/*.bc
#   bench/compare.sh fib sieve        only these (names without .bc)
#
# Environment:
#   RUNS=N        timed runs per command (default 5; one warmup run before)
#   CHECK=0       skip checking each command's stdout against NAME.out
#   RESULTS_DIR   where results go (default: bench-results/ at the repo root)
#   LUA, PYTHON   the interpreters to compare with (default lua5.4, python3)
#
# For each program it runs ONE hyperfine invocation timing:
#   vm run P.bc | LUA peers/P.lua | PYTHON peers/P.py
# (a peer only if its interpreter is installed and its file exists), exports
# RESULTS_DIR/P.json and RESULTS_DIR/P.md, and at the end prints a markdown
# table of the mean times (also written to RESULTS_DIR/summary.md).
#
# It installs nothing: a missing tool is reported with how to get it.
# Works from any directory.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bench_dir="$root/programs/bench"
peers_dir="$bench_dir/peers"
results="${RESULTS_DIR:-$root/bench-results}"
runs="${RUNS:-5}"
check="${CHECK:-1}"
lua="${LUA:-lua5.4}"
python="${PYTHON:-python3}"

die() { echo "compare.sh: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$runs')"

# --- required tools -------------------------------------------------------
missing=()
have cargo || missing+=("cargo (a Rust toolchain: https://rustup.rs)")
have hyperfine || missing+=("hyperfine (e.g. 'apt-get install -y hyperfine' or 'cargo install hyperfine')")
if have python3; then
    json_tool=python3
elif have jq; then
    json_tool=jq
else
    missing+=("python3 or jq, to read hyperfine's JSON (e.g. 'apt-get install -y jq')")
fi
if ((${#missing[@]})); then
    echo "compare.sh: missing required tools; install them and run again:" >&2
    printf '  - %s\n' "${missing[@]}" >&2
    exit 1
fi

# --- optional peers ---------------------------------------------------------
have_lua=0
have_python=0
if have "$lua"; then have_lua=1; else
    echo "note: '$lua' not found: the Lua column stays empty (e.g. 'apt-get install -y lua5.4')" >&2
fi
if have "$python"; then have_python=1; else
    echo "note: '$python' not found: the Python column stays empty" >&2
fi

# --- programs ---------------------------------------------------------------
programs=()
if (($#)); then
    for p in "$@"; do
        p="${p%.bc}"
        p="${p##*/}"
        [[ -f "$bench_dir/$p.bc" ]] || die "no such benchmark: $bench_dir/$p.bc"
        programs+=("$p")
    done
else
    for f in "$bench_dir"/*.bc; do
        [[ -e "$f" ]] || continue
        p="${f##*/}"
        programs+=("${p%.bc}")
    done
fi
((${#programs[@]})) || die "no benchmark programs in $bench_dir"

# --- build ------------------------------------------------------------------
echo "== building the release binary" >&2
(cd "$root" && cargo build --release --quiet) || die "cargo build --release failed"
vm="$root/target/release/vm"
[[ -x "$vm" ]] || die "no binary at $vm after the build"

mkdir -p "$results"

q() { printf '%q' "$1"; }   # quote a path for hyperfine's command line

# --- run --------------------------------------------------------------------
failed=()
for p in "${programs[@]}"; do
    bc="$bench_dir/$p.bc"
    names=("vm")
    cmds=("$(q "$vm") run $(q "$bc")")
    if ((have_lua)) && [[ -f "$peers_dir/$p.lua" ]]; then
        names+=("lua")
        cmds+=("$(q "$lua") $(q "$peers_dir/$p.lua")")
    fi
    if ((have_python)) && [[ -f "$peers_dir/$p.py" ]]; then
        names+=("python")
        cmds+=("$(q "$python") $(q "$peers_dir/$p.py")")
    fi

    echo "== $p" >&2
    rm -f "$results/$p.json" "$results/$p.md" "$results/$p.check"

    # Check that every command prints the expected output (hyperfine
    # discards it). A mismatch is reported and flagged in the table.
    if [[ "$check" != 0 && -f "$bench_dir/$p.out" ]]; then
        bad=()
        for i in "${!cmds[@]}"; do
            if ! out="$(eval "${cmds[$i]}" 2>/dev/null)" ||
                [[ "$out" != "$(cat "$bench_dir/$p.out")" ]]; then
                bad+=("${names[$i]}")
            fi
        done
        if ((${#bad[@]})); then
            printf 'WRONG OUTPUT OR FAILED: %s\n' "${bad[*]}" > "$results/$p.check"
            echo "warning: $p: wrong output or failure from: ${bad[*]}" >&2
        fi
    fi

    args=(-N --warmup 1 --runs "$runs"
        --export-json "$results/$p.json" --export-markdown "$results/$p.md")
    for i in "${!cmds[@]}"; do
        args+=(-n "${names[$i]}" "${cmds[$i]}")
    done
    if ! hyperfine "${args[@]}"; then
        echo "warning: hyperfine failed for $p (a command exited non-zero?)" >&2
        failed+=("$p")
    fi
done

# --- table ------------------------------------------------------------------
# mean_ms JSON NAME: the mean time in ms of the command named NAME, or "".
mean_ms() {
    [[ -f "$1" ]] || return 0
    if [[ "$json_tool" == python3 ]]; then
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r["command"] == sys.argv[2]:
        print("%.3f" % (r["mean"] * 1000))
' "$1" "$2"
    else
        jq -r --arg n "$2" '.results[] | select(.command == $n) | .mean * 1000' "$1"
    fi
}

summary="$results/summary.md"
{
    echo "| program | vm (ms) | lua (ms) | vm/lua | python (ms) | vm/python |"
    echo "|---|---:|---:|---:|---:|---:|"
    for p in "${programs[@]}"; do
        j="$results/$p.json"
        name="$p"
        [[ -f "$results/$p.check" ]] && name="$p (WRONG OUTPUT)"
        [[ -f "$j" ]] || name="$p (FAILED)"
        awk -v p="$name" \
            -v vm="$(mean_ms "$j" vm)" \
            -v lua="$(mean_ms "$j" lua)" \
            -v py="$(mean_ms "$j" python)" '
            function ms(x)      { return x == "" ? "-" : sprintf("%.1f", x) }
            function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
            BEGIN {
                printf "| %s | %s | %s | %s | %s | %s |\n", p,
                    ms(vm), ms(lua), ratio(vm, lua), ms(py), ratio(vm, py)
            }'
    done
} > "$summary"

echo
echo "Mean wall-clock times over $runs runs (after 1 warmup)."
echo "Raw results: $results/"
echo
cat "$summary"

if ((${#failed[@]})); then
    echo >&2
    echo "compare.sh: hyperfine failed for: ${failed[*]}" >&2
    exit 1
fi

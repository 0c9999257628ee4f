#!/usr/bin/env bash
# compare.sh - time the benchmark programs on the VM side by side with their
# twins in Lua 5.4, LuaJIT's interpreter (`luajit -joff`) and Python 3. (The
# cost of the yieldpoints, a difference of a few percent, is measured by
# yieldpoint_cost.sh, which interleaves its runs.)
#
# Usage:
#   bench/compare.sh                  programs/bench and the Are We Fast Yet
#                                     suite at its timing sizes
#   bench/compare.sh fib awfy/sieve   only these (bench/lib.sh: NAME,
#                                     awfy/NAME, bench, awfy)
#
# Environment:
#   ROUNDS=N      interleaved rounds (default 7)
#   CHECK=0       skip checking each command's stdout
#   RESULTS_DIR   where results go (default: bench-results/ at the repo root)
#   LUA, LUAJIT, PYTHON   the interpreters to compare with (default lua5.4,
#                 luajit, python3; LuaJIT always runs with -joff, its
#                 interpreter alone)
#
# For each program, bench/paired.py runs, interleaved round by round (the
# order rotated each round, so a slow moment of the machine hits them all):
#   vm run P.bc | LUA P.lua | LUAJIT -joff P.lua | PYTHON P.py
# (a twin only if its interpreter is installed and its file exists: the
# LuaJIT twins are the separate files in peers/luajit/), writes
# RESULTS_DIR/P.json, and at the end prints a markdown table: each median
# time, and each ratio vm / twin as the median of the per-round ratios,
# with their geometric means (also written to RESULTS_DIR/summary.md). Every command's output is first
# checked: against P.out for a programs/bench program, against the VM's
# output for a benchmark that checks its own result.
#
# It installs nothing: a missing tool is reported with how to get it.
# Works from any directory.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results}"
rounds="${ROUNDS:-7}"
check="${CHECK:-1}"
lua="${LUA:-lua5.4}"
luajit="${LUAJIT:-luajit}"
python="${PYTHON:-python3}"

have() { command -v "$1" >/dev/null 2>&1; }

positive ROUNDS "$rounds"
need cargo python3
have hyperfine || die "hyperfine is missing ('apt-get install -y hyperfine' or 'cargo install hyperfine')"

# --- optional twins ---------------------------------------------------------
declare -A have_peer=([lua]=0 [luajit]=0 [python]=0)
for k in lua luajit python; do
    if have "${!k}"; then have_peer[$k]=1; else
        echo "note: '${!k}' not found: the $k column stays empty (e.g. 'apt-get install -y ${!k}')" >&2
    fi
done

select_programs "$@"
build_vm
mkdir -p "$results"

q() { printf '%q' "$1"; }   # quote a path for hyperfine's command line

# --- run --------------------------------------------------------------------
failed=()
for p in "${programs[@]}"; do
    program "$p"
    names=("vm")
    cmds=("$(q "$vm") run $bc")
    if ((have_peer[lua])) && [[ -n "$lua_peer" ]]; then
        names+=("lua"); cmds+=("$(q "$lua") $(q "$lua_peer") $peer_args")
    fi
    if ((have_peer[luajit])) && [[ -n "$luajit_peer" ]]; then
        names+=("luajit"); cmds+=("$(q "$luajit") -joff $(q "$luajit_peer") $peer_args")
    fi
    if ((have_peer[python])) && [[ -n "$python_peer" ]]; then
        names+=("python"); cmds+=("$(q "$python") $(q "$python_peer") $peer_args")
    fi

    echo "== $p" >&2
    rm -f "$results/$p.json" "$results/$p.check"

    # Check that every command prints the expected output (hyperfine
    # discards it). A mismatch is reported and flagged in the table.
    if [[ "$check" != 0 ]]; then
        if [[ -n "$expected" ]]; then want="$(cat "$expected")"; else want="$(eval "${cmds[0]}" 2>/dev/null || true)"; fi
        bad=()
        for i in "${!cmds[@]}"; do
            if ! out="$(eval "${cmds[$i]}" 2>/dev/null)" || [[ "$out" != "$want" ]]; then
                bad+=("${names[$i]}")
            fi
        done
        if ((${#bad[@]})); then
            printf 'WRONG OUTPUT OR FAILED: %s\n' "${bad[*]}" > "$results/$p.check"
            echo "warning: $p: wrong output or failure from: ${bad[*]}" >&2
        fi
    fi

    args=()
    for i in "${!cmds[@]}"; do args+=("${names[$i]}=${cmds[$i]}"); done
    if ! python3 "$here/paired.py" --rounds "$rounds" --json "$results/$p.json" "${args[@]}" >&2; then
        echo "warning: paired.py failed for $p (a command exited non-zero?)" >&2
        failed+=("$p")
    fi
done

# --- table ------------------------------------------------------------------
summary="$results/summary.md"
python3 - "$results" "$rounds" "${programs[@]}" <<'PY' | tee "$summary"
import json, math, os, sys
results, rounds, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
peers = ("lua", "luajit", "python")
print(f"Median wall-clock times (ms) over {rounds} interleaved rounds, and the ratio "
      "vm / twin: the median of the per-round ratios (below 1: the VM is faster).\n")
print("| program | vm | lua5.4 | vm/lua | luajit -joff | vm/luajit | python3 | vm/python |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
logs = {k: [] for k in peers}
for p in programs:
    j = f"{results}/{p}.json"
    name = p
    if os.path.exists(f"{results}/{p}.check"):
        name += " (WRONG OUTPUT)"
    c = {}
    if os.path.exists(j):
        c = json.load(open(j))["commands"]
    else:
        name += " (FAILED)"
    cells = [f"{c['vm']['median_wall_s'] * 1000:.1f}" if "vm" in c else "-"]
    for k in peers:
        if "vm" in c and k in c:
            r = 100 / (100 + c[k]["wall_pct"])   # twin / vm per round, inverted
            logs[k].append(math.log(r))
            cells += [f"{c[k]['median_wall_s'] * 1000:.1f}", f"{r:.2f}"]
        else:
            cells += ["-", "-"]
    print(f"| {name} | " + " | ".join(cells) + " |")
geo = ["", ""]
for k in peers:
    g = f"{math.exp(sum(logs[k]) / len(logs[k])):.2f} ({len(logs[k])})" if logs[k] else "-"
    geo += ["", g]
print("| geometric mean (programs) | " + " | ".join(geo[1:]) + " |")
PY

echo
echo "Raw results: $results/"

if ((${#failed[@]})); then
    echo >&2
    echo "compare.sh: paired.py failed for: ${failed[*]}" >&2
    exit 1
fi

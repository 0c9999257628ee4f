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
#   CHECK=0       skip checking each command's stdout (and so the max RSS)
#   CALLGRIND=1   also count each command's machine instructions once under
#                 callgrind (exact and independent of the machine's load;
#                 about 50 times a normal run, so off by default)
#   CALLGRIND_ONLY="vm lua luajit"   with CALLGRIND=1, count only these
#                 commands (default: all; CPython under callgrind takes
#                 minutes per program)
#   TIMES=0       skip the timed rounds (with CALLGRIND=1: instructions and
#                 memory only)
#   VM=PATH       measure this vm binary instead of building this tree's
#                 (e.g. a copy of an earlier build, for before/after tables)
#   RESULTS_DIR   where results go (default: bench-results/ at the repo root)
#   LUA, LUAJIT, PYTHON   the interpreters to compare with (default lua5.4,
#                 luajit, and the distribution's CPython /usr/bin/python3,
#                 else python3 on the PATH; LuaJIT always runs with -joff,
#                 its interpreter alone). The script prints which CPython it
#                 timed: a pyenv shim on the PATH may lead to another build
#
# For each program, bench/paired.py runs, interleaved round by round (the
# order rotated each round, so a slow moment of the machine hits them all):
#   vm run P.bc | LUA P.lua | LUAJIT -joff P.lua | PYTHON P.py
# (a twin only if its interpreter is installed and its file exists: the
# LuaJIT twins are the separate files in peers/luajit/), writes
# RESULTS_DIR/P.json, and at the end prints a markdown table: each median
# time, and each ratio vm / twin as the median of the per-round ratios,
# with their geometric means, in wall-clock time and again in CPU time
# (also written to RESULTS_DIR/summary.md). Every command's output is first
# checked: against P.out for a programs/bench program, against the VM's
# output for a benchmark that checks its own result. That checking run is
# also measured with `/usr/bin/time -f %M`: each command's peak memory (max
# RSS), in a second table. With CALLGRIND=1 a third table gives each
# command's instructions (callgrind's `Collected`) and the ratios vm / twin
# of those counts, which unlike the times do not depend on the load.
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
callgrind="${CALLGRIND:-0}"
times="${TIMES:-1}"
lua="${LUA:-lua5.4}"
luajit="${LUAJIT:-luajit}"
if [[ -z "${PYTHON:-}" && -x /usr/bin/python3 ]]; then python=/usr/bin/python3; else python="${PYTHON:-python3}"; fi

have() { command -v "$1" >/dev/null 2>&1; }

positive ROUNDS "$rounds"
need cargo python3
if [[ "$times" != 0 ]]; then
    have hyperfine || die "hyperfine is missing ('apt-get install -y hyperfine' or 'cargo install hyperfine')"
fi
[[ "$callgrind" == 0 ]] || need valgrind
[[ "$check" == 0 || -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install -y time)"

# instructions CMD: the machine instructions callgrind counted for CMD.
instructions() {
    eval "valgrind --tool=callgrind --callgrind-out-file=/dev/null $1" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# --- optional twins ---------------------------------------------------------
declare -A have_peer=([lua]=0 [luajit]=0 [python]=0)
for k in lua luajit python; do
    if have "${!k}"; then have_peer[$k]=1; else
        echo "note: '${!k}' not found: the $k column stays empty (e.g. 'apt-get install -y ${!k}')" >&2
    fi
done

# The interpreter itself, not a link or a pyenv shim (a shell script that
# runs some interpreter: callgrind would count the shim, /usr/bin/time its
# shell), and say which it is.
if ((have_peer[python])); then
    python="$("$python" -c 'import os, sys; print(os.path.realpath(sys.executable))')"
    echo "python: $python ($("$python" --version 2>&1))" >&2
fi

select_programs "$@"
if [[ -n "${VM:-}" ]]; then
    [[ -x "$VM" ]] || die "VM is not an executable: $VM"
    vm="$VM"
elif [[ "$callgrind" != 0 ]]; then
    build_vm_for_callgrind
else
    build_vm
fi
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
    rm -f "$results/$p.json" "$results/$p.check" "$results/$p.rss" "$results/$p.instr"

    # Check that every command prints the expected output (hyperfine
    # discards it). A mismatch is reported and flagged in the table. The
    # twins of Mandelbrot and NBody compute in floating point, as the suite
    # does, where the .bc uses fixed point: their result lines are not
    # compared, only the rest and that the twin exits 0, which it does when
    # its result is the one it knows for the size (programs/awfy/peers/check.sh).
    if [[ "$check" != 0 ]]; then
        if [[ -n "$expected" ]]; then want="$(cat "$expected")"; else want="$(eval "${cmds[0]}" 2>/dev/null || true)"; fi
        mask=(cat)
        [[ "$p" == awfy-mandelbrot || "$p" == awfy-nbody ]] && mask=(sed -E '4,$ s/^-?[0-9]+$/<result>/')
        want="$("${mask[@]}" <<<"$want")"
        bad=()
        rss="$(mktemp)"
        for i in "${!cmds[@]}"; do
            if ! out="$(eval "/usr/bin/time -f %M -o $rss ${cmds[$i]}" 2>/dev/null)" ||
                [[ "$("${mask[@]}" <<<"$out")" != "$want" ]]; then
                bad+=("${names[$i]}")
            fi
            echo "${names[$i]} $(tail -n 1 "$rss")" >>"$results/$p.rss"
        done
        rm -f "$rss"
        if ((${#bad[@]})); then
            printf 'WRONG OUTPUT OR FAILED: %s\n' "${bad[*]}" > "$results/$p.check"
            echo "warning: $p: wrong output or failure from: ${bad[*]}" >&2
        fi
    fi

    if [[ "$callgrind" != 0 ]]; then
        for i in "${!cmds[@]}"; do
            [[ " ${CALLGRIND_ONLY:-${names[*]}} " == *" ${names[$i]} "* ]] || continue
            echo "${names[$i]} $(instructions "${cmds[$i]}")" >>"$results/$p.instr"
        done
    fi

    [[ "$times" != 0 ]] || continue
    args=()
    for i in "${!cmds[@]}"; do args+=("${names[$i]}=${cmds[$i]}"); done
    if ! python3 "$here/paired.py" --rounds "$rounds" --json "$results/$p.json" "${args[@]}" >&2; then
        echo "warning: paired.py failed for $p (a command exited non-zero?)" >&2
        failed+=("$p")
    fi
done

# --- table ------------------------------------------------------------------
summary="$results/summary.md"
python3 - "$results" "$rounds" "$times" "${programs[@]}" <<'PY' | tee "$summary"
import json, math, os, sys
results, rounds, timed, programs = sys.argv[1], sys.argv[2], sys.argv[3] != "0", sys.argv[4:]
peers = ("lua", "luajit", "python")
def times_table(kind="wall"):
    what = "wall-clock times" if kind == "wall" else "CPU times (user + system)"
    print(f"Median {what} (ms) over {rounds} interleaved rounds, and the ratio "
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
        cells = [f"{c['vm'][f'median_{kind}_s'] * 1000:.1f}" if "vm" in c else "-"]
        for k in peers:
            if "vm" in c and k in c:
                r = 100 / (100 + c[k][f"{kind}_pct"])   # twin / vm per round, inverted
                logs[k].append(math.log(r))
                cells += [f"{c[k][f'median_{kind}_s'] * 1000:.1f}", f"{r:.2f}"]
            else:
                cells += ["-", "-"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    geo = ["", ""]
    for k in peers:
        g = f"{math.exp(sum(logs[k]) / len(logs[k])):.2f} ({len(logs[k])})" if logs[k] else "-"
        geo += ["", g]
    print("| geometric mean (programs) | " + " | ".join(geo[1:]) + " |")

if timed:
    times_table()
    print()
    times_table("cpu")

def pairs(p, ext):
    # NAME VALUE lines (a run that printed no number is left out).
    f = f"{results}/{p}.{ext}"
    if not os.path.exists(f):
        return {}
    rows = (line.split() for line in open(f))
    return {r[0]: int(r[1]) for r in rows if len(r) == 2 and r[1].isdigit()}

def table(ext, title, unit, scale, ratios):
    if not any(pairs(p, ext) for p in programs):
        return
    print(f"\n{title}\n")
    head = ["program"]
    for k in ("vm",) + peers:
        head += [f"{'luajit -joff' if k == 'luajit' else k} ({unit})"]
        if ratios and k != "vm":
            head += [f"vm/{k}"]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    logs = {k: [] for k in peers}
    for p in programs:
        c = pairs(p, ext)
        cells = [f"{c['vm'] / scale:.{0 if scale == 1 else 1}f}" if "vm" in c else "-"]
        for k in peers:
            cells += [f"{c[k] / scale:.{0 if scale == 1 else 1}f}" if k in c else "-"]
            if ratios:
                if "vm" in c and k in c and c[k] > 0:
                    logs[k].append(math.log(c["vm"] / c[k]))
                    cells += [f"{c['vm'] / c[k]:.2f}"]
                else:
                    cells += ["-"]
        print(f"| {p} | " + " | ".join(cells) + " |")
    if ratios:
        geo = [""]
        for k in peers:
            g = f"{math.exp(sum(logs[k]) / len(logs[k])):.2f} ({len(logs[k])})" if logs[k] else "-"
            geo += ["", g]
        print("| geometric mean (programs) | " + " | ".join(geo) + " |")

table("instr", "Machine instructions (millions, callgrind), one run each, and the ratio "
      "vm / twin of the counts.", "M", 1e6, True)
table("rss", "Peak memory (max RSS, MB, `/usr/bin/time -f %M`) of the checking run.",
      "MB", 1024, False)
PY

echo
echo "Raw results: $results/"

if ((${#failed[@]})); then
    echo >&2
    echo "compare.sh: paired.py failed for: ${failed[*]}" >&2
    exit 1
fi

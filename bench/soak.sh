#!/usr/bin/env bash
# soak.sh - many runs of every thread-heavy test program under each
# stack sampler, counting hangs and wrong results, so that a rare hang or
# race becomes a bug report.
#
# Usage:
#   bench/soak.sh [N]          N runs per program and sampler (default 10000)
#
# Programs: tests/programs/samplers/*.bc and tests/programs/threads/*.bc,
# each with the `; args:` of its header (the e2e tests' directive). Every
# program is first run plain; that output and status is the reference
# (compared as sorted lines when the header says `; sort-stdout: yes`,
# since then the order of lines between threads is free). Then N runs of
#   vm run PROG.bc ARGS --profile=timer --sampler=S --interval=100us --seed=I
# for S in safepoint, partial, self, where I is the run's number, so a
# failing run can be replayed exactly as far as the seed decides.
#
# A run that has not ended after TIMEOUT seconds is a hang: every thread's
# stack is printed (gdb -batch -ex "thread apply all bt" -p PID) before the
# process is killed. A run whose output or status differs from the
# reference is a failure; its output is kept. Both are listed, then a
# table: program, sampler, runs, hangs, failures.
#
# The tally. The issue's 10,000 runs per program and sampler take about 20
# hours of the 2-core development machine, more than one session: every
# soak adds its runs, hangs and failures to a tally kept in the repository
# (bench/soak-tally.csv: program,sampler,runs,hangs,failures,last_run,commit),
# every CHUNK runs of a (program, sampler) and when the soak is
# interrupted (SIGINT, SIGTERM), so that a soak stopped at the end of a
# session keeps what it did. Commit the tally with the session's work.
#
# Environment:
#   TALLY=FILE        the tally to add to (default bench/soak-tally.csv;
#                     TALLY= adds nowhere)
#   CHUNK=N           runs between additions to the tally (default 100)
#   COMMIT=ID         the commit the tally says the binary was built from
#                     (default: the checkout's HEAD, "+" if it has changes)
#   TIMEOUT=SECONDS   per run (default 20; the programs take 10-700 ms)
#   SAMPLERS          (default "safepoint partial self")
#   PROGRAMS          program files (default: the two folders above)
#   VM                the binary (default: build target/release/vm)
#   RESULTS_DIR       where outputs of failures and hang stacks go
#                     (default bench-results/soak/)
#
# Exit status: 0 when there was no hang and no failure, 1 otherwise.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"

n="${1:-10000}"
positive N "$n"
timeout_s="${TIMEOUT:-20}"
positive TIMEOUT "$timeout_s"
read -r -a samplers <<<"${SAMPLERS:-safepoint partial self}"
if [[ -n "${PROGRAMS:-}" ]]; then
    read -r -a progs <<<"$PROGRAMS"
else
    progs=("$root"/tests/programs/samplers/*.bc "$root"/tests/programs/threads/*.bc)
fi
results="${RESULTS_DIR:-$root/bench-results/soak}"
mkdir -p "$results"
if [[ -n "${VM:-}" ]]; then vm="$VM"; else build_vm; fi
tally="${TALLY-$root/bench/soak-tally.csv}"
chunk="${CHUNK:-100}"
positive CHUNK "$chunk"
if [[ -z "${COMMIT:-}" ]]; then
    COMMIT="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    [[ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]] || COMMIT+="+"
fi
command -v gdb >/dev/null || echo "$script: gdb is missing (apt-get install -y gdb): a hang is killed without its stacks" >&2

# A file descriptor that never has input: `read -t` on it is a sleep
# without a process.
exec 3<> <(:)
nap() { read -r -t "$1" <&3 || true; }

# header FILE KEY: the value of `; KEY: VALUE` in FILE's leading comments.
header() { sed -n "s/^; $2: //p" "$1" | head -1; }

# normal FILE SORT: the file's lines, sorted if SORT is yes.
normal() { if [[ "$2" == yes ]]; then LC_ALL=C sort "$1"; else cat "$1"; fi; }

# tally_add PROGRAM SAMPLER RUNS HANGS FAILURES: adds to the tally's row
# for (PROGRAM, SAMPLER), or a new row; the file is replaced whole, so an
# interrupted update leaves the old one.
tally_add() {
    [[ -n "$tally" && "$3" -gt 0 ]] || return 0
    local today new
    today="$(date -u +%F)"
    new="$tally.new.$$"
    [[ -s "$tally" ]] || echo "program,sampler,runs,hangs,failures,last_run,commit" >"$tally"
    awk -F, -v OFS=, -v p="$1" -v s="$2" -v r="$3" -v h="$4" -v f="$5" \
        -v d="$today" -v c="$COMMIT" '
        NR > 1 && $1 == p && $2 == s { $3 += r; $4 += h; $5 += f; $6 = d; $7 = c; done = 1 }
        { print }
        END { if (!done) print p, s, r, h, f, d, c }' "$tally" >"$new" && mv "$new" "$tally"
}

# The runs of the current (program, sampler) not yet in the tally.
pending=(); pend_runs=0; pend_hangs=0; pend_failures=0
flush() {
    if ((pend_runs > 0)); then
        tally_add "${pending[0]}" "${pending[1]}" "$pend_runs" "$pend_hangs" "$pend_failures"
    fi
    pend_runs=0 pend_hangs=0 pend_failures=0
}
# Interrupted: the runs done so far count; the run in progress does not.
trap '[[ $BASHPID == '"$$"' ]] && { flush; exit 130; }' INT TERM

# Scratch files live under the results, not in /tmp, where a cleaner
# running beside a long soak could remove them.
tmp="$(mktemp -d "$results/run.XXXXXX")"
# Only the script itself cleans up: a watcher subshell (below) that a signal
# ends in the instant after its fork, before bash has reset its traps,
# would otherwise run this trap and remove the scratch files of the runs
# still to come.
trap '[[ $BASHPID == '"$$"' ]] && rm -rf "$tmp"' EXIT
total_hangs=0
total_failures=0
rows=()

for prog in "${progs[@]}"; do
    name="$(basename "$(dirname "$prog")")/$(basename "$prog" .bc)"
    read -r -a args <<<"$(header "$prog" args)"
    sorted="$(header "$prog" sort-stdout)"
    timeout "$timeout_s" "$vm" run "$prog" "${args[@]}" >"$tmp/ref.out" 2>/dev/null
    ref_status=$?
    normal "$tmp/ref.out" "$sorted" >"$tmp/ref.norm"
    for s in "${samplers[@]}"; do
        hangs=0 failures=0
        pending=("$name" "$s")
        for ((i = 1; i <= n; i++)); do
            ((pend_runs < chunk)) || flush
            cmd=("$vm" run "$prog" "${args[@]}" --profile=timer "--sampler=$s" --interval=100us "--seed=$i")
            stacks="$results/hang-${name//\//-}-$s-$i.txt"
            rm -f "$tmp/hung"
            "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" &
            pid=$!
            # The watcher: if the run is still there after the timeout, it
            # is a hang: print its threads' stacks, then kill it.
            (
                nap "$timeout_s"
                if kill -0 "$pid" 2>/dev/null; then
                    touch "$tmp/hung"
                    {
                        echo "hang: ${cmd[*]}"
                        echo "(no end after ${timeout_s}s; pid $pid)"
                        if command -v gdb >/dev/null; then
                            gdb -batch -ex "thread apply all bt" -p "$pid" 2>&1
                        fi
                    } >"$stacks"
                    kill -9 "$pid" 2>/dev/null
                fi
            ) &
            watcher=$!
            wait "$pid"
            status=$?
            # SIGKILL: a signal bash handles could run the inherited trap.
            kill -9 "$watcher" 2>/dev/null
            wait "$watcher" 2>/dev/null
            pend_runs=$((pend_runs + 1))
            if [[ -e "$tmp/hung" ]]; then
                hangs=$((hangs + 1))
                pend_hangs=$((pend_hangs + 1))
                echo "HANG: ${cmd[*]}"
                echo "      every thread's stack: $stacks"
                sed -n '/^Thread /,$p' "$stacks" | head -80
                continue
            fi
            if [[ $status -ne $ref_status ]] || ! normal "$tmp/out" "$sorted" | cmp -s - "$tmp/ref.norm"; then
                failures=$((failures + 1))
                pend_failures=$((pend_failures + 1))
                kept="$results/fail-${name//\//-}-$s-$i"
                cp "$tmp/out" "$kept.out"
                cp "$tmp/err" "$kept.err"
                echo "FAIL: ${cmd[*]}: status $status (plain run: $ref_status); output in $kept.out"
            fi
        done
        flush
        total_hangs=$((total_hangs + hangs))
        total_failures=$((total_failures + failures))
        row="$(printf '%-40s %-10s %7d %6d %9d' "$name" "$s" "$n" "$hangs" "$failures")"
        rows+=("$row")
        echo "$row"
    done
done

echo
printf '%-40s %-10s %7s %6s %9s\n' program sampler runs hangs failures
printf '%s\n' "${rows[@]}"
echo "total: $(( ${#progs[@]} * ${#samplers[@]} * n )) runs, $total_hangs hangs, $total_failures failures"
if [[ -n "$tally" ]]; then
    echo "tally ($tally), every soak so far:"
    awk -F, 'NR > 1 { r += $3; h += $4; f += $5; if (min == "" || $3 < min) min = $3 }
        END { printf "  %d runs, %d hangs, %d failures; the fewest runs of a (program, sampler): %d\n", r, h, f, min }' "$tally"
fi
((total_hangs == 0 && total_failures == 0))

#!/usr/bin/env bash
# Runs each cargo-fuzz target for SECONDS (default 30) and prints, per
# target, the executions and the coverage reached (libFuzzer's cov: edges
# and ft: features). Usage: fuzz/run.sh [SECONDS] [TARGET...]
# (targets: assemble interpret profile_json profile_stream; default all four).
#
# Exits 0 without fuzzing when the nightly toolchain or cargo-fuzz is not
# installed (saying so), 1 if a target found a crash, a panic, a leak of
# memory past its limit or a hang (the input is kept under
# fuzz/artifacts/TARGET/ and replayed here so its message is shown), 2 on
# bad usage. The corpora live in fuzz/corpus/TARGET (seeded by seed.sh on
# first use) and grow from run to run; logs are in fuzz/logs/TARGET.log.
# See docs/TESTING.md.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2

secs=${1:-30}
case $secs in
    '' | *[!0-9]*) echo "usage: fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
shift $(($# > 0 ? 1 : 0))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(assemble interpret profile_json profile_stream)

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz: skipped: no nightly toolchain (rustup toolchain install nightly)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: skipped: cargo-fuzz is not installed (cargo install cargo-fuzz)"
    exit 0
fi

# Release build with debug assertions (overflow checks) and AddressSanitizer
# (the interpreter addresses its registers through raw pointers).
if ! cargo +nightly fuzz build -a; then
    echo "fuzz: the targets do not build" >&2
    exit 1
fi
# Seeds on first use, and for a target added since (seed.sh adds nothing
# twice).
for t in "${targets[@]}"; do
    [ -n "$(ls -A "corpus/$t" 2>/dev/null)" ] || { ./seed.sh; break; }
done

mkdir -p logs
status=0
for t in "${targets[@]}"; do
    # Per target: its corpus, dictionary, and options.
    opts=(-max_len=16384 -timeout=10)
    case $t in
        assemble) dict=bc.dict ;;
        # Programs print runtime errors and uncaught exceptions on stderr:
        # close it (libFuzzer keeps its own). Give the target's 1 GiB heap
        # limit room under libFuzzer's memory limit. No leak check: the VM
        # and profiler start threads every run, and LeakSanitizer reports
        # the thread-local bookkeeping of a thread that is just ending as
        # leaked (32 bytes from __cxa_thread_atexit_impl, not reproducible
        # on replay); the heap is bounded by the target itself.
        interpret) dict=bc.dict; opts+=(-close_fd_mask=2 -rss_limit_mb=4096 -detect_leaks=0) ;;
        profile_json | profile_stream) dict=profile.dict ;;
        *) echo "fuzz: unknown target $t" >&2; exit 2 ;;
    esac
    mkdir -p "corpus/$t" "artifacts/$t"
    log=logs/$t.log
    cargo +nightly fuzz run -a "$t" "corpus/$t" -- \
        -max_total_time="$secs" -dict="$dict" -print_final_stats=1 "${opts[@]}" \
        >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
    printf 'fuzz: %-13s %4ss  executions %-10s cov %-6s ft %-7s corpus %s\n' \
        "$t" "$secs" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
    if [ $rc -ne 0 ]; then
        status=1
        echo "fuzz: $t FAILED (libFuzzer status $rc); log: fuzz/$log"
        grep -E '^==[0-9]+== ERROR|^SUMMARY|panicked at|^artifact_prefix|Test unit written' "$log" | head -10
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        if [ -n "$artifact" ]; then
            echo "fuzz: replaying $artifact:"
            cargo +nightly fuzz run -a "$t" "$artifact" 2>&1 | grep -v '^INFO' | tail -30
        fi
    fi
done
exit $status

#!/usr/bin/env bash
# yieldpoint_cost.sh - what the yieldpoints cost, counted in machine
# instructions rather than seconds.
#
# Usage:
#   bench/yieldpoint_cost.sh               every programs/bench/*.bc
#   bench/yieldpoint_cost.sh fib sieve     only these
#
# Runs each program twice under `valgrind --tool=callgrind` (which counts
# the machine instructions the process executes; the count is the same
# from run to run whatever else the machine is doing): once as loaded, once
# with `--no-yieldpoints`, and prints the extra instructions in percent.
# This is the noise-free companion of the wall-clock column of compare.sh:
# a yieldpoint's fast path is a load and a branch, so its cost shows up in
# instructions executed; the wall-clock figure also includes what the
# branch costs the pipeline. Slow (about 50x a normal run).

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bench_dir="$root/programs/bench"

die() { echo "yieldpoint_cost.sh: $*" >&2; exit 1; }
command -v valgrind >/dev/null || die "valgrind is missing (apt-get install -y valgrind)"

programs=()
if (($#)); then
    for p in "$@"; do
        p="${p%.bc}"; p="${p##*/}"
        [[ -f "$bench_dir/$p.bc" ]] || die "no such benchmark: $bench_dir/$p.bc"
        programs+=("$p")
    done
else
    for f in "$bench_dir"/*.bc; do p="${f##*/}"; programs+=("${p%.bc}"); done
fi

echo "== building the release binary" >&2
(cd "$root" && cargo build --release --quiet) || die "cargo build --release failed"
vm="$root/target/release/vm"

# instructions ARGS...: the instructions callgrind counted for `vm ARGS`.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$vm" "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "| program | instructions with yieldpoints | without | yieldpoint cost % |"
echo "|---|---:|---:|---:|"
for p in "${programs[@]}"; do
    echo "== $p" >&2
    with="$(instructions run "$bench_dir/$p.bc")"
    without="$(instructions run "$bench_dir/$p.bc" --no-yieldpoints)"
    [[ -n "$with" && -n "$without" ]] || die "$p: no instruction count from callgrind"
    awk -v p="$p" -v a="$with" -v b="$without" \
        'BEGIN { printf "| %s | %.0f | %.0f | %+.2f |\n", p, a, b, (a - b) / b * 100 }'
done

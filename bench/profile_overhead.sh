#!/usr/bin/env bash
# profile_overhead.sh - what each --profile costs against --profile=none.
#
# Usage:
#   bench/profile_overhead.sh                 every programs/bench/*.bc
#   bench/profile_overhead.sh fib sieve       only these (names without .bc)
#
# Environment:
#   RUNS=N        timed runs per command (default 10; one warmup run before)
#   PROFILES      the profiles to time (default "timer cbs counter exhaustive")
#   EXTRA         more vm run options for every profiled command (e.g.
#                 "--interval=100us"; it must apply to every profile in
#                 PROFILES)
#   RESULTS_DIR   where results go (default: bench-results/overhead/)
#
# For each program ONE hyperfine invocation times `vm run P.bc` and
# `vm run P.bc --profile=K` for each K, side by side, so that the machine's
# state is the same for all of them. The table gives the median of each
# and the overhead (median K - median none) / median none. Medians, not
# means: on a shared machine one disturbed run moves a mean by more than
# the 1% being measured. Wall clock, default interval (1 ms) and defaults
# of every profile unless EXTRA says otherwise.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bench_dir="$root/programs/bench"
results="${RESULTS_DIR:-$root/bench-results/overhead}"
runs="${RUNS:-10}"
profiles=(${PROFILES:-timer cbs counter exhaustive})
extra="${EXTRA:-}"

die() { echo "profile_overhead.sh: $*" >&2; exit 1; }
command -v hyperfine >/dev/null || die "hyperfine is missing (apt-get install -y hyperfine)"
command -v python3 >/dev/null || die "python3 is missing (to read hyperfine's JSON)"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$runs')"

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
mkdir -p "$results"

for p in "${programs[@]}"; do
    bc="$bench_dir/$p.bc"
    args=(-N --warmup 1 --runs "$runs" --export-json "$results/$p.json"
        -n none "$vm run $bc")
    for k in "${profiles[@]}"; do
        args+=(-n "$k" "$vm run $bc --profile=$k $extra")
    done
    echo "== $p" >&2
    hyperfine "${args[@]}" >&2 || die "hyperfine failed for $p"
done

python3 - "$results" "${profiles[*]}" "${programs[@]}" <<'EOF' | tee "$results/summary.md"
import json, sys
results, profiles, programs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
head = "| program | none (ms) | " + " | ".join(f"{k} (ms) | {k} %" for k in profiles) + " |"
print(head)
print("|---|---:|" + "---:|---:|" * len(profiles))
for p in programs:
    r = {x["command"]: x["median"] * 1000 for x in json.load(open(f"{results}/{p}.json"))["results"]}
    base = r["none"]
    cells = [f"{r[k]:.1f} | {(r[k] - base) / base * 100:+.1f}" for k in profiles]
    print(f"| {p} | {base:.1f} | " + " | ".join(cells) + " |")
EOF

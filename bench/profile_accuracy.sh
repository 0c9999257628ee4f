#!/usr/bin/env bash
# profile_accuracy.sh - how close each sampled DCG is to the exact one
# (dcg-overlap against --profile=exhaustive). The measurements are now the
# experiments `vm experiment arnold-grove-table2` (the cbs stride x samples
# grid, which holds every cbs setting this script used to time: 1/1, 3/16,
# 7/16, 3/64) and `vm experiment arnold-grove-table3` (per benchmark: the
# timer, cbs 3/16 and cbs 7/16), both under the virtual clock
# (docs/EXPERIMENTS.md); this script builds the release binary and runs the
# two, one after the other.
#
# Usage:
#   bench/profile_accuracy.sh [vm experiment options]
#       e.g. --quick, --runs 3, --programs fib,sieve (programs/bench too)
#
# Environment:
#   RESULTS_DIR    where the CSV, SVG and Markdown files go (default:
#                  bench-results/accuracy/)
#
# What the experiments do not do: score profiles taken on the wall clock
# (they score under the virtual clock, reproducible bit for bit). The
# script's earlier form, which took REPEATS, SETTINGS and EXTRA (EXTRA
# empty: the wall clock) and wrote one Markdown table, is
# `git show 881bdb7:bench/profile_accuracy.sh`.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/accuracy}"

build_vm
mkdir -p "$results"
cd "$root"
for e in arnold-grove-table2 arnold-grove-table3; do
    nice -n 10 "$vm" experiment "$e" --out "$results" "$@" || die "vm experiment $e failed"
done

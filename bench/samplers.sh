#!/usr/bin/env bash
# samplers.sh - what sampling many threads costs with each --sampler, and
# how stable and how alike the calling context trees they give are (Hofer
# et al. 2015, section 7). The measurements are now the experiments
# `vm experiment hofer-fig9 | hofer-fig11 | hofer-fig12 | hofer-fig13`
# (docs/EXPERIMENTS.md); this script builds the release binary and runs
# the four, one after the other.
#
# Usage:
#   bench/samplers.sh [vm experiment options]    e.g. --quick, --runs 9
#
# Environment:
#   RESULTS_DIR    where the CSV, SVG and Markdown files go (default:
#                  bench-results/samplers/)
#
# The script's earlier form, which took THREADS, INTERVALS, SAMPLERS,
# WALKS, BUSY, DEPTH, WORK, ROUNDS and REPEATS and measured the tables of
# docs/PERFORMANCE.md "Sampling many threads", is
# `git show a212b06:bench/samplers.sh`.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/samplers}"

build_vm
mkdir -p "$results"
cd "$root"
for e in hofer-fig9 hofer-fig11 hofer-fig12 hofer-fig13; do
    nice -n 10 "$vm" experiment "$e" --out "$results" "$@" || die "vm experiment $e failed"
done

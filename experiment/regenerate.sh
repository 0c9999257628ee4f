#!/bin/sh
# Regenerates the committed results of `vm experiment` in docs/experiments/
# (NAME.csv, NAME.svg and its parts, NAME.md) from the default mode, records
# the fingerprints of the quick runs made by the same code
# (docs/experiments/quick-fingerprints.txt, which the test suite compares),
# and rewrites the index docs/EXPERIMENTS.md from the pages.
#
#   experiment/regenerate.sh               every experiment (hours on 2 cores)
#   experiment/regenerate.sh NAME...       these experiments only
#   experiment/regenerate.sh --index       only the index, from the pages
#
# The runs are made one experiment at a time, under nice. Run from anywhere.
set -eu
cd "$(dirname "$0")/.."
cargo build --release
if [ "${1:-}" = "--index" ]; then
    UPDATE_EXPERIMENTS=1 cargo test --profile quicktest --test e2e -- experiment_results::the_index
    exit 0
fi
if [ $# -gt 0 ]; then
    names="$*"
else
    names=$(target/release/vm experiment --list | awk '{print $1}')
fi
for n in $names; do
    rm -f docs/experiments/"$n".svg docs/experiments/"$n"-[0-9]*.svg
    nice target/release/vm experiment "$n" --out docs/experiments >/dev/null
done
list=$(echo $names | tr ' ' ',')
UPDATE_FINGERPRINTS="$list" cargo test --profile quicktest --test e2e -- \
    experiment::every_experiment_runs_quick_and_the_deterministic_ones_repeat_exactly
UPDATE_EXPERIMENTS=1 cargo test --profile quicktest --test e2e -- experiment_results::the_index

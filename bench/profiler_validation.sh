#!/usr/bin/env bash
# profiler_validation.sh - does the modelled overhead of every profile
# configuration (run.profiler_cycles / run.cycles) track the measured one
# (callgrind instructions, profiled minus unprofiled)? Prints the table of
# docs/PERFORMANCE.md, "What a profile costs", and the checks; exits 1 if
# one fails. See bench/profiler_validation.py.
#
# Usage:
#   bench/profiler_validation.sh             writes bench/profiler_validation.csv
#   JOBS=1 OUT=/tmp/v.csv bench/profiler_validation.sh
#
# Takes about half an hour of CPU (102 runs under callgrind).

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

need valgrind python3
build_vm_for_callgrind
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
cp "$vm" "$copy/"
python3 "$here/profiler_validation.py" "$copy/vm" "${OUT:-$here/profiler_validation.csv}" "${JOBS:-2}"

#!/usr/bin/env bash
# profiler_costs.sh - re-measures every row of the profiler's cost table
# (vm/src/profiler_cost.rs) with callgrind, prints it beside the committed
# values, and records the output in bench/profiler_costs.txt, which
# tests/e2e/profiler_costs.rs compares the committed table with. How each
# row is isolated: bench/profiler_costs.py.
#
# Usage:
#   bench/profiler_costs.sh            measure, print, write bench/profiler_costs.txt
#   OUT=/tmp/c.txt bench/profiler_costs.sh   write elsewhere (to compare first)
#
# Takes some 5 minutes of CPU (about 40 runs under callgrind).

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

need valgrind python3
build_vm_for_callgrind
(cd "$root" && cargo build --release --quiet -p profiler --example organizer_probe) ||
    die "cargo build --example organizer_probe failed"
probe="${CARGO_TARGET_DIR:-$root/target}/release/examples/organizer_probe"
# Copies, so that a build meanwhile does not change what is measured.
copies="$(mktemp -d)"
trap 'rm -rf "$copies"' EXIT
cp "$vm" "$probe" "$copies/"
python3 "$here/profiler_costs.py" "$copies/vm" "$copies/organizer_probe" \
    "${OUT:-$here/profiler_costs.txt}"

#!/usr/bin/env bash
# sequences.sh - the most executed short sequences of the VM's executed
# (register-form, superinstructions applied) instructions over the Are We
# Fast Yet suite, grouped by shape, with what fusing them would remove
# (docs/PERFORMANCE.md, "Where the VM executes more instructions than
# LuaJIT"). bench/sequences.py counts (how: its docstring); this script
# builds the VM, picks the sizes and prints the tables.
#
# Usage:
#   bench/sequences.sh                every benchmark at its small size
#   bench/sequences.sh towers queens  only these
#
# Environment:
#   VM=PATH       use this vm binary instead of building the release one
#   CALLGRIND=1   also count machine instructions (callgrind) of a plain
#                 run of the VM and of `luajit -joff` on the twin at the same
#                 size: machine instructions per executed instruction
#   TOP=N         rows of each table (default 15)
#   RESULTS_DIR   where sequences.json goes (default bench-results/)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
need python3 luajit
[[ "${CALLGRIND:-0}" == 0 ]] || need valgrind
results="${RESULTS_DIR:-$root/bench-results}"
mkdir -p "$results"
if [[ -n "${VM:-}" ]]; then vm="$VM"; else build_vm; fi

# Small inner sizes: about a tenth of the timing sizes of lib.sh, a size
# whose result the benchmark knows where inner is its problem size.
declare -A small=([sieve]=300 [towers]=50 [permute]=100 [queens]=100 [list]=250
    [storage]=50 [bounce]=150 [mandelbrot]=200 [nbody]=10000 [richards]=5
    [deltablue]=2000 [json]=20 [havlak]=1 [cd]=100)
(($#)) || set -- "${awfy_suite[@]}"
specs=()
for n in "$@"; do
    [[ -n "${small[$n]:-}" ]] || die "no such Are We Fast Yet benchmark: $n"
    specs+=("$awfy_dir/$n.bc:${small[$n]}")
done
python3 "$here/sequences.py" "$vm" "$results/sequences.json" "${specs[@]}"
python3 "$here/sequences_table.py" "$results/sequences.json" "${TOP:-15}"

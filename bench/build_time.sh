#!/usr/bin/env bash
# build_time.sh - the CPU time of the README's two commands on a fresh
# machine: a clean build of one revision of the repository, in a scratch
# copy with its own target directory, so nothing cached counts.
#
#   bench/build_time.sh [REV]      REV: a git revision (default HEAD)
#
# It exports REV into a temporary directory (git archive) and runs, one
# after the other, each under /usr/bin/time and with `--timings` (cargo's
# per-crate report, kept as build-timing.html and test-timing.html in
# OUT, default /tmp/build_time-REV):
#
#   cargo build --release                     the binary (the README's build)
#   cargo test --workspace --release --no-run the test binaries after it
#
# and prints the user+system CPU seconds and the wall time of each, and the
# number of test binaries. CPU time, not wall time, is the measure: the
# machine this runs on is shared, and its load changes the wall time
# several-fold but the CPU time little. Running the tests themselves is not
# included (run `/usr/bin/time cargo test --workspace --release` after it
# for that). Needs git, cargo and GNU time; the first run of a revision
# downloads nothing new if ~/.cargo/registry has its crates.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"

need git cargo /usr/bin/time
rev="${1:-HEAD}"
sha="$(cd "$root" && git rev-parse --short "$rev^{commit}")" || die "not a revision: $rev"
out="${OUT:-/tmp/build_time-$sha}"
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
(cd "$root" && git archive "$sha") | tar -x -C "$src"
mkdir -p "$out"
export CARGO_TARGET_DIR="$src/target"

# step NAME CARGO-ARGS...: run `cargo ARGS --timings` in the copy, timed.
step() {
    local name="$1"
    shift
    echo "== $rev ($sha): cargo $*" >&2
    (cd "$src" && /usr/bin/time -f '%U %S %e' -o "$out/$name.time" \
        cargo "$@" --timings >"$out/$name.log" 2>&1) ||
        die "cargo $* failed: see $out/$name.log"
    cp "$src/target/cargo-timings/cargo-timing.html" "$out/$name-timing.html"
    read -r user sys wall <"$out/$name.time"
    printf '%-6s %s: %.0f s CPU (user %.0f + system %.0f), %.0f s wall\n' \
        "$name" "$sha" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$wall"
}

step build build --release
step test test --workspace --release --no-run
echo "test binaries: $(grep -c '^  Executable' "$out/test.log")"

#!/usr/bin/env bash
# build_time.sh - the CPU time of the README's two commands on a fresh
# machine: a clean build of one revision of the repository, in a scratch
# copy, each command from its own empty target directory, so nothing
# cached counts.
#
#   bench/build_time.sh [REV]      REV: a git revision (default HEAD)
#   RUN_TESTS=1 bench/build_time.sh [REV]   also run the tests
#   TESTS_ONLY=1 RUN_TESTS=1 bench/build_time.sh [REV]
#                                  the test command alone (no release build)
#
# It exports REV into a temporary directory (git archive) and runs, one
# after the other, each under /usr/bin/time and with `--timings` (cargo's
# per-crate report, kept as NAME-timing.html in OUT, default
# /tmp/build_time-REV):
#
#   build  cargo build --release             the binary (the README's build)
#   test   cargo test --workspace PROFILE --no-run
#                                            the README's test command's
#                                            build, from an empty target
#   run    cargo test --workspace PROFILE    with RUN_TESTS=1: the tests
#                                            themselves, after `test`
#
# where PROFILE is `--profile quicktest` if the revision's Cargo.toml has
# that profile (the README's test command since it does) and `--release`
# before. It prints the user+system CPU seconds and the wall time of each,
# and the number of test binaries; `test` + `run` is the whole test
# command from empty. CPU time, not wall time, is the measure: the machine
# this runs on is shared, and its load changes the wall time several-fold
# but the CPU time less (compare revisions measured side by side). Needs
# git, cargo and GNU time; the first run of a revision downloads nothing
# new if ~/.cargo/registry has its crates.
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
profile=(--release)
grep -q '^\[profile.quicktest\]' "$src/Cargo.toml" && profile=(--profile quicktest)

# step NAME CARGO-ARGS...: run `cargo ARGS --timings` in the copy, timed.
step() {
    local name="$1"
    shift
    echo "== $rev ($sha): cargo $*" >&2
    (cd "$src" && /usr/bin/time -f '%U %S %e' -o "$out/$name.time" \
        cargo "$@" --timings >"$out/$name.log" 2>&1) ||
        die "cargo $* failed: see $out/$name.log"
    cp "$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html" "$out/$name-timing.html"
    read -r user sys wall <"$out/$name.time"
    printf '%-6s %s: %.0f s CPU (user %.0f + system %.0f), %.0f s wall\n' \
        "$name" "$sha" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$wall"
}

if [[ "${TESTS_ONLY:-0}" != 1 ]]; then
    export CARGO_TARGET_DIR="$src/target-build"
    step build build --release
fi
export CARGO_TARGET_DIR="$src/target-test"
step test test --workspace "${profile[@]}" --no-run
echo "test binaries: $(grep -c '^  Executable' "$out/test.log")"
if [[ "${RUN_TESTS:-0}" == 1 ]]; then
    step run test --workspace "${profile[@]}"
fi

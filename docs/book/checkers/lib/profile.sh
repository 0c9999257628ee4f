# Shared by the checkers: helpers over `vm` and its profile files.
# Sourced, not run. Needs `vm` on the PATH (the README's quick start:
# cargo build --release; export PATH="$PWD/target/release:$PATH").

# dcg_edges FILE: the call edges of a vm-profile/1 file, one per line,
# "CALLER:LINE->CALLEE WEIGHT". Reads the documented `dcg` list, whatever
# the file's layout (its entries hold no nested brackets).
dcg_edges() {
    tr -d ' \n\t\r' < "$1" | grep -o '"dcg":\[[^]]*\]' | grep -o '{[^}]*}' |
        sed -e 's/.*"caller":"\([^"]*\)".*"line":\([0-9]*\).*"callee":"\([^"]*\)".*"weight":\([0-9]*\).*/\1:\2->\3 \4/'
}

# overlap FILE REF: the dcg-overlap `vm compare` prints, or nothing.
overlap() {
    vm compare "$1" "$2" 2>/dev/null | sed -n 's/^dcg-overlap: //p'
}

# work_dir: a fresh temporary directory, removed when the checker exits.
work_dir() {
    CHECK_DIR=$(mktemp -d)
    trap 'rm -rf "$CHECK_DIR"' EXIT
}

# need_program PROG: fail unless PROG passes `vm check`.
need_program() {
    if ! vm check "$1" >/dev/null 2>&1; then
        echo "FAIL: $1 does not pass vm check:"
        vm check "$1"
        exit 1
    fi
}

# The fewest edge samples a sampled profile must hold for a checker to
# judge it. With fewer, a share moves in steps of more than a point, and an
# edge missed by chance (0 samples of 2) reads as a factor without bound;
# with 100, a share's standard error, sqrt(p(1-p)/n), is at most 5 points,
# and a verdict such as "10 times too small" stands many of them clear of
# chance.
MIN_EDGE_SAMPLES=100

# edge_samples FILE: the edge samples of a profile (its dcg's total weight).
edge_samples() {
    dcg_edges "$1" | awk '{ n += $2 } END { print n + 0 }'
}

# enough_samples FILE SEED HOW: fail, saying so, unless the profile FILE
# (taken with --seed=SEED) holds at least MIN_EDGE_SAMPLES edge samples;
# HOW says how to get more.
enough_samples() {
    n=$(edge_samples "$1")
    if [ "$n" -lt "$MIN_EDGE_SAMPLES" ]; then
        echo "FAIL: seed $2: the profile holds $n edge samples, too few to judge (at least $MIN_EDGE_SAMPLES are needed: with fewer, one sample moves a share by more than a point, and an edge missed by chance looks infinitely wrong); $3"
        exit 1
    fi
}

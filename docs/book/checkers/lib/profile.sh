# Shared by the checkers: helpers over `vm` and its profile files.
# Sourced, not run. Needs `vm` on the PATH (cargo install --path .).

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

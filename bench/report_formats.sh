#!/usr/bin/env bash
# Time and peak memory of each `vm report` format against the run that
# wrote the profile (issue 23: no format may take longer than that run),
# on the exhaustive calling-context tree of programs/bench/fib.bc
# (7,049,157 contexts, about 946 MB of JSON). docs/PERFORMANCE.md
# "Reports" has the table this prints.
#
#   bench/report_formats.sh              # N=5 rounds, release binary
#   N=9 VM=/path/to/vm bench/report_formats.sh
#
# Each round runs the program once (writing the profile) and then every
# format once, so that the run and the formats share the machine's load
# of that moment; the table gives each one's median over the rounds of
# the elapsed time, the CPU time (user + system) and the peak resident
# set size, all from /usr/bin/time. Run from the repository root.
set -euo pipefail

VM=${VM:-target/release/vm}
N=${N:-5}
PROG=${PROG:-programs/bench/fib.bc}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/report-formats.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
PROFILE="$DIR/profile.json"

if [ ! -x "$VM" ]; then
    echo "no $VM: build it first (cargo build --release)" >&2
    exit 1
fi
if [ ! -x /usr/bin/time ]; then
    echo "needs /usr/bin/time (Debian package \`time\`)" >&2
    exit 1
fi

# measure LABEL COMMAND...: one sample line "LABEL elapsed user system maxrss-kb".
measure() {
    local label=$1
    shift
    # The last output goes first, and not on the next command's account
    # (freeing 692 MB of folded stacks costs system time).
    rm -f "$DIR/out"
    if ! /usr/bin/time -f "%e %U %S %M" -o "$DIR/time" "$@" >/dev/null 2>"$DIR/stderr"; then
        echo "failed: $*" >&2
        cat "$DIR/stderr" >&2
        exit 1
    fi
    echo "$label $(tail -n 1 "$DIR/time")" >>"$DIR/samples"
}

# folded-stdout: folded written to stdout (redirected to a file), which
# reads the profile whole first; `-o FILE` streams it as it is read.
formats=(text folded folded-stdout flamegraph speedscope dot dot-tree html)
for round in $(seq 1 "$N"); do
    echo "round $round of $N" >&2
    # Nor is the last round's profile deleted on the run's account.
    rm -f "$PROFILE"
    measure run "$VM" run "$PROG" --profile=exhaustive --record=cct --seed=1 --profile-out="$PROFILE"
    for f in "${formats[@]}"; do
        case $f in
            dot-tree) args=(--format=dot --tree) ;;
            *) args=(--format="$f") ;;
        esac
        if [ "$f" = folded-stdout ]; then
            measure "$f" sh -c '"$1" report "$2" --format=folded >"$3"' sh "$VM" "$PROFILE" "$DIR/out"
        else
            measure "$f" "$VM" report "$PROFILE" "${args[@]}" -o "$DIR/out"
        fi
    done
done

python3 - "$DIR/samples" "$(stat -c %s "$PROFILE")" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, e, u, s, m = line.split()
    rows.setdefault(label, []).append((float(e), float(u) + float(s), int(m)))
size = int(sys.argv[2])
med = statistics.median
run = rows["run"]
print(f"profile: {size / 1e6:.0f} MB of JSON; {len(run)} rounds; medians, and the median")
print("over rounds of each round's ratio to that round's run")
print()
print("| command | elapsed (s) | / run | CPU, user+sys (s) | / run | peak RSS (MB) |")
print("|---|---|---|---|---|---|")
for label, rs in rows.items():
    e, c, m = med([r[0] for r in rs]), med([r[1] for r in rs]), med([r[2] for r in rs])
    re = med([r[0] / b[0] for r, b in zip(rs, run)])
    rc = med([r[1] / b[1] for r, b in zip(rs, run)])
    names = {
        "run": "`vm run` (writes the profile)",
        "dot-tree": "`dot --tree`",
        "folded": "`folded -o FILE`",
        "folded-stdout": "`folded > FILE`",
    }
    name = names.get(label, f"`{label}`")
    print(f"| {name} | {e:.2f} | {re:.2f} | {c:.2f} | {rc:.2f} | {m / 1024:.0f} |")
PY

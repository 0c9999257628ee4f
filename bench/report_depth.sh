#!/usr/bin/env bash
# Time and peak memory of each `vm report` format on a calling-context
# tree as deep as a stack overflow at the default --max-frames leaves it
# (100,000 levels; issue 35: every format under 10 s and 500 MB).
# docs/PERFORMANCE.md "Reports of deep trees" has the table this prints.
#
#   bench/report_depth.sh                          # 100,000 levels, auto
#   FRAMES=10000 COLLAPSE=never bench/report_depth.sh
#
# FRAMES is the run's --max-frames (the tree's depth), COLLAPSE the
# reports' --collapse-recursion (auto, always, never; default auto), VM
# the binary (default target/release/vm), TIMEOUT the seconds after which
# a report is killed and shown as such (default 120). Elapsed time and
# peak RSS come from /usr/bin/time. Run from the repository root.
set -euo pipefail

VM=${VM:-target/release/vm}
FRAMES=${FRAMES:-100000}
COLLAPSE=${COLLAPSE:-auto}
TIMEOUT=${TIMEOUT:-120}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/report-depth.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

if [ ! -x "$VM" ]; then
    echo "no $VM: build it first (cargo build --release)" >&2
    exit 1
fi
if [ ! -x /usr/bin/time ]; then
    echo "needs /usr/bin/time (Debian package \`time\`)" >&2
    exit 1
fi

# The run ends in the runtime error (status 70) by design.
status=0
"$VM" run bench/depth/overflow.bc --max-frames="$FRAMES" --profile=exhaustive \
    --record=cct --profile-out="$DIR/deep.json" >/dev/null 2>"$DIR/run.err" || status=$?
if [ "$status" != 70 ]; then
    echo "the run ended with $status, not the overflow's 70:" >&2
    cat "$DIR/run.err" >&2
    exit 1
fi
echo "profile: $(stat -c %s "$DIR/deep.json") bytes, --max-frames=$FRAMES," \
    "--collapse-recursion=$COLLAPSE"
echo
echo "| format | elapsed (s) | peak RSS (MB) | output (bytes) |"
echo "|---|---:|---:|---:|"
for f in text folded flamegraph speedscope dot-tree html; do
    case $f in
        dot-tree) args=(--format=dot --tree) ;;
        *) args=(--format="$f") ;;
    esac
    rm -f "$DIR/out"
    if timeout "$TIMEOUT" /usr/bin/time -f "%e %M" -o "$DIR/time" "$VM" report \
        "$DIR/deep.json" "${args[@]}" --collapse-recursion="$COLLAPSE" -o "$DIR/out" \
        2>"$DIR/err"; then
        read -r elapsed kb <"$DIR/time"
        echo "| \`${args[*]}\` | $elapsed | $((kb / 1024)) | $(stat -c %s "$DIR/out") |"
    else
        echo "| \`${args[*]}\` | over $TIMEOUT (killed) | | |"
    fi
done

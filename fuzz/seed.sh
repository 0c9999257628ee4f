#!/usr/bin/env bash
# Builds the fuzzers' seed corpora under fuzz/corpus/ (not committed):
#   corpus/assemble, corpus/interpret  every .bc program of the repository
#                                      (programs/**, tests/programs/**)
#   corpus/profile_json,               the profiles in tests/programs/compare,
#   corpus/profile_stream
#                                      plus profiles of a few example programs
#                                      in every record kind, written by a `vm`
#                                      binary if one is available ($VM, else
#                                      target/release/vm; skipped otherwise)
# Files are named by content hash, as libFuzzer names its own, so running
# the script again adds nothing twice. Usage: fuzz/seed.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
corpus=$here/corpus
mkdir -p "$corpus/assemble" "$corpus/interpret" "$corpus/profile_json" "$corpus/profile_stream"

add() { # add DIR FILE: copy FILE into DIR under its SHA-1
    cp "$2" "$1/$(sha1sum < "$2" | cut -d' ' -f1)"
}
profile() { # profile FILE: into both profile readers' corpora
    add "$corpus/profile_json" "$1"
    add "$corpus/profile_stream" "$1"
}

n=0
while IFS= read -r -d '' f; do
    add "$corpus/assemble" "$f"
    add "$corpus/interpret" "$f"
    n=$((n + 1))
done < <(find "$root/programs" "$root/tests/programs" -name '*.bc' -print0 | sort -z)
echo "seed: $n programs into corpus/assemble and corpus/interpret"

m=0
for f in "$root"/tests/programs/compare/*.json; do
    profile "$f"
    m=$((m + 1))
done

vm=${VM:-$root/target/release/vm}
if [ -x "$vm" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for prog in "$root"/programs/examples/{fib,classes,exceptions,whaley-fig5,arnold-sweeney-fig6}.bc \
                "$root"/tests/programs/contexts/deep.bc; do
        [ -f "$prog" ] || continue
        i=0
        for opts in "--profile=exhaustive --record=cct" \
                    "--profile=exhaustive" \
                    "--profile=counter --every=3" \
                    "--profile=cbs --clock=virtual --interval=10us --record=dcg,cct" \
                    "--profile=cbs --clock=virtual --interval=10us --record=pcct" \
                    "--profile=cbs --clock=virtual --interval=10us --record=acct" \
                    "--profile=cbs --clock=virtual --interval=10us --record=ccmap"; do
            out=$tmp/$(basename "$prog" .bc)-$i.json
            # shellcheck disable=SC2086 # the options are words
            if "$vm" run "$prog" $opts --seed=1 --profile-out="$out" >/dev/null 2>&1 && [ -s "$out" ]; then
                profile "$out"
                m=$((m + 1))
            fi
            i=$((i + 1))
        done
    done
else
    echo "seed: no vm binary at $vm (build it, or set VM=): profiles of tests/programs/compare only"
fi
echo "seed: $m profiles into corpus/profile_json and corpus/profile_stream"

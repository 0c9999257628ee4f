#!/usr/bin/env bash
# lib.sh - what the scripts in bench/ share. A script sets `here` (its own
# folder) and sources this file:
#
#   here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
#   source "$here/lib.sh"
#
# It sets `root` (the repository) and `bench_dir` (programs/bench), and
# defines:
#   die MSG...               "SCRIPT: MSG" on stderr, exit 1
#   need CMD...              die unless every command is installed
#   positive NAME VALUE      die unless VALUE is a positive integer
#   select_programs [NAME..] set `programs` to these bench programs (names,
#                            with or without .bc), or to every
#                            programs/bench/*.bc when none is given
#   many_threads N           for tests/programs/samplers/many.bc with N
#                            threads and `work`/N iterations each (three
#                            of every four compute), or if BUSY is set,
#                            BUSY computing threads and `work`/BUSY
#                            iterations each; every thread DEPTH frames
#                            deep if DEPTH is set: set `base` to the command
#                            that runs it and `ref` to its exact CCT,
#                            written into `results`
#   build_vm [CARGO ARGS..]  build the release binary (into $CARGO_TARGET_DIR
#                            if set), with these extra cargo arguments
#                            (e.g. --features sample-trace); set `vm` to it

script="${0##*/}"
root="$(cd "$here/.." && pwd)"
bench_dir="$root/programs/bench"

die() { echo "$script: $*" >&2; exit 1; }

need() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null || die "$c is missing (apt-get install -y $c)"
    done
}

positive() {
    [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer (got '$2')"
}

select_programs() {
    programs=()
    local p f
    if (($#)); then
        for p in "$@"; do
            p="${p%.bc}"; p="${p##*/}"
            [[ -f "$bench_dir/$p.bc" ]] || die "no such benchmark: $bench_dir/$p.bc"
            programs+=("$p")
        done
    else
        for f in "$bench_dir"/*.bc; do p="${f##*/}"; programs+=("${p%.bc}"); done
    fi
}

build_vm() {
    echo "== building the release binary${*:+ ($*)}" >&2
    (cd "$root" && cargo build --release --quiet "$@") || die "cargo build --release $* failed"
    vm="${CARGO_TARGET_DIR:-$root/target}/release/vm"
    [[ -x "$vm" ]] || die "no binary at $vm"
}

many_threads() {
    local busy="${BUSY:-0}" depth="${DEPTH:-0}" computing
    computing=$((busy > 0 ? busy : $1))
    base="$vm run $root/tests/programs/samplers/many.bc --set threads=$1"
    base+=" --set work=$((work / computing)) --set busy=$busy --set depth=$depth"
    ref="$results/exact-$1.json"
    mkdir -p "$results"
    $base --profile=exhaustive --record=cct --profile-out "$ref" >/dev/null
}

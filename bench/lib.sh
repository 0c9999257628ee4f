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
#   select_programs [NAME..] set `programs` to the labels of these programs
#                            (see "Programs" below), or of `bench awfy` when
#                            none is given
#   program LABEL            set `bc` to the program file and its arguments
#                            (a string: "FILE --set inner=N"), `expected` to
#                            the file its output must equal ("" when none:
#                            an awfy benchmark checks its own result), and
#                            `peer_args` to the arguments of its Lua and
#                            Python twins; `lua_peer`, `luajit_peer` and
#                            `python_peer` to their files ("" when none)
#
# Programs. A NAME given to select_programs is one of
#   NAME or NAME.bc       programs/bench/NAME.bc (label NAME)
#   awfy/NAME             the Are We Fast Yet benchmark programs/awfy/NAME.bc
#                         at its timing size (label awfy-NAME)
#   PATH.bc               any program file (label: its base name)
#   bench                 every programs/bench/*.bc
#   awfy                  every Are We Fast Yet benchmark (docs/AWFY.md)
#   examples              every programs/examples/*.bc
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
#   build_vm_for_callgrind [CARGO ARGS..]
#                            the same code with line tables (cargo profile
#                            `profiling`, target/profiling/vm), for the
#                            scripts that run callgrind: the release
#                            profile has no debug info (docs/PERFORMANCE.md,
#                            "Build time"); the instructions are the same

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

awfy_dir="$root/programs/awfy"

# The Are We Fast Yet benchmarks, micro then macro, each with the `inner`
# that makes one run take 0.3-2 s under the plain interpreter (docs/AWFY.md,
# "The benchmarks").
awfy_suite=(sieve towers permute queens list storage bounce mandelbrot nbody
    richards deltablue json havlak cd)
declare -A awfy_inner=([sieve]=3000 [towers]=500 [permute]=1000 [queens]=1000
    [list]=2500 [storage]=500 [bounce]=1500 [mandelbrot]=750 [nbody]=100000
    [richards]=50 [deltablue]=20000 [json]=200 [havlak]=1 [cd]=200)
declare -A program_file=()

select_programs() {
    programs=()
    local p f
    (($#)) || set -- bench awfy
    for p in "$@"; do
        case "$p" in
        bench | examples)
            for f in "$root/programs/$p"/*.bc; do add_program "$f"; done ;;
        awfy)
            for f in "${awfy_suite[@]}"; do add_program "awfy/$f"; done ;;
        awfy/*)
            p="${p#awfy/}"; p="${p%.bc}"
            [[ -n "${awfy_inner[$p]:-}" ]] || die "no such Are We Fast Yet benchmark: $p (one of: ${awfy_suite[*]})"
            add_program "awfy/$p" ;;
        */* | *.bc)
            if [[ -f "$p" ]]; then add_program "$p"
            elif [[ -f "$root/programs/bench/${p##*/}" ]]; then add_program "$root/programs/bench/${p##*/}"
            elif [[ -f "$root/programs/examples/${p##*/}" ]]; then add_program "$root/programs/examples/${p##*/}"
            else die "no such program: $p"; fi ;;
        *)
            [[ -f "$bench_dir/$p.bc" ]] || die "no such benchmark: $bench_dir/$p.bc"
            add_program "$bench_dir/$p.bc" ;;
        esac
    done
    ((${#programs[@]})) || die "no programs selected"
}

# add_program FILE|awfy/NAME: appends its label to `programs`.
add_program() {
    local label
    if [[ "$1" == awfy/* ]]; then
        label="awfy-${1#awfy/}"
    else
        label="${1##*/}"; label="${label%.bc}"
    fi
    program_file[$label]="$1"
    programs+=("$label")
}

program() {
    local f="${program_file[$1]:?unknown program label $1}" name
    lua_peer="" luajit_peer="" python_peer="" peer_args="" expected=""
    if [[ "$f" == awfy/* ]]; then
        name="${f#awfy/}"
        bc="$awfy_dir/$name.bc --set inner=${awfy_inner[$name]}"
        peer_args="1 ${awfy_inner[$name]}"
        [[ -f "$awfy_dir/peers/lua/$name.lua" ]] && lua_peer="$awfy_dir/peers/lua/$name.lua"
        [[ -f "$awfy_dir/peers/luajit/$name.lua" ]] && luajit_peer="$awfy_dir/peers/luajit/$name.lua"
        [[ -f "$awfy_dir/peers/python/$name.py" ]] && python_peer="$awfy_dir/peers/python/$name.py"
    else
        name="${f##*/}"; name="${name%.bc}"
        bc="$f"
        [[ -f "${f%.bc}.out" ]] && expected="${f%.bc}.out"
        local peers="${f%/*}/peers"
        [[ -f "$peers/$name.lua" ]] && lua_peer="$peers/$name.lua"
        [[ -f "$peers/luajit/$name.lua" ]] && luajit_peer="$peers/luajit/$name.lua"
        [[ -f "$peers/$name.py" ]] && python_peer="$peers/$name.py"
    fi
    return 0
}

build_vm() {
    echo "== building the release binary${*:+ ($*)}" >&2
    (cd "$root" && cargo build --release --quiet "$@") || die "cargo build --release $* failed"
    vm="${CARGO_TARGET_DIR:-$root/target}/release/vm"
    [[ -x "$vm" ]] || die "no binary at $vm"
}

build_vm_for_callgrind() {
    echo "== building the profiling binary (release code, line tables)${*:+ ($*)}" >&2
    (cd "$root" && cargo build --profile profiling --quiet "$@") ||
        die "cargo build --profile profiling $* failed"
    vm="${CARGO_TARGET_DIR:-$root/target}/profiling/vm"
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

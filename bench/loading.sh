#!/usr/bin/env bash
# loading.sh - is loading a program near-linear in its source size?
#
# Usage:
#   bench/loading.sh              programs of about 1, 10 and 100 MB
#   bench/loading.sh 1 10         only these sizes (MB)
#
# Environment:
#   VM=PATH       the binary to measure (default: build the release binary)
#   RESULTS_DIR   where the generated programs go (default:
#                 bench-results/loading/; they are large, delete them after)
#
# Each generated program is a mix, a quarter of the source each:
#   statics   many small static methods, method i calling method i / 2
#   chain     one deep chain of subclasses, a field in each, a virtual
#             method overridden every tenth class
#   classes   many small hierarchies (a root and a subclass, with fields)
#             defining one shared selector and one selector of their own
#   bodies    long method bodies (straight-line blocks with forward jumps)
# and a `main` that touches each part (a call, a getfield and a callvirt
# through the whole chain, an instanceof), so `vm run` does little besides
# loading. For each size the script prints the time and peak memory
# (/usr/bin/time -f "%e s %M KB") of `vm check` and of `vm run`.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/loading}"

need python3 /usr/bin/time
sizes=("$@")
((${#sizes[@]})) || sizes=(1 10 100)
for s in "${sizes[@]}"; do positive "size (MB)" "$s"; done
if [[ -n "${VM:-}" ]]; then vm="$VM"; else build_vm; fi
mkdir -p "$results"

generate() { # generate MB FILE
    python3 - "$1" "$2" <<'EOF'
import sys

mb, path = int(sys.argv[1]), sys.argv[2]
quarter = mb * 1_000_000 // 4
out = open(path, "w")
written = 0


def emit(text):
    global written
    out.write(text)
    written += len(text)


def section(fn):
    """Calls fn(i) for i = 0, 1, ... until the section has a quarter of
    the size; returns how many it took."""
    global written
    start, i = written, 0
    while written - start < quarter:
        fn(i)
        i += 1
    return i


def static(i):
    # s{i} calls s{i // 2}: a run makes a few calls, not a deep recursion.
    call = f"  load a\n  load b\n  call s{i // 2}\n  load t\n  add\n  store t\n" if i else ""
    emit(f".method s{i}(a, b)\n  .locals t\n  load a\n  load b\n  mul\n"
         f"  store t\n{call}  load t\n  ret\n.end\n")


def chain(i):
    sup = f" : D{i - 1}" if i else ""
    emit(f".class D{i}{sup}\n  .field d{i}\n.end\n")
    if i % 10 == 0:
        emit(f".method D{i}.get(self)\n  load self\n  getfield D{i}.d{i}\n"
             f"  push {i}\n  add\n  ret\n.end\n")


def hierarchy(i):
    emit(f".class E{i}\n  .field x\n  .field y\n.end\n"
         f".class F{i} : E{i}\n  .field z\n.end\n"
         f".method E{i}.area(self)\n  load self\n  getfield E{i}.x\n"
         f"  load self\n  getfield E{i}.y\n  mul\n  ret\n.end\n"
         f".method F{i}.area(self)\n  load self\n  getfield F{i}.z\n  ret\n.end\n"
         f".method E{i}.own{i}(self)\n  push {i}\n  ret\n.end\n")


BLOCKS = 2000


def body(i):
    emit(f".method long{i}(n)\n  .locals a b\n  load n\n  store a\n")
    for j in range(BLOCKS):
        emit(f"b{j}:\n  load a\n  push {j}\n  add\n  store a\n  load a\n"
             f"  push 1000000\n  jgt b{j + 1}\n  inc b 1\n")
    emit(f"b{BLOCKS}:\n  load a\n  load b\n  add\n  ret\n.end\n")


statics = section(static)
depth = section(chain)
hierarchies = section(hierarchy)
bodies = section(body)
last = depth - 1
emit(f""".method main()
  .locals o
  push 1
  push 2
  call s{statics - 1}
  print
  new D{last}
  store o
  load o
  getfield D{last}.d0
  print
  load o
  callvirt get
  print
  load o
  instanceof D0
  print
  new F{hierarchies - 1}
  callvirt area
  print
  push 5
  call long{bodies - 1}
  print
  push 0
  ret
.end
""")
out.close()
print(f"{statics} statics, a chain {depth} deep, {hierarchies} hierarchies, "
      f"{bodies} bodies of {BLOCKS} blocks", file=sys.stderr)
EOF
}

measure() { # measure COMMAND FILE: prints "T s, M MB"
    local t="$results/time.txt" secs kb
    /usr/bin/time -o "$t" -f "%e %M" "$vm" "$1" "$2" >/dev/null 2>"$results/stderr.txt" \
        || die "vm $1 $2 failed: $(head -c 2000 "$results/stderr.txt")"
    read -r secs kb <"$t"
    echo "$secs s, $((kb / 1024)) MB"
}

echo "| source | vm check | vm run |"
echo "|---:|---:|---:|"
for s in "${sizes[@]}"; do
    f="$results/loading-${s}mb.bc"
    generate "$s" "$f"
    bytes=$(stat -c %s "$f")
    check=$(measure check "$f")
    run=$(measure run "$f")
    printf '| %s MB | %s | %s |\n' "$(python3 -c "print(f'{$bytes / 1e6:.1f}')")" "$check" "$run"
done

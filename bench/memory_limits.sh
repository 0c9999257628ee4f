#!/usr/bin/env bash
# memory_limits.sh - what --max-heap bounds (issue 35, item 4): for each
# case, the exit status, the first line on stderr and the peak resident
# memory (/usr/bin/time -f %M), so that a build before and after a change
# can be set side by side (docs/PERFORMANCE.md, "Memory limits").
#
# Usage:
#   bench/memory_limits.sh
#
# Environment:
#   VM=PATH       the binary to measure (default: build the release binary)
#   RESULTS_DIR   where the generated programs go (default:
#                 bench-results/memory_limits/)
#
# Cases (each small enough for a shared machine: at most about 1 GB):
#   cct       a binary recursion of depth 20 (3 million calling contexts)
#             under --max-heap=32M, --profile=exhaustive --record=cct
#   threads   16 threads with 100 live objects each, churning garbage,
#             under --max-heap=1M
#   deep      a recursion of 4-local frames allowed 10^8 frames, under
#             `ulimit -v 400000` and --max-heap=64G, exhaustive profile
#   flat      a recursion of frames without value slots, --max-heap=64M,
#             under `ulimit -v 1000000`
#   rss       a recursion of one-slot frames, --max-heap=128M
#   load      `vm check` of a 5 MB source of long method bodies

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
results="${RESULTS_DIR:-$root/bench-results/memory_limits}"

need python3 /usr/bin/time
if [[ -n "${VM:-}" ]]; then vm="$VM"; else build_vm; fi
mkdir -p "$results"
cd "$results"

cat > tree.bc <<'BC'
.method main()
  push 20
  call t
  print
  push 0
  ret
.end
.method t(n)
  load n
  jz leaf
  load n
  push 1
  sub
  call t
  load n
  push 1
  sub
  call u
  add
  ret
leaf:
  push 1
  ret
.end
.method u(n)
  load n
  call t
  ret
.end
BC
python3 - <<'PY'
threads = """.class Node
  .field next
.end
.method work(k)
  .locals head n i
build:
  load i
  push 100
  jge churn
  new Node
  store n
  load n
  load head
  putfield Node.next
  load n
  store head
  inc i 1
  jmp build
churn:
  push 0
  store i
again:
  load i
  push 20000
  jge done
  push 10
  newarray
  pop
  inc i 1
  jmp again
done:
  push 0
  ret
.end
.method main()
  .locals tids i
  push 16
  newarray
  store tids
start:
  load i
  push 16
  jge joined
  load tids
  load i
  load i
  spawn work
  astore
  inc i 1
  jmp start
joined:
  push 0
  store i
next:
  load i
  push 16
  jge end
  load tids
  load i
  aload
  join
  pop
  inc i 1
  jmp next
end:
  push 7
  print
  push 0
  ret
.end
"""
open("threads.bc", "w").write(threads)
open("deep.bc", "w").write(
    ".method f(n)\n  .locals a b c d\n  load n\n  push 1\n  add\n  call f\n  ret\n.end\n"
    ".method main()\n  push 0\n  call f\n  ret\n.end\n")
open("flat.bc", "w").write(
    ".method f()\n  call f\n  ret\n.end\n.method main()\n  call f\n  ret\n.end\n")
open("deep1.bc", "w").write(
    ".method f(n)\n  load n\n  call f\n  ret\n.end\n.method main()\n  push 0\n  call f\n  ret\n.end\n")
out, i, size = [], 0, 0
while size < 5_000_000:
    body = f".method m{i}(a, b)\n  .locals x y\n"
    body += "".join(f"  load a\n  push {j}\n  add\n  store x\n" for j in range(40))
    body += "  load x\n  ret\n.end\n"
    out.append(body)
    size += len(body)
    i += 1
out.append(".method main()\n  push 0\n  ret\n.end\n")
open("big.bc", "w").write("".join(out))
PY

measure() { # measure LABEL ULIMIT_KB ARGS...
    local label="$1" kb="$2"
    shift 2
    local status=0
    (ulimit -v "$kb"; /usr/bin/time -o time.txt -f "%M" "$vm" "$@" > /dev/null 2> stderr.txt) || status=$?
    printf '| %s | %s | %s | %s MB |\n' "$label" "$status" \
        "$(head -1 stderr.txt | cut -c1-110)" "$(( $(tail -1 time.txt) / 1024 ))"
}

echo "| case | status | first line on stderr | peak RSS |"
echo "|---|---:|---|---:|"
measure cct 1500000 run tree.bc --max-heap=32M --profile=exhaustive --record=cct --profile-out=p.json
measure threads 1500000 run threads.bc --max-heap=1M
measure deep 400000 run deep.bc --max-frames=100000000 --max-heap=64G --profile=exhaustive --profile-out=d.json
measure flat 1000000 run flat.bc --max-frames=100000000 --max-heap=64M
measure rss 1500000 run deep1.bc --max-frames=100000000 --max-heap=128M
measure load 1500000 check big.bc
rm -f p.json d.json

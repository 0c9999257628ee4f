#!/usr/bin/env python3
"""profiler_costs.py - measures the cost table of vm/src/profiler_cost.rs.

Every row of the table (an item of the profiler's work: a yieldpoint
taken, a frame walked, a trampoline, ...) is measured with callgrind, in
machine instructions, and turned into cycles of the cost model at the
interpreter's own rate: machine instructions per cycle of a plain `vm run`
(no profile, no counting). The rate differs from program to program (the
cost model gives a call 10 cycles, a `mul` 3, ...; the interpreter spends
other proportions), so one rate for all is a compromise: the geometric
mean of the lowest and the highest over the programs of `VALIDATION`,
which keeps the worst ratio between any of them and the rate smallest.

How one item is isolated. A profiled run reports how often each item
happened (`run.profiler_work` in its profile). The script runs a program
once without a profile and once with a configuration chosen so that the
item happens often. The base has the profiled run's interpreter: `vm run P
--cycles` for a virtual-clock or `--cycles` run (the counting interpreter:
the virtual clock's counting is the simulation's, not the profile's work),
`vm run P` for the exhaustive profile (counting every instruction is its
work: `exact_instruction`, the counting interpreter against the plain one).
The extra instructions, less what the items already measured cost at their
counts, divided by the item's count, are the item's cost. The steps run
in an order where each needs only earlier ones. The organizer's own work
(DCG updates, buffers, merges, CC-Map inserts) is measured alone, by
`organizer_probe` (profiler/examples) with callgrind counting only the
organizer's thread function; the CC-Map's inserts, on the validation
programs, with callgrind counting only the CC-Map repository's fold. A
session's fixed cost and its cost per method come first, from programs
that return at once. Writing the profile's file is left out of every run,
and every measured run has glibc's fastbins off, as in
bench/profiler_validation.py.

usage: profiler_costs.py VM PROBE OUT.txt
  prints the table beside the committed values and writes OUT.txt (what
  tests/profiler_costs.rs compares the committed table with).
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COSTS = os.path.join(HERE, "costs")

# Microprograms and their sizes (a few hundred million machine
# instructions at most under callgrind).
LOOP = [os.path.join(COSTS, "loop.bc"), "--set", "n=2000000"]
CALLS = [os.path.join(COSTS, "calls.bc"), "--set", "n=300000"]
DEEP = [os.path.join(COSTS, "deep.bc"), "--set", "rounds=2000",
        "--set", "depth=150", "--set", "leaf=20"]

CBS = ["--profile=cbs", "--clock=virtual", "--seed=1"]


def deep(depth):
    return [os.path.join(COSTS, "deep.bc"), "--set", "rounds=2000",
            "--set", f"depth={depth}", "--set", "leaf=20"]


# (item, program, configuration): each step measures `item` from this run,
# every other item it charges being measured by an earlier step.
STEPS = [
    ("yieldpoint_taken", CALLS, ["--profile=counter", "--every=2000000000", "--cycles"]),
    # A tick every 2 us: some 17,000 samples, enough to stand out of the
    # few tens of thousands of instructions two callgrind runs of the same
    # threads differ by.
    ("method_sample", LOOP, ["--profile=timer", "--clock=virtual", "--interval=2us"]),
    ("edge_sample", CALLS, CBS + ["--stride=1", "--samples=64", "--interval=100us"]),
    ("frame_walked", DEEP, CBS + ["--record=cct", "--walk=full", "--max-walk=1000",
                                  "--interval=50us"]),
    ("frame_marked", DEEP, CBS + ["--record=cct", "--walk=marked", "--max-walk=1000",
                                  "--interval=20us"]),
    ("pcct_step", DEEP, CBS + ["--record=pcct", "--max-walk=1000", "--interval=20us"]),
    ("pcct_purge", DEEP, CBS + ["--record=pcct", "--max-walk=1000", "--interval=20us",
                                "--purge=20"]),
    ("acct_splice", DEEP, CBS + ["--record=acct", "--interval=20us"]),
    ("trampoline", DEEP, CBS + ["--record=cct", "--walk=incremental", "--interval=20us"]),
    ("tune_observation", CALLS, CBS + ["--tune", "--interval=20us"]),
    ("exact_call", CALLS, ["--profile=exhaustive"]),
    ("exact_context", CALLS, ["--profile=exhaustive", "--record=cct"]),
    # Nothing to inline in a loop without calls: the controller only wakes.
    ("controller_wakeup", LOOP, CBS + ["--adaptive"]),
]

# A session's fixed cost and its cost per method, which every profiled
# run pays once: a timer profile (no tick lands) of a program that returns
# at once, with METHODS[0] and METHODS[1] methods (all but `main` never
# called). The two runs' equations give both; they are measured before
# every step, whose runs pay them too.
METHODS = (1, 1001)
SESSION = ["--profile=timer", "--clock=virtual"]


def methods_program(directory, n):
    """A program of `n` methods whose `main` returns at once."""
    path = os.path.join(directory, f"methods{n}.bc")
    with open(path, "w") as f:
        f.write(".method main()\n  push 0\n  ret\n.end\n")
        for i in range(n - 1):
            f.write(f".method m{i}()\n  push {i}\n  ret\n.end\n")
    return [path]


# The CC-Map's inserts run in the organizer, on whole stacks of real
# programs, whose map grows with their contexts: counted inside the
# repository's fold alone (callgrind's --toggle-collect) on these
# programs of VALIDATION, per node an insert steps through; the geometric
# mean is the cost.
CCMAP_FOLD = "*CcmapRepository*as*profiler::records::Repository*fold*"

# What the controller's compilations are measured on: a program of many
# methods, run briefly.
COMPILED = ["programs/awfy/deltablue.bc", "--set", "inner=50"]

# The organizer alone: (item, probe arguments at two sizes).
PROBES = [
    ("dcg_update", "buffers", (100, 512), (200, 512)),
    ("organizer_buffer", "buffers", (200, 1), (400, 1)),
    ("merge_node", "merge", (20, 1000), (40, 1000)),
]

# The programs the rate (and bench/profiler_validation.py) is measured on:
# bench kernels and Are We Fast Yet benchmarks at sizes callgrind runs in
# seconds.
VALIDATION = [
    ("fib", ["programs/bench/fib.bc"]),
    ("richards", ["programs/awfy/richards.bc", "--set", "inner=2"]),
    ("deltablue", ["programs/awfy/deltablue.bc", "--set", "inner=1000"]),
    ("towers", ["programs/awfy/towers.bc", "--set", "inner=30"]),
    ("json", ["programs/awfy/json.bc", "--set", "inner=5"]),
    ("queens", ["programs/awfy/queens.bc", "--set", "inner=50"]),
    ("bounce", ["programs/awfy/bounce.bc", "--set", "inner=50"]),
    ("list", ["programs/awfy/list.bc", "--set", "inner=30"]),
]


# Writing the profile's file is not the profiler's work (the papers'
# profilers keep their profiles in memory): left out of every profiled run,
# as bench/profiler_validation.py leaves it out. The binary keeps the
# function out of line for this (src/cli/run.rs).
WRITE = "vm::cli::run::write_profile"

# glibc's fastbins off, in the base runs and the profiled ones alike. With
# them, a profiler's occasional large allocation (a tree's arena doubling,
# a buffer) makes glibc consolidate every small chunk the program has
# freed since (`malloc_consolidate`): on json with an incremental CCT that
# was 2.2 million instructions, more than the profiler's own work, and on
# deltablue it put 0.34% under every configuration, the 1 ms timer's 21
# samples included. That cost is the allocator's bookkeeping of the
# program's garbage, moved, not work the profiler does, and a JVM's
# profiler, whose program allocates in a collected heap, never pays it.
# docs/PERFORMANCE.md shows both measurements. Every measured run, here
# and in bench/profiler_validation.py, has them off.
ENV = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.mxfast=0")


def callgrind(cmd, toggle=None, leave_out=None, env=None):
    """Machine instructions callgrind counts for `cmd` (stdout dropped):
    only inside the functions `toggle` names if given, less those of the
    function `leave_out` and its callees if given; `env` the environment
    if not this one."""
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "callgrind.out")
        args = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + data]
        if toggle:
            args.append("--toggle-collect=" + toggle)
        r = subprocess.run(args + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, cwd=ROOT, env=env)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if not m:
            sys.exit(f"profiler_costs: callgrind failed on {' '.join(cmd)}:\n{r.stderr[-2000:]}")
        n = int(m.group(1))
        if leave_out:
            n -= inclusive(data, leave_out)
    return n, r.stderr


def inclusive(data, function):
    """The instructions of `function` and its callees in callgrind's file
    `data` (0 if it never ran). (callgrind's --toggle-collect would count
    only inside it, whatever --collect-atstart says.)"""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", data],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) .*:" + re.escape(function) + r" ", line)
        if m:
            return int(m.group(1).replace(",", ""))
    return 0


def cycles_of(stderr):
    m = re.search(r"vm: cycles: (\d+) instructions: (\d+)", stderr)
    if not m:
        sys.exit("profiler_costs: no `vm: cycles:` line")
    return int(m.group(1)), int(m.group(2))


def base(vm, program, counting):
    """Instructions of the program without a profile (counting or plain)."""
    n, _ = callgrind([vm, "run"] + program + (["--cycles"] if counting else []), env=ENV)
    return n


def profiled(vm, program, config):
    """Instructions of a profiled run, and its profile's `run` section."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "p.json")
        n, _ = callgrind([vm, "run"] + program + config + ["--profile-out=" + out],
                         leave_out=WRITE, env=ENV)
        with open(out) as f:
            run = json.load(f)["run"]
    return n, run


def rate(vm):
    """Machine instructions per cost-model cycle of a plain `vm run`: the
    geometric mean of the lowest and highest over VALIDATION."""
    rates = []
    for name, program in VALIDATION:
        plain, _ = callgrind([vm, "run"] + program)
        _, err = callgrind([vm, "run"] + program + ["--cycles"])
        cycles, _ = cycles_of(err)
        rates.append(plain / cycles)
        print(f"  rate {name}: {plain / cycles:.2f} instructions per cycle", file=sys.stderr)
    return math.sqrt(min(rates) * max(rates))


def probe(path, what, small, large):
    """Instructions of one more unit of work of the organizer alone."""
    counts = []
    for size in (small, large):
        cmd = [path, what, str(size[0]), str(size[1])]
        n, _ = callgrind(cmd, toggle="profiler::organizer::spawn::*")
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        work = dict((k, int(v)) for k, v in (l.split() for l in out.splitlines()))
        counts.append((n, work))
    return counts


def measure(vm, probe_path):
    known = {}
    # Counting each instruction: the counting interpreter against the plain one.
    plain = base(vm, LOOP, counting=False)
    n, err = callgrind([vm, "run"] + LOOP + ["--cycles"])
    _, instructions = cycles_of(err)
    known["exact_instruction"] = (n - plain) / instructions
    # The organizer alone, smallest dependency first.
    for item, what, small, large in PROBES:
        (n1, w1), (n2, w2) = probe(probe_path, what, small, large)
        delta = n2 - n1
        for other, cost in known.items():
            delta -= (w2.get(other, 0) - w1.get(other, 0)) * cost
        known[item] = delta / (w2[item] - w1[item])
    with tempfile.TemporaryDirectory() as d:
        runs = [(methods_program(d, n), SESSION) for n in METHODS]
        joint(vm, known, ("session", "session_method"), runs)
    known["ccmap_insert"] = ccmap_insert(vm)
    bases = {}
    for item, program, config in STEPS:
        counting = "--profile=exhaustive" not in config
        key = (tuple(program), counting)
        if key not in bases:
            bases[key] = base(vm, program, counting)
        n, run = profiled(vm, program, config)
        work = run.get("profiler_work", {})
        residual = n - bases[key]
        for other, count in work.items():
            if other == item:
                continue
            if other not in known:
                sys.exit(f"profiler_costs: step {item} charges {other}, not measured yet")
            residual -= count * known[other]
        if work.get(item, 0) == 0:
            sys.exit(f"profiler_costs: step {item} did not charge it")
        known[item] = residual / work[item]
    known["ccmap_copy"] = ccmap_copy(vm, known)
    # The PCCT's step on the deep microprogram served the purge's step
    # above (the same tree); the table's is the real programs'.
    known["pcct_step"] = pcct_step(vm, known)
    known["compile_instruction"] = compile_cost(vm)
    return known


def joint(vm, known, items, runs):
    """Measures `items`, which never happen apart, together: as many
    `runs` (program, configuration) as items, differing in how often each
    happens; the costs solve the runs' equations."""
    rows = []
    for program, config in runs:
        n, run = profiled(vm, program, config)
        work = run.get("profiler_work", {})
        residual = n - base(vm, program, True)
        for other, count in work.items():
            if other not in items:
                if other not in known:
                    sys.exit(f"profiler_costs: {items} runs charge {other}, not measured yet")
                residual -= count * known[other]
        rows.append([work.get(i, 0) for i in items] + [residual])
    for item, cost in zip(items, solve(rows)):
        known[item] = cost


# The CC-Map's copies on the thread: full walks of deep stacks.
CCMAP_COPY = (deep(160), CBS + ["--record=ccmap", "--walk=full", "--max-walk=1000",
                                "--interval=50us"])


def ccmap_copy(vm, known):
    """Instructions per frame copied into the CC-Map's buffer: a full walk
    into the CC-Map, less its inserts (the same run counted inside the
    repository's fold alone) and the items known, per frame copied."""
    program, config = CCMAP_COPY
    n, run = profiled(vm, program, config)
    with tempfile.TemporaryDirectory() as d:
        fold, _ = callgrind([vm, "run"] + program + config
                            + ["--profile-out=" + os.path.join(d, "p.json")],
                            toggle=CCMAP_FOLD, env=ENV)
    work = run["profiler_work"]
    residual = n - base(vm, program, True) - fold
    for other, count in work.items():
        if other not in ("ccmap_copy", "ccmap_insert"):
            residual -= count * known[other]
    return residual / work["ccmap_copy"]


# What a PCCT step costs depends on the tree's shape: on a deep chain each
# node has one child and its hot lists are trivial, on a real program's
# tree they are not. Measured on the programs of VALIDATION at the densest
# sampling, the PCCT against the marked CCT (the same walk without the
# weights and the hot lists), per step; the geometric mean is the cost.
DENSE = CBS + ["--stride=15", "--samples=256"]


def pcct_step(vm, known):
    """Instructions a PCCT step adds to a marked walk's, on real trees."""
    costs = []
    for name, program in VALIDATION:
        n_p, run_p = profiled(vm, program, DENSE + ["--record=pcct"])
        n_m, run_m = profiled(vm, program, DENSE + ["--record=cct", "--walk=marked"])
        work_p, work_m = run_p["profiler_work"], run_m["profiler_work"]
        residual = n_p - n_m
        for other in set(work_p) | set(work_m):
            if other != "pcct_step":
                residual -= (work_p.get(other, 0) - work_m.get(other, 0)) * known[other]
        costs.append(residual / work_p["pcct_step"])
        print(f"  pcct_step {name}: {costs[-1]:.1f} instructions per step", file=sys.stderr)
    return geomean(costs)


def ccmap_insert(vm):
    """Instructions per node a CC-Map insert steps through: the
    repository's fold alone, over the validation programs' inserts."""
    costs = []
    for name, program in VALIDATION:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "p.json")
            n, _ = callgrind([vm, "run"] + program + CBS + ["--record=ccmap",
                                                            "--profile-out=" + out],
                             toggle=CCMAP_FOLD, env=ENV)
            with open(out) as f:
                steps = json.load(f)["run"]["profiler_work"].get("ccmap_insert", 0)
        if steps:
            costs.append(n / steps)
            print(f"  ccmap_insert {name}: {n / steps:.1f} instructions per node",
                  file=sys.stderr)
    return geomean(costs)


def compile_cost(vm):
    """Instructions per instruction the inliner produces: `vm inline
    --emit` (a profiled run, the linear policy's decisions, the inlined
    module verified and printed) less the profiled run alone, over the
    instructions of the emitted program."""
    profile = ["--profile=exhaustive"]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "inlined.bc")
        n, _ = callgrind([vm, "inline"] + COMPILED + profile
                         + ["--policy=linear", "--emit=" + out])
        emitted = count_instructions(out)
    alone, _ = callgrind([vm, "run"] + COMPILED + profile)
    return (n - alone) / emitted


def count_instructions(path):
    """The instructions of a .bc file: lines that are neither blank,
    comments, directives nor labels alone."""
    n = 0
    for line in open(path):
        text = re.sub(r"^\s*[A-Za-z_]\w*:", "", line.split(";", 1)[0]).strip()
        if text and not text.startswith("."):
            n += 1
    return n


def geomean(values):
    """The geometric mean of positive `values`."""
    return math.exp(sum(map(math.log, values)) / len(values))


def solve(rows):
    """The solution of the square linear system whose rows are
    `[a_1, ..., a_n, b]` (Gaussian elimination with partial pivoting)."""
    n = len(rows)
    m = [[float(v) for v in r] for r in rows]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def committed():
    """The committed table: item -> cycles (vm/src/profiler_cost.rs)."""
    src = open(os.path.join(ROOT, "vm/src/profiler_cost.rs")).read()
    rows = re.findall(r'^\s+\w+ = "(\w+)", \w+, ([0-9.]+);', src, re.M)
    rate_m = re.search(r"pub const INSTRUCTIONS_PER_CYCLE: u64 = (\d+);", src)
    return dict((k, float(v)) for k, v in rows), int(rate_m.group(1))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    vm, probe_path, out = (os.path.abspath(a) for a in sys.argv[1:])
    r = rate(vm)
    known = measure(vm, probe_path)
    table, committed_rate = committed()
    per_cycle = round(r)
    lines = [
        "# bench/profiler_costs.sh: the profiler's cost table measured with callgrind.",
        "# rate: machine instructions per cycle of a plain `vm run P` (the geometric mean",
        "# of the lowest and the highest over the validation programs);",
        "# each item: machine instructions per occurrence, and cycles at the rate rounded.",
        f"rate {r:.2f}",
    ]
    print(f"{'item':<20} {'instructions':>12} {'cycles':>8} {'committed':>10}")
    for item, instr in known.items():
        cycles = max(instr, 0) / per_cycle
        lines.append(f"{item} {instr:.1f} {cycles:.2f}")
        print(f"{item:<20} {instr:12.1f} {cycles:8.2f} {table.get(item, float('nan')):10.2f}")
    print(f"rate {r:.2f} instructions per cycle, {per_cycle} rounded (committed {committed_rate})")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""profiler_validation.py - does the cost model's overhead track the real one?

For each program of PROGRAMS (six of profiler_costs.VALIDATION, at about
half the size: a run under callgrind takes some 10 to 30 s) and each
configuration of CONFIGS, callgrind counts the machine instructions of the profiled run, of
the same program without a profile run by the same interpreter (`--cycles`
for a virtual-clock or `--cycles` run: the virtual clock's counting is the
simulation's, not the profile's; a plain run for the exhaustive profile,
whose counting is its own work), and of a plain run. The measured overhead
is the profiled run's extra instructions over the first (writing the
profile's file left out), as a share of the plain run: what the profile
adds to a plain run. The modelled one is
the profile's `run.profiler_cycles / run.cycles`. The claim (docs/PERFORMANCE.md, "What a
profile costs"): on every program the two rank the configurations the same
way (Spearman >= 0.9), and wherever the measured overhead is above 0.5% the
two agree within a factor of 1.5.

usage: profiler_validation.py VM OUT.csv [JOBS]
  prints the table and the checks, writes every cell to OUT.csv; exits 1
  if a check fails.
"""

import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profiler_costs import ENV, WRITE, callgrind  # noqa: E402

# Bench and Are We Fast Yet programs, each some 10^7 cycles.
PROGRAMS = [
    ("richards", ["programs/awfy/richards.bc", "--set", "inner=1"]),
    ("deltablue", ["programs/awfy/deltablue.bc", "--set", "inner=500"]),
    ("towers", ["programs/awfy/towers.bc", "--set", "inner=15"]),
    ("json", ["programs/awfy/json.bc", "--set", "inner=3"]),
    ("queens", ["programs/awfy/queens.bc", "--set", "inner=25"]),
    ("bounce", ["programs/awfy/bounce.bc", "--set", "inner=25"]),
]

V = ["--clock=virtual", "--seed=1"]

# (label, configuration): every trigger, each walk and each record.
CONFIGS = [
    ("timer 1ms", ["--profile=timer"] + V),
    ("timer 100us", ["--profile=timer", "--interval=100us"] + V),
    ("cbs 3/16", ["--profile=cbs"] + V),
    ("cbs 1/64", ["--profile=cbs", "--stride=1", "--samples=64"] + V),
    ("cbs 15/256", ["--profile=cbs", "--stride=15", "--samples=256"] + V),
    ("counter 100", ["--profile=counter", "--cycles", "--seed=1"]),
    ("exhaustive", ["--profile=exhaustive"]),
    ("exhaustive cct", ["--profile=exhaustive", "--record=cct"]),
    ("cbs cct full", ["--profile=cbs", "--record=cct", "--walk=full"] + V),
    ("cbs cct marked", ["--profile=cbs", "--record=cct", "--walk=marked"] + V),
    ("cbs cct incremental", ["--profile=cbs", "--record=cct", "--walk=incremental"] + V),
    ("cbs pcct", ["--profile=cbs", "--record=pcct"] + V),
    ("cbs acct", ["--profile=cbs", "--record=acct"] + V),
    ("cbs ccmap", ["--profile=cbs", "--record=ccmap"] + V),
    ("cbs 1/64 tune", ["--profile=cbs", "--stride=1", "--samples=64", "--tune"] + V),
]


def spearman(xs, ys):
    """Spearman's rank correlation (average ranks for ties)."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else 1.0




def one(vm, program, config):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "p.json")
        n, _ = callgrind([vm, "run"] + program + config + ["--profile-out=" + out],
                         leave_out=WRITE, env=ENV)
        with open(out) as f:
            run = json.load(f)["run"]
    model = 100.0 * run["profiler_cycles"] / run["cycles"]
    print(f"  {' '.join(program)} {' '.join(config)}: {n} instructions, modelled {model:.3f}%",
          file=sys.stderr, flush=True)
    return n, model


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    vm, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    symbols = subprocess.run(["nm", "-C", vm], capture_output=True, text=True).stdout
    if WRITE not in symbols:
        sys.exit(f"profiler_validation: {vm} has no function {WRITE} to leave out")
    jobs = int(sys.argv[3]) if len(sys.argv) == 4 else 2
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        bases = {(name, counting): pool.submit(callgrind, [vm, "run"] + program
                                               + (["--cycles"] if counting else []), env=ENV)
                 for name, program in PROGRAMS for counting in (True, False)}
        cells = {(name, label): pool.submit(one, vm, program, config)
                 for name, program in PROGRAMS for label, config in CONFIGS}
        bases = {k: f.result()[0] for k, f in bases.items()}
        cells = {k: f.result() for k, f in cells.items()}
    rows, failures = [], []
    for name, _ in PROGRAMS:
        measured, modelled = [], []
        for label, config in CONFIGS:
            base = bases[(name, "--profile=exhaustive" not in config)]
            plain = bases[(name, False)]
            n, model = cells[(name, label)]
            real = 100.0 * (n - base) / plain
            measured.append(real)
            modelled.append(model)
            ratio = model / real if real > 0 else float("nan")
            checked = real > 0.5
            ok = not checked or (1 / 1.5 <= ratio <= 1.5)
            if not ok:
                failures.append(f"{name} {label}: modelled {model:.3f}% measured {real:.3f}%")
            rows.append((name, label, real, model, ratio, checked, ok))
        rho = spearman(measured, modelled)
        if rho < 0.9:
            failures.append(f"{name}: Spearman {rho:.3f} < 0.9")
        rows.append((name, "Spearman", rho, None, None, False, rho >= 0.9))
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "configuration", "measured_percent", "modelled_percent",
                    "ratio", "checked", "ok"])
        for r in rows:
            w.writerow(r)
    print(f"{'program':<10} {'configuration':<24} {'measured':>9} {'modelled':>9} {'ratio':>6}")
    for name, label, real, model, ratio, checked, ok in rows:
        if model is None:
            print(f"{name:<10} {'Spearman':<24} {real:9.3f}{'' if ok else '  FAIL'}")
        else:
            mark = "" if ok else "  FAIL"
            print(f"{name:<10} {label:<24} {real:8.3f}% {model:8.3f}% "
                  f"{ratio:6.2f}{'' if checked else ' (below 0.5%)'}{mark}")
    print(f"{len(failures)} failures" + "".join("\n  " + f for f in failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

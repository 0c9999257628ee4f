#!/usr/bin/env python3
"""paired.py - small differences in run time, measured on a noisy machine.

Usage:
    bench/paired.py [--rounds N] [--json FILE] BASE_NAME=CMD NAME=CMD [NAME=CMD ...]

Runs ROUNDS rounds; each round is ONE hyperfine invocation that runs every
command once (`hyperfine -N --runs 1`), the order rotated from round to
round. So the commands are interleaved (A B C, B C A, C A B, ...): a slow
period of the machine (another process, frequency changes) hits them all,
instead of hitting all the runs of one command as a block of runs per
command does. For each command other than the first (the base), it prints
the median over rounds of the per-round ratio (command / base), for wall
time and for CPU time (user + system, all threads), as a percentage
difference, with the 25th-75th percentile range of those ratios. Medians of
paired ratios are what lets a 1% difference show through noise of +-10%.

Requires hyperfine (apt-get install -y hyperfine).
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def quantile(xs, q):
    xs = sorted(xs)
    i = (len(xs) - 1) * q
    lo, hi = int(i), min(int(i) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--json", help="also write the raw times here")
    ap.add_argument("commands", nargs="+", metavar="NAME=CMD")
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("paired.py: --rounds must be at least 1")
    cmds = []
    for c in a.commands:
        name, sep, cmd = c.partition("=")
        if not sep or not name or not cmd:
            sys.exit(f"paired.py: expected NAME=CMD, got {c!r}")
        cmds.append((name, cmd))
    if len(cmds) < 2:
        sys.exit("paired.py: give a base command and at least one other")

    wall = {n: [] for n, _ in cmds}
    cpu = {n: [] for n, _ in cmds}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        for r in range(a.rounds):
            k = r % len(cmds)
            order = cmds[k:] + cmds[:k]
            args = ["hyperfine", "-N", "--runs", "1", "--style", "none", "--export-json", out]
            for n, c in order:
                args += ["-n", n, c]
            subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
            for res in json.load(open(out))["results"]:
                wall[res["command"]].append(res["times"][0])
                cpu[res["command"]].append(res["user"] + res["system"])
            print(f"round {r + 1}/{a.rounds}", file=sys.stderr)

    base = cmds[0][0]
    report = {"rounds": a.rounds, "base": base, "commands": {}}
    for n, _ in cmds:
        entry = {
            "median_wall_s": statistics.median(wall[n]),
            "median_cpu_s": statistics.median(cpu[n]),
            "wall_s": wall[n],
            "cpu_s": cpu[n],
        }
        if n != base:
            for kind, series in (("wall", wall), ("cpu", cpu)):
                ratios = [x / b for x, b in zip(series[n], series[base])]
                entry[f"{kind}_pct"] = (statistics.median(ratios) - 1) * 100
                entry[f"{kind}_pct_q1"] = (quantile(ratios, 0.25) - 1) * 100
                entry[f"{kind}_pct_q3"] = (quantile(ratios, 0.75) - 1) * 100
        report["commands"][n] = entry
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    print(f"{'command':<24} {'wall (ms)':>10} {'wall vs ' + base:>22} {'cpu vs ' + base:>22}")
    for n, _ in cmds:
        e = report["commands"][n]
        if n == base:
            print(f"{n:<24} {e['median_wall_s'] * 1000:>10.1f}")
        else:
            w = f"{e['wall_pct']:+.1f}% [{e['wall_pct_q1']:+.1f},{e['wall_pct_q3']:+.1f}]"
            c = f"{e['cpu_pct']:+.1f}% [{e['cpu_pct_q1']:+.1f},{e['cpu_pct_q3']:+.1f}]"
            print(f"{n:<24} {e['median_wall_s'] * 1000:>10.1f} {w:>22} {c:>22}")


if __name__ == "__main__":
    main()

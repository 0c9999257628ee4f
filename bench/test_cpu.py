#!/usr/bin/env python3
"""test_cpu.py - where a test binary's CPU time goes: its own process
(the test code) against the processes it starts and waits for (the `vm`
runs, the Lua and Python peers, chromium).

    bench/test_cpu.py BINARY [ARGS...]

runs BINARY ARGS (a test binary of target/quicktest/deps, with libtest's
arguments: a filter, `--exact NAME`, `-q`) and prints the user + system
CPU seconds of each part. GNU time adds the two together; this reads the
binary's own `/proc/PID/stat` (its utime and stime, and the cutime and
cstime of the children it has waited for) just before it exits. Run it
from the test's package directory, as cargo does (the e2e tests: the
repository's root). Linux only (docs/PERFORMANCE.md, "Build time").
"""
import os
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tick = os.sysconf("SC_CLK_TCK")
    child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    last = None
    while child.poll() is None:
        try:
            with open(f"/proc/{child.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            # utime, stime, cutime, cstime: fields 14-17 of proc(5).
            last = [int(x) / tick for x in fields[11:15]]
        except (OSError, IndexError, ValueError):
            pass
        time.sleep(0.1)
    if last is None:
        print("test_cpu: the binary ended before it could be read", file=sys.stderr)
        return 1
    own, waited = last[0] + last[1], last[2] + last[3]
    print(f"own {own:.1f} s, started processes {waited:.1f} s, "
          f"status {child.returncode}")
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())

# macro_harness.py - a copy of the micro branch's harness.py: the Python twin of
# programs/awfy/som/macro-harness.bc. The Are We
# Fast Yet Benchmark base class and Run loop, with the same output.
#
# A benchmark file ends with `run(NewBenchmark(), "Name", default_inner)`;
# its command line is: python3 NAME.py [iterations [inner [expected]]]
# (0 or missing: the default, as --set leaves the .bc globals at 0).

import sys

_ARGS = [int(a) for a in sys.argv[1:]] + [0, 0, 0]
ITERATIONS, INNER, EXPECTED = _ARGS[0], _ARGS[1], _ARGS[2]


def expect(value):
    """The value a check compares with: EXPECTED if given, else `value`."""
    return EXPECTED if EXPECTED != 0 else value


def as_int(value):
    """Results print as integers (a boolean as 1 or 0), as the VM prints them."""
    return int(value)


class Benchmark:
    def __init__(self):
        self.last_result = 0

    def inner_benchmark_loop(self, inner_iterations):
        for _ in range(inner_iterations):
            result = self.benchmark()
            self.last_result = result
            if not self.verify_result(result):
                return False
        return True

    def benchmark(self):
        raise NotImplementedError("subclass responsibility: benchmark")

    def verify_result(self, result):
        raise NotImplementedError("subclass responsibility: verify_result")


class Run:
    def __init__(self, name, benchmark, num_iterations, inner_iterations):
        self.name = name
        self.benchmark = benchmark
        self.num_iterations = num_iterations
        self.inner_iterations = inner_iterations

    def run_benchmark(self):
        print(self.name)
        print(self.num_iterations)
        print(self.inner_iterations)
        self.do_runs()

    def do_runs(self):
        for _ in range(self.num_iterations):
            self.measure()

    def measure(self):
        if not self.benchmark.inner_benchmark_loop(self.inner_iterations):
            print("Benchmark failed with incorrect result")
            sys.stdout.flush()
            sys.exit(1)
        print(as_int(self.benchmark.last_result))


def run(bench, name, default_inner):
    Run(name, bench, ITERATIONS or 1, INNER or default_inner).run_benchmark()

# permute.py - the Python twin of programs/awfy/src/permute.bc (Are We Fast
# Yet: Permute): all permutations of 6 elements; 8660 permute() calls.
# Usage: python3 permute.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run


class Permute(Benchmark):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.v = None

    def benchmark(self):
        self.count = 0
        self.v = [0] * 6
        self.permute(6)
        return self.count

    def verify_result(self, result):
        return result == expect(8660)

    def permute(self, n):
        self.count += 1
        if n != 0:
            n1 = n - 1
            self.permute(n1)
            for i in range(n1, -1, -1):
                self.swap(n1, i)
                self.permute(n1)
                self.swap(n1, i)

    def swap(self, i, j):
        tmp = self.v[i]
        self.v[i] = self.v[j]
        self.v[j] = tmp


if __name__ == "__main__":
    run(Permute(), "Permute", 1)

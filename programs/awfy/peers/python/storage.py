# storage.py - the Python twin of programs/awfy/src/storage.bc (Are We Fast
# Yet: Storage): a tree of arrays of depth 7; 5461 arrays.
# Usage: python3 storage.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run
from som import Random


class Storage(Benchmark):
    def __init__(self):
        super().__init__()
        self.count = 0

    def benchmark(self):
        random = Random()
        self.count = 0
        self.build_tree_depth(7, random)
        return self.count

    def verify_result(self, result):
        return result == expect(5461)

    def build_tree_depth(self, depth, random):
        self.count += 1
        if depth == 1:
            return [None] * (random.next() % 10 + 1)
        arr = [None] * 4
        for i in range(4):
            arr[i] = self.build_tree_depth(depth - 1, random)
        return arr


if __name__ == "__main__":
    run(Storage(), "Storage", 1)

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

    # As the suite's Python builds the tree: a leaf is a list of its size
    # filled one append at a time, an inner node a list of four subtrees
    # appended one by one.
    def build_tree_depth(self, depth, random):
        self.count += 1
        if depth == 1:
            leaf = []
            for _ in range(random.next() % 10 + 1):
                leaf.append(True)
            return leaf
        arr = []
        for _ in range(4):
            arr.append(self.build_tree_depth(depth - 1, random))
        return arr


if __name__ == "__main__":
    run(Storage(), "Storage", 1)

# queens.py - the Python twin of programs/awfy/src/queens.bc (Are We Fast
# Yet: Queens): eight queens by backtracking, ten times; true (1).
# Usage: python3 queens.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run


class Queens(Benchmark):
    def __init__(self):
        super().__init__()
        self.free_maxs = None
        self.free_rows = None
        self.free_mins = None
        self.queen_rows = None

    def benchmark(self):
        result = True
        for _ in range(10):
            result = result and self.queens()
        return result

    def verify_result(self, result):
        return int(result) == expect(1)

    def queens(self):
        self.free_rows = [True] * 8
        self.free_maxs = [True] * 16
        self.free_mins = [True] * 16
        self.queen_rows = [-1] * 8
        return self.place_queen(0)

    def place_queen(self, c):
        for r in range(8):
            if self.get_row_column(r, c):
                self.queen_rows[r] = c
                self.set_row_column(r, c, False)
                if c == 7:
                    return True
                if self.place_queen(c + 1):
                    return True
                self.set_row_column(r, c, True)
        return False

    def get_row_column(self, r, c):
        return (
            self.free_rows[r] and self.free_maxs[c + r] and self.free_mins[c - r + 7]
        )

    def set_row_column(self, r, c, v):
        self.free_rows[r] = v
        self.free_maxs[c + r] = v
        self.free_mins[c - r + 7] = v


if __name__ == "__main__":
    run(Queens(), "Queens", 1)

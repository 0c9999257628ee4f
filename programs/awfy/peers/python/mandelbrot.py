# mandelbrot.py - the Python twin of programs/awfy/src/mandelbrot.bc (Are We
# Fast Yet: Mandelbrot), with the same fixed-point integer arithmetic
# (ONE = 2^24; a product is (a * b) >> 24, an arithmetic shift).
# Usage: python3 mandelbrot.py [iterations [size [expected]]]

from harness import EXPECTED, Benchmark, expect, run

ONE = 1 << 24
KNOWN = {1: 128, 100: 28, 200: 27, 500: 170, 750: 54}


class Mandelbrot(Benchmark):
    def inner_benchmark_loop(self, inner_iterations):
        result = self.mandelbrot(inner_iterations)
        self.last_result = result
        return self.verify_result_sized(result, inner_iterations)

    def verify_result_sized(self, result, inner_iterations):
        if inner_iterations in KNOWN:
            return result == expect(KNOWN[inner_iterations])
        if EXPECTED != 0:
            return result == EXPECTED
        print("No verification result for this size; the result is:")
        print(result)
        return False

    def mandelbrot(self, size):
        total = 0
        byte_acc = 0
        bit_num = 0
        y = 0
        while y < size:
            ci = (2 * y * ONE) // size - ONE
            x = 0
            while x < size:
                zrzr = 0
                zi = 0
                zizi = 0
                cr = (2 * x * ONE) // size - 3 * ONE // 2
                z = 0
                escape = 0
                while z < 50:
                    zr = zrzr - zizi + cr
                    zi = ((2 * zr * zi) >> 24) + ci
                    zrzr = (zr * zr) >> 24
                    zizi = (zi * zi) >> 24
                    z += 1
                    if zrzr + zizi > 4 * ONE:
                        escape = 1
                        break
                byte_acc = (byte_acc << 1) + escape
                bit_num += 1
                if bit_num == 8:
                    total ^= byte_acc
                    byte_acc = 0
                    bit_num = 0
                elif x == size - 1:
                    byte_acc <<= 8 - bit_num
                    total ^= byte_acc
                    byte_acc = 0
                    bit_num = 0
                x += 1
            y += 1
        return total


if __name__ == "__main__":
    run(Mandelbrot(), "Mandelbrot", 100)

# sieve.py - the Python twin of programs/awfy/src/sieve.bc (Are We Fast Yet:
# Sieve): primes up to 5000 by the sieve of Eratosthenes; 669.
# Usage: python3 sieve.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run


class Sieve(Benchmark):
    def benchmark(self):
        flags = [False] * 5000
        for i in range(5000):
            flags[i] = True
        return self.sieve(flags, 5000)

    def verify_result(self, result):
        return result == expect(669)

    def sieve(self, flags, size):
        prime_count = 0
        for i in range(2, size + 1):
            if flags[i - 1]:
                prime_count += 1
                k = i + i
                while k <= size:
                    flags[k - 1] = False
                    k += i
        return prime_count


if __name__ == "__main__":
    run(Sieve(), "Sieve", 1)

# sieve.py - peer of ../sieve.bc: sieve of Eratosthenes over 2,000,000
# elements, 5 rounds, same loops (no slice assignment or other shortcuts).


def count_primes(n):
    composite = [0] * n
    i = 2
    while i * i < n:
        if not composite[i]:
            j = i * i
            while j < n:
                composite[j] = 1
                j += i
        i += 1
    count = 0
    for i in range(2, n):
        if not composite[i]:
            count += 1
    return count


def main():
    count = 0
    for _ in range(5):
        count = count_primes(2000000)
    print(count)


main()

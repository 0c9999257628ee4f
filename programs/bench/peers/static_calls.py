# static_calls.py - peer of ../static_calls.bc: a chain of six small
# functions, f1 calls f2 ... calls f6, 4,000,000 times.


def f1(x):
    return f2(x + 1) + 1


def f2(x):
    return f3(x + 7) + x


def f3(x):
    return f4(x * 3) - 1


def f4(x):
    return f5(x ^ 0x55) + 3


def f5(x):
    return f6(x + 5) * 2


def f6(x):
    return x & 1023


def main():
    total = 0
    for i in range(4000000):
        total += f1(i)
    print(total)


main()

# arith_loop.py - peer of ../arith_loop.bc: the same loop in Python 3.
# Python integers do not wrap; the mask keeps x below 2**31, so the
# results match the VM's 64-bit arithmetic exactly.

def main():
    x = 1
    total = 0
    for _ in range(50000000):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        total += x >> 16
    print(x)
    print(total)


main()

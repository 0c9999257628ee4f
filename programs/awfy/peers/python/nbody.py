# nbody.py - the Python twin of programs/awfy/src/nbody.bc (Are We Fast Yet:
# NBody), with the same fixed-point integer arithmetic: ONE = 2^24, a product
# is (a * b) >> 24 (an arithmetic shift), a quotient (a * ONE) / b truncated
# toward zero as the VM's div does (Python's // floors: see tdiv), a square
# root floor(sqrt(a * ONE)) by the same Newton iteration.
# Usage: python3 nbody.py [iterations [steps [expected]]]

from harness import EXPECTED, Benchmark, expect, run

ONE = 1 << 24
SOLAR_MASS = 662337939  # 4 * PI^2
DAYS_PER_YEAR = 6127710372  # 365.24
KNOWN = {1: -2836639, 1000: -2836650, 10000: -2833146, 100000: -2696592, 250000: -1955020}


def tdiv(a, b):
    """a / b truncated toward zero (the VM's div)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def sqrt(a):
    """floor(sqrt(a * ONE)), for a >= 0, as the .bc's sqrt computes it."""
    n = a * ONE
    if n <= 0:
        return 0
    t = n
    r = 1
    while t >= 4:
        t >>= 2
        r <<= 1
    x = r << 1
    while True:
        y = (x + n // x) >> 1
        if y >= x:
            return x
        x = y


class Body:
    def __init__(self, x, y, z, vx, vy, vz, mass):
        self.x = x
        self.y = y
        self.z = z
        self.vx = (vx * DAYS_PER_YEAR) >> 24
        self.vy = (vy * DAYS_PER_YEAR) >> 24
        self.vz = (vz * DAYS_PER_YEAR) >> 24
        self.mass = (mass * SOLAR_MASS) >> 24

    def offset_momentum(self, px, py, pz):
        self.vx = 0 - tdiv(px * ONE, SOLAR_MASS)
        self.vy = 0 - tdiv(py * ONE, SOLAR_MASS)
        self.vz = 0 - tdiv(pz * ONE, SOLAR_MASS)


def jupiter():
    return Body(81225741, -19466940, -1738489, 27851, 129168, -1158, 16019)


def saturn():
    return Body(139978466, 69202636, -6770000, -46430, 83861, 387, 4796)


def uranus():
    return Body(216331623, -253523051, -3746479, 49738, 39904, -498, 733)


def neptune():
    return Body(258028501, -434853940, 3007463, 44974, 27317, -1597, 864)


def sun():
    return Body(0, 0, 0, 0, 0, 0, ONE)


class NBodySystem:
    def __init__(self):
        self.bodies = self.create_bodies()

    def create_bodies(self):
        bodies = [sun(), jupiter(), saturn(), uranus(), neptune()]
        px = py = pz = 0
        for b in bodies:
            px += (b.vx * b.mass) >> 24
            py += (b.vy * b.mass) >> 24
            pz += (b.vz * b.mass) >> 24
        bodies[0].offset_momentum(px, py, pz)
        return bodies

    def advance(self, dt):
        bodies = self.bodies
        n = len(bodies)
        for i in range(n):
            ib = bodies[i]
            for j in range(i + 1, n):
                jb = bodies[j]
                dx = ib.x - jb.x
                dy = ib.y - jb.y
                dz = ib.z - jb.z
                dsq = ((dx * dx) >> 24) + ((dy * dy) >> 24) + ((dz * dz) >> 24)
                distance = sqrt(dsq)
                mag = tdiv(tdiv(dt * ONE, dsq) * ONE, distance)
                ib.vx -= (((dx * jb.mass) >> 24) * mag) >> 24
                ib.vy -= (((dy * jb.mass) >> 24) * mag) >> 24
                ib.vz -= (((dz * jb.mass) >> 24) * mag) >> 24
                jb.vx += (((dx * ib.mass) >> 24) * mag) >> 24
                jb.vy += (((dy * ib.mass) >> 24) * mag) >> 24
                jb.vz += (((dz * ib.mass) >> 24) * mag) >> 24
        for b in bodies:
            b.x += (dt * b.vx) >> 24
            b.y += (dt * b.vy) >> 24
            b.z += (dt * b.vz) >> 24

    def energy(self):
        bodies = self.bodies
        n = len(bodies)
        e = 0
        for i in range(n):
            ib = bodies[i]
            v2 = ((ib.vx * ib.vx) >> 24) + ((ib.vy * ib.vy) >> 24) + ((ib.vz * ib.vz) >> 24)
            e += ((((ONE // 2) * ib.mass) >> 24) * v2) >> 24
            for j in range(i + 1, n):
                jb = bodies[j]
                dx = ib.x - jb.x
                dy = ib.y - jb.y
                dz = ib.z - jb.z
                distance = sqrt(((dx * dx) >> 24) + ((dy * dy) >> 24) + ((dz * dz) >> 24))
                e -= tdiv(((ib.mass * jb.mass) >> 24) * ONE, distance)
        return e


class NBody(Benchmark):
    def inner_benchmark_loop(self, inner_iterations):
        system = NBodySystem()
        for _ in range(inner_iterations):
            system.advance(167772)  # 0.01
        result = system.energy()
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


if __name__ == "__main__":
    run(NBody(), "NBody", 1000)

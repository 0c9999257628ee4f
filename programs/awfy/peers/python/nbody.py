# nbody.py - the Python twin of programs/awfy/src/nbody.bc (Are We Fast Yet:
# NBody), in Python's floats as the suite's Python computes it (the .bc
# program computes in fixed point, having no floats): the sun and the four
# Jovian planets, advance(0.01) INNER times, then the energy, which it
# checks against the known energy for that number of steps.
# Usage: python3 nbody.py [iterations [steps [expected]]]

from math import floor, sqrt

from harness import EXPECTED, Benchmark, run

PI = 3.141592653589793
SOLAR_MASS = 4.0 * PI * PI
DAYS_PER_YEAR = 365.24

# The energy after each known number of steps, in doubles (1 and 250000 are
# the suite's own values; the others are this code's, the same in Lua 5.4,
# LuaJIT and CPython).
KNOWN = {
    1: -0.16907495402506745,
    1000: -0.169087605234606,
    10000: -0.16901644126443094,
    100000: -0.16907985939165887,
    250000: -0.1690859889909308,
}


class Body:
    def __init__(self, x, y, z, vx, vy, vz, mass):
        self.x = x
        self.y = y
        self.z = z
        self.vx = vx * DAYS_PER_YEAR
        self.vy = vy * DAYS_PER_YEAR
        self.vz = vz * DAYS_PER_YEAR
        self.mass = mass * SOLAR_MASS

    def offset_momentum(self, px, py, pz):
        self.vx = 0.0 - (px / SOLAR_MASS)
        self.vy = 0.0 - (py / SOLAR_MASS)
        self.vz = 0.0 - (pz / SOLAR_MASS)


# The four planets' positions (AU), velocities (AU/day) and masses (solar
# masses), as the Computer Language Benchmarks Game gives them.
def jupiter():
    return Body(4.84143144246472090e00, -1.16032004402742839e00, -1.03622044471123109e-01,
                1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
                9.54791938424326609e-04)


def saturn():
    return Body(8.34336671824457987e00, 4.12479856412430479e00, -4.03523417114321381e-01,
                -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
                2.85885980666130812e-04)


def uranus():
    return Body(1.28943695621391310e01, -1.51111514016986312e01, -2.23307578892655734e-01,
                2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
                4.36624404335156298e-05)


def neptune():
    return Body(1.53796971148509165e01, -2.59193146099879641e01, 1.79258772950371181e-01,
                2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
                5.15138902046611451e-05)


def sun():
    return Body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


class NBodySystem:
    def __init__(self):
        self.bodies = self.create_bodies()

    def create_bodies(self):
        bodies = [sun(), jupiter(), saturn(), uranus(), neptune()]
        px = py = pz = 0.0
        for b in bodies:
            px += b.vx * b.mass
            py += b.vy * b.mass
            pz += b.vz * b.mass
        bodies[0].offset_momentum(px, py, pz)
        return bodies

    # As the suite writes it: the bodies are read through self.bodies in
    # every loop, and the square root is the library's.
    def advance(self, dt):
        for i in range(len(self.bodies)):
            ib = self.bodies[i]
            for j in range(i + 1, len(self.bodies)):
                jb = self.bodies[j]
                dx = ib.x - jb.x
                dy = ib.y - jb.y
                dz = ib.z - jb.z
                dsq = dx * dx + dy * dy + dz * dz
                distance = sqrt(dsq)
                mag = dt / (dsq * distance)
                ib.vx = ib.vx - dx * jb.mass * mag
                ib.vy = ib.vy - dy * jb.mass * mag
                ib.vz = ib.vz - dz * jb.mass * mag
                jb.vx = jb.vx + dx * ib.mass * mag
                jb.vy = jb.vy + dy * ib.mass * mag
                jb.vz = jb.vz + dz * ib.mass * mag
        for b in self.bodies:
            b.x = b.x + dt * b.vx
            b.y = b.y + dt * b.vy
            b.z = b.z + dt * b.vz

    def energy(self):
        e = 0.0
        for i in range(len(self.bodies)):
            ib = self.bodies[i]
            e = e + 0.5 * ib.mass * (ib.vx * ib.vx + ib.vy * ib.vy + ib.vz * ib.vz)
            for j in range(i + 1, len(self.bodies)):
                jb = self.bodies[j]
                dx = ib.x - jb.x
                dy = ib.y - jb.y
                dz = ib.z - jb.z
                distance = sqrt(dx * dx + dy * dy + dz * dz)
                e = e - (ib.mass * jb.mass) / distance
        return e


class NBody(Benchmark):
    def inner_benchmark_loop(self, inner_iterations):
        system = NBodySystem()
        for _ in range(inner_iterations):
            system.advance(0.01)
        energy = system.energy()
        # The result printed: the energy in the .bc's fixed point (times
        # 2^24, rounded), near the VM's own but not equal to it.
        self.last_result = floor(energy * 16777216 + 0.5)
        return self.verify_result_sized(energy, inner_iterations)

    def verify_result_sized(self, energy, inner_iterations):
        if EXPECTED != 0:
            return self.last_result == EXPECTED
        if inner_iterations in KNOWN:
            return energy == KNOWN[inner_iterations]
        print("No verification result for this size; the result is:")
        print(self.last_result)
        return False


if __name__ == "__main__":
    run(NBody(), "NBody", 1000)

# oo_small_calls.py - peer of ../oo_small_calls.bc: particles moved through
# getter/setter methods, 100 particles, 30,000 rounds.


class Particle:
    def __init__(self):
        self.x = 0
        self.v = 0

    def get_x(self):
        return self.x

    def set_x(self, value):
        self.x = value

    def get_v(self):
        return self.v

    def set_v(self, value):
        self.v = value

    def mass(self):
        return 1

    def move(self):
        x = self.get_x() + self.get_v()
        if x >= 10000:
            x = x - 10000
        self.set_x(x)


class Heavy(Particle):
    def mass(self):
        return 3


def main():
    particles = []
    for i in range(100):
        p = Heavy() if i % 3 == 0 else Particle()
        p.set_x(i * 37 % 10000)
        p.set_v(i % 7 + 1)
        particles.append(p)
    total = 0
    for _ in range(30000):
        for p in particles:
            p.move()
            total += p.mass() * p.get_x()
    print(total)


main()

# bounce.py - the Python twin of programs/awfy/src/bounce.bc (Are We Fast
# Yet: Bounce): 100 balls, 50 steps in a 500x500 box; 1331 bounces.
# Usage: python3 bounce.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run
from som import Random


class Ball:
    def __init__(self, random):
        self.x = random.next() % 500
        self.y = random.next() % 500
        self.x_vel = (random.next() % 300) - 150
        self.y_vel = (random.next() % 300) - 150

    def bounce(self):
        x_limit = 500
        y_limit = 500
        bounced = False
        self.x += self.x_vel
        self.y += self.y_vel
        if self.x > x_limit:
            self.x = x_limit
            self.x_vel = 0 - abs(self.x_vel)
            bounced = True
        if self.x < 0:
            self.x = 0
            self.x_vel = abs(self.x_vel)
            bounced = True
        if self.y > y_limit:
            self.y = y_limit
            self.y_vel = 0 - abs(self.y_vel)
            bounced = True
        if self.y < 0:
            self.y = 0
            self.y_vel = abs(self.y_vel)
            bounced = True
        return bounced


class Bounce(Benchmark):
    def benchmark(self):
        random = Random()
        ball_count = 100
        bounces = 0
        balls = [None] * ball_count
        for i in range(ball_count):
            balls[i] = Ball(random)
        for _ in range(50):
            for ball in balls:
                if ball.bounce():
                    bounces += 1
        return bounces

    def verify_result(self, result):
        return result == expect(1331)


if __name__ == "__main__":
    run(Bounce(), "Bounce", 1)

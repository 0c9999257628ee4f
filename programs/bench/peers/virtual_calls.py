# virtual_calls.py - peer of ../virtual_calls.bc: a polymorphic method-call
# loop over four Shape subclasses, 1,000 shapes, 10,000 rounds.


class Shape:
    def area(self):
        return 0


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


class Rect(Shape):
    def __init__(self, w, h):
        self.w = w
        self.h = h

    def area(self):
        return self.w * self.h


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return self.r * self.r * 3


class Triangle(Shape):
    def __init__(self, base, height):
        self.base = base
        self.height = height

    def area(self):
        return self.base * self.height // 2


def make_shapes(n):
    shapes = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            s = Square(i % 10 + 1)
        elif kind == 1:
            s = Rect(i % 7 + 1, i % 5 + 1)
        elif kind == 2:
            s = Circle(i % 6 + 1)
        else:
            s = Triangle(i % 8 + 1, i % 9 + 1)
        shapes.append(s)
    return shapes


def total_area(shapes):
    total = 0
    for s in shapes:
        total += s.area()
    return total


def main():
    shapes = make_shapes(1000)
    one_pass = total_area(shapes)
    total = 0
    for _ in range(10000):
        total += total_area(shapes)
    print(one_pass)
    print(total)


main()

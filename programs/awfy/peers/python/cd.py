# cd.py - peer of ../../src/cd.bc: the CD collision-detection benchmark with
# the same classes, methods, checks and output, in the same 16.16 fixed-point
# integer arithmetic as the .bc (see its header), so the counts agree exactly.
# Usage: python3 cd.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run
from som import Vector

F = 65536                       # 1.0
MIN_X = 0
MIN_Y = 0
MAX_X = 1000 * F
MAX_Y = 1000 * F
MIN_Z = 0
MAX_Z = 10 * F
PROXIMITY_RADIUS = F
GOOD_VOXEL_SIZE = 2 * F
INFINITY = 1 << 60
TWO_PI = 411775                 # round(2 pi F)
PI = 205887                     # round(pi F)


def tdiv(a, b):
    """Integer division truncating toward zero (the VM's div)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def fx_mul(a, b):
    return (a * b) >> 16


def fx_div(a, b):
    return tdiv(a * F, b)


def isqrt(n):
    if n < 2:
        return n
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


def fx_sqrt(a):
    return isqrt(a * F)


def reduce_angle(t):
    t = t - tdiv(t, TWO_PI) * TWO_PI
    if t < 0:
        t += TWO_PI
    if t > PI:
        t -= TWO_PI
    return t


def fx_sin(t):
    x = reduce_angle(t)
    term = x
    total = x
    for k in range(1, 10):
        term = -tdiv(fx_mul(fx_mul(term, x), x), (2 * k) * (2 * k + 1))
        total += term
    return total


def fx_cos(t):
    x = reduce_angle(t)
    term = F
    total = F
    for k in range(1, 10):
        term = -tdiv(fx_mul(fx_mul(term, x), x), (2 * k - 1) * (2 * k))
        total += term
    return total


def compare_numbers(a, b):
    if a == b:
        return 0
    if a < b:
        return -1
    return 1


class Vector2D:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def plus(self, other):
        return Vector2D(self.x + other.x, self.y + other.y)

    def minus(self, other):
        return Vector2D(self.x - other.x, self.y - other.y)

    def compare_to(self, other):
        result = compare_numbers(self.x, other.x)
        if result != 0:
            return result
        return compare_numbers(self.y, other.y)


class Vector3D:
    def __init__(self, x, y, z):
        self.x = x
        self.y = y
        self.z = z

    def plus(self, other):
        return Vector3D(self.x + other.x, self.y + other.y, self.z + other.z)

    def minus(self, other):
        return Vector3D(self.x - other.x, self.y - other.y, self.z - other.z)

    def dot(self, other):
        return fx_mul(self.x, other.x) + fx_mul(self.y, other.y) + fx_mul(self.z, other.z)

    def squared_magnitude(self):
        return self.dot(self)

    def magnitude(self):
        return fx_sqrt(self.squared_magnitude())

    def times(self, amount):
        return Vector3D(fx_mul(self.x, amount), fx_mul(self.y, amount), fx_mul(self.z, amount))


def horizontal():
    return Vector2D(GOOD_VOXEL_SIZE, 0)


def vertical():
    return Vector2D(0, GOOD_VOXEL_SIZE)


RED, BLACK = 1, 2


def tree_minimum(x):
    current = x
    while current.left is not None:
        current = current.left
    return current


class Node:
    def __init__(self, key, value):
        self.key = key
        self.value = value
        self.left = None
        self.right = None
        self.parent = None
        self.color = RED

    def successor(self):
        x = self
        if x.right is not None:
            return tree_minimum(x.right)
        y = x.parent
        while y is not None and x is y.right:
            x = y
            y = y.parent
        return y


class Entry:
    def __init__(self, key, value):
        self.key = key
        self.value = value


class InsertResult:
    def __init__(self, is_new_entry, new_node, old_value):
        self.is_new_entry = is_new_entry
        self.new_node = new_node
        self.old_value = old_value


def is_black(n):
    return n is None or n.color == BLACK


class RedBlackTree:
    def __init__(self):
        self.root = None

    def put(self, key, value):
        insertion = self.tree_insert(key, value)
        if not insertion.is_new_entry:
            return insertion.old_value
        x = insertion.new_node
        while x is not self.root and x.parent.color == RED:
            if x.parent is x.parent.parent.left:
                y = x.parent.parent.right
                if y is not None and y.color == RED:
                    x.parent.color = BLACK
                    y.color = BLACK
                    x.parent.parent.color = RED
                    x = x.parent.parent
                else:
                    if x is x.parent.right:
                        x = x.parent
                        self.left_rotate(x)
                    x.parent.color = BLACK
                    x.parent.parent.color = RED
                    self.right_rotate(x.parent.parent)
            else:
                y = x.parent.parent.left
                if y is not None and y.color == RED:
                    x.parent.color = BLACK
                    y.color = BLACK
                    x.parent.parent.color = RED
                    x = x.parent.parent
                else:
                    if x is x.parent.left:
                        x = x.parent
                        self.right_rotate(x)
                    x.parent.color = BLACK
                    x.parent.parent.color = RED
                    self.left_rotate(x.parent.parent)
        self.root.color = BLACK
        return None

    def remove(self, key):
        z = self.find_node(key)
        if z is None:
            return None
        y = z if z.left is None or z.right is None else z.successor()
        x = y.left if y.left is not None else y.right
        if x is not None:
            x.parent = y.parent
            x_parent = x.parent
        else:
            x_parent = y.parent
        if y.parent is None:
            self.root = x
        elif y is y.parent.left:
            y.parent.left = x
        else:
            y.parent.right = x
        if y is not z:
            if y.color == BLACK:
                self.remove_fixup(x, x_parent)
            y.parent = z.parent
            y.color = z.color
            y.left = z.left
            y.right = z.right
            if z.left is not None:
                z.left.parent = y
            if z.right is not None:
                z.right.parent = y
            if z.parent is not None:
                if z.parent.left is z:
                    z.parent.left = y
                else:
                    z.parent.right = y
            else:
                self.root = y
        elif y.color == BLACK:
            self.remove_fixup(x, x_parent)
        return z.value

    def get(self, key):
        node = self.find_node(key)
        return None if node is None else node.value

    def for_each(self, fn):
        if self.root is None:
            return
        current = tree_minimum(self.root)
        while current is not None:
            fn(Entry(current.key, current.value))
            current = current.successor()

    def find_node(self, key):
        current = self.root
        while current is not None:
            c = key.compare_to(current.key)
            if c == 0:
                return current
            current = current.left if c < 0 else current.right
        return None

    def tree_insert(self, key, value):
        y = None
        x = self.root
        while x is not None:
            y = x
            c = key.compare_to(x.key)
            if c < 0:
                x = x.left
            elif c > 0:
                x = x.right
            else:
                old_value = x.value
                x.value = value
                return InsertResult(False, None, old_value)
        z = Node(key, value)
        z.parent = y
        if y is None:
            self.root = z
        elif key.compare_to(y.key) < 0:
            y.left = z
        else:
            y.right = z
        return InsertResult(True, z, None)

    def left_rotate(self, x):
        y = x.right
        x.right = y.left
        if y.left is not None:
            y.left.parent = x
        y.parent = x.parent
        if x.parent is None:
            self.root = y
        elif x is x.parent.left:
            x.parent.left = y
        else:
            x.parent.right = y
        y.left = x
        x.parent = y
        return y

    def right_rotate(self, y):
        x = y.left
        y.left = x.right
        if x.right is not None:
            x.right.parent = y
        x.parent = y.parent
        if y.parent is None:
            self.root = x
        elif y is y.parent.left:
            y.parent.left = x
        else:
            y.parent.right = x
        x.right = y
        y.parent = x
        return x

    def remove_fixup(self, x, x_parent):
        while x is not self.root and is_black(x):
            if x is x_parent.left:
                w = x_parent.right
                if w.color == RED:
                    w.color = BLACK
                    x_parent.color = RED
                    self.left_rotate(x_parent)
                    w = x_parent.right
                if is_black(w.left) and is_black(w.right):
                    w.color = RED
                    x = x_parent
                    x_parent = x.parent
                else:
                    if is_black(w.right):
                        w.left.color = BLACK
                        w.color = RED
                        self.right_rotate(w)
                        w = x_parent.right
                    w.color = x_parent.color
                    x_parent.color = BLACK
                    if w.right is not None:
                        w.right.color = BLACK
                    self.left_rotate(x_parent)
                    x = self.root
                    x_parent = x.parent
            else:
                w = x_parent.left
                if w.color == RED:
                    w.color = BLACK
                    x_parent.color = RED
                    self.right_rotate(x_parent)
                    w = x_parent.left
                if is_black(w.right) and is_black(w.left):
                    w.color = RED
                    x = x_parent
                    x_parent = x.parent
                else:
                    if is_black(w.left):
                        w.right.color = BLACK
                        w.color = RED
                        self.left_rotate(w)
                        w = x_parent.left
                    w.color = x_parent.color
                    x_parent.color = BLACK
                    if w.left is not None:
                        w.left.color = BLACK
                    self.right_rotate(x_parent)
                    x = self.root
                    x_parent = x.parent
        if x is not None:
            x.color = BLACK


class CallSign:
    def __init__(self, value):
        self.value = value

    def compare_to(self, other):
        if self.value == other.value:
            return 0
        if self.value < other.value:
            return -1
        return 1


class Collision:
    def __init__(self, aircraft_a, aircraft_b, position):
        self.aircraft_a = aircraft_a
        self.aircraft_b = aircraft_b
        self.position = position


def in_unit_range(low, high):
    """(low <= 1 <= high) or (low <= 0 <= high) or (0 <= low and high <= 1)."""
    return (low <= F and F <= high) or (low <= 0 and 0 <= high) or (0 <= low and high <= F)


def is_in_voxel(voxel, motion):
    if voxel.x > MAX_X or voxel.x < MIN_X or voxel.y > MAX_Y or voxel.y < MIN_Y:
        return False
    init = motion.pos_one
    fin = motion.pos_two
    v_s = GOOD_VOXEL_SIZE
    r = PROXIMITY_RADIUS // 2
    v_x = voxel.x
    x0 = init.x
    xv = fin.x - init.x
    v_y = voxel.y
    y0 = init.y
    yv = fin.y - init.y
    if xv == 0:
        low_x = -INFINITY if v_x - r - x0 < 0 else INFINITY
        high_x = -INFINITY if v_x + v_s + r - x0 < 0 else INFINITY
    else:
        low_x = fx_div(v_x - r - x0, xv)
        high_x = fx_div(v_x + v_s + r - x0, xv)
    if xv < 0:
        low_x, high_x = high_x, low_x
    if yv == 0:
        low_y = -INFINITY if v_y - r - y0 < 0 else INFINITY
        high_y = -INFINITY if v_y + v_s + r - y0 < 0 else INFINITY
    else:
        low_y = fx_div(v_y - r - y0, yv)
        high_y = fx_div(v_y + v_s + r - y0, yv)
    if yv < 0:
        low_y, high_y = high_y, low_y
    in_x = (xv == 0 and v_x <= x0 + r and x0 - r <= v_x + v_s) or in_unit_range(low_x, high_x)
    in_y = (yv == 0 and v_y <= y0 + r and y0 - r <= v_y + v_s) or in_unit_range(low_y, high_y)
    overlap = (xv == 0 or yv == 0
               or (low_y <= high_x and high_x <= high_y)
               or (low_y <= low_x and low_x <= high_y)
               or (low_x <= low_y and high_y <= high_x))
    return in_x and in_y and overlap


def put_into_map(voxel_map, voxel, motion):
    array = voxel_map.get(voxel)
    if array is None:
        array = Vector()
        voxel_map.put(voxel, array)
    array.append(motion)


def recurse(voxel_map, seen, next_voxel, motion):
    if not is_in_voxel(next_voxel, motion):
        return
    if seen.put(next_voxel, True) is not None:
        return
    put_into_map(voxel_map, next_voxel, motion)
    recurse(voxel_map, seen, next_voxel.minus(horizontal()), motion)
    recurse(voxel_map, seen, next_voxel.plus(horizontal()), motion)
    recurse(voxel_map, seen, next_voxel.minus(vertical()), motion)
    recurse(voxel_map, seen, next_voxel.plus(vertical()), motion)
    recurse(voxel_map, seen, next_voxel.minus(horizontal()).minus(vertical()), motion)
    recurse(voxel_map, seen, next_voxel.minus(horizontal()).plus(vertical()), motion)
    recurse(voxel_map, seen, next_voxel.plus(horizontal()).minus(vertical()), motion)
    recurse(voxel_map, seen, next_voxel.plus(horizontal()).plus(vertical()), motion)


def reduce_collision_set(motions):
    voxel_map = RedBlackTree()
    for i in range(motions.size()):
        draw_motion_on_voxel_map(voxel_map, motions.at(i))
    result = Vector()

    def each(e):
        if e.value.size() > 1:
            result.append(e.value)
    voxel_map.for_each(each)
    return result


def voxel_hash(position):
    x_div = tdiv(position.x, GOOD_VOXEL_SIZE)
    y_div = tdiv(position.y, GOOD_VOXEL_SIZE)
    x = GOOD_VOXEL_SIZE * x_div
    y = GOOD_VOXEL_SIZE * y_div
    if position.x < 0:
        x -= GOOD_VOXEL_SIZE
    if position.y < 0:
        y -= GOOD_VOXEL_SIZE
    return Vector2D(x, y)


def draw_motion_on_voxel_map(voxel_map, motion):
    seen = RedBlackTree()
    recurse(voxel_map, seen, voxel_hash(motion.pos_one), motion)


class Motion:
    def __init__(self, call_sign, pos_one, pos_two):
        self.call_sign = call_sign
        self.pos_one = pos_one
        self.pos_two = pos_two

    def delta(self):
        return self.pos_two.minus(self.pos_one)

    def find_intersection(self, other):
        init1 = self.pos_one
        init2 = other.pos_one
        vec1 = self.delta()
        vec2 = other.delta()
        radius = PROXIMITY_RADIUS
        a = vec2.minus(vec1).squared_magnitude()
        if a != 0:
            b = 2 * init1.minus(init2).dot(vec1.minus(vec2))
            c = -fx_mul(radius, radius) + init2.minus(init1).squared_magnitude()
            discr = fx_mul(b, b) - fx_mul(4 * a, c)
            if discr < 0:
                return None
            root = fx_sqrt(discr)
            v1 = fx_div(-b - root, 2 * a)
            v2 = fx_div(-b + root, 2 * a)
            if v1 <= v2 and in_unit_range(v1, v2):
                v = 0 if v1 <= 0 else v1
                result1 = init1.plus(vec1.times(v))
                result2 = init2.plus(vec2.times(v))
                result = result1.plus(result2).times(F // 2)
                if (MIN_X <= result.x <= MAX_X and MIN_Y <= result.y <= MAX_Y
                        and MIN_Z <= result.z <= MAX_Z):
                    return result
            return None
        dist = init2.minus(init1).magnitude()
        if dist <= radius:
            return init1.plus(init2).times(F // 2)
        return None


class Aircraft:
    def __init__(self, call_sign, position):
        self.call_sign = call_sign
        self.position = position


class CollisionDetector:
    def __init__(self):
        self.state = RedBlackTree()

    def handle_new_frame(self, frame):
        motions = Vector()
        seen = RedBlackTree()
        for i in range(frame.size()):
            aircraft = frame.at(i)
            old_position = self.state.put(aircraft.call_sign, aircraft.position)
            new_position = aircraft.position
            seen.put(aircraft.call_sign, True)
            if old_position is None:
                old_position = new_position
            motions.append(Motion(aircraft.call_sign, old_position, new_position))
        to_remove = Vector()

        def for_removal(e):
            if not seen.get(e.key):
                to_remove.append(e.key)
        self.state.for_each(for_removal)
        for i in range(to_remove.size()):
            self.state.remove(to_remove.at(i))
        all_reduced = reduce_collision_set(motions)
        collisions = Vector()
        for k in range(all_reduced.size()):
            reduced = all_reduced.at(k)
            for i in range(reduced.size()):
                motion1 = reduced.at(i)
                for j in range(i + 1, reduced.size()):
                    motion2 = reduced.at(j)
                    collision = motion1.find_intersection(motion2)
                    if collision is not None:
                        collisions.append(Collision(motion1.call_sign, motion2.call_sign, collision))
        return collisions


class Simulator:
    def __init__(self, num_aircraft):
        self.aircraft = Vector()
        for i in range(num_aircraft):
            self.aircraft.append(CallSign(i))

    def simulate(self, time):
        frame = Vector()
        for i in range(0, self.aircraft.size(), 2):
            frame.append(Aircraft(self.aircraft.at(i), Vector3D(time, fx_cos(time) * 2 + i * 3 * F, 10 * F)))
            frame.append(Aircraft(self.aircraft.at(i + 1), Vector3D(time, fx_sin(time) * 2 + i * 3 * F, 10 * F)))
        return frame


EXPECTED = {1000: 14484, 500: 14484, 250: 10830, 200: 8655, 100: 4305, 10: 390, 2: 42}


class CD(Benchmark):
    def benchmark_with(self, num_aircraft):
        num_frames = 200
        simulator = Simulator(num_aircraft)
        detector = CollisionDetector()
        actual_collisions = 0
        for i in range(num_frames):
            time = tdiv(i * F, 10)
            collisions = detector.handle_new_frame(simulator.simulate(time))
            actual_collisions += collisions.size()
        return actual_collisions

    def inner_benchmark_loop(self, inner_iterations):
        result = self.benchmark_with(inner_iterations)
        self.last_result = result
        return self.verify_cd(result, inner_iterations)

    def verify_cd(self, actual_collisions, num_aircraft):
        if num_aircraft not in EXPECTED:
            print("No verification result for")
            print(num_aircraft)
            print("Result is:")
            print(actual_collisions)
            return False
        return actual_collisions == expect(EXPECTED[num_aircraft])


run(CD(), "CD", 10)

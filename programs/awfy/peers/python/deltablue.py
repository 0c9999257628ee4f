# deltablue.py - peer of ../../src/deltablue.bc: the DeltaBlue constraint
# solver with the same classes, methods, checks and output. Python lists stand
# for the som Vector; todo lists are worked first-in first-out with a head
# index, as the som Vector's remove_first does in the .bc.
# Usage: python3 deltablue.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run

STRENGTH_VALUES = [-10000, -800, -600, -400, -200, 0, 500, 10000]
REQUIRED, PREFERRED, STRONG_DEFAULT, DEFAULT, ABSOLUTE_WEAKEST = 1, 3, 4, 5, 7
NONE, FORWARD, BACKWARD = 0, 1, 2


class Strength:
    def __init__(self, k):
        self.symbolic_value = k
        self.arithmetic_value = STRENGTH_VALUES[k]

    def same_as(self, s):
        return self.arithmetic_value == s.arithmetic_value

    def stronger(self, s):
        return self.arithmetic_value < s.arithmetic_value

    def weaker(self, s):
        return self.arithmetic_value > s.arithmetic_value

    def strongest(self, s):
        return s if s.stronger(self) else self

    def weakest(self, s):
        return s if s.weaker(self) else self


def strength_of(k):
    return Strength(k)


def sort_range(s, i, j, compare):
    """The som Vector's sort of s[i..j] (som/vector.bc): median of three,
    then partition; the same comparisons and swaps as the .bc."""
    n = j + 1 - i
    if n <= 1:
        return
    di = s[i]
    dj = s[j]
    if compare(di, dj) > 0:
        s[i], s[j] = s[j], s[i]
        di, dj = dj, di
    if n <= 2:
        return
    ij = (i + j) // 2
    dij = s[ij]
    if compare(di, dij) <= 0:
        if compare(dij, dj) > 0:
            s[j], s[ij] = s[ij], s[j]
            dij = dj
    else:
        s[i], s[ij] = s[ij], s[i]
        dij = di
    if n <= 3:
        return
    k = i
    l = j - 1
    while True:
        while k <= l and compare(dij, s[l]) <= 0:
            l -= 1
        k += 1
        while k <= l and compare(s[k], dij) <= 0:
            k += 1
        if k > l:
            break
        s[k], s[l] = s[l], s[k]
    sort_range(s, i, l, compare)
    sort_range(s, k, j, compare)


def som_sort(items, compare):
    if items:
        sort_range(items, 0, len(items) - 1, compare)


class Variable:
    def __init__(self, value=0):
        self.value = value
        self.constraints = []
        self.determined_by = None
        self.mark = 0
        self.walk_strength = strength_of(ABSOLUTE_WEAKEST)
        self.stay = True

    def add_constraint(self, c):
        self.constraints.append(c)

    def remove_constraint(self, c):
        self.constraints = [x for x in self.constraints if x is not c]
        if self.determined_by is c:
            self.determined_by = None


class AbstractConstraint:
    def is_input(self):
        return False

    def add_constraint(self, planner):
        self.add_to_graph()
        planner.incremental_add(self)

    def destroy_constraint(self, planner):
        if self.is_satisfied():
            planner.incremental_remove(self)
        self.remove_from_graph()

    def inputs_known(self, mark):
        return not self.inputs_has_one(
            lambda v: not (v.mark == mark or v.stay or v.determined_by is None))

    def satisfy(self, mark, planner):
        self.choose_method(mark)
        if self.is_satisfied():
            def mark_input(v):
                v.mark = mark
            self.inputs_do(mark_input)
            out = self.get_output()
            overridden = out.determined_by
            if overridden is not None:
                overridden.mark_unsatisfied()
            out.determined_by = self
            if not planner.add_propagate(self, mark):
                raise Exception("Cycle encountered")
            out.mark = mark
            return overridden
        if self.strength.same_as(strength_of(REQUIRED)):
            raise Exception("Could not satisfy a required constraint")
        return None


class BinaryConstraint(AbstractConstraint):
    def __init__(self, var1, var2, strength):
        self.strength = strength_of(strength)
        self.v1 = var1
        self.v2 = var2
        self.direction = NONE

    def is_satisfied(self):
        return self.direction != NONE

    def add_to_graph(self):
        self.v1.add_constraint(self)
        self.v2.add_constraint(self)
        self.direction = NONE

    def remove_from_graph(self):
        if self.v1 is not None:
            self.v1.remove_constraint(self)
        if self.v2 is not None:
            self.v2.remove_constraint(self)
        self.direction = NONE

    def choose_method(self, mark):
        v1, v2 = self.v1, self.v2
        if v1.mark == mark:
            if v2.mark != mark and self.strength.stronger(v2.walk_strength):
                d = FORWARD
            else:
                d = NONE
        elif v2.mark == mark:
            if self.strength.stronger(v1.walk_strength):
                d = BACKWARD
            else:
                d = NONE
        elif v1.walk_strength.weaker(v2.walk_strength):
            d = BACKWARD if self.strength.stronger(v1.walk_strength) else NONE
        else:
            d = FORWARD if self.strength.stronger(v2.walk_strength) else NONE
        self.direction = d
        return d

    def inputs_do(self, fn):
        if self.direction == FORWARD:
            fn(self.v1)
        else:
            fn(self.v2)

    def inputs_has_one(self, fn):
        if self.direction == FORWARD:
            return fn(self.v1)
        return fn(self.v2)

    def mark_unsatisfied(self):
        self.direction = NONE

    def get_output(self):
        return self.v2 if self.direction == FORWARD else self.v1

    def recalculate(self):
        if self.direction == FORWARD:
            inp, out = self.v1, self.v2
        else:
            inp, out = self.v2, self.v1
        out.walk_strength = self.strength.weakest(inp.walk_strength)
        out.stay = inp.stay
        if out.stay:
            self.execute()


class EqualityConstraint(BinaryConstraint):
    def __init__(self, var1, var2, strength, planner):
        super().__init__(var1, var2, strength)
        self.add_constraint(planner)

    def execute(self):
        if self.direction == FORWARD:
            self.v2.value = self.v1.value
        else:
            self.v1.value = self.v2.value


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class ScaleConstraint(BinaryConstraint):
    def __init__(self, src, scale, offset, dest, strength, planner):
        super().__init__(src, dest, strength)
        self.scale = scale
        self.offset = offset
        self.add_constraint(planner)

    def add_to_graph(self):
        self.v1.add_constraint(self)
        self.v2.add_constraint(self)
        self.scale.add_constraint(self)
        self.offset.add_constraint(self)
        self.direction = NONE

    def remove_from_graph(self):
        if self.v1 is not None:
            self.v1.remove_constraint(self)
        if self.v2 is not None:
            self.v2.remove_constraint(self)
        if self.scale is not None:
            self.scale.remove_constraint(self)
        if self.offset is not None:
            self.offset.remove_constraint(self)
        self.direction = NONE

    def execute(self):
        if self.direction == FORWARD:
            self.v2.value = self.v1.value * self.scale.value + self.offset.value
        else:
            self.v1.value = trunc_div(self.v2.value - self.offset.value, self.scale.value)

    def inputs_do(self, fn):
        if self.direction == FORWARD:
            fn(self.v1)
        else:
            fn(self.v2)
        fn(self.scale)
        fn(self.offset)

    def recalculate(self):
        if self.direction == FORWARD:
            inp, out = self.v1, self.v2
        else:
            inp, out = self.v2, self.v1
        out.walk_strength = self.strength.weakest(inp.walk_strength)
        out.stay = inp.stay and self.scale.stay and self.offset.stay
        if out.stay:
            self.execute()


class UnaryConstraint(AbstractConstraint):
    def __init__(self, v, strength, planner):
        self.strength = strength_of(strength)
        self.output = v
        self.satisfied = False
        self.add_constraint(planner)

    def is_satisfied(self):
        return self.satisfied

    def add_to_graph(self):
        self.output.add_constraint(self)
        self.satisfied = False

    def remove_from_graph(self):
        if self.output is not None:
            self.output.remove_constraint(self)
        self.satisfied = False

    def choose_method(self, mark):
        self.satisfied = (self.output.mark != mark
                          and self.strength.stronger(self.output.walk_strength))

    def inputs_do(self, fn):
        pass

    def inputs_has_one(self, fn):
        return False

    def mark_unsatisfied(self):
        self.satisfied = False

    def get_output(self):
        return self.output

    def recalculate(self):
        self.output.walk_strength = self.strength
        self.output.stay = not self.is_input()
        if self.output.stay:
            self.execute()


class EditConstraint(UnaryConstraint):
    def is_input(self):
        return True

    def execute(self):
        pass


class StayConstraint(UnaryConstraint):
    def execute(self):
        pass


class Plan(list):
    def execute(self):
        for c in self:
            c.execute()


class Planner:
    def __init__(self):
        self.current_mark = 1

    def new_mark(self):
        self.current_mark += 1
        return self.current_mark

    def incremental_add(self, c):
        mark = self.new_mark()
        overridden = c.satisfy(mark, self)
        while overridden is not None:
            overridden = overridden.satisfy(mark, self)

    def incremental_remove(self, c):
        out = c.get_output()
        c.mark_unsatisfied()
        c.remove_from_graph()
        for u in self.remove_propagate_from(out):
            self.incremental_add(u)

    def extract_plan_from_constraints(self, constraints):
        sources = [c for c in constraints if c.is_input() and c.is_satisfied()]
        return self.make_plan(sources)

    def make_plan(self, sources):
        mark = self.new_mark()
        plan = Plan()
        todo, head = sources, 0
        while head < len(todo):
            c = todo[head]
            head += 1
            out = c.get_output()
            if out.mark != mark and c.inputs_known(mark):
                plan.append(c)
                out.mark = mark
                self.add_constraints_consuming_to(out, todo)
        return plan

    def add_constraints_consuming_to(self, v, coll):
        determining = v.determined_by
        for c in v.constraints:
            if c is not determining and c.is_satisfied():
                coll.append(c)

    def add_propagate(self, c, mark):
        todo, head = [c], 0
        while head < len(todo):
            d = todo[head]
            head += 1
            if d.get_output().mark == mark:
                self.incremental_remove(c)
                return False
            d.recalculate()
            self.add_constraints_consuming_to(d.get_output(), todo)
        return True

    def change(self, var, new_value):
        edit = EditConstraint(var, PREFERRED, self)
        plan = self.extract_plan_from_constraints([edit])
        for _ in range(10):
            var.value = new_value
            plan.execute()
        edit.destroy_constraint(self)

    def constraints_consuming(self, v, fn):
        determining = v.determined_by
        for c in v.constraints:
            if c is not determining and c.is_satisfied():
                fn(c)

    def remove_propagate_from(self, out):
        unsatisfied = []
        out.determined_by = None
        out.walk_strength = strength_of(ABSOLUTE_WEAKEST)
        out.stay = True
        todo = [out]

        def recalculate(c):
            c.recalculate()
            todo.append(c.get_output())

        head = 0
        while head < len(todo):
            v = todo[head]
            head += 1
            for c in v.constraints:
                if not c.is_satisfied():
                    unsatisfied.append(c)
            self.constraints_consuming(v, recalculate)
        som_sort(unsatisfied, lambda a, b: a.strength.arithmetic_value - b.strength.arithmetic_value)
        return unsatisfied


def chain_test(n):
    planner = Planner()
    variables = [Variable(0) for _ in range(n + 1)]
    for i in range(n):
        EqualityConstraint(variables[i], variables[i + 1], REQUIRED, planner)
    StayConstraint(variables[n], STRONG_DEFAULT, planner)
    edit = EditConstraint(variables[0], PREFERRED, planner)
    plan = planner.extract_plan_from_constraints([edit])
    for i in range(100):
        variables[0].value = i
        plan.execute()
        if variables[n].value != i:
            print("Chain test failed!")
            return False
    edit.destroy_constraint(planner)
    return True


def projection_test(n):
    planner = Planner()
    dests = []
    scale = Variable(10)
    offset = Variable(1000)
    src = dst = None
    for i in range(1, n + 1):
        src = Variable(i)
        dst = Variable(i)
        dests.append(dst)
        StayConstraint(src, DEFAULT, planner)
        ScaleConstraint(src, scale, offset, dst, REQUIRED, planner)
    planner.change(src, 17)
    if dst.value != expect(1170):
        print("Projection test 1 failed!")
        return False
    planner.change(dst, 1050)
    if src.value != 5:
        print("Projection test 2 failed!")
        return False
    planner.change(scale, 5)
    for i in range(n - 1):
        if dests[i].value != (i + 1) * 5 + 1000:
            print("Projection test 3 failed!")
            return False
    planner.change(offset, 2000)
    for i in range(n - 1):
        if dests[i].value != (i + 1) * 5 + 2000:
            print("Projection test 4 failed!")
            return False
    return True


class DeltaBlue(Benchmark):
    def inner_benchmark_loop(self, inner_iterations):
        if not chain_test(inner_iterations) or not projection_test(inner_iterations):
            return False
        self.last_result = 1
        return True


run(DeltaBlue(), "DeltaBlue", 100)

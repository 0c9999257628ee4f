# havlak.py - peer of ../../src/havlak.bc: Havlak's loop recognition with the
# same classes, methods, checks and output, on the som collections of
# som.py (the suite's closures are Python closures here).
# Usage: python3 havlak.py [iterations [inner [expected]]]
import sys

from harness import Benchmark, expect, run
from som import IdentityDictionary, IdentitySet, Set, Vector

sys.setrecursionlimit(20000)

UNVISITED = 2147483647
MAXNONBACKPREDS = 32768
BB_NONHEADER, BB_REDUCIBLE, BB_SELF, BB_IRREDUCIBLE, BB_DEAD = 1, 2, 3, 4, 5


class BasicBlock:
    def __init__(self, name):
        self.name = name
        self.in_edges = Vector(2)
        self.out_edges = Vector(2)

    def get_num_pred(self):
        return self.in_edges.size()

    def add_out_edge(self, to):
        self.out_edges.append(to)

    def add_in_edge(self, from_):
        self.in_edges.append(from_)

    def custom_hash(self):
        return self.name


class BasicBlockEdge:
    def __init__(self, cfg, from_name, to_name):
        self.from_ = cfg.create_node(from_name)
        self.to = cfg.create_node(to_name)
        self.from_.add_out_edge(self.to)
        self.to.add_in_edge(self.from_)
        cfg.add_edge(self)


class ControlFlowGraph:
    def __init__(self):
        self.start_basic_block = None
        self.basic_blocks = Vector()
        self.edge_list = Vector()

    def create_node(self, name):
        node = self.basic_blocks.at(name)
        if not node:
            node = BasicBlock(name)
            self.basic_blocks.at_put(name, node)
        if self.num_nodes() == 1:
            self.start_basic_block = node
        return node

    def add_edge(self, edge):
        self.edge_list.append(edge)

    def num_nodes(self):
        return self.basic_blocks.size()


class SimpleLoop:
    def __init__(self, bb, is_reducible):
        self.is_reducible = is_reducible
        self.parent = None
        self.is_root = False
        self.nesting_level = 0
        self.depth_level = 0
        self.counter = 0
        self.basic_blocks = IdentitySet()
        self.children = IdentitySet()
        if bb is not None:
            self.basic_blocks.add(bb)
        self.header = bb

    def add_node(self, bb):
        self.basic_blocks.add(bb)

    def add_child_loop(self, loop):
        self.children.add(loop)

    def set_parent(self, parent):
        self.parent = parent
        parent.add_child_loop(self)

    def set_nesting_level(self, level):
        self.nesting_level = level
        if level == 0:
            self.is_root = True


class LoopStructureGraph:
    def __init__(self):
        self.loop_counter = 0
        self.loops = Vector()
        self.root = SimpleLoop(None, True)
        self.root.set_nesting_level(0)
        self.root.counter = self.loop_counter
        self.loop_counter += 1
        self.loops.append(self.root)

    def create_new_loop(self, bb, is_reducible):
        loop = SimpleLoop(bb, is_reducible)
        loop.counter = self.loop_counter
        self.loop_counter += 1
        self.loops.append(loop)
        return loop

    def calculate_nesting_level(self):
        def each(liter):
            if not liter.is_root and liter.parent is None:
                liter.set_parent(self.root)
        self.loops.for_each(each)
        self.calculate_nesting_level_rec(self.root, 0)

    def calculate_nesting_level_rec(self, loop, depth):
        loop.depth_level = depth

        def each(liter):
            self.calculate_nesting_level_rec(liter, depth + 1)
            loop.set_nesting_level(max(loop.nesting_level, 1 + liter.nesting_level))
        loop.children.for_each(each)

    def num_loops(self):
        return self.loops.size()


class UnionFindNode:
    def __init__(self):
        self.parent = None
        self.bb = None
        self.dfs_number = 0
        self.loop = None

    def init_node(self, bb, dfs_number):
        self.parent = self
        self.bb = bb
        self.dfs_number = dfs_number
        self.loop = None

    def find_set(self):
        node_list = Vector()
        node = self
        while node is not node.parent:
            if node.parent is not node.parent.parent:
                node_list.append(node)
            node = node.parent
        parent = self.parent
        node_list.for_each(lambda n: n.union(parent))
        return node

    def union(self, basic_block):
        self.parent = basic_block


class HavlakLoopFinder:
    def __init__(self, cfg, lsg):
        self.cfg = cfg
        self.lsg = lsg
        self.non_back_preds = Vector()
        self.back_preds = Vector()
        self.number = IdentityDictionary()
        self.max_size = 0
        self.header = None
        self.type = None
        self.last = None
        self.nodes = None

    def is_ancestor(self, w, v):
        return w <= v <= self.last[w]

    def do_dfs(self, current_node, current):
        self.nodes[current].init_node(current_node, current)
        self.number.at_put(current_node, current)
        last_id = current

        def each(target):
            nonlocal last_id
            if self.number.at(target) == UNVISITED:
                last_id = self.do_dfs(target, last_id + 1)
        current_node.out_edges.for_each(each)
        self.last[current] = last_id
        return last_id

    def init_all_nodes(self):
        self.cfg.basic_blocks.for_each(lambda bb: self.number.at_put(bb, UNVISITED))
        self.do_dfs(self.cfg.start_basic_block, 0)

    def identify_edges(self, size):
        for w in range(size):
            self.header[w] = 0
            self.type[w] = BB_NONHEADER
            node_w = self.nodes[w].bb
            if node_w is None:
                self.type[w] = BB_DEAD
            else:
                self.process_edges(node_w, w)

    def process_edges(self, node_w, w):
        if node_w.get_num_pred() > 0:
            def each(node_v):
                v = self.number.at(node_v)
                if v != UNVISITED:
                    if self.is_ancestor(w, v):
                        self.back_preds.at(w).append(v)
                    else:
                        self.non_back_preds.at(w).add(v)
            node_w.in_edges.for_each(each)

    def find_loops(self):
        if self.cfg.start_basic_block is None:
            return
        size = self.cfg.num_nodes()
        self.non_back_preds.remove_all()
        self.back_preds.remove_all()
        self.number.remove_all()
        if size > self.max_size:
            self.header = [0] * size
            self.type = [0] * size
            self.last = [0] * size
            self.nodes = [None] * size
            self.max_size = size
        for i in range(size):
            self.non_back_preds.append(Set())
            self.back_preds.append(Vector())
            self.nodes[i] = UnionFindNode()
        self.init_all_nodes()
        self.identify_edges(size)
        self.header[0] = 0
        for w in range(size - 1, -1, -1):
            node_pool = Vector()
            node_w = self.nodes[w].bb
            if node_w is not None:
                self.step_d(w, node_pool)
                work_list = Vector()
                node_pool.for_each(work_list.append)
                if node_pool.size() != 0:
                    self.type[w] = BB_REDUCIBLE
                while not work_list.is_empty():
                    x = work_list.remove_first()
                    if self.non_back_preds.at(x.dfs_number).size() > MAXNONBACKPREDS:
                        return
                    self.step_e_process_non_back_preds(w, node_pool, work_list, x)
            if node_pool.size() > 0 or self.type[w] == BB_SELF:
                loop = self.lsg.create_new_loop(node_w, self.type[w] != BB_IRREDUCIBLE)
                self.set_loop_attributes(w, node_pool, loop)

    def step_e_process_non_back_preds(self, w, node_pool, work_list, x):
        def each(i):
            ydash = self.nodes[i].find_set()
            if not self.is_ancestor(w, ydash.dfs_number):
                self.type[w] = BB_IRREDUCIBLE
                self.non_back_preds.at(w).add(ydash.dfs_number)
            elif ydash.dfs_number != w:
                work_list.append(ydash)
                node_pool.append(ydash)
        self.non_back_preds.at(x.dfs_number).for_each(each)

    def set_loop_attributes(self, w, node_pool, loop):
        self.nodes[w].loop = loop

        def each(node):
            self.header[node.dfs_number] = w
            node.union(self.nodes[w])
            if node.loop is not None:
                node.loop.set_parent(loop)
            else:
                loop.add_node(node.bb)
        node_pool.for_each(each)

    def step_d(self, w, node_pool):
        def each(v):
            if v != w:
                node_pool.append(self.nodes[v].find_set())
            else:
                self.type[w] = BB_SELF
        self.back_preds.at(w).for_each(each)


class LoopTesterApp:
    def __init__(self):
        self.cfg = ControlFlowGraph()
        self.lsg = LoopStructureGraph()
        self.cfg.create_node(0)

    def build_diamond(self, start):
        BasicBlockEdge(self.cfg, start, start + 1)
        BasicBlockEdge(self.cfg, start, start + 2)
        BasicBlockEdge(self.cfg, start + 1, start + 3)
        BasicBlockEdge(self.cfg, start + 2, start + 3)
        return start + 3

    def build_connect(self, start, end):
        BasicBlockEdge(self.cfg, start, end)

    def build_straight(self, start, n):
        for i in range(n):
            self.build_connect(start + i, start + i + 1)
        return start + n

    def build_base_loop(self, from_):
        header = self.build_straight(from_, 1)
        diamond1 = self.build_diamond(header)
        d11 = self.build_straight(diamond1, 1)
        diamond2 = self.build_diamond(d11)
        footer = self.build_straight(diamond2, 1)
        self.build_connect(diamond2, d11)
        self.build_connect(diamond1, header)
        self.build_connect(footer, from_)
        return self.build_straight(footer, 1)

    def main(self, num_dummy_loops, find_loop_iterations, par_loops, ppar_loops, pppar_loops):
        self.construct_simple_cfg()
        self.add_dummy_loops(num_dummy_loops)
        self.construct_cfg(par_loops, ppar_loops, pppar_loops)
        self.find_loops_in(self.lsg)
        for _ in range(find_loop_iterations):
            self.find_loops_in(LoopStructureGraph())
        self.lsg.calculate_nesting_level()
        return [self.lsg.num_loops(), self.cfg.num_nodes()]

    def construct_cfg(self, par_loops, ppar_loops, pppar_loops):
        n = 2
        for _ in range(par_loops):
            self.cfg.create_node(n + 1)
            self.build_connect(2, n + 1)
            n += 1
            for _ in range(ppar_loops):
                top = n
                n = self.build_straight(n, 1)
                for _ in range(pppar_loops):
                    n = self.build_base_loop(n)
                bottom = self.build_straight(n, 1)
                self.build_connect(n, top)
                n = bottom
            self.build_connect(n, 1)

    def add_dummy_loops(self, num_dummy_loops):
        for _ in range(num_dummy_loops):
            self.find_loops_in(self.lsg)

    def find_loops_in(self, loop_structure):
        HavlakLoopFinder(self.cfg, loop_structure).find_loops()

    def construct_simple_cfg(self):
        self.cfg.create_node(0)
        self.build_base_loop(0)
        self.cfg.create_node(1)
        BasicBlockEdge(self.cfg, 0, 2)


EXPECTED_LOOPS = {15000: 46602, 1500: 6102, 150: 2052, 15: 1647, 1: 1605}


class Havlak(Benchmark):
    def inner_benchmark_loop(self, inner_iterations):
        result = LoopTesterApp().main(inner_iterations, 50, 10, 10, 5)
        self.last_result = result[0]
        return self.verify_havlak(result, inner_iterations)

    def verify_havlak(self, result, inner_iterations):
        if inner_iterations not in EXPECTED_LOOPS:
            print("No verification result for")
            print(inner_iterations)
            print("Result is:")
            print(result[0])
            print(result[1])
            return False
        return result[0] == expect(EXPECTED_LOOPS[inner_iterations]) and result[1] == 5213


run(Havlak(), "Havlak", 1)

# binary_trees.py - peer of ../binary_trees.bc: the binary-trees benchmark,
# max depth 16, printing the same numbers (one per line).


class Node:
    __slots__ = ("left", "right")

    def __init__(self):
        self.left = None
        self.right = None


def bottom_up_tree(depth):
    node = Node()
    if depth != 0:
        node.left = bottom_up_tree(depth - 1)
        node.right = bottom_up_tree(depth - 1)
    return node


def check(node):
    if node.left is None:
        return 1
    return check(node.left) + check(node.right) + 1


def main():
    max_depth = 16
    print(check(bottom_up_tree(max_depth + 1)))
    long_lived = bottom_up_tree(max_depth)
    for depth in range(4, max_depth + 1, 2):
        iterations = 1 << (max_depth - depth + 4)
        total = 0
        for _ in range(iterations):
            total += check(bottom_up_tree(depth))
        print(iterations)
        print(depth)
        print(total)
    print(check(long_lived))


main()

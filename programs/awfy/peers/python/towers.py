# towers.py - the Python twin of programs/awfy/src/towers.bc (Are We Fast
# Yet: Towers): the towers of Hanoi with 13 disks; 8191 moves.
# Usage: python3 towers.py [iterations [inner [expected]]]

from harness import Benchmark, expect, run


class TowersDisk:
    def __init__(self, size):
        self.size = size
        self.next = None


class Towers(Benchmark):
    def __init__(self):
        super().__init__()
        self.piles = None
        self.moves_done = 0

    def push_disk(self, disk, pile):
        top = self.piles[pile]
        if top is not None and disk.size >= top.size:
            raise Exception("a larger disk cannot go on a smaller one")
        disk.next = top
        self.piles[pile] = disk

    def pop_disk_from(self, pile):
        top = self.piles[pile]
        if top is None:
            raise Exception("no disk to take from an empty pile")
        self.piles[pile] = top.next
        top.next = None
        return top

    def move_top_disk(self, from_pile, to_pile):
        self.push_disk(self.pop_disk_from(from_pile), to_pile)
        self.moves_done += 1

    def build_tower_at(self, pile, disks):
        for i in range(disks, -1, -1):
            self.push_disk(TowersDisk(i), pile)

    def move_disks(self, disks, from_pile, to_pile):
        if disks == 1:
            self.move_top_disk(from_pile, to_pile)
        else:
            other_pile = (3 - from_pile) - to_pile
            self.move_disks(disks - 1, from_pile, other_pile)
            self.move_top_disk(from_pile, to_pile)
            self.move_disks(disks - 1, other_pile, to_pile)

    def benchmark(self):
        self.piles = [None, None, None]
        self.build_tower_at(0, 13)
        self.moves_done = 0
        self.move_disks(13, 0, 1)
        return self.moves_done

    def verify_result(self, result):
        return result == expect(8191)


if __name__ == "__main__":
    run(Towers(), "Towers", 1)

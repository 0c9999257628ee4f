# som.py - the Python twin of programs/awfy/som/*.bc: the shared som classes.


class Random:
    def __init__(self):
        self.seed = 74755

    def next(self):
        self.seed = ((self.seed * 1309) + 13849) & 65535
        return self.seed

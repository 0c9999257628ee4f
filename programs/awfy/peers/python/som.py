# som.py - the Python twin of programs/awfy/som/*.bc: the shared som classes:
# Random, and the collections Vector, Set, IdentitySet, Dictionary,
# IdentityDictionary with the same semantics as the .bc ones (Vector.at reads
# the storage index itself and answers None past the storage; at_put grows).


class Random:
    def __init__(self):
        self.seed = 74755

    def next(self):
        self.seed = ((self.seed * 1309) + 13849) & 65535
        return self.seed


INITIAL_SIZE = 10


class Vector:
    def __init__(self, capacity=INITIAL_SIZE):
        self.storage = [None] * max(capacity, 1)
        self.first_idx = 0
        self.last_idx = 0

    def at(self, i):
        if i >= len(self.storage):
            return None
        return self.storage[i]

    def at_put(self, i, x):
        if i >= len(self.storage):
            n = len(self.storage)
            while n <= i:
                n *= 2
            self.storage = self.storage + [None] * (n - len(self.storage))
        self.storage[i] = x
        if self.last_idx < i + 1:
            self.last_idx = i + 1

    def append(self, x):
        if self.last_idx >= len(self.storage):
            self.storage = self.storage + [None] * len(self.storage)
        self.storage[self.last_idx] = x
        self.last_idx += 1
        return self

    def is_empty(self):
        return self.last_idx == self.first_idx

    def size(self):
        return self.last_idx - self.first_idx

    def first(self):
        return None if self.is_empty() else self.storage[self.first_idx]

    def remove_first(self):
        if self.is_empty():
            return None
        self.first_idx += 1
        return self.storage[self.first_idx - 1]

    def remove_all(self):
        self.first_idx = 0
        self.last_idx = 0
        self.storage = [None] * len(self.storage)

    def for_each(self, block):
        for i in range(self.first_idx, self.last_idx):
            block(self.storage[i])

    def has_some(self, block):
        for i in range(self.first_idx, self.last_idx):
            if block(self.storage[i]):
                return True
        return False


class Set:
    def __init__(self, capacity=INITIAL_SIZE):
        self.items = Vector(capacity)

    def size(self):
        return self.items.size()

    def for_each(self, block):
        self.items.for_each(block)

    def has_some(self, block):
        return self.items.has_some(block)

    def add(self, x):
        if not self.contains(x):
            self.items.append(x)

    def contains(self, x):
        return self.has_some(lambda e: e == x)


class IdentitySet(Set):
    def contains(self, x):
        return self.has_some(lambda e: e is x)


class Entry:
    def __init__(self, hash_, key, value):
        self.hash = hash_
        self.key = key
        self.value = value
        self.next = None

    def match(self, hash_, key):
        return self.hash == hash_ and key == self.key


class IdEntry(Entry):
    def match(self, hash_, key):
        return self.hash == hash_ and key is self.key


def dictionary_hash(key):
    if key is None:
        return 0
    h = key.custom_hash()
    return h ^ ((h & 0xFFFFFFFF) >> 16)


class Dictionary:
    def __init__(self, capacity=16):
        self.buckets = [None] * capacity
        self.size_ = 0

    def size(self):
        return self.size_

    def is_empty(self):
        return self.size_ == 0

    def get_bucket_idx(self, hash_):
        return (len(self.buckets) - 1) & hash_

    def at(self, key):
        hash_ = dictionary_hash(key)
        e = self.buckets[self.get_bucket_idx(hash_)]
        while e is not None:
            if e.match(hash_, key):
                return e.value
            e = e.next
        return None

    def contains_key(self, key):
        hash_ = dictionary_hash(key)
        e = self.buckets[self.get_bucket_idx(hash_)]
        while e is not None:
            if e.match(hash_, key):
                return True
            e = e.next
        return False

    def at_put(self, key, value):
        hash_ = dictionary_hash(key)
        i = self.get_bucket_idx(hash_)
        current = self.buckets[i]
        if current is None:
            self.buckets[i] = self.new_entry(key, value, hash_)
            self.size_ += 1
        else:
            self.insert_bucket_entry(key, value, hash_, current)
        if self.size_ > len(self.buckets):
            self.resize()

    def new_entry(self, key, value, hash_):
        return Entry(hash_, key, value)

    def insert_bucket_entry(self, key, value, hash_, head):
        current = head
        while True:
            if current.match(hash_, key):
                current.value = value
                return
            if current.next is None:
                self.size_ += 1
                current.next = self.new_entry(key, value, hash_)
                return
            current = current.next

    def resize(self):
        old = self.buckets
        self.buckets = [None] * (len(old) * 2)
        self.transfer_entries(old)

    def transfer_entries(self, old):
        for i in range(len(old)):
            current = old[i]
            if current is not None:
                old[i] = None
                if current.next is None:
                    self.buckets[current.hash & (len(self.buckets) - 1)] = current
                else:
                    self.split_bucket(old, i, current)

    def split_bucket(self, old, i, head):
        lo_head = lo_tail = hi_head = hi_tail = None
        current = head
        while current is not None:
            if current.hash & len(old) == 0:
                if lo_tail is None:
                    lo_head = current
                else:
                    lo_tail.next = current
                lo_tail = current
            else:
                if hi_tail is None:
                    hi_head = current
                else:
                    hi_tail.next = current
                hi_tail = current
            current = current.next
        if lo_tail is not None:
            lo_tail.next = None
            self.buckets[i] = lo_head
        if hi_tail is not None:
            hi_tail.next = None
            self.buckets[i + len(old)] = hi_head

    def remove_all(self):
        self.buckets = [None] * len(self.buckets)
        self.size_ = 0


class IdentityDictionary(Dictionary):
    def new_entry(self, key, value, hash_):
        return IdEntry(hash_, key, value)

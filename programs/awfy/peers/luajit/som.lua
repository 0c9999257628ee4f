-- som.lua - the LuaJIT twin of programs/awfy/som/*.bc: the shared som classes:
-- Random, and the collections Vector, Set, IdentitySet, Dictionary,
-- IdentityDictionary with the same semantics as the .bc ones (Vector:at reads
-- the storage index itself, 0-based, and answers nil past the storage;
-- at_put grows). As ../lua/som.lua, with LuaJIT's 32-bit bit library for
-- Lua 5.4's 64-bit & ~ >>: Random's seed stays below 2^27, and a hash is
-- only ever masked to its low bits or compared, so the buckets and the
-- entries they hold are the same (Havlak, the one user, hashes block
-- numbers below 2^13, where the two hash functions agree exactly).

local som = {}

local band, bxor, rshift = bit.band, bit.bxor, bit.rshift

local Random = {}
Random.__index = Random
som.Random = Random

function Random.new()
    return setmetatable({ seed = 74755 }, Random)
end

function Random:next()
    self.seed = band((self.seed * 1309) + 13849, 65535)
    return self.seed
end

local INITIAL_SIZE = 10

local function class(super)
  local c = {}
  c.__index = c
  if super then setmetatable(c, super) end
  return c
end
som.class = class

local Vector = class()
som.Vector = Vector
function Vector.new(capacity)
  capacity = capacity or INITIAL_SIZE
  if capacity < 1 then capacity = 1 end
  return setmetatable({storage = {}, capacity = capacity, first_idx = 0, last_idx = 0}, Vector)
end
function Vector:at(i)
  if i >= self.capacity then return nil end
  return self.storage[i + 1]
end
function Vector:at_put(i, x)
  if i >= self.capacity then
    local n = self.capacity
    while n <= i do n = n * 2 end
    self.capacity = n
  end
  self.storage[i + 1] = x
  if self.last_idx < i + 1 then self.last_idx = i + 1 end
end
function Vector:append(x)
  if self.last_idx >= self.capacity then self.capacity = self.capacity * 2 end
  self.storage[self.last_idx + 1] = x
  self.last_idx = self.last_idx + 1
  return self
end
function Vector:is_empty() return self.last_idx == self.first_idx end
function Vector:size() return self.last_idx - self.first_idx end
function Vector:first()
  if self:is_empty() then return nil end
  return self.storage[self.first_idx + 1]
end
function Vector:remove_first()
  if self:is_empty() then return nil end
  self.first_idx = self.first_idx + 1
  return self.storage[self.first_idx]
end
function Vector:remove_all()
  self.first_idx = 0
  self.last_idx = 0
  self.storage = {}
end
function Vector:for_each(block)
  local s = self.storage
  for i = self.first_idx + 1, self.last_idx do block(s[i]) end
end
function Vector:has_some(block)
  local s = self.storage
  for i = self.first_idx + 1, self.last_idx do
    if block(s[i]) then return true end
  end
  return false
end

local Set = class()
som.Set = Set
function Set.new(capacity) return setmetatable({items = Vector.new(capacity)}, Set) end
function Set:size() return self.items:size() end
function Set:for_each(block) self.items:for_each(block) end
function Set:has_some(block) return self.items:has_some(block) end
function Set:add(x)
  if not self:contains(x) then self.items:append(x) end
end
function Set:contains(x) return self:has_some(function(e) return e == x end) end

local IdentitySet = class(Set)
som.IdentitySet = IdentitySet
function IdentitySet.new(capacity) return setmetatable({items = Vector.new(capacity)}, IdentitySet) end
function IdentitySet:contains(x) return self:has_some(function(e) return rawequal(e, x) end) end

local Entry = class()
function Entry.new(hash, key, value) return setmetatable({hash = hash, key = key, value = value, next = nil}, Entry) end
function Entry:match(hash, key) return self.hash == hash and key == self.key end
local IdEntry = class(Entry)
function IdEntry.new(hash, key, value) return setmetatable({hash = hash, key = key, value = value, next = nil}, IdEntry) end
function IdEntry:match(hash, key) return self.hash == hash and rawequal(key, self.key) end

local function dictionary_hash(key)
  if key == nil then return 0 end
  local h = key:custom_hash()
  return bxor(h, rshift(h, 16))
end

local Dictionary = class()
som.Dictionary = Dictionary
function Dictionary.init(d, capacity)
  d.buckets = {}
  d.nbuckets = capacity or 16
  d.size_ = 0
  return d
end
function Dictionary.new(capacity) return Dictionary.init(setmetatable({}, Dictionary), capacity) end
function Dictionary:size() return self.size_ end
function Dictionary:is_empty() return self.size_ == 0 end
function Dictionary:get_bucket_idx(hash) return band(self.nbuckets - 1, hash) end
function Dictionary:at(key)
  local hash = dictionary_hash(key)
  local e = self.buckets[self:get_bucket_idx(hash)]
  while e ~= nil do
    if e:match(hash, key) then return e.value end
    e = e.next
  end
  return nil
end
function Dictionary:contains_key(key)
  local hash = dictionary_hash(key)
  local e = self.buckets[self:get_bucket_idx(hash)]
  while e ~= nil do
    if e:match(hash, key) then return true end
    e = e.next
  end
  return false
end
function Dictionary:at_put(key, value)
  local hash = dictionary_hash(key)
  local i = self:get_bucket_idx(hash)
  local current = self.buckets[i]
  if current == nil then
    self.buckets[i] = self:new_entry(key, value, hash)
    self.size_ = self.size_ + 1
  else
    self:insert_bucket_entry(key, value, hash, current)
  end
  if self.size_ > self.nbuckets then self:resize() end
end
function Dictionary:new_entry(key, value, hash) return Entry.new(hash, key, value) end
function Dictionary:insert_bucket_entry(key, value, hash, head)
  local current = head
  while true do
    if current:match(hash, key) then
      current.value = value
      return
    end
    if current.next == nil then
      self.size_ = self.size_ + 1
      current.next = self:new_entry(key, value, hash)
      return
    end
    current = current.next
  end
end
function Dictionary:resize()
  local old, old_n = self.buckets, self.nbuckets
  self.buckets = {}
  self.nbuckets = old_n * 2
  self:transfer_entries(old, old_n)
end
function Dictionary:transfer_entries(old, old_n)
  for i = 0, old_n - 1 do
    local current = old[i]
    if current ~= nil then
      old[i] = nil
      if current.next == nil then
        self.buckets[band(current.hash, self.nbuckets - 1)] = current
      else
        self:split_bucket(old_n, i, current)
      end
    end
  end
end
function Dictionary:split_bucket(old_n, i, head)
  local lo_head, lo_tail, hi_head, hi_tail
  local current = head
  while current ~= nil do
    if band(current.hash, old_n) == 0 then
      if lo_tail == nil then lo_head = current else lo_tail.next = current end
      lo_tail = current
    else
      if hi_tail == nil then hi_head = current else hi_tail.next = current end
      hi_tail = current
    end
    current = current.next
  end
  if lo_tail ~= nil then
    lo_tail.next = nil
    self.buckets[i] = lo_head
  end
  if hi_tail ~= nil then
    hi_tail.next = nil
    self.buckets[i + old_n] = hi_head
  end
end
function Dictionary:remove_all()
  self.buckets = {}
  self.size_ = 0
end

local IdentityDictionary = class(Dictionary)
som.IdentityDictionary = IdentityDictionary
function IdentityDictionary.new(capacity) return Dictionary.init(setmetatable({}, IdentityDictionary), capacity) end
function IdentityDictionary:new_entry(key, value, hash) return IdEntry.new(hash, key, value) end

return som

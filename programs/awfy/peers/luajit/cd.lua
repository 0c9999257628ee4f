-- cd.lua - LuaJIT peer of ../../src/cd.bc: the CD collision-detection
-- benchmark with the same classes, methods, checks and output, in the same
-- 16.16 fixed-point integer arithmetic as the .bc (see its header), so the
-- counts agree exactly.
-- Usage: luajit -joff cd.lua [iterations [inner [expected]]]
--
-- As ../lua/cd.lua, in LuaJIT's doubles: a // b is math.floor(a / b), and
-- INFINITY (2^60, only ever compared) is written 2^60. Doubles hold
-- integers exactly below 2^53, and floor(a / b) of such integers is exact.
-- The largest values are fx_mul's products, which grow with the number of
-- aircraft: at most 2^41.2 at 200 aircraft (the timing size), 2^42.0 at
-- 500 and 1000 (measured); fx_div's and fx_sqrt's a * 2^16, and tdiv's
-- dividends, stay below 2^34.4.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")
local som = require("som")
local class, Vector = som.class, som.Vector

local F = 65536
local MIN_X, MIN_Y, MAX_X, MAX_Y, MIN_Z, MAX_Z = 0, 0, 1000 * F, 1000 * F, 0, 10 * F
local PROXIMITY_RADIUS = F
local GOOD_VOXEL_SIZE = 2 * F
local INFINITY = 2 ^ 60
local TWO_PI, PI = 411775, 205887

-- Integer division truncating toward zero (the VM's div).
local floor = math.floor
local function tdiv(a, b)
  local q = floor(math.abs(a) / math.abs(b))
  if (a < 0) == (b < 0) then return q end
  return -q
end
local function fx_mul(a, b) return floor((a * b) / 65536) end
local function fx_div(a, b) return tdiv(a * F, b) end
local function isqrt(n)
  if n < 2 then return n end
  local x = n
  local y = floor((x + 1) / 2)
  while y < x do
    x = y
    y = floor((x + floor(n / x)) / 2)
  end
  return x
end
local function fx_sqrt(a) return isqrt(a * F) end
local function reduce_angle(t)
  t = t - tdiv(t, TWO_PI) * TWO_PI
  if t < 0 then t = t + TWO_PI end
  if t > PI then t = t - TWO_PI end
  return t
end
local function fx_sin(t)
  local x = reduce_angle(t)
  local term, total = x, x
  for k = 1, 9 do
    term = -tdiv(fx_mul(fx_mul(term, x), x), (2 * k) * (2 * k + 1))
    total = total + term
  end
  return total
end
local function fx_cos(t)
  local x = reduce_angle(t)
  local term, total = F, F
  for k = 1, 9 do
    term = -tdiv(fx_mul(fx_mul(term, x), x), (2 * k - 1) * (2 * k))
    total = total + term
  end
  return total
end
local function compare_numbers(a, b)
  if a == b then return 0 end
  if a < b then return -1 end
  return 1
end

local Vector2D = class()
function Vector2D.new(x, y) return setmetatable({x = x, y = y}, Vector2D) end
function Vector2D:plus(o) return Vector2D.new(self.x + o.x, self.y + o.y) end
function Vector2D:minus(o) return Vector2D.new(self.x - o.x, self.y - o.y) end
function Vector2D:compare_to(o)
  local result = compare_numbers(self.x, o.x)
  if result ~= 0 then return result end
  return compare_numbers(self.y, o.y)
end
local function horizontal() return Vector2D.new(GOOD_VOXEL_SIZE, 0) end
local function vertical() return Vector2D.new(0, GOOD_VOXEL_SIZE) end

local Vector3D = class()
function Vector3D.new(x, y, z) return setmetatable({x = x, y = y, z = z}, Vector3D) end
function Vector3D:plus(o) return Vector3D.new(self.x + o.x, self.y + o.y, self.z + o.z) end
function Vector3D:minus(o) return Vector3D.new(self.x - o.x, self.y - o.y, self.z - o.z) end
function Vector3D:dot(o) return fx_mul(self.x, o.x) + fx_mul(self.y, o.y) + fx_mul(self.z, o.z) end
function Vector3D:squared_magnitude() return self:dot(self) end
function Vector3D:magnitude() return fx_sqrt(self:squared_magnitude()) end
function Vector3D:times(amount)
  return Vector3D.new(fx_mul(self.x, amount), fx_mul(self.y, amount), fx_mul(self.z, amount))
end

local RED, BLACK = 1, 2

local function tree_minimum(x)
  local current = x
  while current.left ~= nil do current = current.left end
  return current
end

local Node = class()
function Node.new(key, value) return setmetatable({key = key, value = value, color = RED}, Node) end
function Node:successor()
  local x = self
  if x.right ~= nil then return tree_minimum(x.right) end
  local y = x.parent
  while y ~= nil and x == y.right do
    x = y
    y = y.parent
  end
  return y
end

local function is_black(n) return n == nil or n.color == BLACK end

local RedBlackTree = class()
function RedBlackTree.new() return setmetatable({root = nil}, RedBlackTree) end

function RedBlackTree:put(key, value)
  local is_new, x, old_value = self:tree_insert(key, value)
  if not is_new then return old_value end
  while x ~= self.root and x.parent.color == RED do
    if x.parent == x.parent.parent.left then
      local y = x.parent.parent.right
      if y ~= nil and y.color == RED then
        x.parent.color = BLACK
        y.color = BLACK
        x.parent.parent.color = RED
        x = x.parent.parent
      else
        if x == x.parent.right then
          x = x.parent
          self:left_rotate(x)
        end
        x.parent.color = BLACK
        x.parent.parent.color = RED
        self:right_rotate(x.parent.parent)
      end
    else
      local y = x.parent.parent.left
      if y ~= nil and y.color == RED then
        x.parent.color = BLACK
        y.color = BLACK
        x.parent.parent.color = RED
        x = x.parent.parent
      else
        if x == x.parent.left then
          x = x.parent
          self:right_rotate(x)
        end
        x.parent.color = BLACK
        x.parent.parent.color = RED
        self:left_rotate(x.parent.parent)
      end
    end
  end
  self.root.color = BLACK
  return nil
end

function RedBlackTree:remove(key)
  local z = self:find_node(key)
  if z == nil then return nil end
  local y
  if z.left == nil or z.right == nil then y = z else y = z:successor() end
  local x
  if y.left ~= nil then x = y.left else x = y.right end
  local x_parent
  if x ~= nil then
    x.parent = y.parent
    x_parent = x.parent
  else
    x_parent = y.parent
  end
  if y.parent == nil then
    self.root = x
  elseif y == y.parent.left then
    y.parent.left = x
  else
    y.parent.right = x
  end
  if y ~= z then
    if y.color == BLACK then self:remove_fixup(x, x_parent) end
    y.parent = z.parent
    y.color = z.color
    y.left = z.left
    y.right = z.right
    if z.left ~= nil then z.left.parent = y end
    if z.right ~= nil then z.right.parent = y end
    if z.parent ~= nil then
      if z.parent.left == z then z.parent.left = y else z.parent.right = y end
    else
      self.root = y
    end
  elseif y.color == BLACK then
    self:remove_fixup(x, x_parent)
  end
  return z.value
end

function RedBlackTree:get(key)
  local node = self:find_node(key)
  if node == nil then return nil end
  return node.value
end

function RedBlackTree:for_each(fn)
  if self.root == nil then return end
  local current = tree_minimum(self.root)
  while current ~= nil do
    fn({key = current.key, value = current.value})
    current = current:successor()
  end
end

function RedBlackTree:find_node(key)
  local current = self.root
  while current ~= nil do
    local c = key:compare_to(current.key)
    if c == 0 then return current end
    if c < 0 then current = current.left else current = current.right end
  end
  return nil
end

-- Returns is_new_entry, new_node, old_value (the suite's InsertResult).
function RedBlackTree:tree_insert(key, value)
  local y = nil
  local x = self.root
  while x ~= nil do
    y = x
    local c = key:compare_to(x.key)
    if c < 0 then
      x = x.left
    elseif c > 0 then
      x = x.right
    else
      local old_value = x.value
      x.value = value
      return false, nil, old_value
    end
  end
  local z = Node.new(key, value)
  z.parent = y
  if y == nil then
    self.root = z
  elseif key:compare_to(y.key) < 0 then
    y.left = z
  else
    y.right = z
  end
  return true, z, nil
end

function RedBlackTree:left_rotate(x)
  local y = x.right
  x.right = y.left
  if y.left ~= nil then y.left.parent = x end
  y.parent = x.parent
  if x.parent == nil then
    self.root = y
  elseif x == x.parent.left then
    x.parent.left = y
  else
    x.parent.right = y
  end
  y.left = x
  x.parent = y
  return y
end

function RedBlackTree:right_rotate(y)
  local x = y.left
  y.left = x.right
  if x.right ~= nil then x.right.parent = y end
  x.parent = y.parent
  if y.parent == nil then
    self.root = x
  elseif y == y.parent.left then
    y.parent.left = x
  else
    y.parent.right = x
  end
  x.right = y
  y.parent = x
  return x
end

function RedBlackTree:remove_fixup(x, x_parent)
  while x ~= self.root and is_black(x) do
    if x == x_parent.left then
      local w = x_parent.right
      if w.color == RED then
        w.color = BLACK
        x_parent.color = RED
        self:left_rotate(x_parent)
        w = x_parent.right
      end
      if is_black(w.left) and is_black(w.right) then
        w.color = RED
        x = x_parent
        x_parent = x.parent
      else
        if is_black(w.right) then
          w.left.color = BLACK
          w.color = RED
          self:right_rotate(w)
          w = x_parent.right
        end
        w.color = x_parent.color
        x_parent.color = BLACK
        if w.right ~= nil then w.right.color = BLACK end
        self:left_rotate(x_parent)
        x = self.root
        x_parent = x.parent
      end
    else
      local w = x_parent.left
      if w.color == RED then
        w.color = BLACK
        x_parent.color = RED
        self:right_rotate(x_parent)
        w = x_parent.left
      end
      if is_black(w.right) and is_black(w.left) then
        w.color = RED
        x = x_parent
        x_parent = x.parent
      else
        if is_black(w.left) then
          w.right.color = BLACK
          w.color = RED
          self:left_rotate(w)
          w = x_parent.left
        end
        w.color = x_parent.color
        x_parent.color = BLACK
        if w.left ~= nil then w.left.color = BLACK end
        self:right_rotate(x_parent)
        x = self.root
        x_parent = x.parent
      end
    end
  end
  if x ~= nil then x.color = BLACK end
end

local CallSign = class()
function CallSign.new(value) return setmetatable({value = value}, CallSign) end
function CallSign:compare_to(o) return compare_numbers(self.value, o.value) end

local Collision = class()
function Collision.new(a, b, position)
  return setmetatable({aircraft_a = a, aircraft_b = b, position = position}, Collision)
end

local function in_unit_range(low, high)
  return (low <= F and F <= high) or (low <= 0 and 0 <= high) or (0 <= low and high <= F)
end

local function is_in_voxel(voxel, motion)
  if voxel.x > MAX_X or voxel.x < MIN_X or voxel.y > MAX_Y or voxel.y < MIN_Y then return false end
  local init, fin = motion.pos_one, motion.pos_two
  local v_s = GOOD_VOXEL_SIZE
  local r = floor(PROXIMITY_RADIUS / 2)
  local v_x, x0, xv = voxel.x, init.x, fin.x - init.x
  local v_y, y0, yv = voxel.y, init.y, fin.y - init.y
  local low_x, high_x, low_y, high_y
  if xv == 0 then
    low_x = (v_x - r - x0 < 0) and -INFINITY or INFINITY
    high_x = (v_x + v_s + r - x0 < 0) and -INFINITY or INFINITY
  else
    low_x = fx_div(v_x - r - x0, xv)
    high_x = fx_div(v_x + v_s + r - x0, xv)
  end
  if xv < 0 then low_x, high_x = high_x, low_x end
  if yv == 0 then
    low_y = (v_y - r - y0 < 0) and -INFINITY or INFINITY
    high_y = (v_y + v_s + r - y0 < 0) and -INFINITY or INFINITY
  else
    low_y = fx_div(v_y - r - y0, yv)
    high_y = fx_div(v_y + v_s + r - y0, yv)
  end
  if yv < 0 then low_y, high_y = high_y, low_y end
  local in_x = (xv == 0 and v_x <= x0 + r and x0 - r <= v_x + v_s) or in_unit_range(low_x, high_x)
  local in_y = (yv == 0 and v_y <= y0 + r and y0 - r <= v_y + v_s) or in_unit_range(low_y, high_y)
  local overlap = xv == 0 or yv == 0
    or (low_y <= high_x and high_x <= high_y)
    or (low_y <= low_x and low_x <= high_y)
    or (low_x <= low_y and high_y <= high_x)
  return in_x and in_y and overlap
end

local function put_into_map(voxel_map, voxel, motion)
  local array = voxel_map:get(voxel)
  if array == nil then
    array = Vector.new()
    voxel_map:put(voxel, array)
  end
  array:append(motion)
end

local function recurse(voxel_map, seen, next_voxel, motion)
  if not is_in_voxel(next_voxel, motion) then return end
  if seen:put(next_voxel, true) ~= nil then return end
  put_into_map(voxel_map, next_voxel, motion)
  recurse(voxel_map, seen, next_voxel:minus(horizontal()), motion)
  recurse(voxel_map, seen, next_voxel:plus(horizontal()), motion)
  recurse(voxel_map, seen, next_voxel:minus(vertical()), motion)
  recurse(voxel_map, seen, next_voxel:plus(vertical()), motion)
  recurse(voxel_map, seen, next_voxel:minus(horizontal()):minus(vertical()), motion)
  recurse(voxel_map, seen, next_voxel:minus(horizontal()):plus(vertical()), motion)
  recurse(voxel_map, seen, next_voxel:plus(horizontal()):minus(vertical()), motion)
  recurse(voxel_map, seen, next_voxel:plus(horizontal()):plus(vertical()), motion)
end

local function voxel_hash(position)
  local x = GOOD_VOXEL_SIZE * tdiv(position.x, GOOD_VOXEL_SIZE)
  local y = GOOD_VOXEL_SIZE * tdiv(position.y, GOOD_VOXEL_SIZE)
  if position.x < 0 then x = x - GOOD_VOXEL_SIZE end
  if position.y < 0 then y = y - GOOD_VOXEL_SIZE end
  return Vector2D.new(x, y)
end

local function draw_motion_on_voxel_map(voxel_map, motion)
  recurse(voxel_map, RedBlackTree.new(), voxel_hash(motion.pos_one), motion)
end

local function reduce_collision_set(motions)
  local voxel_map = RedBlackTree.new()
  for i = 0, motions:size() - 1 do draw_motion_on_voxel_map(voxel_map, motions:at(i)) end
  local result = Vector.new()
  voxel_map:for_each(function(e)
    if e.value:size() > 1 then result:append(e.value) end
  end)
  return result
end

local Motion = class()
function Motion.new(call_sign, pos_one, pos_two)
  return setmetatable({call_sign = call_sign, pos_one = pos_one, pos_two = pos_two}, Motion)
end
function Motion:delta() return self.pos_two:minus(self.pos_one) end
function Motion:find_intersection(other)
  local init1, init2 = self.pos_one, other.pos_one
  local vec1, vec2 = self:delta(), other:delta()
  local radius = PROXIMITY_RADIUS
  local a = vec2:minus(vec1):squared_magnitude()
  if a ~= 0 then
    local b = 2 * init1:minus(init2):dot(vec1:minus(vec2))
    local c = -fx_mul(radius, radius) + init2:minus(init1):squared_magnitude()
    local discr = fx_mul(b, b) - fx_mul(4 * a, c)
    if discr < 0 then return nil end
    local root = fx_sqrt(discr)
    local v1 = fx_div(-b - root, 2 * a)
    local v2 = fx_div(-b + root, 2 * a)
    if v1 <= v2 and in_unit_range(v1, v2) then
      local v = v1
      if v1 <= 0 then v = 0 end
      local result1 = init1:plus(vec1:times(v))
      local result2 = init2:plus(vec2:times(v))
      local result = result1:plus(result2):times(floor(F / 2))
      if result.x >= MIN_X and result.x <= MAX_X and result.y >= MIN_Y and result.y <= MAX_Y
          and result.z >= MIN_Z and result.z <= MAX_Z then
        return result
      end
    end
    return nil
  end
  local dist = init2:minus(init1):magnitude()
  if dist <= radius then return init1:plus(init2):times(floor(F / 2)) end
  return nil
end

local Aircraft = class()
function Aircraft.new(call_sign, position) return setmetatable({call_sign = call_sign, position = position}, Aircraft) end

local CollisionDetector = class()
function CollisionDetector.new() return setmetatable({state = RedBlackTree.new()}, CollisionDetector) end
function CollisionDetector:handle_new_frame(frame)
  local motions = Vector.new()
  local seen = RedBlackTree.new()
  for i = 0, frame:size() - 1 do
    local aircraft = frame:at(i)
    local old_position = self.state:put(aircraft.call_sign, aircraft.position)
    local new_position = aircraft.position
    seen:put(aircraft.call_sign, true)
    if old_position == nil then old_position = new_position end
    motions:append(Motion.new(aircraft.call_sign, old_position, new_position))
  end
  local to_remove = Vector.new()
  self.state:for_each(function(e)
    if not seen:get(e.key) then to_remove:append(e.key) end
  end)
  for i = 0, to_remove:size() - 1 do self.state:remove(to_remove:at(i)) end
  local all_reduced = reduce_collision_set(motions)
  local collisions = Vector.new()
  for k = 0, all_reduced:size() - 1 do
    local reduced = all_reduced:at(k)
    for i = 0, reduced:size() - 1 do
      local motion1 = reduced:at(i)
      for j = i + 1, reduced:size() - 1 do
        local motion2 = reduced:at(j)
        local collision = motion1:find_intersection(motion2)
        if collision ~= nil then
          collisions:append(Collision.new(motion1.call_sign, motion2.call_sign, collision))
        end
      end
    end
  end
  return collisions
end

local Simulator = class()
function Simulator.new(num_aircraft)
  local s = setmetatable({aircraft = Vector.new()}, Simulator)
  for i = 0, num_aircraft - 1 do s.aircraft:append(CallSign.new(i)) end
  return s
end
function Simulator:simulate(time)
  local frame = Vector.new()
  for i = 0, self.aircraft:size() - 1, 2 do
    frame:append(Aircraft.new(self.aircraft:at(i), Vector3D.new(time, fx_cos(time) * 2 + i * 3 * F, 10 * F)))
    frame:append(Aircraft.new(self.aircraft:at(i + 1), Vector3D.new(time, fx_sin(time) * 2 + i * 3 * F, 10 * F)))
  end
  return frame
end

local EXPECTED = {[1000] = 14484, [500] = 14484, [250] = 10830, [200] = 8655, [100] = 4305, [10] = 390, [2] = 42}

local CD = harness.Benchmark.subclass()
function CD:benchmark_with(num_aircraft)
  local simulator = Simulator.new(num_aircraft)
  local detector = CollisionDetector.new()
  local actual = 0
  for i = 0, 199 do
    local time = tdiv(i * F, 10)
    actual = actual + detector:handle_new_frame(simulator:simulate(time)):size()
  end
  return actual
end
function CD:inner_benchmark_loop(inner_iterations)
  local result = self:benchmark_with(inner_iterations)
  self.last_result = result
  return self:verify_cd(result, inner_iterations)
end
function CD:verify_cd(actual, num_aircraft)
  local want = EXPECTED[num_aircraft]
  if want == nil then
    print("No verification result for")
    print(num_aircraft)
    print("Result is:")
    print(actual)
    return false
  end
  return actual == harness.expect(want)
end

harness.run(CD, "CD", 10)

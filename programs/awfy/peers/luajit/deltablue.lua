-- deltablue.lua - LuaJIT peer of ../../src/deltablue.bc: the DeltaBlue constraint
-- solver with the same classes, methods, checks and output. Lua arrays stand
-- for the som Vector; todo lists are worked first-in first-out with a head
-- index, as the som Vector's remove_first does in the .bc.
-- Usage: luajit -joff deltablue.lua [iterations [inner [expected]]]
-- As ../lua/deltablue.lua, with math.floor(a / b) for Lua 5.4's a // b
-- (exact: the operands are integers far below 2^53).

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local STRENGTH_VALUES = {[0] = -10000, -800, -600, -400, -200, 0, 500, 10000}
local REQUIRED, PREFERRED, STRONG_DEFAULT, DEFAULT, ABSOLUTE_WEAKEST = 1, 3, 4, 5, 7
local NONE, FORWARD, BACKWARD = 0, 1, 2

local function class(super)
  local c = {}
  c.__index = c
  if super then setmetatable(c, super) end
  return c
end

local Strength = class()
local function strength_of(k)
  return setmetatable({symbolic_value = k, arithmetic_value = STRENGTH_VALUES[k]}, Strength)
end
function Strength:same_as(s) return self.arithmetic_value == s.arithmetic_value end
function Strength:stronger(s) return self.arithmetic_value < s.arithmetic_value end
function Strength:weaker(s) return self.arithmetic_value > s.arithmetic_value end
function Strength:strongest(s) if s:stronger(self) then return s end return self end
function Strength:weakest(s) if s:weaker(self) then return s end return self end

-- The som Vector's sort of s[i..j] (som/vector.bc; 0-based indexes into the
-- 1-based array s): median of three, then partition; the same comparisons
-- and swaps as the .bc.
local function sort_range(s, i, j, compare)
  local n = j + 1 - i
  if n <= 1 then return end
  local di, dj = s[i + 1], s[j + 1]
  if compare(di, dj) > 0 then
    s[i + 1], s[j + 1] = s[j + 1], s[i + 1]
    di, dj = dj, di
  end
  if n <= 2 then return end
  local ij = math.floor((i + j) / 2)
  local dij = s[ij + 1]
  if compare(di, dij) <= 0 then
    if compare(dij, dj) > 0 then
      s[j + 1], s[ij + 1] = s[ij + 1], s[j + 1]
      dij = dj
    end
  else
    s[i + 1], s[ij + 1] = s[ij + 1], s[i + 1]
    dij = di
  end
  if n <= 3 then return end
  local k, l = i, j - 1
  while true do
    while k <= l and compare(dij, s[l + 1]) <= 0 do l = l - 1 end
    k = k + 1
    while k <= l and compare(s[k + 1], dij) <= 0 do k = k + 1 end
    if k > l then break end
    s[k + 1], s[l + 1] = s[l + 1], s[k + 1]
  end
  sort_range(s, i, l, compare)
  sort_range(s, k, j, compare)
end

local function som_sort(items, compare)
  if #items > 0 then sort_range(items, 0, #items - 1, compare) end
end

local Variable = class()
function Variable.new(value)
  return setmetatable({value = value, constraints = {}, determined_by = nil, mark = 0,
                       walk_strength = strength_of(ABSOLUTE_WEAKEST), stay = true}, Variable)
end
function Variable:add_constraint(c) self.constraints[#self.constraints + 1] = c end
function Variable:remove_constraint(c)
  local kept = {}
  for _, x in ipairs(self.constraints) do
    if x ~= c then kept[#kept + 1] = x end
  end
  self.constraints = kept
  if self.determined_by == c then self.determined_by = nil end
end

local AbstractConstraint = class()
function AbstractConstraint:is_input() return false end
function AbstractConstraint:add_constraint(planner)
  self:add_to_graph()
  planner:incremental_add(self)
end
function AbstractConstraint:destroy_constraint(planner)
  if self:is_satisfied() then planner:incremental_remove(self) end
  self:remove_from_graph()
end
function AbstractConstraint:inputs_known(mark)
  return not self:inputs_has_one(function(v)
    return not (v.mark == mark or v.stay or v.determined_by == nil)
  end)
end
function AbstractConstraint:satisfy(mark, planner)
  self:choose_method(mark)
  if self:is_satisfied() then
    self:inputs_do(function(v) v.mark = mark end)
    local out = self:get_output()
    local overridden = out.determined_by
    if overridden ~= nil then overridden:mark_unsatisfied() end
    out.determined_by = self
    if not planner:add_propagate(self, mark) then error("Cycle encountered") end
    out.mark = mark
    return overridden
  end
  if self.strength:same_as(strength_of(REQUIRED)) then
    error("Could not satisfy a required constraint")
  end
  return nil
end

local BinaryConstraint = class(AbstractConstraint)
function BinaryConstraint:init_binary(var1, var2, strength)
  self.strength = strength_of(strength)
  self.v1 = var1
  self.v2 = var2
  self.direction = NONE
  return self
end
function BinaryConstraint:is_satisfied() return self.direction ~= NONE end
function BinaryConstraint:add_to_graph()
  self.v1:add_constraint(self)
  self.v2:add_constraint(self)
  self.direction = NONE
end
function BinaryConstraint:remove_from_graph()
  if self.v1 ~= nil then self.v1:remove_constraint(self) end
  if self.v2 ~= nil then self.v2:remove_constraint(self) end
  self.direction = NONE
end
function BinaryConstraint:choose_method(mark)
  local v1, v2 = self.v1, self.v2
  local d
  if v1.mark == mark then
    if v2.mark ~= mark and self.strength:stronger(v2.walk_strength) then d = FORWARD else d = NONE end
  elseif v2.mark == mark then
    if self.strength:stronger(v1.walk_strength) then d = BACKWARD else d = NONE end
  elseif v1.walk_strength:weaker(v2.walk_strength) then
    if self.strength:stronger(v1.walk_strength) then d = BACKWARD else d = NONE end
  else
    if self.strength:stronger(v2.walk_strength) then d = FORWARD else d = NONE end
  end
  self.direction = d
  return d
end
function BinaryConstraint:inputs_do(fn)
  if self.direction == FORWARD then fn(self.v1) else fn(self.v2) end
end
function BinaryConstraint:inputs_has_one(fn)
  if self.direction == FORWARD then return fn(self.v1) end
  return fn(self.v2)
end
function BinaryConstraint:mark_unsatisfied() self.direction = NONE end
function BinaryConstraint:get_output()
  if self.direction == FORWARD then return self.v2 end
  return self.v1
end
function BinaryConstraint:recalculate()
  local inp, out
  if self.direction == FORWARD then inp, out = self.v1, self.v2 else inp, out = self.v2, self.v1 end
  out.walk_strength = self.strength:weakest(inp.walk_strength)
  out.stay = inp.stay
  if out.stay then self:execute() end
end

local EqualityConstraint = class(BinaryConstraint)
function EqualityConstraint.new(var1, var2, strength, planner)
  local c = setmetatable({}, EqualityConstraint):init_binary(var1, var2, strength)
  c:add_constraint(planner)
  return c
end
function EqualityConstraint:execute()
  if self.direction == FORWARD then self.v2.value = self.v1.value else self.v1.value = self.v2.value end
end

local ScaleConstraint = class(BinaryConstraint)
function ScaleConstraint.new(src, scale, offset, dest, strength, planner)
  local c = setmetatable({}, ScaleConstraint):init_binary(src, dest, strength)
  c.scale = scale
  c.offset = offset
  c:add_constraint(planner)
  return c
end
function ScaleConstraint:add_to_graph()
  self.v1:add_constraint(self)
  self.v2:add_constraint(self)
  self.scale:add_constraint(self)
  self.offset:add_constraint(self)
  self.direction = NONE
end
function ScaleConstraint:remove_from_graph()
  if self.v1 ~= nil then self.v1:remove_constraint(self) end
  if self.v2 ~= nil then self.v2:remove_constraint(self) end
  if self.scale ~= nil then self.scale:remove_constraint(self) end
  if self.offset ~= nil then self.offset:remove_constraint(self) end
  self.direction = NONE
end
local function trunc_div(a, b)
  local q = math.floor(math.abs(a) / math.abs(b))
  if (a < 0) == (b < 0) then return q end
  return -q
end
function ScaleConstraint:execute()
  if self.direction == FORWARD then
    self.v2.value = self.v1.value * self.scale.value + self.offset.value
  else
    self.v1.value = trunc_div(self.v2.value - self.offset.value, self.scale.value)
  end
end
function ScaleConstraint:inputs_do(fn)
  if self.direction == FORWARD then fn(self.v1) else fn(self.v2) end
  fn(self.scale)
  fn(self.offset)
end
function ScaleConstraint:recalculate()
  local inp, out
  if self.direction == FORWARD then inp, out = self.v1, self.v2 else inp, out = self.v2, self.v1 end
  out.walk_strength = self.strength:weakest(inp.walk_strength)
  out.stay = inp.stay and self.scale.stay and self.offset.stay
  if out.stay then self:execute() end
end

local UnaryConstraint = class(AbstractConstraint)
function UnaryConstraint:init_unary(v, strength, planner)
  self.strength = strength_of(strength)
  self.output = v
  self.satisfied = false
  self:add_constraint(planner)
  return self
end
function UnaryConstraint:is_satisfied() return self.satisfied end
function UnaryConstraint:add_to_graph()
  self.output:add_constraint(self)
  self.satisfied = false
end
function UnaryConstraint:remove_from_graph()
  if self.output ~= nil then self.output:remove_constraint(self) end
  self.satisfied = false
end
function UnaryConstraint:choose_method(mark)
  self.satisfied = self.output.mark ~= mark and self.strength:stronger(self.output.walk_strength)
end
function UnaryConstraint:inputs_do(fn) end
function UnaryConstraint:inputs_has_one(fn) return false end
function UnaryConstraint:mark_unsatisfied() self.satisfied = false end
function UnaryConstraint:get_output() return self.output end
function UnaryConstraint:recalculate()
  self.output.walk_strength = self.strength
  self.output.stay = not self:is_input()
  if self.output.stay then self:execute() end
end

local EditConstraint = class(UnaryConstraint)
function EditConstraint:is_input() return true end
function EditConstraint:execute() end
local StayConstraint = class(UnaryConstraint)
function StayConstraint:execute() end
local function new_unary(c, v, strength, planner)
  return setmetatable({}, c):init_unary(v, strength, planner)
end

local Plan = class()
function Plan:execute()
  for _, c in ipairs(self) do c:execute() end
end

local Planner = class()
function Planner.new() return setmetatable({current_mark = 1}, Planner) end
function Planner:new_mark()
  self.current_mark = self.current_mark + 1
  return self.current_mark
end
function Planner:incremental_add(c)
  local mark = self:new_mark()
  local overridden = c:satisfy(mark, self)
  while overridden ~= nil do overridden = overridden:satisfy(mark, self) end
end
function Planner:incremental_remove(c)
  local out = c:get_output()
  c:mark_unsatisfied()
  c:remove_from_graph()
  for _, u in ipairs(self:remove_propagate_from(out)) do self:incremental_add(u) end
end
function Planner:extract_plan_from_constraints(constraints)
  local sources = {}
  for _, c in ipairs(constraints) do
    if c:is_input() and c:is_satisfied() then sources[#sources + 1] = c end
  end
  return self:make_plan(sources)
end
function Planner:make_plan(sources)
  local mark = self:new_mark()
  local plan = setmetatable({}, Plan)
  local todo, head = sources, 1
  while head <= #todo do
    local c = todo[head]
    head = head + 1
    local out = c:get_output()
    if out.mark ~= mark and c:inputs_known(mark) then
      plan[#plan + 1] = c
      out.mark = mark
      self:add_constraints_consuming_to(out, todo)
    end
  end
  return plan
end
function Planner:add_constraints_consuming_to(v, coll)
  local determining = v.determined_by
  for _, c in ipairs(v.constraints) do
    if c ~= determining and c:is_satisfied() then coll[#coll + 1] = c end
  end
end
function Planner:add_propagate(c, mark)
  local todo, head = {c}, 1
  while head <= #todo do
    local d = todo[head]
    head = head + 1
    if d:get_output().mark == mark then
      self:incremental_remove(c)
      return false
    end
    d:recalculate()
    self:add_constraints_consuming_to(d:get_output(), todo)
  end
  return true
end
function Planner:change(var, new_value)
  local edit = new_unary(EditConstraint, var, PREFERRED, self)
  local plan = self:extract_plan_from_constraints({edit})
  for _ = 1, 10 do
    var.value = new_value
    plan:execute()
  end
  edit:destroy_constraint(self)
end
function Planner:constraints_consuming(v, fn)
  local determining = v.determined_by
  for _, c in ipairs(v.constraints) do
    if c ~= determining and c:is_satisfied() then fn(c) end
  end
end
function Planner:remove_propagate_from(out)
  local unsatisfied = {}
  out.determined_by = nil
  out.walk_strength = strength_of(ABSOLUTE_WEAKEST)
  out.stay = true
  local todo = {out}
  local function recalculate(c)
    c:recalculate()
    todo[#todo + 1] = c:get_output()
  end
  local head = 1
  while head <= #todo do
    local v = todo[head]
    head = head + 1
    for _, c in ipairs(v.constraints) do
      if not c:is_satisfied() then unsatisfied[#unsatisfied + 1] = c end
    end
    self:constraints_consuming(v, recalculate)
  end
  som_sort(unsatisfied, function(a, b) return a.strength.arithmetic_value - b.strength.arithmetic_value end)
  return unsatisfied
end

local function chain_test(n)
  local planner = Planner.new()
  local vars = {}
  for i = 0, n do vars[i] = Variable.new(0) end
  for i = 0, n - 1 do EqualityConstraint.new(vars[i], vars[i + 1], REQUIRED, planner) end
  new_unary(StayConstraint, vars[n], STRONG_DEFAULT, planner)
  local edit = new_unary(EditConstraint, vars[0], PREFERRED, planner)
  local plan = planner:extract_plan_from_constraints({edit})
  for i = 0, 99 do
    vars[0].value = i
    plan:execute()
    if vars[n].value ~= i then
      print("Chain test failed!")
      return false
    end
  end
  edit:destroy_constraint(planner)
  return true
end

local function projection_test(n)
  local planner = Planner.new()
  local dests = {}
  local scale = Variable.new(10)
  local offset = Variable.new(1000)
  local src, dst
  for i = 1, n do
    src = Variable.new(i)
    dst = Variable.new(i)
    dests[#dests + 1] = dst
    new_unary(StayConstraint, src, DEFAULT, planner)
    ScaleConstraint.new(src, scale, offset, dst, REQUIRED, planner)
  end
  planner:change(src, 17)
  if dst.value ~= harness.expect(1170) then
    print("Projection test 1 failed!")
    return false
  end
  planner:change(dst, 1050)
  if src.value ~= 5 then
    print("Projection test 2 failed!")
    return false
  end
  planner:change(scale, 5)
  for i = 0, n - 2 do
    if dests[i + 1].value ~= (i + 1) * 5 + 1000 then
      print("Projection test 3 failed!")
      return false
    end
  end
  planner:change(offset, 2000)
  for i = 0, n - 2 do
    if dests[i + 1].value ~= (i + 1) * 5 + 2000 then
      print("Projection test 4 failed!")
      return false
    end
  end
  return true
end

local DeltaBlue = harness.Benchmark.subclass()
function DeltaBlue:inner_benchmark_loop(inner_iterations)
  if not chain_test(inner_iterations) or not projection_test(inner_iterations) then return false end
  self.last_result = 1
  return true
end

harness.run(DeltaBlue, "DeltaBlue", 100)

-- virtual_calls.lua - LuaJIT peer of ../../virtual_calls.bc: a polymorphic
-- method-call loop over four Shape "classes" (metatables with an __index
-- chain to Shape), 1,000 shapes, 10,000 rounds. As ../virtual_calls.lua,
-- with math.floor(a / 2) for Lua 5.4's a // 2 (a >= 0, small: exact).

local Shape = {}
Shape.__index = Shape
function Shape:area() return 0 end

local function subclass(super)
  local c = setmetatable({}, super)
  c.__index = c
  return c
end

local Square = subclass(Shape)
function Square:area() return self.side * self.side end

local Rect = subclass(Shape)
function Rect:area() return self.w * self.h end

local Circle = subclass(Shape)
function Circle:area() return self.r * self.r * 3 end

local Triangle = subclass(Shape)
function Triangle:area() return math.floor(self.base * self.height / 2) end

local function make_shapes(n)
  local shapes = {}
  for i = 0, n - 1 do
    local kind = i % 4
    local s
    if kind == 0 then
      s = setmetatable({ side = i % 10 + 1 }, Square)
    elseif kind == 1 then
      s = setmetatable({ w = i % 7 + 1, h = i % 5 + 1 }, Rect)
    elseif kind == 2 then
      s = setmetatable({ r = i % 6 + 1 }, Circle)
    else
      s = setmetatable({ base = i % 8 + 1, height = i % 9 + 1 }, Triangle)
    end
    shapes[i + 1] = s
  end
  return shapes
end

local function total_area(shapes)
  local sum = 0
  for i = 1, #shapes do
    sum = sum + shapes[i]:area()
  end
  return sum
end

local shapes = make_shapes(1000)
local one_pass = total_area(shapes)
local total = 0
for _ = 1, 10000 do
  total = total + total_area(shapes)
end
print(one_pass)
print(total)

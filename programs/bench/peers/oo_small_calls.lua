-- oo_small_calls.lua - peer of ../oo_small_calls.bc: particles moved through
-- getter/setter methods, 100 particles, 30,000 rounds.

local Particle = {}
Particle.__index = Particle

function Particle.new(class)
  return setmetatable({ x = 0, v = 0 }, class)
end
function Particle:get_x() return self.x end
function Particle:set_x(value) self.x = value end
function Particle:get_v() return self.v end
function Particle:set_v(value) self.v = value end
function Particle:mass() return 1 end
function Particle:move()
  local x = self:get_x() + self:get_v()
  if x >= 10000 then
    x = x - 10000
  end
  self:set_x(x)
end

local Heavy = setmetatable({}, Particle)
Heavy.__index = Heavy
function Heavy:mass() return 3 end

local particles = {}
for i = 0, 99 do
  local p
  if i % 3 == 0 then p = Particle.new(Heavy) else p = Particle.new(Particle) end
  p:set_x(i * 37 % 10000)
  p:set_v(i % 7 + 1)
  particles[i + 1] = p
end
local sum = 0
for _ = 1, 30000 do
  for i = 1, 100 do
    local p = particles[i]
    p:move()
    sum = sum + p:mass() * p:get_x()
  end
end
print(sum)

-- bounce.lua - the LuaJIT twin of programs/awfy/src/bounce.bc (Are We Fast Yet:
-- Bounce): 100 balls, 50 steps in a 500x500 box; 1331 bounces.
-- Usage: luajit -joff bounce.lua [iterations [inner [expected]]]
-- The code is that of ../lua/bounce.lua; harness.lua and som.lua beside this
-- file are LuaJIT's.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")
local Random = require("som").Random

local abs = math.abs

local Ball = {}
Ball.__index = Ball

function Ball.new(random)
    local b = setmetatable({}, Ball)
    b.x = random:next() % 500
    b.y = random:next() % 500
    b.x_vel = (random:next() % 300) - 150
    b.y_vel = (random:next() % 300) - 150
    return b
end

function Ball:bounce()
    local x_limit, y_limit = 500, 500
    local bounced = false
    self.x = self.x + self.x_vel
    self.y = self.y + self.y_vel
    if self.x > x_limit then
        self.x = x_limit
        self.x_vel = 0 - abs(self.x_vel)
        bounced = true
    end
    if self.x < 0 then
        self.x = 0
        self.x_vel = abs(self.x_vel)
        bounced = true
    end
    if self.y > y_limit then
        self.y = y_limit
        self.y_vel = 0 - abs(self.y_vel)
        bounced = true
    end
    if self.y < 0 then
        self.y = 0
        self.y_vel = abs(self.y_vel)
        bounced = true
    end
    return bounced
end

local Bounce = harness.Benchmark.subclass()

function Bounce:benchmark()
    local random = Random.new()
    local ball_count = 100
    local bounces = 0
    local balls = {}
    for i = 1, ball_count do
        balls[i] = Ball.new(random)
    end
    for _ = 1, 50 do
        for i = 1, #balls do
            if balls[i]:bounce() then
                bounces = bounces + 1
            end
        end
    end
    return bounces
end

function Bounce:verify_result(result)
    return result == harness.expect(1331)
end

harness.run(Bounce, "Bounce", 1)

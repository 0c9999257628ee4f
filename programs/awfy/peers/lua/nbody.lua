-- nbody.lua - the Lua twin of programs/awfy/src/nbody.bc (Are We Fast Yet:
-- NBody), with the same fixed-point integer arithmetic: ONE = 2^24, a product
-- is (a * b) // ONE (Lua's >> is a logical shift; // on integers floors, as
-- the VM's arithmetic shr does), a quotient (a * ONE) / b truncated toward
-- zero as the VM's div does (see tdiv), a square root floor(sqrt(a * ONE))
-- by the same Newton iteration.
-- Usage: lua5.4 nbody.lua [iterations [steps [expected]]]

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local ONE = 1 << 24
local SOLAR_MASS = 662337939 -- 4 * PI^2
local DAYS_PER_YEAR = 6127710372 -- 365.24
local KNOWN = { [1] = -2836639, [1000] = -2836650, [10000] = -2833146, [100000] = -2696592, [250000] = -1955020 }

-- a / b truncated toward zero (the VM's div).
local function tdiv(a, b)
    local q = math.abs(a) // math.abs(b)
    if (a < 0) == (b < 0) then
        return q
    end
    return -q
end

-- floor(sqrt(a * ONE)), for a >= 0, as the .bc's sqrt computes it.
local function sqrt(a)
    local n = a * ONE
    if n <= 0 then
        return 0
    end
    local t, r = n, 1
    while t >= 4 do
        t = t // 4
        r = r * 2
    end
    local x = r * 2
    while true do
        local y = (x + n // x) // 2
        if y >= x then
            return x
        end
        x = y
    end
end

local Body = {}
Body.__index = Body

function Body.new(x, y, z, vx, vy, vz, mass)
    return setmetatable({
        x = x,
        y = y,
        z = z,
        vx = (vx * DAYS_PER_YEAR) // ONE,
        vy = (vy * DAYS_PER_YEAR) // ONE,
        vz = (vz * DAYS_PER_YEAR) // ONE,
        mass = (mass * SOLAR_MASS) // ONE,
    }, Body)
end

function Body:offset_momentum(px, py, pz)
    self.vx = 0 - tdiv(px * ONE, SOLAR_MASS)
    self.vy = 0 - tdiv(py * ONE, SOLAR_MASS)
    self.vz = 0 - tdiv(pz * ONE, SOLAR_MASS)
end

function Body.jupiter()
    return Body.new(81225741, -19466940, -1738489, 27851, 129168, -1158, 16019)
end

function Body.saturn()
    return Body.new(139978466, 69202636, -6770000, -46430, 83861, 387, 4796)
end

function Body.uranus()
    return Body.new(216331623, -253523051, -3746479, 49738, 39904, -498, 733)
end

function Body.neptune()
    return Body.new(258028501, -434853940, 3007463, 44974, 27317, -1597, 864)
end

function Body.sun()
    return Body.new(0, 0, 0, 0, 0, 0, ONE)
end

local NBodySystem = {}
NBodySystem.__index = NBodySystem

function NBodySystem.new()
    local s = setmetatable({}, NBodySystem)
    s.bodies = s:create_bodies()
    return s
end

function NBodySystem:create_bodies()
    local bodies = { Body.sun(), Body.jupiter(), Body.saturn(), Body.uranus(), Body.neptune() }
    local px, py, pz = 0, 0, 0
    for i = 1, #bodies do
        local b = bodies[i]
        px = px + (b.vx * b.mass) // ONE
        py = py + (b.vy * b.mass) // ONE
        pz = pz + (b.vz * b.mass) // ONE
    end
    bodies[1]:offset_momentum(px, py, pz)
    return bodies
end

function NBodySystem:advance(dt)
    local bodies = self.bodies
    local n = #bodies
    for i = 1, n do
        local ib = bodies[i]
        for j = i + 1, n do
            local jb = bodies[j]
            local dx = ib.x - jb.x
            local dy = ib.y - jb.y
            local dz = ib.z - jb.z
            local dsq = (dx * dx) // ONE + (dy * dy) // ONE + (dz * dz) // ONE
            local distance = sqrt(dsq)
            local mag = tdiv(tdiv(dt * ONE, dsq) * ONE, distance)
            ib.vx = ib.vx - (((dx * jb.mass) // ONE) * mag) // ONE
            ib.vy = ib.vy - (((dy * jb.mass) // ONE) * mag) // ONE
            ib.vz = ib.vz - (((dz * jb.mass) // ONE) * mag) // ONE
            jb.vx = jb.vx + (((dx * ib.mass) // ONE) * mag) // ONE
            jb.vy = jb.vy + (((dy * ib.mass) // ONE) * mag) // ONE
            jb.vz = jb.vz + (((dz * ib.mass) // ONE) * mag) // ONE
        end
    end
    for i = 1, n do
        local b = bodies[i]
        b.x = b.x + (dt * b.vx) // ONE
        b.y = b.y + (dt * b.vy) // ONE
        b.z = b.z + (dt * b.vz) // ONE
    end
end

function NBodySystem:energy()
    local bodies = self.bodies
    local n = #bodies
    local e = 0
    for i = 1, n do
        local ib = bodies[i]
        local v2 = (ib.vx * ib.vx) // ONE + (ib.vy * ib.vy) // ONE + (ib.vz * ib.vz) // ONE
        e = e + ((((ONE // 2) * ib.mass) // ONE) * v2) // ONE
        for j = i + 1, n do
            local jb = bodies[j]
            local dx = ib.x - jb.x
            local dy = ib.y - jb.y
            local dz = ib.z - jb.z
            local distance = sqrt((dx * dx) // ONE + (dy * dy) // ONE + (dz * dz) // ONE)
            e = e - tdiv(((ib.mass * jb.mass) // ONE) * ONE, distance)
        end
    end
    return e
end

local NBody = harness.Benchmark.subclass()

function NBody:inner_benchmark_loop(inner_iterations)
    local system = NBodySystem.new()
    for _ = 1, inner_iterations do
        system:advance(167772) -- 0.01
    end
    local result = system:energy()
    self.last_result = result
    return self:verify_result_sized(result, inner_iterations)
end

function NBody:verify_result_sized(result, inner_iterations)
    local want = KNOWN[inner_iterations]
    if want then
        return result == harness.expect(want)
    end
    if harness.expect(0) ~= 0 then
        return result == harness.expect(0)
    end
    print("No verification result for this size; the result is:")
    print(result)
    return false
end

harness.run(NBody, "NBody", 1000)

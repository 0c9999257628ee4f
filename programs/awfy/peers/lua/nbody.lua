-- nbody.lua - the Lua twin of programs/awfy/src/nbody.bc (Are We Fast Yet:
-- NBody), in Lua's floating-point numbers as the suite's Lua computes it
-- (the .bc program computes in fixed point, having no floats): the sun and
-- the four Jovian planets, advance(0.01) INNER times, then the energy,
-- which it checks against the known energy for that number of steps.
-- Usage: lua5.4 nbody.lua [iterations [steps [expected]]]

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local PI = 3.141592653589793
local SOLAR_MASS = 4.0 * PI * PI
local DAYS_PER_YEAR = 365.24
local sqrt = math.sqrt
local floor = math.floor

-- The energy after each known number of steps, in doubles (1 and 250000 are
-- the suite's own values; the others are this code's, the same in Lua 5.4,
-- LuaJIT and CPython).
local KNOWN = {
    [1] = -0.16907495402506745,
    [1000] = -0.169087605234606,
    [10000] = -0.16901644126443094,
    [100000] = -0.16907985939165887,
    [250000] = -0.1690859889909308,
}

local Body = {}
Body.__index = Body

function Body.new(x, y, z, vx, vy, vz, mass)
    return setmetatable({
        x = x,
        y = y,
        z = z,
        vx = vx * DAYS_PER_YEAR,
        vy = vy * DAYS_PER_YEAR,
        vz = vz * DAYS_PER_YEAR,
        mass = mass * SOLAR_MASS,
    }, Body)
end

function Body:offset_momentum(px, py, pz)
    self.vx = 0.0 - (px / SOLAR_MASS)
    self.vy = 0.0 - (py / SOLAR_MASS)
    self.vz = 0.0 - (pz / SOLAR_MASS)
end

-- The four planets' positions (AU), velocities (AU/day) and masses (solar
-- masses), as the Computer Language Benchmarks Game gives them.
function Body.jupiter()
    return Body.new(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
        1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
        9.54791938424326609e-04)
end

function Body.saturn()
    return Body.new(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
        -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
        2.85885980666130812e-04)
end

function Body.uranus()
    return Body.new(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
        2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
        4.36624404335156298e-05)
end

function Body.neptune()
    return Body.new(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
        2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
        5.15138902046611451e-05)
end

function Body.sun()
    return Body.new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
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
    local px, py, pz = 0.0, 0.0, 0.0
    for i = 1, #bodies do
        local b = bodies[i]
        px = px + b.vx * b.mass
        py = py + b.vy * b.mass
        pz = pz + b.vz * b.mass
    end
    bodies[1]:offset_momentum(px, py, pz)
    return bodies
end

-- As the suite writes it: the bodies are read through self.bodies in
-- every loop, and the square root is the library's.
function NBodySystem:advance(dt)
    for i = 1, #self.bodies do
        local ib = self.bodies[i]
        for j = i + 1, #self.bodies do
            local jb = self.bodies[j]
            local dx = ib.x - jb.x
            local dy = ib.y - jb.y
            local dz = ib.z - jb.z
            local dsq = dx * dx + dy * dy + dz * dz
            local distance = sqrt(dsq)
            local mag = dt / (dsq * distance)
            ib.vx = ib.vx - dx * jb.mass * mag
            ib.vy = ib.vy - dy * jb.mass * mag
            ib.vz = ib.vz - dz * jb.mass * mag
            jb.vx = jb.vx + dx * ib.mass * mag
            jb.vy = jb.vy + dy * ib.mass * mag
            jb.vz = jb.vz + dz * ib.mass * mag
        end
    end
    for i = 1, #self.bodies do
        local b = self.bodies[i]
        b.x = b.x + dt * b.vx
        b.y = b.y + dt * b.vy
        b.z = b.z + dt * b.vz
    end
end

function NBodySystem:energy()
    local e = 0.0
    for i = 1, #self.bodies do
        local ib = self.bodies[i]
        e = e + 0.5 * ib.mass * (ib.vx * ib.vx + ib.vy * ib.vy + ib.vz * ib.vz)
        for j = i + 1, #self.bodies do
            local jb = self.bodies[j]
            local dx = ib.x - jb.x
            local dy = ib.y - jb.y
            local dz = ib.z - jb.z
            local distance = sqrt(dx * dx + dy * dy + dz * dz)
            e = e - (ib.mass * jb.mass) / distance
        end
    end
    return e
end

local NBody = harness.Benchmark.subclass()

function NBody:inner_benchmark_loop(inner_iterations)
    local system = NBodySystem.new()
    for _ = 1, inner_iterations do
        system:advance(0.01)
    end
    local energy = system:energy()
    -- The result printed: the energy in the .bc's fixed point (times 2^24,
    -- rounded), near the VM's own but not equal to it.
    self.last_result = math.tointeger(floor(energy * 16777216 + 0.5))
    return self:verify_result_sized(energy, inner_iterations)
end

function NBody:verify_result_sized(energy, inner_iterations)
    if harness.expect(0) ~= 0 then
        return self.last_result == harness.expect(0)
    end
    local want = KNOWN[inner_iterations]
    if want then
        return energy == want
    end
    print("No verification result for this size; the result is:")
    print(self.last_result)
    return false
end

harness.run(NBody, "NBody", 1000)

-- harness.lua - the LuaJIT twin of programs/awfy/lib/harness.bc: the Are
-- We Fast Yet Benchmark base class and Run loop, with the same output. As
-- ../lua/harness.lua, for LuaJIT (Lua 5.1: no math.tointeger; numbers are
-- doubles, which print without a fraction when they hold an integer).
--
-- A benchmark file loads it with
--   package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
--   local harness = require("harness")
-- and ends with harness.run(NewBenchmark, "Name", default_inner); its command
-- line is: luajit -joff NAME.lua [iterations [inner [expected]]]
-- (0 or missing: the default, as --set leaves the .bc globals at 0).

local harness = {}

local ITERATIONS = tonumber(arg[1] or "0")
local INNER = tonumber(arg[2] or "0")
local EXPECTED = tonumber(arg[3] or "0")

-- The value a check compares with: EXPECTED if given, else `value`.
function harness.expect(value)
    if EXPECTED ~= 0 then
        return EXPECTED
    end
    return value
end

-- Results print as integers (a boolean as 1 or 0), as the VM prints them.
local function as_int(value)
    if value == true then
        return 1
    elseif value == false then
        return 0
    end
    return value
end

local Benchmark = {}
Benchmark.__index = Benchmark
harness.Benchmark = Benchmark

-- A subclass: setmetatable({}, {__index = Benchmark}) with its own methods.
function Benchmark.subclass()
    local class = setmetatable({}, { __index = Benchmark })
    class.__index = class
    return class
end

function Benchmark:inner_benchmark_loop(inner_iterations)
    for _ = 1, inner_iterations do
        local result = self:benchmark()
        self.last_result = result
        if not self:verify_result(result) then
            return false
        end
    end
    return true
end

function Benchmark:benchmark()
    error("subclass responsibility: benchmark")
end

function Benchmark:verify_result(_)
    error("subclass responsibility: verify_result")
end

local Run = {}
Run.__index = Run

function Run:run_benchmark()
    print(self.name)
    print(self.num_iterations)
    print(self.inner_iterations)
    self:do_runs()
end

function Run:do_runs()
    for _ = 1, self.num_iterations do
        self:measure()
    end
end

function Run:measure()
    if not self.benchmark:inner_benchmark_loop(self.inner_iterations) then
        print("Benchmark failed with incorrect result")
        io.stdout:flush()
        os.exit(1)
    end
    print(as_int(self.benchmark.last_result))
end

-- class: a Benchmark subclass. As in the suite's Lua, the benchmark object
-- is the class table itself, so `self:method()` finds its own methods
-- there at once (only Benchmark's own go through the metatable).
function harness.run(class, name, default_inner)
    local bench = class
    bench.last_result = 0
    local r = setmetatable({
        name = name,
        benchmark = bench,
        num_iterations = (ITERATIONS ~= 0) and ITERATIONS or 1,
        inner_iterations = (INNER ~= 0) and INNER or default_inner,
    }, Run)
    r:run_benchmark()
end

return harness

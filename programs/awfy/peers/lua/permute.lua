-- permute.lua - the Lua twin of programs/awfy/src/permute.bc (Are We Fast
-- Yet: Permute): all permutations of 6 elements; 8660 permute() calls.
-- Usage: lua5.4 permute.lua [iterations [inner [expected]]]

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local Permute = harness.Benchmark.subclass()

function Permute:benchmark()
    self.count = 0
    self.v = { 0, 0, 0, 0, 0, 0 } -- 1-based, as the suite's Lua has it
    self:permute(6)
    return self.count
end

function Permute:verify_result(result)
    return result == harness.expect(8660)
end

function Permute:permute(n)
    self.count = self.count + 1
    if n ~= 0 then
        local n1 = n - 1
        self:permute(n1)
        for i = n, 1, -1 do
            self:swap(n, i)
            self:permute(n1)
            self:swap(n, i)
        end
    end
end

function Permute:swap(i, j)
    local tmp = self.v[i]
    self.v[i] = self.v[j]
    self.v[j] = tmp
end

harness.run(Permute, "Permute", 1)

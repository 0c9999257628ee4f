-- sieve.lua - the LuaJIT twin of programs/awfy/src/sieve.bc (Are We Fast Yet:
-- Sieve): primes up to 5000 by the sieve of Eratosthenes; 669.
-- Usage: luajit -joff sieve.lua [iterations [inner [expected]]]
-- The code is that of ../lua/sieve.lua; harness.lua and som.lua beside this
-- file are LuaJIT's.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local Sieve = harness.Benchmark.subclass()

function Sieve:benchmark()
    local flags = {}
    for i = 1, 5000 do
        flags[i] = true
    end
    return self:sieve(flags, 5000)
end

function Sieve:verify_result(result)
    return result == harness.expect(669)
end

-- flags[k - 1] says whether k may still be prime: the suite's Lua indexes
-- the flags as its other versions do, one below the number (flags[1] is 2).
function Sieve:sieve(flags, size)
    local prime_count = 0
    for i = 2, size do
        if flags[i - 1] then
            prime_count = prime_count + 1
            local k = i + i
            while k <= size do
                flags[k - 1] = false
                k = k + i
            end
        end
    end
    return prime_count
end

harness.run(Sieve, "Sieve", 1)

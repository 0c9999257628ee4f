-- storage.lua - the LuaJIT twin of programs/awfy/src/storage.bc (Are We Fast
-- Yet: Storage): a tree of arrays of depth 7; 5461 arrays.
-- Usage: luajit -joff storage.lua [iterations [inner [expected]]]
-- The code is that of ../lua/storage.lua; harness.lua and som.lua beside this
-- file are LuaJIT's.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")
local Random = require("som").Random

local Storage = harness.Benchmark.subclass()

function Storage:benchmark()
    local random = Random.new()
    self.count = 0
    self:build_tree_depth(7, random)
    return self.count
end

function Storage:verify_result(result)
    return result == harness.expect(5461)
end

-- An array of n elements (Lua tables grow; fill them to have the size).
local function new_array(n)
    local a = {}
    for i = 1, n do
        a[i] = false
    end
    return a
end

function Storage:build_tree_depth(depth, random)
    self.count = self.count + 1
    if depth == 1 then
        return new_array(random:next() % 10 + 1)
    end
    local arr = new_array(4)
    for i = 1, 4 do
        arr[i] = self:build_tree_depth(depth - 1, random)
    end
    return arr
end

harness.run(Storage, "Storage", 1)

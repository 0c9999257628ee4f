-- storage.lua - the Lua twin of programs/awfy/src/storage.bc (Are We Fast
-- Yet: Storage): a tree of arrays of depth 7; 5461 arrays.
-- Usage: lua5.4 storage.lua [iterations [inner [expected]]]

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

-- As the suite's Lua builds the tree: a leaf is a table that records the
-- size its array would have (Lua cannot allocate an array of a size), an
-- inner node a table constructor of its four subtrees.
function Storage:build_tree_depth(depth, random)
    self.count = self.count + 1
    if depth == 1 then
        return { n = random:next() % 10 + 1 }
    end
    return {
        n = 4,
        self:build_tree_depth(depth - 1, random),
        self:build_tree_depth(depth - 1, random),
        self:build_tree_depth(depth - 1, random),
        self:build_tree_depth(depth - 1, random),
    }
end

harness.run(Storage, "Storage", 1)

-- queens.lua - the LuaJIT twin of programs/awfy/src/queens.bc (Are We Fast Yet:
-- Queens): eight queens by backtracking, ten times; true (1).
-- Usage: luajit -joff queens.lua [iterations [inner [expected]]]
-- The code is that of ../lua/queens.lua; harness.lua and som.lua beside this
-- file are LuaJIT's.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local Queens = harness.Benchmark.subclass()

function Queens:benchmark()
    local result = true
    for _ = 1, 10 do
        result = result and self:queens()
    end
    return result
end

function Queens:verify_result(result)
    return (result and 1 or 0) == harness.expect(1)
end

function Queens:queens()
    -- 1-based table constructors, as the suite's Lua builds them
    self.free_rows = { true, true, true, true, true, true, true, true }
    self.free_maxs = { true, true, true, true, true, true, true, true,
        true, true, true, true, true, true, true, true }
    self.free_mins = { true, true, true, true, true, true, true, true,
        true, true, true, true, true, true, true, true }
    self.queen_rows = { -1, -1, -1, -1, -1, -1, -1, -1 }
    return self:place_queen(1)
end

function Queens:place_queen(c)
    for r = 1, 8 do
        if self:get_row_column(r, c) then
            self.queen_rows[r] = c
            self:set_row_column(r, c, false)
            if c == 8 then
                return true
            end
            if self:place_queen(c + 1) then
                return true
            end
            self:set_row_column(r, c, true)
        end
    end
    return false
end

function Queens:get_row_column(r, c)
    return self.free_rows[r] and self.free_maxs[c + r] and self.free_mins[c - r + 8]
end

function Queens:set_row_column(r, c, v)
    self.free_rows[r] = v
    self.free_maxs[c + r] = v
    self.free_mins[c - r + 8] = v
end

harness.run(Queens, "Queens", 1)

-- towers.lua - the LuaJIT twin of programs/awfy/src/towers.bc (Are We Fast Yet:
-- Towers): the towers of Hanoi with 13 disks; 8191 moves.
-- Usage: luajit -joff towers.lua [iterations [inner [expected]]]
-- The code is that of ../lua/towers.lua; harness.lua and som.lua beside this
-- file are LuaJIT's.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

-- A disk is a plain table, as in the suite's Lua (no class of its own).
local function new_disk(size)
    return { size = size, next = nil }
end

local Towers = harness.Benchmark.subclass()

-- piles are indexed 1..3, as in the suite's Lua
function Towers:push_disk(disk, pile)
    local top = self.piles[pile]
    if top and disk.size >= top.size then
        error("a larger disk cannot go on a smaller one")
    end
    disk.next = top
    self.piles[pile] = disk
end

function Towers:pop_disk_from(pile)
    local top = self.piles[pile]
    if not top then
        error("no disk to take from an empty pile")
    end
    self.piles[pile] = top.next
    top.next = nil
    return top
end

function Towers:move_top_disk(from_pile, to_pile)
    self:push_disk(self:pop_disk_from(from_pile), to_pile)
    self.moves_done = self.moves_done + 1
end

function Towers:build_tower_at(pile, disks)
    for i = disks, 1, -1 do
        self:push_disk(new_disk(i), pile)
    end
end

function Towers:move_disks(disks, from_pile, to_pile)
    if disks == 1 then
        self:move_top_disk(from_pile, to_pile)
    else
        local other_pile = 6 - from_pile - to_pile
        self:move_disks(disks - 1, from_pile, other_pile)
        self:move_top_disk(from_pile, to_pile)
        self:move_disks(disks - 1, other_pile, to_pile)
    end
end

function Towers:benchmark()
    self.piles = {}
    self:build_tower_at(1, 13)
    self.moves_done = 0
    self:move_disks(13, 1, 2)
    return self.moves_done
end

function Towers:verify_result(result)
    return result == harness.expect(8191)
end

harness.run(Towers, "Towers", 1)

-- list.lua - the LuaJIT twin of programs/awfy/src/list.bc (Are We Fast Yet:
-- List): the recursive tail function on linked lists; length 10.
-- Usage: luajit -joff list.lua [iterations [inner [expected]]]
-- The code is that of ../lua/list.lua; harness.lua and som.lua beside this
-- file are LuaJIT's.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local Element = {}
Element.__index = Element

function Element.new(v)
    return setmetatable({ val = v, next = false }, Element)
end

function Element:length()
    if not self.next then
        return 1
    end
    return 1 + self.next:length()
end

local List = harness.Benchmark.subclass()

function List:benchmark()
    local result = self:tail(self:make_list(15), self:make_list(10), self:make_list(6))
    return result:length()
end

function List:verify_result(result)
    return result == harness.expect(10)
end

function List:make_list(length)
    if length == 0 then
        return false
    end
    local e = Element.new(length)
    e.next = self:make_list(length - 1)
    return e
end

function List:is_shorter_than(x, y)
    local x_tail, y_tail = x, y
    while y_tail do
        if not x_tail then
            return true
        end
        x_tail = x_tail.next
        y_tail = y_tail.next
    end
    return false
end

function List:tail(x, y, z)
    if self:is_shorter_than(y, x) then
        return self:tail(self:tail(x.next, y, z), self:tail(y.next, z, x), self:tail(z.next, x, y))
    end
    return z
end

harness.run(List, "List", 1)

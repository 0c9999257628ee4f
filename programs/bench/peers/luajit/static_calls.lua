-- static_calls.lua - LuaJIT peer of ../../static_calls.bc: a chain of six
-- small functions, f1 calls f2 ... calls f6, 4,000,000 times. As
-- ../static_calls.lua, with bit.bxor and bit.band for Lua 5.4's ~ and &
-- (every x stays below 2^31, where the 32-bit bit library is exact).

local band, bxor = bit.band, bit.bxor
local f2, f3, f4, f5, f6

local function f1(x) return f2(x + 1) + 1 end
function f2(x) return f3(x + 7) + x end
function f3(x) return f4(x * 3) - 1 end
function f4(x) return f5(bxor(x, 0x55)) + 3 end
function f5(x) return f6(x + 5) * 2 end
function f6(x) return band(x, 1023) end

local sum = 0
for i = 0, 4000000 - 1 do
  sum = sum + f1(i)
end
print(sum)

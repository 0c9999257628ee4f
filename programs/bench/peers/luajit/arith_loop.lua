-- arith_loop.lua - LuaJIT peer of ../../arith_loop.bc: the same loop in
-- LuaJIT (Lua 5.1 + the bit library; numbers are doubles).
--
-- The .bc computes x * 1103515245 in 64-bit integers: with x < 2^31 the
-- product reaches 2.4e18, beyond the 2^53 up to which a double is exact,
-- and LuaJIT's bit operations take only the low 32 bits of an exact value.
-- So the product is taken modulo 2^31 in two exact halves: 1103515245 =
-- 16838 * 2^16 + 20077, x * 20077 < 2^46 and x * 16838 < 2^46; only the
-- low 15 bits of the second product survive the shift by 16 and the final
-- mask. This is one more multiply, shift and mask per iteration than the
-- .bc and the Lua 5.4 peer do: the LuaJIT time is an upper bound.

local band, rshift, lshift = bit.band, bit.rshift, bit.lshift

local function main()
  local x, sum = 1, 0
  for _ = 1, 50000000 do
    x = band(x * 20077 + lshift(band(x * 16838, 0x7fff), 16) + 12345, 0x7fffffff)
    sum = sum + rshift(x, 16)
  end
  print(x)
  print(sum)
end

main()

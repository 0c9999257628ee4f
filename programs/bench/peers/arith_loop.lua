-- arith_loop.lua - peer of ../arith_loop.bc: the same loop in Lua 5.4
-- (64-bit integers, like the VM).

local function main()
  local x, sum = 1, 0
  for _ = 1, 50000000 do
    x = (x * 1103515245 + 12345) & 0x7fffffff
    sum = sum + (x >> 16)
  end
  print(x)
  print(sum)
end

main()

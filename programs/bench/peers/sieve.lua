-- sieve.lua - peer of ../sieve.bc: sieve of Eratosthenes over 2,000,000
-- elements, 5 rounds, same loops.

local function count_primes(n)
  local composite = {}
  for k = 0, n - 1 do
    composite[k] = 0
  end
  local i = 2
  while i * i < n do
    if composite[i] == 0 then
      for j = i * i, n - 1, i do
        composite[j] = 1
      end
    end
    i = i + 1
  end
  local count = 0
  for k = 2, n - 1 do
    if composite[k] == 0 then
      count = count + 1
    end
  end
  return count
end

local count = 0
for _ = 1, 5 do
  count = count_primes(2000000)
end
print(count)

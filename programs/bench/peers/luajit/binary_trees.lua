-- binary_trees.lua - LuaJIT peer of ../../binary_trees.bc: the
-- binary-trees benchmark, max depth 16, printing the same numbers (one per
-- line). As ../binary_trees.lua, with bit.lshift for Lua 5.4's <<.

local function bottom_up_tree(depth)
  local node = { left = false, right = false }
  if depth ~= 0 then
    node.left = bottom_up_tree(depth - 1)
    node.right = bottom_up_tree(depth - 1)
  end
  return node
end

local function check(node)
  if not node.left then
    return 1
  end
  return check(node.left) + check(node.right) + 1
end

local max_depth = 16
print(check(bottom_up_tree(max_depth + 1)))
local long_lived = bottom_up_tree(max_depth)
for depth = 4, max_depth, 2 do
  local iterations = bit.lshift(1, max_depth - depth + 4)
  local total = 0
  for _ = 1, iterations do
    total = total + check(bottom_up_tree(depth))
  end
  print(iterations)
  print(depth)
  print(total)
end
print(check(long_lived))

-- havlak.lua - LuaJIT peer of ../../src/havlak.bc: Havlak's loop recognition with
-- the same classes, methods, checks and output, on the som collections of
-- som.lua (the suite's closures are Lua closures here).
-- Usage: luajit -joff havlak.lua [iterations [inner [expected]]]
-- The code is that of ../lua/havlak.lua; harness.lua and som.lua beside this
-- file are LuaJIT's.

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")
local som = require("som")
local class, Vector, Set, IdentitySet, IdentityDictionary =
  som.class, som.Vector, som.Set, som.IdentitySet, som.IdentityDictionary

local UNVISITED = 2147483647
local MAXNONBACKPREDS = 32768
local BB_NONHEADER, BB_REDUCIBLE, BB_SELF, BB_IRREDUCIBLE, BB_DEAD = 1, 2, 3, 4, 5

local BasicBlock = class()
function BasicBlock.new(name)
  return setmetatable({name = name, in_edges = Vector.new(2), out_edges = Vector.new(2)}, BasicBlock)
end
function BasicBlock:get_num_pred() return self.in_edges:size() end
function BasicBlock:add_out_edge(to) self.out_edges:append(to) end
function BasicBlock:add_in_edge(from) self.in_edges:append(from) end
function BasicBlock:custom_hash() return self.name end

local BasicBlockEdge = class()
function BasicBlockEdge.new(cfg, from_name, to_name)
  local e = setmetatable({}, BasicBlockEdge)
  e.from = cfg:create_node(from_name)
  e.to = cfg:create_node(to_name)
  e.from:add_out_edge(e.to)
  e.to:add_in_edge(e.from)
  cfg:add_edge(e)
  return e
end

local ControlFlowGraph = class()
function ControlFlowGraph.new()
  return setmetatable({start_basic_block = nil, basic_blocks = Vector.new(), edge_list = Vector.new()}, ControlFlowGraph)
end
function ControlFlowGraph:create_node(name)
  local node = self.basic_blocks:at(name)
  if not node then
    node = BasicBlock.new(name)
    self.basic_blocks:at_put(name, node)
  end
  if self:num_nodes() == 1 then self.start_basic_block = node end
  return node
end
function ControlFlowGraph:add_edge(edge) self.edge_list:append(edge) end
function ControlFlowGraph:num_nodes() return self.basic_blocks:size() end

local SimpleLoop = class()
function SimpleLoop.new(bb, is_reducible)
  local l = setmetatable({is_reducible = is_reducible, parent = nil, is_root = false, nesting_level = 0,
                          depth_level = 0, counter = 0, basic_blocks = IdentitySet.new(),
                          children = IdentitySet.new()}, SimpleLoop)
  if bb ~= nil then l.basic_blocks:add(bb) end
  l.header = bb
  return l
end
function SimpleLoop:add_node(bb) self.basic_blocks:add(bb) end
function SimpleLoop:add_child_loop(loop) self.children:add(loop) end
function SimpleLoop:set_parent(parent)
  self.parent = parent
  parent:add_child_loop(self)
end
function SimpleLoop:set_nesting_level(level)
  self.nesting_level = level
  if level == 0 then self.is_root = true end
end

local LoopStructureGraph = class()
function LoopStructureGraph.new()
  local g = setmetatable({loop_counter = 0, loops = Vector.new()}, LoopStructureGraph)
  g.root = SimpleLoop.new(nil, true)
  g.root:set_nesting_level(0)
  g.root.counter = g.loop_counter
  g.loop_counter = g.loop_counter + 1
  g.loops:append(g.root)
  return g
end
function LoopStructureGraph:create_new_loop(bb, is_reducible)
  local loop = SimpleLoop.new(bb, is_reducible)
  loop.counter = self.loop_counter
  self.loop_counter = self.loop_counter + 1
  self.loops:append(loop)
  return loop
end
function LoopStructureGraph:calculate_nesting_level()
  self.loops:for_each(function(liter)
    if not liter.is_root and liter.parent == nil then liter:set_parent(self.root) end
  end)
  self:calculate_nesting_level_rec(self.root, 0)
end
function LoopStructureGraph:calculate_nesting_level_rec(loop, depth)
  loop.depth_level = depth
  loop.children:for_each(function(liter)
    self:calculate_nesting_level_rec(liter, depth + 1)
    loop:set_nesting_level(math.max(loop.nesting_level, 1 + liter.nesting_level))
  end)
end
function LoopStructureGraph:num_loops() return self.loops:size() end

local UnionFindNode = class()
function UnionFindNode.new() return setmetatable({parent = nil, bb = nil, dfs_number = 0, loop = nil}, UnionFindNode) end
function UnionFindNode:init_node(bb, dfs_number)
  self.parent = self
  self.bb = bb
  self.dfs_number = dfs_number
  self.loop = nil
end
function UnionFindNode:find_set()
  local node_list = Vector.new()
  local node = self
  while node ~= node.parent do
    if node.parent ~= node.parent.parent then node_list:append(node) end
    node = node.parent
  end
  local parent = self.parent
  node_list:for_each(function(n) n:union(parent) end)
  return node
end
function UnionFindNode:union(basic_block) self.parent = basic_block end

local HavlakLoopFinder = class()
function HavlakLoopFinder.new(cfg, lsg)
  return setmetatable({cfg = cfg, lsg = lsg, non_back_preds = Vector.new(), back_preds = Vector.new(),
                       number = IdentityDictionary.new(), max_size = 0}, HavlakLoopFinder)
end
function HavlakLoopFinder:is_ancestor(w, v) return w <= v and v <= self.last[w] end
function HavlakLoopFinder:do_dfs(current_node, current)
  self.nodes[current]:init_node(current_node, current)
  self.number:at_put(current_node, current)
  local last_id = current
  current_node.out_edges:for_each(function(target)
    if self.number:at(target) == UNVISITED then last_id = self:do_dfs(target, last_id + 1) end
  end)
  self.last[current] = last_id
  return last_id
end
function HavlakLoopFinder:init_all_nodes()
  self.cfg.basic_blocks:for_each(function(bb) self.number:at_put(bb, UNVISITED) end)
  self:do_dfs(self.cfg.start_basic_block, 0)
end
function HavlakLoopFinder:identify_edges(size)
  for w = 0, size - 1 do
    self.header[w] = 0
    self.type[w] = BB_NONHEADER
    local node_w = self.nodes[w].bb
    if node_w == nil then
      self.type[w] = BB_DEAD
    else
      self:process_edges(node_w, w)
    end
  end
end
function HavlakLoopFinder:process_edges(node_w, w)
  if node_w:get_num_pred() > 0 then
    node_w.in_edges:for_each(function(node_v)
      local v = self.number:at(node_v)
      if v ~= UNVISITED then
        if self:is_ancestor(w, v) then
          self.back_preds:at(w):append(v)
        else
          self.non_back_preds:at(w):add(v)
        end
      end
    end)
  end
end
function HavlakLoopFinder:find_loops()
  if self.cfg.start_basic_block == nil then return end
  local size = self.cfg:num_nodes()
  self.non_back_preds:remove_all()
  self.back_preds:remove_all()
  self.number:remove_all()
  if size > self.max_size then
    self.header, self.type, self.last, self.nodes = {}, {}, {}, {}
    self.max_size = size
  end
  for i = 0, size - 1 do
    self.non_back_preds:append(Set.new())
    self.back_preds:append(Vector.new())
    self.nodes[i] = UnionFindNode.new()
  end
  self:init_all_nodes()
  self:identify_edges(size)
  self.header[0] = 0
  for w = size - 1, 0, -1 do
    local node_pool = Vector.new()
    local node_w = self.nodes[w].bb
    if node_w ~= nil then
      self:step_d(w, node_pool)
      local work_list = Vector.new()
      node_pool:for_each(function(x) work_list:append(x) end)
      if node_pool:size() ~= 0 then self.type[w] = BB_REDUCIBLE end
      while not work_list:is_empty() do
        local x = work_list:remove_first()
        if self.non_back_preds:at(x.dfs_number):size() > MAXNONBACKPREDS then return end
        self:step_e_process_non_back_preds(w, node_pool, work_list, x)
      end
    end
    if node_pool:size() > 0 or self.type[w] == BB_SELF then
      local loop = self.lsg:create_new_loop(node_w, self.type[w] ~= BB_IRREDUCIBLE)
      self:set_loop_attributes(w, node_pool, loop)
    end
  end
end
function HavlakLoopFinder:step_e_process_non_back_preds(w, node_pool, work_list, x)
  self.non_back_preds:at(x.dfs_number):for_each(function(i)
    local ydash = self.nodes[i]:find_set()
    if not self:is_ancestor(w, ydash.dfs_number) then
      self.type[w] = BB_IRREDUCIBLE
      self.non_back_preds:at(w):add(ydash.dfs_number)
    elseif ydash.dfs_number ~= w then
      work_list:append(ydash)
      node_pool:append(ydash)
    end
  end)
end
function HavlakLoopFinder:set_loop_attributes(w, node_pool, loop)
  self.nodes[w].loop = loop
  node_pool:for_each(function(node)
    self.header[node.dfs_number] = w
    node:union(self.nodes[w])
    if node.loop ~= nil then
      node.loop:set_parent(loop)
    else
      loop:add_node(node.bb)
    end
  end)
end
function HavlakLoopFinder:step_d(w, node_pool)
  self.back_preds:at(w):for_each(function(v)
    if v ~= w then
      node_pool:append(self.nodes[v]:find_set())
    else
      self.type[w] = BB_SELF
    end
  end)
end

local LoopTesterApp = class()
function LoopTesterApp.new()
  local app = setmetatable({cfg = ControlFlowGraph.new(), lsg = LoopStructureGraph.new()}, LoopTesterApp)
  app.cfg:create_node(0)
  return app
end
function LoopTesterApp:build_diamond(start)
  BasicBlockEdge.new(self.cfg, start, start + 1)
  BasicBlockEdge.new(self.cfg, start, start + 2)
  BasicBlockEdge.new(self.cfg, start + 1, start + 3)
  BasicBlockEdge.new(self.cfg, start + 2, start + 3)
  return start + 3
end
function LoopTesterApp:build_connect(start, end_) BasicBlockEdge.new(self.cfg, start, end_) end
function LoopTesterApp:build_straight(start, n)
  for i = 0, n - 1 do self:build_connect(start + i, start + i + 1) end
  return start + n
end
function LoopTesterApp:build_base_loop(from)
  local header = self:build_straight(from, 1)
  local diamond1 = self:build_diamond(header)
  local d11 = self:build_straight(diamond1, 1)
  local diamond2 = self:build_diamond(d11)
  local footer = self:build_straight(diamond2, 1)
  self:build_connect(diamond2, d11)
  self:build_connect(diamond1, header)
  self:build_connect(footer, from)
  return self:build_straight(footer, 1)
end
function LoopTesterApp:main(num_dummy_loops, find_loop_iterations, par_loops, ppar_loops, pppar_loops)
  self:construct_simple_cfg()
  self:add_dummy_loops(num_dummy_loops)
  self:construct_cfg(par_loops, ppar_loops, pppar_loops)
  self:find_loops_in(self.lsg)
  for _ = 1, find_loop_iterations do self:find_loops_in(LoopStructureGraph.new()) end
  self.lsg:calculate_nesting_level()
  return {self.lsg:num_loops(), self.cfg:num_nodes()}
end
function LoopTesterApp:construct_cfg(par_loops, ppar_loops, pppar_loops)
  local n = 2
  for _ = 1, par_loops do
    self.cfg:create_node(n + 1)
    self:build_connect(2, n + 1)
    n = n + 1
    for _ = 1, ppar_loops do
      local top = n
      n = self:build_straight(n, 1)
      for _ = 1, pppar_loops do n = self:build_base_loop(n) end
      local bottom = self:build_straight(n, 1)
      self:build_connect(n, top)
      n = bottom
    end
    self:build_connect(n, 1)
  end
end
function LoopTesterApp:add_dummy_loops(num_dummy_loops)
  for _ = 1, num_dummy_loops do self:find_loops_in(self.lsg) end
end
function LoopTesterApp:find_loops_in(loop_structure)
  HavlakLoopFinder.new(self.cfg, loop_structure):find_loops()
end
function LoopTesterApp:construct_simple_cfg()
  self.cfg:create_node(0)
  self:build_base_loop(0)
  self.cfg:create_node(1)
  BasicBlockEdge.new(self.cfg, 0, 2)
end

local EXPECTED_LOOPS = {[15000] = 46602, [1500] = 6102, [150] = 2052, [15] = 1647, [1] = 1605}

local Havlak = harness.Benchmark.subclass()
function Havlak:inner_benchmark_loop(inner_iterations)
  local result = LoopTesterApp.new():main(inner_iterations, 50, 10, 10, 5)
  self.last_result = result[1]
  return self:verify_havlak(result, inner_iterations)
end
function Havlak:verify_havlak(result, inner_iterations)
  local want = EXPECTED_LOOPS[inner_iterations]
  if want == nil then
    print("No verification result for")
    print(inner_iterations)
    print("Result is:")
    print(result[1])
    print(result[2])
    return false
  end
  return result[1] == harness.expect(want) and result[2] == 5213
end

harness.run(Havlak, "Havlak", 1)

-- richards.lua - LuaJIT peer of ../../richards.bc: the Richards benchmark
-- with the same classes, methods and checks, printing the same lines.
-- Usage: luajit -joff richards.lua [iterations [inner [expected]]]
-- As ../lua/richards.lua, with bit.band and bit.bxor for Lua 5.4's & and ~,
-- and math.floor(a / 2) for a // 2, on the idler's control word (always
-- below 2^16).

package.path = (arg[0]:match("^(.*/)") or "./") .. "?.lua;" .. package.path
local harness = require("harness")

local IDLER, WORKER, HANDLER_A, HANDLER_B, DEVICE_A, DEVICE_B = 0, 1, 2, 3, 4, 5
local DEVICE_PACKET_KIND, WORK_PACKET_KIND = 0, 1
local DATA_SIZE = 4
local band, bxor, floor = bit.band, bit.bxor, math.floor

-- class(super): a table of methods with single inheritance through __index.
local function class(super)
  local c = {}
  c.__index = c
  if super then setmetatable(c, super) end
  return c
end

local RBObject = class()

function RBObject:append_packet(packet, queue_head)
  packet.link = nil
  if queue_head == nil then return packet end
  local mouse = queue_head
  while true do
    local link = mouse.link
    if link == nil then break end
    mouse = link
  end
  mouse.link = packet
  return queue_head
end

local Packet = class(RBObject)

function Packet.new(link, identity, kind)
  local data = {}
  for i = 1, DATA_SIZE do data[i] = 0 end
  return setmetatable({link = link, identity = identity, kind = kind, datum = 0, data = data}, Packet)
end

local DeviceTaskDataRecord = class(RBObject)
function DeviceTaskDataRecord.new() return setmetatable({pending = nil}, DeviceTaskDataRecord) end

local HandlerTaskDataRecord = class(RBObject)
function HandlerTaskDataRecord.new() return setmetatable({work_in = nil, device_in = nil}, HandlerTaskDataRecord) end
function HandlerTaskDataRecord:device_in_add(packet) self.device_in = self:append_packet(packet, self.device_in) end
function HandlerTaskDataRecord:work_in_add(packet) self.work_in = self:append_packet(packet, self.work_in) end

local IdleTaskDataRecord = class(RBObject)
function IdleTaskDataRecord.new() return setmetatable({control = 1, count = 10000}, IdleTaskDataRecord) end

local WorkerTaskDataRecord = class(RBObject)
function WorkerTaskDataRecord.new() return setmetatable({destination = HANDLER_A, count = 0}, WorkerTaskDataRecord) end

local TaskState = class(RBObject)
function TaskState.new()
  return setmetatable({packet_pending = false, task_waiting = false, task_holding = false}, TaskState)
end
function TaskState:is_packet_pending() return self.packet_pending end
function TaskState:is_task_waiting() return self.task_waiting end
function TaskState:is_task_holding() return self.task_holding end
function TaskState:set_task_holding(b) self.task_holding = b end
function TaskState:set_task_waiting(b) self.task_waiting = b end
function TaskState:set_states(pending, waiting, holding)
  self.packet_pending = pending
  self.task_waiting = waiting
  self.task_holding = holding
  return self
end
function TaskState:packet_pending_state() return self:set_states(true, false, false) end
function TaskState:running() return self:set_states(false, false, false) end
function TaskState:waiting() return self:set_states(false, true, false) end
function TaskState:waiting_with_packet() return self:set_states(true, true, false) end
function TaskState:is_task_holding_or_waiting()
  return self.task_holding or (not self.packet_pending and self.task_waiting)
end
function TaskState:is_waiting_with_packet()
  return self.packet_pending and self.task_waiting and not self.task_holding
end

local TaskControlBlock = class(TaskState)
function TaskControlBlock.new(link, identity, priority, work, state, data, fn)
  local t = setmetatable({}, TaskControlBlock)
  t.link = link
  t.identity = identity
  t.fn = fn
  t.priority = priority
  t.input = work
  t.handle = data
  t.packet_pending = state:is_packet_pending()
  t.task_waiting = state:is_task_waiting()
  t.task_holding = state:is_task_holding()
  return t
end

function TaskControlBlock:add_input_and_check_priority(packet, old_task)
  if self.input == nil then
    self.input = packet
    self.packet_pending = true
    if self.priority > old_task.priority then return self end
  else
    self.input = self:append_packet(packet, self.input)
  end
  return old_task
end

function TaskControlBlock:run_task()
  local message
  if self:is_waiting_with_packet() then
    message = self.input
    self.input = message.link
    if self.input == nil then
      self:running()
    else
      self:packet_pending_state()
    end
  else
    message = nil
  end
  return self.fn:process(message, self.handle)
end

local ProcessFunction = class()
local function new_function(c) return setmetatable({scheduler = nil}, c) end

local DeviceFunction = class(ProcessFunction)
function DeviceFunction:process(work, data)
  local s = self.scheduler
  if work == nil then
    work = data.pending
    if work == nil then return s:mark_waiting() end
    data.pending = nil
    return s:queue_packet(work)
  end
  data.pending = work
  return s:hold_self()
end

local HandlerFunction = class(ProcessFunction)
function HandlerFunction:process(work, data)
  local s = self.scheduler
  if work ~= nil then
    if work.kind == WORK_PACKET_KIND then
      data:work_in_add(work)
    else
      data:device_in_add(work)
    end
  end
  local work_packet = data.work_in
  if work_packet == nil then return s:mark_waiting() end
  local count = work_packet.datum
  if count >= DATA_SIZE then
    data.work_in = work_packet.link
    return s:queue_packet(work_packet)
  end
  local device_packet = data.device_in
  if device_packet == nil then return s:mark_waiting() end
  data.device_in = device_packet.link
  device_packet.datum = work_packet.data[count + 1]
  work_packet.datum = count + 1
  return s:queue_packet(device_packet)
end

local IdlerFunction = class(ProcessFunction)
function IdlerFunction:process(work, data)
  local s = self.scheduler
  data.count = data.count - 1
  if data.count == 0 then return s:hold_self() end
  if band(data.control, 1) == 0 then
    data.control = floor(data.control / 2)
    return s:release(DEVICE_A)
  end
  data.control = bxor(floor(data.control / 2), 53256)
  return s:release(DEVICE_B)
end

local WorkerFunction = class(ProcessFunction)
function WorkerFunction:process(work, data)
  local s = self.scheduler
  if work == nil then return s:mark_waiting() end
  if data.destination == HANDLER_A then
    data.destination = HANDLER_B
  else
    data.destination = HANDLER_A
  end
  work.identity = data.destination
  work.datum = 0
  for i = 1, DATA_SIZE do
    data.count = data.count + 1
    if data.count > 26 then data.count = 1 end
    work.data[i] = 64 + data.count
  end
  return s:queue_packet(work)
end

local Scheduler = class(RBObject)
function Scheduler.new()
  return setmetatable({task_list = nil, current_task = nil, current_task_identity = 0,
                       task_table = {}, queue_count = 0, hold_count = 0}, Scheduler)
end

function Scheduler:create_task(identity, priority, work, state, data, fn)
  fn.scheduler = self
  local t = TaskControlBlock.new(self.task_list, identity, priority, work, state, data, fn)
  self.task_list = t
  self.task_table[identity] = t
end
function Scheduler:create_device(identity, priority, work, state)
  self:create_task(identity, priority, work, state, DeviceTaskDataRecord.new(), new_function(DeviceFunction))
end
function Scheduler:create_handler(identity, priority, work, state)
  self:create_task(identity, priority, work, state, HandlerTaskDataRecord.new(), new_function(HandlerFunction))
end
function Scheduler:create_idler(identity, priority, work, state)
  self:create_task(identity, priority, work, state, IdleTaskDataRecord.new(), new_function(IdlerFunction))
end
function Scheduler:create_worker(identity, priority, work, state)
  self:create_task(identity, priority, work, state, WorkerTaskDataRecord.new(), new_function(WorkerFunction))
end
function Scheduler:create_packet(link, identity, kind) return Packet.new(link, identity, kind) end

function Scheduler:start()
  self:create_idler(IDLER, 0, nil, TaskState.new():running())
  local wkq = self:create_packet(nil, WORKER, WORK_PACKET_KIND)
  wkq = self:create_packet(wkq, WORKER, WORK_PACKET_KIND)
  self:create_worker(WORKER, 1000, wkq, TaskState.new():waiting_with_packet())
  wkq = self:create_packet(nil, DEVICE_A, DEVICE_PACKET_KIND)
  wkq = self:create_packet(wkq, DEVICE_A, DEVICE_PACKET_KIND)
  wkq = self:create_packet(wkq, DEVICE_A, DEVICE_PACKET_KIND)
  self:create_handler(HANDLER_A, 2000, wkq, TaskState.new():waiting_with_packet())
  wkq = self:create_packet(nil, DEVICE_B, DEVICE_PACKET_KIND)
  wkq = self:create_packet(wkq, DEVICE_B, DEVICE_PACKET_KIND)
  wkq = self:create_packet(wkq, DEVICE_B, DEVICE_PACKET_KIND)
  self:create_handler(HANDLER_B, 3000, wkq, TaskState.new():waiting_with_packet())
  self:create_device(DEVICE_A, 4000, nil, TaskState.new():waiting())
  self:create_device(DEVICE_B, 5000, nil, TaskState.new():waiting())
  self:schedule()
  return self.queue_count == harness.expect(23246) and self.hold_count == 9297
end

function Scheduler:find_task(identity)
  local t = self.task_table[identity]
  if t == nil then error("find_task failed") end
  return t
end

function Scheduler:hold_self()
  self.hold_count = self.hold_count + 1
  self.current_task:set_task_holding(true)
  return self.current_task.link
end

function Scheduler:queue_packet(packet)
  local task = self:find_task(packet.identity)
  if task == nil then return nil end
  self.queue_count = self.queue_count + 1
  packet.link = nil
  packet.identity = self.current_task_identity
  return task:add_input_and_check_priority(packet, self.current_task)
end

function Scheduler:release(identity)
  local task = self:find_task(identity)
  if task == nil then return nil end
  task:set_task_holding(false)
  if task.priority > self.current_task.priority then return task end
  return self.current_task
end

function Scheduler:mark_waiting()
  self.current_task:set_task_waiting(true)
  return self.current_task
end

function Scheduler:schedule()
  self.current_task = self.task_list
  while self.current_task ~= nil do
    local task = self.current_task
    if task:is_task_holding_or_waiting() then
      self.current_task = task.link
    else
      self.current_task_identity = task.identity
      self.current_task = task:run_task()
    end
  end
end

local Richards = harness.Benchmark.subclass()
function Richards:benchmark() return Scheduler.new():start() end
function Richards:verify_result(result) return result end

harness.run(Richards, "Richards", 1)

-- json.lua - LuaJIT peer of ../../src/json.bc: the Json benchmark (the
-- suite's minimal-json parser) with the same classes, methods, checks and
-- output. It reads the input text from ../../data/rap.json once, before the
-- runs. Usage: luajit -joff json.lua [iterations [inner [expected]]]
-- As ../lua/json.lua, with bit.band for Lua 5.4's & in HashIndexTable (the
-- name's length times 1402589 stays far below 2^31) and "*a" for "a".

local here = arg[0]:match("^(.*/)") or "./"
package.path = here .. "?.lua;" .. package.path
local harness = require("harness")
local band = bit.band

local f = assert(io.open(here .. "../../data/rap.json", "r"))
local RAP_INPUT = f:read("*a")
f:close()

local function class(super)
  local c = {}
  c.__index = c
  if super then setmetatable(c, super) end
  return c
end

local JsonValue = class()
function JsonValue:is_object() return false end
function JsonValue:is_array() return false end
function JsonValue:is_number() return false end
function JsonValue:is_string() return false end
function JsonValue:is_boolean() return false end
function JsonValue:is_true() return false end
function JsonValue:is_false() return false end
function JsonValue:is_null() return false end
function JsonValue:as_object() error("Unsupported operation, not an object") end
function JsonValue:as_array() error("Unsupported operation, not an array") end

local JsonArray = class(JsonValue)
function JsonArray.new() return setmetatable({values = {}}, JsonArray) end
function JsonArray:add(value)
  if value == nil then error("value is null") end
  self.values[#self.values + 1] = value
  return self
end
function JsonArray:size() return #self.values end
function JsonArray:get(index) return self.values[index + 1] end
function JsonArray:is_array() return true end
function JsonArray:as_array() return self end

local JsonNumber = class(JsonValue)
function JsonNumber.new(string) return setmetatable({string = string}, JsonNumber) end
function JsonNumber:as_string() return self.string end
function JsonNumber:is_number() return true end

local JsonString = class(JsonValue)
function JsonString.new(string) return setmetatable({string = string}, JsonString) end
function JsonString:is_string() return true end

local JsonLiteral = class(JsonValue)
function JsonLiteral.new(value)
  return setmetatable({value = value, null_flag = value == "null", true_flag = value == "true",
                       false_flag = value == "false"}, JsonLiteral)
end
function JsonLiteral:is_null() return self.null_flag end
function JsonLiteral:is_true() return self.true_flag end
function JsonLiteral:is_false() return self.false_flag end
function JsonLiteral:as_string() return self.value end
function JsonLiteral:is_boolean() return self.true_flag or self.false_flag end

local HashIndexTable = class()
function HashIndexTable.new()
  local t = {}
  for i = 1, 32 do t[i] = 0 end
  return setmetatable({hash_table = t}, HashIndexTable)
end
function HashIndexTable:hash_slot_for(name)
  return band(#name * 1402589, #self.hash_table - 1)
end
function HashIndexTable:add_index(name, index)
  local slot = self:hash_slot_for(name)
  if index < 255 then
    self.hash_table[slot + 1] = band(index + 1, 255)
  else
    self.hash_table[slot + 1] = 0
  end
end
function HashIndexTable:get(name)
  return band(self.hash_table[self:hash_slot_for(name) + 1], 255) - 1
end

local JsonObject = class(JsonValue)
function JsonObject.new()
  return setmetatable({names = {}, values = {}, table = HashIndexTable.new()}, JsonObject)
end
function JsonObject:add_member(name, value)
  if name == nil then error("name is null") end
  if value == nil then error("value is null") end
  self.table:add_index(name, #self.names)
  self.names[#self.names + 1] = name
  self.values[#self.values + 1] = value
  return self
end
function JsonObject:get(name)
  if name == nil then error("name is null") end
  local index = self:index_of(name)
  if index == -1 then return nil end
  return self.values[index + 1]
end
function JsonObject:size() return #self.names end
function JsonObject:is_empty() return #self.names == 0 end
function JsonObject:is_object() return true end
function JsonObject:as_object() return self end
function JsonObject:index_of(name)
  local index = self.table:get(name)
  if index ~= -1 and name == self.names[index + 1] then return index end
  error("NotImplemented")
end

local ParseException = class()
function ParseException.new(message, offset, line, column)
  return setmetatable({message = message, offset = offset, line = line, column = column}, ParseException)
end

local Parser = class()
function Parser.new(string)
  return setmetatable({input = string, index = -1, line = 1, capture_start = -1, column = 0,
                       current = nil, capture_buffer = {},
                       literal_null = JsonLiteral.new("null"), literal_true = JsonLiteral.new("true"),
                       literal_false = JsonLiteral.new("false")}, Parser)
end

function Parser:parse()
  self:read()
  self:skip_white_space()
  local result = self:read_value()
  self:skip_white_space()
  if not self:is_end_of_text() then error(self:error("Unexpected character")) end
  return result
end

function Parser:read_value()
  local c = self.current
  if c == "n" then return self:read_null() end
  if c == "t" then return self:read_true() end
  if c == "f" then return self:read_false() end
  if c == '"' then return self:read_string() end
  if c == "[" then return self:read_array() end
  if c == "{" then return self:read_object() end
  if c == "-" or self:is_digit() then return self:read_number() end
  error(self:expected("Expected value"))
end

function Parser:read_array_element(array)
  self:skip_white_space()
  array:add(self:read_value())
  self:skip_white_space()
end

function Parser:read_array()
  self:read()
  local array = JsonArray.new()
  self:skip_white_space()
  if self:read_char("]") then return array end
  self:read_array_element(array)
  while self:read_char(",") do self:read_array_element(array) end
  if not self:read_char("]") then error(self:expected("Expected ',' or ']'")) end
  return array
end

function Parser:read_object_key_value_pair(obj)
  self:skip_white_space()
  local name = self:read_name()
  self:skip_white_space()
  if not self:read_char(":") then error(self:expected("Expected ':'")) end
  self:skip_white_space()
  obj:add_member(name, self:read_value())
  self:skip_white_space()
end

function Parser:read_object()
  self:read()
  local obj = JsonObject.new()
  self:skip_white_space()
  if self:read_char("}") then return obj end
  self:read_object_key_value_pair(obj)
  while self:read_char(",") do self:read_object_key_value_pair(obj) end
  if not self:read_char("}") then error(self:expected("Expected ',' or '}'")) end
  return obj
end

function Parser:read_name()
  if self.current ~= '"' then error(self:expected("Expected name")) end
  return self:read_string_internal()
end

function Parser:read_null()
  self:read()
  self:read_required_char("u")
  self:read_required_char("l")
  self:read_required_char("l")
  return self.literal_null
end

function Parser:read_true()
  self:read()
  self:read_required_char("r")
  self:read_required_char("u")
  self:read_required_char("e")
  return self.literal_true
end

function Parser:read_false()
  self:read()
  self:read_required_char("a")
  self:read_required_char("l")
  self:read_required_char("s")
  self:read_required_char("e")
  return self.literal_false
end

function Parser:read_required_char(ch)
  if not self:read_char(ch) then error(self:expected("Expected a literal's next character")) end
end

function Parser:read_string() return JsonString.new(self:read_string_internal()) end

function Parser:read_string_internal()
  self:read()
  self:start_capture()
  while self.current ~= '"' do
    if self.current == "\\" then
      self:pause_capture()
      self:read_escape()
      self:start_capture()
    else
      self:read()
    end
  end
  local string = self:end_capture()
  self:read()
  return string
end

local ESCAPES = {['"'] = '"', ["/"] = "/", ["\\"] = "\\", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t"}
function Parser:read_escape_char()
  local e = ESCAPES[self.current]
  if e == nil then error(self:expected("Expected valid escape sequence")) end
  return e
end

function Parser:read_escape()
  self:read()
  self.capture_buffer[#self.capture_buffer + 1] = self:read_escape_char()
  self:read()
end

function Parser:read_number()
  self:start_capture()
  self:read_char("-")
  local first_digit = self.current
  if not self:read_digit() then error(self:expected("Expected digit")) end
  if first_digit ~= "0" then
    while self:read_digit() do end
  end
  self:read_fraction()
  self:read_exponent()
  return JsonNumber.new(self:end_capture())
end

function Parser:read_fraction()
  if not self:read_char(".") then return false end
  if not self:read_digit() then error(self:expected("Expected digit")) end
  while self:read_digit() do end
  return true
end

function Parser:read_exponent()
  if not self:read_char("e") and not self:read_char("E") then return false end
  if not self:read_char("+") then self:read_char("-") end
  if not self:read_digit() then error(self:expected("Expected digit")) end
  while self:read_digit() do end
  return true
end

function Parser:read_char(ch)
  if self.current ~= ch then return false end
  self:read()
  return true
end

function Parser:read_digit()
  if not self:is_digit() then return false end
  self:read()
  return true
end

function Parser:skip_white_space()
  while self:is_white_space() do self:read() end
end

function Parser:read()
  if self.current == "\n" then
    self.line = self.line + 1
    self.column = 0
  end
  self.index = self.index + 1
  if self.index < #self.input then
    self.current = self.input:sub(self.index + 1, self.index + 1)
  else
    self.current = nil
  end
end

function Parser:start_capture() self.capture_start = self.index end

function Parser:capture_end()
  if self.current == nil then return self.index end
  return self.index - 1
end

function Parser:pause_capture()
  self.capture_buffer[#self.capture_buffer + 1] = self.input:sub(self.capture_start + 1, self:capture_end() + 1)
  self.capture_start = -1
end

function Parser:end_capture()
  local end_ = self:capture_end()
  local captured
  if #self.capture_buffer == 0 then
    captured = self.input:sub(self.capture_start + 1, end_ + 1)
  else
    self.capture_buffer[#self.capture_buffer + 1] = self.input:sub(self.capture_start + 1, end_ + 1)
    captured = table.concat(self.capture_buffer)
    self.capture_buffer = {}
  end
  self.capture_start = -1
  return captured
end

function Parser:expected(message)
  if self:is_end_of_text() then return self:error("Unexpected end of input") end
  return self:error(message)
end

function Parser:error(message)
  return ParseException.new(message, self.index, self.line, self.column - 1)
end

function Parser:is_white_space()
  local c = self.current
  return c == " " or c == "\t" or c == "\n" or c == "\r"
end

function Parser:is_digit()
  local c = self.current
  return c ~= nil and c >= "0" and c <= "9"
end

function Parser:is_end_of_text() return self.current == nil end

local Json = harness.Benchmark.subclass()
function Json:benchmark() return Parser.new(RAP_INPUT):parse() end
function Json:verify_result(result)
  if not result:is_object() then return false end
  if not result:as_object():get("head"):is_object() then return false end
  local operations = result:as_object():get("operations")
  if not operations:is_array() then return false end
  local size = operations:as_array():size()
  if size ~= harness.expect(156) then return false end
  self.last_result = size
  return true
end

harness.run(Json, "Json", 1)

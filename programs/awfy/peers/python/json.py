# json.py - peer of ../../src/json.bc: the Json benchmark (the suite's
# minimal-json parser) with the same classes, methods, checks and output.
# It reads the input text from ../../data/rap.json once, before the runs.
# Usage: python3 json.py [iterations [inner [expected]]]
import os

from harness import Benchmark, expect, run

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "rap.json"),
          encoding="ascii") as f:
    RAP_INPUT = f.read()


class JsonValue:
    def is_object(self):
        return False

    def is_array(self):
        return False

    def is_number(self):
        return False

    def is_string(self):
        return False

    def is_boolean(self):
        return False

    def is_true(self):
        return False

    def is_false(self):
        return False

    def is_null(self):
        return False

    def as_object(self):
        raise Exception("Unsupported operation, not an object")

    def as_array(self):
        raise Exception("Unsupported operation, not an array")


class JsonArray(JsonValue):
    def __init__(self):
        self.values = []

    def add(self, value):
        if value is None:
            raise Exception("value is null")
        self.values.append(value)
        return self

    def size(self):
        return len(self.values)

    def get(self, index):
        return self.values[index]

    def is_array(self):
        return True

    def as_array(self):
        return self


class JsonNumber(JsonValue):
    def __init__(self, string):
        self.string = string

    def as_string(self):
        return self.string

    def is_number(self):
        return True


class JsonString(JsonValue):
    def __init__(self, string):
        self.string = string

    def is_string(self):
        return True


class JsonLiteral(JsonValue):
    def __init__(self, value):
        self.value = value
        self.null_flag = value == "null"
        self.true_flag = value == "true"
        self.false_flag = value == "false"

    def is_null(self):
        return self.null_flag

    def is_true(self):
        return self.true_flag

    def is_false(self):
        return self.false_flag

    def as_string(self):
        return self.value

    def is_boolean(self):
        return self.true_flag or self.false_flag


class HashIndexTable:
    def __init__(self):
        self.hash_table = [0] * 32

    def hash_slot_for(self, name):
        return (len(name) * 1402589) & (len(self.hash_table) - 1)

    def add_index(self, name, index):
        slot = self.hash_slot_for(name)
        if index < 255:
            self.hash_table[slot] = (index + 1) & 255
        else:
            self.hash_table[slot] = 0

    def get(self, name):
        return (self.hash_table[self.hash_slot_for(name)] & 255) - 1


class JsonObject(JsonValue):
    def __init__(self):
        self.names = []
        self.values = []
        self.table = HashIndexTable()

    def add_member(self, name, value):
        if name is None:
            raise Exception("name is null")
        if value is None:
            raise Exception("value is null")
        self.table.add_index(name, len(self.names))
        self.names.append(name)
        self.values.append(value)
        return self

    def get(self, name):
        if name is None:
            raise Exception("name is null")
        index = self.index_of(name)
        return None if index == -1 else self.values[index]

    def size(self):
        return len(self.names)

    def is_empty(self):
        return not self.names

    def is_object(self):
        return True

    def as_object(self):
        return self

    def index_of(self, name):
        index = self.table.get(name)
        if index != -1 and name == self.names[index]:
            return index
        raise Exception("NotImplemented")


class ParseException(Exception):
    def __init__(self, message, offset, line, column):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column


class Parser:
    def __init__(self, string):
        self.input = string
        self.index = -1
        self.line = 1
        self.capture_start = -1
        self.column = 0
        self.current = None
        self.capture_buffer = []
        self.literal_null = JsonLiteral("null")
        self.literal_true = JsonLiteral("true")
        self.literal_false = JsonLiteral("false")

    def parse(self):
        self.read()
        self.skip_white_space()
        result = self.read_value()
        self.skip_white_space()
        if not self.is_end_of_text():
            raise self.error("Unexpected character")
        return result

    def read_value(self):
        c = self.current
        if c == "n":
            return self.read_null()
        if c == "t":
            return self.read_true()
        if c == "f":
            return self.read_false()
        if c == '"':
            return self.read_string()
        if c == "[":
            return self.read_array()
        if c == "{":
            return self.read_object()
        if c == "-" or self.is_digit():
            return self.read_number()
        raise self.expected("Expected value")

    def read_array_element(self, array):
        self.skip_white_space()
        array.add(self.read_value())
        self.skip_white_space()

    def read_array(self):
        self.read()
        array = JsonArray()
        self.skip_white_space()
        if self.read_char("]"):
            return array
        self.read_array_element(array)
        while self.read_char(","):
            self.read_array_element(array)
        if not self.read_char("]"):
            raise self.expected("Expected ',' or ']'")
        return array

    def read_object_key_value_pair(self, obj):
        self.skip_white_space()
        name = self.read_name()
        self.skip_white_space()
        if not self.read_char(":"):
            raise self.expected("Expected ':'")
        self.skip_white_space()
        obj.add_member(name, self.read_value())
        self.skip_white_space()

    def read_object(self):
        self.read()
        obj = JsonObject()
        self.skip_white_space()
        if self.read_char("}"):
            return obj
        self.read_object_key_value_pair(obj)
        while self.read_char(","):
            self.read_object_key_value_pair(obj)
        if not self.read_char("}"):
            raise self.expected("Expected ',' or '}'")
        return obj

    def read_name(self):
        if self.current != '"':
            raise self.expected("Expected name")
        return self.read_string_internal()

    def read_null(self):
        self.read()
        self.read_required_char("u")
        self.read_required_char("l")
        self.read_required_char("l")
        return self.literal_null

    def read_true(self):
        self.read()
        self.read_required_char("r")
        self.read_required_char("u")
        self.read_required_char("e")
        return self.literal_true

    def read_false(self):
        self.read()
        self.read_required_char("a")
        self.read_required_char("l")
        self.read_required_char("s")
        self.read_required_char("e")
        return self.literal_false

    def read_required_char(self, ch):
        if not self.read_char(ch):
            raise self.expected("Expected a literal's next character")

    def read_string(self):
        return JsonString(self.read_string_internal())

    def read_string_internal(self):
        self.read()
        self.start_capture()
        while self.current != '"':
            if self.current == "\\":
                self.pause_capture()
                self.read_escape()
                self.start_capture()
            else:
                self.read()
        string = self.end_capture()
        self.read()
        return string

    def read_escape_char(self):
        c = self.current
        if c in ('"', "/", "\\"):
            return c
        escapes = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
        if c in escapes:
            return escapes[c]
        raise self.expected("Expected valid escape sequence")

    def read_escape(self):
        self.read()
        self.capture_buffer.append(self.read_escape_char())
        self.read()

    def read_number(self):
        self.start_capture()
        self.read_char("-")
        first_digit = self.current
        if not self.read_digit():
            raise self.expected("Expected digit")
        if first_digit != "0":
            while self.read_digit():
                pass
        self.read_fraction()
        self.read_exponent()
        return JsonNumber(self.end_capture())

    def read_fraction(self):
        if not self.read_char("."):
            return False
        if not self.read_digit():
            raise self.expected("Expected digit")
        while self.read_digit():
            pass
        return True

    def read_exponent(self):
        if not self.read_char("e") and not self.read_char("E"):
            return False
        if not self.read_char("+"):
            self.read_char("-")
        if not self.read_digit():
            raise self.expected("Expected digit")
        while self.read_digit():
            pass
        return True

    def read_char(self, ch):
        if self.current != ch:
            return False
        self.read()
        return True

    def read_digit(self):
        if not self.is_digit():
            return False
        self.read()
        return True

    def skip_white_space(self):
        while self.is_white_space():
            self.read()

    def read(self):
        if self.current == "\n":
            self.line += 1
            self.column = 0
        self.index += 1
        if self.index < len(self.input):
            self.current = self.input[self.index]
        else:
            self.current = None

    def start_capture(self):
        self.capture_start = self.index

    def capture_end(self):
        return self.index if self.current is None else self.index - 1

    def pause_capture(self):
        self.capture_buffer.append(self.input[self.capture_start:self.capture_end() + 1])
        self.capture_start = -1

    def end_capture(self):
        end = self.capture_end()
        if not self.capture_buffer:
            captured = self.input[self.capture_start:end + 1]
        else:
            self.capture_buffer.append(self.input[self.capture_start:end + 1])
            captured = "".join(self.capture_buffer)
            self.capture_buffer = []
        self.capture_start = -1
        return captured

    def expected(self, message):
        if self.is_end_of_text():
            return self.error("Unexpected end of input")
        return self.error(message)

    def error(self, message):
        return ParseException(message, self.index, self.line, self.column - 1)

    def is_white_space(self):
        c = self.current
        return c == " " or c == "\t" or c == "\n" or c == "\r"

    def is_digit(self):
        c = self.current
        return c is not None and "0" <= c <= "9"

    def is_end_of_text(self):
        return self.current is None


class Json(Benchmark):
    def benchmark(self):
        return Parser(RAP_INPUT).parse()

    def verify_result(self, result):
        if not result.is_object():
            return False
        if not result.as_object().get("head").is_object():
            return False
        operations = result.as_object().get("operations")
        if not operations.is_array():
            return False
        size = operations.as_array().size()
        if size != expect(156):
            return False
        self.last_result = size
        return True


run(Json(), "Json", 1)

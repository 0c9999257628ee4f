//! Values: what the operand stack, locals, fields and array elements hold.
//!
//! A value is 16 bytes and `Copy`: an integer, `null`, a string (an index
//! into the program's constant pool: strings are immutable and only ever
//! come from `push "..."`, so equal contents share one index and `eq` on
//! strings compares indices), or a reference to an object or array on the
//! current thread's heap (an index into [`crate::heap::Heap`]).

use crate::module::StrId;

/// One VM value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A 64-bit signed integer.
    Int(i64),
    /// `null`.
    Null,
    /// A string constant.
    Str(StrId),
    /// An object on this thread's heap.
    Obj(u32),
    /// An array on this thread's heap.
    Arr(u32),
}

impl Value {
    /// `jz`, `jnz` and `not` treat `0` and `null` alike as false.
    #[inline(always)]
    pub fn is_falsy(self) -> bool {
        matches!(self, Value::Int(0) | Value::Null)
    }

    /// The kind's name, for error messages.
    pub fn kind(self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Null => "null",
            Value::Str(_) => "a string",
            Value::Obj(_) => "an object",
            Value::Arr(_) => "an array",
        }
    }

    /// A value that may cross threads (`spawn` arguments, `join` results,
    /// exceptions rethrown in a joiner): integers, strings and `null`.
    pub fn is_shareable(self) -> bool {
        matches!(self, Value::Int(_) | Value::Null | Value::Str(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
    }

    #[test]
    fn kinds_never_equal() {
        assert_ne!(Value::Int(0), Value::Null);
        assert_ne!(Value::Int(1), Value::Str(1));
        assert_ne!(Value::Obj(3), Value::Arr(3));
        assert!(Value::Int(0).is_falsy() && Value::Null.is_falsy());
        assert!(!Value::Str(0).is_falsy());
    }
}

//! Values: what the operand stack, locals, fields and array elements hold.
//!
//! A value is 16 bytes and `Copy`: an integer, `null`, a string (an index
//! into the program's constant pool: strings are immutable and only ever
//! come from `push "..."`, so equal contents share one index and `eq` on
//! strings compares indices), or a reference to an object or array on the
//! current thread's heap (an index into [`crate::heap::Heap`]; an object's
//! reference carries its class too).

use crate::module::StrId;

/// One VM value.
///
/// `repr(u32)`: a value begins with its 32-bit tag, an integer's 0
/// ([`Value::tag_word`]), which the loop tests read with the loop trip.
/// `Int` stays the first variant: sixteen zero bytes are then
/// `Value::Int(0)`, which is how a new array's elements are made
/// ([`crate::elements::Elements::zeros`], from zeroed memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Value {
    /// A 64-bit signed integer.
    Int(i64),
    /// `null`.
    Null,
    /// A string constant.
    Str(StrId),
    /// An object on this thread's heap (its cell), and the object's class:
    /// a copy of what the cell holds, in bytes a value has spare, so that
    /// a virtual call finds its method and a field access checks its class
    /// without first loading the cell (docs/PERFORMANCE.md, "The class in
    /// the reference"). The class is a `u32` widened to 64 bits: in the
    /// bytes where an integer keeps its payload, every variant's payload
    /// is one 32-bit word at byte 4 and one 64-bit word at byte 8, the
    /// shape LLVM compiles the interpreter's loop best with (a 32-bit class
    /// at byte 8 cost 0.6-2.5% more machine instructions on every program).
    Obj(u32, u64),
    /// An array on this thread's heap.
    Arr(u32),
}

impl Value {
    /// The tag word: 0 for an integer, not 0 for any other kind (for a
    /// test of several values' kinds at once: `a.tag_word() | b.tag_word()
    /// == 0`).
    #[inline(always)]
    pub fn tag_word(&self) -> u32 {
        // SAFETY: `repr(u32)` lays a value out as a `u32` tag followed by
        // its fields (the Reference, "Primitive representation of enums
        // with fields"), so a value begins with its initialized tag.
        unsafe { *(self as *const Value).cast::<u32>() }
    }

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
            Value::Obj(..) => "an object",
            Value::Arr(_) => "an array",
        }
    }

    /// A value that may cross threads (`spawn` arguments, `join` results,
    /// exceptions rethrown in a joiner): integers, strings and `null`.
    pub fn is_shareable(self) -> bool {
        matches!(self, Value::Int(_) | Value::Null | Value::Str(_))
    }
}

/// The size of a [`Value`], a frame slot: the interpreter names slots by
/// their byte offsets ([`crate::instr::Instr::slots_scaled`]).
pub const SLOT_BYTES: u32 = std::mem::size_of::<Value>() as u32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
    }

    #[test]
    fn an_objects_class_lies_where_an_integers_payload_does() {
        let at = |v: &Value, offset: usize| (v as *const Value).cast::<u8>().wrapping_add(offset);
        let (obj, int, arr) = (Value::Obj(7, 0x1234), Value::Int(-2), Value::Arr(9));
        // SAFETY: each read is of bytes its variant initializes (a 32-bit
        // word at 4 of a reference, a 64-bit word at 8 of an object and
        // an integer); unaligned reads need no alignment.
        unsafe {
            assert_eq!(at(&obj, 4).cast::<u32>().read_unaligned(), 7);
            assert_eq!(at(&obj, 8).cast::<u64>().read_unaligned(), 0x1234);
            assert_eq!(at(&int, 8).cast::<i64>().read_unaligned(), -2);
            assert_eq!(at(&arr, 4).cast::<u32>().read_unaligned(), 9);
        }
    }

    #[test]
    fn only_an_integer_has_the_tag_word_zero() {
        assert_eq!(Value::Int(-7).tag_word(), 0);
        assert_eq!(Value::Int(0).tag_word(), 0);
        for v in [Value::Null, Value::Str(3), Value::Obj(0, 0), Value::Arr(9)] {
            assert_ne!(v.tag_word(), 0, "{v:?}");
        }
    }

    #[test]
    fn kinds_never_equal() {
        assert_ne!(Value::Int(0), Value::Null);
        assert_ne!(Value::Int(1), Value::Str(1));
        assert_ne!(Value::Obj(3, 0), Value::Arr(3));
        assert!(Value::Int(0).is_falsy() && Value::Null.is_falsy());
        assert!(!Value::Str(0).is_falsy());
    }
}

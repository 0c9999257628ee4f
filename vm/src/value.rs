//! Values: what the operand stack, locals, fields and array elements hold.
//!
//! A value is 16 bytes and `Copy`: an integer, `null`, a string (an index
//! into the program's constant pool: strings are immutable and only ever
//! come from `push "..."`, so equal contents share one index and `eq` on
//! strings compares indices), or a reference to an object or array on the
//! current thread's heap (an index into [`crate::heap::Heap`]; an object's
//! reference carries its class too).
//!
//! # How a value is written: in two words
//!
//! The interpreter writes a whole value into a slot, a field or an array
//! element as two 8-byte words, the tag word then the payload word
//! ([`write_words`], [`write_int`], [`copy_words`]): never as one 16-byte
//! move, and an integer's tag as all eight bytes of its word. The reason is
//! the processor's store-to-load forwarding. A load of bytes still in the
//! store buffer gets them at once only if one store wrote them all; a
//! 16-byte load of a slot written a few instructions before by two smaller
//! stores waits until those stores reach the cache (about 20 cycles on the
//! machine measured; `bench/store_forwarding.c` shows it). A call's argument
//! moves and a return's result are just that case: a value computed a
//! moment ago, copied at once. An 8-byte load of a word one 8-byte store
//! wrote is always forwarded, and the 4-byte tag and 8-byte payload reads
//! of the interpreter's tests lie inside one such store.

use std::mem::MaybeUninit;

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

/// Writes `v` at `p` as two 8-byte stores, its tag word and its payload
/// word, never one 16-byte store nor a 4-byte tag.
///
/// # Safety
///
/// `p` must be valid for a write of a `Value` and 8-byte aligned.
#[inline(always)]
pub unsafe fn write_words(p: *mut Value, v: Value) {
    // SAFETY: a value is 16 bytes; `MaybeUninit` holds any bytes, the
    // padding of an integer's tag word included.
    let w: [MaybeUninit<u64>; 2] = unsafe { std::mem::transmute(v) };
    let p = p.cast::<MaybeUninit<u64>>();
    // SAFETY: `p` is valid for 16 bytes and aligned (the caller).
    unsafe {
        std::ptr::write_volatile(p, w[0]);
        std::ptr::write_volatile(p.add(1), w[1]);
    }
}

/// Writes the integer `x` at `p` as [`write_words`] would, its tag word
/// (zero, the padding included) and its payload.
///
/// # Safety
///
/// As for [`write_words`].
#[inline(always)]
pub unsafe fn write_int(p: *mut Value, x: i64) {
    let w = p.cast::<u64>();
    // SAFETY: `p` is valid for 16 bytes and aligned (the caller); sixteen
    // bytes, a zero tag word then `x`, are `Value::Int(x)`.
    unsafe {
        w.write(0);
        w.add(1).write(x as u64);
    }
}

/// Copies the value at `src` to `dst` word by word (see [`write_words`]).
///
/// # Safety
///
/// `src` must be valid for a read of a `Value`, `dst` for a write of
/// one, both 8-byte aligned.
#[inline(always)]
pub unsafe fn copy_words(dst: *mut Value, src: *const Value) {
    let s = src.cast::<MaybeUninit<u64>>();
    let d = dst.cast::<MaybeUninit<u64>>();
    // SAFETY: as the caller promises.
    unsafe {
        let a = std::ptr::read_volatile(s);
        let b = std::ptr::read_volatile(s.add(1));
        std::ptr::write_volatile(d, a);
        std::ptr::write_volatile(d.add(1), b);
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
    fn values_written_and_copied_in_words_read_back_whole() {
        let values = [
            Value::Int(-5),
            Value::Int(i64::MAX),
            Value::Null,
            Value::Str(3),
            Value::Obj(7, 0x1234),
            Value::Arr(9),
        ];
        let mut slots = [Value::Null; 3];
        let p = slots.as_mut_ptr();
        for v in values {
            // SAFETY: `p`, `p + 1` and `p + 2` are slots of the array.
            unsafe {
                write_words(p, v);
                copy_words(p.add(1), p);
                if let Value::Int(x) = v {
                    write_int(p.add(2), x);
                } else {
                    write_words(p.add(2), v);
                }
            }
            assert_eq!(slots, [v; 3]);
            // An integer's tag word is zero in all eight bytes.
            if let Value::Int(_) = v {
                // SAFETY: `write_int` wrote the slot's first eight bytes.
                assert_eq!(unsafe { p.add(2).cast::<u64>().read() }, 0);
            }
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

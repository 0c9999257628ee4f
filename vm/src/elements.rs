//! An array's elements, stored by what they have held: a large array
//! keeps integers alone, 8 bytes each, until the first store of anything
//! else; then values, 16 bytes each (a *storage strategy*, as PyPy's lists
//! and V8's element kinds keep them).
//!
//! A [`Value`] is 16 bytes where an integer is 8, so an array of integers
//! kept as values spends half its cache lines and half its page faults on
//! tags; for a large array (a sieve's two million flags) that is most of
//! its cost. So an array of at least [`INTS_FROM`] elements starts as
//! integers (zeros, as `newarray` promises), reads give back `Value::Int`,
//! and the first store of a string, `null` or a reference widens it to
//! values for good. A smaller array starts as values, as every array did
//! before: there the memory saved is small, and a kind to test would be
//! one compare more on every access.
//!
//! One buffer serves both kinds, with room for `len` values from the start
//! (the heap's budget counts 16 bytes an element either way,
//! [`crate::heap::array_bytes`]); integers fill its first half, and the
//! memory of the second half, fresh from the kernel, is never touched until
//! the array widens, in place. Values are the fast path: `values_len` is
//! `len` for an array of values and 0 for one of integers, so that an
//! access to values makes the one bounds check it always made, and only an
//! access past it looks at integers. Nothing a program can observe changes:
//! the elements read are the elements written, and the length is the
//! length.

use std::alloc::Layout;
use std::ptr::NonNull;

use crate::memory::{fallibly, huge_pages};
use crate::value::{write_words, Value};

/// The fewest elements an array must have to start as integers alone.
pub const INTS_FROM: usize = 1 << 16;

/// An array's elements (see the module's comment).
pub struct Elements {
    /// Room for `len` values, zeroed when made ([`Layout::array`] of
    /// `len` values; dangling when `len` is 0): `len` integers in its first
    /// half while `values_len` is 0, else `len` values.
    buf: NonNull<Value>,
    /// The number of elements.
    len: u32,
    /// `len` once the elements are values; 0 while they are integers.
    values_len: u32,
}

/// A store's index was negative or not below the array's `len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The array's length.
    pub len: usize,
}

impl Elements {
    /// `len` zeros, as integers from [`INTS_FROM`] elements up, or `None`
    /// if the system refused the memory.
    pub fn zeros(len: usize) -> Option<Elements> {
        Self::zeros_of_kind(len, len >= INTS_FROM)
    }

    /// `len` zeros, as integers if `ints`, from memory the allocator gives
    /// zeroed (`calloc`): a large array's comes fresh from the kernel,
    /// already zero, so nothing writes it here, and the program's first
    /// stores are its first touches. The whole huge pages of the part in
    /// use are advised before that ([`huge_pages::advise`]).
    fn zeros_of_kind(len: usize, ints: bool) -> Option<Elements> {
        let len32 = u32::try_from(len).ok()?;
        let layout = Layout::array::<Value>(len).ok()?;
        let values_len = if ints { 0 } else { len32 };
        if len == 0 {
            let buf = NonNull::dangling();
            return Some(Elements {
                buf,
                len: 0,
                values_len,
            });
        }
        // SAFETY: the layout's size is not zero (`len` is not).
        let p = fallibly(|| unsafe { std::alloc::alloc_zeroed(layout) });
        let buf = NonNull::new(p.cast::<Value>())?;
        let in_use = if ints {
            len * std::mem::size_of::<i64>()
        } else {
            layout.size()
        };
        huge_pages::advise(p, in_use);
        // Sixteen zero bytes are `Value::Int(0)` (`Value` is `repr(u32)`:
        // its `u32` tag, `Int`'s is 0, then the `i64` at offset 8), and
        // eight are the integer 0: zeros either way.
        Some(Elements {
            buf,
            len: len32,
            values_len,
        })
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Is the array empty?
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Are the elements still integers alone?
    pub fn holds_integers_alone(&self) -> bool {
        self.values_len != self.len
    }

    /// Element `i`, or `None` if `i` is negative or not below the length.
    #[inline]
    pub fn get(&self, i: i64) -> Option<Value> {
        match self.value(i) {
            Some(v) => Some(*v),
            None => self.integer(i).map(Value::Int),
        }
    }

    /// Element `i` if the elements are values, `None` if they are not or
    /// `i` is out of range: the fast path, one compare. (A reader of an
    /// element tries this, then [`Elements::integer`]: an `Option<Value>`
    /// made here would cost the interpreter a test of the value's tag.)
    #[inline]
    pub fn value(&self, i: i64) -> Option<&Value> {
        self.references().get(usize::try_from(i).ok()?)
    }

    /// Element `i` if the elements are integers, `None` if they are not or
    /// `i` is out of range.
    #[inline]
    pub fn integer(&self, i: i64) -> Option<i64> {
        if (i as u64) < u64::from(self.len) && self.values_len == 0 {
            // SAFETY: integers, and `i` below their number: an integer of
            // the buffer's first half (a value's alignment is an
            // integer's too).
            Some(unsafe { self.ints().add(i as usize).read() })
        } else {
            None
        }
    }

    /// Stores `v` as element `i`; integers widen to values at their first
    /// store of anything else.
    #[inline]
    pub fn set(&mut self, i: i64, v: Value) -> Result<(), OutOfBounds> {
        let i = i as u64;
        if i < u64::from(self.values_len) {
            // SAFETY: below `values_len`, so the elements are values and
            // `i` is below their number: a value of the buffer.
            unsafe { write_words(self.buf.as_ptr().add(i as usize), v) };
            Ok(())
        } else if i < u64::from(self.len) {
            self.set_in_integers(i as usize, v);
            Ok(())
        } else {
            Err(OutOfBounds { len: self.len() })
        }
    }

    /// `set` on integers (`values_len` is 0, `i` below `len`).
    #[inline]
    fn set_in_integers(&mut self, i: usize, v: Value) {
        if let Value::Int(n) = v {
            // SAFETY: integers, and `i` below their number (the caller's).
            unsafe { self.ints().add(i).write(n) };
        } else {
            self.widen();
            // SAFETY: values now, and `i` below their number.
            unsafe { self.buf.as_ptr().add(i).write(v) };
        }
    }

    /// Turns the integers into values, in place, from the last: value `i`
    /// takes bytes 16i..16i+16, at or after integer `i`'s 8i..8i+8 and
    /// past every integer before it, which are still to be read.
    #[cold]
    #[inline(never)]
    fn widen(&mut self) {
        let ints = self.ints();
        let values = self.buf.as_ptr();
        for i in (0..self.len()).rev() {
            // SAFETY: `i` is below `len`; integer `i` is read before value
            // `i` overwrites it, and no integer still to be read (below
            // `i`) lies in value `i`'s bytes (above).
            unsafe { values.add(i).write(Value::Int(ints.add(i).read())) };
        }
        self.values_len = self.len;
    }

    /// The buffer as integers.
    #[inline]
    fn ints(&self) -> *mut i64 {
        self.buf.as_ptr().cast::<i64>()
    }

    /// The values the collector must follow: none while the elements are
    /// integers.
    pub fn references(&self) -> &[Value] {
        // SAFETY: the first `values_len` elements are values (all of them,
        // or none), initialized since the buffer was zeroed.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr(), self.values_len as usize) }
    }

    /// The first byte of the elements' memory (for the tests of huge
    /// pages).
    #[cfg(test)]
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.buf.as_ptr().cast()
    }
}

impl Drop for Elements {
    fn drop(&mut self) {
        if self.len > 0 {
            let layout = Layout::array::<Value>(self.len()).expect("made with this layout");
            // SAFETY: `buf` was allocated by the global allocator with this
            // layout (`zeros_of_kind`) and is freed once, here.
            unsafe { std::alloc::dealloc(self.buf.as_ptr().cast(), layout) };
        }
    }
}

impl std::fmt::Debug for Elements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.holds_integers_alone() {
            "integers"
        } else {
            "values"
        };
        write!(f, "Elements({} {kind})", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(e: &Elements) -> Vec<Value> {
        (0..e.len() as i64).map(|i| e.get(i).unwrap()).collect()
    }

    #[test]
    fn a_new_array_is_zeros_of_its_kind_by_its_length() {
        for (len, ints) in [
            (0, false),
            (9, false),
            (INTS_FROM - 1, false),
            (INTS_FROM, true),
        ] {
            let e = Elements::zeros(len).unwrap();
            assert_eq!(e.len(), len);
            assert_eq!(e.holds_integers_alone(), ints && len > 0, "{len}");
            assert!(read_all(&e).iter().all(|&v| v == Value::Int(0)));
        }
        assert!(
            Elements::zeros(usize::MAX / 4).is_none(),
            "a length past the address space"
        );
    }

    #[test]
    fn integers_stay_integers_and_read_back() {
        let mut e = Elements::zeros_of_kind(4, true).unwrap();
        e.set(3, Value::Int(-7)).unwrap();
        e.set(0, Value::Int(i64::MAX)).unwrap();
        assert!(e.holds_integers_alone());
        let want = [
            Value::Int(i64::MAX),
            Value::Int(0),
            Value::Int(0),
            Value::Int(-7),
        ];
        assert_eq!(read_all(&e), want);
        assert!(e.references().is_empty(), "nothing for the collector");
    }

    #[test]
    fn the_first_other_value_widens_the_integers_keeping_every_one() {
        let mut e = Elements::zeros_of_kind(5, true).unwrap();
        for i in 0..5 {
            e.set(i, Value::Int(i64::MIN + i)).unwrap();
        }
        e.set(2, Value::Obj(9, 0)).unwrap();
        assert!(!e.holds_integers_alone());
        e.set(1, Value::Str(1)).unwrap();
        e.set(2, Value::Int(4)).unwrap();
        assert!(!e.holds_integers_alone(), "it never goes back");
        let want = [
            Value::Int(i64::MIN),
            Value::Str(1),
            Value::Int(4),
            Value::Int(i64::MIN + 3),
            Value::Int(i64::MIN + 4),
        ];
        assert_eq!(read_all(&e), want);
        assert_eq!(e.references(), &want[..], "all of it for the collector");
    }

    #[test]
    fn values_hold_anything() {
        let mut e = Elements::zeros_of_kind(3, false).unwrap();
        e.set(0, Value::Null).unwrap();
        e.set(2, Value::Arr(3)).unwrap();
        assert_eq!(read_all(&e), [Value::Null, Value::Int(0), Value::Arr(3)]);
    }

    #[test]
    fn an_index_out_of_range_reads_nothing_and_stores_nothing() {
        for ints in [true, false] {
            let mut e = Elements::zeros_of_kind(2, ints).unwrap();
            for i in [-1, 2, i64::MIN, i64::MAX] {
                assert_eq!(e.get(i), None);
                assert_eq!(e.set(i, Value::Int(1)), Err(OutOfBounds { len: 2 }));
                assert_eq!(e.set(i, Value::Null), Err(OutOfBounds { len: 2 }));
            }
            assert_eq!(
                e.holds_integers_alone(),
                ints,
                "a failed store changes nothing"
            );
            assert_eq!(read_all(&e), [Value::Int(0); 2]);
        }
    }
}

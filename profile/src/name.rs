//! [`MethodName`]: the method of a calling context, shared between the
//! contexts that name it. An exact calling-context tree has millions of
//! contexts and a few hundred methods at most (7 million contexts of 3
//! methods for `programs/bench/fib.bc`); a `String` per context was a
//! heap copy of the name each (224 MB there), one shared copy per method
//! is nothing. The readers of a profile intern the names they read
//! (`crate::fast`), and the profiler hands out one copy per method.
//!
//! It reads like a `&str` (it dereferences to one, compares with `str`
//! and `String`, prints as the name) and is written to and read from
//! JSON as a plain string.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A method name, cheap to clone: clones share one copy of the text.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MethodName(Arc<str>);

impl MethodName {
    /// The name as a `&str`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for MethodName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for MethodName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for MethodName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for MethodName {
    fn from(s: &str) -> MethodName {
        MethodName(s.into())
    }
}

impl From<String> for MethodName {
    fn from(s: String) -> MethodName {
        MethodName(s.into())
    }
}

impl From<&String> for MethodName {
    fn from(s: &String) -> MethodName {
        MethodName(s.as_str().into())
    }
}

impl From<MethodName> for String {
    fn from(m: MethodName) -> String {
        m.0.as_ref().to_string()
    }
}

impl fmt::Display for MethodName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for MethodName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl PartialEq<str> for MethodName {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for MethodName {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for MethodName {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl PartialEq<MethodName> for str {
    fn eq(&self, other: &MethodName) -> bool {
        self == &*other.0
    }
}

impl PartialEq<MethodName> for &str {
    fn eq(&self, other: &MethodName) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<MethodName> for String {
    fn eq(&self, other: &MethodName) -> bool {
        self.as_str() == &*other.0
    }
}

impl Serialize for MethodName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for MethodName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MethodName, D::Error> {
        String::deserialize(d).map(MethodName::from)
    }
}

/// One [`MethodName`] per distinct name: what a reader of millions of
/// contexts hands out, so that they share their names' text.
#[derive(Default)]
pub(crate) struct Interner {
    /// The name handed out last (contexts in a row often name the same
    /// method: a recursive call, a loop's callee), tried before the table.
    last: Option<MethodName>,
    table: std::collections::HashMap<Box<[u8]>, MethodName>,
}

impl Interner {
    /// The shared name whose text is `bytes`; `None` if they are not
    /// UTF-8.
    pub(crate) fn intern(&mut self, bytes: &[u8]) -> Option<MethodName> {
        if let Some(last) = &self.last {
            if last.as_bytes() == bytes {
                return Some(last.clone());
            }
        }
        let name = match self.table.get(bytes) {
            Some(name) => name.clone(),
            None => {
                let name = MethodName::from(std::str::from_utf8(bytes).ok()?);
                self.table.insert(bytes.into(), name.clone());
                name
            }
        };
        self.last = Some(name.clone());
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_reads_compares_and_serializes_as_its_text() {
        let m = MethodName::from("Point.norm");
        assert_eq!(m, "Point.norm");
        assert_eq!("Point.norm", m);
        assert_eq!(m, "Point.norm".to_string());
        assert_ne!(m, "Point");
        assert_eq!(m.len(), 10);
        assert_eq!(format!("{m} {m:?}"), "Point.norm \"Point.norm\"");
        assert_eq!(serde_json::to_string(&m).unwrap(), "\"Point.norm\"");
        let back: MethodName = serde_json::from_str("\"Point.norm\"").unwrap();
        assert_eq!(back, m);
        assert_eq!(String::from(back), "Point.norm");
        let (a, b) = (MethodName::from("a"), MethodName::from("b"));
        assert!(a < b);
    }

    #[test]
    fn interned_names_share_one_copy() {
        let mut names = Interner::default();
        let a = names.intern(b"fib").unwrap();
        let b = names.intern(b"main").unwrap();
        let c = names.intern(b"fib").unwrap();
        assert_eq!((a.as_str(), b.as_str()), ("fib", "main"));
        assert!(Arc::ptr_eq(&a.0, &c.0), "fib twice, one copy");
        let d = names.intern(b"fib").unwrap();
        assert!(Arc::ptr_eq(&a.0, &d.0), "the last one again");
        assert_eq!(names.intern(b"\xff"), None);
    }
}

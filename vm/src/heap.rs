//! A thread's heap and its garbage collector.
//!
//! Objects and arrays never leave the thread that made them (docs/LANGUAGE.md: passing
//! one across threads is a runtime error), so each thread owns a private
//! heap and collects it without stopping anyone else. The collector is a
//! precise mark-sweep: the roots are the thread's value stack (every local
//! and operand of every frame) plus any value in flight; marking uses an
//! explicit work list, so arbitrarily deep structures and cycles are fine.
//!
//! A collection is requested when the bytes allocated since the last one
//! exceed the live bytes it found (at least [`MIN_TRIGGER`]): the heap grows
//! to about twice its live data. The request goes through the thread's
//! yieldpoint control word like every other VM service; only if no
//! yieldpoint comes before the heap reaches [`HARD_FACTOR`] times the
//! trigger does the allocation site collect directly. A program loaded
//! without yieldpoints (`--no-yieldpoints`) collects at the allocation that
//! reaches the trigger, so that it collects as often as with them.

use std::sync::Arc;

use crate::elements::Elements;
use crate::memory::{fallibly, system_refusal, whole_grains, MemoryBudget, CHUNK, GRAIN};
use crate::value::Value;

/// Bytes allocated before the first collection is requested.
pub const MIN_TRIGGER: usize = 8 << 20;
/// Collect at the allocation site once this many triggers' worth is pending.
pub const HARD_FACTOR: usize = 4;
/// Longest array `newarray` may create (elements).
pub const MAX_ARRAY: i64 = 1 << 28;

/// How far a heap holding `held` bytes charges ahead of its footprint: a
/// quarter of it, at least a [`GRAIN`] and at most a [`CHUNK`] (few trips
/// to the shared budget for a big heap, little held back by a small one).
fn step_ahead(held: usize) -> usize {
    (held / 4).clamp(GRAIN, CHUNK)
}

/// Approximate bytes a cell costs besides its values.
const CELL_OVERHEAD: usize = 32;

/// Bytes an object of `nfields` fields is counted as.
pub fn object_bytes(nfields: usize) -> usize {
    CELL_OVERHEAD + 16 * nfields
}

/// Bytes an array of `len` elements is counted as: 16 an element, what
/// a [`Value`] takes, though an array of integers takes 8
/// ([`Elements`]), so that what a program may allocate does not depend
/// on what it stores.
pub fn array_bytes(len: usize) -> usize {
    CELL_OVERHEAD.saturating_add(len.saturating_mul(16))
}

#[derive(Debug)]
enum Cell {
    Free,
    Object { class: u32, fields: Box<[Value]> },
    Array(Elements),
}

/// A thread-private garbage-collected heap.
#[derive(Debug)]
pub struct Heap {
    cells: Vec<Cell>,
    marks: Vec<bool>,
    free: Vec<u32>,
    allocated: usize,
    live: usize,
    trigger: usize,
    collections: u64,
    /// The run's memory budget (`--max-heap`), shared by all threads.
    budget: Arc<MemoryBudget>,
    /// Bytes this heap holds of the budget.
    charged: usize,
    /// Of `charged`, the bytes not yet reserved by an allocation.
    room: usize,
}

/// What an allocation asks of its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocPressure {
    /// Nothing to do.
    None,
    /// Request a collection at the next yieldpoint.
    Request,
    /// Collect now (no yieldpoint came in time).
    CollectNow,
}

impl Default for Heap {
    fn default() -> Self {
        Heap::new()
    }
}

impl Heap {
    /// An empty heap with no memory limit.
    pub fn new() -> Heap {
        Heap::with_budget(Arc::new(MemoryBudget::unlimited()))
    }

    /// An empty heap that takes its memory from `budget`.
    pub fn with_budget(budget: Arc<MemoryBudget>) -> Heap {
        Heap {
            cells: Vec::new(),
            marks: Vec::new(),
            free: Vec::new(),
            allocated: 0,
            live: 0,
            trigger: MIN_TRIGGER,
            collections: 0,
            budget,
            charged: 0,
            room: 0,
        }
    }

    /// Makes sure the budget covers `bytes` more (an allocation about to be
    /// made): true if it does. One comparison while the heap holds enough.
    #[inline]
    pub fn reserve(&mut self, bytes: usize) -> bool {
        if bytes <= self.room {
            self.room -= bytes;
            true
        } else {
            self.charge_for(bytes)
        }
    }

    /// Takes from the budget what `bytes` more need beyond what the heap
    /// holds (`room` ran out: footprint + `bytes` exceeds `charged`), and
    /// at least a step ([`step_ahead`]) if the budget has room for that.
    /// Refuses too once the system has refused memory anywhere in the
    /// process (see [`crate::memory`]): this is the safe point where a
    /// thread that allocates learns of it, once per step.
    #[cold]
    fn charge_for(&mut self, bytes: usize) -> bool {
        if system_refusal().is_some() {
            return false;
        }
        let need = self.charged.saturating_sub(self.room).saturating_add(bytes);
        let short = need.saturating_sub(self.charged);
        let ahead = whole_grains(short.max(step_ahead(self.charged)));
        let exact = whole_grains(short);
        for more in [ahead, exact] {
            if self.budget.try_take(more) {
                self.charged += more;
                self.room = self.charged - need;
                return true;
            }
        }
        false
    }

    /// The limit of the budget this heap takes from, in bytes.
    pub fn budget_limit(&self) -> usize {
        self.budget.limit()
    }

    /// Puts `cell` in a free slot or a new one; `Err(bytes)` if the
    /// system refused the `bytes` the cell table needed to grow.
    #[inline]
    fn place(&mut self, cell: Cell, bytes: usize) -> Result<(u32, AllocPressure), usize> {
        let idx = match self.free.pop() {
            Some(i) => {
                self.cells[i as usize] = cell;
                i
            }
            None => {
                self.grow_table()?;
                self.cells.push(cell);
                self.marks.push(false);
                (self.cells.len() - 1) as u32
            }
        };
        self.allocated += bytes;
        let pressure = if self.allocated >= self.trigger * HARD_FACTOR {
            AllocPressure::CollectNow
        } else if self.allocated >= self.trigger {
            AllocPressure::Request
        } else {
            AllocPressure::None
        };
        Ok((idx, pressure))
    }

    /// Makes room for one more cell in the cell table; `Err(bytes)` if
    /// the system refused the growth. (The mark bits grow with the cells;
    /// should their capacities part after a shrink, a push of a mark grows
    /// them infallibly, a 24th of the cells' size.)
    #[inline]
    fn grow_table(&mut self) -> Result<(), usize> {
        if self.cells.len() == self.cells.capacity() {
            self.double_table()
        } else {
            Ok(())
        }
    }

    /// Doubles the full cell table, fallibly (see [`crate::memory`]).
    #[cold]
    #[inline(never)]
    fn double_table(&mut self) -> Result<(), usize> {
        let more = self.cells.len().max(64);
        let bytes = more * (std::mem::size_of::<Cell>() + 1);
        fallibly(|| {
            self.cells.try_reserve(more)?;
            self.marks.try_reserve(more)
        })
        .map_err(|_| bytes)
    }

    /// A new object of `class` with `nfields` fields, all 0; `Err(bytes)`
    /// if the system refused `bytes`.
    #[inline]
    pub fn new_object(
        &mut self,
        class: u32,
        nfields: usize,
    ) -> Result<(Value, AllocPressure), usize> {
        let fields = vec![Value::Int(0); nfields].into_boxed_slice();
        let (i, p) = self.place(Cell::Object { class, fields }, object_bytes(nfields))?;
        Ok((Value::Obj(i, u64::from(class)), p))
    }

    /// A new array of `len` zeros; `Err(bytes)` if the system refused
    /// `bytes`.
    pub fn new_array(&mut self, len: usize) -> Result<(Value, AllocPressure), usize> {
        let elems = Elements::zeros(len).ok_or_else(|| array_bytes(len))?;
        let (i, p) = self.place(Cell::Array(elems), array_bytes(len))?;
        Ok((Value::Arr(i), p))
    }

    /// The class and the fields of object `r`, mutably, from one look at
    /// its cell.
    #[inline]
    pub fn object_mut(&mut self, r: u32) -> (u32, &mut [Value]) {
        match &mut self.cells[r as usize] {
            Cell::Object { class, fields } => (*class, fields),
            _ => unreachable!("Value::Obj points at an object"),
        }
    }

    /// The elements of array `r`.
    #[inline]
    pub fn array(&self, r: u32) -> &Elements {
        match &self.cells[r as usize] {
            Cell::Array(a) => a,
            _ => unreachable!("Value::Arr points at an array"),
        }
    }

    /// The fields of object `r`, of class `class`, without the checks of
    /// [`Heap::object_mut`]: for the interpreter's hot paths, which know
    /// the class from the reference itself (`Value::Obj(r, class)`).
    ///
    /// # Safety
    /// `Value::Obj(r, class)` is a value the thread's program can read (a
    /// slot of a frame, a field or element of such an object or array):
    /// such a reference is a root or reachable from one, so its cell is
    /// live and an object of class `class` (`new_object` made both; the
    /// collector frees only cells nothing reaches; references never cross
    /// threads).
    #[inline]
    pub(crate) unsafe fn fields_unchecked(&self, r: u32, class: u32) -> &[Value] {
        debug_assert!(matches!(
            self.cells.get(r as usize),
            Some(Cell::Object { class: c, .. }) if *c == class
        ));
        // SAFETY: `r` is a live object's cell (the caller's guarantee).
        match unsafe { self.cells.get_unchecked(r as usize) } {
            Cell::Object { fields, .. } => fields,
            _ => unsafe { std::hint::unreachable_unchecked() },
        }
    }

    /// [`Heap::fields_unchecked`], mutably.
    ///
    /// # Safety
    /// As for [`Heap::fields_unchecked`].
    #[inline]
    pub(crate) unsafe fn fields_mut_unchecked(&mut self, r: u32, class: u32) -> &mut [Value] {
        debug_assert!(matches!(
            self.cells.get(r as usize),
            Some(Cell::Object { class: c, .. }) if *c == class
        ));
        // SAFETY: `r` is a live object's cell (the caller's guarantee).
        match unsafe { self.cells.get_unchecked_mut(r as usize) } {
            Cell::Object { fields, .. } => fields,
            _ => unsafe { std::hint::unreachable_unchecked() },
        }
    }

    /// [`Heap::array`] without the checks.
    ///
    /// # Safety
    /// `r` is held by a `Value::Arr` the program can read, as for
    /// [`Heap::fields_unchecked`]: a live array's cell.
    #[inline]
    pub(crate) unsafe fn array_unchecked(&self, r: u32) -> &Elements {
        debug_assert!(matches!(self.cells.get(r as usize), Some(Cell::Array(_))));
        // SAFETY: `r` is a live array's cell (the caller's guarantee).
        match unsafe { self.cells.get_unchecked(r as usize) } {
            Cell::Array(a) => a,
            _ => unsafe { std::hint::unreachable_unchecked() },
        }
    }

    /// The elements of array `r`, mutably, without the checks.
    ///
    /// # Safety
    /// As for [`Heap::array_unchecked`].
    #[inline]
    pub(crate) unsafe fn array_mut_unchecked(&mut self, r: u32) -> &mut Elements {
        debug_assert!(matches!(self.cells.get(r as usize), Some(Cell::Array(_))));
        // SAFETY: `r` is a live array's cell (the caller's guarantee).
        match unsafe { self.cells.get_unchecked_mut(r as usize) } {
            Cell::Array(a) => a,
            _ => unsafe { std::hint::unreachable_unchecked() },
        }
    }

    /// Collects everything not reachable from `roots`.
    ///
    /// Roots may contain stale references (dead temporaries of the top
    /// frame): a reference to a freed or dropped cell is ignored, and one to
    /// a reused cell merely keeps that cell alive one cycle longer.
    pub fn collect<'a>(&mut self, roots: impl IntoIterator<Item = &'a [Value]>) {
        let mut work: Vec<u32> = Vec::new();
        let cells = &self.cells;
        let mark = |v: &Value, marks: &mut Vec<bool>, work: &mut Vec<u32>| {
            if let Value::Obj(r, _) | Value::Arr(r) = *v {
                let i = r as usize;
                if i < cells.len() && !marks[i] && !matches!(cells[i], Cell::Free) {
                    marks[i] = true;
                    work.push(r);
                }
            }
        };
        for root in roots {
            for v in root {
                mark(v, &mut self.marks, &mut work);
            }
        }
        while let Some(r) = work.pop() {
            let children: &[Value] = match &cells[r as usize] {
                Cell::Object { fields, .. } => fields,
                Cell::Array(a) => a.references(),
                Cell::Free => &[],
            };
            for v in children {
                mark(v, &mut self.marks, &mut work);
            }
        }
        // Sweep.
        let mut live = 0usize;
        self.free.clear();
        for (i, cell) in self.cells.iter_mut().enumerate() {
            if self.marks[i] {
                self.marks[i] = false;
                live += CELL_OVERHEAD
                    + 16 * match cell {
                        Cell::Object { fields, .. } => fields.len(),
                        Cell::Array(a) => a.len(),
                        Cell::Free => 0,
                    };
            } else {
                if !matches!(cell, Cell::Free) {
                    *cell = Cell::Free;
                }
                self.free.push(i as u32);
            }
        }
        // Trailing free cells are dropped so an emptied heap shrinks.
        while matches!(self.cells.last(), Some(Cell::Free)) {
            self.cells.pop();
            self.marks.pop();
        }
        let len = self.cells.len() as u32;
        self.free.retain(|&i| i < len);
        self.free.sort_unstable_by(|a, b| b.cmp(a));
        if self.cells.capacity() > 4 * self.cells.len().max(1024) {
            self.cells.shrink_to(2 * self.cells.len());
            self.marks.shrink_to(2 * self.cells.len());
        }
        self.live = live;
        self.allocated = 0;
        self.trigger = live.max(MIN_TRIGGER);
        self.collections += 1;
        // Keep what the live data and a step ahead need; give back the
        // rest, so that what a thread holds follows its live data (sixteen
        // threads of little live data hold little; issue 35).
        let keep = whole_grains(live.saturating_add(step_ahead(live)));
        if self.charged > keep {
            self.budget.give_back(self.charged - keep);
            self.charged = keep;
        }
        self.room = self.charged.saturating_sub(live);
    }

    /// Number of collections so far.
    pub fn collections(&self) -> u64 {
        self.collections
    }

    /// Cells in use (objects and arrays), for tests and statistics.
    pub fn live_cells(&self) -> usize {
        self.cells.len() - self.free.len()
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        self.budget.give_back(self.charged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_three_words() {
        // The cell table is read on every field and element access: an
        // array's elements (two kinds in one buffer) take no more room in
        // it than an object's fields.
        assert_eq!(std::mem::size_of::<Cell>(), 24);
    }

    #[test]
    fn a_new_array_is_zeros_of_its_length() {
        let mut h = Heap::new();
        for len in [0, 1, 9, 1000] {
            let (v, _) = h.new_array(len).unwrap();
            let Value::Arr(r) = v else {
                panic!("not an array: {v:?}")
            };
            assert_eq!(h.array(r).len(), len);
            assert!((0..len as i64).all(|i| h.array(r).get(i) == Some(Value::Int(0))));
        }
    }

    #[cfg(target_os = "linux")]
    #[cfg_attr(miri, ignore = "no madvise, no /proc under Miri")]
    #[test]
    fn a_large_array_asks_for_huge_pages() {
        use crate::memory::huge_pages::{
            self,
            tests::{advised, kernel_has_huge_pages},
        };
        if !kernel_has_huge_pages() {
            return;
        }
        let mut h = Heap::new();
        let Value::Arr(r) = h.new_array(2_000_000).unwrap().0 else {
            panic!("an array")
        };
        let a = h.array(r);
        let bytes = 2_000_000 * std::mem::size_of::<i64>();
        let whole = huge_pages::whole_pages_inside(a.as_ptr() as usize, bytes);
        assert!(advised(whole.expect("a whole huge page inside").0));
        assert!((0..2_000_000).all(|i| a.get(i) == Some(Value::Int(0))));
    }

    #[test]
    fn the_budget_bounds_live_data_not_garbage() {
        let budget = Arc::new(MemoryBudget::new(3 * CHUNK));
        let mut h = Heap::with_budget(budget.clone());
        let len = 10_000; // 160 KB an array
        let mut kept = Vec::new();
        while h.reserve(array_bytes(len)) {
            kept.push(h.new_array(len).unwrap().0);
        }
        assert!(kept.len() >= 15 && kept.len() <= 20, "{}", kept.len());
        assert!(budget.used() <= 3 * CHUNK);
        // Drop all but one: a collection gives the room back.
        h.collect([&kept[..1]]);
        assert!(h.reserve(array_bytes(len)));
        drop(h);
        assert_eq!(budget.used(), 0, "a dropped heap gives everything back");
    }

    #[test]
    fn a_heap_holds_little_more_than_its_live_data() {
        let budget = Arc::new(MemoryBudget::new(64 * CHUNK));
        let mut h = Heap::with_budget(budget.clone());
        assert!(h.reserve(object_bytes(2)));
        let (one, _) = h.new_object(0, 2).unwrap();
        assert_eq!(budget.used(), GRAIN, "a small heap takes a grain");
        let mut kept = vec![one];
        for _ in 0..100_000 {
            assert!(h.reserve(object_bytes(2)));
            kept.push(h.new_object(0, 2).unwrap().0);
        }
        // 6.4 MB live: charged ahead by at most a chunk.
        let live = 100_001 * object_bytes(2);
        assert!(budget.used() >= live && budget.used() <= live + CHUNK + GRAIN);
        h.collect([&kept[..1]]);
        assert!(
            budget.used() <= 2 * GRAIN,
            "a collection gives back the rest"
        );
    }

    #[test]
    fn an_object_reference_carries_its_class() {
        let mut h = Heap::new();
        let (a, _) = h.new_object(3, 2).unwrap();
        let (b, _) = h.new_object(5, 0).unwrap();
        let (Value::Obj(ra, 3), Value::Obj(rb, 5)) = (a, b) else {
            panic!("classes 3 and 5: {a:?} {b:?}")
        };
        assert_ne!(ra, rb);
        assert_eq!(h.object_mut(ra), (3, &mut [Value::Int(0); 2][..]));
        assert_eq!(h.object_mut(rb).0, 5);
        // SAFETY: `a` and `b` are live references of this heap.
        unsafe {
            assert_eq!(h.fields_unchecked(ra, 3).len(), 2);
            assert!(h.fields_mut_unchecked(rb, 5).is_empty());
        }
    }

    #[test]
    fn unreachable_cycles_are_collected() {
        let mut h = Heap::new();
        let (a, _) = h.new_object(0, 1).unwrap();
        let (b, _) = h.new_object(0, 1).unwrap();
        let (Value::Obj(ra, _), Value::Obj(rb, _)) = (a, b) else {
            panic!()
        };
        h.object_mut(ra).1[0] = b;
        h.object_mut(rb).1[0] = a;
        let (keep, _) = h.new_array(3).unwrap();
        h.collect([&[keep][..]]);
        assert_eq!(h.live_cells(), 1);
        assert_eq!(h.collections(), 1);
    }

    #[test]
    fn deep_chains_are_marked_without_recursion() {
        let mut h = Heap::new();
        let (head, _) = h.new_object(0, 1).unwrap();
        let mut cur = head;
        for _ in 0..200_000 {
            let (n, _) = h.new_object(0, 1).unwrap();
            let Value::Obj(r, _) = cur else { panic!() };
            h.object_mut(r).1[0] = n;
            cur = n;
        }
        h.collect([&[head][..]]);
        assert_eq!(h.live_cells(), 200_001);
    }

    #[test]
    fn pressure_rises_with_allocation() {
        let mut h = Heap::new();
        let mut saw_request = false;
        for _ in 0..(MIN_TRIGGER / 32 + 10) {
            if h.new_object(0, 0).unwrap().1 != AllocPressure::None {
                saw_request = true;
                break;
            }
        }
        assert!(saw_request);
    }

    #[test]
    fn stale_roots_are_ignored() {
        let mut h = Heap::new();
        let (a, _) = h.new_object(0, 0).unwrap();
        h.collect([&[][..]]);
        assert_eq!(h.live_cells(), 0);
        // `a` is stale now, and so is an index past the end.
        h.collect([&[a, Value::Obj(99, 0), Value::Arr(7)][..]]);
        assert_eq!(h.live_cells(), 0);
    }

    #[test]
    fn huge_arrays_fail_cleanly() {
        let mut h = Heap::new();
        assert_eq!(
            h.new_array(usize::MAX / 32),
            Err(array_bytes(usize::MAX / 32))
        );
    }
}

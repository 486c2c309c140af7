//! Values and pointers of every lane at once, with the lanes that agree kept once.
//!
//! Most of a kernel's values are the same in every lane (constants, root constants, the group
//! size, addresses of whole variables): a **uniform** value holds its components once and an
//! operation on uniform operands runs once. A **varying** value holds a slice per component,
//! component-major (component `c` of lane `l` at `c * lanes + l`).

use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    /// Word buffers of values dropped on this thread, for the next ones, by size class (a
    /// power of two of words). A kernel makes and drops a buffer a lane wide for every
    /// operation, the same few sizes over and over, and the allocator's path for blocks of
    /// kilobytes costs more than the operation itself.
    static SPARE: RefCell<[Vec<Vec<u32>>; CLASSES]> = const { RefCell::new([const { Vec::new() }; CLASSES]) };
}

/// Buffers smaller than this (a power of two) come from the allocator's own small-block caches.
const SPARE_MIN_WORDS: usize = 64;
/// Size classes kept: 64 words up to 2^(6 + CLASSES − 1).
const CLASSES: usize = 12;
/// Spare buffers kept a class: more than a kernel's values alive at once are rarely freed.
const SPARE_COUNT: usize = 32;

/// The class of buffers of at least `words` words, if kept.
fn class_holding(words: usize) -> Option<usize> {
    let class = words.max(SPARE_MIN_WORDS).next_power_of_two().trailing_zeros() as usize - 6;
    (class < CLASSES).then_some(class)
}

/// An empty word buffer that holds `cap` words, reused from a dropped value where one fits.
pub(crate) fn words(cap: usize) -> Vec<u32> {
    let Some(class) = class_holding(cap).filter(|_| cap >= SPARE_MIN_WORDS) else {
        return Vec::with_capacity(cap);
    };
    let spare = SPARE.try_with(|s| s.try_borrow_mut().ok()?[class].pop()).ok().flatten();
    spare.unwrap_or_else(|| Vec::with_capacity(SPARE_MIN_WORDS << class))
}

/// `len` zero words, in a reused buffer where one fits.
pub(crate) fn zeroed(len: usize) -> Vec<u32> {
    let mut v = words(len);
    v.resize(len, 0);
    v
}

/// Keeps `v`'s buffer for a later value on this thread, in the class its capacity fills.
pub(crate) fn recycle(mut v: Vec<u32>) {
    let cap = v.capacity();
    if cap < SPARE_MIN_WORDS {
        return;
    }
    // The largest class `cap` holds whole.
    let class = (usize::BITS - 1 - cap.leading_zeros()) as usize - 6;
    if class >= CLASSES {
        return;
    }
    v.clear();
    let _ = SPARE.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            if s[class].len() < SPARE_COUNT {
                s[class].push(v);
            }
        }
    });
}

/// A value of every lane.
#[derive(Debug, Default)]
pub(crate) struct Val {
    pub(crate) comps: usize,
    /// One copy of the components for all lanes.
    pub(crate) uniform: bool,
    pub(crate) data: Vec<u32>,
}

impl Clone for Val {
    fn clone(&self) -> Self {
        let mut data = words(self.data.len());
        data.extend_from_slice(&self.data);
        Val { comps: self.comps, uniform: self.uniform, data }
    }
}

impl Drop for Val {
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.data));
    }
}

impl Val {
    /// The same components in every lane.
    pub(crate) fn uniform(data: Vec<u32>) -> Self {
        Self { comps: data.len(), uniform: true, data }
    }

    /// `comps` zero components in every lane.
    pub(crate) fn zeros(comps: usize) -> Self {
        Self::uniform(vec![0; comps])
    }

    /// Components laid out component-major over `data.len() / comps` lanes.
    pub(crate) fn varying(comps: usize, data: Vec<u32>) -> Self {
        Self { comps, uniform: false, data }
    }

    /// Component `c` of lane `l` of `n`.
    #[inline]
    pub(crate) fn get(&self, c: usize, l: usize, n: usize) -> u32 {
        if self.uniform {
            self.data[c]
        } else {
            self.data[c * n + l]
        }
    }

    /// Component `c`: one word if uniform, else a word per lane.
    #[inline]
    pub(crate) fn comp(&self, c: usize, n: usize) -> &[u32] {
        if self.uniform {
            &self.data[c..c + 1]
        } else {
            &self.data[c * n..(c + 1) * n]
        }
    }

    /// Components `first..first + count`.
    pub(crate) fn slice(&self, first: usize, count: usize, n: usize) -> Val {
        let w = if self.uniform { 1 } else { n };
        let mut data = words(count * w);
        data.extend_from_slice(&self.data[first * w..(first + count) * w]);
        Val { comps: count, uniform: self.uniform, data }
    }

    /// The components of `parts`, one after another.
    pub(crate) fn concat<'a>(parts: impl Iterator<Item = &'a Val> + Clone, n: usize) -> Val {
        let uniform = parts.clone().all(|p| p.uniform);
        let comps = parts.clone().map(|p| p.comps).sum::<usize>();
        let mut out = Val { comps, uniform, data: words(if uniform { comps } else { comps * n }) };
        for p in parts {
            if uniform || !p.uniform {
                out.data.extend_from_slice(&p.data);
            } else {
                for &c in &p.data {
                    out.data.extend(std::iter::repeat_n(c, n));
                }
            }
        }
        out
    }
}

/// Whether any lane of an execution mask is on. A whole pass, without stopping at the first
/// lane on: a byte-wide OR the compiler vectorises runs a 1024-lane mask many times faster than
/// a loop that may exit at each lane.
pub(crate) fn any_lane(mask: &[bool]) -> bool {
    if mask.first() == Some(&true) {
        return true;
    }
    let bytes: &[u8] = bytemuck::cast_slice(mask);
    bytes.iter().fold(0u8, |a, &b| a | b) != 0
}

/// How many lanes of an execution mask are on: sums of at most 255 lanes kept in a byte (no
/// carry out of it), which the compiler vectorises.
pub(crate) fn count_lanes(mask: &[bool]) -> usize {
    let bytes: &[u8] = bytemuck::cast_slice(mask);
    bytes.chunks(255).map(|c| usize::from(c.iter().fold(0u8, |s, &b| s.wrapping_add(b)))).sum()
}

/// Whether every lane of an execution mask is on (the same way as `any_lane`).
pub(crate) fn all_lanes(mask: &[bool]) -> bool {
    if mask.first() == Some(&false) {
        return false;
    }
    let bytes: &[u8] = bytemuck::cast_slice(mask);
    bytes.iter().fold(1u8, |a, &b| a & b) != 0
}

/// Where a pointer points: the memory of a binding, the push constants, or a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    /// The shader binding at this index of the entry point's list.
    Binding(usize),
    /// The push-constant block.
    Immediate,
    /// A workgroup variable (global index).
    Workgroup(usize),
    /// A private variable (global index), one copy a lane.
    Private(usize),
    /// A function's local variable, one copy a lane.
    Local(usize),
}

impl Region {
    /// Whether pointers into it count components (the kernel's own variables, laid out
    /// structure-of-arrays) rather than bytes (memory the app sees, in its layout).
    pub(crate) fn components(self) -> bool {
        matches!(self, Region::Workgroup(_) | Region::Private(_) | Region::Local(_))
    }
}

/// An offset that marks a lane whose access went out of bounds: it reads 0 and writes nothing.
pub(crate) const OUT: u32 = u32::MAX;

/// A pointer's offsets (bytes or components, as its region counts).
#[derive(Clone, Debug)]
pub(crate) enum Offsets {
    /// The same in every lane.
    Uniform(u32),
    /// Lane `l`'s is `first + l * stride`, each below `OUT`: an array indexed by the thread id,
    /// kept without a list to build or a stride to find again.
    Strided { first: u32, stride: u32 },
    /// One a lane.
    Varying(Vec<u32>),
}

impl Offsets {
    #[inline]
    pub(crate) fn get(&self, l: usize) -> u32 {
        match self {
            Offsets::Uniform(o) => *o,
            // In range: the lanes' last offset is below `OUT` (`Offsets::strided`).
            Offsets::Strided { first, stride } => first.wrapping_add((l as u32).wrapping_mul(*stride)),
            Offsets::Varying(v) => v[l],
        }
    }

    /// Each of `n` lanes' offsets, where they may differ (`None`: uniform).
    pub(crate) fn lanes(&self, n: usize) -> Option<std::borrow::Cow<'_, [u32]>> {
        match self {
            Offsets::Uniform(_) => None,
            Offsets::Strided { .. } => Some((0..n).map(|l| self.get(l)).collect::<Vec<_>>().into()),
            Offsets::Varying(v) => Some(v.as_slice().into()),
        }
    }
}

/// A pointer in every lane: one region, its offsets.
#[derive(Clone, Debug)]
pub(crate) struct Ptr {
    pub(crate) region: Region,
    pub(crate) offsets: Offsets,
}

/// What an expression evaluates to, shared: an operand is read many times, never copied.
#[derive(Clone, Debug)]
pub(crate) enum Slot {
    Val(Rc<Val>),
    Ptr(Rc<Ptr>),
}

impl Slot {
    pub(crate) fn val(v: Val) -> Slot {
        Slot::Val(Rc::new(v))
    }

    pub(crate) fn ptr(p: Ptr) -> Slot {
        Slot::Ptr(Rc::new(p))
    }
}

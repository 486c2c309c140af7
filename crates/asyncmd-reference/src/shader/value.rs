//! Values and pointers of every lane at once, with the lanes that agree kept once.
//!
//! Most of a kernel's values are the same in every lane (constants, root constants, the group
//! size, addresses of whole variables): a **uniform** value holds its components once and an
//! operation on uniform operands runs once. A **varying** value holds a slice per component,
//! component-major (component `c` of lane `l` at `c * lanes + l`).

use std::rc::Rc;

/// A value of every lane.
#[derive(Clone, Debug, Default)]
pub(crate) struct Val {
    pub(crate) comps: usize,
    /// One copy of the components for all lanes.
    pub(crate) uniform: bool,
    pub(crate) data: Vec<u32>,
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
        Val { comps: count, uniform: self.uniform, data: self.data[first * w..(first + count) * w].to_vec() }
    }

    /// The same value with a slice per component.
    pub(crate) fn spread(&self, n: usize) -> Val {
        if !self.uniform {
            return self.clone();
        }
        let mut data = Vec::with_capacity(self.comps * n);
        for &c in &self.data {
            data.extend(std::iter::repeat_n(c, n));
        }
        Val::varying(self.comps, data)
    }

    /// The components of `parts`, one after another.
    pub(crate) fn concat<'a>(parts: impl Iterator<Item = &'a Val> + Clone, n: usize) -> Val {
        let uniform = parts.clone().all(|p| p.uniform);
        let mut out = Val { comps: 0, uniform, data: Vec::new() };
        for p in parts {
            out.comps += p.comps;
            if uniform || !p.uniform {
                out.data.extend_from_slice(&p.data);
            } else {
                out.data.extend_from_slice(&p.spread(n).data);
            }
        }
        out
    }
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
    /// One a lane.
    Varying(Vec<u32>),
}

impl Offsets {
    #[inline]
    pub(crate) fn get(&self, l: usize) -> u32 {
        match self {
            Offsets::Uniform(o) => *o,
            Offsets::Varying(v) => v[l],
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

//! Values and pointers of every lane at once.

/// A value for each of `lanes` lanes: components of 32 bits, component-major (component `c` of
/// lane `l` at `c * lanes + l`), so that an operation runs down a contiguous slice.
#[derive(Clone, Debug, Default)]
pub(crate) struct Val {
    pub(crate) comps: usize,
    pub(crate) data: Vec<u32>,
}

impl Val {
    pub(crate) fn zeros(comps: usize, lanes: usize) -> Self {
        Self { comps, data: vec![0; comps * lanes] }
    }

    /// The same constant components in every lane.
    pub(crate) fn splat(components: &[u32], lanes: usize) -> Self {
        let mut data = Vec::with_capacity(components.len() * lanes);
        for c in components {
            data.extend(std::iter::repeat_n(*c, lanes));
        }
        Self { comps: components.len(), data }
    }

    /// Component `c`, every lane.
    pub(crate) fn comp(&self, c: usize, lanes: usize) -> &[u32] {
        &self.data[c * lanes..(c + 1) * lanes]
    }

    pub(crate) fn comp_mut(&mut self, c: usize, lanes: usize) -> &mut [u32] {
        &mut self.data[c * lanes..(c + 1) * lanes]
    }

    /// Components `first..first + n`.
    pub(crate) fn slice(&self, first: usize, n: usize, lanes: usize) -> Val {
        Val { comps: n, data: self.data[first * lanes..(first + n) * lanes].to_vec() }
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

/// An offset that marks a lane whose access went out of bounds: it reads 0 and writes nothing.
pub(crate) const OUT: u32 = u32::MAX;

/// A pointer in every lane: one region, a byte offset per lane.
#[derive(Clone, Debug)]
pub(crate) struct Ptr {
    pub(crate) region: Region,
    pub(crate) offsets: Vec<u32>,
}

/// What an expression evaluates to.
#[derive(Clone, Debug)]
pub(crate) enum Slot {
    Val(Val),
    Ptr(Ptr),
}

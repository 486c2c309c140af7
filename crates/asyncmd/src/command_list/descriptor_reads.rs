//! The descriptors a list's dispatches read, kept to be checked again when the list executes.
//!
//! asyncmd reads a descriptor table when a dispatch is recorded: the device receives the views
//! themselves, so a list costs the device no heap look-up when it runs. That is D3D12's
//! static descriptors (root signature 1.1's default: written before the table is set, unchanged
//! until the list's last execution ends). A range declared `DESCRIPTORS_VOLATILE` allows an app
//! to change its descriptors until the list executes; asyncmd cannot honour a change made after
//! the dispatch was recorded, so it keeps those reads and refuses an execution that would run
//! with descriptors the app has since replaced (`Unsupported`), rather than run stale views in
//! silence. Under the debug layer it keeps every read, and names a static descriptor changed
//! before its list executed (D3D12 leaves it undefined).

use crate::descriptor::{GpuDescriptorHandle, ViewDescriptor};

/// One descriptor a dispatch read: its table, where in it, and what it held.
#[derive(Clone)]
pub(crate) struct DescriptorRead {
    pub(crate) table: GpuDescriptorHandle,
    pub(crate) offset: u64,
    pub(crate) seen: ViewDescriptor,
    /// From a `DESCRIPTORS_VOLATILE` range.
    pub(crate) volatile: bool,
}

impl DescriptorRead {
    /// Whether the descriptor holds something else now.
    pub(crate) fn changed(&self) -> bool {
        !self.table.still_holds(self.offset, &self.seen)
    }

    /// The descriptor's place in its heap.
    pub(crate) fn place(&self) -> u64 {
        self.table.place(self.offset)
    }
}

/// The reads of one recording.
#[derive(Clone, Default)]
pub(crate) struct DescriptorReads(Vec<DescriptorRead>);

impl DescriptorReads {
    pub(crate) fn push(&mut self, read: DescriptorRead) {
        self.0.push(read);
    }

    /// A bundle's reads become the executing list's: they are checked when it executes.
    pub(crate) fn extend_from(&mut self, other: &DescriptorReads) {
        self.0.extend_from_slice(&other.0);
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// The reads whose descriptors changed since.
    pub(crate) fn changed(&self) -> impl Iterator<Item = &DescriptorRead> {
        self.0.iter().filter(|r| r.changed())
    }
}

//! A queue's command buffers in flight and the parts of executed ones, ready for reuse.

use super::Tracked;
use crate::allocator::CommandAllocator;
use crate::command_list::CommandList;
use std::collections::VecDeque;

/// An allocator and the list recorded on it: what a primary command buffer is made of.
pub(crate) struct Parts {
    pub(crate) allocator: CommandAllocator,
    pub(crate) list: CommandList,
}

/// One submission of command buffers: the queue passes `value` when the GPU has executed it.
struct Pending {
    value: u64,
    parts: Vec<Parts>,
    tracked: Vec<Tracked>,
}

/// The queue's recycling: submissions in order, and the parts of executed ones.
#[derive(Default)]
pub(crate) struct Recycler {
    pending: VecDeque<Pending>,
    free: Vec<Parts>,
    /// Emptied vectors of retired submissions, reused by later ones.
    spare_parts: Vec<Vec<Parts>>,
    spare_tracked: Vec<Vec<Tracked>>,
    /// The vector released objects gather in, between releases.
    released: Vec<Tracked>,
}

impl Recycler {
    /// Keeps a submission's parts and tracked objects until the queue passes `value`.
    pub(crate) fn submitted(&mut self, value: u64, parts: Vec<Parts>, tracked: Vec<Tracked>) {
        self.pending.push_back(Pending { value, parts, tracked });
    }

    /// Retires every submission the queue has passed (`completed`): their parts become free,
    /// and their tracked objects are returned for the caller to drop outside the lock.
    pub(crate) fn retire(&mut self, completed: u64, released: &mut Vec<Tracked>) {
        while self.pending.front().is_some_and(|p| p.value <= completed) {
            let Some(mut p) = self.pending.pop_front() else { break };
            released.append(&mut p.tracked);
            self.free.append(&mut p.parts);
            self.keep_vecs(p.parts, p.tracked);
        }
    }

    /// Empty vectors for a submission's parts and tracked objects.
    pub(crate) fn spare_vecs(&mut self) -> (Vec<Parts>, Vec<Tracked>) {
        (self.spare_parts.pop().unwrap_or_default(), self.spare_tracked.pop().unwrap_or_default())
    }

    /// Keeps emptied vectors for later submissions.
    pub(crate) fn keep_vecs(&mut self, parts: Vec<Parts>, tracked: Vec<Tracked>) {
        debug_assert!(parts.is_empty() && tracked.is_empty());
        self.spare_parts.push(parts);
        self.spare_tracked.push(tracked);
    }

    /// The (empty) vector to gather released objects in.
    pub(crate) fn released_vec(&mut self) -> Vec<Tracked> {
        std::mem::take(&mut self.released)
    }

    /// Takes the released vector back, emptied.
    pub(crate) fn keep_released_vec(&mut self, released: Vec<Tracked>) {
        if released.capacity() > self.released.capacity() {
            self.released = released;
        }
    }

    /// Parts of an executed (or never submitted) command buffer, for reuse.
    pub(crate) fn take_free(&mut self) -> Option<Parts> {
        self.free.pop()
    }

    /// Parts of a command buffer dropped without being submitted: the GPU never saw them.
    pub(crate) fn give_back(&mut self, parts: Parts) {
        self.free.push(parts);
    }

    /// Objects kept alive by submissions in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.pending.iter().map(|p| p.tracked.len()).sum()
    }
}

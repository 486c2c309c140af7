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

impl Parts {
    /// Resets the allocator and reopens the list on it, so that the parts hold nothing of
    /// their last recording (no object it named stays alive, 002) and record at once when
    /// reused. Called once the GPU is done with them, outside the recycler's lock: resetting
    /// calls the driver.
    pub(crate) fn recycle(&mut self) -> asyncmd_types::Result<()> {
        if self.list.is_open() {
            let _ = self.list.close();
        }
        self.allocator.reset()?;
        self.list.reset(&self.allocator)
    }
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
    /// Recycled parts, recording and empty.
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

    /// Retires every submission the queue has passed (`completed`): their tracked objects and
    /// parts are returned for the caller to drop and recycle outside the lock.
    pub(crate) fn retire(&mut self, completed: u64, released: &mut Vec<Tracked>, retired: &mut Vec<Parts>) {
        while self.pending.front().is_some_and(|p| p.value <= completed) {
            let Some(mut p) = self.pending.pop_front() else { break };
            released.append(&mut p.tracked);
            retired.append(&mut p.parts);
            self.keep_vecs(p.parts, p.tracked);
        }
    }

    /// The value the oldest submission in flight waits for, if any.
    pub(crate) fn oldest(&self) -> Option<u64> {
        self.pending.front().map(|p| p.value)
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

    /// The (empty) vectors to gather released objects and retired parts in.
    pub(crate) fn released_vecs(&mut self) -> (Vec<Tracked>, Vec<Parts>) {
        (std::mem::take(&mut self.released), self.spare_parts.pop().unwrap_or_default())
    }

    /// Takes the released vector back, emptied.
    pub(crate) fn keep_released_vec(&mut self, released: Vec<Tracked>) {
        if released.capacity() > self.released.capacity() {
            self.released = released;
        }
    }

    /// Recycled parts (recording, empty), for a new buffer.
    pub(crate) fn take_free(&mut self) -> Option<Parts> {
        self.free.pop()
    }

    /// Recycled parts ([`Parts::recycle`]), for reuse; the emptied vector is kept.
    pub(crate) fn put_free(&mut self, mut parts: Vec<Parts>) {
        self.free.append(&mut parts);
        self.spare_parts.push(parts);
    }

    /// One part recycled ([`Parts::recycle`]), for reuse.
    pub(crate) fn put_free_one(&mut self, parts: Parts) {
        self.free.push(parts);
    }

    /// Objects kept alive by submissions in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.pending.iter().map(|p| p.tracked.len()).sum()
    }
}

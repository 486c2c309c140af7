//! What a fence reaching a value says about a queue's progress: D3D12 runs a queue's
//! operations in order, so a fence the queue signalled after its progress value *p* reaching
//! its value says the queue's work up to *p* is done. The runtime uses that to answer "is this
//! allocator's work done?" without asking the device (`docs/decisions.md`).
//!
//! It holds only while the fence's values come from that one queue's signals, submitted in
//! rising order: a host signal, a second queue's signal, or a signal submitted below one
//! submitted before can make the fence reach a value before the queue's work before it is
//! done. Any of them makes the fence imply nothing from then on.

use super::FenceShared;
use smallvec::SmallVec;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// How many implications a fence keeps: the newest. One that does not fit is dropped, which
/// only leaves a later check to ask the device.
const KEPT: usize = 4;

/// Once the fence reaches `value`, `progress` has reached `reaches`.
struct Implied {
    value: u64,
    progress: Weak<FenceShared>,
    reaches: u64,
}

/// A fence's implications, and whether its values still come from one queue alone.
#[derive(Default)]
pub(crate) struct Implications {
    /// The progress fence of the one queue that has signalled this fence.
    signaller: Option<Weak<FenceShared>>,
    /// The highest value a queue signal of this fence was submitted with.
    top: u64,
    /// A host signal, another queue's or an out-of-order one was seen: nothing is implied.
    mixed: bool,
    kept: SmallVec<[Implied; KEPT]>,
}

impl Implications {
    /// Notes that `progress`'s queue submitted a signal of the fence to `value` after its own
    /// progress value `reaches`. Called with the queue's submission order held.
    pub(crate) fn queue_signalled(&mut self, value: u64, progress: &Arc<FenceShared>, reaches: u64) {
        if self.mixed {
            return;
        }
        match &self.signaller {
            None => self.signaller = Some(Arc::downgrade(progress)),
            Some(s) if s.as_ptr() == Arc::as_ptr(progress) => {}
            Some(_) => return self.mix(),
        }
        if value <= self.top {
            return self.mix();
        }
        self.top = value;
        if self.kept.len() == KEPT {
            self.kept.remove(0);
        }
        self.kept.push(Implied { value, progress: Arc::downgrade(progress), reaches });
    }

    /// The host sets the fence: from now on its values say nothing of a queue's work. Called
    /// before the device sets it, so no read can see the host's value while this still implies.
    pub(crate) fn host_signalled(&mut self) {
        self.mix();
    }

    fn mix(&mut self) {
        self.mixed = true;
        self.kept.clear();
    }

    /// The fence has reached `value`: the queue's progress this implies, taken out.
    pub(crate) fn reached(&mut self, value: u64) -> SmallVec<[(Weak<FenceShared>, u64); KEPT]> {
        let mut reached = SmallVec::new();
        self.kept.retain(|i| {
            if i.value <= value {
                reached.push((std::mem::take(&mut i.progress), i.reaches));
                false
            } else {
                true
            }
        });
        reached
    }
}

/// Raises each progress fence to what it is implied to have reached.
pub(crate) fn apply(reached: SmallVec<[(Weak<FenceShared>, u64); KEPT]>) {
    for (progress, reaches) in reached {
        if let Some(p) = progress.upgrade() {
            // Progress fences imply nothing further: only their queues signal them.
            p.reached.fetch_max(reaches, Ordering::AcqRel);
        }
    }
}

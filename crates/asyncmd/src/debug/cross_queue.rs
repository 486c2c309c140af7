//! The debug layer's view across queues (spec 004): which queue last wrote a resource and
//! where in its work, which signals each fence got from which queue, and which waits each
//! queue made. A list that uses a resource another queue wrote, where that write is not done
//! and the list's queue never waited for a point of the writer's work at or past it, is
//! reported (`CrossQueueWriteNotAwaited`). Queues order nothing among themselves: only a fence
//! wait does.

use crate::fence::Fence;
use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// What identifies a queue: its shared state's address.
pub(crate) type QueueKey = usize;

/// The most signals a fence remembers, and waits a queue remembers.
const LOG: usize = 256;

/// The signals a queue made on a fence: the value and the point of the queue's own work (its
/// progress value) the signal comes after.
#[derive(Default)]
pub(crate) struct SignalLog(Mutex<VecDeque<(u64, QueueKey, u64)>>);

impl SignalLog {
    pub(crate) fn signalled(&self, value: u64, queue: QueueKey, after: u64) {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if log.len() == LOG {
            log.pop_front();
        }
        log.push_back((value, queue, after));
    }

    /// How far into `queue`'s work a wait for `value` reaches: the point of the first signal
    /// from it at or past `value`.
    fn reach(&self, value: u64, queue: QueueKey) -> Option<u64> {
        let log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log.iter().filter(|s| s.1 == queue && s.0 >= value).min_by_key(|s| s.0).map(|s| s.2)
    }
}

/// The waits a queue made, newest last.
#[derive(Default)]
pub(crate) struct WaitLog(Mutex<VecDeque<(Fence, u64)>>);

impl WaitLog {
    pub(crate) fn waited(&self, fence: &Fence, value: u64) {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if log.len() == LOG {
            log.pop_front();
        }
        log.push_back((fence.clone(), value));
    }

    /// How far into `writer`'s work (its progress value) these waits reach.
    fn reach(&self, writer: QueueKey) -> u64 {
        let log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log.iter()
            .filter_map(|(fence, value)| match fence.0.owner.get().copied() {
                Some(q) if q == writer => Some(*value),
                Some(_) => None,
                None => fence.0.signals.reach(*value, writer),
            })
            .max()
            .unwrap_or(0)
    }
}

/// The last queue write of a resource: the queue, its progress fence and the value it passes
/// once the write is done.
#[derive(Default)]
pub(crate) struct LastWrite(Mutex<Option<(QueueKey, Fence, u64)>>);

impl LastWrite {
    pub(crate) fn wrote(&self, queue: QueueKey, progress: &Fence, value: u64) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some((queue, progress.clone(), value));
    }

    /// Whether a use on `queue` (whose waits are `waits`) races with the last write: another
    /// queue's, not done, and not waited for. Returns the writer's value if so.
    pub(crate) fn races(&self, queue: QueueKey, waits: &WaitLog) -> Option<u64> {
        let last = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (writer, progress, value) = last.as_ref()?;
        (*writer != queue && progress.completed_value() < *value && waits.reach(*writer) < *value).then_some(*value)
    }
}

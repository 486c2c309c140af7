//! The debug layer's view across queues (spec 004): which queue last wrote a resource and
//! where in its work, which signals each fence got from which queue, and which waits each
//! queue made. A list that uses a resource another queue wrote, where that write is not done
//! and the list's queue never waited for a point of the writer's work at or past it, is
//! reported (`CrossQueueWriteNotAwaited`). Queues order nothing among themselves: only a fence
//! wait does, and transitively: a queue that waits for a signal another queue made after its
//! own waits is ordered after what those waits were.

use crate::fence::Fence;
use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// What identifies a queue: its shared state's address.
pub(crate) type QueueKey = usize;

/// The most signals a fence remembers, and waits a queue remembers.
const LOG: usize = 256;

/// How far into each other queue's work a queue's later work is ordered after, by the fence
/// waits it made and, through the signals they waited for, the waits of the queues that
/// signalled (a vector clock: waits order work transitively).
#[derive(Clone, Default)]
pub(crate) struct Clock(Vec<(QueueKey, u64)>);

impl Clock {
    /// The point of `queue`'s work this clock is ordered after (0: none).
    fn at(&self, queue: QueueKey) -> u64 {
        self.0.iter().find(|e| e.0 == queue).map_or(0, |e| e.1)
    }

    /// Orders after `value` of `queue`'s work too.
    fn reach(&mut self, queue: QueueKey, value: u64) {
        match self.0.iter_mut().find(|e| e.0 == queue) {
            Some(e) => e.1 = e.1.max(value),
            None => self.0.push((queue, value)),
        }
    }

    /// Orders after everything `other` is ordered after.
    fn merge(&mut self, other: &Clock) {
        other.0.iter().for_each(|&(q, v)| self.reach(q, v));
    }
}

/// The signals queues made on a fence: the value and what work it comes after (the signalling
/// queue's clock, with its own work up to the signal).
#[derive(Default)]
pub(crate) struct SignalLog(Mutex<VecDeque<(u64, Clock)>>);

impl SignalLog {
    /// `queue` signals `value` after its own work up to `after`, its waits being `waits`.
    pub(crate) fn signalled(&self, value: u64, queue: QueueKey, after: u64, waits: &WaitLog) {
        let mut clock = waits.clock();
        clock.reach(queue, after);
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if log.len() == LOG {
            log.pop_front();
        }
        log.push_back((value, clock));
    }

    /// What a wait for `value` is ordered after: the first signal at or past it.
    fn reach(&self, value: u64) -> Option<Clock> {
        let log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log.iter().filter(|s| s.0 >= value).min_by_key(|s| s.0).map(|s| s.1.clone())
    }
}

/// What a queue's work from now on is ordered after, by the waits it made.
#[derive(Default)]
pub(crate) struct WaitLog(Mutex<Clock>);

impl WaitLog {
    pub(crate) fn waited(&self, fence: &Fence, value: u64) {
        let reached = match fence.0.owner.get().copied() {
            // A queue's progress fence: that queue's work up to `value`.
            Some(q) => {
                let mut c = Clock::default();
                c.reach(q, value);
                c
            }
            None => fence.0.signals.reach(value).unwrap_or_default(),
        };
        self.0.lock().unwrap_or_else(PoisonError::into_inner).merge(&reached);
    }

    fn clock(&self) -> Clock {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// How far into `writer`'s work (its progress value) these waits reach.
    fn reach(&self, writer: QueueKey) -> u64 {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).at(writer)
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

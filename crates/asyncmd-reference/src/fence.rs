//! Timeline fences.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A fence: a monotonic value with waiters.
pub(crate) struct RefFence {
    value: Mutex<u64>,
    changed: Condvar,
    shutdown: Arc<AtomicBool>,
}

impl RefFence {
    pub(crate) fn new(initial: u64, shutdown: Arc<AtomicBool>) -> Self {
        Self { value: Mutex::new(initial), changed: Condvar::new(), shutdown }
    }

    pub(crate) fn value(&self) -> u64 {
        *self.value.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Raises the value to `value`; a signal below the value changes nothing, as on a timeline
    /// semaphore (a queue's signal may run after a higher one from the CPU).
    pub(crate) fn signal(&self, value: u64) {
        let mut v = self.value.lock().unwrap_or_else(PoisonError::into_inner);
        *v = (*v).max(value);
        drop(v);
        self.changed.notify_all();
    }

    /// Wakes every waiter so that it can notice a device shutdown.
    pub(crate) fn wake(&self) {
        let _guard = self.value.lock().unwrap_or_else(PoisonError::into_inner);
        self.changed.notify_all();
    }

    /// Waits until the value reaches `target`, the timeout passes, the device shuts down or
    /// `cancel` is set.
    pub(crate) fn wait(&self, target: u64, timeout: Option<Duration>, cancel: &AtomicBool) -> bool {
        // A timeout too long to represent is no timeout (it cannot pass).
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut v = self.value.lock().unwrap_or_else(PoisonError::into_inner);
        while *v < target {
            if self.shutdown.load(Ordering::Acquire) || cancel.load(Ordering::Acquire) {
                return false;
            }
            match deadline {
                None => {
                    v = self
                        .changed
                        .wait_timeout(v, Duration::from_millis(50))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return false;
                    }
                    v = self.changed.wait_timeout(v, d - now).unwrap_or_else(PoisonError::into_inner).0;
                }
            }
        }
        true
    }
}

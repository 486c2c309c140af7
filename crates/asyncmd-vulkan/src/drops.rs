//! Drops handed to a pooled thread without a wait, counted, so that a device's last handle
//! does not return while one of them still holds the device.
//!
//! A finished recording's drop gives its pool back on a pooled thread (`threads::detached`),
//! and that task holds the device's core. Where the app let go of everything else meanwhile,
//! the task held the last reference: the device, its instance and the loader's driver library
//! were then destroyed on the pooled thread while the app's main thread went on into `exit`,
//! whose handlers ran a handler of the driver library being unloaded (a segfault at exit, 3 of
//! 62 runs of `asyncmd bench --suite peers` on lavapipe: `docs/reliability.md`). So the
//! device's drop waits for its detached drops, and once it has begun they are made with a
//! wait. A list's `Close` that finds no idle pool waits for them too: the pool one gives back
//! is nearer than a new one.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// A device's detached drops in flight, and whether its last handle is being dropped.
#[derive(Default)]
pub(crate) struct DetachedDrops {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// Drops handed over so far.
    started: u64,
    /// Drops ended so far (in any order).
    ended: u64,
    /// The device is being dropped: drops are made with a wait from now on.
    closing: bool,
}

/// One detached drop in flight; let go of after the task's captures.
struct Pending(Arc<DetachedDrops>);

impl Drop for Pending {
    fn drop(&mut self) {
        let mut s = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.ended = s.ended.saturating_add(1);
        drop(s);
        self.0.changed.notify_all();
    }
}

impl DetachedDrops {
    /// Runs `work` as `threads::detached` does, counted; on the calling thread where `here`
    /// (`Core::calls_here`: the pool it gives back is there for the next `Close`), and with a
    /// wait once the device's drop has begun (no one is left to wait for it then).
    pub(crate) fn run(self: &Arc<Self>, here: bool, work: impl FnOnce() + Send + 'static) {
        if here {
            return crate::threads::on_driver_or_here(true, work);
        }
        {
            let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            if s.closing {
                drop(s);
                return crate::threads::on_driver(work);
            }
            s.started = s.started.saturating_add(1);
        }
        let pending = Pending(self.clone());
        crate::threads::detached(move || {
            // `work` is consumed by the call: what it holds (the core) goes before `pending`.
            work();
            drop(pending);
        });
    }

    /// Waits, for at most `limit`, for as many drops to end as were in flight when it was
    /// called (drops handed over later do not hold it up); says whether there were any (a pool
    /// one gives back is nearer than a new one: `ListPools::take`).
    pub(crate) fn settle(&self, limit: Duration) -> bool {
        crate::gate::unlocked(|| {
            let s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            let target = s.started;
            if s.ended >= target {
                return false;
            }
            let _ = self.changed.wait_timeout_while(s, limit, |s| s.ended < target);
            true
        })
    }

    /// Marks the device as being dropped and waits, for at most `limit`, for the drops in
    /// flight; says whether they ended.
    pub(crate) fn close_and_wait(&self, limit: Duration) -> bool {
        crate::gate::unlocked(|| {
            let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            s.closing = true;
            // No drop is handed over once closing: the count in flight only falls.
            let waited = self.changed.wait_timeout_while(s, limit, |s| s.ended < s.started);
            let (s, _) = waited.unwrap_or_else(PoisonError::into_inner);
            s.ended >= s.started
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn closing_waits_for_a_drop_in_flight_and_later_drops_are_waited_for() {
        let drops = Arc::new(DetachedDrops::default());
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        drops.run(false, move || {
            std::thread::sleep(Duration::from_millis(100));
            d.store(true, Ordering::Release);
        });
        assert!(!done.load(Ordering::Acquire), "the drop was handed over, not run by the caller");
        assert!(drops.close_and_wait(Duration::from_secs(10)));
        assert!(done.load(Ordering::Acquire), "closing returned before the drop in flight ended");
        let after = Arc::new(AtomicBool::new(false));
        let a = after.clone();
        drops.run(false, move || {
            std::thread::sleep(Duration::from_millis(20));
            a.store(true, Ordering::Release);
        });
        assert!(after.load(Ordering::Acquire), "a drop after closing returned before it ended");
    }

    #[test]
    fn settling_waits_for_a_drop_in_flight_and_says_whether_there_was_one() {
        let drops = Arc::new(DetachedDrops::default());
        assert!(!drops.settle(Duration::from_secs(10)), "no drop was in flight");
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        drops.run(false, move || {
            std::thread::sleep(Duration::from_millis(100));
            d.store(true, Ordering::Release);
        });
        assert!(drops.settle(Duration::from_secs(10)));
        assert!(done.load(Ordering::Acquire), "settling returned before the drop in flight ended");
    }

    #[test]
    fn closing_gives_up_on_a_drop_that_does_not_end_in_time() {
        let drops = Arc::new(DetachedDrops::default());
        let release = Arc::new((Mutex::new(false), Condvar::new()));
        let r = release.clone();
        drops.run(false, move || {
            let mut go = r.0.lock().unwrap();
            while !*go {
                go = r.1.wait(go).unwrap();
            }
        });
        assert!(!drops.close_and_wait(Duration::from_millis(50)));
        *release.0.lock().unwrap() = true;
        release.1.notify_all();
        assert!(drops.close_and_wait(Duration::from_secs(10)));
    }
}

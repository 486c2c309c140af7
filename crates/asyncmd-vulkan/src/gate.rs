//! While the validation layer is loaded, no driver call runs while a device or an instance is
//! made or destroyed.
//!
//! The Khronos validation layer (1.3.239, Debian 12's) finds its state for a call in one map
//! of the process, which `vkCreateDevice`, `vkCreateInstance` and their destroys change with no
//! lock (`GetLayerDataPtr`, Vulkan-ValidationLayers issue 4391). A call on one device while
//! another thread creates or destroys another then reads a map being rehashed, and jumps to a
//! null function (seen about once in 20 runs of the `fills` tests on lavapipe, in
//! `vkCreateBuffer`). So, once an instance with the layer exists, driver calls hold a shared
//! [`Gate`] and those four hold it exclusively. Without the layer nothing is locked.
//!
//! A thread never blocks holding the gate on something that needs another thread to take it:
//! waits for work not yet submitted, and joins of pooled tasks, let go of it ([`unlocked`]);
//! waits for submitted GPU work keep it (the GPU finishes that work without the gate). Threads
//! that want it wait while a creation or destruction waits, so those wait only for the calls
//! already running.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// Whether an instance with the validation layer has been made in this process.
static LAYERED: AtomicBool = AtomicBool::new(false);

static GATE: Gate =
    Gate { state: Mutex::new(State { shared: 0, exclusive: false, waiting: 0 }), changed: Condvar::new() };

thread_local! {
    /// How deep this thread is in [`shared`] stretches, whether or not they hold the gate (a
    /// stretch begun before the layer was loaded holds nothing until [`exclusive`] loads it).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// This thread holds the gate shared.
    static HELD: Cell<bool> = const { Cell::new(false) };
    /// This thread holds the gate exclusively: what it calls inside needs no shared hold.
    static ALONE: Cell<bool> = const { Cell::new(false) };
}

struct State {
    shared: usize,
    exclusive: bool,
    /// Threads waiting to hold it exclusively: new shared holders wait behind them.
    waiting: usize,
}

struct Gate {
    state: Mutex<State>,
    changed: Condvar,
}

impl Gate {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, s: std::sync::MutexGuard<'a, State>) -> std::sync::MutexGuard<'a, State> {
        self.changed.wait(s).unwrap_or_else(PoisonError::into_inner)
    }

    fn enter_shared(&self) {
        let mut s = self.lock();
        while s.exclusive || s.waiting > 0 {
            s = self.wait(s);
        }
        s.shared += 1;
    }

    fn leave_shared(&self) {
        let mut s = self.lock();
        s.shared -= 1;
        if s.shared == 0 {
            self.changed.notify_all();
        }
    }

    fn enter_exclusive(&self) {
        let mut s = self.lock();
        s.waiting += 1;
        while s.exclusive || s.shared > 0 {
            s = self.wait(s);
        }
        s.waiting -= 1;
        s.exclusive = true;
    }

    fn leave_exclusive(&self) {
        self.lock().exclusive = false;
        self.changed.notify_all();
    }
}

/// From now on driver calls go through the gate: called before the first instance with the
/// validation layer is made (no layer code runs before that).
pub(crate) fn layer_loading() {
    LAYERED.store(true, Ordering::Release);
}

/// Ends a [`shared`] stretch: the outermost lets go of this thread's hold, where it has one
/// (taken at its start, or in it by [`exclusive`]).
struct Shared;

impl Drop for Shared {
    fn drop(&mut self) {
        let depth = DEPTH.with(|d| {
            d.set(d.get().saturating_sub(1));
            d.get()
        });
        if depth == 0 && HELD.with(Cell::get) {
            HELD.with(|h| h.set(false));
            GATE.leave_shared();
        }
    }
}

fn take_shared() -> Shared {
    let outermost = DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get() == 1
    });
    if outermost && !HELD.with(Cell::get) && !ALONE.with(Cell::get) && LAYERED.load(Ordering::Acquire) {
        GATE.enter_shared();
        HELD.with(|h| h.set(true));
    }
    Shared
}

/// Runs `f`, a stretch of driver calls, holding the gate shared (already held: as it is).
pub(crate) fn shared<R>(f: impl FnOnce() -> R) -> R {
    let _held = take_shared();
    f()
}

/// Runs `f`, which waits for another thread, without this thread's shared hold.
pub(crate) fn unlocked<R>(f: impl FnOnce() -> R) -> R {
    if !HELD.with(Cell::get) {
        return f();
    }
    HELD.with(|h| h.set(false));
    GATE.leave_shared();
    // Taken again even if `f` unwinds: the caller's hold lets go of it.
    let _again = Rejoin;
    f()
}

/// Takes the shared hold back for [`unlocked`].
struct Rejoin;

impl Drop for Rejoin {
    fn drop(&mut self) {
        GATE.enter_shared();
        HELD.with(|h| h.set(true));
    }
}

/// Runs `f` (a device's or an instance's creation or destruction) with no other driver call
/// running, where the layer is loaded; this thread's shared hold is given up meanwhile.
pub(crate) fn exclusive<R>(f: impl FnOnce() -> R) -> R {
    if !LAYERED.load(Ordering::Acquire) {
        return f();
    }
    if ALONE.with(Cell::get) {
        return f();
    }
    let r = unlocked(|| {
        GATE.enter_exclusive();
        ALONE.with(|a| a.set(true));
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                ALONE.with(|a| a.set(false));
                GATE.leave_exclusive();
            }
        }
        let _leave = Leave;
        f()
    });
    // A stretch begun before the layer was loaded (the device open that makes the process's
    // first layered instance) held nothing: from here on it calls the layer, so it holds the
    // gate like any other (without this, its calls ran beside another thread's instance
    // creation: a crash in the layer on the H200, in `copy_speed::measure`).
    if DEPTH.with(Cell::get) > 0 && !HELD.with(Cell::get) {
        GATE.enter_shared();
        HELD.with(|h| h.set(true));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;
    use std::time::Duration;

    /// The only test of the process that loads the layer (`LAYERED` is the process's): first a
    /// stretch begun before any layer, which loads it, then stretches with it.
    #[test]
    fn an_exclusive_stretch_runs_alone_and_waits_for_shared_ones_already_running() {
        a_stretch_that_loads_the_layer_holds_the_gate_for_the_rest_of_it();
        shared_and_exclusive_stretches_with_the_layer();
    }

    fn a_stretch_that_loads_the_layer_holds_the_gate_for_the_rest_of_it() {
        assert!(!LAYERED.load(Ordering::Acquire), "no layer yet");
        let (loaded, done) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let opener = {
            let (loaded, done) = (loaded.clone(), done.clone());
            std::thread::spawn(move || {
                // A device open: its stretch starts with no layer, then makes the first instance.
                shared(|| {
                    layer_loading();
                    exclusive(|| {});
                    loaded.store(true, Ordering::SeqCst);
                    // The rest of the open: calls into the layer.
                    std::thread::sleep(Duration::from_millis(100));
                    done.store(true, Ordering::SeqCst);
                });
                assert!(!HELD.with(Cell::get), "the stretch let go of the gate");
            })
        };
        while !loaded.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        // Another thread's instance creation waits for the rest of that stretch.
        exclusive(|| assert!(done.load(Ordering::SeqCst), "an exclusive stretch ran beside a layered one"));
        opener.join().unwrap();
    }

    fn shared_and_exclusive_stretches_with_the_layer() {
        layer_loading();
        let inside = Arc::new(AtomicUsize::new(0));
        let overlapped = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = (0..6)
            .map(|n| {
                let (inside, overlapped) = (inside.clone(), overlapped.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        if n == 0 {
                            exclusive(|| {
                                if inside.swap(1000, Ordering::SeqCst) != 0 {
                                    overlapped.store(true, Ordering::SeqCst);
                                }
                                std::thread::sleep(Duration::from_micros(200));
                                inside.store(0, Ordering::SeqCst);
                            });
                        } else {
                            shared(|| {
                                // A nested stretch, then a wait without the hold.
                                shared(|| {
                                    if inside.fetch_add(1, Ordering::SeqCst) >= 1000 {
                                        overlapped.store(true, Ordering::SeqCst);
                                    }
                                    std::thread::sleep(Duration::from_micros(50));
                                    inside.fetch_sub(1, Ordering::SeqCst);
                                });
                                unlocked(|| std::thread::sleep(Duration::from_micros(50)));
                            });
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(!overlapped.load(Ordering::SeqCst));
        // An exclusive stretch inside a shared one gives the shared hold up first, and what it
        // calls needs none.
        shared(|| exclusive(|| shared(|| assert!(!HELD.with(Cell::get)))));
        assert!(!HELD.with(Cell::get));
    }
}

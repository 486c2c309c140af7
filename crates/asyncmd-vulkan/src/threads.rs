//! Threads that outlive devices, and device destruction the app never hangs in.
//!
//! NVIDIA's driver (580.159 on an H200) deadlocks intermittently when `vkDestroyDevice` runs
//! while another thread that called into the driver exits: the destroy joins a driver thread,
//! and that thread waits on a lock the exiting thread holds in its thread-exit cleanup. Two
//! rules keep the runtime's own threads out of that, and the app's threads from hanging in it:
//! - queue submission threads are never ended: a dropped queue hands its thread back to an idle
//!   pool, and the next queue of any device takes it ([`spawn`]);
//! - a device is destroyed on a pooled thread, and the thread that dropped it waits a bounded
//!   time ([`TaskHandle::join_timeout`]): a destroy that deadlocks in the driver strands that
//!   pooled thread (and the device's memory), never the app.
//!
//! `docs/vulkan-device.md` says what this leaves open.

use asyncmd_types::{Error, Result};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A task and the end its [`TaskHandle`] waits for.
type Task = (Box<dyn FnOnce() + Send>, Arc<Done>);

/// Idle threads, each waiting on its channel for a task.
static IDLE: Mutex<Vec<Sender<Task>>> = Mutex::new(Vec::new());

/// A task's end, which [`TaskHandle::join`] waits for.
#[derive(Default)]
struct Done {
    done: Mutex<bool>,
    changed: Condvar,
}

/// Waits for a task run by [`spawn`].
pub(crate) struct TaskHandle(Arc<Done>);

impl TaskHandle {
    /// Blocks until the task has returned (or unwound) and its thread is idle again.
    pub(crate) fn join(self) {
        let mut done = self.0.done.lock().unwrap_or_else(PoisonError::into_inner);
        while !*done {
            done = self.0.changed.wait(done).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Like [`TaskHandle::join`], for at most `limit`; says whether the task ended.
    pub(crate) fn join_timeout(self, limit: Duration) -> bool {
        let deadline = Instant::now().checked_add(limit);
        let mut done = self.0.done.lock().unwrap_or_else(PoisonError::into_inner);
        while !*done {
            let left = deadline.map_or(Duration::MAX, |d| d.saturating_duration_since(Instant::now()));
            if left.is_zero() {
                return false;
            }
            done = self.0.changed.wait_timeout(done, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        true
    }
}

/// Runs `task` on a pooled thread: an idle one, or a new one that joins the pool afterwards.
pub(crate) fn spawn(task: impl FnOnce() + Send + 'static) -> Result<TaskHandle> {
    let done = Arc::new(Done::default());
    let mut task: Task = (Box::new(task), done.clone());
    loop {
        let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let Some(sender) = idle else { break };
        match sender.send(task) {
            Ok(()) => return Ok(TaskHandle(done)),
            Err(returned) => task = returned.0,
        }
    }
    let (sender, receiver) = channel::<Task>();
    sender.send(task).map_err(|_| Error::out_of_memory("CreateCommandQueue: cannot hand a task to a thread"))?;
    std::thread::Builder::new()
        .name("asyncmd-vk-queue".into())
        .spawn(move || serve(sender, receiver))
        .map_err(|e| Error::out_of_memory(format!("CreateCommandQueue: cannot start a thread: {e}")))?;
    Ok(TaskHandle(done))
}

/// A pooled thread's life: run a task, go back to the pool, say the task is done, wait for
/// the next. A task that panics is caught (the panic hook has reported it), so the thread
/// does not exit.
fn serve(own: Sender<Task>, tasks: Receiver<Task>) {
    while let Ok((task, done)) = tasks.recv() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
        IDLE.lock().unwrap_or_else(PoisonError::into_inner).push(own.clone());
        *done.done.lock().unwrap_or_else(PoisonError::into_inner) = true;
        done.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn tasks_run_on_pooled_threads_that_survive_panics_and_are_reused() {
        let ran = Arc::new(AtomicUsize::new(0));
        let ids = Arc::new(Mutex::new(Vec::new()));
        for n in 0..6 {
            let (task_ran, task_ids) = (ran.clone(), ids.clone());
            let h = spawn(move || {
                task_ids.lock().unwrap().push(std::thread::current().id());
                std::thread::sleep(std::time::Duration::from_millis(5));
                if n == 2 {
                    panic!("a task that unwinds");
                }
                task_ran.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
            h.join();
            // `join` returned, so the task ran to its end.
            assert_eq!(ran.load(Ordering::SeqCst), n + usize::from(n < 2));
        }
        let ids = ids.lock().unwrap();
        assert!(ids.iter().all(|&id| id != std::thread::current().id()));
        // One task at a time, each joined after its thread went idle: one thread ran them all,
        // the panicking one included.
        assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
    }

    #[test]
    fn a_bounded_join_gives_up_on_a_task_that_does_not_end() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let stuck = spawn(move || {
            let _ = rx.recv();
        })
        .unwrap();
        assert!(!stuck.join_timeout(Duration::from_millis(30)));
        drop(tx);
        assert!(spawn(|| {}).unwrap().join_timeout(Duration::from_secs(20)));
    }
}

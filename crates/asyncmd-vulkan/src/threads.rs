//! Threads that outlive devices, and one lock for making and destroying them.
//!
//! NVIDIA's driver (580.159 on an H200) deadlocks intermittently when `vkDestroyDevice` runs
//! while another thread that called into the driver exits: the destroy joins a driver thread,
//! and that thread waits on a lock the exiting thread holds in its thread-exit cleanup. Two
//! rules keep the runtime's own threads out of that:
//! - queue submission threads are never ended: a dropped queue hands its thread back to an idle
//!   pool, and the next queue of any device takes it ([`spawn`]);
//! - device and instance creation and destruction take one process-wide lock ([`lifecycle`]),
//!   so that no two run at once.
//!
//! The app's own threads stay the app's; `docs/vulkan-device.md` says what this leaves open.

use asyncmd_types::{Error, Result};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// A task and the end its [`TaskHandle`] waits for.
type Task = (Box<dyn FnOnce() + Send>, Arc<Done>);

/// Idle threads, each waiting on its channel for a task.
static IDLE: Mutex<Vec<Sender<Task>>> = Mutex::new(Vec::new());

/// Held while a Vulkan device or instance is created or destroyed.
static LIFECYCLE: Mutex<()> = Mutex::new(());

/// Takes the process-wide device lifecycle lock.
pub(crate) fn lifecycle() -> MutexGuard<'static, ()> {
    LIFECYCLE.lock().unwrap_or_else(PoisonError::into_inner)
}

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
}

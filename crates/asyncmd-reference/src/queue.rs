//! Queues: one worker thread each, running submissions in order.

use crate::device::Shared;
use crate::exec::run_list;
use crate::fence::RefFence;
use crate::recorder::RecordedList;
use asyncmd_ddi::{Executable, FenceId, QueueDdi};
use asyncmd_types::{CommandListType, Error, MessageId, Result};
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

/// The lists of one submission: most submissions have a few.
type Lists = SmallVec<[Arc<RecordedList>; 4]>;

enum Job {
    Execute(Lists),
    Signal(Arc<RefFence>, u64),
    Wait(Arc<RefFence>, u64),
}

/// The worker's jobs, in order. A deque that keeps its storage, so that submitting in a
/// steady state allocates nothing (a channel allocates a block every few dozen messages).
#[derive(Default)]
struct Jobs {
    /// The jobs, and whether the queue has closed (no more jobs come).
    state: Mutex<(VecDeque<Job>, bool)>,
    ready: Condvar,
}

impl Jobs {
    /// Queues a job; false once the queue has closed.
    fn push(&self, job: Job) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.1 {
            return false;
        }
        state.0.push_back(job);
        self.ready.notify_one();
        true
    }

    /// The next job, waiting for one; `None` once the queue has closed and every job is taken.
    fn pop(&self) -> Option<Job> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(job) = state.0.pop_front() {
                return Some(job);
            }
            if state.1 {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// No more jobs come: the worker finishes those queued, then stops.
    fn close(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.ready.notify_all();
    }
}

/// A queue of the reference device.
pub(crate) struct RefQueue {
    shared: Arc<Shared>,
    ty: CommandListType,
    jobs: Arc<Jobs>,
    stop: Arc<AtomicBool>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl RefQueue {
    pub(crate) fn new(shared: Arc<Shared>, ty: CommandListType) -> Result<Self> {
        let jobs = Arc::new(Jobs::default());
        let worker_jobs = jobs.clone();
        let worker_shared = shared.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let worker_stop = stop.clone();
        let worker = std::thread::Builder::new()
            .name(format!("asyncmd-ref-{}-queue", ty.name()))
            .spawn(move || {
                while let Some(job) = worker_jobs.pop() {
                    match job {
                        Job::Execute(lists) => {
                            for list in lists {
                                run_list(&worker_shared, &list);
                            }
                        }
                        Job::Signal(fence, value) => fence.signal(value),
                        Job::Wait(fence, value) => {
                            if !fence.wait(value, None, &worker_stop) {
                                // The queue or device is going away: drop what is left.
                                return;
                            }
                        }
                    }
                }
            })
            .map_err(|e| Error::out_of_memory(format!("CreateCommandQueue: cannot start a worker thread: {e}")))?;
        Ok(Self { shared, ty, jobs, stop, worker: Mutex::new(Some(worker)) })
    }

    fn send(&self, job: Job) -> Result<()> {
        if self.jobs.push(job) {
            Ok(())
        } else {
            Err(Error::fail(MessageId::ExecuteCommandListsInvalid, "the queue's worker has stopped"))
        }
    }

    fn fence(&self, id: FenceId) -> Result<Arc<RefFence>> {
        self.shared
            .fences
            .get(id.0)
            .ok_or_else(|| Error::invalid_arg(MessageId::FenceInvalidOperation, format!("unknown fence {id:?}")))
    }
}

impl QueueDdi for RefQueue {
    fn execute(&self, lists: &[Executable]) -> Result<()> {
        let mut recorded = Lists::with_capacity(lists.len());
        for l in lists {
            let list = l.0.clone().downcast::<RecordedList>().map_err(|_| {
                Error::invalid_arg(
                    MessageId::ExecuteCommandListsInvalid,
                    "ExecuteCommandLists: a list of another device",
                )
            })?;
            if list.ty != self.ty {
                return Err(Error::invalid_arg(
                    MessageId::ExecuteCommandListsInvalid,
                    format!("ExecuteCommandLists: a {} list on a {} queue", list.ty.name(), self.ty.name()),
                ));
            }
            recorded.push(list);
        }
        self.send(Job::Execute(recorded))
    }

    fn signal(&self, fence: FenceId, value: u64) -> Result<()> {
        let f = self.fence(fence)?;
        self.send(Job::Signal(f, value))
    }

    fn wait(&self, fence: FenceId, value: u64) -> Result<()> {
        let f = self.fence(fence)?;
        self.send(Job::Wait(f, value))
    }
}

impl Drop for RefQueue {
    fn drop(&mut self) {
        // Closing the channel lets the worker finish what was submitted, then stop; a wait that
        // nothing will ever satisfy is abandoned instead of blocking the drop.
        self.stop.store(true, Ordering::Release);
        self.jobs.close();
        if let Some(worker) = self.worker.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = worker.join();
        }
    }
}

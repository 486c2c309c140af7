//! Queues: one worker thread each, running submissions in order.

use crate::device::Shared;
use crate::exec::run_list;
use crate::fence::RefFence;
use crate::recorder::RecordedList;
use asyncmd_ddi::{Executable, FenceId, QueueDdi};
use asyncmd_types::{CommandListType, Error, MessageId, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

enum Job {
    Execute(Vec<Arc<RecordedList>>),
    Signal(Arc<RefFence>, u64),
    Wait(Arc<RefFence>, u64),
}

/// A queue of the reference device.
pub(crate) struct RefQueue {
    shared: Arc<Shared>,
    ty: CommandListType,
    sender: Mutex<Option<Sender<Job>>>,
    stop: Arc<AtomicBool>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl RefQueue {
    pub(crate) fn new(shared: Arc<Shared>, ty: CommandListType) -> Result<Self> {
        let (sender, receiver) = channel::<Job>();
        let worker_shared = shared.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let worker_stop = stop.clone();
        let worker = std::thread::Builder::new()
            .name(format!("asyncmd-ref-{}-queue", ty.name()))
            .spawn(move || {
                for job in receiver {
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
        Ok(Self { shared, ty, sender: Mutex::new(Some(sender)), stop, worker: Mutex::new(Some(worker)) })
    }

    fn send(&self, job: Job) -> Result<()> {
        let sender = self.sender.lock().unwrap_or_else(PoisonError::into_inner);
        sender
            .as_ref()
            .and_then(|s| s.send(job).ok())
            .ok_or_else(|| Error::fail(MessageId::ExecuteCommandListsInvalid, "the queue's worker has stopped"))
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
        let mut recorded = Vec::with_capacity(lists.len());
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
        self.sender.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(worker) = self.worker.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = worker.join();
        }
    }
}

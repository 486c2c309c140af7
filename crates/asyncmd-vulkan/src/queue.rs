//! Queues and fences: timeline semaphores, one submission thread per logical queue.
//!
//! Logical queues of one family share one `VkQueue` behind a lock (lavapipe has one queue in
//! all). A queue-side wait is held back on its thread until the matching signal has been
//! submitted or has happened on the CPU, so that a shared queue never blocks on work submitted
//! after it (Vulkan's forward-progress rule).

use crate::command::Recorded;
use crate::core::Core;
use ash::vk;
use asyncmd_ddi::{Executable, QueueDdi};
use asyncmd_types::{CommandListType, Error, MessageId, Result};
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long a host signal waits for a queue's pending signal of the same fence to execute.
const HOST_SIGNAL_TIMEOUT: Duration = Duration::from_secs(20);

/// A fence: a timeline semaphore.
pub(crate) struct VkFence {
    core: Arc<Core>,
    pub(crate) semaphore: vk::Semaphore,
}

impl VkFence {
    pub(crate) fn new(core: &Arc<Core>, initial: u64) -> Result<Self> {
        let mut ty =
            vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE).initial_value(initial);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut ty);
        // SAFETY: valid create info.
        let semaphore = unsafe { core.device.create_semaphore(&info, None) }
            .map_err(|e| Error::out_of_memory(format!("CreateFence: {e}")))?;
        Ok(Self { core: core.clone(), semaphore })
    }

    pub(crate) fn value(&self) -> u64 {
        self.core.counter(self.semaphore)
    }

    /// Sets the value from the CPU. A value the fence is already at or past changes nothing (its
    /// value is the highest signalled). A queue's lower signal is waited for first (a timeline
    /// semaphore may not be signalled past a pending signal), which is bounded: submitted work
    /// only waits on signals already submitted.
    pub(crate) fn signal(&self, value: u64) -> Result<()> {
        loop {
            let slot = self.core.signal_slot(self.semaphore, value);
            if !slot.moves_forward() {
                return Ok(());
            }
            if let Some(pending) = slot.unseen() {
                drop(slot);
                // On exactly the value signalled, by the driver, even where the counter has
                // passed it: that is the wait the validation layer retires a signal on.
                if !self.driver_wait(pending, HOST_SIGNAL_TIMEOUT) {
                    return Err(Error::fail(
                        MessageId::FenceInvalidOperation,
                        format!("Signal: the GPU did not reach the fence's pending value {pending} in {HOST_SIGNAL_TIMEOUT:?}"),
                    ));
                }
                self.core.signal_slot(self.semaphore, value).seen(pending);
                continue;
            }
            let info = vk::SemaphoreSignalInfo::default().semaphore(self.semaphore).value(value);
            // No signal is pending: every queue signal of the semaphore has been waited for
            // above. Validation layer 1.3.239 retires a queue's signal after the host wait that
            // saw it on a thread of its own, and may still call it pending here.
            // SAFETY: a host signal on a live timeline semaphore, above its value and with no
            // signal pending (the slot holds every other signal back until it is done).
            crate::instance::disproven(&["VUID-VkSemaphoreSignalInfo-value-03259"], || unsafe {
                self.core.device.signal_semaphore(&info)
            })
            .map_err(|e| Error::fail(MessageId::FenceInvalidOperation, format!("Signal: {e}")))?;
            slot.done(false);
            return Ok(());
        }
    }

    /// Waits on the CPU until the fence reaches `value`, for at most `timeout`. Until a signal
    /// reaching `value` has been submitted (or made on the host) the wait is the runtime's own,
    /// and a value the fence has reached is not waited for: the driver is only asked to wait
    /// for values a submitted signal will reach. The validation layer (1.3.239) keeps a driver
    /// wait that timed out in its timeline and then reports later host signals as passing a
    /// pending one; and it holds a satisfied wait for a value between two signals for 20 s.
    ///
    /// Where threads poll, the counter is read for a while ([`crate::threads::WAIT_SPIN`])
    /// before the driver is asked to wait: NVIDIA's wait returns about 200 µs after a
    /// submission of no work (`docs/performance.md`), most of it the sleeping waiter's wake-up
    /// after the GPU is done, which the counter shows at once.
    pub(crate) fn wait(&self, value: u64, timeout: Duration) -> bool {
        let start = std::time::Instant::now();
        let deadline = start.checked_add(timeout);
        if !self.core.wait_submitted(self.semaphore, value, deadline, || false) {
            return false;
        }
        let polled = crate::threads::WAIT_SPIN.saturating_sub(start.elapsed()).min(timeout);
        if crate::threads::spin_long(polled, || self.value() >= value) {
            return true;
        }
        let left = deadline.map_or(Duration::MAX, |d| d.saturating_duration_since(std::time::Instant::now()));
        self.driver_wait(value, left)
    }

    /// `vkWaitSemaphores` for `value`, for at most `timeout`.
    fn driver_wait(&self, value: u64, timeout: Duration) -> bool {
        let semaphores = [self.semaphore];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default().semaphores(&semaphores).values(&values);
        // SAFETY: waiting on a live semaphore.
        let r = unsafe { self.core.device.wait_semaphores(&info, timeout.as_nanos().min(u64::MAX as u128) as u64) };
        self.core.note(r).is_ok()
    }
}

impl Drop for VkFence {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`).
        self.core.on_driver(|| {
            self.core.forget(self.semaphore);
            // SAFETY: a queue that waits on or signals the semaphore holds an Arc of it until the
            // GPU has passed that submission, so no GPU operation on it is pending here.
            unsafe { self.core.device.destroy_semaphore(self.semaphore, None) };
        })
    }
}

/// The recordings of one `ExecuteCommandLists`: most submit one or a few.
type Lists = SmallVec<[Arc<Recorded>; 4]>;

enum Job {
    /// Lists, and the signal that follows them where the caller gave one.
    Execute(Lists, Option<(Arc<VkFence>, u64)>),
    Signal(Arc<VkFence>, u64),
    Wait(Arc<VkFence>, u64),
    /// No work: wakes the thread, whose [`Inbox::alert`] was raised, to poll for what comes.
    Poll,
}

/// Where a queue's jobs go: its submission thread's channel, and the alert a list of the
/// queue's type raises when it starts recording (`Core::expect_submission`), so that the
/// thread is awake when the list is executed.
pub(crate) struct Inbox {
    /// `None` once the queue is dropped, which ends its thread.
    sender: Mutex<Option<Sender<Job>>>,
    alert: crate::threads::Alert,
}

impl Inbox {
    /// Asks the submission thread to be awake for a submission on the way.
    pub(crate) fn expect(&self) {
        self.alert.raise(|| {
            if let Some(s) = self.sender.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
                let _ = s.send(Job::Poll);
            }
        })
    }
}

/// A logical queue.
pub(crate) struct VkQueue {
    ty: CommandListType,
    inbox: Arc<Inbox>,
    stop: Arc<AtomicBool>,
    /// What the queue has submitted: its thread's, and the caller's while it submits itself
    /// ([`VkQueue::run_here`]).
    worker: Arc<Mutex<Worker>>,
    /// Jobs sent to the thread and not yet run: while there are any, a job goes after them.
    queued: Arc<AtomicUsize>,
    /// The caller submits itself when the thread has nothing to do (`Core::calls_here`).
    submits_here: bool,
    thread: Mutex<Option<crate::threads::TaskHandle>>,
    fences: crate::device::Fences,
}

/// A submission the GPU may not have finished, with what it uses.
struct InFlight {
    /// Its progress value.
    value: u64,
    _lists: Lists,
    /// The semaphores it waits on or signals.
    _semaphores: SmallVec<[Arc<VkFence>; 2]>,
    /// The fence value it signals, where it signals one.
    signal: Option<(Arc<VkFence>, u64)>,
    /// Under the validation layer, a `VkFence` the submission signals (see `Worker::layer_fences`).
    layer_fence: Option<vk::Fence>,
}

struct Worker {
    core: Arc<Core>,
    family: u32,
    /// Queue index within the family.
    index: u32,
    progress: VkFence,
    submitted: u64,
    /// Submissions not yet known complete, with what they use.
    in_flight: VecDeque<InFlight>,
    /// Fences for the validation layer alone: signalled and reset ones, ready for a submission
    /// (`None` without the layer). Synchronization validation 1.3.239 learns that a submission
    /// is done only from a fence or an idle wait, not from timeline semaphores, and keeps every
    /// access it cannot prove complete. Under the layer each submission also signals a fence,
    /// whose status `retire` reads once progress has passed it: that read is the wait the layer
    /// trims its history on (what it held from one-time submissions in the fuzzer at 240 s
    /// halved: `docs/reliability.md`).
    layer_fences: Option<Vec<vk::Fence>>,
    waits: Vec<(Arc<VkFence>, u64)>,
    /// A command buffer holding one full memory barrier, run first in every submission of
    /// lists: a submission starts once the work before it on the queue is done and visible,
    /// so that no barrier is needed between submissions. Made at the first submission.
    boundary: Option<(vk::CommandPool, vk::CommandBuffer)>,
}

impl Worker {
    /// The boundary command buffer (see `boundary`), made on first use.
    fn boundary(&mut self) -> Result<vk::CommandBuffer> {
        if let Some((_, cb)) = self.boundary {
            return Ok(cb);
        }
        let d = &self.core.device;
        let oom = |e: vk::Result| Error::out_of_memory(format!("ExecuteCommandLists: {e}"));
        let info = vk::CommandPoolCreateInfo::default().queue_family_index(self.family);
        // SAFETY: a new pool of this queue's family, owned by the worker.
        let pool = unsafe { d.create_command_pool(&info, None) }.map_err(oom)?;
        let recorded = (|| {
            let alloc = vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1);
            // SAFETY: one primary command buffer from the worker's pool, recorded once and
            // submitted any number of times (simultaneous use).
            unsafe {
                let cb = d.allocate_command_buffers(&alloc)?[0];
                let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE);
                d.begin_command_buffer(cb, &begin)?;
                let all = [vk::MemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
                d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&all));
                d.end_command_buffer(cb)?;
                Ok(cb)
            }
        })();
        match recorded {
            Ok(cb) => {
                self.boundary = Some((pool, cb));
                Ok(cb)
            }
            Err(e) => {
                // SAFETY: nothing submitted uses the pool.
                unsafe { d.destroy_command_pool(pool, None) };
                Err(oom(e))
            }
        }
    }

    /// Submits command buffers (with the pending waits, and a signal), keeping `lists` and the
    /// semaphores alive until the GPU has passed the submission. A batch of lists that signals
    /// a fence signals that alone: its retirement reads the fence, and lavapipe 22.3.6 crashed
    /// on batches of lists that signal two timeline semaphores (`docs/reliability.md`).
    fn submit(&mut self, lists: Lists, signal: Option<(Arc<VkFence>, u64)>) -> Result<()> {
        let d = self.core.device.clone();
        let boundary = if lists.is_empty() { None } else { Some(self.boundary()?) };
        // Inline vectors: a submission of a few lists allocates nothing here.
        let command_buffers: SmallVec<[vk::CommandBuffer; 8]> =
            boundary.into_iter().chain(lists.iter().flat_map(|l| l.command_buffers().iter().copied())).collect();
        let fences: SmallVec<[Arc<VkFence>; 2]> =
            self.waits.iter().map(|(f, _)| f.clone()).chain(signal.iter().map(|(f, _)| f.clone())).collect();
        let waits: SmallVec<[_; 2]> = self
            .waits
            .drain(..)
            .map(|(f, v)| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(f.semaphore)
                    .value(v)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            })
            .collect();
        let layer_fence = self.layer_fence()?;
        let mut signals: SmallVec<[_; 2]> = SmallVec::new();
        // Held until the submission is made, so that no host signal slips in between.
        let slot = signal.as_ref().map(|(fence, value)| self.core.signal_slot(fence.semaphore, *value));
        let signalled = signal.clone().filter(|_| slot.as_ref().is_some_and(|s| s.moves_forward()));
        if let Some((fence, value)) = &signalled {
            signals.push(
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(fence.semaphore)
                    .value(*value)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
            );
        }
        // Progress last: lavapipe signals a batch's semaphores one after another, and a batch
        // progress shows done lets go of the semaphores it signals (`retire` also waits for
        // the fence's own value, on any driver).
        let own_progress = lists.is_empty() || signalled.is_none();
        if own_progress {
            signals.push(
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(self.progress.semaphore)
                    .value(self.submitted + 1)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
            );
        }
        let cbs: SmallVec<[_; 8]> =
            command_buffers.iter().map(|&c| vk::CommandBufferSubmitInfo::default().command_buffer(c)).collect();
        let submit = [vk::SubmitInfo2::default()
            .wait_semaphore_infos(&waits)
            .command_buffer_infos(&cbs)
            .signal_semaphore_infos(&signals)];
        let queue = self.core.queue(self.family, self.index).lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the command buffers are executable and kept alive in `in_flight` until the
        // progress semaphore passes this submission; the queue is externally synchronized; the
        // layer fence is unsignalled and used by no other submission.
        let submitted = self.core.note(unsafe { d.queue_submit2(*queue, &submit, layer_fence.unwrap_or_default()) });
        drop(queue);
        if let Err(e) = submitted {
            if let (Some(fences), Some(f)) = (self.layer_fences.as_mut(), layer_fence) {
                fences.push(f);
            }
            return Err(Error::fail(
                MessageId::ExecuteCommandListsInvalid,
                format!("ExecuteCommandLists: vkQueueSubmit2 failed: {e}"),
            ));
        }
        if let Some(slot) = slot {
            slot.done(true);
        }
        // A submission that signals no progress is retired by its fence alone.
        if own_progress {
            self.submitted += 1;
        }
        self.in_flight.push_back(InFlight {
            value: self.submitted,
            _lists: lists,
            _semaphores: fences,
            signal: signalled,
            layer_fence,
        });
        Ok(())
    }

    /// An unsignalled fence for the validation layer (`Worker::layer_fences`), or `None` without it.
    fn layer_fence(&mut self) -> Result<Option<vk::Fence>> {
        let Some(fences) = self.layer_fences.as_mut() else { return Ok(None) };
        if let Some(f) = fences.pop() {
            return Ok(Some(f));
        }
        // SAFETY: a plain fence of this device, owned by the worker.
        unsafe { self.core.device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map(Some)
            .map_err(|e| Error::out_of_memory(format!("ExecuteCommandLists: {e}")))
    }

    /// Whether the submission's layer fence, if any, is signalled; reading it is the wait the
    /// validation layer retires the submission on.
    fn layer_fence_done(&self, fence: Option<vk::Fence>) -> bool {
        // SAFETY: a fence of this device, submitted with the submission.
        fence.is_none_or(|f| unsafe { self.core.device.get_fence_status(f) } == Ok(true))
    }

    /// Runs one job; `Ok(false)` where the queue is stopping.
    fn run(&mut self, job: Job, stop: &AtomicBool) -> Result<bool> {
        match job {
            Job::Execute(lists, Some(signal)) if !self.core.features.lists_signal_fences => {
                self.submit(lists, None).and_then(|()| self.submit(Lists::new(), Some(signal))).map(|()| true)
            }
            Job::Execute(lists, signal) => self.submit(lists, signal).map(|()| true),
            Job::Signal(fence, value) => self.submit(Lists::new(), Some((fence, value))).map(|()| true),
            Job::Poll => Ok(true),
            Job::Wait(fence, value) => {
                let cancel = || stop.load(Ordering::Acquire);
                if !self.core.wait_submitted(fence.semaphore, value, None, cancel) {
                    return Ok(false);
                }
                // A wait the semaphore has already passed orders nothing, and submitting it
                // could name a value too far below the counter
                // (maxTimelineSemaphoreValueDifference).
                if fence.value() < value {
                    self.waits.push((fence, value));
                }
                Ok(true)
            }
        }
    }

    /// Lets go of what the submissions the GPU has finished used. A submission is finished
    /// when progress has passed it and the fence it signals has its value: destroying a
    /// semaphore the driver is still signalling corrupts its memory (seen on lavapipe).
    fn retire(&mut self) {
        let done = self.progress.value();
        while self.in_flight.front().is_some_and(|f| {
            f.value <= done
                && f.signal.as_ref().is_none_or(|(fence, value)| fence.value() >= *value)
                && self.layer_fence_done(f.layer_fence)
        }) {
            let Some(f) = self.in_flight.pop_front() else { break };
            if let (Some(fences), Some(fence)) = (self.layer_fences.as_mut(), f.layer_fence) {
                // SAFETY: the fence is signalled and no pending submission uses it.
                match unsafe { self.core.device.reset_fences(&[fence]) } {
                    Ok(()) => fences.push(fence),
                    // SAFETY: as above.
                    Err(_) => unsafe { self.core.device.destroy_fence(fence, None) },
                }
            }
        }
    }

    /// Whether `job` runs without waiting for another thread: all do but a queue-side wait
    /// whose signal has been neither submitted nor made on the host.
    fn runs_at_once(&self, job: &Job) -> bool {
        match job {
            Job::Wait(fence, value) => self.core.signal_known(fence.semaphore, *value),
            Job::Execute(..) | Job::Signal(..) | Job::Poll => true,
        }
    }

    /// Waits for everything submitted and lets go of it: the queue's end.
    fn finish(&mut self) {
        let last = self.submitted;
        self.progress.driver_wait(last, Duration::from_secs(60));
        for (fence, value) in self.in_flight.iter().filter_map(|f| f.signal.as_ref()) {
            fence.driver_wait(*value, Duration::from_secs(5));
        }
        self.retire();
        if let Some(fences) = self.layer_fences.take() {
            for f in fences {
                // SAFETY: reset, and used by no pending submission.
                unsafe { self.core.device.destroy_fence(f, None) };
            }
        }
        // A layer fence of a submission still pending is left to the driver, with the lists it
        // runs (VUID-vkDestroyFence-fence-01120).
        if let Some((pool, _)) = self.boundary.take() {
            // SAFETY: the progress semaphore passed every submission that used it (or the device
            // is lost, where waiting longer changes nothing).
            unsafe { self.core.device.destroy_command_pool(pool, None) };
        }
    }
}

impl VkQueue {
    pub(crate) fn new(core: &Arc<Core>, ty: CommandListType, fences: crate::device::Fences) -> Result<Self> {
        let (family, index) = match ty {
            CommandListType::Compute => (core.families.compute, core.families.compute_index),
            CommandListType::Copy => (core.families.copy, 0),
            _ => (core.families.direct, 0),
        };
        let worker = Worker {
            core: core.clone(),
            family,
            index,
            progress: VkFence::new(core, 0)?,
            submitted: 0,
            in_flight: VecDeque::new(),
            layer_fences: core.instance.validation.then(Vec::new),
            waits: Vec::new(),
            boundary: None,
        };
        let (sender, receiver) = channel::<Job>();
        let inbox = Arc::new(Inbox { sender: Mutex::new(Some(sender)), alert: Default::default() });
        let worker = Arc::new(Mutex::new(worker));
        let queued = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (thread_inbox, thread_worker, thread_queued, thread_stop) =
            (inbox.clone(), worker.clone(), queued.clone(), stop.clone());
        // A pooled thread, never ended while the process runs (`threads.rs` says why).
        let handle = crate::threads::spawn(move || {
            // Each job is a stretch of driver calls (`gate.rs`); waiting for the next is not.
            while let Some(job) = crate::threads::recv_alerted(&receiver, &thread_inbox.alert) {
                let counted = !matches!(job, Job::Poll);
                let mut worker = thread_worker.lock().unwrap_or_else(PoisonError::into_inner);
                let result = crate::gate::shared(|| {
                    worker.retire();
                    worker.run(job, &thread_stop)
                });
                // Still holding the worker: a caller that then takes it sees every job sent
                // before its own run.
                if counted {
                    thread_queued.fetch_sub(1, Ordering::AcqRel);
                }
                drop(worker);
                match result {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => tracing::error!("{}", e.text),
                }
            }
            // Keep everything submitted alive until the GPU is done with it.
            let mut worker = thread_worker.lock().unwrap_or_else(PoisonError::into_inner);
            crate::gate::shared(|| worker.finish());
        })?;
        // The thread is woken for lists on their way only where it makes every submission.
        if !core.calls_here {
            core.expect_submissions_to(ty, &inbox);
        }
        Ok(Self {
            ty,
            inbox,
            stop,
            worker,
            queued,
            submits_here: core.calls_here,
            thread: Mutex::new(Some(handle)),
            fences,
        })
    }

    /// Runs `job`: on the calling thread where the device calls its driver there and the
    /// queue's thread has no job before it, else on the thread, after the jobs sent before.
    /// Submitting here saves the hand-over, and the submission is made when the call returns,
    /// as the app's next step (a wait for it) expects; a queue-side wait whose signal has not
    /// been submitted yet goes to the thread, which holds it (and every job after it) back.
    fn dispatch(&self, job: Job) -> Result<()> {
        match self.run_here(job) {
            Ok(result) => result,
            Err(job) => {
                self.queued.fetch_add(1, Ordering::AcqRel);
                let sent = self.send(job);
                match sent {
                    Ok(()) => crate::threads::count_queue_job(),
                    Err(_) => {
                        self.queued.fetch_sub(1, Ordering::AcqRel);
                    }
                }
                sent
            }
        }
    }

    /// [`VkQueue::dispatch`]'s run on the calling thread; `Err(job)` where it must go to the
    /// queue's thread. The worker is only tried: the thread holds it while it runs a job, and
    /// a wait it holds back may last.
    fn run_here(&self, job: Job) -> std::result::Result<Result<()>, Job> {
        if !self.submits_here {
            return Err(job);
        }
        let mut worker = match self.worker.try_lock() {
            Ok(w) => w,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Err(job),
        };
        if self.queued.load(Ordering::Acquire) != 0 {
            return Err(job);
        }
        let (worker, stop) = (&mut *worker, &self.stop);
        crate::threads::on_driver_or_here(true, || {
            if !worker.runs_at_once(&job) {
                return Err(job);
            }
            worker.retire();
            Ok(worker.run(job, stop).map(drop))
        })
    }

    fn send(&self, job: Job) -> Result<()> {
        let s = self.inbox.sender.lock().unwrap_or_else(PoisonError::into_inner);
        s.as_ref().and_then(|s| s.send(job).ok()).ok_or_else(|| {
            Error::fail(MessageId::ExecuteCommandListsInvalid, "the queue's submission thread has stopped")
        })
    }

    fn fence(&self, id: asyncmd_ddi::FenceId) -> Result<Arc<VkFence>> {
        self.fences
            .get(id.0)
            .ok_or_else(|| Error::invalid_arg(MessageId::FenceInvalidOperation, format!("unknown fence {id:?}")))
    }
}

impl VkQueue {
    /// The lists as this device's recordings of this queue's type.
    fn recorded(&self, lists: &[Executable]) -> Result<Lists> {
        let mut recorded = Lists::with_capacity(lists.len());
        for l in lists {
            let r = l.0.clone().downcast::<Recorded>().map_err(|_| {
                Error::invalid_arg(
                    MessageId::ExecuteCommandListsInvalid,
                    "ExecuteCommandLists: a list of another device",
                )
            })?;
            if r.ty != self.ty {
                return Err(Error::invalid_arg(
                    MessageId::ExecuteCommandListsInvalid,
                    "ExecuteCommandLists: list and queue types differ",
                ));
            }
            recorded.push(r);
        }
        Ok(recorded)
    }
}

impl QueueDdi for VkQueue {
    fn execute(&self, lists: &[Executable]) -> Result<()> {
        self.dispatch(Job::Execute(self.recorded(lists)?, None))
    }

    fn execute_and_signal(&self, lists: &[Executable], fence: asyncmd_ddi::FenceId, value: u64) -> Result<()> {
        let signal = (self.fence(fence)?, value);
        self.dispatch(Job::Execute(self.recorded(lists)?, Some(signal)))
    }

    fn signal(&self, fence: asyncmd_ddi::FenceId, value: u64) -> Result<()> {
        let f = self.fence(fence)?;
        self.dispatch(Job::Signal(f, value))
    }

    fn wait(&self, fence: asyncmd_ddi::FenceId, value: u64) -> Result<()> {
        let f = self.fence(fence)?;
        self.dispatch(Job::Wait(f, value))
    }
}

impl Drop for VkQueue {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.inbox.sender.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(h) = self.thread.lock().unwrap_or_else(PoisonError::into_inner).take() {
            h.join();
        }
    }
}

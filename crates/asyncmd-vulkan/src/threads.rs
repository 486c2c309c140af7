//! Threads that outlive devices: the driver calls that must not be made on the app's threads
//! are made on one of them, and device destruction the app never hangs in.
//!
//! NVIDIA's driver (580.159 on an H200) deadlocks intermittently when a thread that holds its
//! per-thread state exits while other threads call it: the exiting thread's TLS destructor (in
//! `libnvidia-eglcore`) and the other threads' calls meet on one driver lock and none returns
//! (thread dumps in `docs/reliability.md`). `vkDestroyDevice` joins a driver thread that exits
//! the same way. Which calls give a thread that state was measured on driver 580.159
//! (`examples/driver_thread_state.rs`): only `vkCreateInstance` (the EGL dispatch's thread key)
//! and pipeline creation (the shader compiler's); recording, submission, waits, creation and
//! destruction of every other object leave none. The app's threads (a test harness's, a job
//! system's) end whenever they like, so three rules:
//! - the calls that leave state are made on a pooled thread that never ends ([`on_pooled`]):
//!   the instance's creation and destruction, and pipelines (`Core::on_compiler`); where a
//!   driver's calls were not measured, every DDI entry point that reaches the driver and the
//!   drops of its objects are ([`on_driver`]), and command lists buffer their commands and
//!   replay them into Vulkan at `Close` (one hand-over per list, not per command);
//! - queue submission threads are pooled the same way: a dropped queue hands its thread back to
//!   the idle pool, and the next task of any device takes it ([`spawn`]);
//! - a device is destroyed on a pooled thread, and the thread that dropped it waits a bounded
//!   time ([`TaskHandle::join_timeout`]): a destroy that deadlocks in the driver strands that
//!   pooled thread (and the device's memory), never the app.
//!
//! Where the driver allows (`Core::calls_here`, chosen by `DriverThreads`: Mesa's drivers,
//! and NVIDIA's 580 but for the calls above) a device makes its calls on the caller's thread
//! ([`on_driver_or_here`]), with no hand-over; its queues' submission threads are pooled all
//! the same.
//!
//! The pool grows to the most driver calls ever in flight at once (CPU waits hold a thread for
//! their length) and never shrinks. Driver calls also pass the validation layer's gate
//! (`gate.rs`).
//!
//! Hand-overs are cheap where cores allow: on machines of [`POLLING_CORES`] or more, a thread
//! that finished a call and a caller waiting for one poll briefly before they sleep
//! ([`recv_polling`], [`TaskHandle::join`]), a recording list holds a thread that is awake
//! when `Close` hands it the work ([`reserve`]) and alerts its queues' threads to be awake for
//! its submission ([`Alert`]), and a CPU wait for the GPU is polled for longer
//! ([`on_driver_or_here_waiting`]). Polls past the short window are capped at half the cores
//! ([`LongPoll`]).

use asyncmd_types::{Error, Result};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Work for a pooled thread.
type Work = Box<dyn FnOnce() + Send>;

/// A task and the end its [`TaskHandle`] waits for.
type Task = (Work, Arc<Done>);

/// Idle threads, each waiting on its channel for a task.
static IDLE: Mutex<Vec<Sender<Task>>> = Mutex::new(Vec::new());

/// A pooled thread's stack: shader translation and deep recordings run on it.
const STACK: usize = 8 << 20;

/// How long a pooled thread that finished a task, and a caller waiting for a task, poll before
/// they sleep. Driver calls come in bursts (a list's `Close`, then its submission and a fence
/// read) and most return within this: polling saves the futex sleep and wake-up on both sides
/// of a hand-over, which cost more than the call on a fast driver (`docs/performance.md`).
pub(crate) const SPIN: Duration = Duration::from_micros(30);

thread_local! {
    /// This thread is one of the pool's.
    static POOLED: Cell<bool> = const { Cell::new(false) };
    /// Driver calls this thread handed to a pooled thread and waited for ([`handovers`]).
    static HANDOVERS: Cell<u64> = const { Cell::new(0) };
    /// Queue operations this thread handed to a queue's thread ([`queue_jobs_sent`]).
    static QUEUE_JOBS: Cell<u64> = const { Cell::new(0) };
    /// How deep this (app's) thread is in driver calls it makes itself ([`on_driver_or_here`]):
    /// what those calls call runs here too.
    static HERE: Cell<usize> = const { Cell::new(0) };
}

/// How many driver calls the calling thread has handed to a pooled thread and waited for
/// ([`on_driver`], [`Reserved::run`]): each costs the app's thread a wake-up of another
/// thread and a wait for it, the fixed cost of a call on this device.
pub(crate) fn handovers() -> u64 {
    HANDOVERS.with(Cell::get)
}

fn count_handover() {
    HANDOVERS.with(|h| h.set(h.get().saturating_add(1)));
}

/// How many queue operations (executions, signals, queue-side waits) the calling thread has
/// handed to a queue's thread rather than submitted itself (`queue.rs`).
pub(crate) fn queue_jobs_sent() -> u64 {
    QUEUE_JOBS.with(Cell::get)
}

pub(crate) fn count_queue_job() {
    QUEUE_JOBS.with(|h| h.set(h.get().saturating_add(1)));
}

/// A task's end, which [`TaskHandle::join`] waits for.
#[derive(Default)]
struct Done {
    /// Set with `done`, read without the lock while polling.
    finished: AtomicBool,
    done: Mutex<bool>,
    changed: Condvar,
}

/// Cores below which nothing polls: on a small machine a polling thread takes the core the
/// driver's own threads need (lavapipe runs the GPU's work on them), and the 2-core machine's
/// peer rows got slower with polling on (`docs/performance.md`).
const POLLING_CORES: usize = 8;

/// The machine's cores, read once (reading them costs system calls; lists ask per recording).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Sets whether the Vulkan device's driver threads poll before they sleep, whatever the
/// machine's size: `on` or `off`, read once per process. Unset (or any other value), they poll
/// on machines of 8 cores or more. The test of the polling paths sets it on the 2-core machines
/// the tests run on (`tests/polling.rs`).
pub const POLLING_ENV: &str = "ASYNCMD_VULKAN_POLLING";

/// Whether hand-overs poll before they sleep: on machines of [`POLLING_CORES`] or more, or as
/// [`POLLING_ENV`] says.
pub(crate) fn polling() -> bool {
    static POLLING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *POLLING.get_or_init(|| polls(std::env::var(POLLING_ENV).ok().as_deref(), cores()))
}

/// Whether threads poll, given [`POLLING_ENV`]'s value and the machine's cores.
fn polls(setting: Option<&str>, cores: usize) -> bool {
    match setting {
        Some("on") => true,
        Some("off") => false,
        _ => cores >= POLLING_CORES,
    }
}

/// Polls `ready` for at most `limit` (once where nothing polls); says whether it turned true.
pub(crate) fn spin_until(limit: Duration, ready: impl FnMut() -> bool) -> bool {
    if !polling() {
        let mut ready = ready;
        return ready();
    }
    spin_for(limit, ready)
}

/// Threads polling past [`SPIN`] now: a CPU wait's caller and its pooled waiter, an alerted
/// queue thread ([`LongPoll`]).
static LONG_POLLS: AtomicUsize = AtomicUsize::new(0);

/// A thread's share of the cores for a poll longer than [`SPIN`], held while it polls. At most
/// half the machine's cores poll so at once: an app whose threads all wait at the same time
/// (a job system's, a test harness's) would otherwise take the cores the driver's threads and
/// its own work need, so the polls past the cap sleep as before.
pub(crate) struct LongPoll(&'static AtomicUsize);

impl LongPoll {
    /// A share, where threads poll and fewer than half the cores' worth are taken.
    pub(crate) fn take() -> Option<Self> {
        if !polling() {
            return None;
        }
        Self::take_of(&LONG_POLLS, cores() / 2)
    }

    /// A share of `count`'s, where fewer than `cap` are taken.
    fn take_of(count: &'static AtomicUsize, cap: usize) -> Option<Self> {
        if count.fetch_add(1, Ordering::AcqRel) >= cap {
            count.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(LongPoll(count))
    }
}

impl Drop for LongPoll {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Polls `ready` for at most `limit` where a [`LongPoll`] is to be had, else for at most
/// [`SPIN`] (once where nothing polls); says whether it turned true.
pub(crate) fn spin_long(limit: Duration, ready: impl FnMut() -> bool) -> bool {
    if limit <= SPIN {
        return spin_until(limit, ready);
    }
    match LongPoll::take() {
        Some(_share) => spin_for(limit, ready),
        None => spin_until(SPIN, ready),
    }
}

/// Polls `ready` for at most `limit`; says whether it turned true.
fn spin_for(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if ready() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::hint::spin_loop();
    }
}

/// Waits for a task run by [`spawn`].
pub(crate) struct TaskHandle(Arc<Done>);

impl TaskHandle {
    /// Blocks until the task has returned (or unwound) and its thread is idle again.
    pub(crate) fn join(self) {
        self.join_polling(SPIN)
    }

    /// [`TaskHandle::join`], polling for `limit` before it sleeps.
    fn join_polling(self, limit: Duration) {
        crate::gate::unlocked(|| {
            if spin_long(limit, || self.0.finished.load(Ordering::Acquire)) {
                return;
            }
            let mut done = self.0.done.lock().unwrap_or_else(PoisonError::into_inner);
            while !*done {
                done = self.0.changed.wait(done).unwrap_or_else(PoisonError::into_inner);
            }
        })
    }

    /// Like [`TaskHandle::join`], for at most `limit`; says whether the task ended.
    pub(crate) fn join_timeout(self, limit: Duration) -> bool {
        crate::gate::unlocked(|| {
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
        })
    }
}

/// The next message of `rx`, polled for [`SPIN`] before it is waited for (the next task or
/// submission often follows at once); `None` once every sender is gone.
pub(crate) fn recv_polling<T>(rx: &Receiver<T>) -> Option<T> {
    let mut got = None;
    let mut closed = false;
    spin_until(SPIN, || match rx.try_recv() {
        Ok(t) => {
            got = Some(t);
            true
        }
        Err(TryRecvError::Empty) => false,
        Err(TryRecvError::Disconnected) => {
            closed = true;
            true
        }
    });
    if closed {
        return None;
    }
    got.or_else(|| rx.recv().ok())
}

/// A pooled thread's wish list for its next message ([`recv_alerted`]): others raise it when
/// they know a message is on the way, so that the thread is awake, polling, when it comes,
/// not woken then. A queue's submission thread is raised when a list of its type starts
/// recording: the list's submission follows within a frame's recording, long after the
/// thread's own polling ([`SPIN`]) ended.
#[derive(Default)]
pub(crate) struct Alert {
    /// A message is expected: poll for [`RESERVE_SPIN`], not [`SPIN`].
    expected: AtomicBool,
    /// The thread sleeps in its channel's `recv`, or is about to.
    asleep: AtomicBool,
}

impl Alert {
    /// Asks the thread to poll for its next message; where it sleeps, `wake` sends it a
    /// message of no work to wake it with. Nothing where threads do not poll.
    pub(crate) fn raise(&self, wake: impl FnOnce()) {
        if !polling() {
            return;
        }
        // With `recv_alerted`'s two stores and loads, sequentially consistent: either the
        // thread sees `expected` before it sleeps, or this sees it asleep and wakes it.
        self.expected.store(true, Ordering::SeqCst);
        if self.asleep.swap(false, Ordering::SeqCst) {
            wake();
        }
    }
}

/// [`recv_polling`] for a thread others can alert: it polls for [`SPIN`], or for
/// [`RESERVE_SPIN`] while its alert is raised, then sleeps.
pub(crate) fn recv_alerted<T>(rx: &Receiver<T>, alert: &Alert) -> Option<T> {
    loop {
        if polling() {
            let start = Instant::now();
            let mut long = None;
            loop {
                match rx.try_recv() {
                    Ok(t) => {
                        alert.expected.store(false, Ordering::Relaxed);
                        return Some(t);
                    }
                    Err(TryRecvError::Disconnected) => return None,
                    Err(TryRecvError::Empty) => {}
                }
                let polled = start.elapsed();
                if polled >= SPIN {
                    if polled >= RESERVE_SPIN || !alert.expected.load(Ordering::Relaxed) {
                        break;
                    }
                    if long.is_none() {
                        long = LongPoll::take();
                        if long.is_none() {
                            break;
                        }
                    }
                }
                std::hint::spin_loop();
            }
            drop(long);
        }
        // An alert covers one stretch of polling.
        alert.expected.store(false, Ordering::SeqCst);
        alert.asleep.store(true, Ordering::SeqCst);
        if alert.expected.load(Ordering::SeqCst) {
            // Raised since: poll again (its wake-up message, if sent, is taken as a message).
            alert.asleep.store(false, Ordering::SeqCst);
            continue;
        }
        let got = rx.recv().ok();
        alert.asleep.store(false, Ordering::SeqCst);
        return got;
    }
}

/// Runs `task` on a pooled thread: an idle one, or a new one that joins the pool afterwards.
pub(crate) fn spawn(task: impl FnOnce() + Send + 'static) -> Result<TaskHandle> {
    hand_over(Box::new(task)).map_err(|(e, _)| e)
}

/// Hands `task` to a pooled thread; where no thread can be started, gives it back unrun.
fn hand_over(task: Work) -> std::result::Result<TaskHandle, (Error, Work)> {
    let done = Arc::new(Done::default());
    let mut task: Task = (task, done.clone());
    loop {
        let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let Some(sender) = idle else { break };
        match sender.send(task) {
            Ok(()) => return Ok(TaskHandle(done)),
            Err(returned) => task = returned.0,
        }
    }
    let (sender, receiver) = channel::<Task>();
    // The new thread takes its first task from a slot: a channel send cannot give it back.
    let first = Arc::new(Mutex::new(Some(task)));
    let first_for_thread = first.clone();
    let started = std::thread::Builder::new().name("asyncmd-vk".into()).stack_size(STACK).spawn(move || {
        let first = first_for_thread.lock().unwrap_or_else(PoisonError::into_inner).take();
        serve(first, sender, receiver)
    });
    match started {
        Ok(_) => Ok(TaskHandle(done)),
        Err(e) => {
            let task = first.lock().unwrap_or_else(PoisonError::into_inner).take();
            let error = Error::out_of_memory(format!("Vulkan: cannot start a driver thread: {e}"));
            Err((error, task.map_or_else(|| Box::new(|| {}) as Work, |t| t.0)))
        }
    }
}

/// Runs `call` on a pooled thread and returns what it returns, blocking until then; on a pooled
/// thread it runs inline. A panic in `call` resumes on the caller. Where no thread can be
/// started, `call` runs on the caller's thread (as before the pool: correct, only exposed to
/// the driver's thread-exit deadlock again).
pub(crate) fn on_driver<R: Send>(call: impl FnOnce() -> R + Send) -> R {
    on_driver_polling(SPIN, call)
}

/// How long a CPU wait for the GPU polls before it sleeps: its caller
/// ([`on_driver_or_here_waiting`]) and the pooled thread reading the fence's counter
/// (`VkFence::wait`). A frame's wait for its own submission ends within it on a fast GPU
/// (about 210 µs from submission to a host wait's return on NVIDIA, `docs/performance.md`);
/// a sleeping caller adds its wake-up to every such wait, and the pooled thread it would
/// take next for a recording has stopped polling by then. A longer wait costs the caller's
/// core this long, once (`docs/decisions.md`).
pub(crate) const WAIT_SPIN: Duration = Duration::from_micros(500);

/// [`on_driver`], the caller polling for the call's end for `limit` before it sleeps.
fn on_driver_polling<R: Send>(limit: Duration, call: impl FnOnce() -> R + Send) -> R {
    if on_driver_thread() {
        return crate::gate::shared(call);
    }
    handed_over(limit, call)
}

/// Hands `call` to a pooled thread and waits for it, polling for `limit` before it sleeps
/// (runs it here where no thread can be started); counted in [`handovers`].
fn handed_over<R: Send>(limit: Duration, call: impl FnOnce() -> R + Send) -> R {
    count_handover();
    run_borrowed(call, |task| match hand_over(task) {
        Ok(handle) => handle.join_polling(limit),
        Err((_, task)) => task(),
    })
}

/// Runs `call` on a pooled thread whatever calls it: inline on one, else handed over and waited
/// for, also from a thread inside a stretch of calls [`on_driver_or_here`] runs where it is.
/// For the driver calls that leave their thread per-thread driver state whose destructor runs
/// at the thread's exit (`Core::on_compiler`), which the app's threads must never get.
pub(crate) fn on_pooled<R: Send>(call: impl FnOnce() -> R + Send) -> R {
    if POOLED.with(Cell::get) {
        return crate::gate::shared(call);
    }
    handed_over(SPIN, call)
}

/// Runs `call` on the calling thread where `here` (a device whose driver a thread may call and
/// then end: `Core::calls_here`), else as [`on_driver`] does. Nested driver calls run here too.
pub(crate) fn on_driver_or_here<R: Send>(here: bool, call: impl FnOnce() -> R + Send) -> R {
    on_driver_or_here_polling(here, SPIN, call)
}

/// [`on_driver_or_here`] for a call that waits for the GPU (a fence wait): a caller whose call
/// is handed over polls for [`WAIT_SPIN`] before it sleeps.
pub(crate) fn on_driver_or_here_waiting<R: Send>(here: bool, call: impl FnOnce() -> R + Send) -> R {
    on_driver_or_here_polling(here, WAIT_SPIN, call)
}

/// [`on_driver_or_here`], a handed-over call's caller polling for `limit` before it sleeps.
fn on_driver_or_here_polling<R: Send>(here: bool, limit: Duration, call: impl FnOnce() -> R + Send) -> R {
    if !here || on_driver_thread() {
        return on_driver_polling(limit, call);
    }
    run_here(call)
}

/// Runs `call` on this (app's) thread, which makes driver calls for its length.
fn run_here<R: Send>(call: impl FnOnce() -> R + Send) -> R {
    /// Leaves the stretch even where `call` unwinds.
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            HERE.with(|h| h.set(h.get().saturating_sub(1)));
        }
    }
    HERE.with(|h| h.set(h.get().saturating_add(1)));
    let _leave = Leave;
    crate::gate::shared(call)
}

/// Runs `work` on a pooled thread without waiting for it (inline on a pooled thread, or where no
/// thread can be started): for drops the caller need not see done, such as a finished
/// recording's, which would otherwise cost the app's thread a hand-over and a wait. A device
/// counts its own (`drops.rs`).
pub(crate) fn detached(work: impl FnOnce() + Send + 'static) {
    if POOLED.with(Cell::get) {
        return crate::gate::shared(work);
    }
    if let Err((_, work)) = hand_over(Box::new(move || crate::gate::shared(work))) {
        work();
    }
}

/// Runs `call`, which may borrow the caller's data, as a task `run` hands to a pooled thread:
/// `run` returns only once the task has been run and dropped (or runs it itself).
fn run_borrowed<R: Send>(call: impl FnOnce() -> R + Send, run: impl FnOnce(Work)) -> R {
    let slot: Mutex<Option<std::thread::Result<R>>> = Mutex::new(None);
    let task = || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::gate::shared(call)));
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
    };
    let task: Box<dyn FnOnce() + Send + '_> = Box::new(task);
    // SAFETY: only the lifetime is changed. The task borrows `call`'s captures and `slot`, and
    // this function does not return before the task has been run and dropped: every `run`
    // (`on_driver`'s, `Reserved::run`'s) waits for the pooled thread's `done`, set after the
    // task's box is consumed (a panic is caught inside the task), or runs the task itself.
    let task: Box<dyn FnOnce() + Send + 'static> = unsafe { std::mem::transmute(task) };
    run(task);
    let result = slot.into_inner().unwrap_or_else(PoisonError::into_inner);
    match result {
        Some(Ok(r)) => r,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        // Every `run` runs the task to its end, and the task fills the slot.
        None => unreachable!("a driver call ended without its result"),
    }
}

/// A pooled thread held for one driver call to come: taken while a command list records, so
/// that the thread is awake (polling) when `Close` hands it the recording, instead of being
/// woken then. A reservation dropped unused lets its thread go.
pub(crate) struct Reserved {
    post: Arc<Post>,
    handle: Option<TaskHandle>,
    /// Counted in [`HELD`].
    counted: bool,
}

/// The call a reserved thread waits for: `Some` to run, `None` to let the thread go.
#[derive(Default)]
struct Post {
    call: Mutex<Option<Option<Work>>>,
    posted: AtomicBool,
    changed: Condvar,
}

impl Post {
    fn send(&self, call: Option<Work>) {
        *self.call.lock().unwrap_or_else(PoisonError::into_inner) = Some(call);
        self.posted.store(true, Ordering::Release);
        self.changed.notify_one();
    }

    /// Waits for the post: polled for [`RESERVE_SPIN`], then slept on.
    fn take(&self) -> Option<Work> {
        spin_for(RESERVE_SPIN, || self.posted.load(Ordering::Acquire));
        let mut call = self.call.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(c) = call.take() {
                return c;
            }
            call = self.changed.wait(call).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// How long a reserved thread polls for its call before it sleeps: the recording of a short
/// list (a frame's worth of commands) fits; a long one pays the wake-up, small beside it.
const RESERVE_SPIN: Duration = Duration::from_micros(200);

/// Reserves a pooled thread for a call to come ([`Reserved::run`]); `None` on a pooled thread
/// (whose calls run inline), on a machine too small to poll, or where no thread can be
/// started.
pub(crate) fn reserve() -> Option<Reserved> {
    if !polling() {
        return None;
    }
    reserve_counted(cores())
}

/// [`reserve_thread`], while fewer than `limit` reservations are held: more would only poll
/// against each other (an app with hundreds of lists open at once records the rest the plain
/// way).
fn reserve_counted(limit: usize) -> Option<Reserved> {
    if HELD.fetch_add(1, Ordering::AcqRel) >= limit {
        HELD.fetch_sub(1, Ordering::AcqRel);
        return None;
    }
    let reserved = reserve_thread();
    match reserved {
        Some(mut r) => {
            r.counted = true;
            Some(r)
        }
        None => {
            HELD.fetch_sub(1, Ordering::AcqRel);
            None
        }
    }
}

/// Threads held by [`reserve`] now.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// [`reserve`] whatever the machine's size.
fn reserve_thread() -> Option<Reserved> {
    if POOLED.with(Cell::get) {
        return None;
    }
    let post = Arc::new(Post::default());
    let waiting = post.clone();
    let handle = spawn(move || {
        if let Some(call) = waiting.take() {
            call();
        }
    })
    .ok()?;
    Some(Reserved { post, handle: Some(handle), counted: false })
}

impl Reserved {
    /// [`on_driver`] on the reserved thread.
    pub(crate) fn run<R: Send>(mut self, call: impl FnOnce() -> R + Send) -> R {
        count_handover();
        let handle = self.handle.take();
        run_borrowed(call, |task| match handle {
            Some(h) => {
                self.post.send(Some(task));
                h.join();
            }
            None => task(),
        })
    }
}

impl Drop for Reserved {
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.post.send(None);
        }
        if self.counted {
            HELD.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// Whether this thread may call the driver now: it is one of the pool's, or inside a call
/// [`on_driver_or_here`] runs on it (checked in debug builds where the driver is called most).
pub(crate) fn on_driver_thread() -> bool {
    POOLED.with(Cell::get) || HERE.with(Cell::get) > 0
}

/// A pooled thread's life: run a task, go back to the pool, say the task is done, wait for
/// the next. A task that panics is caught (the panic hook has reported it), so the thread
/// does not exit.
fn serve(first: Option<Task>, own: Sender<Task>, tasks: Receiver<Task>) {
    POOLED.with(|p| p.set(true));
    let mut next = first;
    loop {
        let Some((task, done)) = next.take().or_else(|| recv_polling(&tasks)) else { return };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
        IDLE.lock().unwrap_or_else(PoisonError::into_inner).push(own.clone());
        *done.done.lock().unwrap_or_else(PoisonError::into_inner) = true;
        done.finished.store(true, Ordering::Release);
        done.changed.notify_all();
    }
}

#[cfg(test)]
mod tests;

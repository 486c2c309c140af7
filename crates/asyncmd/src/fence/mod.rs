//! Fences: timeline values signalled by queues or the CPU.

mod implied;

use crate::device::{Device, DeviceShared};
use crate::err;
use asyncmd_ddi::FenceId;
use asyncmd_types::{MessageId, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

pub(crate) struct FenceShared {
    pub(crate) device: Arc<DeviceShared>,
    pub(crate) id: FenceId,
    /// The highest value signalled so far (or the initial value): every signal must pass it.
    signalled: AtomicU64,
    /// The highest value the fence is known to have reached: what a read or a wait saw, or
    /// what a queue's signal of another fence implies ([`Fence::known_reached`]). Checks that
    /// only need "at least" read it instead of asking the device, which costs a driver call
    /// (on Vulkan, a hand-over to a driver thread).
    reached: AtomicU64,
    /// What this fence reaching a value says about its signalling queue's progress.
    implied: Mutex<implied::Implications>,
    /// The queue whose progress this fence is, for a queue's own fence.
    pub(crate) owner: std::sync::OnceLock<crate::debug::cross_queue::QueueKey>,
    /// Queue signals, for the debug layer.
    pub(crate) signals: crate::debug::cross_queue::SignalLog,
}

impl FenceShared {
    /// Notes that the fence has reached `value`, and what that implies for queues' progress.
    fn saw(&self, value: u64) {
        if self.reached.fetch_max(value, Ordering::AcqRel) >= value {
            return;
        }
        let reached = self.implied.lock().unwrap_or_else(PoisonError::into_inner).reached(value);
        implied::apply(reached);
    }
}

impl Drop for FenceShared {
    fn drop(&mut self) {
        self.device.ddi.destroy_fence(self.id);
    }
}

/// The furthest past the value a fence has reached that a signal may set it or a wait may
/// look: 2^31 − 1, the smallest `maxTimelineSemaphoreValueDifference` Vulkan allows,
/// so that a fence means the same on every device.
pub const MAX_FENCE_STEP: u64 = (1 << 31) - 1;

/// A fence (`ID3D12Fence`). Cloning shares it.
#[derive(Clone)]
pub struct Fence(pub(crate) Arc<FenceShared>);

impl Fence {
    pub(crate) fn create(device: &Device, initial: u64) -> Result<Fence> {
        let d = &device.shared;
        let id = d.ddi.create_fence(initial).or_else(|e| d.fail(e))?;
        Ok(Fence(Arc::new(FenceShared {
            device: d.clone(),
            id,
            signalled: AtomicU64::new(initial),
            reached: AtomicU64::new(initial),
            implied: Default::default(),
            owner: Default::default(),
            signals: Default::default(),
        })))
    }

    /// `GetCompletedValue`.
    pub fn completed_value(&self) -> u64 {
        let value = self.0.device.ddi.fence_value(self.0.id);
        self.0.saw(value);
        value
    }

    /// A value the fence has reached, without asking the device: at most
    /// [`Fence::completed_value`], and never less than what an earlier read or wait saw.
    pub(crate) fn known_reached(&self) -> u64 {
        self.0.reached.load(Ordering::Acquire)
    }

    /// Whether the fence has reached `value`: from what is known, else from the device.
    pub(crate) fn has_reached(&self, value: u64) -> bool {
        self.known_reached() >= value || self.completed_value() >= value
    }

    /// A value the fence has reached that is at least `wanted` where the fence is there: the
    /// known one where it suffices, else the device's.
    pub(crate) fn reached_for(&self, wanted: u64) -> u64 {
        let known = self.known_reached();
        if known >= wanted {
            known
        } else {
            self.completed_value()
        }
    }

    /// Notes that this fence's queue signal to `value` was submitted after `progress` (the
    /// queue's progress fence) was signalled to `reaches`. Called with the queue's submission
    /// order held.
    pub(crate) fn queue_signalled(&self, value: u64, progress: &Fence, reaches: u64) {
        let mut implied = self.0.implied.lock().unwrap_or_else(PoisonError::into_inner);
        implied.queue_signalled(value, &progress.0, reaches);
        // A read may have seen the value before it was noted here.
        let reached = implied.reached(self.known_reached());
        drop(implied);
        implied::apply(reached);
    }

    /// `Signal` from the CPU. The value must be greater than every value signalled on the fence
    /// before, from the CPU or a queue, and than its initial value, and at most
    /// [`MAX_FENCE_STEP`] past the value it has reached (`InvalidArg` otherwise): asyncmd fences only move forward, in steps a
    /// timeline semaphore can take, so that they mean the same on every device.
    /// A queue's progress fence ([`CommandQueue::fence`](crate::CommandQueue::fence)) is the
    /// queue's alone: a signal of it is refused (`InvalidArg`).
    pub fn signal(&self, value: u64) -> Result<()> {
        self.check_not_progress("Fence::Signal")?;
        self.claim_signal(value, "Fence::Signal")?;
        // Before the device sets it: no read may see the host's value while it implies.
        self.0.implied.lock().unwrap_or_else(PoisonError::into_inner).host_signalled();
        self.0.device.ddi.signal_fence(self.0.id, value)
    }

    /// Refuses a signal of a queue's progress fence: its values are the queue's submissions,
    /// and a signal ahead of them would report work done that has not run.
    pub(crate) fn check_not_progress(&self, api: &str) -> Result<()> {
        if self.0.owner.get().is_none() {
            return Ok(());
        }
        self.0.device.fail(err::invalid(
            MessageId::FenceInvalidOperation,
            api,
            "the fence is a queue's progress fence (CommandQueue::fence), which only its queue signals",
        ))
    }

    /// Takes `value` as the fence's next signal, or refuses a value that does not move it
    /// forward. A refused signal changes nothing.
    pub(crate) fn claim_signal(&self, value: u64, api: &str) -> Result<()> {
        // The step counts from the value the fence has reached (a timeline semaphore's rule);
        // the known value suffices for every step that is short from it.
        let completed = self.reached_within_step(value);
        let forward = |last: u64| value > last && value.saturating_sub(completed) <= MAX_FENCE_STEP;
        let claimed =
            self.0.signalled.fetch_update(Ordering::AcqRel, Ordering::Acquire, |last| forward(last).then_some(value));
        claimed.map(|_| ()).or_else(|last| {
            let why = if value <= last {
                "fence values only increase"
            } else {
                "a signal sets a fence at most 2^31 - 1 (MAX_FENCE_STEP) past the value it has reached"
            };
            // The device's value, not the known one, for the message.
            let completed = self.completed_value();
            self.0.device.fail(err::invalid(
                MessageId::FenceInvalidOperation,
                api,
                format!(
                    "value {value} against {last}, the highest value the fence was signalled (or created) \
                     with, and {completed}, the value it has reached: {why}"
                ),
            ))
        })
    }

    /// Checks a queue-side wait for `value`: at most [`MAX_FENCE_STEP`] past the value the
    /// fence has reached (a timeline semaphore cannot wait further ahead).
    pub(crate) fn check_wait(&self, value: u64, api: &str) -> Result<()> {
        let completed = self.reached_within_step(value);
        if value.saturating_sub(completed) <= MAX_FENCE_STEP {
            return Ok(());
        }
        self.0.device.fail(err::invalid(
            MessageId::FenceInvalidOperation,
            api,
            format!("value {value} is more than 2^31 - 1 (MAX_FENCE_STEP) past {completed}, the fence's value"),
        ))
    }

    /// The reached value a step to `value` counts from: the known one where `value` is within
    /// [`MAX_FENCE_STEP`] of it, else the device's.
    fn reached_within_step(&self, value: u64) -> u64 {
        let known = self.known_reached();
        if value.saturating_sub(known) <= MAX_FENCE_STEP {
            known
        } else {
            self.completed_value()
        }
    }

    /// Blocks until the fence reaches `value` (`SetEventOnCompletion` and a wait). Fails with
    /// `Fail` when `timeout` passes first.
    pub fn wait(&self, value: u64, timeout: Duration) -> Result<()> {
        if self.0.device.ddi.wait_fence(self.0.id, value, timeout) {
            self.0.saw(value);
            Ok(())
        } else {
            Err(err::fail(
                MessageId::FenceInvalidOperation,
                "SetEventOnCompletion",
                format!("the fence did not reach {value} within {timeout:?} (it is at {})", self.completed_value()),
            ))
        }
    }

    pub(crate) fn id(&self) -> FenceId {
        self.0.id
    }

    pub(crate) fn device(&self) -> &Arc<DeviceShared> {
        &self.0.device
    }
}

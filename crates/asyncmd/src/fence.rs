//! Fences: timeline values signalled by queues or the CPU.

use crate::device::{Device, DeviceShared};
use crate::err;
use asyncmd_ddi::FenceId;
use asyncmd_types::{MessageId, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(crate) struct FenceShared {
    pub(crate) device: Arc<DeviceShared>,
    pub(crate) id: FenceId,
    /// The highest value signalled so far (or the initial value): every signal must pass it.
    signalled: AtomicU64,
    /// The queue whose progress this fence is, for a queue's own fence.
    pub(crate) owner: std::sync::OnceLock<crate::debug::cross_queue::QueueKey>,
    /// Queue signals, for the debug layer.
    pub(crate) signals: crate::debug::cross_queue::SignalLog,
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
            owner: Default::default(),
            signals: Default::default(),
        })))
    }

    /// `GetCompletedValue`.
    pub fn completed_value(&self) -> u64 {
        self.0.device.ddi.fence_value(self.0.id)
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
        // The step counts from the value the fence has reached (a timeline semaphore's rule).
        let completed = self.completed_value();
        let forward = |last: u64| value > last && value.saturating_sub(completed) <= MAX_FENCE_STEP;
        let claimed =
            self.0.signalled.fetch_update(Ordering::AcqRel, Ordering::Acquire, |last| forward(last).then_some(value));
        claimed.map(|_| ()).or_else(|last| {
            let why = if value <= last {
                "fence values only increase"
            } else {
                "a signal sets a fence at most 2^31 - 1 (MAX_FENCE_STEP) past the value it has reached"
            };
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
        let completed = self.completed_value();
        if value.saturating_sub(completed) <= MAX_FENCE_STEP {
            return Ok(());
        }
        self.0.device.fail(err::invalid(
            MessageId::FenceInvalidOperation,
            api,
            format!("value {value} is more than 2^31 - 1 (MAX_FENCE_STEP) past {completed}, the fence's value"),
        ))
    }

    /// Blocks until the fence reaches `value` (`SetEventOnCompletion` and a wait). Fails with
    /// `Fail` when `timeout` passes first.
    pub fn wait(&self, value: u64, timeout: Duration) -> Result<()> {
        if self.0.device.ddi.wait_fence(self.0.id, value, timeout) {
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

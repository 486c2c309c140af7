//! Fences: timeline values signalled by queues or the CPU.

use crate::device::{Device, DeviceShared};
use asyncmd_ddi::FenceId;
use asyncmd_types::{Error, MessageId, Result};
use std::sync::Arc;
use std::time::Duration;

pub(crate) struct FenceShared {
    pub(crate) device: Arc<DeviceShared>,
    pub(crate) id: FenceId,
}

impl Drop for FenceShared {
    fn drop(&mut self) {
        self.device.ddi.destroy_fence(self.id);
    }
}

/// A fence (`ID3D12Fence`). Cloning shares it.
#[derive(Clone)]
pub struct Fence(pub(crate) Arc<FenceShared>);

impl Fence {
    pub(crate) fn create(device: &Device, initial: u64) -> Result<Fence> {
        let d = &device.shared;
        let id = d.ddi.create_fence(initial).or_else(|e| d.fail(e))?;
        Ok(Fence(Arc::new(FenceShared { device: d.clone(), id })))
    }

    /// `GetCompletedValue`.
    pub fn completed_value(&self) -> u64 {
        self.0.device.ddi.fence_value(self.0.id)
    }

    /// `Signal` from the CPU.
    pub fn signal(&self, value: u64) -> Result<()> {
        self.0.device.ddi.signal_fence(self.0.id, value)
    }

    /// Blocks until the fence reaches `value` (`SetEventOnCompletion` and a wait). Fails with
    /// `Fail` when `timeout` passes first.
    pub fn wait(&self, value: u64, timeout: Duration) -> Result<()> {
        if self.0.device.ddi.wait_fence(self.0.id, value, timeout) {
            Ok(())
        } else {
            Err(Error::fail(
                MessageId::FenceInvalidOperation,
                format!(
                    "SetEventOnCompletion: the fence did not reach {value} within {timeout:?} (it is at {})",
                    self.completed_value()
                ),
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

//! Command allocators: the memory behind command lists, reusable once the GPU is done with it.

use crate::device::{Device, DeviceShared};
use crate::err;
use crate::fallback::cache::Cache;
use crate::fence::Fence;
use asyncmd_types::{CommandListType, MessageId, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

pub(crate) struct AllocatorShared {
    pub(crate) device: Arc<DeviceShared>,
    pub(crate) ty: CommandListType,
    /// A list is recording on this allocator.
    pub(crate) recording: AtomicBool,
    /// Submissions of lists recorded on this allocator: (queue fence, value).
    in_flight: Mutex<Vec<(Fence, u64)>>,
    /// The fallback's objects of the lists recorded here.
    pub(crate) cache: Cache,
}

/// A command allocator (`ID3D12CommandAllocator`). Cloning shares it.
#[derive(Clone)]
pub struct CommandAllocator(pub(crate) Arc<AllocatorShared>);

impl CommandAllocator {
    pub(crate) fn new(device: &Device, ty: CommandListType) -> Self {
        CommandAllocator(Arc::new(AllocatorShared {
            device: device.shared.clone(),
            ty,
            recording: AtomicBool::new(false),
            in_flight: Mutex::new(Vec::new()),
            cache: Cache::default(),
        }))
    }

    /// The list type this allocator serves.
    pub fn command_list_type(&self) -> CommandListType {
        self.0.ty
    }

    /// `Reset`: reuses the memory. Fails while a list records on it (`InvalidArg`) or while the
    /// GPU may still run work recorded on it (`Fail`), and with `DeviceRemoved` on a removed
    /// device.
    pub fn reset(&self) -> Result<()> {
        let d = &self.0.device;
        if self.0.recording.load(Ordering::Acquire) {
            return d.fail(err::invalid(
                MessageId::CommandAllocatorInUse,
                "CommandAllocator::Reset",
                "a command list is still recording on this allocator; close it first",
            ));
        }
        if let Err(e) = d.removed_reason("CommandAllocator::Reset") {
            // The spec's unhealthy case: the fallback's buffers are released, never recycled
            // (the device keeps what submitted work still uses alive until it retires).
            self.0.cache.release();
            return d.fail(e);
        }
        let mut in_flight = self.0.in_flight.lock().unwrap_or_else(PoisonError::into_inner);
        in_flight.retain(|(fence, value)| !fence.has_reached(*value));
        if let Some((fence, value)) = in_flight.first() {
            return d.fail(err::fail(
                MessageId::CommandAllocatorResetWhileInFlight,
                "CommandAllocator::Reset",
                format!(
                    "the GPU may still be running work recorded on this allocator \
                     (its queue fence is at {}, the work signals {value})",
                    fence.completed_value()
                ),
            ));
        }
        drop(in_flight);
        // The GPU is done with everything recorded here: the fallback's buffers go back to the
        // pools, and its tiles to the device, while the app holds the device (pooled buffers
        // hold it).
        self.0.cache.recycle(|owned, tiles| {
            d.give_back(owned);
            d.keep_tiles(tiles);
        });
        Ok(())
    }

    pub(crate) fn submitted(&self, fence: &Fence, value: u64) {
        self.0.in_flight.lock().unwrap_or_else(PoisonError::into_inner).push((fence.clone(), value));
    }

    pub(crate) fn same(&self, other: &CommandAllocator) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

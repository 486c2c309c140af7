//! Command pools of lists, kept by the device once the GPU is done with them and handed to the
//! next list of their family: a list's reset or creation then costs no pool creation and no
//! command buffer allocation (D3D12 allocators reuse their memory the same way).

use crate::core::Core;
use ash::vk;
use asyncmd_types::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// Idle pools a device keeps at most: enough for the lists a frame keeps in flight on every
/// queue; past it a retired pool is destroyed.
const KEPT: usize = 64;

/// How long taking a pool waits for the drops in flight to give theirs back before it makes
/// one: a pool's reset is microseconds, so this bounds only a stuck drop.
const GIVE_BACK_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// A list's pool and its two command buffers: the prologue (query resets) and the commands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ListPool {
    pub(crate) family: u32,
    pub(crate) pool: vk::CommandPool,
    pub(crate) prologue: vk::CommandBuffer,
    pub(crate) cb: vk::CommandBuffer,
}

/// The device's idle list pools, each reset and ready to record.
#[derive(Default)]
pub(crate) struct ListPools {
    idle: Mutex<Vec<ListPool>>,
    /// Pools made so far (`VulkanDevice::command_pools_created`).
    created: AtomicU64,
}

impl ListPools {
    /// A pool of `family`: an idle one, or a new one.
    pub(crate) fn take(&self, core: &Core, family: u32) -> Result<ListPool> {
        if let Some(p) = self.idle_of(family) {
            return Ok(p);
        }
        // A list's reset may have handed its last recording's drop to a pooled thread
        // (`drops.rs`): the pool it gives back is a reset away, a new one a creation.
        if core.drops.settle(GIVE_BACK_WAIT) {
            if let Some(p) = self.idle_of(family) {
                return Ok(p);
            }
        }
        let d = &core.device;
        let oom = |e: vk::Result| Error::out_of_memory(format!("CreateCommandList: {e}"));
        // SAFETY: a new pool and its two primary command buffers, owned by the caller.
        unsafe {
            let pool = d
                .create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)
                .map_err(oom)?;
            let info = vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(2);
            match d.allocate_command_buffers(&info) {
                Ok(cbs) => {
                    self.created.fetch_add(1, Ordering::Relaxed);
                    Ok(ListPool { family, pool, prologue: cbs[0], cb: cbs[1] })
                }
                Err(e) => {
                    d.destroy_command_pool(pool, None);
                    Err(oom(e))
                }
            }
        }
    }

    /// An idle pool of `family`, if any.
    fn idle_of(&self, family: u32) -> Option<ListPool> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let i = idle.iter().rposition(|p| p.family == family)?;
        Some(idle.swap_remove(i))
    }

    /// Takes `p` back once no command buffer of it is pending: reset, and kept while there is
    /// room (destroyed otherwise, or where the reset fails).
    ///
    /// # Safety
    /// No command buffer of `p` is pending execution, and none is used again by the caller.
    pub(crate) unsafe fn give_back(&self, core: &Core, p: ListPool) {
        let d = &core.device;
        // SAFETY: the caller's contract: nothing of the pool is pending or used again.
        if unsafe { d.reset_command_pool(p.pool, vk::CommandPoolResetFlags::empty()) }.is_ok() {
            let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            if idle.len() < KEPT && idle.try_reserve(1).is_ok() {
                idle.push(p);
                return;
            }
        }
        // SAFETY: as above.
        unsafe { d.destroy_command_pool(p.pool, None) };
    }

    /// Pools made so far.
    pub(crate) fn created(&self) -> u64 {
        self.created.load(Ordering::Relaxed)
    }

    /// Destroys every idle pool (the device is idle and about to go).
    ///
    /// # Safety
    /// No pool given back is in use.
    pub(crate) unsafe fn destroy_all(&self, device: &ash::Device) {
        for p in self.idle.lock().unwrap_or_else(PoisonError::into_inner).drain(..) {
            // SAFETY: the caller's contract.
            unsafe { device.destroy_command_pool(p.pool, None) };
        }
    }
}

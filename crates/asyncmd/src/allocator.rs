//! Command allocators: the memory behind command lists, reusable once the GPU is done with it.

use crate::device::{Device, DeviceShared};
use crate::fence::Fence;
use asyncmd_types::{CommandListType, Error, MessageId, Result, SubresourceFootprint};
use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

pub(crate) struct AllocatorShared {
    pub(crate) device: Arc<DeviceShared>,
    pub(crate) ty: CommandListType,
    /// A list is recording on this allocator.
    pub(crate) recording: AtomicBool,
    /// Submissions of lists recorded on this allocator: (queue fence, value).
    in_flight: Mutex<Vec<(Fence, u64)>>,
    /// Buffers the fallback made while recording on this allocator; recycled on reset.
    owned: Mutex<Vec<crate::resource::Resource>>,
    /// Pattern tiles of texture clears by byte pattern and footprint (the ones this allocator
    /// made also in `owned`): reusable by every list recorded on this allocator until it is
    /// reset, then kept by the device for later recordings.
    tiles: Mutex<HashMap<TileKey, crate::resource::Resource>>,
    /// VRAM copies of pattern tiles that lists on this allocator filled or read (those made
    /// here also in `owned`): after the reset, their filling copies have run, so the device
    /// keeps them for later recordings to copy from without staging again.
    staged: Mutex<HashMap<TileKey, crate::resource::Resource>>,
    /// Clear pipelines lists on this allocator drew with: alive until its reset, so the
    /// device's cache may evict them at any time.
    pipelines: Mutex<Vec<crate::objects::PipelineState>>,
    /// Private textures too large for the pools' budget that the last recording used, kept
    /// for the next one on this allocator (a frame that clears a large MSAA texture makes its
    /// private texture once, not every frame): at most what one recording used.
    large: Mutex<Vec<crate::resource::Resource>>,
}

/// What identifies a pattern tile: the element's bytes and the tile's footprint.
pub(crate) type TileKey = (asyncmd_types::ClearElement, SubresourceFootprint);

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
            owned: Mutex::new(Vec::new()),
            tiles: Mutex::new(HashMap::default()),
            staged: Mutex::new(HashMap::default()),
            pipelines: Mutex::new(Vec::new()),
            large: Mutex::new(Vec::new()),
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
            return d.fail(Error::invalid_arg(
                MessageId::CommandAllocatorInUse,
                "CommandAllocator::Reset: a command list is still recording on this allocator; close it first",
            ));
        }
        if let Err(e) = d.removed_reason("CommandAllocator::Reset") {
            // The spec's unhealthy case: the fallback's buffers are released, never recycled
            // (the device keeps what submitted work still uses alive until it retires).
            self.0.owned.lock().unwrap_or_else(PoisonError::into_inner).clear();
            self.0.tiles.lock().unwrap_or_else(PoisonError::into_inner).clear();
            self.0.staged.lock().unwrap_or_else(PoisonError::into_inner).clear();
            self.0.pipelines.lock().unwrap_or_else(PoisonError::into_inner).clear();
            self.0.large.lock().unwrap_or_else(PoisonError::into_inner).clear();
            return d.fail(e);
        }
        let mut in_flight = self.0.in_flight.lock().unwrap_or_else(PoisonError::into_inner);
        in_flight.retain(|(fence, value)| fence.completed_value() < *value);
        if let Some((fence, value)) = in_flight.first() {
            return d.fail(Error::fail(
                MessageId::CommandAllocatorResetWhileInFlight,
                format!(
                    "CommandAllocator::Reset: the GPU may still be running work recorded on this allocator \
                     (its queue fence is at {}, the work signals {value})",
                    fence.completed_value()
                ),
            ));
        }
        drop(in_flight);
        // The tile maps keep their storage for the next recording (a frame that clears again
        // inserts without growing them); their entries go to the device below.
        let mut tiles = self.0.tiles.lock().unwrap_or_else(PoisonError::into_inner);
        let mut staged = self.0.staged.lock().unwrap_or_else(PoisonError::into_inner);
        self.0.pipelines.lock().unwrap_or_else(PoisonError::into_inner).clear();
        let mut owned = std::mem::take(&mut *self.0.owned.lock().unwrap_or_else(PoisonError::into_inner));
        // Tiles are never written again: the device keeps them for later recordings instead of
        // pooling their buffers for anything.
        owned.retain(|r| !tiles.values().chain(staged.values()).any(|t| t.same(r)));
        // Private textures the pools could never take stay here for the next recording; the
        // ones kept before and not used again go.
        let too_large = |r: &crate::resource::Resource| {
            !r.desc().is_buffer()
                && crate::fallback::pools::texture_bytes(r.desc()) > crate::fallback::pools::POOL_BUDGET
        };
        let large: Vec<_> = owned.iter().filter(|r| too_large(r)).cloned().collect();
        owned.retain(|r| !too_large(r));
        *self.0.large.lock().unwrap_or_else(PoisonError::into_inner) = large;
        // The GPU is done with everything recorded here: the fallback's buffers go back to the
        // pools, while the app holds the device (pooled buffers hold it).
        d.give_back(owned);
        d.keep_tiles(tiles.drain().map(|(k, t)| ((k, false), t)).chain(staged.drain().map(|(k, t)| ((k, true), t))));
        Ok(())
    }

    /// A large private texture of `desc` the last recording on this allocator used, taken.
    pub(crate) fn take_large(&self, desc: &asyncmd_types::ResourceDesc) -> Option<crate::resource::Resource> {
        let mut large = self.0.large.lock().unwrap_or_else(PoisonError::into_inner);
        let i = large.iter().position(|r| r.desc() == desc)?;
        Some(large.swap_remove(i))
    }

    /// Gives a fallback buffer to this allocator until its next successful reset.
    pub(crate) fn own(&self, buffer: crate::resource::Resource) {
        self.0.owned.lock().unwrap_or_else(PoisonError::into_inner).push(buffer);
    }

    /// The cached pattern tile for `key`, if a list on this allocator made one since the last
    /// reset.
    pub(crate) fn tile(&self, key: &TileKey) -> Option<crate::resource::Resource> {
        self.0.tiles.lock().unwrap_or_else(PoisonError::into_inner).get(key).cloned()
    }

    /// Keeps a VRAM copy of a pattern tile (owned, or kept by the device) until the next
    /// reset, when the device keeps it.
    pub(crate) fn keep_staged(&self, key: TileKey, tile: crate::resource::Resource) {
        self.0.staged.lock().unwrap_or_else(PoisonError::into_inner).insert(key, tile);
    }

    /// Keeps a pattern tile (already owned) for reuse until the next reset.
    pub(crate) fn keep_tile(&self, key: TileKey, tile: crate::resource::Resource) {
        self.0.tiles.lock().unwrap_or_else(PoisonError::into_inner).insert(key, tile);
    }

    /// Keeps a pipeline a list drew with until the next reset.
    pub(crate) fn keep_pipeline(&self, pso: &crate::objects::PipelineState) {
        let mut p = self.0.pipelines.lock().unwrap_or_else(PoisonError::into_inner);
        if !p.iter().any(|q| std::sync::Arc::ptr_eq(&q.0, &pso.0)) {
            p.push(pso.clone());
        }
    }

    pub(crate) fn submitted(&self, fence: &Fence, value: u64) {
        self.0.in_flight.lock().unwrap_or_else(PoisonError::into_inner).push((fence.clone(), value));
    }

    pub(crate) fn same(&self, other: &CommandAllocator) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

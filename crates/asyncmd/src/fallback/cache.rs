//! What one command allocator keeps for the fallback's lists: the buffers and private textures
//! they made (recycled into the device's pools once the allocator is reset), the pattern tiles
//! and VRAM copies they used (kept by the device after the reset), the clear pipelines they
//! drew with, and the large private textures of the last recording.

use super::pools::{texture_bytes, TileKey, POOL_BUDGET};
use crate::objects::PipelineState;
use crate::resource::Resource;
use asyncmd_types::ResourceDesc;
use rustc_hash::FxHashMap as HashMap;
use std::sync::{Mutex, PoisonError};

/// The fallback's objects of one allocator, until its next reset.
#[derive(Default)]
pub(crate) struct Cache {
    /// Buffers the fallback made while recording on this allocator; recycled on reset.
    owned: Mutex<Vec<Resource>>,
    /// Pattern tiles of texture clears by byte pattern and footprint (the ones this allocator
    /// made also in `owned`): reusable by every list recorded on this allocator until it is
    /// reset, then kept by the device for later recordings.
    tiles: Mutex<HashMap<TileKey, Resource>>,
    /// VRAM copies of pattern tiles that lists on this allocator filled or read (those made
    /// here also in `owned`): after the reset, their filling copies have run, so the device
    /// keeps them for later recordings to copy from without staging again.
    staged: Mutex<HashMap<TileKey, Resource>>,
    /// Clear pipelines lists on this allocator drew with: alive until its reset, so the
    /// device's cache may evict them at any time.
    pipelines: Mutex<Vec<PipelineState>>,
    /// Private textures too large for the pools' budget that the last recording used, kept
    /// for the next one on this allocator (a frame that clears a large MSAA texture makes its
    /// private texture once, not every frame): at most what one recording used.
    large: Mutex<Vec<Resource>>,
}

/// Pattern tiles a reset allocator hands to its device, with whether each is a VRAM copy.
pub(crate) type KeptTiles<'a> = &'a mut dyn Iterator<Item = ((TileKey, bool), Resource)>;

impl Cache {
    /// Gives a fallback buffer or private texture to this allocator until its next reset.
    pub(crate) fn own(&self, resource: Resource) {
        self.owned.lock().unwrap_or_else(PoisonError::into_inner).push(resource);
    }

    /// A large private texture of `desc` the last recording on this allocator used, taken.
    pub(crate) fn take_large(&self, desc: &ResourceDesc) -> Option<Resource> {
        let mut large = self.large.lock().unwrap_or_else(PoisonError::into_inner);
        let i = large.iter().position(|r| r.desc() == desc)?;
        Some(large.swap_remove(i))
    }

    /// The cached pattern tile for `key`, if a list on this allocator made one since the last
    /// reset.
    pub(crate) fn tile(&self, key: &TileKey) -> Option<Resource> {
        self.tiles.lock().unwrap_or_else(PoisonError::into_inner).get(key).cloned()
    }

    /// Keeps a VRAM copy of a pattern tile (owned, or kept by the device) until the next
    /// reset, when the device keeps it.
    pub(crate) fn keep_staged(&self, key: TileKey, tile: Resource) {
        self.staged.lock().unwrap_or_else(PoisonError::into_inner).insert(key, tile);
    }

    /// Keeps a pattern tile (already owned) for reuse until the next reset.
    pub(crate) fn keep_tile(&self, key: TileKey, tile: Resource) {
        self.tiles.lock().unwrap_or_else(PoisonError::into_inner).insert(key, tile);
    }

    /// Keeps a pipeline a list drew with until the next reset.
    pub(crate) fn keep_pipeline(&self, pso: &PipelineState) {
        let mut p = self.pipelines.lock().unwrap_or_else(PoisonError::into_inner);
        if !p.iter().any(|q| std::sync::Arc::ptr_eq(&q.0, &pso.0)) {
            p.push(pso.clone());
        }
    }

    /// Releases everything, recycling nothing (the device is unhealthy: what submitted work
    /// still uses, the device keeps alive until it retires).
    pub(crate) fn release(&self) {
        self.owned.lock().unwrap_or_else(PoisonError::into_inner).clear();
        self.tiles.lock().unwrap_or_else(PoisonError::into_inner).clear();
        self.staged.lock().unwrap_or_else(PoisonError::into_inner).clear();
        self.pipelines.lock().unwrap_or_else(PoisonError::into_inner).clear();
        self.large.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// The GPU is done with everything recorded on the allocator: hands `recycle` the buffers
    /// and textures for the device's pools and the pattern tiles for it to keep, and keeps the
    /// large private textures for the next recording.
    pub(crate) fn recycle(&self, recycle: impl FnOnce(Vec<Resource>, KeptTiles)) {
        // The tile maps keep their storage for the next recording (a frame that clears again
        // inserts without growing them); their entries go to the device.
        let mut tiles = self.tiles.lock().unwrap_or_else(PoisonError::into_inner);
        let mut staged = self.staged.lock().unwrap_or_else(PoisonError::into_inner);
        self.pipelines.lock().unwrap_or_else(PoisonError::into_inner).clear();
        let mut owned = std::mem::take(&mut *self.owned.lock().unwrap_or_else(PoisonError::into_inner));
        // Tiles are never written again: the device keeps them for later recordings instead of
        // pooling their buffers for anything.
        owned.retain(|r| !tiles.values().chain(staged.values()).any(|t| t.same(r)));
        // Private textures the pools could never take stay here for the next recording; the
        // ones kept before and not used again go.
        let too_large = |r: &Resource| !r.desc().is_buffer() && texture_bytes(r.desc()) > POOL_BUDGET;
        let large: Vec<_> = owned.iter().filter(|r| too_large(r)).cloned().collect();
        owned.retain(|r| !too_large(r));
        *self.large.lock().unwrap_or_else(PoisonError::into_inner) = large;
        let mut kept = tiles.drain().map(|(k, t)| ((k, false), t)).chain(staged.drain().map(|(k, t)| ((k, true), t)));
        recycle(owned, &mut kept);
    }
}

//! Size-classed pools of the fallback's upload and VRAM staging buffers, its private MSAA
//! textures by description, and its pattern tiles (texture clears' tiles and fills' upload
//! chunks) by pattern and footprint, sharing one budget for
//! resources kept between uses. Resources come
//! back only after their allocator was reset (the GPU is done with them); protected or
//! unhealthy cases skip recycling.

use crate::resource::Resource;
use asyncmd_types::{ClearElement, HeapType, ResourceDesc, SubresourceFootprint};
use rustc_hash::FxHashMap as HashMap;
use std::sync::{Mutex, PoisonError};

/// Bytes of buffers a device keeps for reuse, all pools together.
pub const POOL_BUDGET: u64 = 128 << 20;
/// Bytes of pattern tiles kept, upload tiles and their VRAM copies together, oldest given up
/// first (part of [`POOL_BUDGET`]).
pub const TILE_BUDGET: u64 = 64 << 20;
/// What identifies a pattern tile: the element's bytes and the tile's footprint.
pub(crate) type TileKey = (ClearElement, SubresourceFootprint);

/// The smallest size class.
const MIN_CLASS: u64 = 64 << 10;

/// The size class holding `size` bytes (a power of two, at least 64 KiB).
pub fn size_class(size: u64) -> u64 {
    size.max(MIN_CLASS).next_power_of_two()
}

#[derive(Default)]
struct Kept {
    buffers: HashMap<(HeapType, u64), Vec<Resource>>,
    textures: HashMap<ResourceDesc, KeptTextures>,
    /// Pattern tiles, in upload memory (`false`) or copied into VRAM by a list that has run
    /// (`true`): never written after they are made, so any list may read one while others do
    /// (each allocator that uses one keeps it until its reset).
    tiles: HashMap<(TileKey, bool), Resource>,
    /// The tiles' keys, oldest first, and their bytes.
    tile_order: std::collections::VecDeque<(TileKey, bool)>,
    tile_bytes: u64,
    bytes: u64,
}

/// The kept private textures of one description, and the bytes each counts against the
/// budget (worked out once: it takes every subresource's footprint).
struct KeptTextures {
    bytes: u64,
    free: Vec<Resource>,
}

/// Bytes a kept texture counts against the budget: its subresources' data, per sample.
pub(crate) fn texture_bytes(desc: &ResourceDesc) -> u64 {
    let data = desc.copyable_footprints(0, desc.subresource_count(), 0).map_or(u64::MAX / 4, |f| f.total_bytes);
    data.saturating_mul(desc.sample_desc.count.max(1) as u64)
}

/// The device's pools.
#[derive(Default)]
pub(crate) struct BufferPools {
    kept: Mutex<Kept>,
}

impl BufferPools {
    /// A kept buffer of `heap` holding at least `size` bytes, if one is free.
    pub(crate) fn take(&self, heap: HeapType, size: u64) -> Option<Resource> {
        let class = size_class(size);
        let mut k = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let r = k.buffers.get_mut(&(heap, class))?.pop()?;
        k.bytes -= class;
        Some(r)
    }

    /// A kept private texture of exactly `desc`, if one is free.
    pub(crate) fn take_texture(&self, desc: &ResourceDesc) -> Option<Resource> {
        let mut k = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = k.textures.get_mut(desc)?;
        let r = kept.free.pop()?;
        let bytes = kept.bytes;
        k.bytes -= bytes;
        Some(r)
    }

    /// Keeps buffers and private textures for reuse while the budget allows; the rest are
    /// released.
    pub(crate) fn give_back(&self, resources: Vec<Resource>) {
        let mut k = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        for r in resources {
            if r.is_protected() {
                continue;
            }
            if !r.desc().is_buffer() {
                let desc = *r.desc();
                let bytes = k.textures.get(&desc).map_or_else(|| texture_bytes(&desc), |t| t.bytes);
                if k.bytes.saturating_add(bytes) <= POOL_BUDGET {
                    k.bytes += bytes;
                    k.textures.entry(desc).or_insert_with(|| KeptTextures { bytes, free: Vec::new() }).free.push(r);
                }
                continue;
            }
            let class = r.desc().width;
            if class != size_class(class) || k.bytes + class > POOL_BUDGET {
                continue;
            }
            k.bytes += class;
            k.buffers.entry((r.heap_type(), class)).or_default().push(r);
        }
    }

    /// A kept pattern tile for `key`, in VRAM (`vram`) or in upload memory, shared (it stays
    /// kept).
    pub(crate) fn tile(&self, key: &TileKey, vram: bool) -> Option<Resource> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).tiles.get(&(*key, vram)).cloned()
    }

    /// Keeps pattern tiles for later recordings while the budget allows: upload tiles
    /// (`false`) and their VRAM copies (`true`) whose filling copy has run.
    pub(crate) fn keep_tiles(&self, tiles: impl IntoIterator<Item = ((TileKey, bool), Resource)>) {
        let mut k = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        for (key, tile) in tiles {
            let bytes = tile.desc().width;
            if k.tiles.contains_key(&key) || bytes > TILE_BUDGET {
                continue;
            }
            while k.tile_bytes + bytes > TILE_BUDGET {
                let Some(old) = k.tile_order.pop_front() else { break };
                if let Some(t) = k.tiles.remove(&old) {
                    let b = t.desc().width;
                    k.tile_bytes -= b;
                    k.bytes -= b;
                }
            }
            if k.bytes.saturating_add(bytes) <= POOL_BUDGET {
                k.bytes += bytes;
                k.tile_bytes += bytes;
                k.tile_order.push_back(key);
                k.tiles.insert(key, tile);
            }
        }
    }

    /// Releases everything kept (the app let go of the device).
    pub(crate) fn clear(&self) {
        let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(PoisonError::into_inner));
        drop(kept);
    }

    /// Bytes kept now.
    pub(crate) fn kept_bytes(&self) -> u64 {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).bytes
    }
}

//! Resource memory on the host: one byte array per resource, subresources tightly packed, the
//! samples of a multisampled texel stored next to each other.

use crate::budget::{zeroed, Budget, Reservation};
use asyncmd_ddi::{HeapId, ResourceId};
use asyncmd_types::{Error, PackedLayout, ResourceDesc, Result};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Room for one (offset, layout) pair per subresource, or `OutOfMemory`.
fn zeroed_layouts(n: usize) -> Result<Vec<(u64, PackedLayout)>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::out_of_memory(format!("CreateResource: {n} subresources")))?;
    let empty = PackedLayout { row_bytes: 0, rows: 0, depth: 0, block_bytes: 0, block_width: 0, block_height: 0 };
    v.resize(n, (0, empty));
    Ok(v)
}

/// What one resource tile maps to: a heap and a tile in it, or nothing.
pub(crate) type TileSlot = Option<(HeapId, u32)>;

/// A buffer or texture of the reference device.
pub(crate) struct RefResource {
    pub(crate) id: ResourceId,
    pub(crate) desc: ResourceDesc,
    pub(crate) samples: u32,
    /// Byte offset and packed shape of each subresource.
    pub(crate) subresources: Vec<(u64, PackedLayout)>,
    pub(crate) data: RwLock<Vec<u8>>,
    /// For reserved resources: the heap tile each resource tile maps to, or `None` (unmapped).
    pub(crate) tiles: Option<Mutex<Vec<TileSlot>>>,
    _memory: Reservation,
}

impl RefResource {
    pub(crate) fn new(id: ResourceId, desc: &ResourceDesc, reserved: bool, budget: &Arc<Budget>) -> Result<Self> {
        const API: &str = "CreateResource";
        let samples = desc.sample_desc.count.max(1);
        let mut subresources = zeroed_layouts(desc.subresource_count() as usize)?;
        let mut size = 0u64;
        for (index, slot) in (0..desc.subresource_count()).zip(subresources.iter_mut()) {
            let layout = desc
                .packed_layout(index)
                .ok_or_else(|| Error::unsupported(format!("{API}: format {} has no memory layout", desc.format)))?;
            *slot = (size, layout);
            size = layout
                .checked_size()
                .and_then(|s| s.checked_mul(samples as u64))
                .and_then(|s| s.checked_add(size))
                .ok_or_else(|| Error::out_of_memory(format!("{API}: the size does not fit in 64 bits")))?;
        }
        let tile_slots = if reserved { asyncmd_types::tile_count(desc) } else { 0 };
        let bookkeeping = tile_slots.saturating_mul(std::mem::size_of::<TileSlot>() as u64);
        let memory = budget.reserve(size.saturating_add(bookkeeping), API)?;
        let len =
            usize::try_from(size).map_err(|_| Error::out_of_memory(format!("{API}: larger than the address space")))?;
        let data = zeroed(len, API)?;
        let tiles = match reserved {
            true => Some(Mutex::new(zeroed(usize::try_from(tile_slots).unwrap_or(usize::MAX), API)?)),
            false => None,
        };
        Ok(Self { id, desc: *desc, samples, subresources, data: RwLock::new(data), tiles, _memory: memory })
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Vec<u8>> {
        self.data.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, Vec<u8>> {
        self.data.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Byte offset and shape of a subresource.
    pub(crate) fn subresource(&self, index: u32) -> Option<(u64, PackedLayout)> {
        self.subresources.get(index as usize).copied()
    }
}

/// Locks a source for reading and a destination for writing, in a fixed order so that two
/// queues copying in opposite directions cannot deadlock. When both are the same resource,
/// `f` gets a snapshot of the source.
pub(crate) fn with_src_dst<R>(src: &RefResource, dst: &RefResource, f: impl FnOnce(&[u8], &mut Vec<u8>) -> R) -> R {
    if std::ptr::eq(src, dst) {
        let mut d = dst.write();
        let snapshot = d.clone();
        let r = f(&snapshot, &mut d);
        dst.scrub_unmapped(&mut d);
        return r;
    }
    let r = if src.id < dst.id {
        let s = src.read();
        let mut d = dst.write();
        let r = f(&s, &mut d);
        dst.scrub_unmapped(&mut d);
        r
    } else {
        let mut d = dst.write();
        let s = src.read();
        let r = f(&s, &mut d);
        dst.scrub_unmapped(&mut d);
        r
    };
    r
}

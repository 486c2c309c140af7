//! Resource memory on the host: one byte array per resource, subresources tightly packed, the
//! samples of a multisampled texel stored next to each other.

use asyncmd_ddi::{HeapId, ResourceId};
use asyncmd_types::{Error, PackedLayout, ResourceDesc, Result};
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

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
}

impl RefResource {
    pub(crate) fn new(id: ResourceId, desc: &ResourceDesc, reserved: bool) -> Result<Self> {
        let samples = desc.sample_desc.count.max(1);
        let mut subresources = Vec::with_capacity(desc.subresource_count() as usize);
        let mut size = 0u64;
        for index in 0..desc.subresource_count() {
            let layout = desc.packed_layout(index).ok_or_else(|| {
                Error::unsupported(format!("CreateResource: format {} has no memory layout", desc.format))
            })?;
            subresources.push((size, layout));
            size = size
                .checked_add(layout.size() * samples as u64)
                .ok_or_else(|| Error::out_of_memory("CreateResource: size overflows"))?;
        }
        let len =
            usize::try_from(size).map_err(|_| Error::out_of_memory("CreateResource: larger than the address space"))?;
        let mut data = Vec::new();
        data.try_reserve_exact(len)
            .map_err(|_| Error::out_of_memory(format!("CreateResource: cannot allocate {size} bytes")))?;
        data.resize(len, 0);
        let tiles = reserved.then(|| Mutex::new(vec![None; asyncmd_types::tile_count(desc) as usize]));
        Ok(Self { id, desc: *desc, samples, subresources, data: RwLock::new(data), tiles })
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

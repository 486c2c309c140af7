//! Size-classed pools of the fallback's upload and VRAM staging buffers, sharing one budget for
//! buffers kept between uses. Buffers come back only after their allocator was reset (the GPU
//! is done with them); protected or unhealthy cases skip recycling.

use crate::resource::Resource;
use asyncmd_types::HeapType;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Bytes of buffers a device keeps for reuse, all pools together.
pub const POOL_BUDGET: u64 = 128 << 20;
/// The smallest size class.
const MIN_CLASS: u64 = 64 << 10;

/// The size class holding `size` bytes (a power of two, at least 64 KiB).
pub fn size_class(size: u64) -> u64 {
    size.max(MIN_CLASS).next_power_of_two()
}

#[derive(Default)]
struct Kept {
    buffers: HashMap<(HeapType, u64), Vec<Resource>>,
    bytes: u64,
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

    /// Keeps buffers for reuse while the budget allows; the rest are released.
    pub(crate) fn give_back(&self, buffers: Vec<Resource>) {
        let mut k = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        for b in buffers {
            let class = b.desc().width;
            if b.is_protected() || !b.desc().is_buffer() || class != size_class(class) || k.bytes + class > POOL_BUDGET
            {
                continue;
            }
            k.bytes += class;
            k.buffers.entry((b.heap_type(), class)).or_default().push(b);
        }
    }

    /// Bytes kept now.
    pub(crate) fn kept_bytes(&self) -> u64 {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).bytes
    }
}

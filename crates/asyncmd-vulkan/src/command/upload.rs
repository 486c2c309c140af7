//! Bytes a list's commands read from host memory (root constants past the push-constant bytes,
//! an indirect call's per-command constants): suballocated from upload chunks the list keeps
//! until its work is done, so that a dispatch costs no allocation of its own.

use super::{fail, VkCommandList};
use crate::memory::VkResource;
use ash::vk;
use asyncmd_types::Result;
use std::sync::Arc;

/// Bytes of a chunk; larger uploads get a chunk of their own size.
const CHUNK: u64 = 64 << 10;

/// The chunk being filled and the bytes of it used.
#[derive(Default)]
pub(crate) struct UploadArena {
    chunk: Option<(Arc<VkResource>, u64)>,
}

impl UploadArena {
    /// Forgets the chunk: the list no longer writes into it (its work may still read it, and
    /// the list's scratch keeps it for that).
    pub(crate) fn clear(&mut self) {
        self.chunk = None;
    }
}

impl VkCommandList {
    /// `len` bytes of upload memory at an offset aligned to `align`, written by `write`:
    /// (buffer, offset).
    pub(crate) fn upload(&mut self, len: u64, align: u64, write: impl FnOnce(&mut [u8])) -> Result<(vk::Buffer, u64)> {
        let align = align.max(4);
        let room = |c: &(Arc<VkResource>, u64)| {
            let at = c.1.checked_next_multiple_of(align)?;
            (at.checked_add(len)? <= c.0.desc.width).then_some(at)
        };
        let at = match self.upload.chunk.as_ref().and_then(room) {
            Some(at) => at,
            None => {
                let size = len.max(CHUNK);
                let chunk = Arc::new(VkResource::new(
                    &self.core,
                    &asyncmd_types::ResourceDesc::buffer(size),
                    asyncmd_types::HeapType::Upload,
                )?);
                // The list keeps every chunk until its work is done.
                self.scratch.push(chunk.clone());
                self.upload.chunk = Some((chunk, 0));
                0
            }
        };
        let Some((chunk, used)) = self.upload.chunk.as_mut() else {
            return Err(fail("an upload chunk vanished".into()));
        };
        let n = usize::try_from(len).map_err(|_| fail(format!("an upload of {len} bytes")))?;
        chunk.host_access(at, n, write)?;
        *used = at + len;
        let buffer = chunk.buffer().ok_or_else(|| fail("an upload chunk has no buffer".into()))?;
        Ok((buffer, at))
    }
}

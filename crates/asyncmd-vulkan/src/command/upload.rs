//! Memory a list's commands use for themselves: bytes they read from host memory (root
//! constants past the push-constant bytes, an indirect call's per-command constants) and bytes
//! the GPU writes and reads back within the list (an indirect call's group counts), each
//! suballocated from chunks the list keeps until its work is done, so that a dispatch costs no
//! allocation of its own.

use super::{fail, VkCommandList};
use crate::core::Core;
use crate::memory::VkResource;
use ash::vk;
use asyncmd_types::{ClearElement, HeapType, ResourceDesc, Result};
use std::sync::Arc;

/// Bytes of a chunk; larger requests get a chunk of their own size.
const CHUNK: u64 = 64 << 10;

/// A chunk being filled and the bytes of it used.
type Chunk = Option<(Arc<VkResource>, u64)>;

/// The chunks being filled: host-written (upload heap) and GPU-only (default heap); and the
/// last fill pattern written out whole, which the recording's next fills of it copy again.
#[derive(Default)]
pub(crate) struct Arenas {
    upload: Chunk,
    device: Chunk,
    /// The pattern, and where its repeats lie in upload memory: (buffer, offset, bytes).
    pattern: Option<(ClearElement, (vk::Buffer, u64, u64))>,
}

impl Arenas {
    /// Forgets the chunks: the list no longer writes into them (its work may still use them,
    /// and the list's scratch keeps them for that).
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }
}

/// `len` bytes at an offset aligned to `align` (at least 4) of `chunk`, or of a new chunk of
/// `heap` that `scratch` keeps: the chunk and the offset.
fn suballocate(
    core: &Arc<Core>,
    scratch: &mut Vec<Arc<VkResource>>,
    chunk: &mut Chunk,
    heap: HeapType,
    len: u64,
    align: u64,
) -> Result<(Arc<VkResource>, u64)> {
    let align = align.max(4);
    let room = |c: &(Arc<VkResource>, u64)| {
        let at = c.1.checked_next_multiple_of(align)?;
        (at.checked_add(len)? <= c.0.desc.width).then_some(at)
    };
    let at = match chunk.as_ref().and_then(room) {
        Some(at) => at,
        None => {
            let fresh = Arc::new(VkResource::new(core, &ResourceDesc::buffer(len.max(CHUNK)), heap)?);
            // The list keeps every chunk until its work is done.
            scratch.push(fresh.clone());
            *chunk = Some((fresh, 0));
            0
        }
    };
    let Some((c, used)) = chunk.as_mut() else {
        return Err(fail("a scratch chunk vanished".into()));
    };
    *used = at + len;
    Ok((c.clone(), at))
}

impl VkCommandList {
    /// `len` bytes of upload memory at an offset aligned to `align`, written by `write`:
    /// (buffer, offset).
    pub(crate) fn upload(&mut self, len: u64, align: u64, write: impl FnOnce(&mut [u8])) -> Result<(vk::Buffer, u64)> {
        let (chunk, at) =
            suballocate(&self.core, &mut self.scratch, &mut self.arenas.upload, HeapType::Upload, len, align)?;
        let n = usize::try_from(len).map_err(|_| fail(format!("an upload of {len} bytes")))?;
        chunk.host_access(at, n, write)?;
        let buffer = chunk.buffer().ok_or_else(|| fail("an upload chunk has no buffer".into()))?;
        Ok((buffer, at))
    }

    /// At least `want` bytes of whole repeats of `pattern` in upload memory (at most 1 MiB, and
    /// whole patterns): written once a recording and pattern, and given again to the fills of
    /// it that follow. (buffer, offset, bytes).
    pub(crate) fn pattern_repeats(&mut self, pattern: &ClearElement, want: u64) -> Result<(vk::Buffer, u64, u64)> {
        let len = pattern.as_bytes().len().max(1) as u64;
        let need = want.min(1 << 20).max(len).div_ceil(len) * len;
        if let Some((_, at)) = self.arenas.pattern.filter(|(p, at)| p == pattern && at.2 >= need) {
            return Ok(at);
        }
        let unit = pattern.as_bytes();
        let (buffer, offset) = self
            .upload(need, 16, |m| m.chunks_mut(unit.len().max(1)).for_each(|c| c.copy_from_slice(&unit[..c.len()])))?;
        self.arenas.pattern = Some((*pattern, (buffer, offset, need)));
        Ok((buffer, offset, need))
    }

    /// `len` bytes of device memory at an offset aligned to `align`, for the list's commands to
    /// write and read on the GPU (contents undefined): (buffer, offset, GPU address).
    pub(crate) fn device_scratch(&mut self, len: u64, align: u64) -> Result<(vk::Buffer, u64, u64)> {
        let (chunk, at) =
            suballocate(&self.core, &mut self.scratch, &mut self.arenas.device, HeapType::Default, len, align)?;
        let buffer = chunk.buffer().ok_or_else(|| fail("a scratch chunk has no buffer".into()))?;
        Ok((buffer, at, chunk.address() + at))
    }
}

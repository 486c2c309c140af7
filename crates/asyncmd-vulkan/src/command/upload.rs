//! Memory a list's commands use for themselves: bytes they read from host memory (root
//! constants past the push-constant bytes, an indirect call's per-command constants, fill
//! patterns, the buffer kernels' tables) and bytes the GPU writes and reads back within the
//! list (an indirect call's group counts), each suballocated from chunks the list keeps until
//! its work is done, so that a command costs no allocation of its own. Chunks of finished
//! recordings go back to the device ([`SpareChunks`]) for the next recordings: once a device
//! has run a few lists, a list costs no allocation for them either.

use super::{fail, VkCommandList};
use crate::core::Core;
use crate::memory::VkResource;
use ash::vk;
use asyncmd_types::{ClearElement, HeapType, ResourceDesc, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Bytes of a chunk; larger requests get a chunk of their own size.
const CHUNK: u64 = 64 << 10;

/// A chunk being filled and the bytes of it used.
type Chunk = Option<(Arc<VkResource>, u64)>;

/// Chunks of one heap type, made by a list and given back with its recording.
pub(crate) type Owned = Vec<(HeapType, Arc<VkResource>)>;

/// Spare chunks a device keeps at most: a frame's lists in flight on every queue.
const KEPT_CHUNKS: usize = 64;

/// The device's chunks that no recording uses any more, each [`CHUNK`] bytes.
#[derive(Default)]
pub(crate) struct SpareChunks {
    idle: Mutex<Owned>,
    /// Chunks made so far (`VulkanDevice::scratch_chunks_created`).
    created: AtomicU64,
}

impl SpareChunks {
    fn take(&self, heap: HeapType) -> Option<Arc<VkResource>> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let i = idle.iter().rposition(|(h, _)| *h == heap)?;
        Some(idle.swap_remove(i).1)
    }

    /// Takes back the chunks of a recording the GPU is done with (or never ran), while there
    /// is room; the others are freed.
    pub(crate) fn give_back(&self, chunks: Owned) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        for c in chunks {
            if idle.len() < KEPT_CHUNKS && idle.try_reserve(1).is_ok() {
                idle.push(c);
            }
        }
    }

    /// Chunks made so far.
    pub(crate) fn created(&self) -> u64 {
        self.created.load(Ordering::Relaxed)
    }
}

/// The chunks being filled: host-written (upload heap) and GPU-only (default heap); and the
/// last fill pattern written out whole, which the recording's next fills of it copy again.
#[derive(Default)]
pub(crate) struct Arenas {
    upload: Chunk,
    device: Chunk,
    /// The pattern, and where its repeats lie in upload memory: (buffer, offset, bytes).
    pattern: Option<(ClearElement, (vk::Buffer, u64, u64))>,
    /// The chunks of [`CHUNK`] bytes this recording took (larger ones go to the list's scratch).
    owned: Owned,
}

impl Arenas {
    /// Ends the recording's use of its chunks: they are returned, for the recording to keep
    /// until its work is done and then give back.
    pub(crate) fn finish(&mut self) -> Owned {
        std::mem::take(self).owned
    }

    /// `len` bytes at an offset aligned to `align` (at least 4) of the chunk of `heap` being
    /// filled, or of a new chunk: a spare one or a new one of [`CHUNK`] bytes that the recording
    /// owns, or one of its own size that `scratch` keeps where `len` is larger. The chunk and
    /// the offset.
    fn suballocate(
        &mut self,
        core: &Arc<Core>,
        spare: &SpareChunks,
        scratch: &mut Vec<Arc<VkResource>>,
        heap: HeapType,
        len: u64,
        align: u64,
    ) -> Result<(Arc<VkResource>, u64)> {
        let chunk = if heap == HeapType::Upload { &mut self.upload } else { &mut self.device };
        let align = align.max(4);
        let room = |c: &(Arc<VkResource>, u64)| {
            let at = c.1.checked_next_multiple_of(align)?;
            (at.checked_add(len)? <= c.0.desc.width).then_some(at)
        };
        let at = match chunk.as_ref().and_then(room) {
            Some(at) => at,
            None if len > CHUNK => {
                let fresh = Arc::new(VkResource::new(core, &ResourceDesc::buffer(len), heap)?);
                // The list keeps every chunk until its work is done.
                scratch.push(fresh.clone());
                *chunk = Some((fresh, 0));
                0
            }
            None => {
                let fresh = match spare.take(heap) {
                    Some(c) => c,
                    None => {
                        spare.created.fetch_add(1, Ordering::Relaxed);
                        Arc::new(VkResource::new(core, &ResourceDesc::buffer(CHUNK), heap)?)
                    }
                };
                self.owned.push((heap, fresh.clone()));
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
}

impl VkCommandList {
    /// `len` bytes of upload memory at an offset aligned to `align`, written by `write`:
    /// (buffer, offset).
    pub(crate) fn upload(&mut self, len: u64, align: u64, write: impl FnOnce(&mut [u8])) -> Result<(vk::Buffer, u64)> {
        self.upload_addressed(len, align, write).map(|(buffer, at, _)| (buffer, at))
    }

    /// [`VkCommandList::upload`], with the bytes' GPU address: (buffer, offset, address).
    pub(crate) fn upload_addressed(
        &mut self,
        len: u64,
        align: u64,
        write: impl FnOnce(&mut [u8]),
    ) -> Result<(vk::Buffer, u64, u64)> {
        let (chunk, at) =
            self.arenas.suballocate(&self.core, &self.spare, &mut self.scratch, HeapType::Upload, len, align)?;
        let n = usize::try_from(len).map_err(|_| fail(format!("an upload of {len} bytes")))?;
        chunk.host_access(at, n, write)?;
        let buffer = chunk.buffer().ok_or_else(|| fail("an upload chunk has no buffer".into()))?;
        Ok((buffer, at, chunk.address() + at))
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
        let (buffer, offset) = self.upload(need, 16, |m| asyncmd_types::fill_repeating(m, pattern.as_bytes()))?;
        self.arenas.pattern = Some((*pattern, (buffer, offset, need)));
        Ok((buffer, offset, need))
    }

    /// `len` bytes of device memory at an offset aligned to `align`, for the list's commands to
    /// write and read on the GPU (contents undefined): (buffer, offset, GPU address).
    pub(crate) fn device_scratch(&mut self, len: u64, align: u64) -> Result<(vk::Buffer, u64, u64)> {
        let (chunk, at) =
            self.arenas.suballocate(&self.core, &self.spare, &mut self.scratch, HeapType::Default, len, align)?;
        let buffer = chunk.buffer().ok_or_else(|| fail("a scratch chunk has no buffer".into()))?;
        Ok((buffer, at, chunk.address() + at))
    }
}

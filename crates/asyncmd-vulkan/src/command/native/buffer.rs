//! Native buffer copies, fills and tile copies: batches of the buffer kernels where compute
//! wins or under predication, otherwise transfer commands with a barrier only between parts
//! that overlap.

use super::batch::{CopyPart, FillPart};
use crate::command::{fail, VkCommandList};
use ash::vk;
use asyncmd_ddi::{Command, ResourceId, TileCopy};
use asyncmd_types::{BufferCopyRegion, ClearElement, ResolvedFill, Result, TileCopyFlags, TILE_SIZE_IN_BYTES};

/// Byte ranges written so far in one call, per buffer, to find parts that overlap: disjoint
/// ranges ordered by start, so each check looks at two neighbours. The first write is kept
/// inline: a call of one part (the common call) allocates nothing.
#[derive(Default)]
struct Written {
    first: Option<(vk::Buffer, u64, u64)>,
    rest: std::collections::HashMap<vk::Buffer, std::collections::BTreeMap<u64, u64>>,
}

impl Written {
    /// Records a write; returns whether it overlaps an earlier one (and then starts afresh).
    fn overlaps(&mut self, buffer: vk::Buffer, start: u64, len: u64) -> bool {
        let end = start.saturating_add(len);
        if self.rest.is_empty() {
            match self.first.take() {
                None => {
                    self.first = Some((buffer, start, end));
                    return false;
                }
                Some((b, s, e)) => {
                    self.rest.entry(b).or_default().insert(s, e);
                }
            }
        }
        let ranges = self.rest.entry(buffer).or_default();
        let before = ranges.range(..end).next_back().is_some_and(|(_, &e)| e > start);
        if before {
            self.rest.clear();
            self.first = Some((buffer, start, end));
            return true;
        }
        ranges.insert(start, end);
        false
    }
}

/// The largest single copy that takes `vkCmdCopyBuffer` where the buffer kernels run: below
/// it the kernel's dispatch costs more than the copy (one region on an H100, GPU µs: 4 KiB
/// and 16 KiB 3.7 by transfer against 4.2 by kernel; 64 KiB 4.8 against 4.2).
const SMALL_COPY: u64 = 16 << 10;

/// The largest single fill of a pattern `vkCmdFillBuffer` cannot write that takes a copy from
/// the list's upload memory where the buffer kernels run: the legacy app's form (a copy from a
/// buffer of the pattern). One 16-byte pattern fill on an H100, GPU ms: 16 KiB 0.0038 by the
/// copy against 0.0044–0.0045 by the fill kernel; 4 KiB 0.0037–0.0038 by the copy or inline
/// (`vkCmdUpdateBuffer`); 64 KiB 0.0044 by the kernel, as the legacy copy (`docs/performance.md`).
const SMALL_FILL: u64 = 16 << 10;

/// Whether one part of `bytes` takes a transfer command rather than a kernel: at most `limit`
/// bytes, where the kernels run by measurement, not where tests force them
/// (`ComputeCopies::Always`, whose crossover is 0).
fn small_part(crossover: Option<u64>, bytes: u64, limit: u64) -> bool {
    crossover != Some(0) && bytes <= limit
}

/// A region of a `CopyBufferRegions` call kept for the batch of a run of calls: the kernel's
/// part, and the buffers and offsets a transfer command takes where it is the only one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingCopy {
    part: CopyPart,
    src: vk::Buffer,
    dst: vk::Buffer,
    src_offset: u64,
    dst_offset: u64,
}

/// A fill of a `FillBuffers` call kept for the batch of a run of calls: the kernel's part, and
/// the buffer and offset a transfer command takes where it is the only one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingFill {
    dst: u64,
    bytes: u64,
    pattern: ClearElement,
    buffer: vk::Buffer,
    offset: u64,
}

impl VkCommandList {
    /// Records the copies of the run of `CopyBufferRegions` calls since the last other command
    /// as one batch: Async Commands are unordered among themselves, so 10,000 calls of one
    /// region cost about what one call of 10,000 regions does. One small part alone takes
    /// `vkCmdCopyBuffer`, as the legacy copy does at that size.
    pub(crate) fn flush_copies(&mut self) -> Result<()> {
        self.flush_pending(|l| &mut l.pending_copies, Self::flush_copies_of)
    }

    /// Records the parts the vector `pending` picks holds with `flush`, then gives it back
    /// emptied: the next run of calls pushes into its capacity, with no allocation per list.
    fn flush_pending<T>(
        &mut self,
        pending: fn(&mut Self) -> &mut Vec<T>,
        flush: fn(&mut Self, &[T]) -> Result<()>,
    ) -> Result<()> {
        if pending(self).is_empty() {
            return Ok(());
        }
        let mut parts = std::mem::take(pending(self));
        let done = flush(self, &parts);
        parts.clear();
        *pending(self) = parts;
        done
    }

    fn flush_copies_of(&mut self, pending: &[PendingCopy]) -> Result<()> {
        if let [p] = pending[..] {
            let crossover = self.core.compute_copy_min.get().copied().flatten();
            if !self.is_predicated() && small_part(crossover, p.part.bytes, SMALL_COPY) {
                let region =
                    [vk::BufferCopy { src_offset: p.src_offset, dst_offset: p.dst_offset, size: p.part.bytes }];
                // SAFETY: live buffers kept by this list; the runtime checked the range.
                unsafe { self.core.device.cmd_copy_buffer(self.cb, p.src, p.dst, &region) };
                return Ok(());
            }
        }
        let parts: Vec<CopyPart> = pending.iter().map(|p| p.part).collect();
        self.copy_batch(&parts)
    }

    /// Records the fills of the run of `FillBuffers` calls since the last other command as one
    /// batch, as `flush_copies` does copies. One small fill of a pattern `vkCmdFillBuffer`
    /// cannot write (more than one dword) alone is a copy of the pattern from upload memory,
    /// as one small copy takes a transfer command.
    pub(crate) fn flush_fills(&mut self) -> Result<()> {
        self.flush_pending(|l| &mut l.pending_fills, Self::flush_fills_of)
    }

    fn flush_fills_of(&mut self, pending: &[PendingFill]) -> Result<()> {
        if let [p] = pending[..] {
            let crossover = self.core.compute_copy_min.get().copied().flatten();
            if !self.is_predicated()
                && small_part(crossover, p.bytes, SMALL_FILL)
                && p.pattern.dwords().is_none_or(|(_, n)| n > 1)
            {
                return self.fill_by_transfer(p.buffer, p.offset, &p.pattern, p.bytes);
            }
        }
        let parts: Vec<FillPart> =
            pending.iter().map(|p| FillPart { dst: p.dst, bytes: p.bytes, pattern: &p.pattern }).collect();
        self.fill_batch(&parts)
    }

    pub(super) fn copy_buffer_regions(&mut self, regions: &[BufferCopyRegion<ResourceId>]) -> Result<()> {
        let aligned = regions.iter().all(|r| (r.source_offset | r.dest_offset | r.size) % 16 == 0);
        if aligned && self.buffer_kernels_on() {
            // Kept for one batch with the calls that follow (`flush_copies`).
            for r in regions.iter().filter(|r| r.size > 0) {
                let (s, d) = (self.resource(r.source)?, self.resource(r.dest)?);
                let part =
                    CopyPart { src: s.address() + r.source_offset, dst: d.address() + r.dest_offset, bytes: r.size };
                let (src, dst) = (self.buffer_of(r.source)?, self.buffer_of(r.dest)?);
                self.pending_copies.push(PendingCopy {
                    part,
                    src,
                    dst,
                    src_offset: r.source_offset,
                    dst_offset: r.dest_offset,
                });
            }
            return Ok(());
        }
        let mut written = Written::default();
        for r in regions {
            let (src, dst) = (self.buffer_of(r.source)?, self.buffer_of(r.dest)?);
            if r.size == 0 {
                continue;
            }
            self.check_not_predicated("CopyBufferRegions")?;
            if written.overlaps(dst, r.dest_offset, r.size) {
                self.transfer_barrier();
            }
            let region = [vk::BufferCopy { src_offset: r.source_offset, dst_offset: r.dest_offset, size: r.size }];
            // SAFETY: live buffers kept by this list; the runtime checked the ranges.
            unsafe { self.core.device.cmd_copy_buffer(self.cb, src, dst, &region) };
        }
        Ok(())
    }

    /// Where compute wins, buffers whose sizes are whole 16-byte elements go into one batch
    /// copy and textures the image kernels can copy are dispatches of them; the rest take the
    /// legacy copy.
    pub(super) fn copy_resources(&mut self, pairs: &[(ResourceId, ResourceId)]) -> Result<()> {
        let mut parts = Vec::new();
        let mut rest = Vec::new();
        for &(dest, source) in pairs {
            let (d, s) = (self.resource(dest)?, self.resource(source)?);
            let bytes = d.desc.width.min(s.desc.width);
            match (d.buffer(), s.buffer()) {
                (Some(_), Some(_)) if bytes % 16 == 0 && self.buffer_kernels_on() => {
                    parts.push(CopyPart { src: s.address(), dst: d.address(), bytes })
                }
                _ => rest.push((dest, source)),
            }
        }
        self.copy_batch(&parts)?;
        for (dest, source) in rest {
            if !self.copy_texture_resource_by_kernel(dest, source)? {
                self.record_command(Command::CopyResource { dest, source })?;
            }
        }
        Ok(())
    }

    /// Tiles of a reserved buffer are one batch copy where compute wins (unmapped tiles read
    /// zero and drop writes through device addresses as through transfers); the rest are the
    /// legacy copy.
    pub(super) fn copy_tiles_async(&mut self, t: TileCopy) -> Result<()> {
        let (res, linear) = (self.resource(t.resource)?, self.resource(t.buffer)?);
        if res.buffer().is_none() || !self.buffer_kernels_on() {
            return self.record_command(Command::CopyTiles(t));
        }
        let to_buffer = t.flags.contains(TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER);
        let mut parts: Vec<CopyPart> = Vec::new();
        for (n, tile) in crate::command::tiles_of(&res.desc, &t)?.into_iter().enumerate() {
            let at = tile * TILE_SIZE_IN_BYTES;
            let bytes = TILE_SIZE_IN_BYTES.min(res.desc.width.saturating_sub(at));
            let (tiled, plain) =
                (res.address() + at, linear.address() + t.buffer_offset + n as u64 * TILE_SIZE_IN_BYTES);
            let (src, dst) = if to_buffer { (tiled, plain) } else { (plain, tiled) };
            match parts.last_mut() {
                // Consecutive tiles are one part.
                Some(p) if p.src + p.bytes == src && p.dst + p.bytes == dst && p.bytes % TILE_SIZE_IN_BYTES == 0 => {
                    p.bytes += bytes
                }
                _ => parts.push(CopyPart { src, dst, bytes }),
            }
        }
        if parts.iter().any(|p| (p.src | p.dst | p.bytes) % 16 != 0) {
            return self.record_command(Command::CopyTiles(t));
        }
        self.copy_batch(&parts)
    }

    pub(super) fn fill_buffers(&mut self, fills: &[ResolvedFill<ResourceId>]) -> Result<()> {
        // (buffer, offset, pattern, bytes) of each fill; validation resolved the pattern and
        // left out fills that write nothing.
        let mut parts = Vec::with_capacity(fills.len());
        for f in fills {
            parts.push((self.resource(f.buffer)?, f.offset, f.pattern, f.bytes));
        }
        if parts.is_empty() {
            return Ok(());
        }
        let aligned = parts.iter().all(|(_, o, _, b)| o % 4 == 0 && b % 4 == 0);
        if aligned && self.buffer_kernels_on() {
            // Kept for one batch with the calls that follow (`flush_fills`).
            for (buffer, offset, pattern, bytes) in parts {
                let vb =
                    buffer.buffer().ok_or_else(|| fail("FillBuffers: a texture where a buffer was expected".into()))?;
                let dst = buffer.address() + offset;
                self.pending_fills.push(PendingFill { dst, bytes, pattern, buffer: vb, offset });
            }
            return Ok(());
        }
        self.check_not_predicated("FillBuffers")?;
        let mut written = Written::default();
        for (buffer, offset, pattern, bytes) in parts {
            let vb = buffer.buffer().unwrap_or_default();
            if written.overlaps(vb, offset, bytes) {
                self.transfer_barrier();
            }
            self.fill_by_transfer(vb, offset, &pattern, bytes)?;
        }
        Ok(())
    }

    /// Fills `bytes` of `buffer` from `offset` with transfer commands: `vkCmdFillBuffer` for a
    /// dword pattern, otherwise copies from a chunk of whole patterns in upload memory.
    fn fill_by_transfer(&mut self, buffer: vk::Buffer, offset: u64, pattern: &ClearElement, bytes: u64) -> Result<()> {
        let d = self.core.device.clone();
        let word = pattern.dwords().filter(|&(_, n)| n == 1 && offset.is_multiple_of(4) && bytes.is_multiple_of(4));
        if let Some(([data, ..], _)) = word {
            // NVIDIA fills a wrong range above 4096 bytes from an offset that is not
            // 16-aligned: fill up to the next 16-byte boundary first.
            let nvidia = self.core.props.vendor_id == 0x10DE;
            let mut spans = vec![(offset, bytes)];
            if nvidia && bytes >= 4096 && !offset.is_multiple_of(16) {
                let head = 16 - offset % 16;
                spans = vec![(offset, head), (offset + head, bytes - head)];
            }
            for (o, n) in spans {
                // SAFETY: a live buffer with TRANSFER_DST usage; 4-aligned offset and size.
                unsafe { d.cmd_fill_buffer(self.cb, buffer, o, n, data) };
            }
            return Ok(());
        }
        // Whole patterns, up to 1 MiB, in the list's upload memory, copied as often as needed.
        let (src, at, chunk) = self.pattern_repeats(pattern, bytes)?;
        let mut done = 0;
        let mut regions = Vec::new();
        while done < bytes {
            let size = chunk.min(bytes - done);
            regions.push(vk::BufferCopy { src_offset: at, dst_offset: offset + done, size });
            done += size;
        }
        // SAFETY: live buffers; regions read one chunk and write disjoint destination ranges.
        unsafe { d.cmd_copy_buffer(self.cb, src, buffer, &regions) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

    #[test]
    fn small_single_parts_take_transfers_unless_the_kernels_are_forced() {
        // The H200's measured crossover is 256 KiB; `Always` makes it 0; CPU devices have none.
        for crossover in [Some(256 << 10), None] {
            assert!(small_part(crossover, 4 << 10, SMALL_COPY));
            assert!(small_part(crossover, SMALL_COPY, SMALL_COPY));
            assert!(!small_part(crossover, SMALL_COPY + 1, SMALL_COPY));
            assert!(!small_part(crossover, SMALL_FILL + 16, SMALL_FILL));
        }
        assert!(!small_part(Some(0), 16, SMALL_COPY));
    }

    #[test]
    fn overlapping_writes_are_found_and_start_a_new_set() {
        let (a, b) = (vk::Buffer::from_raw(1), vk::Buffer::from_raw(2));
        let mut w = Written::default();
        assert!(!w.overlaps(a, 0, 16));
        assert!(!w.overlaps(a, 32, 16));
        assert!(!w.overlaps(a, 16, 16), "touching ranges do not overlap");
        assert!(!w.overlaps(b, 0, 64), "another buffer");
        assert!(w.overlaps(a, 40, 4));
        // After an overlap only that write is remembered.
        assert!(!w.overlaps(a, 0, 16));
        assert!(w.overlaps(a, 42, 1));
        assert!(!w.overlaps(b, 10, 100), "the set started afresh");
    }
}

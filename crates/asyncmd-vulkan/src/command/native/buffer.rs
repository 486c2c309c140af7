//! Native buffer copies, fills and tile copies: batches of the buffer kernels where compute
//! wins or under predication, otherwise transfer commands with a barrier only between parts
//! that overlap.

use super::batch::{CopyPart, FillPart};
use crate::command::{fail, VkCommandList};
use ash::vk;
use asyncmd_ddi::{Command, ResourceId, TileCopy};
use asyncmd_types::{BufferCopyRegion, ClearElement, ResolvedFill, Result, TileCopyFlags, TILE_SIZE_IN_BYTES};

/// Byte ranges written since the last barrier of one call, to find parts that overlap. A few
/// are compared one by one from a vector the list keeps, so that a call of a few parts
/// allocates nothing once the list has recorded one; beyond [`Written::FEW`] they move to
/// disjoint ranges per buffer ordered by start, where each check looks at one neighbour.
#[derive(Default)]
pub(crate) struct Written {
    few: Vec<(vk::Buffer, u64, u64)>,
    many: std::collections::HashMap<vk::Buffer, std::collections::BTreeMap<u64, u64>>,
}

impl Written {
    /// Writes compared one by one: a pass over them costs less than the ordered maps' lookups
    /// and allocations.
    const FEW: usize = 32;

    /// Forgets every write: a new call, or a barrier.
    pub(crate) fn clear(&mut self) {
        self.few.clear();
        self.many.clear();
    }

    /// Records a write; returns whether it overlaps an earlier one (and then starts afresh).
    fn overlaps(&mut self, buffer: vk::Buffer, start: u64, len: u64) -> bool {
        let end = start.saturating_add(len);
        let hit = if self.many.is_empty() {
            self.few.iter().any(|&(b, s, e)| b == buffer && s < end && start < e)
        } else {
            // Disjoint ranges: only the last one starting before `end` can reach `start`.
            self.many.get(&buffer).is_some_and(|r| r.range(..end).next_back().is_some_and(|(_, &e)| e > start))
        };
        if hit {
            self.clear();
        }
        if self.many.is_empty() && self.few.len() < Self::FEW {
            self.few.push((buffer, start, end));
        } else {
            for (b, s, e) in self.few.drain(..) {
                self.many.entry(b).or_default().insert(s, e);
            }
            self.many.entry(buffer).or_default().insert(start, end);
        }
        hit
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

/// The smallest part of a run of dword-pattern fills, all that large, that takes
/// `vkCmdFillBuffer` rather than the batch kernel, where the driver's own command writes as fast
/// or faster (H100, GPU ms, three runs of one call: 16 fills × 1 MiB 0.0098–0.0100 by `vkCmdFillBuffer`
/// against 0.0101–0.0102 by the kernel; H200, from 256 MiB, 4.21–4.42 TB/s against 4.03–4.38);
/// below, the kernel's shared grid wins (64 × 64 KiB: 0.0148 against 0.0089). Between 64 KiB
/// and 1 MiB the crossover was not measured.
const LARGE_FILL: u64 = 1 << 20;

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
        let crossover = self.core.compute_copy_min.get().copied().flatten();
        let large_words = |p: &PendingFill| {
            p.bytes >= LARGE_FILL
                && p.offset.is_multiple_of(4)
                && p.bytes.is_multiple_of(4)
                && p.pattern.dwords().is_some_and(|(_, n)| n == 1)
        };
        if !self.is_predicated() && crossover != Some(0) && pending.iter().all(large_words) {
            return self.fills_by_transfer(pending);
        }
        if let [p] = pending[..] {
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

    /// `vkCmdFillBuffer` for each of `pending`, with a barrier only between fills that overlap.
    fn fills_by_transfer(&mut self, pending: &[PendingFill]) -> Result<()> {
        self.with_written(|l, written| {
            pending.iter().try_for_each(|p| l.fill_after_overlaps(written, p.buffer, p.offset, &p.pattern, p.bytes))
        })
    }

    /// Runs `record` with the list's overlap set, emptied: the writes of one call's transfer
    /// commands (the set is kept in the list for its capacity).
    fn with_written(&mut self, record: impl FnOnce(&mut Self, &mut Written) -> Result<()>) -> Result<()> {
        let mut written = std::mem::take(&mut self.written);
        written.clear();
        let recorded = record(self, &mut written);
        self.written = written;
        recorded
    }

    /// One transfer fill, after a barrier where it overlaps a fill of `written`.
    fn fill_after_overlaps(
        &mut self,
        written: &mut Written,
        buffer: vk::Buffer,
        offset: u64,
        pattern: &ClearElement,
        bytes: u64,
    ) -> Result<()> {
        if written.overlaps(buffer, offset, bytes) {
            self.transfer_barrier();
        }
        self.fill_by_transfer(buffer, offset, pattern, bytes)
    }

    pub(super) fn copy_buffer_regions(&mut self, regions: &[BufferCopyRegion<ResourceId>]) -> Result<()> {
        let aligned = regions.iter().all(|r| (r.source_offset | r.dest_offset | r.size) % 16 == 0);
        if aligned && self.buffer_kernels_on() {
            let not_buffer = || fail("CopyBufferRegions: a texture where a buffer was expected".into());
            // Kept for one batch with the calls that follow (`flush_copies`).
            for r in regions.iter().filter(|r| r.size > 0) {
                let (s, d) = (self.resource(r.source)?, self.resource(r.dest)?);
                let part =
                    CopyPart { src: s.address() + r.source_offset, dst: d.address() + r.dest_offset, bytes: r.size };
                let (src, dst) = (s.buffer().ok_or_else(not_buffer)?, d.buffer().ok_or_else(not_buffer)?);
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
        self.with_written(|l, written| l.copy_regions_by_transfer(regions, written))
    }

    /// [`VkCommandList::copy_buffer_regions`] as `vkCmdCopyBuffer`s, with a barrier before each
    /// region that overlaps one written since the last.
    fn copy_regions_by_transfer(
        &mut self,
        regions: &[BufferCopyRegion<ResourceId>],
        written: &mut Written,
    ) -> Result<()> {
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
        // Validation resolved each pattern and left out fills that write nothing.
        if fills.is_empty() {
            return Ok(());
        }
        let not_buffer = || fail("FillBuffers: a texture where a buffer was expected".into());
        let aligned = fills.iter().all(|f| f.offset % 4 == 0 && f.bytes % 4 == 0);
        if aligned && self.buffer_kernels_on() {
            // Kept for one batch with the calls that follow (`flush_fills`).
            for f in fills {
                let buffer = self.resource(f.buffer)?;
                let vb = buffer.buffer().ok_or_else(not_buffer)?;
                let dst = buffer.address() + f.offset;
                self.pending_fills.push(PendingFill {
                    dst,
                    bytes: f.bytes,
                    pattern: f.pattern,
                    buffer: vb,
                    offset: f.offset,
                });
            }
            return Ok(());
        }
        self.check_not_predicated("FillBuffers")?;
        self.with_written(|l, written| {
            fills.iter().try_for_each(|f| {
                let vb = l.resource(f.buffer)?.buffer().ok_or_else(not_buffer)?;
                l.fill_after_overlaps(written, vb, f.offset, &f.pattern, f.bytes)
            })
        })
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
            let mut spans: smallvec::SmallVec<[(u64, u64); 2]> = smallvec::smallvec![(offset, bytes)];
            if nvidia && bytes >= 4096 && !offset.is_multiple_of(16) {
                let head = 16 - offset % 16;
                spans = smallvec::smallvec![(offset, head), (offset + head, bytes - head)];
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
        let mut regions: smallvec::SmallVec<[vk::BufferCopy; 4]> = smallvec::SmallVec::new();
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

    #[test]
    fn many_writes_are_checked_as_ordered_ranges_with_the_same_answers() {
        let (a, b) = (vk::Buffer::from_raw(1), vk::Buffer::from_raw(2));
        let mut w = Written::default();
        // Every other 16-byte range of `a`, backwards, twice the vector's share.
        let n = 2 * Written::FEW as u64;
        for i in (0..n).rev() {
            assert!(!w.overlaps(a, 32 * i, 16), "range {i}");
        }
        assert!(!w.many.is_empty(), "past FEW the ranges moved to the maps");
        assert!(!w.overlaps(a, 16, 16), "a gap between two ranges");
        assert!(!w.overlaps(b, 0, 1 << 20), "another buffer");
        assert!(w.overlaps(a, 32 * 40 + 15, 2), "the end of range 40");
        // The set restarted with that write alone, in the vector.
        assert!(w.many.is_empty() && w.few.len() == 1);
        assert!(!w.overlaps(a, 32 * 41, 16));
        assert!(w.overlaps(a, 32 * 40, 16));
    }
}

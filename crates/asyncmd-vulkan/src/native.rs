//! The native Async Commands on Vulkan: copies, resolves and fills (texture clears are in
//! `native_clear`, bound clears in `native_bound_clear`).
//!
//! On devices where compute copies win (measured at open), `CopyBufferRegions` and `FillBuffers`
//! become **one dispatch** over a table of all their parts in device memory, which is where the
//! GPU overlaps them (transfer commands run one after another on the H200). Elsewhere (lavapipe)
//! they are transfer commands with no barriers between parts, except where a part writes bytes
//! an earlier part of the call wrote (the result is then one of the allowed orders, and
//! synchronization validation stays clean). Texture copies, tiles and resolves use the legacy
//! recordings, one of the orders the API allows.

use crate::command::VkCommandList;
use crate::memory::VkResource;
use ash::vk;
use asyncmd_ddi::{Command, ResourceId};
use asyncmd_types::{BufferCopyRegion, Error, HeapType, MessageId, ResolvedFill, ResourceDesc, Result};
use std::sync::Arc;

fn fail(text: String) -> Error {
    Error::fail(MessageId::DeviceUnsupported, text)
}

/// Byte ranges written so far in one call, per buffer, to find parts that overlap: disjoint
/// ranges ordered by start, so each check looks at two neighbours.
#[derive(Default)]
struct Written(std::collections::HashMap<vk::Buffer, std::collections::BTreeMap<u64, u64>>);

impl Written {
    /// Records a write; returns whether it overlaps an earlier one (and then starts afresh).
    fn overlaps(&mut self, buffer: vk::Buffer, start: u64, len: u64) -> bool {
        let end = start.saturating_add(len);
        let ranges = self.0.entry(buffer).or_default();
        let before = ranges.range(..end).next_back().is_some_and(|(_, &e)| e > start);
        if before {
            self.0.clear();
            self.0.entry(buffer).or_default().insert(start, end);
            return true;
        }
        ranges.insert(start, end);
        false
    }
}

impl VkCommandList {
    /// A host-visible table buffer holding `bytes`, kept with the list.
    pub(crate) fn table(&mut self, bytes: &[u8]) -> Result<Arc<VkResource>> {
        let t =
            Arc::new(VkResource::new(&self.core, &ResourceDesc::buffer(bytes.len().max(16) as u64), HeapType::Upload)?);
        t.host_access(0, bytes.len(), |m| m.copy_from_slice(bytes))?;
        self.scratch.push(t.clone());
        Ok(t)
    }

    pub(crate) fn transfer_barrier(&self) {
        self.memory_barrier(
            vk::PipelineStageFlags2::ALL_TRANSFER,
            vk::AccessFlags2::TRANSFER_WRITE,
            vk::PipelineStageFlags2::ALL_TRANSFER,
            vk::AccessFlags2::TRANSFER_WRITE | vk::AccessFlags2::TRANSFER_READ,
        );
    }

    pub(crate) fn native(&mut self, c: Command) -> Result<()> {
        match c {
            Command::CopyBufferRegions(regions) => self.copy_buffer_regions(&regions),
            Command::FillBuffers(fills) => self.fill_buffers(&fills),
            Command::ClearTextureSubresources(clears) => self.clear_texture_subresources(&clears),
            Command::ClearBoundRenderTargetViews { mask, values, regions } => {
                self.clear_bound_rtvs(mask, &values, &regions)
            }
            Command::ClearBoundDepthStencilView { flags, depth, stencil, regions } => {
                self.clear_bound_dsv_native(flags, depth, stencil, regions.as_deref())
            }
            Command::CopyTextureRegions(descs) => {
                Command::texture_copies(&descs).try_for_each(|c| self.record_command(c))
            }
            Command::CopyResources(pairs) => pairs
                .into_iter()
                .try_for_each(|(dest, source)| self.record_command(Command::CopyResource { dest, source })),
            Command::CopyTilesAsync(t) => self.record_command(Command::CopyTiles(t)),
            Command::ResolveSubresourceRegionAsync(r) => self.record_command(Command::ResolveSubresourceRegion(r)),
            Command::ResolveQueryDataAsync(q) => self.record_command(Command::ResolveQueryData(q)),
            other => Err(fail(format!("{}: not an Async Command", other.name()))),
        }
    }

    fn copy_buffer_regions(&mut self, regions: &[BufferCopyRegion<ResourceId>]) -> Result<()> {
        self.check_not_predicated("CopyBufferRegions")?;
        let aligned = regions.iter().all(|r| (r.source_offset | r.dest_offset | r.size) % 16 == 0);
        if aligned && self.copies_in_compute() && !regions.is_empty() {
            let mut table = Vec::with_capacity(regions.len() * 32);
            let mut largest = 0;
            for r in regions {
                let (s, d) = (self.resource(r.source)?, self.resource(r.dest)?);
                let count = r.size / 16;
                largest = largest.max(count);
                table.extend((s.address() + r.source_offset).to_le_bytes());
                table.extend((d.address() + r.dest_offset).to_le_bytes());
                table.extend((count.min(u32::MAX as u64) as u32).to_le_bytes());
                table.extend([0u8; 12]);
            }
            let t = self.table(&table)?;
            let meta = self.core.meta()?;
            let x = largest.div_ceil(256).clamp(1, 1024) as u32;
            for first in (0..regions.len()).step_by(65535) {
                let rows = (regions.len() - first).min(65535) as u32;
                meta.copy_buffer_batch.dispatch_2d(self.cb, [t.address(), first as u64, 0], (x, rows));
            }
            return Ok(());
        }
        let mut written = Written::default();
        for r in regions {
            let (src, dst) = (self.buffer_of(r.source)?, self.buffer_of(r.dest)?);
            if r.size == 0 {
                continue;
            }
            if written.overlaps(dst, r.dest_offset, r.size) {
                self.transfer_barrier();
            }
            let region = [vk::BufferCopy { src_offset: r.source_offset, dst_offset: r.dest_offset, size: r.size }];
            // SAFETY: live buffers kept by this list; the runtime checked the ranges.
            unsafe { self.core.device.cmd_copy_buffer(self.cb, src, dst, &region) };
        }
        Ok(())
    }

    fn fill_buffers(&mut self, fills: &[ResolvedFill<ResourceId>]) -> Result<()> {
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
        // Predication reaches dispatches (conditional rendering), not transfers: a predicated
        // fill takes the compute kernel (predicated lists are direct or compute lists).
        let compute = aligned && (self.copies_in_compute() || self.is_predicated());
        if !compute {
            self.check_not_predicated("FillBuffers")?;
        }
        if compute {
            let mut table = Vec::with_capacity(parts.len() * 32);
            let mut largest = 0u64;
            for (buffer, offset, pattern, bytes) in &parts {
                let (dwords, n) = pattern.dwords().ok_or_else(|| fail("FillBuffers: pattern length".into()))?;
                dwords.iter().for_each(|d| table.extend(d.to_le_bytes()));
                table.extend((buffer.address() + offset).to_le_bytes());
                let count = bytes / 4;
                largest = largest.max(count);
                table.extend((count.min(u32::MAX as u64) as u32).to_le_bytes());
                table.extend(n.to_le_bytes());
            }
            let t = self.table(&table)?;
            let meta = self.core.meta()?;
            let x = largest.div_ceil(256).clamp(1, 1024) as u32;
            for first in (0..parts.len()).step_by(65535) {
                let rows = (parts.len() - first).min(65535) as u32;
                meta.fill_batch.dispatch_2d(self.cb, [t.address(), first as u64, 0], (x, rows));
            }
            return Ok(());
        }
        let mut written = Written::default();
        let nvidia = self.core.props.vendor_id == 0x10DE;
        for (buffer, offset, pattern, bytes) in parts {
            let vb = buffer.buffer().unwrap_or_default();
            if written.overlaps(vb, offset, bytes) {
                self.transfer_barrier();
            }
            let d = self.core.device.clone();
            let word = pattern.dwords().filter(|&(_, n)| n == 1 && offset % 4 == 0 && bytes % 4 == 0);
            if let Some(([data, ..], _)) = word {
                // NVIDIA fills a wrong range above 4096 bytes from an offset that is not
                // 16-aligned: fill up to the next 16-byte boundary first.
                let mut spans = vec![(offset, bytes)];
                if nvidia && bytes >= 4096 && offset % 16 != 0 {
                    let head = 16 - offset % 16;
                    spans = vec![(offset, head), (offset + head, bytes - head)];
                }
                for (o, n) in spans {
                    // SAFETY: a live buffer with TRANSFER_DST usage; 4-aligned offset and size.
                    unsafe { d.cmd_fill_buffer(self.cb, vb, o, n, data) };
                }
                continue;
            }
            // Other patterns: copies from a chunk of whole patterns.
            let len = pattern.as_bytes().len() as u64;
            let chunk = (1u64 << 20).min(bytes).max(len) / len * len;
            let bytes_of_chunk = asyncmd_types::repeat_bytes(pattern.as_bytes(), chunk as usize);
            let src = self.table(&bytes_of_chunk)?.buffer().unwrap_or_default();
            let mut done = 0;
            let mut regions = Vec::new();
            while done < bytes {
                let size = chunk.min(bytes - done);
                regions.push(vk::BufferCopy { src_offset: 0, dst_offset: offset + done, size });
                done += size;
            }
            // SAFETY: live buffers; regions read one chunk and write disjoint destination ranges.
            unsafe { d.cmd_copy_buffer(self.cb, src, vb, &regions) };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

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

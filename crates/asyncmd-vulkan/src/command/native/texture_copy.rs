//! Native texture copies on Vulkan (`CopyTextureRegions`, and the textures of `CopyResources`).
//!
//! Where compute wins (compute copies are on: the H200), each part between single-sample 2D
//! subresources of plain texels, or between one and a placed footprint, is one dispatch of an
//! image kernel that moves raw texel bits through unsigned-integer views of the texel's size;
//! the parts of a call are not ordered against each other, so consecutive dispatches overlap on
//! the GPU (its graphics engines write images at a fraction of what its compute shaders reach).
//! A barrier separates two parts only where one touches a subresource or buffer an earlier part
//! of the call wrote. Under predication, which reaches dispatches but no transfer, the kernels
//! run on every device that has them. Every other part (other formats, dimensions and sample
//! counts, devices where transfers win) is the legacy copy, one of the orders the API allows.

use crate::command::{copy_extent, VkCommandList};
use crate::memory::VkResource;
use crate::meta::{image_groups, Views};
use ash::vk;
use asyncmd_ddi::{Command, ResourceId};
use asyncmd_types::{Box3, CopyLocationKind, Result, TextureCopyDesc, TextureCopyLocation};
use std::collections::HashSet;
use std::sync::Arc;

/// What an image kernel copy touches, to find parts that depend on an earlier part's writes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Touched {
    Subresource(ResourceId, u32),
    Buffer(ResourceId),
}

/// One end of a compute copy.
enum End {
    /// A raw view of a subresource, and the texel's offset in it.
    Image(vk::ImageView, (u32, u32)),
    /// The address of the copy's first texel in a buffer, and its row pitch.
    Buffer(u64, u32),
}

/// Writes of the call so far, and whether the next part must wait for them.
#[derive(Default)]
struct Written(HashSet<Touched>);

impl Written {
    /// Whether a part reading `reads` and writing `writes` depends on an earlier write (the set
    /// then starts afresh with this part's write).
    fn depends(&mut self, reads: Touched, writes: Touched) -> bool {
        let depends = self.0.contains(&reads) || self.0.contains(&writes);
        if depends {
            self.0.clear();
        }
        self.0.insert(writes);
        depends
    }
}

impl VkCommandList {
    /// Native `CopyTextureRegions`.
    pub(crate) fn copy_texture_regions(&mut self, descs: &[TextureCopyDesc<ResourceId>]) -> Result<()> {
        let mut written = Written::default();
        for c in Command::texture_copies(descs) {
            let Command::CopyTextureRegion { dest, dest_x, dest_y, dest_z, source, source_box } = c else { continue };
            if !self.copy_texture_by_kernel(&dest, (dest_x, dest_y, dest_z), &source, source_box, &mut written)? {
                self.record_command(c)?;
            }
        }
        Ok(())
    }

    /// Every subresource of a texture pair of `CopyResources` by the image kernel, where it can
    /// copy them all; returns whether it did.
    pub(crate) fn copy_texture_resource_by_kernel(&mut self, dest: ResourceId, source: ResourceId) -> Result<bool> {
        let (dst, src) = (self.resource(dest)?, self.resource(source)?);
        let count = src.desc.subresource_count();
        if !self.image_copies_on() || dst.clear_format().is_none() || dst.clear_format() != src.clear_format() {
            return Ok(false);
        }
        let mut written = Written::default();
        for s in 0..count {
            let (d, sl) = (TextureCopyLocation::subresource(dest, s), TextureCopyLocation::subresource(source, s));
            if !self.copy_texture_by_kernel(&d, (0, 0, 0), &sl, None, &mut written)? {
                // Raw views cover every subresource of such a texture: not reached.
                self.record_command(Command::CopyTextureRegion {
                    dest: d,
                    dest_x: 0,
                    dest_y: 0,
                    dest_z: 0,
                    source: sl,
                    source_box: None,
                })?;
            }
        }
        Ok(true)
    }

    /// One part by the image kernel; returns `false` where the kernel cannot copy it.
    fn copy_texture_by_kernel(
        &mut self,
        dest: &TextureCopyLocation<ResourceId>,
        at: (u32, u32, u32),
        source: &TextureCopyLocation<ResourceId>,
        source_box: Option<Box3>,
        written: &mut Written,
    ) -> Result<bool> {
        if !self.image_copies_on() {
            return Ok(false);
        }
        let (dst, src) = (self.resource(dest.resource)?, self.resource(source.resource)?);
        let Some((sbox, extents)) = copy_extent(&dst, dest, at, &src, source, source_box)? else {
            return Ok(true);
        };
        let Some(extent) = extents.same() else { return Ok(false) };
        if extent.depth != 1 || at.2 != 0 || sbox.front != 0 {
            return Ok(false);
        }
        let texel = match (dst.clear_format(), src.clear_format()) {
            (Some(d), Some(s)) if d == s => texel_bytes(d),
            (Some(d), None) if src.desc.is_buffer() => texel_bytes(d),
            (None, Some(s)) if dst.desc.is_buffer() => texel_bytes(s),
            _ => return Ok(false),
        };
        let Some(to) = end(&dst, &dest.kind, (at.0, at.1), texel)? else { return Ok(false) };
        let Some(from) = end(&src, &source.kind, (sbox.left, sbox.top), texel)? else { return Ok(false) };
        if matches!(to, End::Buffer(..)) && texel < 4 {
            // A thread would write part of a dword its neighbour writes too.
            return Ok(false);
        }
        let touched = |res: &VkResource, loc: &TextureCopyLocation<ResourceId>| match loc.kind {
            CopyLocationKind::Subresource(i) if !res.desc.is_buffer() => Touched::Subresource(loc.resource, i),
            _ => Touched::Buffer(loc.resource),
        };
        if written.depends(touched(&src, source), touched(&dst, dest)) {
            self.part_barrier();
        }
        let image = &self.core.meta()?.image;
        let Some(kernels) = image.as_ref() else { return Ok(false) };
        let size = (extent.width, extent.height);
        let (w, h) = size;
        let lo_hi = |a: u64| [a as u32, (a >> 32) as u32];
        match (to, from) {
            (End::Image(dv, (dx, dy)), End::Image(sv, (sx, sy))) => {
                let views = Views { storage: Some(dv), sampled: Some(sv) };
                kernels.copy.dispatch(self.cb, views, &[sx, sy, dx, dy, w, h], image_groups(size));
            }
            (End::Image(dv, (dx, dy)), End::Buffer(address, pitch)) => {
                let [lo, hi] = lo_hi(address);
                let views = Views { storage: Some(dv), sampled: None };
                let constants = [lo, hi, dx, dy, w, h, pitch, texel];
                kernels.copy_from_buffer.dispatch(self.cb, views, &constants, image_groups(size));
            }
            (End::Buffer(address, pitch), End::Image(sv, (sx, sy))) => {
                let [lo, hi] = lo_hi(address);
                let views = Views { storage: None, sampled: Some(sv) };
                let constants = [lo, hi, sx, sy, w, h, pitch, texel];
                kernels.copy_to_buffer.dispatch(self.cb, views, &constants, image_groups(size));
            }
            (End::Buffer(..), End::Buffer(..)) => return Ok(false),
        }
        Ok(true)
    }

    /// Orders the parts of one call before the next part, whether transfers or dispatches.
    fn part_barrier(&self) {
        let stages = vk::PipelineStageFlags2::ALL_TRANSFER | vk::PipelineStageFlags2::COMPUTE_SHADER;
        let writes = vk::AccessFlags2::TRANSFER_WRITE | vk::AccessFlags2::SHADER_STORAGE_WRITE;
        let reads = vk::AccessFlags2::TRANSFER_READ
            | vk::AccessFlags2::SHADER_STORAGE_READ
            | vk::AccessFlags2::SHADER_SAMPLED_READ;
        self.memory_barrier(stages, writes, stages, reads | writes);
    }
}

impl VkCommandList {
    /// Whether texture copies run as the image kernels: where compute wins, and under
    /// predication, which reaches dispatches but no transfer.
    fn image_copies_on(&self) -> bool {
        (self.image_kernels_on() || self.is_predicated() && self.family_has_compute())
            && self.core.meta.get().is_some_and(|m| m.image.is_some())
    }
}

/// Bytes of a texel of a raw view format.
fn texel_bytes(raw: vk::Format) -> u32 {
    crate::conv::raw_uint_bytes(raw).unwrap_or(16)
}

/// One end of a copy as the image kernels take it, starting at texel `(x, y)`; `None` where
/// they cannot: an image without a raw view, a footprint of another texel size, or one whose
/// texels are not aligned to their size.
fn end(res: &Arc<VkResource>, kind: &CopyLocationKind, (x, y): (u32, u32), texel: u32) -> Result<Option<End>> {
    match kind {
        CopyLocationKind::Subresource(i) => {
            let Some(raw) = res.clear_format() else { return Ok(None) };
            let Some(sub) = res.desc.subresource(*i) else { return Ok(None) };
            let key = (raw, vk::ImageViewType::TYPE_2D, sub.mip, sub.slice, 1, vk::ImageAspectFlags::COLOR);
            Ok(Some(End::Image(res.view(key)?, (x, y))))
        }
        CopyLocationKind::PlacedFootprint(fp) => {
            let f = fp.footprint;
            let plane = f.format.plane(0);
            let whole_texels = plane.is_some_and(|p| p.block_width == 1 && p.block_height == 1);
            if !whole_texels || f.format.info().bytes_per_block as u32 != texel || f.row_pitch % texel != 0 {
                return Ok(None);
            }
            let offset = fp.offset + y as u64 * f.row_pitch as u64 + x as u64 * texel as u64;
            if !offset.is_multiple_of(texel as u64) {
                return Ok(None);
            }
            Ok(res.buffer().map(|_| End::Buffer(res.address() + offset, f.row_pitch)))
        }
    }
}

//! Transfers: buffer, texture, tile and resource copies, and resolves.

use super::native::CopyPart;
use super::{fail, VkCommandList};
use crate::conv::plane_aspect;
use crate::memory::VkResource;
use crate::sync;
use ash::vk;
use asyncmd_ddi::ResourceId;
use asyncmd_types::{
    Box3, BufferCopyRegion, CopyLocationKind, PlacedSubresourceFootprint, ResourceDimension, Result,
    TextureCopyLocation,
};
use std::sync::Arc;

const TILE: u64 = asyncmd_types::TILE_SIZE_IN_BYTES;

impl VkCommandList {
    pub(super) fn copy_buffer(&mut self, r: &BufferCopyRegion<ResourceId>) -> Result<()> {
        self.check_not_predicated("CopyBufferRegion")?;
        let (dst, src) = (self.buffer_of(r.dest)?, self.buffer_of(r.source)?);
        if r.size == 0 {
            // Copies nothing (Vulkan has no empty copy region).
            return Ok(());
        }
        self.serialize();
        let aligned = (r.source_offset | r.dest_offset | r.size).is_multiple_of(16);
        let threshold = self.core.compute_copy_min.get().copied().flatten();
        if aligned && threshold.is_some_and(|t| r.size >= t) && self.family_has_compute() {
            let (s, d) = (self.resource(r.source)?, self.resource(r.dest)?);
            let part = CopyPart { src: s.address() + r.source_offset, dst: d.address() + r.dest_offset, bytes: r.size };
            return self.compute_copy(part);
        }
        let region = [vk::BufferCopy { src_offset: r.source_offset, dst_offset: r.dest_offset, size: r.size }];
        // SAFETY: both buffers are live and kept by this list; the runtime checked the ranges.
        unsafe { self.core.device.cmd_copy_buffer(self.cb, src, dst, &region) };
        Ok(())
    }

    pub(super) fn layers(res: &VkResource, index: u32) -> Result<(vk::ImageSubresourceLayers, u32)> {
        let sub = res.desc.subresource(index).ok_or_else(|| fail(format!("subresource {index} out of range")))?;
        let three_d = res.desc.dimension == ResourceDimension::Texture3D;
        Ok((
            vk::ImageSubresourceLayers {
                aspect_mask: plane_aspect(res.desc.format, sub.plane),
                mip_level: sub.mip,
                base_array_layer: if three_d { 0 } else { sub.slice },
                layer_count: 1,
            },
            sub.plane,
        ))
    }

    /// A buffer region for a footprint, starting at texel (x, y, z) of it.
    pub(super) fn footprint_region(fp: &PlacedSubresourceFootprint, (x, y, z): (u32, u32, u32)) -> (u64, u32, u32) {
        let f = fp.footprint;
        let plane = f.format.plane(0).unwrap_or(asyncmd_types::PlaneInfo {
            format: f.format,
            bytes_per_block: 1,
            block_width: 1,
            block_height: 1,
            subsample_x: 1,
            subsample_y: 1,
        });
        let rows = f.height.div_ceil(plane.block_height) as u64;
        let offset = fp.offset
            + z as u64 * rows * f.row_pitch as u64
            + (y / plane.block_height) as u64 * f.row_pitch as u64
            + (x / plane.block_width) as u64 * plane.bytes_per_block as u64;
        let row_length = f.row_pitch / plane.bytes_per_block * plane.block_width;
        (offset, row_length, rows as u32 * plane.block_height)
    }

    pub(super) fn copy_texture(
        &mut self,
        dest: &TextureCopyLocation<ResourceId>,
        at: (u32, u32, u32),
        source: &TextureCopyLocation<ResourceId>,
        source_box: Option<Box3>,
    ) -> Result<()> {
        self.check_not_predicated("CopyTextureRegion")?;
        let d = self.core.device.clone();
        let (dst, src) = (self.resource(dest.resource)?, self.resource(source.resource)?);
        let Some((sbox, extents)) = copy_extent(&dst, dest, at, &src, source, source_box)? else {
            return Ok(());
        };
        let src_offset = vk::Offset3D { x: sbox.left as i32, y: sbox.top as i32, z: sbox.front as i32 };
        let dst_offset = vk::Offset3D { x: at.0 as i32, y: at.1 as i32, z: at.2 as i32 };
        self.serialize();
        match (&dest.kind, &source.kind) {
            (CopyLocationKind::Subresource(di), CopyLocationKind::Subresource(si))
                if copies_through_buffer(&dst.desc, &src.desc) || extents.same().is_none() =>
            {
                self.copy_aspect_through_buffer(&dst, *di, dst_offset, &src, *si, src_offset, extents)?;
            }
            (CopyLocationKind::Subresource(di), CopyLocationKind::Subresource(si)) => {
                let (dl, _) = Self::layers(&dst, *di)?;
                let (sl, _) = Self::layers(&src, *si)?;
                let extent = extents.dest;
                let region =
                    [vk::ImageCopy { src_subresource: sl, src_offset, dst_subresource: dl, dst_offset, extent }];
                let (di, si) = (dst.image().unwrap_or_default(), src.image().unwrap_or_default());
                // SAFETY: live images in GENERAL; the runtime checked the regions.
                unsafe {
                    d.cmd_copy_image(self.cb, si, vk::ImageLayout::GENERAL, di, vk::ImageLayout::GENERAL, &region)
                };
            }
            (CopyLocationKind::Subresource(di), CopyLocationKind::PlacedFootprint(fp)) => {
                let (dl, _) = Self::layers(&dst, *di)?;
                let (offset, row_length, image_height) = Self::footprint_region(fp, (sbox.left, sbox.top, sbox.front));
                let region = [vk::BufferImageCopy {
                    buffer_offset: offset,
                    buffer_row_length: row_length,
                    buffer_image_height: image_height,
                    image_subresource: dl,
                    image_offset: dst_offset,
                    image_extent: extents.dest,
                }];
                let (image, buffer) = (dst.image().unwrap_or_default(), src.buffer().unwrap_or_default());
                // SAFETY: a live buffer and image; the runtime checked footprint and region.
                unsafe { d.cmd_copy_buffer_to_image(self.cb, buffer, image, vk::ImageLayout::GENERAL, &region) };
            }
            (CopyLocationKind::PlacedFootprint(fp), CopyLocationKind::Subresource(si)) => {
                let (sl, _) = Self::layers(&src, *si)?;
                let (offset, row_length, image_height) = Self::footprint_region(fp, at);
                let region = [vk::BufferImageCopy {
                    buffer_offset: offset,
                    buffer_row_length: row_length,
                    buffer_image_height: image_height,
                    image_subresource: sl,
                    image_offset: src_offset,
                    image_extent: extents.source,
                }];
                let (image, buffer) = (src.image().unwrap_or_default(), dst.buffer().unwrap_or_default());
                // SAFETY: as above.
                unsafe { d.cmd_copy_image_to_buffer(self.cb, image, vk::ImageLayout::GENERAL, buffer, &region) };
            }
            _ => return Err(fail("CopyTextureRegion: buffer to buffer".into())),
        }
        Ok(())
    }

    /// Copies one aspect of `src` into one aspect of `dst` through a scratch buffer: the copies
    /// `vkCmdCopyImage` cannot make (see [`copies_through_buffer`] and [`copy_extent`]). Both
    /// extents cover the same blocks, so the buffer is packed alike on both halves.
    #[allow(clippy::too_many_arguments)] // both ends of an image copy
    pub(super) fn copy_aspect_through_buffer(
        &mut self,
        dst: &VkResource,
        dst_sub: u32,
        dst_offset: vk::Offset3D,
        src: &VkResource,
        src_sub: u32,
        src_offset: vk::Offset3D,
        extents: CopyExtents,
    ) -> Result<()> {
        if src.desc.is_msaa() || dst.desc.is_msaa() {
            // Buffers hold no samples, and Vulkan copies images of different aspects only
            // through buffers.
            return Err(fail(
                "CopyTextureRegion: the Vulkan device cannot copy between a multisampled depth or stencil plane \
                 and a plane of another aspect"
                    .into(),
            ));
        }
        let (sl, plane) = Self::layers(src, src_sub)?;
        let (dl, _) = Self::layers(dst, dst_sub)?;
        let info = src.desc.format.plane(plane);
        let (bytes, bw, bh) = info.map_or((4, 1, 1), |p| (p.bytes_per_block, p.block_width, p.block_height));
        let e = extents.source;
        let size = [e.width.div_ceil(bw.max(1)), e.height.div_ceil(bh.max(1)), e.depth]
            .into_iter()
            .try_fold(u64::from(bytes), |n, k| n.checked_mul(u64::from(k)))
            .ok_or_else(|| fail("CopyTextureRegion: copy too large".into()))?;
        let scratch = Arc::new(VkResource::new(
            &self.core,
            &asyncmd_types::ResourceDesc::buffer(size),
            asyncmd_types::HeapType::Default,
        )?);
        let buffer = scratch.buffer().unwrap_or_default();
        self.scratch.push(scratch);
        let d = &self.core.device;
        let out = [vk::BufferImageCopy {
            image_subresource: sl,
            image_offset: src_offset,
            image_extent: extents.source,
            ..Default::default()
        }];
        let back = [vk::BufferImageCopy {
            image_subresource: dl,
            image_offset: dst_offset,
            image_extent: extents.dest,
            ..Default::default()
        }];
        let between = [sync::serialize_transfers(false)];
        let (si, di) = (src.image().unwrap_or_default(), dst.image().unwrap_or_default());
        // SAFETY: live images and a scratch buffer kept by this list; a barrier orders the two
        // halves.
        unsafe {
            d.cmd_copy_image_to_buffer(self.cb, si, vk::ImageLayout::GENERAL, buffer, &out);
            d.cmd_pipeline_barrier2(self.cb, &vk::DependencyInfo::default().memory_barriers(&between));
            d.cmd_copy_buffer_to_image(self.cb, buffer, di, vk::ImageLayout::GENERAL, &back);
        }
        Ok(())
    }

    pub(super) fn copy_tiles(&mut self, t: &asyncmd_ddi::TileCopy) -> Result<()> {
        self.check_not_predicated("CopyTiles")?;
        let res = self.resource(t.resource)?;
        let buffer = self.buffer_of(t.buffer)?;
        let desc = res.desc;
        let tiles = tiles_of(&desc, t)?;
        self.serialize();
        let to_buffer = t.flags.contains(asyncmd_types::TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER);
        let d = self.core.device.clone();
        if let Some(rb) = res.buffer() {
            let regions: Vec<vk::BufferCopy> = tiles
                .iter()
                .enumerate()
                .map(|(n, &tile)| {
                    let (tile_offset, linear) = (tile * TILE, t.buffer_offset + n as u64 * TILE);
                    let size = TILE.min(desc.width.saturating_sub(tile_offset));
                    if to_buffer {
                        vk::BufferCopy { src_offset: tile_offset, dst_offset: linear, size }
                    } else {
                        vk::BufferCopy { src_offset: linear, dst_offset: tile_offset, size }
                    }
                })
                .filter(|r| r.size > 0)
                .collect();
            let (src, dst) = if to_buffer { (rb, buffer) } else { (buffer, rb) };
            // SAFETY: live buffers; the runtime checked the tile range and buffer size.
            unsafe { d.cmd_copy_buffer(self.cb, src, dst, &regions) };
            return Ok(());
        }
        let image = res.image().unwrap_or_default();
        let regions = crate::sparse::tile_regions(&desc, &tiles, t.buffer_offset);
        // SAFETY: a live sparse image in GENERAL and a live buffer; regions are whole tiles.
        unsafe {
            if to_buffer {
                d.cmd_copy_image_to_buffer(self.cb, image, vk::ImageLayout::GENERAL, buffer, &regions);
            } else {
                d.cmd_copy_buffer_to_image(self.cb, buffer, image, vk::ImageLayout::GENERAL, &regions);
            }
        }
        Ok(())
    }

    pub(super) fn copy_resource(&mut self, dest: ResourceId, source: ResourceId) -> Result<()> {
        self.check_not_predicated("CopyResource")?;
        let d = self.core.device.clone();
        let (dst, src) = (self.resource(dest)?, self.resource(source)?);
        self.serialize();
        if let (Some(db), Some(sb)) = (dst.buffer(), src.buffer()) {
            let region = [vk::BufferCopy { src_offset: 0, dst_offset: 0, size: dst.desc.width.min(src.desc.width) }];
            // SAFETY: live buffers of equal size.
            unsafe { d.cmd_copy_buffer(self.cb, sb, db, &region) };
            return Ok(());
        }
        let (Some(di), Some(si)) = (dst.image(), src.image()) else {
            return Err(fail("CopyResource: mixed kinds".into()));
        };
        let desc = src.desc;
        if copies_through_buffer(&dst.desc, &desc) {
            for sub in 0..desc.subresource_count() {
                let (width, height, depth) = desc.subresource_extent(sub).unwrap_or((0, 0, 0));
                let extent = vk::Extent3D { width, height, depth };
                let (origin, extents) = (vk::Offset3D::default(), CopyExtents { source: extent, dest: extent });
                self.copy_aspect_through_buffer(&dst, sub, origin, &src, sub, origin, extents)?;
            }
            return Ok(());
        }
        let mut regions = Vec::new();
        for mip in 0..desc.mip_count() {
            let (w, h, z) = desc.mip_extent(mip);
            for plane in 0..desc.plane_count() {
                let layers = vk::ImageSubresourceLayers {
                    aspect_mask: plane_aspect(desc.format, plane),
                    mip_level: mip,
                    base_array_layer: 0,
                    layer_count: desc.array_size(),
                };
                let p = desc.format.plane(plane).map_or((1, 1), |p| (p.subsample_x, p.subsample_y));
                regions.push(vk::ImageCopy {
                    src_subresource: layers,
                    src_offset: vk::Offset3D::default(),
                    dst_subresource: layers,
                    dst_offset: vk::Offset3D::default(),
                    extent: vk::Extent3D { width: w.div_ceil(p.0), height: h.div_ceil(p.1), depth: z },
                });
            }
        }
        // SAFETY: live images of one description.
        unsafe { d.cmd_copy_image(self.cb, si, vk::ImageLayout::GENERAL, di, vk::ImageLayout::GENERAL, &regions) };
        Ok(())
    }
}

/// What one texture copy covers on each side, in that side's own texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CopyExtents {
    /// The region read from the source.
    pub source: vk::Extent3D,
    /// The region written in the destination.
    pub dest: vk::Extent3D,
}

impl CopyExtents {
    /// The one extent `vkCmdCopyImage` takes, where both sides agree.
    pub(crate) fn same(&self) -> Option<vk::Extent3D> {
        (self.source == self.dest).then_some(self.source)
    }
}

/// The source box of a texture copy (the whole source where none is given) and what it covers
/// on each side; `None` where it copies nothing.
///
/// D3D12 copies whole blocks of block-compressed formats: a box that stops inside the last
/// block of the source's edge still writes that whole block into the destination. Vulkan wants
/// an image's extent in whole blocks unless it ends at that image's edge, so each image side
/// gets the box rounded up to blocks and clipped to its own edge (footprints of
/// block-compressed mips are padded to whole blocks, which the clip also takes off). The two
/// sides then differ where the source ends at an edge that the destination does not.
pub(crate) fn copy_extent(
    dst: &VkResource,
    dest: &TextureCopyLocation<ResourceId>,
    at: (u32, u32, u32),
    src: &VkResource,
    source: &TextureCopyLocation<ResourceId>,
    source_box: Option<Box3>,
) -> Result<Option<(Box3, CopyExtents)>> {
    let full = |res: &VkResource, kind: &CopyLocationKind| match kind {
        CopyLocationKind::Subresource(i) => res.desc.subresource_extent(*i).map(|(w, h, z)| Box3::sized(w, h, z)),
        CopyLocationKind::PlacedFootprint(fp) => {
            Some(Box3::sized(fp.footprint.width, fp.footprint.height, fp.footprint.depth))
        }
    };
    let sbox = match source_box {
        Some(b) => b,
        None => full(src, &source.kind).ok_or_else(|| fail("CopyTextureRegion: bad source".into()))?,
    };
    let (w, h, depth) = sbox.extent();
    if w == 0 || h == 0 || depth == 0 {
        return Ok(None);
    }
    let side = |res: &VkResource, kind: &CopyLocationKind, (x, y, z): (u32, u32, u32)| {
        let CopyLocationKind::Subresource(i) = kind else { return None };
        let (ew, eh, ed) = res.desc.subresource_extent(*i)?;
        let plane = res.desc.subresource(*i).and_then(|s| res.desc.format.plane(s.plane));
        let (bw, bh) = plane.map_or((1, 1), |p| (p.block_width.max(1), p.block_height.max(1)));
        let whole = |n: u32, block: u32| n.div_ceil(block).saturating_mul(block);
        Some(vk::Extent3D {
            width: whole(w, bw).min(ew.saturating_sub(x)),
            height: whole(h, bh).min(eh.saturating_sub(y)),
            depth: depth.min(ed.saturating_sub(z)),
        })
    };
    let to = side(dst, &dest.kind, at);
    let from = side(src, &source.kind, (sbox.left, sbox.top, sbox.front));
    let (Some(source), Some(dest)) = (from.or(to), to.or(from)) else {
        return Err(fail("CopyTextureRegion: buffer to buffer".into()));
    };
    if [source.width, source.height, source.depth, dest.width, dest.height, dest.depth].contains(&0) {
        return Ok(None);
    }
    Ok(Some((sbox, CopyExtents { source, dest })))
}

/// The linear indices of the tiles a tile copy names, in the order the buffer holds them.
pub(crate) fn tiles_of(desc: &asyncmd_types::ResourceDesc, t: &asyncmd_ddi::TileCopy) -> Result<Vec<u64>> {
    let first = asyncmd_types::linear_tile(desc, &t.start)
        .ok_or_else(|| fail("CopyTiles: start outside the resource".into()))?;
    if !t.size.use_box {
        return Ok((first..first + t.size.num_tiles as u64).collect());
    }
    let (tx, ty, _) = asyncmd_types::subresource_tiles(desc, t.start.subresource).unwrap_or((0, 0, 0));
    let mut v = Vec::new();
    for z in 0..t.size.depth as u64 {
        for y in 0..t.size.height as u64 {
            for x in 0..t.size.width as u64 {
                v.push(first + (z * ty as u64 + y) * tx as u64 + x);
            }
        }
    }
    Ok(v)
}

/// Whether an image-to-image copy between these resources must go through a buffer:
/// `vkCmdCopyImage` copies only between equal aspects (a depth and a colour image of one
/// typeless family are copy-compatible in D3D12), and some drivers (lavapipe 22.3) copy both
/// aspects of a combined depth-stencil image where one is asked for. Nor does it copy between
/// a 1D image and another type (VUID-vkCmdCopyImage-srcImage-07743; D3D12 copies a 1D texture
/// into a row of a 2D one). Multisampled images cannot go through a buffer; those of equal
/// aspects copy directly.
fn copies_through_buffer(dst: &asyncmd_types::ResourceDesc, src: &asyncmd_types::ResourceDesc) -> bool {
    let (d, s) = (dst.format, src.format);
    let aspects_differ = s.has_depth() != d.has_depth() || s.has_stencil() != d.has_stencil();
    let one_d = |r: &asyncmd_types::ResourceDesc| r.dimension == ResourceDimension::Texture1D;
    aspects_differ || one_d(src) != one_d(dst) || (s.has_stencil() && !src.is_msaa())
}

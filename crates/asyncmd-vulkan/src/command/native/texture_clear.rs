//! Native `ClearTextureSubresources` on Vulkan.
//!
//! Where compute wins (compute copies are on: the H200), single-sample 2D colour images made
//! storage-capable for it are cleared by one compute dispatch that stores the encoded texel as
//! raw bits (the GPU's graphics engines write images at a fraction of its bandwidth). Otherwise
//! whole subresources clear with `vkCmdClearColorImage` (uncompressed colour formats the image
//! is created with) or `vkCmdClearDepthStencilImage` (direct lists); every other region is a
//! `vkCmdCopyBufferToImage` from a buffer of rows of the encoded value, all regions reading
//! from offset 0. MSAA regions a copy cannot reach are view clears of the attachment. Under
//! predication, which reaches attachment clears but no transfer, every region of a render or
//! depth-stencil target is a view clear of its subresource. Parts of one call are unordered:
//! a barrier separates them only where one writes a subresource an earlier part wrote.

use crate::command::VkCommandList;
use crate::conv::plane_aspect;
use crate::memory::VkResource;
use crate::meta::{element_words, image_groups, Views};
use ash::vk;
use asyncmd_ddi::{DepthStencilView, RenderTargetView, ResourceId};
use asyncmd_types::{
    Box3, ClearFlags, CommandListType, ComponentClass, DepthStencilViewDesc, DsvDimension, DsvFlags, Error, Format,
    Layout, MessageId, Rect, RenderTargetViewDesc, ResourceDimension, ResourceFlags, Result, RtvDimension,
    SubresourceClear, Swizzle, ViewClearValue,
};
use std::collections::HashSet;
use std::sync::Arc;

const API: &str = "ClearTextureSubresources";

/// Bytes of the row buffer a pattern copy reads: enough rows to make each region large.
const ROWS_BYTES: u64 = 1 << 20;

fn fail(text: String) -> Error {
    Error::fail(MessageId::DeviceUnsupported, format!("{API}: {text}"))
}

/// The value `vkCmdClearColorImage` takes for `format`, where it writes what the D3D encoding
/// does: the stored integers for integer formats, floats where no rounding can differ.
/// `inexact`: take the driver's rounding anyway (MSAA, which copies cannot reach).
fn color_value(format: Format, view: &ViewClearValue, inexact: bool) -> Option<vk::ClearColorValue> {
    let info = format.info();
    let by_value = match info.layout {
        Layout::Channels { swizzle, .. } => swizzle == Swizzle::Rgba || swizzle == Swizzle::Bgra,
        // Packed formats whose Vulkan format names the same channels: the driver places them.
        Layout::R10G10B10A2
        | Layout::R11G11B10
        | Layout::B5G6R5
        | Layout::B5G5R5A1
        | Layout::B4G4R4A4
        | Layout::A4B4G4R4 => true,
        _ => false,
    };
    if !by_value {
        return None;
    }
    match info.class {
        ComponentClass::Uint | ComponentClass::Sint => Some(vk::ClearColorValue { uint32: view.integers }),
        // The driver converts floats with its own rounding: only where every D3D-conforming
        // rounding agrees (the rest are copies of the encoded value).
        ComponentClass::Float | ComponentClass::Unorm | ComponentClass::Snorm | ComponentClass::Srgb
            if inexact || view.exact =>
        {
            Some(vk::ClearColorValue { float32: crate::command::driver_floats(format, view.color) })
        }
        _ => None,
    }
}

impl VkCommandList {
    pub(crate) fn clear_texture_subresources(&mut self, clears: &[SubresourceClear<ResourceId>]) -> Result<()> {
        let mut written = HashSet::new();
        let mut last = None;
        for c in clears {
            // Parts come per texture: look each texture up once.
            let res = match &last {
                Some((id, res)) if *id == c.texture => Arc::clone(res),
                _ => {
                    let (res, _) = self.image_of(c.texture)?;
                    last = Some((c.texture, Arc::clone(&res)));
                    res
                }
            };
            if !written.insert((c.texture, c.subresource)) {
                self.transfer_barrier();
                written.clear();
                written.insert((c.texture, c.subresource));
            }
            if self.is_predicated() {
                self.clear_predicated(&res, c)?;
            } else {
                self.clear_subresource(&res, c)?;
            }
        }
        Ok(())
    }

    fn clear_subresource(&mut self, res: &VkResource, c: &SubresourceClear<ResourceId>) -> Result<()> {
        let rf = res.desc.format;
        let (format, sub, region, whole) = (c.format, c, c.region, c.whole);
        let three_d = res.desc.dimension == ResourceDimension::Texture3D;
        let aspect = plane_aspect(rf, sub.plane);
        let range = vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: sub.mip,
            level_count: 1,
            base_array_layer: if three_d { 0 } else { sub.slice },
            layer_count: 1,
        };
        let image = res.image().unwrap_or_default();
        let dev = self.core.device.clone();
        // A depth view of a typeless texture: the image itself holds colour there.
        if whole && format.has_depth() && rf.has_depth() && self.ty == CommandListType::Direct {
            let view = c.view();
            let depth = crate::command::driver_depth(format, view.depth);
            let value = vk::ClearDepthStencilValue { depth, stencil: view.stencil as u32 };
            // SAFETY: a live image in GENERAL with TRANSFER_DST usage, on a graphics queue.
            unsafe { dev.cmd_clear_depth_stencil_image(self.cb, image, vk::ImageLayout::GENERAL, &value, &[range]) };
            return Ok(());
        }
        if let (Some(raw), true) = (res.clear_format(), self.image_kernels_on()) {
            // Where compute wins: one dispatch stores the encoded texel as raw bits.
            let words = element_words(&c.element);
            let view =
                res.view((raw, vk::ImageViewType::TYPE_2D, sub.mip, sub.slice, 1, vk::ImageAspectFlags::COLOR))?;
            let meta = self.core.meta()?;
            if let Some(image) = &meta.image {
                let (w, h, _) = region.extent();
                let constants = [words[0], words[1], words[2], words[3], region.left, region.top, w, h];
                let views = Views { storage: Some(view), sampled: None };
                image.clear.dispatch(self.cb, views, &constants, image_groups((w, h)));
                return Ok(());
            }
        }
        if self.clear_samples_by_draw(res, c)? {
            return Ok(());
        }
        if whole && res.view_format(format) == res.view_format(rf) {
            if let Some(value) = color_value(format, &c.view(), res.desc.is_msaa()) {
                // SAFETY: a live uncompressed colour image in GENERAL with TRANSFER_DST usage.
                unsafe { dev.cmd_clear_color_image(self.cb, image, vk::ImageLayout::GENERAL, &value, &[range]) };
                return Ok(());
            }
        }
        if res.desc.is_msaa() {
            return self.clear_msaa_region(res, c);
        }
        self.clear_by_copy(res, format, c.subresource, region).and_then(|(len, regions)| {
            let bytes = asyncmd_types::repeat_bytes(c.element.as_bytes(), len as usize);
            let buffer = self.table(&bytes)?.buffer().unwrap_or_default();
            // SAFETY: a live image in GENERAL and a row buffer kept by this list; every region
            // reads the rows from offset 0 and writes inside the subresource.
            unsafe { dev.cmd_copy_buffer_to_image(self.cb, buffer, image, vk::ImageLayout::GENERAL, &regions) };
            Ok(())
        })
    }

    /// The copy regions that cover `region` of subresource `s` from a row buffer, and the bytes
    /// of that buffer.
    fn clear_by_copy(
        &self,
        res: &VkResource,
        format: Format,
        s: u32,
        region: Box3,
    ) -> Result<(u64, Vec<vk::BufferImageCopy>)> {
        let rf = res.desc.format;
        let sub = res.desc.subresource(s).ok_or_else(|| fail(format!("subresource {s} out of range")))?;
        let plane = rf.plane(sub.plane).ok_or_else(|| fail(format!("{format} has no plane {}", sub.plane)))?;
        let (w, h, depth) = region.extent();
        let (bw, bh) = (plane.block_width, plane.block_height);
        let row_blocks = w.div_ceil(bw);
        let row_bytes = row_blocks as u64 * plane.bytes_per_block as u64;
        let total_rows = h.div_ceil(bh);
        let rows = (total_rows as u64).min((ROWS_BYTES / row_bytes).max(1)) as u32;
        let three_d = res.desc.dimension == ResourceDimension::Texture3D;
        let layers = vk::ImageSubresourceLayers {
            aspect_mask: plane_aspect(rf, sub.plane),
            mip_level: sub.mip,
            base_array_layer: if three_d { 0 } else { sub.slice },
            layer_count: 1,
        };
        let mut regions = Vec::new();
        for z in region.front..region.front + depth {
            for first in (0..total_rows).step_by(rows as usize) {
                let y = region.top + first * bh;
                let height = (rows * bh).min(region.bottom - y);
                regions.push(vk::BufferImageCopy {
                    buffer_offset: 0,
                    buffer_row_length: row_blocks * bw,
                    buffer_image_height: rows * bh,
                    image_subresource: layers,
                    image_offset: vk::Offset3D { x: region.left as i32, y: y as i32, z: z as i32 },
                    image_extent: vk::Extent3D { width: w, height, depth: 1 },
                });
            }
        }
        Ok((row_bytes * rows as u64, regions))
    }

    /// A region of an MSAA subresource: copies cannot reach its samples, so a view clear of
    /// the attachment writes it (the closest value a view clear takes).
    fn clear_msaa_region(&mut self, res: &VkResource, c: &SubresourceClear<ResourceId>) -> Result<()> {
        let (id, format, plane, slice, region) = (c.texture, c.format, c.plane, c.slice, c.region);
        let rect = [Rect::new(region.left as i32, region.top as i32, region.right as i32, region.bottom as i32)];
        let depth = format.has_depth();
        if !res.attachment_capable(depth) || depth && self.ty != CommandListType::Direct {
            return Err(fail(format!(
                "a partial region of an MSAA {format} texture needs a direct list and an image this device can \
                 render to"
            )));
        }
        if depth {
            let view = DepthStencilView {
                resource: id,
                desc: DepthStencilViewDesc {
                    format: format.depth_stencil_member().unwrap_or(format),
                    flags: DsvFlags::empty(),
                    dimension: DsvDimension::Texture2DMsArray { first_slice: slice, array_size: 1 },
                },
            };
            let flags = if plane == 0 { ClearFlags::DEPTH } else { ClearFlags::STENCIL };
            let value = c.view();
            return self.clear_dsv(&view, flags, value.depth, value.stencil, &rect);
        }
        let view = RenderTargetView {
            resource: id,
            desc: RenderTargetViewDesc {
                format,
                dimension: RtvDimension::Texture2DMsArray { first_slice: slice, array_size: 1 },
            },
        };
        self.clear_rtv(&view, c.view().color, &rect)
    }

    /// The exact clear of a multisampled colour subresource, where its image has a raw view
    /// it can render (`SampleClears`): every sample of the region gets the encoded texel's
    /// bits. Returns whether it recorded one.
    fn clear_samples_by_draw(&mut self, res: &VkResource, c: &SubresourceClear<ResourceId>) -> Result<bool> {
        let raw = res.sample_format().and_then(crate::conv::raw_uint_d3d);
        let Some(raw) = raw.filter(|_| res.desc.is_msaa() && res.attachment_capable(false)) else {
            return Ok(false);
        };
        if c.format.has_depth() || self.ty != CommandListType::Direct {
            return Ok(false);
        }
        let core = self.core.clone();
        let clears = &core.meta()?.sample_clears;
        let key = (res.view_format(raw), vk::ImageViewType::TYPE_2D, 0, c.slice, 1, vk::ImageAspectFlags::COLOR);
        let (w, h, _) = res.desc.mip_extent(0);
        let r = c.region;
        let rect = vk::Rect2D {
            offset: vk::Offset2D { x: r.left as i32, y: r.top as i32 },
            extent: vk::Extent2D { width: r.right - r.left, height: r.bottom - r.top },
        };
        let (samples, words) = (res.desc.sample_desc.count, element_words(&c.element));
        // The app orders a clear as a copy: barriers make the draw one.
        type S = vk::PipelineStageFlags2;
        type A = vk::AccessFlags2;
        let (copies, draw) = (S::ALL_TRANSFER | S::COMPUTE_SHADER, S::COLOR_ATTACHMENT_OUTPUT);
        let copy_access = A::TRANSFER_READ | A::TRANSFER_WRITE | A::SHADER_STORAGE_WRITE | A::SHADER_SAMPLED_READ;
        let draw_access = A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE;
        self.serialize();
        self.memory_barrier(copies, A::TRANSFER_WRITE | A::SHADER_STORAGE_WRITE, draw, draw_access);
        let mut drawn = Ok(());
        self.with_attachment(res, key, None, (w, h), |_, cb| {
            drawn = clears.draw(&core, cb, (raw, samples), rect, words);
        })?;
        self.memory_barrier(draw, A::COLOR_ATTACHMENT_WRITE, copies, copy_access);
        drawn.map(|()| true)
    }

    /// A clear under predication: conditional rendering reaches attachment clears and
    /// dispatches, not transfers, so the region is cleared through a view of its subresource,
    /// where the texture can be an attachment and the view clear writes the exact value.
    fn clear_predicated(&mut self, res: &VkResource, c: &SubresourceClear<ResourceId>) -> Result<()> {
        // A draw: conditional rendering reaches it.
        if self.clear_samples_by_draw(res, c)? {
            return Ok(());
        }
        let rf = res.desc.format;
        let (format, sub, region) = (c.format, c, c.region);
        let refuse = || {
            fail(format!(
                "a predicated clear of a {format} texture that is no attachment, or of a value a view clear \
                 rounds, is not supported on the Vulkan device (predication does not reach transfers)"
            ))
        };
        let rect = [Rect::new(region.left as i32, region.top as i32, region.right as i32, region.bottom as i32)];
        let (mip, slice) = (sub.mip, sub.slice);
        let one_d = res.desc.dimension == ResourceDimension::Texture1D;
        if rf.has_depth() {
            if !res.desc.flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL) || self.ty != CommandListType::Direct {
                return Err(refuse());
            }
            let dimension = match (one_d, res.desc.is_msaa()) {
                (true, _) => DsvDimension::Texture1DArray { mip, first_slice: slice, array_size: 1 },
                (false, true) => DsvDimension::Texture2DMsArray { first_slice: slice, array_size: 1 },
                (false, false) => DsvDimension::Texture2DArray { mip, first_slice: slice, array_size: 1 },
            };
            let desc = DepthStencilViewDesc {
                format: format.depth_stencil_member().unwrap_or(format),
                flags: DsvFlags::empty(),
                dimension,
            };
            let flags = if sub.plane == 0 { ClearFlags::DEPTH } else { ClearFlags::STENCIL };
            let view = DepthStencilView { resource: c.texture, desc };
            let value = c.view();
            return self.clear_dsv(&view, flags, value.depth, value.stencil, &rect);
        }
        let value = color_value(format, &c.view(), res.desc.is_msaa()).ok_or_else(refuse)?;
        if !res.desc.flags.contains(ResourceFlags::ALLOW_RENDER_TARGET) {
            return Err(refuse());
        }
        let dimension = match (res.desc.dimension, res.desc.is_msaa()) {
            (ResourceDimension::Texture1D, _) => {
                RtvDimension::Texture1DArray { mip, first_slice: slice, array_size: 1 }
            }
            (ResourceDimension::Texture3D, _) => {
                RtvDimension::Texture3D { mip, first_w: region.front, w_size: region.back - region.front }
            }
            (_, true) => RtvDimension::Texture2DMsArray { first_slice: slice, array_size: 1 },
            (_, false) => RtvDimension::Texture2DArray { mip, first_slice: slice, array_size: 1, plane: sub.plane },
        };
        let view = RenderTargetView { resource: c.texture, desc: RenderTargetViewDesc { format, dimension } };
        self.clear_rtv_value(&view, value, &rect)
    }
}

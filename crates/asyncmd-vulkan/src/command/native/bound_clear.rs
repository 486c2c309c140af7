//! Native bound clears on Vulkan: outside a render pass where compute wins (the H200), the
//! image kernel's clear of each target of plain texels; otherwise `vkCmdClearAttachments`
//! inside the rendering instance (the render pass's, or the lazy one over the
//! `OMSetRenderTargets` targets), in rasterization order with draws. Mask bit *i* is colour attachment *i*: the instance binds the targets in
//! the D3D12 slot order. Regions are clipped to their target. Outside a pass, a region past
//! the render area (the smallest bound target) is cleared through its target alone, between
//! barriers that keep it ordered with the draws around it; inside a pass the instance's area
//! is all there is.

use crate::command::VkCommandList;
use crate::meta::{element_words, image_groups, Views};
use ash::vk;
use asyncmd_ddi::{DepthStencilView, RenderTargetView};
use asyncmd_types::{draw_clear_color, encode_clear, stored_integers, Box3, ClearData, ClearFlags, Rect, Result};

/// A region of a bound target: (rectangle, first slice in the view, slice count).
type Region = (Rect, u32, u32);

/// What a clear writes outside the rendering instance.
enum Target {
    Color(RenderTargetView, vk::ClearColorValue),
    Depth(DepthStencilView, ClearFlags, f32, u8),
}

impl VkCommandList {
    pub(crate) fn clear_bound_rtvs(
        &mut self,
        mask: u8,
        values: &[ClearData; 8],
        regions: &[Option<Vec<Box3>>; 8],
    ) -> Result<()> {
        let rtvs = self.gfx.rtvs.clone();
        let compute = self.clear_bound_rtvs_by_kernel(&rtvs, mask, values, regions)?;
        for (slot, view) in rtvs.iter().enumerate().filter(|(s, _)| mask & (1 << s) != 0 && compute & (1 << s) == 0) {
            let res = self.resource(view.resource)?;
            let Some(range) = view.desc.range(&res.desc) else { continue };
            let (w, h, _) = res.desc.mip_extent(range.mip);
            // The union has the same bits for floats, uints and sints; integer formats take the
            // bits they store, normalized ones the level D3D rounds to (see `driver_floats`).
            let format = view.desc.format;
            let value = vk::ClearColorValue {
                uint32: stored_integers(format, &draw_clear_color(format, &values[slot])).uints(),
            };
            let attachment = vk::ClearAttachment {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                color_attachment: slot as u32,
                clear_value: vk::ClearValue { color: value },
            };
            let boxes = asyncmd_types::clip_boxes(regions[slot].as_deref(), w, h, range.slices);
            self.clear_attachment(attachment, &boxes, Target::Color(*view, value))?;
        }
        Ok(())
    }

    /// Outside a render pass, where compute wins: the selected targets of single-sample 2D
    /// textures of plain texels are cleared by the image kernel, which stores the value D3D
    /// encodes for the view's format, between barriers that order it with the draws and clears
    /// around it as a clear in raster order would be (the graphics engines write images at a
    /// fraction of the compute bandwidth). Returns the slots it cleared.
    fn clear_bound_rtvs_by_kernel(
        &mut self,
        rtvs: &[RenderTargetView],
        mask: u8,
        values: &[ClearData; 8],
        regions: &[Option<Vec<Box3>>; 8],
    ) -> Result<u8> {
        if self.gfx.pass.is_some() || !self.image_kernels_on() {
            return Ok(0);
        }
        let mut work = Vec::new();
        let mut cleared = 0u8;
        for (slot, view) in rtvs.iter().enumerate().filter(|(s, _)| mask & (1 << s) != 0) {
            let res = self.resource(view.resource)?;
            let (Some(raw), Some(range)) = (res.clear_format(), view.desc.range(&res.desc)) else { continue };
            let Some(element) = encode_clear(view.desc.format, 0, &values[slot]) else { continue };
            let (w, h, _) = res.desc.mip_extent(range.mip);
            for (r, first, count) in asyncmd_types::clip_boxes(regions[slot].as_deref(), w, h, range.slices) {
                for slice in range.first_slice + first..range.first_slice + first + count {
                    let key = (raw, vk::ImageViewType::TYPE_2D, range.mip, slice, 1, vk::ImageAspectFlags::COLOR);
                    work.push((res.view(key)?, element, r));
                }
            }
            cleared |= 1 << slot;
        }
        if cleared == 0 {
            return Ok(0);
        }
        self.end_lazy_rendering();
        let targets = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT | vk::PipelineStageFlags2::ALL_TRANSFER;
        let target_writes = vk::AccessFlags2::COLOR_ATTACHMENT_WRITE | vk::AccessFlags2::TRANSFER_WRITE;
        let target_reads = vk::AccessFlags2::COLOR_ATTACHMENT_READ | vk::AccessFlags2::TRANSFER_READ;
        let (compute, storage) = (vk::PipelineStageFlags2::COMPUTE_SHADER, vk::AccessFlags2::SHADER_STORAGE_WRITE);
        self.memory_barrier(targets, target_writes, compute, storage);
        let image = &self.core.meta()?.image;
        if let Some(kernels) = image {
            for (view, element, r) in work {
                let words = element_words(&element);
                let (w, h) = ((r.right - r.left) as u32, (r.bottom - r.top) as u32);
                let constants = [words[0], words[1], words[2], words[3], r.left as u32, r.top as u32, w, h];
                let views = Views { storage: Some(view), sampled: None };
                kernels.clear.dispatch(self.cb, views, &constants, image_groups((w, h)));
            }
        }
        self.memory_barrier(compute, storage, targets, target_reads | target_writes);
        Ok(cleared)
    }

    pub(crate) fn clear_bound_dsv_native(
        &mut self,
        flags: ClearFlags,
        depth: f32,
        stencil: u8,
        regions: Option<&[Box3]>,
    ) -> Result<()> {
        let Some(view) = self.gfx.dsv else { return Ok(()) };
        let res = self.resource(view.resource)?;
        let Some(range) = view.desc.range(&res.desc) else { return Ok(()) };
        let aspect = crate::conv::clear_aspects(res.desc.format, flags);
        if aspect.is_empty() {
            return Ok(());
        }
        let depth = crate::command::driver_depth(view.desc.format, depth);
        let attachment = vk::ClearAttachment {
            aspect_mask: aspect,
            color_attachment: 0,
            clear_value: vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue { depth, stencil: stencil as u32 },
            },
        };
        let (w, h, _) = res.desc.mip_extent(range.mip);
        let boxes = asyncmd_types::clip_boxes(regions, w, h, range.slices);
        self.clear_attachment(attachment, &boxes, Target::Depth(view, flags, depth, stencil))
    }

    /// Clears `boxes` of one attachment inside the rendering instance; outside a pass, boxes
    /// past its area go through the target alone.
    fn clear_attachment(&mut self, attachment: vk::ClearAttachment, boxes: &[Region], target: Target) -> Result<()> {
        let in_pass = self.gfx.pass.is_some();
        // Targets of different sample counts share no rendering instance: each is cleared alone.
        let alone = self.bound_samples_differ();
        if !alone {
            self.ensure_rendering()?;
        }
        let (aw, ah, layers) = self.gfx.area;
        let fits =
            |(r, first, count): &Region| r.right as u32 <= aw && r.bottom as u32 <= ah && first + count <= layers;
        let (inside, mut outside): (Vec<Region>, Vec<Region>) =
            boxes.iter().partition(|b| !alone && (in_pass || fits(b)));
        if in_pass && alone {
            // In a pass a clear reaches the area every bound output covers, as on every device,
            // also where the targets are cleared one by one.
            let (w, h, slices) = self.bound_area()?;
            let area = Rect::new(0, 0, w as i32, h as i32);
            outside = outside
                .into_iter()
                .filter_map(|(r, first, count)| {
                    let (r, count) = (r.intersect(&area), count.min(slices.saturating_sub(first)));
                    (!r.is_empty() && count > 0).then_some((r, first, count))
                })
                .collect();
        }
        let rects: Vec<vk::ClearRect> = inside
            .iter()
            .filter_map(|(r, first, count)| {
                let r = r.intersect(&Rect::new(0, 0, aw as i32, ah as i32));
                let count = (*count).min(layers.saturating_sub(*first));
                (!r.is_empty() && count > 0).then(|| vk::ClearRect {
                    rect: vk::Rect2D {
                        offset: vk::Offset2D { x: r.left, y: r.top },
                        extent: vk::Extent2D { width: (r.right - r.left) as u32, height: (r.bottom - r.top) as u32 },
                    },
                    base_array_layer: *first,
                    layer_count: count,
                })
            })
            .collect();
        if !rects.is_empty() {
            // SAFETY: inside the open rendering instance; rectangles and layers are inside it.
            unsafe { self.core.device.cmd_clear_attachments(self.cb, &[attachment], &rects) };
        }
        if outside.is_empty() {
            return Ok(());
        }
        self.end_lazy_rendering();
        let stages = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT
            | vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
            | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS
            | vk::PipelineStageFlags2::ALL_TRANSFER;
        let writes = vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
            | vk::AccessFlags2::TRANSFER_WRITE;
        let reads = vk::AccessFlags2::COLOR_ATTACHMENT_READ
            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
            | vk::AccessFlags2::TRANSFER_READ;
        self.memory_barrier(stages, writes, stages, reads | writes);
        for (r, first, count) in outside {
            let rects = [r];
            match &target {
                Target::Color(v, value) => {
                    let view = RenderTargetView { resource: v.resource, desc: v.desc.narrowed(first, count) };
                    self.clear_rtv_value(&view, *value, &rects)?;
                }
                Target::Depth(v, flags, depth, stencil) => {
                    let view = DepthStencilView { resource: v.resource, desc: v.desc.narrowed(first, count) };
                    self.clear_dsv(&view, *flags, *depth, *stencil, &rects)?;
                }
            }
        }
        self.memory_barrier(stages, writes, stages, reads | writes);
        Ok(())
    }

    /// The width, height and slices every bound output covers.
    fn bound_area(&mut self) -> Result<(u32, u32, u32)> {
        let mut area = (u32::MAX, u32::MAX, u32::MAX);
        for v in self.gfx.rtvs.clone() {
            let res = self.resource(v.resource)?;
            let (key, (w, h)) = Self::rtv_key(&res, &v)?;
            area = (area.0.min(w), area.1.min(h), area.2.min(key.4));
        }
        if let Some(v) = self.gfx.dsv {
            let res = self.resource(v.resource)?;
            let (key, (w, h)) = Self::dsv_key(&res, &v)?;
            area = (area.0.min(w), area.1.min(h), area.2.min(key.4));
        }
        Ok(area)
    }

    /// Whether the `OMSetRenderTargets` targets differ in sample count.
    fn bound_samples_differ(&mut self) -> bool {
        let ids: Vec<_> = self.gfx.rtvs.iter().map(|v| v.resource).chain(self.gfx.dsv.map(|v| v.resource)).collect();
        let counts: Vec<u32> =
            ids.into_iter().filter_map(|id| self.resource(id).ok()).map(|r| r.desc.sample_desc.count).collect();
        counts.windows(2).any(|w| w[0] != w[1])
    }
}

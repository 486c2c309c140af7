//! View clears: `ClearRenderTargetView` and `ClearDepthStencilView` as attachment clears in a
//! dynamic-rendering instance over the view.

use super::{fail, VkCommandList};
use crate::memory::VkResource;
use ash::vk;
use asyncmd_ddi::{DepthStencilView, RenderTargetView};
use asyncmd_types::{ClearFlags, Rect, ResourceDimension, Result};

impl VkCommandList {
    /// Runs `f` inside a dynamic-rendering instance over one attachment view.
    pub(super) fn with_attachment(
        &mut self,
        res: &VkResource,
        key: crate::memory::ViewKey,
        depth: Option<ClearFlags>,
        area: (u32, u32),
        f: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<()> {
        let view = res.view(key)?;
        let attachment = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::GENERAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let render_area =
            vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: area.0, height: area.1 } };
        let mut info = vk::RenderingInfo::default().render_area(render_area).layer_count(key.4);
        match depth {
            None => info = info.color_attachments(&attachment),
            Some(flags) => {
                if flags.contains(ClearFlags::DEPTH) || res.desc.format.has_depth() {
                    info = info.depth_attachment(&attachment[0]);
                }
                if res.desc.format.has_stencil() {
                    info = info.stencil_attachment(&attachment[0]);
                }
            }
        }
        let d = &self.core.device;
        // SAFETY: a rendering instance over a live view, ended right after `f` records into it.
        unsafe {
            d.cmd_begin_rendering(self.cb, &info);
            f(d, self.cb);
            d.cmd_end_rendering(self.cb);
        }
        Ok(())
    }

    pub(crate) fn clear_rtv(&mut self, view: &RenderTargetView, color: [f32; 4], rects: &[Rect]) -> Result<()> {
        let flushed = color.map(|c| if c.is_subnormal() { 0.0f32.copysign(c) } else { c });
        let value = match view.desc.format.info().class {
            asyncmd_types::ComponentClass::Uint => vk::ClearColorValue { uint32: flushed.map(|c| c as u32) },
            asyncmd_types::ComponentClass::Sint => vk::ClearColorValue { int32: flushed.map(|c| c as i32) },
            _ => vk::ClearColorValue { float32: flushed },
        };
        self.clear_rtv_value(view, value, rects)
    }

    /// A view clear with the value as Vulkan takes it (integers exact).
    pub(crate) fn clear_rtv_value(
        &mut self,
        view: &RenderTargetView,
        value: vk::ClearColorValue,
        rects: &[Rect],
    ) -> Result<()> {
        let (res, image) = self.image_of(view.resource)?;
        let range = view.desc.range(&res.desc).ok_or_else(|| fail("ClearRenderTargetView: bad view".into()))?;
        let format = view.desc.format;
        self.serialize();
        let three_d = res.desc.dimension == ResourceDimension::Texture3D;
        let (w, h, _) = res.desc.mip_extent(range.mip);
        if rects.is_empty()
            && !self.predicated
            && !three_d
            && res.view_format(format) == res.view_format(res.desc.format)
        {
            let r = vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: range.mip,
                level_count: 1,
                base_array_layer: range.first_slice,
                layer_count: range.slices,
            };
            // SAFETY: a live image in GENERAL with TRANSFER_DST usage.
            unsafe { self.core.device.cmd_clear_color_image(self.cb, image, vk::ImageLayout::GENERAL, &value, &[r]) };
            return Ok(());
        }
        let ty = res.attachment_view_type();
        let key =
            (res.view_format(format), ty, range.mip, range.first_slice, range.slices, vk::ImageAspectFlags::COLOR);
        let clear_rects = clear_rects(rects, w, h, range.slices);
        let attachment = [vk::ClearAttachment {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            color_attachment: 0,
            clear_value: vk::ClearValue { color: value },
        }];
        self.with_attachment(&res, key, None, (w, h), |d, cb| {
            if !clear_rects.is_empty() {
                // SAFETY: inside the rendering instance; rectangles are inside the render area.
                unsafe { d.cmd_clear_attachments(cb, &attachment, &clear_rects) };
            }
        })
    }

    pub(crate) fn clear_dsv(
        &mut self,
        view: &DepthStencilView,
        flags: ClearFlags,
        depth: f32,
        stencil: u8,
        rects: &[Rect],
    ) -> Result<()> {
        let (res, image) = self.image_of(view.resource)?;
        let range = view.desc.range(&res.desc).ok_or_else(|| fail("ClearDepthStencilView: bad view".into()))?;
        let aspect = crate::format::clear_aspects(res.desc.format, flags);
        if aspect.is_empty() {
            return Ok(());
        }
        // A stencil-only clear leaves depth alone, whatever value came with it; Vulkan takes
        // depths in [0, 1] only.
        let depth = if flags.contains(ClearFlags::DEPTH) && !depth.is_nan() { depth.clamp(0.0, 1.0) } else { 0.0 };
        let value = vk::ClearDepthStencilValue { depth, stencil: stencil as u32 };
        self.serialize();
        let (w, h, _) = res.desc.mip_extent(range.mip);
        // Predicated clears go through the attachment: conditional rendering skips those.
        if rects.is_empty() && !self.predicated {
            let r = vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: range.mip,
                level_count: 1,
                base_array_layer: range.first_slice,
                layer_count: range.slices,
            };
            // SAFETY: a live depth image in GENERAL.
            unsafe {
                self.core.device.cmd_clear_depth_stencil_image(self.cb, image, vk::ImageLayout::GENERAL, &value, &[r])
            };
            return Ok(());
        }
        let ty = res.attachment_view_type();
        let key = (
            res.view_format(res.desc.format),
            ty,
            range.mip,
            range.first_slice,
            range.slices,
            crate::format::all_aspects(res.desc.format),
        );
        let clear_rects = clear_rects(rects, w, h, range.slices);
        let attachment = [vk::ClearAttachment {
            aspect_mask: aspect,
            color_attachment: 0,
            clear_value: vk::ClearValue { depth_stencil: value },
        }];
        self.with_attachment(&res, key, Some(flags), (w, h), |d, cb| {
            if !clear_rects.is_empty() {
                // SAFETY: inside the rendering instance; rectangles are inside the render area.
                unsafe { d.cmd_clear_attachments(cb, &attachment, &clear_rects) };
            }
        })
    }
}

/// View-space rectangles clipped to the view, as clear rectangles over `layers` layers.
fn clear_rects(rects: &[Rect], w: u32, h: u32, layers: u32) -> Vec<vk::ClearRect> {
    let full = Rect::new(0, 0, w as i32, h as i32);
    let rects: Vec<Rect> =
        if rects.is_empty() { vec![full] } else { rects.iter().map(|r| r.intersect(&full)).collect() };
    rects
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| vk::ClearRect {
            rect: vk::Rect2D {
                offset: vk::Offset2D { x: r.left, y: r.top },
                extent: vk::Extent2D { width: (r.right - r.left) as u32, height: (r.bottom - r.top) as u32 },
            },
            base_array_layer: 0,
            layer_count: layers,
        })
        .collect()
}

//! View clears: `ClearRenderTargetView` and `ClearDepthStencilView` as attachment clears in a
//! dynamic-rendering instance over the view.

use super::{fail, VkCommandList};
use crate::memory::VkResource;
use ash::vk;
use asyncmd_ddi::{DepthStencilView, RenderTargetView};
use asyncmd_types::{
    draw_clear_color, draw_clear_depth, ClearData, ClearFlags, Format, Rect, ResourceDimension, Result,
};

/// The floats a Vulkan colour clear takes to store `color` on `format` as D3D does. For
/// UNORM and SNORM formats: the level D3D's conversion rounds to, nudged inside its rounding
/// interval ([`draw_clear_color`]), because drivers take channels narrower than 8 bits
/// through an 8-bit value (lavapipe's draws; the NVIDIA driver's clears of B5G6R5 stored red
/// 29 for 0.9139, where D3D stores round(0.9139 × 31) = 28). Other formats: as they are.
pub(crate) fn driver_floats(format: Format, color: [f32; 4]) -> [f32; 4] {
    draw_clear_color(format, &ClearData::from_floats(color)).floats()
}

/// The depth a Vulkan depth clear takes to store `depth` on a view of depth `format` as D3D
/// does: clamped to [0, 1] (NaN as 0), and for D16 D3D's nearest level as
/// `(k + 1/4) / 65535` ([`draw_clear_depth`]), which rounding and truncation both store as
/// `k`. The NVIDIA driver stored 6553 for 0.1 (0.1f × 65535 is 6553.5001, which D3D rounds to
/// 6554; cross-device seed 30575).
pub(crate) fn driver_depth(format: Format, depth: f32) -> f32 {
    let depth = if depth.is_nan() { 0.0 } else { depth.clamp(0.0, 1.0) };
    draw_clear_depth(format, depth)
}

impl VkCommandList {
    /// Runs `f` inside a dynamic-rendering instance over one attachment view.
    pub(crate) fn with_attachment(
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
            _ => vk::ClearColorValue { float32: driver_floats(view.desc.format, flushed) },
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
        let aspect = crate::conv::clear_aspects(res.desc.format, flags);
        if aspect.is_empty() {
            return Ok(());
        }
        // A stencil-only clear leaves depth alone, whatever value came with it; Vulkan takes
        // depths in [0, 1] only.
        let depth = if flags.contains(ClearFlags::DEPTH) { driver_depth(view.desc.format, depth) } else { 0.0 };
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
            crate::conv::all_aspects(res.desc.format),
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

#[cfg(test)]
mod tests {
    use super::{driver_depth, driver_floats};
    use asyncmd_types::Format;

    /// Red 0.9139 on B5G6R5: D3D stores round(0.9139 × 31) = 28; a driver that takes the
    /// channel through 8 bits and keeps the high bits stored 29 from the raw float. From the
    /// nudged level, rounding, truncation and that 8-bit path all store 28.
    #[test]
    fn narrow_normalized_channels_reach_d3ds_level_through_any_driver_conversion() {
        let red = driver_floats(Format::B5G6R5Unorm, [f32::from_bits(0x3f69_f132), 1.43, f32::INFINITY, -0.0])[0];
        let raw = f32::from_bits(0x3f69_f132);
        assert_eq!(((raw * 255.0).round() as u32) >> 3, 29, "the raw float's 8-bit path");
        assert_eq!((red * 31.0).round() as u32, 28);
        assert_eq!((red * 31.0) as u32, 28);
        assert_eq!(((red * 255.0).round() as u32) >> 3, 28);
        assert_eq!(((red * 255.0) as u32) >> 3, 28);
        assert_eq!((driver_depth(Format::D16Unorm, 0.1) * 65535.0) as u32, 6554, "truncation");
        assert_eq!((driver_depth(Format::D16Unorm, 0.1) * 65535.0).round() as u32, 6554, "rounding");
        assert_eq!(driver_depth(Format::D16Unorm, f32::NAN), 0.0);
        assert_eq!(driver_depth(Format::D32Float, 2.0), 1.0);
        let floats = [0.25, 0.5, 1.0, 0.0];
        assert_eq!(driver_floats(Format::R32G32B32A32Float, floats), floats, "float formats as they are");
    }
}

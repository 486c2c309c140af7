//! Legacy view clears: `ClearRenderTargetView` and `ClearDepthStencilView`.

use super::pixels::{encode_depth, fill_rect};
use super::surface::Surface;
use super::Exec;
use asyncmd_ddi::{DepthStencilView, RenderTargetView};
use asyncmd_types::{encode_texel, ClearData, ClearFlags, ComponentClass, Rect};

/// Clips view-space rectangles to a `w × h` view; no rectangles means the whole view.
pub(crate) fn clip_rects(rects: &[Rect], w: u32, h: u32) -> Vec<(u32, u32, u32, u32)> {
    let full = Rect::new(0, 0, w as i32, h as i32);
    if rects.is_empty() {
        return vec![(0, 0, w, h)];
    }
    rects
        .iter()
        .map(|r| r.intersect(&full))
        .filter(|r| !r.is_empty())
        .map(|r| (r.left as u32, r.top as u32, r.right as u32, r.bottom as u32))
        .collect()
}

/// The texel a legacy colour clear writes: floats converted by the format's class, with
/// subnormals flushed to zero (keeping the sign) and integers saturated to the channel.
pub(crate) fn rtv_clear_texel(format: asyncmd_types::Format, color: &[f32; 4]) -> Option<Vec<u8>> {
    let flushed = color.map(|c| if c.is_subnormal() { 0.0f32.copysign(c) } else { c });
    let value = match format.info().class {
        ComponentClass::Uint => ClearData::from_uints(flushed.map(|c| c as u32)),
        ComponentClass::Sint => ClearData::from_sints(flushed.map(|c| c as i32)),
        _ => ClearData::from_floats(flushed),
    };
    let (bytes, n) = encode_texel(format, &value)?;
    Some(bytes[..n].to_vec())
}

impl Exec<'_> {
    pub(crate) fn clear_rtv(&self, view: &RenderTargetView, color: &[f32; 4], rects: &[Rect]) {
        let Some(res) = self.resource(view.resource) else { return };
        let Some(range) = view.desc.range(&res.desc) else { return };
        let Some(texel) = rtv_clear_texel(view.desc.format, color) else { return };
        let three_d = res.desc.dimension == asyncmd_types::ResourceDimension::Texture3D;
        let mut data = res.write();
        for slice in range.first_slice..range.first_slice + range.slices {
            let (sub, z) = if three_d {
                (res.desc.subresource_index(range.mip, 0, 0), slice)
            } else {
                (res.desc.subresource_index(range.mip, slice, range.plane), 0)
            };
            let Some(surface) = Surface::subresource(&res, sub) else { continue };
            for r in clip_rects(rects, surface.width, surface.height) {
                fill_rect(&mut data, &surface, r, z, &texel, false);
            }
        }
    }

    /// `ClearDepthStencilView`, its rows spread over the workers if `workers` is set (a
    /// native bound clear).
    pub(crate) fn clear_dsv(
        &self,
        view: &DepthStencilView,
        flags: ClearFlags,
        depth: f32,
        stencil: u8,
        rects: &[Rect],
        workers: bool,
    ) {
        let Some(res) = self.resource(view.resource) else { return };
        let Some(range) = view.desc.range(&res.desc) else { return };
        let format = view.desc.format;
        let depth_bytes = encode_depth(format, depth);
        let mut data = res.write();
        for slice in range.first_slice..range.first_slice + range.slices {
            let mut planes = Vec::new();
            if flags.contains(ClearFlags::DEPTH) && format.has_depth() {
                planes.push((0, depth_bytes.as_slice()));
            }
            let stencil_bytes = [stencil];
            if flags.contains(ClearFlags::STENCIL) && format.has_stencil() {
                planes.push((1, &stencil_bytes[..]));
            }
            for (plane, value) in planes {
                let sub = res.desc.subresource_index(range.mip, slice, plane);
                let Some(surface) = Surface::subresource(&res, sub) else { continue };
                for r in clip_rects(rects, surface.width, surface.height) {
                    fill_rect(&mut data, &surface, r, 0, value, workers);
                }
            }
        }
    }
}

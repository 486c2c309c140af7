//! `ClearTextureSubresources`: validation, then the native command or the fallback's lowering
//! (`fallback::texture_clear`).

use super::async_cmd::Gate;
use super::semantics::Use;
use super::{CommandRecorder, DIRECT_COMPUTE};
use crate::err;
use crate::fallback;
use crate::fallback::texture_clear::SubClear;
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::Command;
use asyncmd_types::{
    encode_clear, AsyncCommandsImpl, BarrierAccess, Box3, ClearData, ClearElement, ClearTextureDesc, Format, Layout,
    MessageId, Result, SubresourceClear, ALL_SUBRESOURCES,
};

const API: &str = "ClearTextureSubresources";

const ID: MessageId = MessageId::ClearTextureSubresourcesInvalidParameters;

/// The box alignment of a plane in texels: its element size, and 2×2 for the luma plane of
/// 4:2:0 video formats.
fn box_alignment(format: Format, plane: u32) -> (u32, u32) {
    match (format.info().layout, format.plane(plane)) {
        (Layout::Planar420 { .. }, _) if plane == 0 => (2, 2),
        (_, Some(p)) => (p.block_width, p.block_height),
        _ => (1, 1),
    }
}

impl CommandRecorder {
    /// Checks one clear and hands each subresource it writes (none for empty regions),
    /// resolved, to `part` with the clear's index.
    fn validate_texture_clear<'r>(
        &mut self,
        i: usize,
        d: &ClearTextureDesc<&'r Resource>,
        last: &mut Option<(Format, ClearData, ClearElement)>,
        part: &mut dyn FnMut(usize, SubClear<'r>),
    ) -> Result<()> {
        let t = d.texture;
        let desc = t.desc();
        if !self.owns(t) || desc.is_buffer() {
            return Err(err::invalid(ID, API, format!("clear {i}: the destination must be a texture of this device")));
        }
        let rf = desc.format;
        let format = if d.format == Format::Unknown { rf } else { d.format };
        if format.is_typeless() {
            return Err(err::invalid(ID, API, format!("clear {i}: typeless format {format}; name a typed format")));
        }
        if !format.castable_from(rf) {
            return Err(err::invalid(
                ID,
                API,
                format!("clear {i}: {format} is not a format of the texture's {rf} family"),
            ));
        }
        // Each plane's element, encoded once for all of the clear's subresources, and plane 0's
        // once for a batch of clears of one format and value.
        let mut elements = [None; 4];
        elements[0] = match *last {
            Some((f, v, e)) if f == format && v == d.clear_value => Some(e),
            _ => encode_clear(format, 0, &d.clear_value),
        };
        if let Some(e) = elements[0] {
            *last = Some((format, d.clear_value, e));
        }
        if elements[0].is_none() {
            return Err(err::invalid(ID, API, format!("clear {i}: {format} cannot be cleared")));
        }
        let count = desc.subresource_count();
        let subs = if d.subresource == ALL_SUBRESOURCES {
            0..count
        } else if d.subresource < count {
            d.subresource..d.subresource + 1
        } else {
            return Err(err::invalid(
                MessageId::InvalidSubresourceIndex,
                API,
                format!("clear {i}: subresource {} is out of range ({count} subresources)", d.subresource),
            ));
        };
        if d.region.is_some()
            && d.subresource == ALL_SUBRESOURCES
            && subs.clone().any(|s| desc.subresource_extent(s) != desc.subresource_extent(0))
        {
            return Err(err::invalid(
                ID,
                API,
                format!(
                "clear {i}: a region with all subresources needs subresources of one size (one mip, planes of one size)"
            ),
            ));
        }
        for s in subs {
            let (Some(sub), Some((w, h, depth))) = (desc.subresource(s), desc.subresource_extent(s)) else {
                continue;
            };
            let full = Box3::sized(w, h, depth);
            let region = d.region.unwrap_or(full);
            if !region.fits(w, h, depth) {
                return Err(err::invalid(
                    ID,
                    API,
                    format!(
                        "clear {i}: region {region:?} is not inside subresource {s} ({w}x{h}x{depth}; front and back \
                     select depth slices of 3D textures only)"
                    ),
                ));
            }
            if region.is_empty() {
                continue;
            }
            let (bw, bh) = box_alignment(rf, sub.plane);
            let aligned = |v: u32, a: u32, edge: u32| v.is_multiple_of(a) || v == edge;
            if !(aligned(region.left, bw, w)
                && aligned(region.top, bh, h)
                && aligned(region.right, bw, w)
                && aligned(region.bottom, bh, h))
            {
                return Err(err::invalid(
                    ID,
                    API,
                    format!("clear {i}: region {region:?} is not aligned to {bw}x{bh} texels in subresource {s}"),
                ));
            }
            self.uses(API, &[Use::one(t, s, Access::COPY_WRITE.unordered())])?;
            let ty = self.ty;
            self.tracker.access(t, &[s], BarrierAccess::COPY_DEST, ty, API)?;
            let cached = elements.get(sub.plane as usize).copied().flatten();
            let element = match cached.or_else(|| encode_clear(format, sub.plane, &d.clear_value)) {
                Some(e) => e,
                None => {
                    return Err(err::invalid(
                        ID,
                        API,
                        format!("clear {i}: {format} has no plane {} to write in subresource {s}", sub.plane),
                    ))
                }
            };
            if let Some(slot) = elements.get_mut(sub.plane as usize) {
                *slot = Some(element);
            }
            part(
                i,
                SubresourceClear {
                    texture: t,
                    subresource: s,
                    mip: sub.mip,
                    slice: sub.slice,
                    plane: sub.plane,
                    format,
                    element,
                    value: d.clear_value,
                    region,
                    whole: region == full,
                },
            );
        }
        Ok(())
    }

    /// `ClearTextureSubresources`: writes each clear's value into its subresources (all of
    /// them for `ALL_SUBRESOURCES`) and region, in the COPY / COPY_DEST scope whatever the
    /// route. No render-target, depth-stencil or UAV flag is needed.
    pub fn clear_texture_subresources(&mut self, clears: &[ClearTextureDesc<&Resource>]) {
        self.async_command(
            API,
            Gate::Outside(DIRECT_COMPUTE),
            None,
            |l| {
                // The native command's parts name ids; the fallback's keep the resources.
                let native = l.device.async_impl == AsyncCommandsImpl::Native;
                let (mut ids, mut parts) = (Vec::new(), Vec::new());
                if native {
                    ids.reserve(clears.len());
                } else {
                    parts.reserve(clears.len());
                }
                let mut last = None;
                for (i, d) in clears.iter().enumerate() {
                    if native {
                        l.validate_texture_clear(i, d, &mut last, &mut |_, c| ids.push(c.map(|t| t.id())))?;
                    } else {
                        l.validate_texture_clear(i, d, &mut last, &mut |i, c| parts.push((i, c)))?;
                    }
                }
                Ok((ids, parts))
            },
            |(ids, _)| Command::ClearTextureSubresources(ids),
            |l, (_, parts)| {
                let facts = l.list_facts();
                if let Err(e) = fallback::texture_clear::lower(&mut l.lowering(), parts, &facts) {
                    l.remove(e);
                }
            },
        );
    }
}

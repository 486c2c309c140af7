//! `ClearTextureSubresources`: validation, native recording, and the plan that picks a fallback
//! route per subresource (the routes themselves are in `fallback::texture_clear`).

use super::async_cmd::Gate;
use super::semantics::Use;
use super::{CommandList, DIRECT_COMPUTE};
use crate::err;
use crate::fallback::plan::{plan_texture_clear, DeviceFacts, TextureClearFacts, TextureClearRoute};
use crate::fallback::texture_clear::{PatternSources, SubClear};
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::{Command, FormatSupport, ResourceId};
use asyncmd_types::{
    encode_clear, view_clear_exact, AsyncCommandsImpl, BarrierAccess, Box3, ClearData, ClearElement, ClearTextureDesc,
    Error, Format, Layout, MessageId, ResourceDimension, ResourceFlags, Result, SubresourceClear, ALL_SUBRESOURCES,
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

/// The format questions of one subresource clear and their answers.
#[derive(Clone, Copy)]
struct FactsMemo {
    /// View format, plane, sample count and value.
    asked: (Format, u32, u32, ClearData),
    renderable: bool,
    exact: bool,
}

impl CommandList {
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
            return Err(Error::invalid_arg(
                MessageId::InvalidSubresourceIndex,
                format!("{API}: clear {i}: subresource {} is out of range ({count} subresources)", d.subresource),
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
            let aligned = |v: u32, a: u32, edge: u32| v % a == 0 || v == edge;
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

    /// What the planner needs to know of one subresource clear; `memo` keeps the format
    /// questions of the last clear, which a batch of like clears asks again.
    fn texture_clear_facts(&self, c: &SubClear, memo: &mut Option<FactsMemo>) -> TextureClearFacts {
        let desc = c.texture.desc();
        let samples = desc.sample_desc.count;
        let (flag, support) = if c.depth_stencil() {
            (ResourceFlags::ALLOW_DEPTH_STENCIL, FormatSupport::DEPTH_STENCIL)
        } else {
            (ResourceFlags::ALLOW_RENDER_TARGET, FormatSupport::RENDER_TARGET)
        };
        let asked = (c.format, c.plane, samples, c.value);
        // Only a view clear (a flagged target, or any MSAA texture's private one) asks whether
        // the format renders and the value clears exactly: a plain texture takes the copy.
        let viewable = samples > 1 || desc.flags.contains(flag);
        let (renderable_format, exact) = match *memo {
            _ if !viewable => (false, false),
            Some(m) if m.asked == asked => (m.renderable, m.exact),
            _ => {
                let renderable = c.view_format().is_some_and(|f| {
                    let caps = self.device.ddi.format_caps(f);
                    caps.support.contains(support)
                        && (samples == 1
                            || caps.support.contains(FormatSupport::MULTISAMPLE_RENDER_TARGET)
                                && caps.supports_samples(samples))
                });
                let exact = c.depth_stencil() || view_clear_exact(c.format, &c.value);
                *memo = Some(FactsMemo { asked, renderable, exact });
                (renderable, exact)
            }
        };
        let renderable = renderable_format && !(c.depth_stencil() && desc.dimension == ResourceDimension::Texture3D);
        let (w, h, d) = c.region.extent();
        let (sw, sh, sd) = desc.subresource_extent(c.subresource).unwrap_or((w, h, d));
        let plane = desc.format.plane(c.plane);
        let region_bytes = plane.map_or(0, |p| {
            (w.div_ceil(p.block_width) as u64)
                * (h.div_ceil(p.block_height) as u64)
                * d as u64
                * p.bytes_per_block as u64
        });
        TextureClearFacts {
            list: self.ty,
            samples,
            depth_stencil: c.depth_stencil(),
            view_target: desc.flags.contains(flag) && renderable,
            simultaneous_access: desc.flags.contains(ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS),
            known_layout: self.tracker.layout(c.texture.id(), c.subresource),
            exact,
            copyable: samples == 1 && plane.is_some(),
            region_texels: w as u64 * h as u64 * d as u64,
            subresource_texels: sw as u64 * sh as u64 * sd as u64,
            region_bytes,
            protected: c.texture.is_protected(),
            msaa_renderable: renderable && desc.sample_desc.quality == 0,
            closest_values: self.device.options.async_commands_closest_clear_values,
        }
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
            Self::lower_texture_clears,
        );
    }

    /// The fallback's texture clears: every subresource planned, then each recorded on its
    /// route.
    fn lower_texture_clears(&mut self, (_, parts): (Vec<SubresourceClear<ResourceId>>, Vec<(usize, SubClear<'_>)>)) {
        // Every subresource is planned before anything is recorded.
        let device = DeviceFacts::of(self.device.ddi.capabilities());
        let mut planned = Vec::with_capacity(parts.len());
        let mut memo = None;
        for (i, c) in parts {
            let facts = self.texture_clear_facts(&c, &mut memo);
            let route = plan_texture_clear(&facts, &device);
            tracing::debug!(clear = i, subresource = c.subresource, ?route, "{API}: fallback route");
            match route {
                TextureClearRoute::Rejected(why) => {
                    return self.remove(err::fail(
                        MessageId::AsyncCommandsFallbackUnsupported,
                        API,
                        format!("clear {i}, subresource {}: {}", c.subresource, why.reason()),
                    ));
                }
                route => planned.push((route, c)),
            }
        }
        let mut sources = PatternSources::default();
        for (route, c) in planned {
            let r = match route {
                TextureClearRoute::PatternCopy { staged } => self.lowering().clear_by_pattern(&c, staged, &mut sources),
                TextureClearRoute::InPlace { draw } => self.lowering().clear_in_place(&c, draw),
                TextureClearRoute::MsaaCopy { draw } => self.lowering().clear_through_msaa(&c, draw),
                // Rejections removed the list above.
                TextureClearRoute::Rejected(_) => Ok(()),
            };
            if let Err(e) = r {
                return self.remove(e);
            }
        }
    }
}

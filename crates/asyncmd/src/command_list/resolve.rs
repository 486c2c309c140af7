//! `ResolveSubresourceRegion`.

use super::semantics::Use;
use super::{CommandRecorder, Lists};
use crate::err;
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::{Command, FormatSupport, Resolve};
use asyncmd_types::{Format, MessageId, Rect, ResolveMode, Result};

/// Checks a `ResolveSubresourceRegion`-shaped call (shared by the async form).
pub(crate) fn validate_resolve(
    api: &str,
    caps: &dyn Fn(Format) -> asyncmd_ddi::FormatCaps,
    min_max: bool,
    r: &Resolve<&Resource>,
) -> Result<()> {
    let Resolve { dest, dest_subresource, dest_x, dest_y, source, source_subresource, source_rect, format, mode } = *r;
    let err = |t: String| err::invalid(MessageId::ResolveSubresourceInvalidParameters, api, t);
    let (d, s) = (dest.desc(), source.desc());
    if d.is_buffer() || s.is_buffer() {
        return Err(err("resolves are between textures".into()));
    }
    if matches!(mode, ResolveMode::EncodeSamplerFeedback | ResolveMode::DecodeSamplerFeedback) {
        return Err(err(format!("{mode:?} is not supported")));
    }
    let (Some(ss), Some(ds)) = (s.subresource(source_subresource), d.subresource(dest_subresource)) else {
        return Err(err::invalid(MessageId::InvalidSubresourceIndex, api, "a subresource index is out of range"));
    };
    if mode == ResolveMode::Decompress {
        if s.sample_desc.count != d.sample_desc.count {
            return Err(err("DECOMPRESS needs equal sample counts".into()));
        }
    } else {
        if s.sample_desc.count < 2 {
            return Err(err("the source is not multisampled".into()));
        }
        if d.sample_desc.count != 1 {
            return Err(err("the destination must be single-sampled".into()));
        }
    }
    let format = if format == Format::Unknown { s.format } else { format };
    if format.is_typeless() || !format.castable_from(s.format) || !format.castable_from(d.format) {
        return Err(err(format!("format {format} does not fit {} and {}", s.format, d.format)));
    }
    if mode == ResolveMode::Average && format.is_depth_stencil() {
        return Err(err("depth-stencil formats resolve with MIN or MAX".into()));
    }
    let (sw, sh, _) = s.subresource_extent(source_subresource).unwrap_or((0, 0, 0));
    let (dw, dh, _) = d.subresource_extent(dest_subresource).unwrap_or((0, 0, 0));
    let r = source_rect.unwrap_or(Rect::new(0, 0, sw as i32, sh as i32));
    if r.left < 0 || r.top < 0 || r.right < r.left || r.bottom < r.top || r.right as u32 > sw || r.bottom as u32 > sh {
        return Err(err(format!("source rectangle {r:?} is not inside the {sw}x{sh} source")));
    }
    let (w, h) = ((r.right - r.left) as u32, (r.bottom - r.top) as u32);
    if dest_x.checked_add(w).is_none_or(|e| e > dw) || dest_y.checked_add(h).is_none_or(|e| e > dh) {
        return Err(err(format!("a {w}x{h} region at ({dest_x}, {dest_y}) does not fit the {dw}x{dh} destination")));
    }
    if ss.plane != ds.plane {
        return Err(err("source and destination planes differ".into()));
    }
    // What the device supports comes last: every device refuses a bad argument alike.
    if matches!(mode, ResolveMode::Min | ResolveMode::Max) && !min_max && !s.format.has_depth() {
        return Err(err(format!("this device does not support {mode:?} resolves of colour formats")));
    }
    if mode == ResolveMode::Average && !caps(format).support.contains(FormatSupport::MULTISAMPLE_RESOLVE) {
        return Err(err(format!("{format} cannot be resolved by averaging on this device (not supported)")));
    }
    Ok(())
}

impl CommandRecorder {
    /// Tracks a resolve's accesses for the debug layer (a decompress in place touches nothing).
    fn track_resolve(&mut self, api: &str, r: &Resolve<&Resource>, unordered: bool) -> Result<()> {
        let ty = self.ty;
        let (dest, source) = if r.mode == ResolveMode::Decompress {
            (Access::COPY_WRITE, Access::COPY_READ)
        } else {
            (Access::RESOLVE_WRITE, Access::RESOLVE_READ)
        };
        let (dest, source) = if unordered { (dest.unordered(), source.unordered()) } else { (dest, source) };
        let (da, sa) = (dest.access, source.access);
        if r.mode == ResolveMode::Decompress && r.dest.same(r.source) && r.dest_subresource == r.source_subresource {
            return Ok(());
        }
        self.uses(
            api,
            &[Use::one(r.dest, r.dest_subresource, dest), Use::one(r.source, r.source_subresource, source)],
        )?;
        self.tracker.access(r.dest, &[r.dest_subresource], da, ty, api)?;
        self.tracker.access(r.source, &[r.source_subresource], sa, ty, api)
    }

    /// Validates and tracks a resolve (legacy or async); the DDI form, or `None` when the list
    /// was removed.
    pub(super) fn checked_resolve(&mut self, api: &str, r: &Resolve<&Resource>) -> Option<Resolve> {
        let checked = self.validated_resolve(api, r, false);
        checked.map_err(|e| self.remove(e)).ok()
    }

    /// A resolve validated and tracked, with ids.
    pub(super) fn validated_resolve(&mut self, api: &str, r: &Resolve<&Resource>, unordered: bool) -> Result<Resolve> {
        let ddi = self.device.ddi.clone();
        let min_max = ddi.capabilities().resolve_min_max;
        let caps = move |f: Format| ddi.format_caps(f);
        validate_resolve(api, &caps, min_max, r)?;
        self.track_resolve(api, r, unordered)?;
        Ok(r.map(|x| x.id()))
    }

    /// `ResolveSubresourceRegion`: combines the samples of a multisampled region into a
    /// single-sampled destination (or decompresses in place).
    #[allow(clippy::too_many_arguments)] // the API's own parameters
    pub fn resolve_subresource_region(
        &mut self,
        dest: &Resource,
        dest_subresource: u32,
        dest_x: u32,
        dest_y: u32,
        source: &Resource,
        source_subresource: u32,
        source_rect: Option<&Rect>,
        format: Format,
        mode: ResolveMode,
    ) {
        const API: &str = "ResolveSubresourceRegion";
        if !self.begin(API, Lists::DIRECT, false) {
            return;
        }
        if !self.owns_all(MessageId::ResolveSubresourceInvalidParameters, API, &[dest, source]) {
            return;
        }
        let source_rect = source_rect.copied();
        let r =
            Resolve { dest, dest_subresource, dest_x, dest_y, source, source_subresource, source_rect, format, mode };
        if let Some(resolve) = self.checked_resolve(API, &r) {
            self.record(Command::ResolveSubresourceRegion(resolve));
        }
    }
}

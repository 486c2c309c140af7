//! `ClearBoundRenderTargetViews` and `ClearBoundDepthStencilView`: validation against the
//! bound outputs, then the native command or the fallback's lowering (`fallback::bound_clear`).

use super::async_cmd::Gate;
use super::bundle_clear::{BundledClear, Selected};
use super::{CommandRecorder, Pass};
use crate::err;
use crate::fallback;
use crate::fallback::bound_clear::{clamp_depth, ClearTarget};
use crate::fallback::plan::BoundClearFacts;
use asyncmd_ddi::Command;
use asyncmd_types::{
    AsyncCommandsImpl, Box3, ClearData, ClearFlags, CommandListType, ComponentClass, DsvFlags, Format, MessageId,
    MessageSeverity, Result, SIMULTANEOUS_RENDER_TARGET_COUNT,
};

const RTV_API: &str = "ClearBoundRenderTargetViews";
const DSV_API: &str = "ClearBoundDepthStencilView";

const ID: MessageId = MessageId::ClearBoundViewsInvalidParameters;

/// A validated `ClearBoundDepthStencilView`: the depth clamped, the planes the bound view
/// has, and the fallback's target (resolved only where it runs).
struct DsvClear {
    depth: f32,
    planes: ClearFlags,
    target: Option<ClearTarget>,
}

/// Whether a legacy `ClearRenderTargetView` writes exactly `value` into a target of `format`:
/// float-like formats with four finite, non-subnormal floats.
fn legacy_rtv_exact(format: Format, value: &ClearData) -> bool {
    !matches!(format.info().class, ComponentClass::Uint | ComponentClass::Sint)
        && value.floats().iter().all(|v| v.is_finite() && !v.is_subnormal())
}

impl CommandRecorder {
    /// Reports a selected output with nothing bound: the runtime skips it, the debug layer
    /// says so (an error message; the list stays healthy).
    fn report_unbound(&self, text: String) {
        self.device.info_queue.push(MessageSeverity::Error, MessageId::ClearBoundViewsUnboundOutput, text);
    }

    /// Reports render-target slot `slot`, selected with nothing bound.
    pub(super) fn report_unbound_rtv(&self, slot: usize) {
        self.report_unbound(format!("{RTV_API}: slot {slot} is selected but nothing is bound there; skipped"));
    }

    /// Reports a depth-stencil clear with no depth-stencil view bound.
    pub(super) fn report_unbound_dsv(&self) {
        self.report_unbound(format!("{DSV_API}: no depth-stencil view is bound; nothing is cleared"));
    }

    /// The smallest width and height over every bound output, the fewest slices one selects,
    /// and whether their sample counts differ. Draws reach only that width, height and those
    /// slices of every output (a Vulkan rendering instance has one layer count, at most any
    /// attachment's).
    fn bound_outputs(&self) -> ((u32, u32), u32, bool) {
        let mut area = (u32::MAX, u32::MAX);
        let mut slices = u32::MAX;
        let mut samples = Vec::new();
        let rtvs = self.shadow.rtvs.iter().flatten().filter_map(|c| ClearTarget::rtv(0, c.view, &c.resource));
        let dsv = self.shadow.dsv.iter().filter_map(|c| ClearTarget::dsv(c.view, &c.resource));
        for t in rtvs.chain(dsv) {
            area = (area.0.min(t.extent.0), area.1.min(t.extent.1));
            slices = slices.min(t.slices);
            samples.push(t.samples);
        }
        samples.dedup();
        (area, slices, samples.len() > 1)
    }

    /// Whether the bound outputs differ in sample count (checked on every draw: no allocation).
    pub(super) fn bound_sample_counts_differ(&self) -> bool {
        let rtvs = self.shadow.rtvs.iter().flatten().map(|c| c.resource.sample_desc.count);
        let mut counts = rtvs.chain(self.shadow.dsv.iter().map(|c| c.resource.sample_desc.count));
        let first = counts.next();
        counts.any(|c| Some(c) != first)
    }

    /// Hands a bound clear of `targets` to the fallback with what the list knows of its outputs.
    fn lower_bound_clear(
        &mut self,
        api: &str,
        targets: Vec<ClearTarget>,
        ds: Option<(ClearFlags, f32, u8)>,
        legacy_exact: bool,
    ) {
        let (area, slices, mixed) = self.bound_outputs();
        let past = targets.iter().any(|t| {
            t.boxes.iter().any(|&(r, first, count)| {
                r.right as u32 > area.0
                    || r.bottom as u32 > area.1
                    || u64::from(first) + u64::from(count) > u64::from(slices)
            })
        });
        let facts = BoundClearFacts {
            in_pass: matches!(self.pass, Pass::Open { .. }),
            legacy_exact,
            past_smallest_output: past,
            mixed_sample_counts: mixed,
            closest_values: self.device.options.async_commands_closest_clear_values,
        };
        if let Err(e) = fallback::bound_clear::lower(&mut self.lowering(), api, targets, ds, &facts) {
            self.remove(e);
        }
    }

    /// `ClearBoundRenderTargetViews`: clears the render targets bound now whose bit is set in
    /// `mask` (bit *i*: slot *i* of `OMSetRenderTargets`, or inside a render pass the *i*-th
    /// target the pass binds) to `values[i]`, in `regions[i]` (`None` for the whole view;
    /// `regions` `None` for every selected view whole). Box front and back select slices from
    /// the view's first slice. Ordered like draws: no barrier is needed against them.
    pub fn clear_bound_render_target_views(
        &mut self,
        mask: u32,
        values: &[ClearData],
        regions: Option<&[Option<&[Box3]>]>,
    ) {
        self.async_command(
            RTV_API,
            Gate::LikeDraws,
            None,
            |l| {
                let targets = l.validate_bound_rtvs(mask, values, regions)?;
                l.draw_targets(RTV_API);
                if mask != 0 {
                    l.note_native_bundle_clear(Selected::Rtvs(mask));
                }
                Ok(targets)
            },
            |_| {
                // Validation checked that every selected slot has a value and a region list.
                let (mut v, mut r): ([ClearData; 8], [Option<Vec<Box3>>; 8]) = Default::default();
                for slot in (0..SIMULTANEOUS_RENDER_TARGET_COUNT).filter(|&s| mask & (1 << s) != 0) {
                    v[slot] = values[slot];
                    r[slot] = regions.and_then(|r| r[slot]).map(|b| b.to_vec());
                }
                Command::ClearBoundRenderTargetViews { mask: mask as u8, values: Box::new(v), regions: Box::new(r) }
            },
            |l, targets| {
                if mask == 0 {
                    return;
                }
                if l.ty == CommandListType::Bundle {
                    let mut v = Box::new([ClearData::default(); SIMULTANEOUS_RENDER_TARGET_COUNT]);
                    for (slot, value) in values.iter().take(SIMULTANEOUS_RENDER_TARGET_COUNT).enumerate() {
                        v[slot] = *value;
                    }
                    let regions = regions.map(|r| r.iter().map(|b| b.map(<[Box3]>::to_vec)).collect());
                    return l.defer_bundled_clear(BundledClear::Rtv { mask, values: v, regions });
                }
                if targets.is_empty() {
                    return;
                }
                let exact = targets.iter().all(|t| legacy_rtv_exact(t.format, &t.value));
                l.lower_bound_clear(RTV_API, targets, None, exact);
            },
        );
    }

    /// Checks a `ClearBoundRenderTargetViews` call against the bound targets; for the
    /// fallback, resolves the selected targets.
    fn validate_bound_rtvs(
        &mut self,
        mask: u32,
        values: &[ClearData],
        regions: Option<&[Option<&[Box3]>]>,
    ) -> Result<Vec<ClearTarget>> {
        if mask >> SIMULTANEOUS_RENDER_TARGET_COUNT != 0 {
            return Err(err::invalid(ID, RTV_API, format!("RenderTargetMask {mask:#x} selects slots past 7")));
        }
        let highest = (32 - mask.leading_zeros()) as usize;
        if values.len() < highest {
            return Err(err::invalid(
                ID,
                RTV_API,
                format!("mask {mask:#x} needs {highest} clear values, {} given", values.len()),
            ));
        }
        if regions.is_some_and(|r| r.len() < highest) {
            return Err(err::invalid(
                ID,
                RTV_API,
                format!("mask {mask:#x} needs {highest} region lists, {} given", regions.map_or(0, |r| r.len())),
            ));
        }
        let region = |slot: usize| regions.and_then(|r| r[slot]);
        let bundle = self.ty == CommandListType::Bundle;
        let native = self.device.async_impl == AsyncCommandsImpl::Native;
        let mut targets = Vec::new();
        for slot in (0..SIMULTANEOUS_RENDER_TARGET_COUNT).filter(|&s| mask & (1 << s) != 0) {
            match self.shadow.rtvs.get(slot).and_then(|c| c.as_ref()) {
                // Only the fallback needs the targets resolved.
                Some(c) if !native => {
                    if let Some(mut t) = ClearTarget::rtv(slot as u8, c.view, &c.resource) {
                        // In range: the draws' integer outputs would saturate.
                        t.value = asyncmd_types::stored_integers(t.format, &values[slot]);
                        targets.push(t.with_regions(region(slot)));
                    }
                }
                Some(_) => {}
                // A bundle's bindings are its caller's: only the native path records there.
                None if !bundle => self.report_unbound_rtv(slot),
                None => {}
            }
        }
        Ok(targets)
    }

    /// `ClearBoundDepthStencilView`: clears the planes `flags` selects of the bound
    /// depth-stencil view to `depth` (clamped to [0, 1]) and `stencil` (ignored without a
    /// stencil plane), in `regions` (`None` for the whole view). Ordered like draws.
    pub fn clear_bound_depth_stencil_view(
        &mut self,
        flags: ClearFlags,
        depth: f32,
        stencil: u8,
        regions: Option<&[Box3]>,
    ) {
        self.async_command(
            DSV_API,
            Gate::LikeDraws,
            None,
            |l| {
                let clear = l.validate_bound_dsv(flags, depth, regions)?;
                l.draw_targets(DSV_API);
                l.note_native_bundle_clear(Selected::Dsv);
                Ok(clear)
            },
            |c| Command::ClearBoundDepthStencilView {
                flags,
                depth: c.depth,
                stencil,
                regions: regions.map(|r| r.to_vec()),
            },
            |l, c| {
                if l.ty == CommandListType::Bundle {
                    let regions = regions.map(<[Box3]>::to_vec);
                    return l.defer_bundled_clear(BundledClear::Dsv { flags, depth, stencil, regions });
                }
                if c.target.is_none() || c.planes.is_empty() {
                    return;
                }
                l.lower_bound_clear(DSV_API, c.target.into_iter().collect(), Some((c.planes, c.depth, stencil)), true);
            },
        );
    }

    /// Checks a `ClearBoundDepthStencilView` call against the bound view: the planes it
    /// clears, the depth clamped, and for the fallback the target resolved.
    fn validate_bound_dsv(&mut self, flags: ClearFlags, depth: f32, regions: Option<&[Box3]>) -> Result<DsvClear> {
        if flags.is_empty() || !ClearFlags::all().contains(flags) {
            return Err(err::invalid(
                ID,
                DSV_API,
                format!("ClearFlags {:#x} must select depth, stencil or both", flags.bits()),
            ));
        }
        let depth = clamp_depth(depth);
        let bundle = self.ty == CommandListType::Bundle;
        let dsv = self.shadow.dsv.clone();
        let mut planes = flags;
        if let Some(c) = &dsv {
            if !c.resource.format.has_stencil() {
                planes.remove(ClearFlags::STENCIL);
            }
            // A plane is read-only through its view's flags or through the pass that binds it.
            let mut read_only = match self.pass {
                Pass::Open { read_only, .. } => read_only,
                _ => ClearFlags::empty(),
            };
            read_only.set(
                ClearFlags::DEPTH,
                read_only.contains(ClearFlags::DEPTH) || c.view.desc.flags.contains(DsvFlags::READ_ONLY_DEPTH),
            );
            read_only.set(
                ClearFlags::STENCIL,
                read_only.contains(ClearFlags::STENCIL) || c.view.desc.flags.contains(DsvFlags::READ_ONLY_STENCIL),
            );
            if planes.intersects(read_only) {
                return Err(err::invalid(ID, DSV_API, "the bound depth-stencil view's plane is read-only"));
            }
            if matches!(self.pass, Pass::Open { .. }) {
                let (d, s) = self.shadow.dsv_planes;
                if planes.contains(ClearFlags::DEPTH) && !d || planes.contains(ClearFlags::STENCIL) && !s {
                    return Err(err::invalid(
                        ID,
                        DSV_API,
                        "the render pass does not bind that plane (its beginning access is NO_ACCESS)",
                    ));
                }
            }
        } else if !bundle {
            self.report_unbound_dsv();
        }
        let native = self.device.async_impl == AsyncCommandsImpl::Native;
        let target = if native {
            None
        } else {
            dsv.and_then(|c| ClearTarget::dsv(c.view, &c.resource)).map(|t| t.with_regions(regions))
        };
        Ok(DsvClear { depth, planes, target })
    }
}

//! The bound-clear routes and what they emit: legacy view clears through private views made
//! from the bind-time capture, or runtime draws (one full-viewport triangle per region and
//! array slice, with a scissor) followed by the restore of the app's graphics state.

use super::lowering::Lowering;
use super::plan::{plan_bound_clear, BoundClearFacts, BoundClearRoute};
use super::pso_cache::{ClearOutput, ClearPsoKey, OutputClass};
use crate::err;
use crate::objects::{PipelineState, RootSignature};
use crate::shadow::Shadow;
use asyncmd_ddi::{Command, DepthStencilView, PrimitiveTopology, RenderTargetView};
use asyncmd_types::{
    draw_clear_color, draw_clear_depth, view_clear_color, Box3, ClearData, ClearFlags, Format, MessageId, Rect,
    ResourceDesc, Result, SampleDesc, ViewRange, Viewport,
};

/// The view of a bound output.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TargetView {
    Rtv(RenderTargetView),
    Dsv(DepthStencilView),
}

/// One bound output of a bound clear, resolved from the bind-time capture.
#[derive(Clone, Debug)]
pub(crate) struct ClearTarget {
    /// The render-target slot (0 for the depth-stencil target).
    pub(crate) slot: u8,
    pub(crate) view: TargetView,
    /// The view's format.
    pub(crate) format: Format,
    /// Width and height of the view's mip.
    pub(crate) extent: (u32, u32),
    /// Array (or depth) slices the view selects.
    pub(crate) slices: u32,
    pub(crate) samples: SampleDesc,
    /// Regions clipped to the target: (rectangle, first slice in the view, slice count); empty
    /// regions are dropped.
    pub(crate) boxes: Vec<(Rect, u32, u32)>,
    /// The clear value (colour targets).
    pub(crate) value: ClearData,
}

impl ClearTarget {
    /// A target from a render-target view and its resource's description.
    pub(crate) fn rtv(slot: u8, view: RenderTargetView, resource: &ResourceDesc) -> Option<Self> {
        Self::new(slot, TargetView::Rtv(view), view.desc.format, view.desc.range(resource)?, resource)
    }

    /// A target from a depth-stencil view and its resource's description.
    pub(crate) fn dsv(view: DepthStencilView, resource: &ResourceDesc) -> Option<Self> {
        Self::new(0, TargetView::Dsv(view), view.desc.format, view.desc.range(resource)?, resource)
    }

    fn new(slot: u8, view: TargetView, format: Format, range: ViewRange, resource: &ResourceDesc) -> Option<Self> {
        let (w, h, _) = resource.mip_extent(range.mip);
        Some(ClearTarget {
            slot,
            view,
            format,
            extent: (w, h),
            slices: range.slices,
            samples: resource.sample_desc,
            boxes: Vec::new(),
            value: ClearData::default(),
        })
    }

    /// Clips `regions` (`None`: the whole view) to the target. Box front and back count
    /// slices from the view's first slice; back is clamped to the view.
    pub(crate) fn with_regions(mut self, regions: Option<&[Box3]>) -> Self {
        self.boxes = asyncmd_types::clip_boxes(regions, self.extent.0, self.extent.1, self.slices);
        self
    }

    /// Whether a rectangle covers the whole view.
    fn whole(&self, r: &Rect) -> bool {
        *r == Rect::new(0, 0, self.extent.0 as i32, self.extent.1 as i32)
    }
}

/// The depth a bound clear writes: clamped to [0, 1], NaN to 0.
pub(crate) fn clamp_depth(depth: f32) -> f32 {
    // `clamp` keeps -0.0 (it compares equal to 0.0); the spec stores +0 for it and for NaN.
    if depth.is_nan() || depth == 0.0 {
        0.0
    } else {
        depth.clamp(0.0, 1.0)
    }
}

/// A bound clear of `targets` under the fallback (`ds`: the planes, depth and stencil of a
/// depth-stencil clear), on the route `facts` plan.
pub(crate) fn lower(
    lw: &mut Lowering,
    api: &str,
    targets: Vec<ClearTarget>,
    ds: Option<(ClearFlags, f32, u8)>,
    facts: &BoundClearFacts,
) -> Result<()> {
    let (flags, depth, stencil) = ds.unwrap_or((ClearFlags::empty(), 0.0, 0));
    let route = plan_bound_clear(facts);
    tracing::debug!(?route, ?facts, "{api}: fallback route");
    match route {
        BoundClearRoute::Rejected(why) => {
            Err(err::fail(MessageId::AsyncCommandsFallbackUnsupported, api, why.reason()))
        }
        BoundClearRoute::Legacy => {
            lw.bound_clear_legacy(&targets, flags, depth, stencil);
            Ok(())
        }
        BoundClearRoute::DrawsAlone => lw.clear_targets_alone(targets),
        BoundClearRoute::Draws => {
            let (bound, dsv_format) = bound_formats(lw.shadow);
            let planes = ds.map(|(f, _, _)| (f.contains(ClearFlags::DEPTH), f.contains(ClearFlags::STENCIL)));
            lw.bound_clear_draws(&targets, planes, depth, stencil, bound, dsv_format)
        }
    }
}

/// Formats of the bound render targets in slot order, and of the bound depth-stencil view.
fn bound_formats(shadow: &Shadow) -> (Vec<Format>, Format) {
    let rtvs = shadow.rtvs.iter().map(|c| c.as_ref().map_or(Format::Unknown, |c| c.view.desc.format));
    (rtvs.collect(), shadow.dsv.as_ref().map_or(Format::Unknown, |c| c.view.desc.format))
}

impl Lowering<'_> {
    /// Legacy view clears of every region of `targets`, through private views narrowed to the
    /// regions' slices. Colour values take the float a view clear takes (integers above 2^24
    /// may round, subnormals flush: the spec's inexact legacy route).
    pub(crate) fn bound_clear_legacy(&mut self, targets: &[ClearTarget], flags: ClearFlags, depth: f32, stencil: u8) {
        for t in targets {
            for (rect, first, count) in &t.boxes {
                let rects = if t.whole(rect) { Vec::new() } else { vec![*rect] };
                match t.view {
                    TargetView::Rtv(v) => {
                        let view = RenderTargetView { resource: v.resource, desc: v.desc.narrowed(*first, *count) };
                        let color = view_clear_color(t.format, &t.value);
                        self.record(Command::ClearRenderTargetView { view, color, rects });
                    }
                    TargetView::Dsv(v) => {
                        let view = DepthStencilView { resource: v.resource, desc: v.desc.narrowed(*first, *count) };
                        self.record(Command::ClearDepthStencilView { view, flags, depth, stencil, rects });
                    }
                }
            }
        }
    }

    /// The clear pipeline of `key` from the device's cache, kept alive by the list's allocator.
    fn clear_pso(&self, root: &RootSignature, key: &ClearPsoKey) -> Result<PipelineState> {
        let pso = self.resources.clear_pso(self.factory, root, key)?;
        self.cache.keep_pipeline(&pso);
        Ok(pso)
    }

    /// Draws `targets` (colour targets, or the one depth-stencil target with `ds` planes):
    /// one triangle covering the viewport of each region and slice (inside the smallest
    /// output), then
    /// restores the app's graphics state. `bound` are the formats of every bound render
    /// target in slot order, `dsv_format` the bound depth-stencil format.
    #[allow(clippy::too_many_arguments)] // one draw batch, spelled out
    pub(crate) fn bound_clear_draws(
        &mut self,
        targets: &[ClearTarget],
        ds: Option<(bool, bool)>,
        depth: f32,
        stencil: u8,
        bound: Vec<Format>,
        dsv_format: Format,
    ) -> Result<()> {
        let Some(samples) = targets.first().map(|t| t.samples) else { return Ok(()) };
        let root = self.resources.clear_root(self.factory)?;
        let mut psos = Vec::with_capacity(targets.len());
        for t in targets {
            let output = match ds {
                Some((depth, stencil)) => ClearOutput::DepthStencil { depth, stencil },
                None => ClearOutput::Color { slot: t.slot, class: OutputClass::of(t.format) },
            };
            let key = ClearPsoKey { rtv_formats: bound.clone(), dsv_format, samples, output };
            psos.push(self.clear_pso(&root, &key)?);
        }
        self.record(Command::SetGraphicsRootSignature(root.id()));
        self.record(Command::SetPrimitiveTopology(PrimitiveTopology::TriangleList));
        let stencil_ref = ds.is_some_and(|(_, s)| s);
        if stencil_ref {
            self.record(Command::SetStencilRef(stencil as u32));
        }
        for (t, pso) in targets.iter().zip(psos) {
            self.record(Command::SetPipelineState(pso.0.id));
            // The device converts the draw's float: it is chosen so that any rounding the
            // device may use stores the value the other routes store.
            let v = draw_clear_color(t.format, &t.value).uints();
            let depth = draw_clear_depth(t.format, depth);
            for (rect, first, count) in &t.boxes {
                // The triangle covers its viewport: the region bounds it as well as the
                // scissor (lavapipe 22.3 scissors multisampled draws half a texel up and left).
                self.record(Command::SetViewports(vec![Viewport::of_rect(rect)]));
                self.record(Command::SetScissorRects(vec![*rect]));
                for slice in *first..first + count {
                    let constants = vec![v[0], v[1], v[2], v[3], depth.to_bits(), slice];
                    self.record(Command::SetGraphicsRootConstants { parameter: 0, offset: 0, values: constants });
                    self.record(Command::DrawInstanced {
                        vertex_count: 3,
                        instance_count: 1,
                        start_vertex: 0,
                        start_instance: 0,
                    });
                }
            }
        }
        self.restore_graphics_state(stencil_ref);
        Ok(())
    }
}

impl Lowering<'_> {
    /// Draws each of `targets` (render targets) bound alone as slot 0, over its own extent,
    /// then binds the app's targets again: the exact route where draws into the bound outputs
    /// together cannot cover a clear (regions past the smallest output, mixed sample counts)
    /// and the texture clears' exact MSAA route. Outside render passes only.
    pub(crate) fn clear_targets_alone(&mut self, targets: Vec<ClearTarget>) -> Result<()> {
        for mut t in targets {
            let TargetView::Rtv(view) = t.view else { continue };
            t.slot = 0;
            self.record(Command::SetRenderTargets { rtvs: vec![view], dsv: None });
            let format = t.format;
            self.bound_clear_draws(std::slice::from_ref(&t), None, 0.0, 0, vec![format], Format::Unknown)?;
        }
        self.restore_render_targets();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asyncmd_ddi::ResourceId;
    use asyncmd_types::{RenderTargetViewDesc, RtvDimension};

    fn target() -> ClearTarget {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 64, 32).with_array(4);
        let view = RenderTargetView {
            resource: ResourceId(1),
            desc: RenderTargetViewDesc {
                format: Format::R8G8B8A8Unorm,
                dimension: RtvDimension::Texture2DArray { mip: 0, first_slice: 1, array_size: 3, plane: 0 },
            },
        };
        ClearTarget::rtv(0, view, &desc).unwrap()
    }

    #[test]
    fn regions_clip_to_the_view_and_empty_ones_drop() {
        let t = target().with_regions(None);
        assert_eq!(t.boxes, vec![(Rect::new(0, 0, 64, 32), 0, 3)]);
        let t = target().with_regions(Some(&[
            Box3::new(10, 10, 0, 100, 20, 1),
            Box3::new(0, 0, 2, 8, 8, 9),
            Box3::new(5, 5, 0, 5, 9, 1),
            Box3::new(0, 0, 3, 8, 8, 4),
        ]));
        assert_eq!(t.boxes, vec![(Rect::new(10, 10, 64, 20), 0, 1), (Rect::new(0, 0, 8, 8), 2, 1)]);
    }

    #[test]
    fn bound_clear_depths_clamp() {
        assert_eq!(clamp_depth(f32::NAN), 0.0);
        assert_eq!(clamp_depth(-3.0), 0.0);
        assert_eq!(clamp_depth(2.0), 1.0);
    }
}

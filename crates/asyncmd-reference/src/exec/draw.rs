//! Draws of the built-in clear shaders and render passes.
//!
//! The rasterizer is a plain edge-function rasterizer with the top-left rule, sampling at the
//! standard D3D sample positions. Depth and stencil follow the pipeline; colour goes to every
//! bound target through its write mask.

use super::clear::rtv_clear_texel;
use super::pixels::{encode_depth, masked_write, plane_codec_format};
use super::surface::Surface;
use super::{Exec, PassEnd};
use crate::memory::RefResource;
use asyncmd_ddi::{ColorWriteMask, DepthStencilView, PipelineDesc, RenderTargetView, ResourceId, ShaderId, StencilOp};
use asyncmd_types::{
    decode_texel, encode_texel, BeginningAccess, ClearData, ClearFlags, EndingAccess, Format, PipelineStatistics,
    RenderPassDepthStencil, RenderPassFlags, RenderPassRenderTarget, ResourceDimension,
};
use std::sync::Arc;

/// Standard sample positions in 1/16 pixel units, relative to the pixel centre.
fn sample_positions(count: u32) -> &'static [(i8, i8)] {
    match count {
        2 => &[(4, 4), (-4, -4)],
        4 => &[(-2, -6), (6, -2), (-6, 2), (2, 6)],
        8 => &[(1, -3), (-1, 3), (5, 1), (-3, -5), (-5, 5), (-7, -1), (3, 7), (7, -7)],
        16 => &[
            (1, 1),
            (-1, -3),
            (-3, 2),
            (4, -1),
            (-5, -2),
            (2, 5),
            (5, 3),
            (3, -5),
            (-2, 6),
            (0, -7),
            (-4, -6),
            (-6, 4),
            (-8, 0),
            (7, -4),
            (6, 7),
            (-7, -8),
        ],
        _ => &[(0, 0)],
    }
}

/// One target the draw writes: its resource, the subresource surface of the selected slice,
/// and how texels are encoded.
struct Target {
    res: Arc<RefResource>,
    surface: Surface,
    z: u32,
    format: Format,
    mask: ColorWriteMask,
}

fn stencil_op(op: StencilOp, cur: u8, reference: u8) -> u8 {
    match op {
        StencilOp::Keep => cur,
        StencilOp::Zero => 0,
        StencilOp::Replace => reference,
        StencilOp::IncrSat => cur.saturating_add(1),
        StencilOp::DecrSat => cur.saturating_sub(1),
        StencilOp::Invert => !cur,
        StencilOp::Incr => cur.wrapping_add(1),
        StencilOp::Decr => cur.wrapping_sub(1),
    }
}

impl Exec<'_> {
    fn color_target(&self, view: &RenderTargetView, slice_index: u32, mask: ColorWriteMask) -> Option<Target> {
        let res = self.resource(view.resource)?;
        let range = view.desc.range(&res.desc)?;
        let slice = range.first_slice + if slice_index < range.slices { slice_index } else { 0 };
        let (sub, z) = if res.desc.dimension == ResourceDimension::Texture3D {
            (res.desc.subresource_index(range.mip, 0, 0), slice)
        } else {
            (res.desc.subresource_index(range.mip, slice, range.plane), 0)
        };
        let surface = Surface::subresource(&res, sub)?;
        Some(Target { res, surface, z, format: view.desc.format, mask })
    }

    fn depth_planes(
        &self,
        view: &DepthStencilView,
        slice_index: u32,
    ) -> Option<(Arc<RefResource>, Option<Surface>, Option<Surface>)> {
        let res = self.resource(view.resource)?;
        let range = view.desc.range(&res.desc)?;
        let slice = range.first_slice + if slice_index < range.slices { slice_index } else { 0 };
        let depth = Surface::subresource(&res, res.desc.subresource_index(range.mip, slice, 0));
        let stencil = if res.desc.format.has_stencil() {
            Surface::subresource(&res, res.desc.subresource_index(range.mip, slice, 1))
        } else {
            None
        };
        Some((res, depth, stencil))
    }

    pub(crate) fn draw(&mut self, vertex_count: u32, instance_count: u32, start_vertex: u32, _start_instance: u32) {
        let Some(pipeline) = self.state.pipeline.clone() else { return };
        let PipelineDesc::Graphics(pso) = &pipeline.desc else { return };
        if pso.vs != ShaderId::ClearVs {
            return;
        }
        let root = &self.state.graphics;
        let constants: [u32; 6] = std::array::from_fn(|i| root.constant(0, i));
        let vs_depth = f32::from_bits(constants[4]);
        let slice = constants[5];
        let (Some(vp), Some(scissor)) = (self.state.viewports.first().copied(), self.state.scissors.first().copied())
        else {
            // D3D12 always scissors: with no scissor rectangle set, nothing is drawn.
            return;
        };
        let triangles = (vertex_count / 3) as u64 * instance_count as u64;
        let mut stats = PipelineStatistics {
            ia_vertices: vertex_count as u64 * instance_count as u64,
            ia_primitives: triangles,
            vs_invocations: vertex_count as u64 * instance_count as u64,
            c_invocations: triangles,
            c_primitives: triangles,
            ..Default::default()
        };
        let mut passed = 0u64;
        let rtvs = self.state.rtvs.clone();
        let targets: Vec<Option<Target>> =
            rtvs.iter().enumerate().map(|(i, v)| self.color_target(v, slice, pso.write_masks[i])).collect();
        let depth = self.state.dsv.and_then(|v| self.depth_planes(&v, slice).map(|d| (v, d)));
        // Raster bounds: viewport ∩ scissor ∩ the smallest bound output.
        let mut bounds = (
            vp.top_left_x.max(0.0).floor() as i64,
            vp.top_left_y.max(0.0).floor() as i64,
            (vp.top_left_x + vp.width).ceil() as i64,
            (vp.top_left_y + vp.height).ceil() as i64,
        );
        bounds.0 = bounds.0.max(scissor.left as i64);
        bounds.1 = bounds.1.max(scissor.top as i64);
        bounds.2 = bounds.2.min(scissor.right as i64);
        bounds.3 = bounds.3.min(scissor.bottom as i64);
        let mut samples = pso.sample_desc.count.max(1);
        for t in targets.iter().flatten() {
            bounds.2 = bounds.2.min(t.surface.width as i64);
            bounds.3 = bounds.3.min(t.surface.height as i64);
            samples = t.surface.samples;
        }
        if let Some((_, (_, Some(d), _))) = &depth {
            bounds.2 = bounds.2.min(d.width as i64);
            bounds.3 = bounds.3.min(d.height as i64);
            samples = d.samples;
        }
        let ps_value = ClearData::from_uints([constants[0], constants[1], constants[2], constants[3]]);
        let encoded: Vec<Option<Vec<u8>>> = targets
            .iter()
            .map(|t| {
                t.as_ref().and_then(|t| {
                    // A float output reaches a float target bit for bit (subnormals and NaN
                    // payloads too); normalized targets convert as a view clear does.
                    let float_target = t.format.info().class == asyncmd_types::ComponentClass::Float;
                    if pso.ps == Some(ShaderId::ClearPsFloat) && !float_target {
                        rtv_clear_texel(t.format, &ps_value.floats())
                            .or_else(|| encode_texel(t.format, &ps_value).map(|(b, n)| b[..n].to_vec()))
                    } else {
                        encode_texel(t.format, &ps_value).map(|(b, n)| b[..n].to_vec())
                    }
                })
            })
            .collect();
        let writes_color =
            matches!(pso.ps, Some(ShaderId::ClearPsFloat | ShaderId::ClearPsUint | ShaderId::ClearPsSint));
        let z_ndc = if pso.ps == Some(ShaderId::ClearPsDepth) { f32::from_bits(constants[4]) } else { vs_depth };
        let z = (vp.min_depth + z_ndc * (vp.max_depth - vp.min_depth))
            .clamp(vp.min_depth.min(vp.max_depth), vp.max_depth.max(vp.min_depth));
        let positions = sample_positions(samples);
        let ds = pso.depth_stencil;
        let reference = self.state.stencil_ref as u8;
        for _triangle in 0..triangles.min(1 << 20) {
            // The clear vertex shader's triangle covers the whole viewport: every sample inside
            // the viewport is covered, so the edge test reduces to the viewport bounds.
            let _ = start_vertex;
            for y in bounds.1.max(0)..bounds.3 {
                for x in bounds.0.max(0)..bounds.2 {
                    let mut any = false;
                    for (s, &(sx, sy)) in positions.iter().enumerate().take(samples as usize) {
                        if pso.sample_mask & (1 << s) == 0 {
                            continue;
                        }
                        let px = x as f32 + 0.5 + sx as f32 / 16.0;
                        let py = y as f32 + 0.5 + sy as f32 / 16.0;
                        if px < vp.top_left_x
                            || py < vp.top_left_y
                            || px >= vp.top_left_x + vp.width
                            || py >= vp.top_left_y + vp.height
                        {
                            continue;
                        }
                        let (x, y, s) = (x as u32, y as u32, s as u32);
                        if let Some((view, (res, dsurf, ssurf))) = &depth {
                            let mut data = res.write();
                            let read_only_depth = view.desc.flags.contains(asyncmd_types::DsvFlags::READ_ONLY_DEPTH);
                            let read_only_stencil =
                                view.desc.flags.contains(asyncmd_types::DsvFlags::READ_ONLY_STENCIL);
                            let depth_pass = match dsurf {
                                Some(d) if ds.depth_enable => {
                                    let o = d.texel(x, y, 0, s) as usize;
                                    let codec = plane_codec_format(res.desc.format, 0);
                                    let stored = data
                                        .get(o..o + d.sample_bytes())
                                        .and_then(|b| decode_texel(codec, b))
                                        .map_or(0.0, |t| t.floats()[0]);
                                    let pass = ds.depth_func.test(z, stored);
                                    if pass && ds.depth_write && !read_only_depth {
                                        let bytes = encode_depth(res.desc.format, z);
                                        if let Some(t) = data.get_mut(o..o + bytes.len().min(d.sample_bytes())) {
                                            let n = t.len();
                                            t.copy_from_slice(&bytes[..n]);
                                        }
                                    }
                                    pass
                                }
                                _ => true,
                            };
                            let stencil_pass = match ssurf {
                                Some(st) if ds.stencil_enable => {
                                    let o = st.texel(x, y, 0, s) as usize;
                                    let cur = data.get(o).copied().unwrap_or(0);
                                    let face = ds.front;
                                    let pass =
                                        face.func.test(reference & ds.stencil_read_mask, cur & ds.stencil_read_mask);
                                    let op = if !pass {
                                        face.fail
                                    } else if !depth_pass {
                                        face.depth_fail
                                    } else {
                                        face.pass
                                    };
                                    let new = stencil_op(op, cur, reference);
                                    if !read_only_stencil {
                                        if let Some(b) = data.get_mut(o) {
                                            *b = (cur & !ds.stencil_write_mask) | (new & ds.stencil_write_mask);
                                        }
                                    }
                                    pass
                                }
                                _ => true,
                            };
                            if !(depth_pass && stencil_pass) {
                                continue;
                            }
                        }
                        any = true;
                        passed += 1;
                        if writes_color {
                            for (t, value) in targets.iter().zip(&encoded) {
                                let (Some(t), Some(value)) = (t, value) else { continue };
                                let mut data = t.res.write();
                                let o = t.surface.texel(x, y, t.z, s) as usize;
                                if let Some(old) = data.get_mut(o..o + t.surface.sample_bytes()) {
                                    let n = old.len().min(value.len());
                                    masked_write(t.format, &mut old[..n], &value[..n], t.mask);
                                }
                            }
                        }
                    }
                    if any {
                        stats.ps_invocations += 1;
                    }
                }
            }
        }
        self.count_draw(passed, &stats);
    }

    pub(crate) fn begin_render_pass(
        &mut self,
        targets: &[RenderPassRenderTarget<RenderTargetView, ResourceId>],
        depth_stencil: Option<&RenderPassDepthStencil<DepthStencilView, ResourceId>>,
        flags: RenderPassFlags,
    ) {
        let resuming = flags.contains(RenderPassFlags::RESUMING_PASS);
        let mut bound = Vec::new();
        let mut end = PassEnd { flags, resolves: Vec::new() };
        for t in targets {
            if !resuming && !self.state.predicated_off {
                if let BeginningAccess::Clear(value) = t.beginning {
                    self.clear_rtv(&t.view, &value.floats(), &[]);
                }
            }
            if t.beginning.binds() {
                bound.push(t.view);
            }
            if matches!(t.ending, EndingAccess::Resolve { .. }) {
                end.resolves.push((t.view, t.ending));
            }
        }
        self.state.rtvs = bound;
        self.state.dsv = None;
        if let Some(ds) = depth_stencil {
            if !resuming && !self.state.predicated_off {
                let mut clear = ClearFlags::empty();
                let (mut depth, mut stencil) = (0.0, 0);
                if let BeginningAccess::Clear(v) = ds.depth_beginning {
                    clear |= ClearFlags::DEPTH;
                    depth = v.floats()[0];
                }
                if let BeginningAccess::Clear(v) = ds.stencil_beginning {
                    clear |= ClearFlags::STENCIL;
                    stencil = v.uints()[1] as u8;
                }
                if !clear.is_empty() {
                    self.clear_dsv(&ds.view, clear, depth, stencil, &[], false);
                }
            }
            if ds.depth_beginning.binds() || ds.stencil_beginning.binds() {
                self.state.dsv = Some(ds.view);
            }
        }
        self.state.pass = Some(end);
    }

    pub(crate) fn end_render_pass(&mut self) {
        let Some(end) = self.state.pass.take() else { return };
        if !end.flags.contains(RenderPassFlags::SUSPENDING_PASS) && !self.state.predicated_off {
            for (view, ending) in end.resolves {
                let Some(src) = self.resource(view.resource) else { continue };
                if let Some(r) = asyncmd_ddi::Resolve::for_pass_end(&view, &src.desc, &ending) {
                    self.resolve(&r);
                }
            }
        }
        self.state.rtvs.clear();
        self.state.dsv = None;
    }
}

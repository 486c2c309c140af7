//! Graphics and compute state, render targets, view clears, render passes, draws, dispatches
//! and bundles.

use super::semantics::{BoundTarget, Subs, Use};
use super::{CommandRecorder, Lists, Pass};
use crate::descriptor::CpuDescriptorHandle;
use crate::descriptor::{CapturedDsv, CapturedRtv};
use crate::err;
use crate::objects::{PipelineState, RootSignature};
use crate::resource::Resource;
use crate::shadow::RootArg;
use crate::track::hazards::Access;
use crate::tracked::Tracked;
use asyncmd_ddi::{Command, GpuAddress, PipelineDesc, PrimitiveTopology, RootParameter};
use asyncmd_types::{
    BarrierAccess, ClearFlags, DsvFlags, EndingAccess, MessageId, Rect, RenderPassDepthStencil, RenderPassFlags,
    RenderPassRenderTarget, ResourceFlags, Result, Viewport,
};
use smallvec::SmallVec;

const GRAPHICS: Lists = Lists::DIRECT.union(Lists::BUNDLE);
const ANY_SHADER: Lists = Lists::DIRECT.union(Lists::COMPUTE).union(Lists::BUNDLE);

const STATE: MessageId = MessageId::StateSettingInvalid;

fn check_rects(api: &str, rects: &[Rect]) -> Result<()> {
    match rects.iter().find(|r| r.left > r.right || r.top > r.bottom) {
        Some(r) => Err(err::invalid(
            MessageId::ClearRenderTargetViewInvalidParameters,
            api,
            format!("inverted rectangle {r:?}"),
        )),
        None => Ok(()),
    }
}

/// Subresources a view range covers (3D views cover their one mip subresource).
fn view_subresources(res: &Resource, mip: u32, first: u32, count: u32, planes: &[u32]) -> Vec<u32> {
    let desc = res.desc();
    if desc.dimension == asyncmd_types::ResourceDimension::Texture3D {
        return vec![desc.subresource_index(mip, 0, 0)];
    }
    planes.iter().flat_map(|&p| (first..first + count).map(move |s| desc.subresource_index(mip, s, p))).collect()
}

/// A render target's subresources, as draws write them.
/// The first two render targets that name one subresource, if any: D3D forbids binding a
/// subresource to two slots (two attachments writing one image; lavapipe corrupts its heap
/// with it, `docs/reliability.md`).
fn shared_subresource(targets: &[CapturedRtv]) -> Option<(usize, usize)> {
    let overlap = |a: &CapturedRtv, b: &CapturedRtv| {
        if a.view.resource != b.view.resource {
            return false;
        }
        match (a.view.desc.range(&a.resource), b.view.desc.range(&b.resource)) {
            (Some(x), Some(y)) => {
                x.mip == y.mip
                    && x.plane == y.plane
                    && x.first_slice < y.first_slice.saturating_add(y.slices)
                    && y.first_slice < x.first_slice.saturating_add(x.slices)
            }
            // A view that names no range of its texture was refused at capture.
            _ => false,
        }
    };
    (0..targets.len()).find_map(|i| (i + 1..targets.len()).find(|&j| overlap(&targets[i], &targets[j])).map(|j| (i, j)))
}

fn rtv_target(c: &CapturedRtv, res: Resource) -> BoundTarget {
    let subs = c.view.desc.range(res.desc()).map_or_else(SmallVec::new, |r| {
        view_subresources(&res, r.mip, r.first_slice, r.slices, &[r.plane]).into_iter().collect()
    });
    (res, subs, Access::DRAW_RENDER_TARGET)
}

/// A depth-stencil target's planes, as draws write them (or read them, where bound read-only).
fn dsv_targets(c: &CapturedDsv, res: Resource, read_only: ClearFlags) -> Vec<BoundTarget> {
    let Some(r) = c.view.desc.range(res.desc()) else { return Vec::new() };
    let mut out = Vec::new();
    let planes: &[(u32, ClearFlags, DsvFlags)] =
        &[(0, ClearFlags::DEPTH, DsvFlags::READ_ONLY_DEPTH), (1, ClearFlags::STENCIL, DsvFlags::READ_ONLY_STENCIL)];
    for &(plane, clear, dsv) in planes {
        if plane == 1 && !res.desc().format.has_stencil() {
            continue;
        }
        let read = read_only.contains(clear) || c.view.desc.flags.contains(dsv);
        let access = if read { Access::DRAW_DEPTH_READ } else { Access::DRAW_DEPTH_STENCIL };
        let subs = view_subresources(&res, r.mip, r.first_slice, r.slices, &[plane]).into_iter().collect();
        out.push((res.clone(), subs, access));
    }
    out
}

impl CommandRecorder {
    /// The UAVs the bound root arguments name, as a draw or dispatch uses them.
    pub(super) fn shader_uavs(&mut self, api: &str, compute: bool) {
        if !self.tracks_uses() {
            return;
        }
        let (args, root, uav, srv, cbv) = if compute {
            (
                &self.shadow.compute_args,
                &self.shadow.compute_root,
                Access::COMPUTE_UAV,
                Access::COMPUTE_SRV,
                Access::COMPUTE_CBV,
            )
        } else {
            (
                &self.shadow.graphics_args,
                &self.shadow.graphics_root,
                Access::DRAW_UAV,
                Access::DRAW_SRV,
                Access::DRAW_CBV,
            )
        };
        let params = root.as_ref().map(|r| r.desc().parameters.as_slice()).unwrap_or_default();
        // Reads first: a buffer read and written by one dispatch ends written.
        let mut uses: SmallVec<[(asyncmd_ddi::ResourceId, Access); 4]> = args
            .iter()
            .zip(params)
            .filter_map(|(a, p)| match (a, p) {
                (RootArg::View(address), RootParameter::Cbv(..)) => Some((address.resource, cbv)),
                (RootArg::View(address), _) => Some((address.resource, srv)),
                _ => None,
            })
            .collect();
        uses.extend(args.iter().filter_map(|a| match a {
            RootArg::Uav(address) => Some((address.resource, uav)),
            _ => None,
        }));
        for (id, access) in uses {
            self.use_buffer_id(api, id, access);
        }
        self.flush_barriers();
    }

    /// `SetPipelineState`.
    pub fn set_pipeline_state(&mut self, pipeline: &PipelineState) {
        if !self.begin("SetPipelineState", ANY_SHADER, true) {
            return;
        }
        if self.ty == asyncmd_types::CommandListType::Compute && matches!(pipeline.desc(), PipelineDesc::Graphics(_)) {
            return self.remove(err::invalid(STATE, "SetPipelineState", "a graphics pipeline on a compute list"));
        }
        self.keep_object(&*pipeline.0, || Tracked::Pipeline(pipeline.clone()));
        self.shadow.pipeline = Some(pipeline.clone());
        self.record(Command::SetPipelineState(pipeline.0.id));
    }

    /// `SetGraphicsRootSignature`.
    pub fn set_graphics_root_signature(&mut self, root: &RootSignature) {
        if !self.begin("SetGraphicsRootSignature", GRAPHICS, true) {
            return;
        }
        self.keep_object(&*root.0, || Tracked::RootSignature(root.clone()));
        // The one already bound: its arguments stay (D3D12: they do not become stale).
        if self.shadow.graphics_root.as_ref().is_some_and(|r| r.id() == root.id()) {
            return;
        }
        self.shadow.graphics_root = Some(root.clone());
        self.shadow.graphics_args = vec![RootArg::Unset; root.desc().parameters.len()];
        self.record(Command::SetGraphicsRootSignature(root.id()));
    }

    /// `SetComputeRootSignature`.
    pub fn set_compute_root_signature(&mut self, root: &RootSignature) {
        if !self.begin("SetComputeRootSignature", ANY_SHADER, true) {
            return;
        }
        self.keep_object(&*root.0, || Tracked::RootSignature(root.clone()));
        // The one already bound: its arguments stay (D3D12: they do not become stale).
        if self.shadow.compute_root.as_ref().is_some_and(|r| r.id() == root.id()) {
            return;
        }
        self.shadow.compute_root = Some(root.clone());
        self.shadow.compute_args = vec![RootArg::Unset; root.desc().parameters.len()];
        self.record(Command::SetComputeRootSignature(root.id()));
    }

    /// D3D12's rule for a draw or dispatch: the bound root signature is the pipeline's (or one of
    /// the same description, which D3D12 would have made the same object); the built-in
    /// shaders read their arguments where that signature puts them.
    pub(super) fn check_pipeline_root(
        api: &str,
        pipeline: Option<&PipelineState>,
        bound: Option<&RootSignature>,
    ) -> Result<()> {
        match (pipeline, bound) {
            (Some(p), Some(b)) if !std::sync::Arc::ptr_eq(&p.0.root.0, &b.0) && p.0.root.desc() != b.desc() => {
                Err(err::invalid(
                    MessageId::DrawInvalid,
                    api,
                    "the bound root signature is not the one the pipeline state was created with",
                ))
            }
            _ => Ok(()),
        }
    }

    fn check_root_uav(api: &str, address: GpuAddress) -> Result<()> {
        if !address.offset.is_multiple_of(4) {
            return Err(err::invalid(STATE, api, format!("address offset {} is not 4-byte aligned", address.offset)));
        }
        Ok(())
    }

    /// Parameter `parameter` of the bound root signature `root`, or the error naming `api`.
    pub(super) fn root_parameter<'r>(
        api: &str,
        root: Option<&'r RootSignature>,
        parameter: u32,
    ) -> Result<&'r RootParameter> {
        let root = root.ok_or_else(|| err::invalid(STATE, api, "no root signature is set"))?;
        root.desc()
            .parameters
            .get(parameter as usize)
            .ok_or_else(|| err::invalid(STATE, api, format!("root parameter {parameter} does not exist")))
    }

    fn check_root_param(
        api: &str,
        root: Option<&RootSignature>,
        parameter: u32,
        want_constants: Option<(u32, usize)>,
    ) -> Result<()> {
        let p = Self::root_parameter(api, root, parameter)?;
        match (p, want_constants) {
            (RootParameter::Constants { count, .. }, Some((offset, n))) if offset as usize + n <= *count as usize => {
                Ok(())
            }
            (RootParameter::Constants { count, .. }, Some((offset, n))) => Err(err::invalid(
                STATE,
                api,
                format!("{n} constants at {offset} exceed parameter {parameter}'s {count}"),
            )),
            (RootParameter::Uav(..), None) => Ok(()),
            _ => Err(err::invalid(STATE, api, format!("root parameter {parameter} is {p:?}"))),
        }
    }

    /// A root CBV or SRV: the parameter is one of `class`, and the address is aligned as D3D12
    /// asks (a constant buffer at 256 bytes, a buffer view at 4).
    fn check_root_view(
        api: &str,
        root: Option<&RootSignature>,
        parameter: u32,
        class: asyncmd_types::RegisterClass,
        address: GpuAddress,
    ) -> Result<()> {
        let p = Self::root_parameter(api, root, parameter)?;
        if p.root_descriptor().map(|(c, _)| c) != Some(class) {
            return Err(err::invalid(STATE, api, format!("root parameter {parameter} is {p:?}")));
        }
        let align = if class == asyncmd_types::RegisterClass::Cbv { 256 } else { 4 };
        if !address.offset.is_multiple_of(align) {
            return Err(err::invalid(
                STATE,
                api,
                format!("address offset {} is not {align}-byte aligned", address.offset),
            ));
        }
        Ok(())
    }

    fn set_root_view(
        &mut self,
        api: &str,
        compute: bool,
        parameter: u32,
        class: asyncmd_types::RegisterClass,
        address: GpuAddress,
    ) {
        if !self.begin(api, if compute { ANY_SHADER } else { GRAPHICS }, true) {
            return;
        }
        let root = if compute { self.shadow.compute_root.as_ref() } else { self.shadow.graphics_root.as_ref() };
        let r = Self::check_root_view(api, root, parameter, class, address);
        if self.check(r) {
            let args = if compute { &mut self.shadow.compute_args } else { &mut self.shadow.graphics_args };
            if let Some(arg) = args.get_mut(parameter as usize) {
                *arg = RootArg::View(address);
            }
            self.record(if compute {
                Command::SetComputeRootView { parameter, address }
            } else {
                Command::SetGraphicsRootView { parameter, address }
            });
        }
    }

    /// `SetComputeRootConstantBufferView`: `address` 256-byte aligned.
    pub fn set_compute_root_constant_buffer_view(&mut self, parameter: u32, address: GpuAddress) {
        self.set_root_view(
            "SetComputeRootConstantBufferView",
            true,
            parameter,
            asyncmd_types::RegisterClass::Cbv,
            address,
        );
    }

    /// `SetComputeRootShaderResourceView`: a raw or structured buffer from `address`.
    pub fn set_compute_root_shader_resource_view(&mut self, parameter: u32, address: GpuAddress) {
        self.set_root_view(
            "SetComputeRootShaderResourceView",
            true,
            parameter,
            asyncmd_types::RegisterClass::Srv,
            address,
        );
    }

    /// `SetGraphicsRootConstantBufferView`: `address` 256-byte aligned.
    pub fn set_graphics_root_constant_buffer_view(&mut self, parameter: u32, address: GpuAddress) {
        self.set_root_view(
            "SetGraphicsRootConstantBufferView",
            false,
            parameter,
            asyncmd_types::RegisterClass::Cbv,
            address,
        );
    }

    /// `SetGraphicsRootShaderResourceView`: a raw or structured buffer from `address`.
    pub fn set_graphics_root_shader_resource_view(&mut self, parameter: u32, address: GpuAddress) {
        self.set_root_view(
            "SetGraphicsRootShaderResourceView",
            false,
            parameter,
            asyncmd_types::RegisterClass::Srv,
            address,
        );
    }

    /// `SetGraphicsRoot32BitConstants`.
    pub fn set_graphics_root_32bit_constants(&mut self, parameter: u32, values: &[u32], offset: u32) {
        const API: &str = "SetGraphicsRoot32BitConstants";
        if !self.begin(API, GRAPHICS, true) {
            return;
        }
        let r =
            Self::check_root_param(API, self.shadow.graphics_root.as_ref(), parameter, Some((offset, values.len())));
        if self.check(r) {
            RootArg::set_constants(&mut self.shadow.graphics_args, parameter, offset, values);
            self.record(Command::SetGraphicsRootConstants { parameter, offset, values: values.to_vec() });
        }
    }

    /// `SetGraphicsRoot32BitConstant`: one constant, `value`, at dword `offset` of the parameter.
    pub fn set_graphics_root_32bit_constant(&mut self, parameter: u32, value: u32, offset: u32) {
        self.set_graphics_root_32bit_constants(parameter, &[value], offset);
    }

    /// `SetComputeRoot32BitConstant`: one constant, `value`, at dword `offset` of the parameter.
    pub fn set_compute_root_32bit_constant(&mut self, parameter: u32, value: u32, offset: u32) {
        self.set_compute_root_32bit_constants(parameter, &[value], offset);
    }

    /// `SetComputeRoot32BitConstants`.
    pub fn set_compute_root_32bit_constants(&mut self, parameter: u32, values: &[u32], offset: u32) {
        const API: &str = "SetComputeRoot32BitConstants";
        if !self.begin(API, ANY_SHADER, true) {
            return;
        }
        let r = Self::check_root_param(API, self.shadow.compute_root.as_ref(), parameter, Some((offset, values.len())));
        if self.check(r) {
            RootArg::set_constants(&mut self.shadow.compute_args, parameter, offset, values);
            self.record(Command::SetComputeRootConstants { parameter, offset, values: values.to_vec() });
        }
    }

    /// `SetGraphicsRootUnorderedAccessView`.
    pub fn set_graphics_root_unordered_access_view(&mut self, parameter: u32, address: GpuAddress) {
        const API: &str = "SetGraphicsRootUnorderedAccessView";
        if !self.begin(API, GRAPHICS, true) {
            return;
        }
        let r = Self::check_root_param(API, self.shadow.graphics_root.as_ref(), parameter, None)
            .and_then(|()| Self::check_root_uav(API, address));
        if self.check(r) {
            if let Some(arg) = self.shadow.graphics_args.get_mut(parameter as usize) {
                *arg = RootArg::Uav(address);
            }
            self.record(Command::SetGraphicsRootUav { parameter, address });
        }
    }

    /// `SetComputeRootUnorderedAccessView`.
    pub fn set_compute_root_unordered_access_view(&mut self, parameter: u32, address: GpuAddress) {
        const API: &str = "SetComputeRootUnorderedAccessView";
        if !self.begin(API, ANY_SHADER, true) {
            return;
        }
        let r = Self::check_root_param(API, self.shadow.compute_root.as_ref(), parameter, None)
            .and_then(|()| Self::check_root_uav(API, address));
        if self.check(r) {
            if let Some(arg) = self.shadow.compute_args.get_mut(parameter as usize) {
                *arg = RootArg::Uav(address);
            }
            self.record(Command::SetComputeRootUav { parameter, address });
        }
    }

    /// `RSSetViewports`.
    pub fn rs_set_viewports(&mut self, viewports: &[Viewport]) {
        if !self.begin("RSSetViewports", Lists::DIRECT, true) {
            return;
        }
        if viewports.len() > 16 {
            return self.remove(err::invalid(
                STATE,
                "RSSetViewports",
                format!("{} viewports exceed 16", viewports.len()),
            ));
        }
        self.shadow.viewports = Some(viewports.to_vec());
        self.record(Command::SetViewports(viewports.to_vec()));
    }

    /// `RSSetScissorRects`.
    pub fn rs_set_scissor_rects(&mut self, rects: &[Rect]) {
        if !self.begin("RSSetScissorRects", Lists::DIRECT, true) {
            return;
        }
        if rects.len() > 16 {
            return self.remove(err::invalid(
                STATE,
                "RSSetScissorRects",
                format!("{} rectangles exceed 16", rects.len()),
            ));
        }
        self.shadow.scissors = Some(rects.to_vec());
        self.record(Command::SetScissorRects(rects.to_vec()));
    }

    /// `IASetPrimitiveTopology`.
    pub fn ia_set_primitive_topology(&mut self, topology: PrimitiveTopology) {
        if self.begin("IASetPrimitiveTopology", GRAPHICS, true) {
            self.shadow.topology = Some(topology);
            self.record(Command::SetPrimitiveTopology(topology));
        }
    }

    /// `OMSetBlendFactor`.
    pub fn om_set_blend_factor(&mut self, factor: [f32; 4]) {
        if self.begin("OMSetBlendFactor", GRAPHICS, true) {
            self.shadow.blend_factor = Some(factor);
            self.record(Command::SetBlendFactor(factor));
        }
    }

    /// `OMSetStencilRef`.
    pub fn om_set_stencil_ref(&mut self, reference: u32) {
        if self.begin("OMSetStencilRef", GRAPHICS, true) {
            self.shadow.stencil_ref = Some(reference);
            self.record(Command::SetStencilRef(reference));
        }
    }

    /// `OMSetRenderTargets`: binds render targets and a depth-stencil view. The views are read
    /// now, so the descriptors may be rewritten right after.
    pub fn om_set_render_targets(&mut self, rtvs: &[CpuDescriptorHandle], dsv: Option<&CpuDescriptorHandle>) {
        const API: &str = "OMSetRenderTargets";
        if !self.begin(API, Lists::DIRECT, false) {
            return;
        }
        if rtvs.len() > asyncmd_types::SIMULTANEOUS_RENDER_TARGET_COUNT {
            return self.remove(err::invalid(STATE, API, format!("{} render targets exceed 8", rtvs.len())));
        }
        let mut captured = Vec::with_capacity(rtvs.len());
        let mut targets = Vec::new();
        for h in rtvs {
            match h.capture_rtv(API) {
                Ok((c, res)) if res.desc().flags.contains(ResourceFlags::ALLOW_RENDER_TARGET) => {
                    if self.tracks_uses() {
                        targets.push(rtv_target(&c, res));
                    }
                    captured.push(c)
                }
                Ok(_) => return self.remove(err::invalid(STATE, API, "a render target lacks ALLOW_RENDER_TARGET")),
                Err(e) => return self.remove(e),
            }
        }
        if let Some((i, j)) = shared_subresource(&captured) {
            return self.remove(err::invalid(
                STATE,
                API,
                format!("render targets {i} and {j} name the same subresource (one slot per subresource)"),
            ));
        }
        let dsv = match dsv.map(|h| h.capture_dsv(API)) {
            None => None,
            Some(Ok((c, res))) if res.desc().flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL) => {
                if self.tracks_uses() {
                    targets.extend(dsv_targets(&c, res, ClearFlags::empty()));
                }
                Some(c)
            }
            Some(Ok(_)) => {
                return self.remove(err::invalid(STATE, API, "the depth-stencil target lacks ALLOW_DEPTH_STENCIL"))
            }
            Some(Err(e)) => return self.remove(e),
        };
        let views = captured.iter().map(|c| c.view).collect();
        let dsv_view = dsv.as_ref().map(|c| c.view);
        self.shadow.rtvs = captured.into_iter().map(Some).collect();
        self.shadow.dsv = dsv;
        self.bind_targets(API, targets);
        self.record(Command::SetRenderTargets { rtvs: views, dsv: dsv_view });
    }

    /// `ClearRenderTargetView`: clears a view (in `RENDER_TARGET` layout) to a float colour.
    pub fn clear_render_target_view(&mut self, rtv: &CpuDescriptorHandle, color: [f32; 4], rects: &[Rect]) {
        const API: &str = "ClearRenderTargetView";
        if !self.begin(API, Lists::DIRECT, false) {
            return;
        }
        let r = (|| {
            let (c, res) = rtv.capture_rtv(API)?;
            if !res.desc().flags.contains(ResourceFlags::ALLOW_RENDER_TARGET) {
                return Err(err::invalid(
                    MessageId::ClearRenderTargetViewInvalidParameters,
                    API,
                    "the resource lacks ALLOW_RENDER_TARGET",
                ));
            }
            check_rects(API, rects)?;
            let range = c.view.desc.range(res.desc()).ok_or_else(|| {
                err::invalid(MessageId::ClearRenderTargetViewInvalidParameters, API, "the view no longer fits")
            })?;
            let subs = view_subresources(&res, range.mip, range.first_slice, range.slices, &[range.plane]);
            self.uses(API, &[Use { resource: &res, subs: Subs::List(&subs), access: Access::CLEAR_RENDER_TARGET }])?;
            let ty = self.ty;
            self.tracker.access(&res, &subs, BarrierAccess::RENDER_TARGET, ty, API)?;
            Ok(c.view)
        })();
        match r {
            Ok(view) => self.record(Command::ClearRenderTargetView { view, color, rects: rects.to_vec() }),
            Err(e) => self.remove(e),
        }
    }

    /// `ClearDepthStencilView`: clears depth and/or stencil of a view in `DEPTH_STENCIL_WRITE`.
    pub fn clear_depth_stencil_view(
        &mut self,
        dsv: &CpuDescriptorHandle,
        flags: ClearFlags,
        depth: f32,
        stencil: u8,
        rects: &[Rect],
    ) {
        const API: &str = "ClearDepthStencilView";
        if !self.begin(API, Lists::DIRECT, false) {
            return;
        }
        let err = |t: String| err::invalid(MessageId::ClearDepthStencilViewInvalidParameters, API, t);
        let r = (|| {
            let (c, res) = dsv.capture_dsv(API)?;
            if flags.is_empty() {
                return Err(err("ClearFlags selects no plane".into()));
            }
            if flags.contains(ClearFlags::DEPTH) && !(0.0..=1.0).contains(&depth) {
                return Err(err(format!("depth {depth} is outside [0, 1]")));
            }
            if flags.contains(ClearFlags::DEPTH) && c.view.desc.flags.contains(DsvFlags::READ_ONLY_DEPTH)
                || flags.contains(ClearFlags::STENCIL) && c.view.desc.flags.contains(DsvFlags::READ_ONLY_STENCIL)
            {
                return Err(err("the view's plane is read-only".into()));
            }
            check_rects(API, rects)?;
            let range = c.view.desc.range(res.desc()).ok_or_else(|| err("the view no longer fits".into()))?;
            let mut planes = Vec::new();
            if flags.contains(ClearFlags::DEPTH) {
                planes.push(0);
            }
            if flags.contains(ClearFlags::STENCIL) && res.desc().format.has_stencil() {
                planes.push(1);
            }
            let subs = view_subresources(&res, range.mip, range.first_slice, range.slices, &planes);
            self.uses(API, &[Use { resource: &res, subs: Subs::List(&subs), access: Access::CLEAR_DEPTH_STENCIL }])?;
            let ty = self.ty;
            self.tracker.access(&res, &subs, BarrierAccess::DEPTH_STENCIL_WRITE, ty, API)?;
            Ok(c.view)
        })();
        match r {
            Ok(view) => {
                // -0 is stored as +0 on every device (a depth buffer holds no sign).
                let depth = if depth == 0.0 { 0.0 } else { depth };
                self.record(Command::ClearDepthStencilView { view, flags, depth, stencil, rects: rects.to_vec() })
            }
            Err(e) => self.remove(e),
        }
    }

    /// `BeginRenderPass`.
    pub fn begin_render_pass(
        &mut self,
        render_targets: &[RenderPassRenderTarget<CpuDescriptorHandle, &Resource>],
        depth_stencil: Option<&RenderPassDepthStencil<CpuDescriptorHandle, &Resource>>,
        flags: RenderPassFlags,
    ) {
        const API: &str = "BeginRenderPass";
        let resuming = flags.contains(RenderPassFlags::RESUMING_PASS);
        if !self.begin(API, Lists::DIRECT, true) {
            return;
        }
        let err = |t: String| err::invalid(MessageId::RenderPassInvalid, API, t);
        match self.pass {
            Pass::Open { .. } => return self.remove(err("a render pass is already open".into())),
            Pass::Suspended if !resuming => {
                return self.remove(err::fail(
                    MessageId::RenderPassInvalid,
                    API,
                    "the suspended pass must be resumed first",
                ))
            }
            _ => {}
        }
        if render_targets.len() > asyncmd_types::SIMULTANEOUS_RENDER_TARGET_COUNT {
            return self.remove(err(format!("{} render targets exceed 8", render_targets.len())));
        }
        let mut rts = Vec::with_capacity(render_targets.len());
        let mut captured = Vec::with_capacity(render_targets.len());
        let mut bound = Vec::new();
        let mut targets = Vec::new();
        for t in render_targets {
            let (c, res) = match t.view.capture_rtv(API) {
                Ok(v) => v,
                Err(e) => return self.remove(e),
            };
            if let EndingAccess::Resolve { dest, dest_subresource, .. } = t.ending {
                if !self.owns(dest) {
                    return self.remove(err("a resolve destination belongs to another device".into()));
                }
                if self.tracks_uses() {
                    targets.push((dest.clone(), smallvec::smallvec![dest_subresource], Access::RESOLVE_WRITE));
                }
            }
            if self.tracks_uses() {
                targets.push(rtv_target(&c, res));
            }
            let ending = t.ending.map(|r| r.id());
            if t.beginning.binds() {
                bound.push(Some(c.clone()));
            }
            rts.push(RenderPassRenderTarget { view: c.view, beginning: t.beginning, ending });
            captured.push(c);
        }
        if let Some((i, j)) = shared_subresource(&captured) {
            return self.remove(err(format!(
                "render targets {i} and {j} name the same subresource (one slot per subresource)"
            )));
        }
        let ds = match depth_stencil {
            None => None,
            Some(ds) => {
                let (c, res) = match ds.view.capture_dsv(API) {
                    Ok(v) => v,
                    Err(e) => return self.remove(e),
                };
                if self.tracks_uses() {
                    let mut read_only = ClearFlags::empty();
                    read_only.set(ClearFlags::DEPTH, flags.contains(RenderPassFlags::BIND_READ_ONLY_DEPTH));
                    read_only.set(ClearFlags::STENCIL, flags.contains(RenderPassFlags::BIND_READ_ONLY_STENCIL));
                    targets.extend(dsv_targets(&c, res, read_only));
                }
                self.shadow.dsv = (ds.depth_beginning.binds() || ds.stencil_beginning.binds()).then(|| c.clone());
                self.shadow.dsv_planes = (ds.depth_beginning.binds(), ds.stencil_beginning.binds());
                Some(RenderPassDepthStencil {
                    view: c.view,
                    depth_beginning: ds.depth_beginning,
                    stencil_beginning: ds.stencil_beginning,
                    depth_ending: ds.depth_ending.map(|r| r.id()),
                    stencil_ending: ds.stencil_ending.map(|r| r.id()),
                })
            }
        };
        if depth_stencil.is_none() {
            self.shadow.dsv = None;
        }
        self.shadow.rtvs = bound;
        // Before the pass opens: no barrier can go inside it.
        self.bind_targets(API, targets);
        if !self.is_recording() {
            return;
        }
        let mut read_only = ClearFlags::empty();
        read_only.set(ClearFlags::DEPTH, flags.contains(RenderPassFlags::BIND_READ_ONLY_DEPTH));
        read_only.set(ClearFlags::STENCIL, flags.contains(RenderPassFlags::BIND_READ_ONLY_STENCIL));
        self.pass = Pass::Open { suspending: flags.contains(RenderPassFlags::SUSPENDING_PASS), read_only };
        self.record(Command::BeginRenderPass { render_targets: rts, depth_stencil: ds.map(Box::new), flags });
    }

    /// `EndRenderPass`.
    pub fn end_render_pass(&mut self) {
        const API: &str = "EndRenderPass";
        if !self.begin(API, Lists::DIRECT, true) {
            return;
        }
        match self.pass {
            Pass::Open { suspending, .. } => {
                self.pass = if suspending { Pass::Suspended } else { Pass::None };
                self.shadow.rtvs.clear();
                self.shadow.dsv = None;
                self.bind_targets(API, Vec::new());
                self.record(Command::EndRenderPass);
            }
            _ => self.remove(err::invalid(MessageId::RenderPassInvalid, API, "no render pass is open")),
        }
    }

    /// `DrawInstanced`.
    pub fn draw_instanced(&mut self, vertex_count: u32, instance_count: u32, start_vertex: u32, start_instance: u32) {
        const API: &str = "DrawInstanced";
        if !self.begin(API, GRAPHICS, true) {
            return;
        }
        let graphics = matches!(self.shadow.pipeline.as_ref().map(|p| p.desc()), Some(PipelineDesc::Graphics(_)));
        if !graphics || self.shadow.graphics_root.is_none() {
            return self.remove(err::invalid(
                MessageId::DrawInvalid,
                API,
                "needs a graphics pipeline and root signature",
            ));
        }
        if let Err(e) =
            Self::check_pipeline_root(API, self.shadow.pipeline.as_ref(), self.shadow.graphics_root.as_ref())
        {
            return self.remove(e);
        }
        if self.bound_sample_counts_differ() {
            return self.remove(err::invalid(
                MessageId::DrawInvalid,
                API,
                "the bound render targets and depth-stencil target differ in sample count",
            ));
        }
        if self.tracks_uses() {
            self.draw_targets(API);
            self.shader_uavs(API, false);
        }
        self.record(Command::DrawInstanced { vertex_count, instance_count, start_vertex, start_instance });
    }

    /// `ExecuteBundle`: runs a closed bundle with this list's state.
    pub fn execute_bundle(&mut self, bundle: &super::CommandList) {
        const API: &str = "ExecuteBundle";
        if !self.begin(API, Lists::DIRECT, true) {
            return;
        }
        if bundle.ty() != asyncmd_types::CommandListType::Bundle {
            return self.remove(err::invalid(
                MessageId::ExecuteBundleInvalid,
                API,
                format!("a {} list is not a bundle", bundle.ty().name()),
            ));
        }
        match bundle.executable() {
            Ok(exe) => {
                self.absorb_bundle_uses(API, bundle);
                if !self.is_recording() {
                    return;
                }
                self.report_unbound_in_bundle(bundle);
                self.execute_bundle_pieces(bundle);
                if !self.is_recording() {
                    return;
                }
                self.shadow.absorb_bundle(&bundle.shadow);
                self.descriptor_reads.extend_from(&bundle.descriptor_reads);
                self.record(Command::ExecuteBundle(exe))
            }
            Err(e) => self.remove(err::invalid(MessageId::ExecuteBundleInvalid, API, e.text)),
        }
    }
}

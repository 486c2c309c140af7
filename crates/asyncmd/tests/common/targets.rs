//! Render and depth-stencil targets for the bound-clear tests: a texture with its view, the
//! barriers into and out of the target layouts, render-pass targets, the CPU model of a
//! cleared rectangle, and an app pipeline that draws into them.

use super::*;
use asyncmd::ddi::*;
use asyncmd::types::*;
use asyncmd::*;

/// A texture with one render-target or depth-stencil view.
pub struct Bound {
    pub tex: Resource,
    pub view: CpuDescriptorHandle,
    pub _heap: DescriptorHeap,
}

pub fn rt(ctx: &Ctx, desc: ResourceDesc, view: Option<RenderTargetViewDesc>) -> Bound {
    let tex = ctx.texture(&desc.with_flags(ResourceFlags::ALLOW_RENDER_TARGET), BarrierLayout::Common);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    ctx.device.create_render_target_view(&tex, view.as_ref(), &heap.handle(0)).unwrap();
    // Buffers cannot reach the samples of a multisampled texture: those start undefined.
    for s in (0..tex.desc().subresource_count()).filter(|_| !tex.desc().is_msaa()) {
        let len = ctx.read_subresource(&tex, s).len();
        ctx.upload_subresource(&tex, s, &pattern(len, s + 7));
    }
    Bound { tex, view: heap.handle(0), _heap: heap }
}

pub fn ds(ctx: &Ctx, desc: ResourceDesc, flags: DsvFlags) -> Bound {
    let tex = ctx.texture(&desc.with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL), BarrierLayout::Common);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Dsv, 1).unwrap();
    let view = DepthStencilViewDesc { flags, ..DepthStencilViewDesc::default_for(tex.desc()) };
    ctx.device.create_depth_stencil_view(&tex, Some(&view), &heap.handle(0)).unwrap();
    for s in (0..tex.desc().subresource_count()).filter(|_| !tex.desc().is_msaa()) {
        let len = ctx.read_subresource(&tex, s).len();
        let plane = tex.desc().subresource(s).unwrap().plane;
        // Valid depths in the depth plane (a quarter), a pattern in the stencil plane.
        let data = match (tex.desc().format, plane) {
            (Format::D24UnormS8Uint, 0) => 0x0040_0000u32.to_le_bytes().repeat(len / 4),
            (Format::D32Float, _) => 0.25f32.to_le_bytes().repeat(len / 4),
            _ => pattern(len, s + 3),
        };
        ctx.upload_subresource(&tex, s, &data);
    }
    Bound { tex, view: heap.handle(0), _heap: heap }
}

pub fn to_target(l: &mut CommandList, b: &Bound) {
    let layout =
        if b.tex.desc().format.has_depth() { BarrierLayout::DepthStencilWrite } else { BarrierLayout::RenderTarget };
    barrier(l, &b.tex, BarrierLayout::Common, layout);
}

pub fn from_target(l: &mut CommandList, b: &Bound) {
    let layout =
        if b.tex.desc().format.has_depth() { BarrierLayout::DepthStencilWrite } else { BarrierLayout::RenderTarget };
    barrier(l, &b.tex, layout, BarrierLayout::Common);
}

/// A render-pass target that keeps its contents (`beginning` on entry).
pub fn pass_target_with(
    b: &Bound,
    beginning: BeginningAccess,
) -> RenderPassRenderTarget<CpuDescriptorHandle, &Resource> {
    RenderPassRenderTarget { view: b.view.clone(), beginning, ending: EndingAccess::Preserve }
}

pub fn pass_target(b: &Bound) -> RenderPassRenderTarget<CpuDescriptorHandle, &Resource> {
    pass_target_with(b, BeginningAccess::Preserve)
}

/// A render-pass depth-stencil target whose bound planes keep their contents.
pub fn pass_depth(
    d: &Bound,
    depth: BeginningAccess,
    stencil: BeginningAccess,
) -> RenderPassDepthStencil<CpuDescriptorHandle, &Resource> {
    let ending = |b: BeginningAccess| if b.binds() { EndingAccess::Preserve } else { EndingAccess::NoAccess };
    RenderPassDepthStencil {
        view: d.view.clone(),
        depth_beginning: depth,
        stencil_beginning: stencil,
        depth_ending: ending(depth),
        stencil_ending: ending(stencil),
    }
}

/// What a clear of `rect` with `element` leaves in a tightly packed subresource.
pub fn model(before: &[u8], width: u32, rect: (u32, u32, u32, u32), element: &[u8]) -> Vec<u8> {
    let n = element.len();
    let mut out = before.to_vec();
    for y in rect.1..rect.3 {
        for x in rect.0..rect.2 {
            let o = (y * width + x) as usize * n;
            out[o..o + n].copy_from_slice(element);
        }
    }
    out
}

pub fn element(format: Format, plane: u32, value: &ClearData) -> Vec<u8> {
    encode_clear(format, plane, value).unwrap().as_bytes().to_vec()
}

pub fn floats(v: [f32; 4]) -> ClearData {
    ClearData::from_floats(v)
}

/// The subresources of every bound texture before the work.
pub fn snapshot(ctx: &Ctx, targets: &[&Bound]) -> Vec<Vec<Vec<u8>>> {
    targets
        .iter()
        .map(|b| (0..b.tex.desc().subresource_count()).map(|s| ctx.read_subresource(&b.tex, s)).collect())
        .collect()
}

/// A pipeline the app draws with: the clear shaders writing red and alpha of slot 0 where the
/// stencil equals the reference.
pub fn app_pipeline(ctx: &Ctx, rtvs: &[Format], dsv: Format) -> (RootSignature, PipelineState) {
    let root = ctx
        .device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, CLEAR_CONSTANT_COUNT)]))
        .unwrap();
    let mut write_masks = [ColorWriteMask::empty(); 8];
    write_masks[0] = ColorWriteMask::RED | ColorWriteMask::ALPHA;
    let equal = StencilFace {
        fail: StencilOp::Keep,
        depth_fail: StencilOp::Keep,
        pass: StencilOp::Keep,
        func: ComparisonFunc::Equal,
    };
    let pso = ctx
        .device
        .create_pipeline_state(&PipelineDesc::Graphics(GraphicsPipelineDesc {
            root_signature: root.id(),
            vs: ShaderId::ClearVs,
            ps: Some(ShaderId::ClearPsFloat),
            write_masks,
            depth_stencil: DepthStencilState {
                stencil_enable: true,
                stencil_write_mask: 0,
                front: equal,
                back: equal,
                ..Default::default()
            },
            rtv_formats: rtvs.to_vec(),
            dsv_format: dsv,
            sample_desc: SampleDesc { count: 1, quality: 0 },
            sample_mask: u32::MAX,
            topology_type: PrimitiveTopologyType::Triangle,
        }))
        .unwrap();
    (root, pso)
}

/// What the app's draw around a bound clear renders into: an RGBA8 target the app's pipeline
/// writes, a second target of `second` format, and a D24S8 buffer whose stencil is 0x33 in the
/// left 20 columns and 0x77 elsewhere (the app's stencil test passes on the left), all 32×16.
pub struct DrawScene {
    pub a: Bound,
    pub b: Bound,
    pub d: Bound,
}

impl DrawScene {
    pub fn new(ctx: &Ctx, second: Format) -> Self {
        let a = rt(ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 32, 16), None);
        let b = rt(ctx, ResourceDesc::tex2d(second, 32, 16), None);
        let d = ds(ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, 32, 16), DsvFlags::empty());
        let stencil: Vec<u8> = (0..32 * 16).map(|i| if i % 32 < 20 { 0x33 } else { 0x77 }).collect();
        ctx.upload_subresource(&d.tex, 1, &stencil);
        DrawScene { a, b, d }
    }

    /// The app's pipeline for the scene's targets.
    pub fn pipeline(&self, ctx: &Ctx) -> (RootSignature, PipelineState) {
        app_pipeline(ctx, &[self.a.tex.desc().format, self.b.tex.desc().format], Format::D24UnormS8Uint)
    }

    /// Moves the targets to their layouts and binds them: in a render pass, or with
    /// `OMSetRenderTargets`.
    pub fn bind(&self, l: &mut CommandList, in_pass: bool) {
        for t in [&self.a, &self.b, &self.d] {
            to_target(l, t);
        }
        if in_pass {
            let p = pass_depth(&self.d, BeginningAccess::Preserve, BeginningAccess::Preserve);
            l.begin_render_pass(&[pass_target(&self.a), pass_target(&self.b)], Some(&p), RenderPassFlags::empty());
        } else {
            l.om_set_render_targets(&[self.a.view.clone(), self.b.view.clone()], Some(&self.d.view));
        }
    }

    /// Ends the pass (if one) and moves the targets back to COMMON.
    pub fn unbind(&self, l: &mut CommandList, in_pass: bool) {
        if in_pass {
            l.end_render_pass();
        }
        for t in [&self.a, &self.b, &self.d] {
            from_target(l, t);
        }
    }

    /// The two targets' bytes and the stencil plane's.
    pub fn read(&self, ctx: &Ctx) -> Vec<Vec<u8>> {
        vec![
            ctx.read_subresource(&self.a.tex, 0),
            ctx.read_subresource(&self.b.tex, 0),
            ctx.read_subresource(&self.d.tex, 1),
        ]
    }
}

/// The native and fallback contexts of each device, in pairs: (native name, native, fallback
/// name, fallback).
pub fn native_fallback_pairs<'c>(
    ctxs: &'c [(&'static str, Ctx)],
) -> Vec<(&'static str, &'c Ctx, &'static str, &'c Ctx)> {
    let find = |n: &str| ctxs.iter().find(|(name, _)| *name == n).map(|(name, c)| (*name, c));
    [("reference native", "reference fallback"), ("vulkan native", "vulkan fallback")]
        .into_iter()
        .filter_map(|(n, f)| Some((find(n)?, find(f)?)))
        .map(|((n, nc), (f, fc))| (n, nc, f, fc))
        .collect()
}

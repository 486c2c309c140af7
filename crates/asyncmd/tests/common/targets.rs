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
        .create_root_signature(&RootSignatureDesc {
            parameters: vec![RootParameter::Constants { shader_register: 0, count: CLEAR_CONSTANT_COUNT }],
        })
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

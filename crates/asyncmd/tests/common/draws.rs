//! Render targets, the built-in clear shaders as app pipelines, and reading targets back: what
//! the draw, resolve and query tests share.

use super::*;
use asyncmd::ddi::*;
use asyncmd::types::*;
use asyncmd::*;

/// A render target with its view.
pub struct Target {
    pub tex: Resource,
    pub rtv: CpuDescriptorHandle,
    pub _heap: DescriptorHeap,
}

pub fn render_target(ctx: &Ctx, format: Format, w: u32, h: u32, samples: u32) -> Target {
    let desc =
        ResourceDesc::tex2d(format, w, h).with_samples(samples, 0).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let tex = ctx.texture(&desc, BarrierLayout::RenderTarget);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
    Target { tex, rtv: heap.handle(0), _heap: heap }
}

/// Reads a texture that sits in `layout` back by moving it to COPY_SOURCE.
pub fn read_back(ctx: &Ctx, t: &Resource, layout: BarrierLayout, sub: u32) -> Vec<u8> {
    ctx.run(CommandListType::Direct, |l| barrier(l, t, layout, BarrierLayout::CopySource));
    ctx.read_subresource(t, sub)
}

pub fn clear_pipeline(
    ctx: &Ctx,
    rt: &[Format],
    dsv: Format,
    samples: u32,
    ps: Option<ShaderId>,
    depth: DepthStencilState,
    mask: ColorWriteMask,
) -> (RootSignature, PipelineState) {
    let root = ctx
        .device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, CLEAR_CONSTANT_COUNT)]))
        .unwrap();
    let pso = ctx
        .device
        .create_pipeline_state(&PipelineDesc::Graphics(GraphicsPipelineDesc {
            root_signature: root.id(),
            vs: ShaderId::ClearVs,
            ps,
            write_masks: [mask; 8],
            depth_stencil: depth,
            rtv_formats: rt.to_vec(),
            dsv_format: dsv,
            sample_desc: SampleDesc { count: samples, quality: 0 },
            sample_mask: u32::MAX,
            topology_type: PrimitiveTopologyType::Triangle,
        }))
        .unwrap();
    (root, pso)
}

/// A float clear pipeline for one target, no depth, all channels written.
pub fn colour_pipeline(ctx: &Ctx, format: Format, samples: u32) -> (RootSignature, PipelineState) {
    clear_pipeline(
        ctx,
        &[format],
        Format::Unknown,
        samples,
        Some(ShaderId::ClearPsFloat),
        DepthStencilState::default(),
        ColorWriteMask::ALL,
    )
}

pub fn set_clear_state(
    l: &mut CommandList,
    root: &RootSignature,
    pso: &PipelineState,
    vp: Viewport,
    scissor: Rect,
    constants: [u32; 6],
) {
    l.set_graphics_root_signature(root);
    l.set_pipeline_state(pso);
    l.set_graphics_root_32bit_constants(0, &constants, 0);
    l.rs_set_viewports(&[vp]);
    l.rs_set_scissor_rects(&[scissor]);
    l.ia_set_primitive_topology(PrimitiveTopology::TriangleList);
}

pub fn floats(c: [f32; 4]) -> [u32; 6] {
    [c[0].to_bits(), c[1].to_bits(), c[2].to_bits(), c[3].to_bits(), 0, 0]
}

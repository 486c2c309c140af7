//! What the benches that draw need: an RGBA8 render target with its view, and the runtime's
//! clear shaders as a pipeline that draws a flat colour (root constants) into it.

use asyncmd::ddi::{
    ColorWriteMask, DepthStencilState, GraphicsPipelineDesc, PipelineDesc, PrimitiveTopology, PrimitiveTopologyType,
    RootParameter, RootSignatureDesc, ShaderId, CLEAR_CONSTANT_COUNT,
};
use asyncmd::types::*;
use asyncmd::{DescriptorHeap, DescriptorHeapType, Device, PipelineState, Resource, Result, RootSignature};

/// A render target and the pipeline that draws into it.
pub(super) struct DrawTarget {
    root: RootSignature,
    pso: PipelineState,
    heap: DescriptorHeap,
    /// The render target the view names (views do not keep it alive).
    _target: Resource,
}

impl DrawTarget {
    /// A `width × height` RGBA8 target in the render-target layout.
    pub(super) fn new(d: &Device, width: u32, height: u32) -> Result<DrawTarget> {
        let root =
            d.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, CLEAR_CONSTANT_COUNT)]))?;
        let pso = d.create_pipeline_state(&PipelineDesc::Graphics(GraphicsPipelineDesc {
            root_signature: root.id(),
            vs: ShaderId::ClearVs,
            ps: Some(ShaderId::ClearPsFloat),
            write_masks: [ColorWriteMask::ALL; 8],
            depth_stencil: DepthStencilState::default(),
            rtv_formats: vec![Format::R8G8B8A8Unorm],
            dsv_format: Format::Unknown,
            sample_desc: SampleDesc { count: 1, quality: 0 },
            sample_mask: u32::MAX,
            topology_type: PrimitiveTopologyType::Triangle,
        }))?;
        let desc =
            ResourceDesc::tex2d(Format::R8G8B8A8Unorm, width, height).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let target = d.create_committed_resource(HeapType::Default, &desc, BarrierLayout::RenderTarget)?;
        let heap = d.create_descriptor_heap(DescriptorHeapType::Rtv, 1)?;
        d.create_render_target_view(&target, None, &heap.handle(0))?;
        Ok(DrawTarget { root, pso, heap, _target: target })
    }

    /// Binds the target, the root signature, the pipeline and a triangle list; the caller sets
    /// viewports, scissors and each draw's colour (`[r, g, b, a, depth, slice]` constants).
    pub(super) fn bind(&self, l: &mut asyncmd::CommandRecorder) {
        l.om_set_render_targets(&[self.heap.handle(0)], None);
        l.set_graphics_root_signature(&self.root);
        l.set_pipeline_state(&self.pso);
        l.ia_set_primitive_topology(PrimitiveTopology::TriangleList);
    }
}

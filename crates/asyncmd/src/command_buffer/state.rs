//! Get-calls of the state a command buffer has bound (spec 001's state shadowing): with legacy
//! semantics they return what the buffer set since it began recording, from the default state
//! (nothing bound, no viewports or scissors, an undefined topology); with fast semantics the
//! buffer keeps no shadow and they return `InvalidArg` / `StateNotShadowed`.

use super::{CommandBuffer, Semantics};
use crate::err;
use crate::objects::{PipelineState, RootSignature};
use asyncmd_ddi::{DepthStencilView, PrimitiveTopology, RenderTargetView};
use asyncmd_types::{MessageId, Rect, Result, Viewport};

/// The output targets a command buffer has bound: render targets by slot (`None` where a slot
/// is empty), and the depth-stencil view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoundTargets {
    /// Render-target views by slot.
    pub render_targets: Vec<Option<RenderTargetView>>,
    /// The depth-stencil view.
    pub depth_stencil: Option<DepthStencilView>,
}

impl CommandBuffer {
    fn shadowed(&self, api: &str) -> Result<&crate::shadow::Shadow> {
        if self.semantics == Semantics::Fast {
            return Err(err::invalid(
                MessageId::StateNotShadowed,
                api,
                "a command buffer with fast semantics keeps no shadow of its state",
            ));
        }
        Ok(&self.shadow)
    }

    /// The bound pipeline state, if one is (`GetPipelineState`).
    pub fn pipeline_state(&self) -> Result<Option<PipelineState>> {
        Ok(self.shadowed("GetPipelineState")?.pipeline.clone())
    }

    /// The bound graphics root signature, if one is.
    pub fn graphics_root_signature(&self) -> Result<Option<RootSignature>> {
        Ok(self.shadowed("GetGraphicsRootSignature")?.graphics_root.clone())
    }

    /// The bound compute root signature, if one is.
    pub fn compute_root_signature(&self) -> Result<Option<RootSignature>> {
        Ok(self.shadowed("GetComputeRootSignature")?.compute_root.clone())
    }

    /// The bound render targets and depth-stencil view (`OMGetRenderTargets`).
    pub fn render_targets(&self) -> Result<BoundTargets> {
        let s = self.shadowed("OMGetRenderTargets")?;
        Ok(BoundTargets {
            render_targets: s.rtvs.iter().map(|c| c.as_ref().map(|c| c.view)).collect(),
            depth_stencil: s.dsv.as_ref().map(|c| c.view),
        })
    }

    /// The viewports set (`RSGetViewports`); none by default.
    pub fn viewports(&self) -> Result<Vec<Viewport>> {
        Ok(self.shadowed("RSGetViewports")?.viewports.clone().unwrap_or_default())
    }

    /// The scissor rectangles set (`RSGetScissorRects`); none by default.
    pub fn scissor_rects(&self) -> Result<Vec<Rect>> {
        Ok(self.shadowed("RSGetScissorRects")?.scissors.clone().unwrap_or_default())
    }

    /// The primitive topology set (`IAGetPrimitiveTopology`); undefined by default.
    pub fn primitive_topology(&self) -> Result<PrimitiveTopology> {
        Ok(self.shadowed("IAGetPrimitiveTopology")?.topology.unwrap_or_default())
    }

    /// The blend factor set (`OMGetBlendFactor`); all ones by default, as D3D12's.
    pub fn blend_factor(&self) -> Result<[f32; 4]> {
        Ok(self.shadowed("OMGetBlendFactor")?.blend_factor.unwrap_or([1.0; 4]))
    }

    /// The stencil reference set (`OMGetStencilRef`); 0 by default.
    pub fn stencil_ref(&self) -> Result<u32> {
        Ok(self.shadowed("OMGetStencilRef")?.stencil_ref.unwrap_or(0))
    }
}

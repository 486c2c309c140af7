//! The device's clear root signature and its cache of clear pipelines for bound-clear draws.
//!
//! Pipelines are made the first time a combination is drawn (that clear pays for the creation
//! during recording) and evicted least recently used beyond [`CLEAR_PSO_CACHE_SIZE`]. Command
//! allocators keep every pipeline their lists drew with until they are reset, so an evicted
//! pipeline lives as long as recorded work may use it.

use crate::objects::PipelineState;
use asyncmd_ddi::{
    ColorWriteMask, ComparisonFunc, DepthStencilState, GraphicsPipelineDesc, PipelineDesc, PrimitiveTopologyType,
    RootSignatureId, ShaderId, StencilFace, StencilOp,
};
use asyncmd_types::{ComponentClass, Format, Result, SampleDesc};

/// Clear pipelines a device keeps.
pub const CLEAR_PSO_CACHE_SIZE: usize = 64;

/// What a clear pipeline writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ClearOutput {
    /// One render-target slot, with the pixel shader of the target's class.
    Color {
        /// The slot.
        slot: u8,
        /// Float, uint or sint output.
        class: OutputClass,
    },
    /// The depth-stencil target: which planes.
    DepthStencil {
        /// Depth is written.
        depth: bool,
        /// Stencil is written.
        stencil: bool,
    },
}

/// The output class of a colour clear's pixel shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum OutputClass {
    Float,
    Uint,
    Sint,
}

impl OutputClass {
    /// The class a render-target format takes values in.
    pub(crate) fn of(format: Format) -> Self {
        match format.info().class {
            ComponentClass::Uint => OutputClass::Uint,
            ComponentClass::Sint => OutputClass::Sint,
            _ => OutputClass::Float,
        }
    }
}

/// The key of a clear pipeline: the bound formats and samples and what it writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ClearPsoKey {
    pub(crate) rtv_formats: Vec<Format>,
    pub(crate) dsv_format: Format,
    pub(crate) samples: SampleDesc,
    pub(crate) output: ClearOutput,
}

impl ClearPsoKey {
    /// The pipeline description of this key over the clear root signature.
    pub(crate) fn desc(&self, root: RootSignatureId) -> PipelineDesc {
        let mut write_masks = [ColorWriteMask::empty(); 8];
        let (ps, depth_stencil) = match self.output {
            ClearOutput::Color { slot, class } => {
                write_masks[slot as usize] = ColorWriteMask::ALL;
                let ps = match class {
                    OutputClass::Float => ShaderId::ClearPsFloat,
                    OutputClass::Uint => ShaderId::ClearPsUint,
                    OutputClass::Sint => ShaderId::ClearPsSint,
                };
                (ps, DepthStencilState::default())
            }
            ClearOutput::DepthStencil { depth, stencil } => {
                let replace = StencilFace {
                    fail: StencilOp::Replace,
                    depth_fail: StencilOp::Replace,
                    pass: StencilOp::Replace,
                    func: ComparisonFunc::Always,
                };
                let ds = DepthStencilState {
                    // A stencil-only clear turns depth writes off.
                    depth_enable: depth,
                    depth_write: depth,
                    depth_func: ComparisonFunc::Always,
                    stencil_enable: stencil,
                    stencil_read_mask: 0xff,
                    stencil_write_mask: 0xff,
                    front: replace,
                    back: replace,
                };
                (ShaderId::ClearPsDepth, ds)
            }
        };
        PipelineDesc::Graphics(GraphicsPipelineDesc {
            root_signature: root,
            vs: ShaderId::ClearVs,
            ps: Some(ps),
            write_masks,
            depth_stencil,
            rtv_formats: self.rtv_formats.clone(),
            dsv_format: self.dsv_format,
            sample_desc: self.samples,
            sample_mask: u32::MAX,
            topology_type: PrimitiveTopologyType::Triangle,
        })
    }
}

/// Least-recently-used clear pipelines.
#[derive(Default)]
pub(crate) struct PsoCache {
    entries: Vec<(ClearPsoKey, PipelineState, u64)>,
    clock: u64,
}

impl PsoCache {
    /// The pipeline of `key`, made with `make` on a miss (evicting the least recently used one
    /// when full).
    pub(crate) fn get_or_make(
        &mut self,
        key: &ClearPsoKey,
        make: impl FnOnce() -> Result<PipelineState>,
    ) -> Result<PipelineState> {
        self.clock += 1;
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == *key) {
            e.2 = self.clock;
            return Ok(e.1.clone());
        }
        let pso = make()?;
        if self.entries.len() >= CLEAR_PSO_CACHE_SIZE {
            if let Some(oldest) = self.entries.iter().enumerate().min_by_key(|(_, e)| e.2).map(|(i, _)| i) {
                self.entries.swap_remove(oldest);
            }
        }
        self.entries.push((key.clone(), pso.clone(), self.clock));
        Ok(pso)
    }

    /// Pipelines held now.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

//! Pipeline state descriptions.

use crate::{RootSignatureId, ShaderId};
use asyncmd_shader::ShaderModule;
use asyncmd_types::{ComparisonFunc, Format, SampleDesc};
use std::sync::Arc;

/// Primitive topology type of a graphics pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrimitiveTopologyType {
    /// Points.
    Point,
    /// Lines.
    Line,
    /// Triangles.
    #[default]
    Triangle,
}

/// Primitive topology set on a command list (`D3D_PRIMITIVE_TOPOLOGY`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrimitiveTopology {
    /// Not set.
    #[default]
    Undefined,
    /// Point list.
    PointList,
    /// Line list.
    LineList,
    /// Line strip.
    LineStrip,
    /// Triangle list.
    TriangleList,
    /// Triangle strip.
    TriangleStrip,
}

/// A stencil operation (`D3D12_STENCIL_OP`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StencilOp {
    /// Keep the value.
    #[default]
    Keep,
    /// Write 0.
    Zero,
    /// Write the reference value.
    Replace,
    /// Increment, saturating.
    IncrSat,
    /// Decrement, saturating.
    DecrSat,
    /// Bitwise invert.
    Invert,
    /// Increment, wrapping.
    Incr,
    /// Decrement, wrapping.
    Decr,
}

/// Stencil behaviour of one face (`D3D12_DEPTH_STENCILOP_DESC`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StencilFace {
    /// On stencil failure.
    pub fail: StencilOp,
    /// On stencil pass and depth failure.
    pub depth_fail: StencilOp,
    /// On both passing.
    pub pass: StencilOp,
    /// The stencil test.
    pub func: ComparisonFunc,
}

/// Depth-stencil state (`D3D12_DEPTH_STENCIL_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthStencilState {
    /// Depth test enabled.
    pub depth_enable: bool,
    /// Depth writes enabled (`D3D12_DEPTH_WRITE_MASK_ALL`).
    pub depth_write: bool,
    /// The depth test.
    pub depth_func: ComparisonFunc,
    /// Stencil test enabled.
    pub stencil_enable: bool,
    /// Stencil read mask.
    pub stencil_read_mask: u8,
    /// Stencil write mask.
    pub stencil_write_mask: u8,
    /// Front faces.
    pub front: StencilFace,
    /// Back faces.
    pub back: StencilFace,
}

impl Default for DepthStencilState {
    fn default() -> Self {
        Self {
            depth_enable: false,
            depth_write: false,
            depth_func: ComparisonFunc::Always,
            stencil_enable: false,
            stencil_read_mask: 0xff,
            stencil_write_mask: 0xff,
            front: StencilFace::default(),
            back: StencilFace::default(),
        }
    }
}

bitflags::bitflags! {
    /// `D3D12_COLOR_WRITE_ENABLE`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct ColorWriteMask: u8 {
        /// Red.
        const RED = 0x1;
        /// Green.
        const GREEN = 0x2;
        /// Blue.
        const BLUE = 0x4;
        /// Alpha.
        const ALPHA = 0x8;
        /// All four.
        const ALL = 0xF;
    }
}

/// A graphics pipeline of built-in shaders.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GraphicsPipelineDesc {
    /// Root signature.
    pub root_signature: RootSignatureId,
    /// Vertex shader.
    pub vs: ShaderId,
    /// Pixel shader, if any.
    pub ps: Option<ShaderId>,
    /// Per-target colour write masks (blending is off).
    pub write_masks: [ColorWriteMask; 8],
    /// Depth and stencil.
    pub depth_stencil: DepthStencilState,
    /// Render-target formats (at most 8).
    pub rtv_formats: Vec<Format>,
    /// Depth-stencil format (`Unknown` if none).
    pub dsv_format: Format,
    /// Multisampling.
    pub sample_desc: SampleDesc,
    /// Sample mask.
    pub sample_mask: u32,
    /// Topology type.
    pub topology_type: PrimitiveTopologyType,
}

/// An entry point of one of the app's shader modules.
///
/// Two are equal when they name the same module object and entry point: a module is compiled
/// once, and pipelines of it share that work.
#[derive(Clone, Debug)]
pub struct AppShader {
    /// The module.
    pub module: Arc<ShaderModule>,
    /// The entry point's name.
    pub entry_point: String,
}

impl PartialEq for AppShader {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.module, &other.module) && self.entry_point == other.entry_point
    }
}

impl Eq for AppShader {}

impl std::hash::Hash for AppShader {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.module) as usize).hash(state);
        self.entry_point.hash(state);
    }
}

/// A compute pipeline's shader: one of the runtime's own, or the app's.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ComputeShader {
    /// A built-in shader.
    Builtin(ShaderId),
    /// An entry point of the app's module.
    App(AppShader),
}

impl From<ShaderId> for ComputeShader {
    fn from(id: ShaderId) -> Self {
        ComputeShader::Builtin(id)
    }
}

impl ComputeShader {
    /// The built-in shader, if it is one.
    pub fn builtin(&self) -> Option<ShaderId> {
        match self {
            ComputeShader::Builtin(id) => Some(*id),
            ComputeShader::App(_) => None,
        }
    }
}

/// A compute pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ComputePipelineDesc {
    /// Root signature.
    pub root_signature: RootSignatureId,
    /// Compute shader.
    pub cs: ComputeShader,
}

/// A pipeline state description.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PipelineDesc {
    /// A graphics pipeline.
    Graphics(GraphicsPipelineDesc),
    /// A compute pipeline.
    Compute(ComputePipelineDesc),
}

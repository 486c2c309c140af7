//! How the fallback makes its objects and asks the device questions: a narrow interface the
//! device implements (the DDI's answers plus the runtime's object wrappers), so that the
//! fallback never reaches up into the device that owns it.

use crate::objects::{PipelineState, RootSignature};
use crate::resource::Resource;
use asyncmd_ddi::{FormatCaps, PipelineDesc, RootSignatureDesc};
use asyncmd_types::{BarrierLayout, Format, HeapType, ResourceDesc, Result};

/// What the fallback needs of its device.
pub(crate) trait Factory {
    /// `CreateCommittedResource` for the runtime's own buffers and private textures.
    fn create_committed_resource(&self, heap: HeapType, desc: &ResourceDesc, layout: BarrierLayout)
        -> Result<Resource>;
    /// `CreateRootSignature` for the runtime's own shaders.
    fn create_root_signature(&self, desc: &RootSignatureDesc) -> Result<RootSignature>;
    /// `CreatePipelineState` for the runtime's own shaders.
    fn create_pipeline_state(&self, desc: &PipelineDesc) -> Result<PipelineState>;
    /// What the device supports of `format`.
    fn format_caps(&self, format: Format) -> FormatCaps;
}

//! The runtime's built-in shaders: the SPIR-V of each [`ShaderId`], compiled from
//! `shaders/builtin/` by `shaders/build.sh`, and shader modules made from SPIR-V.

use crate::core::Core;
use ash::vk;
use asyncmd_ddi::ShaderId;
use asyncmd_types::{Error, Result};

/// The SPIR-V of a built-in shader.
fn spirv(id: ShaderId) -> &'static [u8] {
    match id {
        ShaderId::ClearVs => include_bytes!("../../shaders/builtin/vs_clear.vert.spv"),
        ShaderId::ClearPsFloat => include_bytes!("../../shaders/builtin/ps_clear_float.frag.spv"),
        ShaderId::ClearPsUint => include_bytes!("../../shaders/builtin/ps_clear_uint.frag.spv"),
        ShaderId::ClearPsSint => include_bytes!("../../shaders/builtin/ps_clear_sint.frag.spv"),
        ShaderId::ClearPsDepth => include_bytes!("../../shaders/builtin/ps_clear_depth.frag.spv"),
        ShaderId::FillCs => include_bytes!("../../shaders/builtin/cs_fill.comp.spv"),
    }
}

/// A shader module of a built-in shader; the caller destroys it.
pub(crate) fn shader_module(core: &Core, id: ShaderId) -> Result<vk::ShaderModule> {
    module_from(core, spirv(id))
}

/// A shader module from SPIR-V bytes; the caller destroys it.
pub(crate) fn module_from(core: &Core, bytes: &[u8]) -> Result<vk::ShaderModule> {
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // SAFETY: the words are SPIR-V compiled by glslc for Vulkan 1.3.
    unsafe { core.device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None) }
        .map_err(|e| Error::out_of_memory(format!("CreatePipelineState: {e}")))
}

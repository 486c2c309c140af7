//! The device's buffer kernels: compute pipelines that take up to 32 bytes of push constants
//! (buffer device addresses, counts, patterns) on one shared layout.

use super::module_from;
use crate::core::Core;
use ash::vk;
use asyncmd_types::{Error, Result};

fn fail(e: vk::Result) -> Error {
    Error::out_of_memory(format!("Vulkan: internal pipelines: {e}"))
}

/// The pipeline layout every kernel shares: 32 bytes of push constants.
pub(crate) struct KernelLayout {
    device: ash::Device,
    layout: vk::PipelineLayout,
}

impl KernelLayout {
    pub(crate) fn new(core: &Core) -> Result<Self> {
        let ranges = [vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::COMPUTE, offset: 0, size: 32 }];
        let info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges);
        // SAFETY: valid create info.
        let layout = unsafe { core.device.create_pipeline_layout(&info, None) }.map_err(fail)?;
        Ok(KernelLayout { device: core.device.clone(), layout })
    }
}

impl Drop for KernelLayout {
    fn drop(&mut self) {
        // SAFETY: dropped with the device's pipelines, after the device is idle.
        unsafe { self.device.destroy_pipeline_layout(self.layout, None) };
    }
}

/// One buffer kernel.
pub(crate) struct Kernel {
    device: ash::Device,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Kernel {
    pub(crate) fn new(core: &Core, layout: &KernelLayout, spirv: &[u8]) -> Result<Self> {
        let pipeline = compute_pipeline(core, layout.layout, spirv)?;
        Ok(Kernel { device: core.device.clone(), layout: layout.layout, pipeline })
    }

    /// Records one dispatch of `groups` workgroups with three 8-byte push constants.
    pub(crate) fn dispatch(&self, cb: vk::CommandBuffer, constants: [u64; 3], groups: u32) {
        self.dispatch_2d(cb, constants, (groups, 1));
    }

    /// Records one dispatch over a 2D grid of workgroups.
    pub(crate) fn dispatch_2d(&self, cb: vk::CommandBuffer, constants: [u64; 3], groups: (u32, u32)) {
        let mut words = [0u32; 8];
        for (pair, c) in words.chunks_exact_mut(2).zip(constants) {
            pair.copy_from_slice(&[c as u32, (c >> 32) as u32]);
        }
        self.dispatch_words(cb, &words, groups);
    }

    /// Records one dispatch over a 2D grid of workgroups with 32 bytes of constants.
    pub(crate) fn dispatch_words(&self, cb: vk::CommandBuffer, words: &[u32; 8], (x, y): (u32, u32)) {
        let mut bytes = [0u8; 32];
        for (chunk, w) in bytes.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        // SAFETY: a live pipeline and layout; the caller records outside any rendering instance.
        unsafe {
            self.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            self.device.cmd_push_constants(cb, self.layout, vk::ShaderStageFlags::COMPUTE, 0, &bytes);
            self.device.cmd_dispatch(cb, x.max(1), y.max(1), 1);
        }
    }
}

/// A compute pipeline of `spirv`'s `main` on `layout`; the caller destroys it.
pub(crate) fn compute_pipeline(core: &Core, layout: vk::PipelineLayout, spirv: &[u8]) -> Result<vk::Pipeline> {
    let d = &core.device;
    let m = module_from(core, spirv)?;
    let stage =
        vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(m).name(c"main");
    let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
    // SAFETY: valid create info; the module is destroyed right after.
    let p = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
    // SAFETY: the module has no other user.
    unsafe { d.destroy_shader_module(m, None) };
    p.map(|p| p[0]).map_err(|(_, e)| fail(e))
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: dropped with the core, after the device is idle.
        unsafe { self.device.destroy_pipeline(self.pipeline, None) };
    }
}

//! The device's own compute passes: binary-occlusion normalization and the 64-to-32-bit
//! predicate fold for conditional rendering, and the compute buffer copy. Each takes up to three
//! 8-byte push constants.

use crate::core::Core;
use crate::pipeline::module_from;
use ash::vk;
use asyncmd_types::{Error, Result};

pub(crate) struct Internal {
    device: ash::Device,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) binary_occlusion: vk::Pipeline,
    pub(crate) predicate: vk::Pipeline,
    pub(crate) copy: vk::Pipeline,
    pub(crate) copy_batch: vk::Pipeline,
    pub(crate) fill_batch: vk::Pipeline,
}

impl Internal {
    pub(crate) fn new(core: &Core) -> Result<Self> {
        let d = &core.device;
        let fail = |e: vk::Result| Error::out_of_memory(format!("Vulkan: internal pipelines: {e}"));
        let ranges = [vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::COMPUTE, offset: 0, size: 24 }];
        // SAFETY: valid create info.
        let layout = unsafe {
            d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges), None)
        }
        .map_err(fail)?;
        let make = |bytes: &[u8]| -> Result<vk::Pipeline> {
            let m = module_from(core, bytes)?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(m)
                .name(c"main");
            let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
            // SAFETY: valid create info; the module is destroyed right after.
            let p = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
            // SAFETY: the module has no other user.
            unsafe { d.destroy_shader_module(m, None) };
            p.map(|p| p[0]).map_err(|(_, e)| fail(e))
        };
        let binary_occlusion = make(include_bytes!("../shaders/occlusion_binary.comp.spv"))?;
        let predicate = make(include_bytes!("../shaders/predicate.comp.spv"))?;
        let copy = make(include_bytes!("../shaders/copy.comp.spv"))?;
        let copy_batch = make(include_bytes!("../shaders/copy_batch.comp.spv"))?;
        let fill_batch = make(include_bytes!("../shaders/fill_batch.comp.spv"))?;
        Ok(Self { device: d.clone(), layout, binary_occlusion, predicate, copy, copy_batch, fill_batch })
    }

    /// Records one internal dispatch with three 8-byte push constants.
    pub(crate) fn dispatch(&self, cb: vk::CommandBuffer, pipeline: vk::Pipeline, constants: [u64; 3], groups: u32) {
        self.dispatch_2d(cb, pipeline, constants, (groups, 1));
    }

    /// Records one internal dispatch over a 2D grid of workgroups.
    pub(crate) fn dispatch_2d(
        &self,
        cb: vk::CommandBuffer,
        pipeline: vk::Pipeline,
        constants: [u64; 3],
        (x, y): (u32, u32),
    ) {
        let bytes: Vec<u8> = constants.iter().flat_map(|c| c.to_le_bytes()).collect();
        // SAFETY: a live pipeline and layout; the caller records outside any rendering instance.
        unsafe {
            self.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            self.device.cmd_push_constants(cb, self.layout, vk::ShaderStageFlags::COMPUTE, 0, &bytes);
            self.device.cmd_dispatch(cb, x.max(1), y.max(1), 1);
        }
    }
}

impl Drop for Internal {
    fn drop(&mut self) {
        // SAFETY: dropped with the core, after the device is idle.
        unsafe {
            self.device.destroy_pipeline(self.binary_occlusion, None);
            self.device.destroy_pipeline(self.predicate, None);
            self.device.destroy_pipeline(self.copy, None);
            self.device.destroy_pipeline(self.copy_batch, None);
            self.device.destroy_pipeline(self.fill_batch, None);
            self.device.destroy_pipeline_layout(self.layout, None);
        }
    }
}

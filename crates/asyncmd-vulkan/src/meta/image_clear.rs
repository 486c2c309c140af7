//! The compute texture clear: stores an encoded texel as raw bits over a region of a
//! single-sample 2D colour image through a push-descriptor storage view and 32 bytes of
//! constants (the GPU's graphics engines write images at a fraction of its bandwidth).

use super::module_from;
use crate::core::Core;
use ash::vk;
use asyncmd_types::{Error, Result};

/// The compute texture clear's layouts and pipeline.
pub(crate) struct ImageClear {
    device: ash::Device,
    push: ash::khr::push_descriptor::Device,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl ImageClear {
    pub(crate) fn new(core: &Core, push: ash::khr::push_descriptor::Device) -> Result<Self> {
        let d = &core.device;
        let fail = |e: vk::Result| Error::out_of_memory(format!("Vulkan: internal clear pipeline: {e}"));
        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
            .bindings(&bindings);
        // SAFETY: valid create info.
        let set_layout = unsafe { d.create_descriptor_set_layout(&info, None) }.map_err(fail)?;
        let ranges = [vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::COMPUTE, offset: 0, size: 32 }];
        let sets = [set_layout];
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&sets).push_constant_ranges(&ranges);
        // SAFETY: valid create info.
        let layout = match unsafe { d.create_pipeline_layout(&info, None) } {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: nothing uses the set layout yet.
                unsafe { d.destroy_descriptor_set_layout(set_layout, None) };
                return Err(fail(e));
            }
        };
        let made = module_from(core, include_bytes!("../../shaders/meta/cs_clear_image.comp.spv")).and_then(|m| {
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
        });
        match made {
            Ok(pipeline) => Ok(ImageClear { device: d.clone(), push, set_layout, layout, pipeline }),
            Err(e) => {
                // SAFETY: nothing uses the layouts yet.
                unsafe {
                    d.destroy_pipeline_layout(layout, None);
                    d.destroy_descriptor_set_layout(set_layout, None);
                }
                Err(e)
            }
        }
    }

    /// Records a compute clear storing `value` over `extent` texels from `offset` through the
    /// storage view `view` (in GENERAL).
    pub(crate) fn record(
        &self,
        cb: vk::CommandBuffer,
        view: vk::ImageView,
        value: [u32; 4],
        offset: (u32, u32),
        extent: (u32, u32),
    ) {
        let image = [vk::DescriptorImageInfo::default().image_view(view).image_layout(vk::ImageLayout::GENERAL)];
        let write = [vk::WriteDescriptorSet::default()
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
            .image_info(&image)];
        let mut constants = [0u8; 32];
        let words = [value[0], value[1], value[2], value[3], offset.0, offset.1, extent.0, extent.1];
        for (chunk, w) in constants.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        // SAFETY: a live pipeline, layouts and view; recorded outside any rendering instance.
        unsafe {
            self.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            self.push.cmd_push_descriptor_set(cb, vk::PipelineBindPoint::COMPUTE, self.layout, 0, &write);
            self.device.cmd_push_constants(cb, self.layout, vk::ShaderStageFlags::COMPUTE, 0, &constants);
            self.device.cmd_dispatch(cb, extent.0.div_ceil(256), extent.1.div_ceil(4), 1);
        }
    }
}

impl Drop for ImageClear {
    fn drop(&mut self) {
        // SAFETY: dropped with the core, after the device is idle.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

//! The device's own compute passes: binary-occlusion normalization and the 64-to-32-bit
//! predicate fold for conditional rendering, the compute buffer copies and fills (each takes up
//! to three 8-byte push constants), and the compute texture clear (a push-descriptor storage
//! image and 32 bytes of constants).

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
    /// The compute texture clear, where the device has push descriptors.
    clear: Option<ImageClear>,
}

/// The compute texture clear's layouts and pipeline.
struct ImageClear {
    push: ash::khr::push_descriptor::Device,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
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
        let binary_occlusion = make(include_bytes!("../shaders/meta/cs_occlusion_binary.comp.spv"))?;
        let predicate = make(include_bytes!("../shaders/meta/cs_predicate_fold.comp.spv"))?;
        let copy = make(include_bytes!("../shaders/meta/cs_copy_buffer.comp.spv"))?;
        let copy_batch = make(include_bytes!("../shaders/meta/cs_copy_buffer_batch.comp.spv"))?;
        let fill_batch = make(include_bytes!("../shaders/meta/cs_fill_batch.comp.spv"))?;
        let clear = match &core.push_descriptor {
            Some(push) => Some(Self::image_clear(core, push.clone())?),
            None => None,
        };
        Ok(Self { device: d.clone(), layout, binary_occlusion, predicate, copy, copy_batch, fill_batch, clear })
    }

    fn image_clear(core: &Core, push: ash::khr::push_descriptor::Device) -> Result<ImageClear> {
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
        // SAFETY: valid create info.
        let layout = unsafe {
            d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&sets).push_constant_ranges(&ranges),
                None,
            )
        }
        .map_err(fail)?;
        let m = module_from(core, include_bytes!("../shaders/meta/cs_clear_image.comp.spv"))?;
        let stage =
            vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(m).name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
        // SAFETY: valid create info; the module is destroyed right after.
        let p = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
        // SAFETY: the module has no other user.
        unsafe { d.destroy_shader_module(m, None) };
        let pipeline = p.map(|p| p[0]).map_err(|(_, e)| fail(e))?;
        Ok(ImageClear { push, set_layout, layout, pipeline })
    }

    /// Records a compute clear storing `value` over `extent` texels from `offset` through the
    /// storage view `view` (in GENERAL); false where the device has no compute clear.
    pub(crate) fn clear_image(
        &self,
        cb: vk::CommandBuffer,
        view: vk::ImageView,
        value: [u32; 4],
        offset: (u32, u32),
        extent: (u32, u32),
    ) -> bool {
        let Some(c) = &self.clear else { return false };
        let image = [vk::DescriptorImageInfo::default().image_view(view).image_layout(vk::ImageLayout::GENERAL)];
        let write = [vk::WriteDescriptorSet::default()
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
            .image_info(&image)];
        let constants: Vec<u8> =
            value.iter().chain(&[offset.0, offset.1, extent.0, extent.1]).flat_map(|v| v.to_le_bytes()).collect();
        // SAFETY: a live pipeline, layouts and view; recorded outside any rendering instance.
        unsafe {
            self.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, c.pipeline);
            c.push.cmd_push_descriptor_set(cb, vk::PipelineBindPoint::COMPUTE, c.layout, 0, &write);
            self.device.cmd_push_constants(cb, c.layout, vk::ShaderStageFlags::COMPUTE, 0, &constants);
            self.device.cmd_dispatch(cb, extent.0.div_ceil(256), extent.1.div_ceil(4), 1);
        }
        true
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
            if let Some(c) = &self.clear {
                self.device.destroy_pipeline(c.pipeline, None);
                self.device.destroy_pipeline_layout(c.layout, None);
                self.device.destroy_descriptor_set_layout(c.set_layout, None);
            }
            self.device.destroy_pipeline_layout(self.layout, None);
        }
    }
}

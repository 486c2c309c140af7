//! The device's image kernels: compute pipelines that write an image through a storage view
//! (push descriptor 0) and read one through a sampled view (push descriptor 1, with an
//! immutable nearest sampler), with 32 bytes of constants. They exist because the GPUs they run
//! on write images through their graphics engines at a fraction of the bandwidth their compute
//! shaders reach (`gpu-facts.md`: 56 GB/s against 1–2 TB/s on the H200).
//!
//! One layout serves them all: the texture clear, the texture copies (image to image, buffer
//! to image, image to buffer) and the resolves (float, uint and sint; Vulkan's resolve
//! commands have no colour MIN/MAX).

use crate::core::Core;
use ash::vk;
use asyncmd_types::{Error, Result};

fn fail(e: vk::Result) -> Error {
    Error::out_of_memory(format!("Vulkan: internal image pipelines: {e}"))
}

/// Bytes of push constants every image kernel takes.
pub(crate) const CONSTANT_BYTES: usize = 32;

/// The layout the image kernels share, with its sampler.
pub(crate) struct ImageLayout {
    device: ash::Device,
    push: ash::khr::push_descriptor::Device,
    sampler: vk::Sampler,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
}

impl ImageLayout {
    pub(crate) fn new(core: &Core, push: ash::khr::push_descriptor::Device) -> Result<Self> {
        let d = &core.device;
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE);
        // SAFETY: valid create info.
        let sampler = unsafe { d.create_sampler(&info, None) }.map_err(fail)?;
        let mut made = ImageLayout {
            device: d.clone(),
            push,
            sampler,
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
        };
        let samplers = [sampler];
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .immutable_samplers(&samplers),
        ];
        let info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
            .bindings(&bindings);
        // SAFETY: valid create info; `made` destroys what was made if a later step fails.
        made.set_layout = unsafe { d.create_descriptor_set_layout(&info, None) }.map_err(fail)?;
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: CONSTANT_BYTES as u32,
        }];
        let sets = [made.set_layout];
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&sets).push_constant_ranges(&ranges);
        // SAFETY: valid create info.
        made.layout = unsafe { d.create_pipeline_layout(&info, None) }.map_err(fail)?;
        Ok(made)
    }
}

impl Drop for ImageLayout {
    fn drop(&mut self) {
        // SAFETY: dropped after the kernels that use it (declared after them in `Meta`), once
        // the device is idle; null handles of a failed creation are ignored by Vulkan.
        unsafe {
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device.destroy_descriptor_set_layout(self.set_layout, None);
            self.device.destroy_sampler(self.sampler, None);
        }
    }
}

/// The views one dispatch of an image kernel reads and writes (in `GENERAL`).
#[derive(Clone, Copy, Default)]
pub(crate) struct Views {
    /// The storage view written (descriptor 0).
    pub(crate) storage: Option<vk::ImageView>,
    /// The sampled view read (descriptor 1).
    pub(crate) sampled: Option<vk::ImageView>,
}

/// One image kernel.
pub(crate) struct ImageKernel {
    device: ash::Device,
    push: ash::khr::push_descriptor::Device,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl ImageKernel {
    pub(crate) fn new(core: &Core, layout: &ImageLayout, spirv: &[u8]) -> Result<Self> {
        let pipeline = super::kernel::compute_pipeline(core, layout.layout, spirv)?;
        Ok(ImageKernel { device: core.device.clone(), push: layout.push.clone(), layout: layout.layout, pipeline })
    }

    /// Records one dispatch over `groups` with `views` and `constants` (32-bit words, at most
    /// [`CONSTANT_BYTES`]), outside any rendering instance.
    pub(crate) fn dispatch(&self, cb: vk::CommandBuffer, views: Views, constants: &[u32], groups: (u32, u32)) {
        let storage = views
            .storage
            .map(|v| [vk::DescriptorImageInfo::default().image_view(v).image_layout(vk::ImageLayout::GENERAL)]);
        let sampled = views
            .sampled
            .map(|v| [vk::DescriptorImageInfo::default().image_view(v).image_layout(vk::ImageLayout::GENERAL)]);
        // At most two writes, no allocation per dispatch.
        let mut writes = [vk::WriteDescriptorSet::default(); 2];
        let mut count = 0;
        let bindings = [
            (0, vk::DescriptorType::STORAGE_IMAGE, storage.as_ref()),
            (1, vk::DescriptorType::COMBINED_IMAGE_SAMPLER, sampled.as_ref()),
        ];
        for (binding, ty, info) in bindings {
            if let Some(info) = info {
                writes[count] =
                    vk::WriteDescriptorSet::default().dst_binding(binding).descriptor_type(ty).image_info(info);
                count += 1;
            }
        }
        let writes = &writes[..count];
        let mut bytes = [0u8; CONSTANT_BYTES];
        for (chunk, w) in bytes.chunks_exact_mut(4).zip(constants) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        // SAFETY: a live pipeline, layout and views (kept by the recording list); the shader
        // uses only the bindings its caller fills.
        unsafe {
            self.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            self.push.cmd_push_descriptor_set(cb, vk::PipelineBindPoint::COMPUTE, self.layout, 0, writes);
            self.device.cmd_push_constants(cb, self.layout, vk::ShaderStageFlags::COMPUTE, 0, &bytes);
            self.device.cmd_dispatch(cb, groups.0.max(1), groups.1.max(1), 1);
        }
    }
}

impl Drop for ImageKernel {
    fn drop(&mut self) {
        // SAFETY: dropped with the core, after the device is idle.
        unsafe { self.device.destroy_pipeline(self.pipeline, None) };
    }
}

/// An encoded texel as the clear kernel's four constant words (little-endian, zero-padded).
pub(crate) fn element_words(element: &asyncmd_types::ClearElement) -> [u32; 4] {
    let mut bytes = [0u8; 16];
    bytes[..element.as_bytes().len()].copy_from_slice(element.as_bytes());
    std::array::from_fn(|i| u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]))
}

/// Workgroups of an image kernel over `extent` texels: 256 × 4 texels a group.
pub(crate) fn groups((w, h): (u32, u32)) -> (u32, u32) {
    (w.div_ceil(256), h.div_ceil(4))
}

/// The image kernels, made where the device has push descriptors and storage writes without a
/// format.
pub(crate) struct ImageKernels {
    /// Stores an encoded texel over a rectangle (`ClearTextureSubresources`, bound clears).
    pub(crate) clear: ImageKernel,
    /// Copies texels between two 2D subresources.
    pub(crate) copy: ImageKernel,
    /// Copies texels from a placed footprint into a 2D subresource.
    pub(crate) copy_from_buffer: ImageKernel,
    /// Copies texels of 4, 8 or 16 bytes from a 2D subresource into a placed footprint.
    pub(crate) copy_to_buffer: ImageKernel,
    /// Resolves float, UNORM and SNORM formats (average, minimum, maximum).
    pub(crate) resolve_float: ImageKernel,
    /// Resolves unsigned integer formats (minimum, maximum).
    pub(crate) resolve_uint: ImageKernel,
    /// Resolves signed integer formats (minimum, maximum).
    pub(crate) resolve_sint: ImageKernel,
    /// Reads every sample of a multisampled subresource into a buffer (`ReadSamples`).
    pub(crate) read_samples: ImageKernel,
    /// The layout: declared last, so it is destroyed after the kernels.
    _layout: ImageLayout,
}

impl ImageKernels {
    pub(crate) fn new(core: &Core, push: ash::khr::push_descriptor::Device) -> Result<Self> {
        let layout = ImageLayout::new(core, push)?;
        let kernel = |spirv: &[u8]| ImageKernel::new(core, &layout, spirv);
        Ok(ImageKernels {
            clear: kernel(include_bytes!("../../shaders/meta/cs_clear_image.comp.spv"))?,
            copy: kernel(include_bytes!("../../shaders/meta/cs_copy_image.comp.spv"))?,
            copy_from_buffer: kernel(include_bytes!("../../shaders/meta/cs_copy_buffer_to_image.comp.spv"))?,
            copy_to_buffer: kernel(include_bytes!("../../shaders/meta/cs_copy_image_to_buffer.comp.spv"))?,
            resolve_float: kernel(include_bytes!("../../shaders/meta/cs_resolve_float.comp.spv"))?,
            resolve_uint: kernel(include_bytes!("../../shaders/meta/cs_resolve_uint.comp.spv"))?,
            resolve_sint: kernel(include_bytes!("../../shaders/meta/cs_resolve_sint.comp.spv"))?,
            read_samples: kernel(include_bytes!("../../shaders/meta/cs_read_samples.comp.spv"))?,
            _layout: layout,
        })
    }
}

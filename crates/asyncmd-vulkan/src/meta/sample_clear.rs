//! Exact clears of multisampled colour images: the built-in clear shaders draw the encoded
//! texel's raw bits through an unsigned-integer view of the texel's size, into every sample
//! of a rectangle. A transfer or attachment clear takes a colour the driver converts (lavapipe
//! 22.3 flushes float subnormals and rounds integers past 2^24 through a float in its
//! multisampled attachment clears); a draw of integer outputs stores the bits as given.

use crate::core::Core;
use ash::vk;
use asyncmd_ddi::{
    ColorWriteMask, DepthStencilState, GraphicsPipelineDesc, PrimitiveTopologyType, RootSignatureId, ShaderId,
};
use asyncmd_types::{Error, Format, Result, SampleDesc};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Bytes of the clear shaders' constants: the value's four words, the depth and the slice.
const CONSTANT_BYTES: u32 = 24;

/// The clear pipelines by raw format and sample count, made on first use.
pub(crate) struct SampleClears {
    device: ash::Device,
    layout: vk::PipelineLayout,
    pipelines: Mutex<HashMap<(Format, u32), vk::Pipeline>>,
}

impl SampleClears {
    pub(crate) fn new(core: &Core) -> Result<Self> {
        let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        let ranges = [vk::PushConstantRange { stage_flags: stages, offset: 0, size: CONSTANT_BYTES }];
        let info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges);
        // SAFETY: valid create info.
        let layout = unsafe { core.device.create_pipeline_layout(&info, None) }
            .map_err(|e| Error::out_of_memory(format!("Vulkan: sample clear layout: {e}")))?;
        Ok(SampleClears { device: core.device.clone(), layout, pipelines: Mutex::new(HashMap::new()) })
    }

    /// The pipeline drawing `raw` (an unsigned-integer format) at `samples` samples.
    fn pipeline(&self, core: &Core, raw: Format, samples: u32) -> Result<vk::Pipeline> {
        let mut pipelines = self.pipelines.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(p) = pipelines.get(&(raw, samples)) {
            return Ok(*p);
        }
        let mut write_masks = [ColorWriteMask::empty(); 8];
        write_masks[0] = ColorWriteMask::all();
        let desc = GraphicsPipelineDesc {
            root_signature: RootSignatureId(0),
            vs: ShaderId::ClearVs,
            ps: Some(ShaderId::ClearPsUint),
            write_masks,
            depth_stencil: DepthStencilState::default(),
            rtv_formats: vec![raw],
            dsv_format: Format::Unknown,
            sample_desc: SampleDesc { count: samples, quality: 0 },
            sample_mask: u32::MAX,
            topology_type: PrimitiveTopologyType::Triangle,
        };
        let p = crate::pipeline::graphics_pipeline(core, &desc, self.layout)?;
        pipelines.insert((raw, samples), p);
        Ok(p)
    }

    /// Records the draw of `words` over `rect` into the one colour attachment of the open
    /// rendering instance, a `raw` view at `samples` samples.
    pub(crate) fn draw(
        &self,
        core: &Core,
        cb: vk::CommandBuffer,
        (raw, samples): (Format, u32),
        rect: vk::Rect2D,
        words: [u32; 4],
    ) -> Result<()> {
        let pipeline = self.pipeline(core, raw, samples)?;
        // The triangle covers its viewport: the rectangle bounds it as well as the scissor
        // (lavapipe 22.3 scissors multisampled draws half a texel up and left).
        let viewport = vk::Viewport {
            x: rect.offset.x as f32,
            y: rect.offset.y as f32,
            width: rect.extent.width as f32,
            height: rect.extent.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let mut constants = [0u8; CONSTANT_BYTES as usize];
        for (chunk, w) in constants.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        let d = &self.device;
        let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        // SAFETY: inside a rendering instance of one `raw` attachment at `samples` samples,
        // with a pipeline made for them.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_set_viewport(cb, 0, &[viewport]);
            d.cmd_set_scissor(cb, 0, &[rect]);
            d.cmd_push_constants(cb, self.layout, stages, 0, &constants);
            d.cmd_draw(cb, 3, 1, 0, 0);
        }
        Ok(())
    }
}

impl Drop for SampleClears {
    fn drop(&mut self) {
        let pipelines = self.pipelines.get_mut().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: dropped with the core, after the device is idle.
        unsafe {
            for p in pipelines.values() {
                self.device.destroy_pipeline(*p, None);
            }
            self.device.destroy_pipeline_layout(self.layout, None);
        }
    }
}

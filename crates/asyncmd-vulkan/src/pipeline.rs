//! Root signatures as pipeline layouts with push constants, and pipelines of the built-in
//! shaders on dynamic rendering.
//!
//! Root parameters are laid out in push-constant space in order: constants take 4 bytes each,
//! root UAVs take an 8-byte buffer device address (aligned to 8).

use crate::conv::{self, vk_format};
use crate::core::Core;
use ash::vk;
use asyncmd_ddi::{PipelineDesc, RootParameter, RootSignatureDesc, ShaderId};
use asyncmd_types::{Error, Format, MessageId, Result};
use std::sync::Arc;

/// A root signature: where each parameter sits in push-constant space, and a pipeline layout
/// for each bind point. D3D12 binds one root signature to both, but a layout whose push
/// constants every stage sees must be pushed to every stage: lavapipe (22.3) then updates the
/// graphics stages' constants on a compute push and crashes when none is bound.
pub(crate) struct VkRootSignature {
    core: Arc<Core>,
    compute_layout: vk::PipelineLayout,
    graphics_layout: vk::PipelineLayout,
    pub(crate) offsets: Vec<u32>,
    pub(crate) size: u32,
    /// The description's parameters: root signatures of equal parameters lay out alike.
    pub(crate) parameters: Vec<RootParameter>,
    /// Its static samplers (immutable samplers of the app kernels' layouts).
    pub(crate) static_samplers: Vec<asyncmd_types::StaticSampler>,
    /// Whether the root arguments fit in the device's push constants (the built-in shaders
    /// need them to).
    pub(crate) fits: bool,
}

impl VkRootSignature {
    pub(crate) fn new(core: &Arc<Core>, desc: &RootSignatureDesc) -> Result<Self> {
        let mut offsets = Vec::with_capacity(desc.parameters.len());
        // In u64: the counts are the caller's.
        let mut size = 0u64;
        for p in &desc.parameters {
            match p {
                RootParameter::Constants { count, .. } => {
                    offsets.push(size as u32);
                    size += 4 * u64::from(*count);
                }
                _ => {
                    size = size.next_multiple_of(8);
                    offsets.push(size as u32);
                    size += 8;
                }
            }
            if size > u64::from(u32::MAX) {
                break;
            }
        }
        // Past the device's push-constant bytes the built-in shaders cannot take their
        // arguments (their pipelines are refused); the app's kernels have layouts of their own
        // (`shader.rs`), which upload what does not fit.
        let fits = size <= u64::from(core.props.limits.max_push_constants_size);
        // The runtime checked the 64-dword limit: a u32 holds the size.
        let size = size as u32;
        let pushed = if fits { size } else { 0 };
        let layout = |stages: vk::ShaderStageFlags| {
            let ranges = [vk::PushConstantRange { stage_flags: stages, offset: 0, size: pushed.next_multiple_of(4) }];
            let info = if pushed > 0 {
                vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges)
            } else {
                vk::PipelineLayoutCreateInfo::default()
            };
            // SAFETY: valid create info.
            unsafe { core.device.create_pipeline_layout(&info, None) }
                .map_err(|e| Error::out_of_memory(format!("CreateRootSignature: {e}")))
        };
        let compute_layout = layout(vk::ShaderStageFlags::COMPUTE)?;
        let graphics_layout = layout(vk::ShaderStageFlags::ALL_GRAPHICS).inspect_err(|_| {
            // SAFETY: created above and used by nothing yet.
            unsafe { core.device.destroy_pipeline_layout(compute_layout, None) };
        })?;
        Ok(Self {
            core: core.clone(),
            compute_layout,
            graphics_layout,
            offsets,
            size,
            parameters: desc.parameters.clone(),
            static_samplers: desc.static_samplers.clone(),
            fits,
        })
    }

    /// The pipeline layout of pipelines bound at the compute or the graphics bind point.
    pub(crate) fn layout(&self, compute: bool) -> vk::PipelineLayout {
        if compute {
            self.compute_layout
        } else {
            self.graphics_layout
        }
    }

    /// The stages a push through [`Self::layout`] reaches.
    pub(crate) fn stages(compute: bool) -> vk::ShaderStageFlags {
        if compute {
            vk::ShaderStageFlags::COMPUTE
        } else {
            vk::ShaderStageFlags::ALL_GRAPHICS
        }
    }
}

impl Drop for VkRootSignature {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`).
        self.core.on_driver(|| {
            // SAFETY: pipelines and lists that use the layout hold an Arc of it.
            unsafe {
                self.core.device.destroy_pipeline_layout(self.compute_layout, None);
                self.core.device.destroy_pipeline_layout(self.graphics_layout, None);
            }
        })
    }
}

/// A pipeline and the root signature it was made with.
pub(crate) struct VkPipeline {
    core: Arc<Core>,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) compute: bool,
    /// The compute shader of a compute pipeline.
    pub(crate) cs: Option<ShaderId>,
    pub(crate) root: Arc<VkRootSignature>,
    /// An app kernel's own layout and what its dispatches bind (`shader.rs`).
    pub(crate) app: Option<crate::shader::AppLayout>,
    /// The app's kernel, and its form that reads every root constant from memory, made at the
    /// first `ExecuteIndirect` that sets constants.
    kernel: Option<(asyncmd_ddi::AppShader, std::sync::Mutex<Option<Arc<ConstantsInMemory>>>)>,
}

/// An app kernel compiled to read its root constants from buffers (`shader::compile`'s
/// `constants_in_memory`): what `ExecuteIndirect` binds when its commands set constants.
pub(crate) struct ConstantsInMemory {
    core: Arc<Core>,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: crate::shader::AppLayout,
}

impl Drop for ConstantsInMemory {
    fn drop(&mut self) {
        self.core.on_driver(|| {
            // SAFETY: lists that bind it hold an Arc of it until the GPU is done.
            unsafe { self.core.device.destroy_pipeline(self.pipeline, None) };
            self.layout.destroy(&self.core);
        })
    }
}

impl Drop for VkPipeline {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`).
        self.core.on_driver(|| {
            // SAFETY: lists that bind the pipeline hold an Arc of it until the GPU is done.
            unsafe { self.core.device.destroy_pipeline(self.pipeline, None) };
            if let Some(app) = &self.app {
                app.destroy(&self.core);
            }
        })
    }
}

impl VkPipeline {
    pub(crate) fn new(core: &Arc<Core>, desc: &PipelineDesc, root: Arc<VkRootSignature>) -> Result<Self> {
        let d = &core.device;
        let fail = |e: vk::Result| Error::out_of_memory(format!("CreatePipelineState: {e}"));
        let (shaders, cs) = match desc {
            PipelineDesc::Compute(asyncmd_ddi::ComputePipelineDesc {
                cs: asyncmd_ddi::ComputeShader::App(app),
                ..
            }) => {
                return Self::app(core, app, root);
            }
            PipelineDesc::Compute(asyncmd_ddi::ComputePipelineDesc {
                cs: asyncmd_ddi::ComputeShader::Builtin(id),
                ..
            }) => ([Some(*id), None], Some(*id)),
            PipelineDesc::Graphics(g) => ([Some(g.vs), g.ps], None),
        };
        if !root.fits {
            return Err(Error::new(
                asyncmd_types::ErrorCode::Unsupported,
                MessageId::CreatePipelineStateInvalid,
                format!(
                    "CreatePipelineState: the root signature's arguments exceed this device's {} bytes of push \
                     constants, which the built-in shaders read them from",
                    core.props.limits.max_push_constants_size
                ),
            ));
        }
        // The shaders read their arguments where `asyncmd_ddi::shader` puts them; the fill
        // shader writes through one.
        if let Some(s) = shaders.into_iter().flatten().find(|s| !s.fits_root(&root.parameters)) {
            return Err(Error::invalid_arg(
                MessageId::CreatePipelineStateInvalid,
                format!("CreatePipelineState: the root signature does not give {s:?} its interface"),
            ));
        }
        let (pipeline, compute) = match desc {
            PipelineDesc::Compute(_) => {
                // App kernels returned above: a compute pipeline here has a built-in shader.
                let Some(cs) = cs else {
                    return Err(Error::fail(MessageId::CreatePipelineStateInvalid, "CreatePipelineState: no shader"));
                };
                let m = crate::meta::shader_module(core, cs)?;
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(m)
                    .name(c"main");
                let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(root.layout(true))];
                // SAFETY: valid create info; the module is destroyed once the pipeline exists.
                let p = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
                // SAFETY: the module is no longer needed.
                unsafe { d.destroy_shader_module(m, None) };
                (p.map_err(|(_, e)| fail(e))?[0], true)
            }
            PipelineDesc::Graphics(g) => (graphics_pipeline(core, g, root.layout(false))?, false),
        };
        Ok(Self { core: core.clone(), pipeline, compute, cs, root, app: None, kernel: None })
    }

    /// A compute pipeline of the app's kernel, with its own layout.
    fn app(core: &Arc<Core>, app: &asyncmd_ddi::AppShader, root: Arc<VkRootSignature>) -> Result<Self> {
        let (pipeline, layout) = app_pipeline(core, app, &root, false)?;
        let kernel = Some((app.clone(), std::sync::Mutex::new(None)));
        Ok(Self { core: core.clone(), pipeline, compute: true, cs: None, root, app: Some(layout), kernel })
    }

    /// The form of this app kernel that reads every root constant from memory, made once.
    pub(crate) fn constants_in_memory(&self) -> Result<Arc<ConstantsInMemory>> {
        let Some((app, made)) = &self.kernel else {
            return Err(Error::fail(
                MessageId::ExecuteIndirectInvalid,
                "ExecuteIndirect: commands that set root constants need an app kernel, not a built-in shader",
            ));
        };
        let mut made = made.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(k) = made.as_ref() {
            return Ok(k.clone());
        }
        // Made at the first recording that needs it, maybe on the app's thread: the pipeline
        // is made where pipelines are (`Core::on_compiler`).
        let (pipeline, layout) = self.core.on_compiler(|| app_pipeline(&self.core, app, &self.root, true))?;
        let k = Arc::new(ConstantsInMemory { core: self.core.clone(), pipeline, layout });
        *made = Some(k.clone());
        Ok(k)
    }
}

/// An app kernel's compute pipeline and the layout it was compiled for.
fn app_pipeline(
    core: &Arc<Core>,
    app: &asyncmd_ddi::AppShader,
    root: &VkRootSignature,
    constants_in_memory: bool,
) -> Result<(vk::Pipeline, crate::shader::AppLayout)> {
    let d = &core.device;
    let desc = asyncmd_ddi::RootSignatureDesc {
        static_samplers: root.static_samplers.clone(),
        ..asyncmd_ddi::RootSignatureDesc::new(root.parameters.clone())
    };
    let (words, layout) = crate::shader::compile(core, app, &desc, constants_in_memory)?;
    let info = vk::ShaderModuleCreateInfo::default().code(&words);
    let fail = |e: vk::Result| Error::out_of_memory(format!("CreatePipelineState: {e}"));
    // SAFETY: SPIR-V from naga's back end, from a validated module.
    let m = match unsafe { d.create_shader_module(&info, None) } {
        Ok(m) => m,
        Err(e) => {
            layout.destroy(core);
            return Err(fail(e));
        }
    };
    let name = std::ffi::CString::new(app.entry_point.as_str()).unwrap_or_default();
    let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(m).name(&name);
    let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout.layout)];
    // SAFETY: valid create info; the module is destroyed once the pipeline exists.
    let p = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
    // SAFETY: the module is no longer needed.
    unsafe { d.destroy_shader_module(m, None) };
    match p {
        Ok(p) => Ok((p[0], layout)),
        Err((_, e)) => {
            layout.destroy(core);
            Err(fail(e))
        }
    }
}

/// A graphics pipeline of built-in shaders on dynamic rendering, with `layout`.
pub(crate) fn graphics_pipeline(
    core: &Core,
    g: &asyncmd_ddi::GraphicsPipelineDesc,
    layout: vk::PipelineLayout,
) -> Result<vk::Pipeline> {
    let d = &core.device;
    let fail = |e: vk::Result| Error::out_of_memory(format!("CreatePipelineState: {e}"));
    let vs = crate::meta::shader_module(core, g.vs)?;
    let ps = match g.ps.map(|p| crate::meta::shader_module(core, p)).transpose() {
        Ok(p) => p,
        Err(e) => {
            // SAFETY: the module has no other user.
            unsafe { d.destroy_shader_module(vs, None) };
            return Err(e);
        }
    };
    let mut stages =
        vec![vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::VERTEX).module(vs).name(c"main")];
    if let Some(ps) = ps {
        stages.push(
            vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::FRAGMENT).module(ps).name(c"main"),
        );
    }
    let vertex = vk::PipelineVertexInputStateCreateInfo::default();
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(conv::topology(g.topology_type));
    let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::CLOCKWISE)
        .depth_clamp_enable(false)
        .line_width(1.0);
    let mask = [g.sample_mask];
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::from_raw(g.sample_desc.count.max(1)))
        .sample_mask(&mask);
    let ds = g.depth_stencil;
    let depth = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(ds.depth_enable)
        .depth_write_enable(ds.depth_enable && ds.depth_write)
        .depth_compare_op(conv::compare(ds.depth_func))
        .stencil_test_enable(ds.stencil_enable)
        .front(conv::stencil_face(&ds.front, ds.stencil_read_mask, ds.stencil_write_mask))
        .back(conv::stencil_face(&ds.back, ds.stencil_read_mask, ds.stencil_write_mask));
    let attachments: Vec<_> = (0..g.rtv_formats.len())
        .map(|i| {
            vk::PipelineColorBlendAttachmentState::default()
                .blend_enable(false)
                .color_write_mask(vk::ColorComponentFlags::from_raw(g.write_masks[i].bits() as u32))
        })
        .collect();
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
    let dynamic_states = [
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::SCISSOR,
        vk::DynamicState::STENCIL_REFERENCE,
        vk::DynamicState::BLEND_CONSTANTS,
    ];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let colors: Vec<vk::Format> =
        g.rtv_formats.iter().map(|f| vk_format(*f).unwrap_or(vk::Format::UNDEFINED)).collect();
    let (depth_format, stencil_format) = match g.dsv_format {
        Format::Unknown => (vk::Format::UNDEFINED, vk::Format::UNDEFINED),
        f => {
            let v = vk_format(f).unwrap_or(vk::Format::UNDEFINED);
            (v, if f.has_stencil() { v } else { vk::Format::UNDEFINED })
        }
    };
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&colors)
        .depth_attachment_format(depth_format)
        .stencil_attachment_format(stencil_format);
    let info = [vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic)
        .layout(layout)
        .push_next(&mut rendering)];
    // SAFETY: every pointer refers to locals alive during the call.
    let p = unsafe { d.create_graphics_pipelines(vk::PipelineCache::null(), &info, None) };
    // SAFETY: the modules are no longer needed once the pipeline exists.
    unsafe {
        d.destroy_shader_module(vs, None);
        if let Some(ps) = ps {
            d.destroy_shader_module(ps, None);
        }
    }
    p.map_err(|(_, e)| fail(e)).map(|p| p[0])
}

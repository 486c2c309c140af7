//! The app's kernels on Vulkan: the module's bindings renumbered for the root signature, then
//! naga's SPIR-V back end.
//!
//! Each pipeline gets its own layout, so that its SPIR-V needs no knowledge of where other
//! parameters sit:
//! - root CBVs, SRVs and UAVs are push descriptors in set 0, binding `i` for the entry point's
//!   `i`-th binding (a uniform buffer for a CBV, a storage buffer otherwise), pushed at each
//!   dispatch from the root arguments;
//! - the push-constant block is the root-constants parameter behind it, pushed from offset 0;
//!   a constant buffer made of root constants becomes that block when the kernel has none;
//! - out-of-bounds accesses read 0 and drop writes (naga's `ReadZeroSkipWrite`), as on the
//!   reference device.
//!
//! - a descriptor table's views are push descriptors too (tables are read when the dispatch is
//!   recorded): buffers as above, textures as sampled images (SRVs) or storage images (UAVs)
//!   in the general layout every image is kept in.
//!
//! - samplers of a sampler table and static samplers are pushed too (`sampler.rs` makes each
//!   distinct one once).
//!
//! A kernel that binds more descriptors than the device pushes, or a device without push
//! descriptors, gets set 0 as an ordinary set instead, allocated from the list's pools and
//! written at each dispatch (`command/descriptor_sets.rs`): the same bindings, the same SPIR-V.

use crate::core::Core;
use ash::vk;
use asyncmd_ddi::AppShader;
use asyncmd_shader::{bind_to_root, BindingSource, ShaderStage};
use asyncmd_types::{Error, ErrorCode, MessageId, RegisterClass, Result, RootSignatureDesc};

/// Where a push descriptor's buffer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A root CBV, SRV or UAV.
    Root(usize),
    /// A descriptor table's view: (parameter, descriptors from the table's start, descriptors
    /// in the binding: more than one for an array).
    Table(u32, u64, u32),
    /// A root-constants parameter whose bytes do not fit in push constants: uploaded at each
    /// dispatch to a buffer the kernel reads.
    Constants(usize),
    /// A static sampler, pushed at each dispatch like the others (lavapipe 22.3 ignores
    /// immutable samplers in push-descriptor layouts: it sampled with a zeroed sampler).
    Static(vk::Sampler),
    /// The device's clock and flag of the shader time budget (`watchdog.rs`).
    Watchdog(vk::Buffer),
}

impl Source {
    /// Descriptors it takes: an array's elements, else one.
    pub(crate) fn count(&self) -> u32 {
        match *self {
            Source::Table(_, _, count) => count,
            _ => 1,
        }
    }
}

/// What a dispatch of an app pipeline binds.
pub(crate) struct AppLayout {
    pub(crate) set_layout: vk::DescriptorSetLayout,
    pub(crate) layout: vk::PipelineLayout,
    /// Binding `i` of set 0: where its buffer comes from and its descriptor type.
    pub(crate) descriptors: Vec<(Source, vk::DescriptorType)>,
    /// The root-constants parameter behind the push-constant block, and the block's bytes.
    pub(crate) immediates: Option<(usize, u32)>,
    /// Set 0 is pushed; otherwise it is a set allocated and written at each dispatch, whose
    /// descriptors `pool_sizes` counts by type.
    pub(crate) pushed: bool,
    pub(crate) pool_sizes: Vec<vk::DescriptorPoolSize>,
}

fn unsupported(what: &str) -> Error {
    Error::new(
        ErrorCode::Unsupported,
        MessageId::CreatePipelineStateInvalid,
        format!("CreatePipelineState: the Vulkan device does not bind {what} yet"),
    )
}

/// The kernel's SPIR-V and the layout it was written for. With `constants_in_memory` every
/// root constant is read from a buffer, none pushed: `ExecuteIndirect` writes them on the GPU.
pub(crate) fn compile(
    core: &Core,
    app: &AppShader,
    root: &RootSignatureDesc,
    constants_in_memory: bool,
) -> Result<(Vec<u32>, AppLayout)> {
    let entry = app.module.entry_point(&app.entry_point, ShaderStage::Compute)?;
    let bound = bind_to_root(entry, root).map_err(|why| {
        Error::invalid_arg(MessageId::CreatePipelineStateInvalid, format!("CreatePipelineState: {why}"))
    })?;
    let (module, _) = app.module.naga();
    let mut module = module.clone();
    let mut descriptors = Vec::new();
    let mut immediates = bound.immediates.map(|p| (p, entry.immediate_bytes.unwrap_or(0)));
    for (b, source) in entry.bindings.iter().zip(&bound.sources) {
        let handle = module
            .global_variables
            .iter()
            .find(|(h, _)| h.index() == b.global)
            .map(|(h, _)| h)
            .ok_or_else(|| unsupported("a binding naga does not list"))?;
        let var = &mut module.global_variables[handle];
        match *source {
            BindingSource::RootDescriptor { .. } | BindingSource::Table { .. } => {
                let source = match *source {
                    BindingSource::RootDescriptor { parameter } => Source::Root(parameter),
                    BindingSource::Table { parameter, offset, .. } => {
                        let f = &core.features;
                        let (indexable, feature) = match b.kind {
                            asyncmd_shader::BindingKind::Buffer { .. } => {
                                (f.buffer_array_indexing, "shader*BufferArrayDynamicIndexing")
                            }
                            _ if b.class == RegisterClass::Uav => {
                                (f.storage_image_array_indexing, "shaderStorageImageArrayDynamicIndexing")
                            }
                            _ => (f.sampled_array_indexing, "shaderSampledImageArrayDynamicIndexing"),
                        };
                        if b.count > 1 && b.indexed && !indexable {
                            return Err(Error::new(
                                ErrorCode::Unsupported,
                                MessageId::CreatePipelineStateInvalid,
                                format!(
                                    "CreatePipelineState: `{}` is an array of descriptors indexed by a value, and \
                                     this Vulkan device lacks {feature} (constant indexes work)",
                                    b.name
                                ),
                            ));
                        }
                        if b.count == asyncmd_types::DESCRIPTOR_RANGE_UNBOUNDED {
                            return Err(unsupported("unbounded arrays of descriptors"));
                        }
                        Source::Table(parameter as u32, offset, b.count)
                    }
                    _ => return Err(unsupported("this binding")),
                };
                let ty = match b.kind {
                    asyncmd_shader::BindingKind::Buffer { .. } if b.class == RegisterClass::Cbv => {
                        vk::DescriptorType::UNIFORM_BUFFER
                    }
                    asyncmd_shader::BindingKind::Buffer { .. } => vk::DescriptorType::STORAGE_BUFFER,
                    asyncmd_shader::BindingKind::Texture { dim: 4, arrayed: true, .. }
                        if !core.features.cube_arrays =>
                    {
                        return Err(unsupported("cube arrays on a device without imageCubeArray"))
                    }
                    asyncmd_shader::BindingKind::Texture { dim: 1..=4, multisampled: false, .. } => {
                        if b.class == RegisterClass::Uav {
                            vk::DescriptorType::STORAGE_IMAGE
                        } else {
                            vk::DescriptorType::SAMPLED_IMAGE
                        }
                    }
                    asyncmd_shader::BindingKind::Texture { .. } => return Err(unsupported("multisampled textures")),
                    asyncmd_shader::BindingKind::Sampler { .. } => vk::DescriptorType::SAMPLER,
                };
                var.binding = Some(naga::ResourceBinding { group: 0, binding: descriptors.len() as u32 });
                descriptors.push((source, ty));
            }
            BindingSource::RootConstants { parameter } if immediates.is_none() => {
                let size = match b.kind {
                    asyncmd_shader::BindingKind::Buffer { size, .. } => size as u32,
                    _ => 0,
                };
                var.space = naga::AddressSpace::Immediate;
                var.binding = None;
                immediates = Some((parameter, size));
            }
            BindingSource::RootConstants { parameter } => {
                // Beside a push-constant block: read from a buffer of the constants instead.
                var.space = naga::AddressSpace::Storage { access: naga::StorageAccess::LOAD };
                var.binding = Some(naga::ResourceBinding { group: 0, binding: descriptors.len() as u32 });
                descriptors.push((Source::Constants(parameter), vk::DescriptorType::STORAGE_BUFFER));
            }
            BindingSource::StaticSampler { index } => {
                let Some(s) = root.static_samplers.get(index) else {
                    return Err(unsupported("a static sampler the root signature does not hold"));
                };
                let sampler = core.sampler(&asyncmd_types::SamplerDesc { border_color: s.border.rgba(), ..s.desc })?;
                var.binding = Some(naga::ResourceBinding { group: 0, binding: descriptors.len() as u32 });
                descriptors.push((Source::Static(sampler), vk::DescriptorType::SAMPLER));
            }
        }
    }
    if app.module.non_uniform_indexing() && !core.features.array_non_uniform_indexing {
        return Err(unsupported("arrays of descriptors indexed by values that differ between threads"));
    }
    let mut push_bytes = immediates.map_or(0, |(_, n)| n.next_multiple_of(4));
    let spill = constants_in_memory || push_bytes > core.props.limits.max_push_constants_size;
    if let Some((parameter, _)) = immediates.filter(|_| spill) {
        // More than the device pushes (lavapipe: 128 bytes, D3D12: up to 256), or constants the
        // GPU writes: the block is read from a buffer of the constants.
        let Some((_, var)) = module.global_variables.iter_mut().find(|(_, v)| v.space == naga::AddressSpace::Immediate)
        else {
            return Err(unsupported("a push-constant block naga does not list"));
        };
        var.space = naga::AddressSpace::Storage { access: naga::StorageAccess::LOAD };
        var.binding = Some(naga::ResourceBinding { group: 0, binding: descriptors.len() as u32 });
        descriptors.push((Source::Constants(parameter), vk::DescriptorType::STORAGE_BUFFER));
        immediates = None;
        push_bytes = 0;
    }
    let mut flags = naga::valid::ValidationFlags::all() - naga::valid::ValidationFlags::BINDINGS;
    if crate::watchdog::has_loops(&module) {
        if let Some(dog) = core.watchdog()? {
            let binding = naga::ResourceBinding { group: 0, binding: descriptors.len() as u32 };
            crate::watchdog::instrument(&mut module, dog, binding);
            descriptors.push((Source::Watchdog(dog.buffer()), vk::DescriptorType::STORAGE_BUFFER));
            // The checks leave loops on a value from memory: barriers after them are in
            // control flow naga cannot prove uniform, though every lane leaves at once.
            flags -= naga::valid::ValidationFlags::CONTROL_FLOW_UNIFORMITY;
        }
    }
    // The watchdog's words are volatile; the app's modules were validated without it.
    let caps = asyncmd_shader::CAPABILITIES
        | naga::valid::Capabilities::MEMORY_DECORATION_VOLATILE
        | naga::valid::Capabilities::MEMORY_DECORATION_COHERENT;
    // The renumbered module validates as the original did; the back end needs its own info.
    let info = naga::valid::Validator::new(flags, caps)
        .validate(&module)
        .map_err(|e| Error::fail(MessageId::CreatePipelineStateInvalid, format!("CreatePipelineState: {e}")))?;
    let policy = naga::proc::BoundsCheckPolicy::ReadZeroSkipWrite;
    // With robustBufferAccess2 the device drops out-of-bounds buffer writes itself, atomics
    // included (naga's checks do not cover atomics); without it naga checks each access. The
    // kernel's own arrays, vectors and matrices clamp an index to their last element
    // (`Restrict`, which naga implements for atomics on workgroup arrays too), as the reference
    // device does.
    let buffer = if core.features.robust_buffers { naga::proc::BoundsCheckPolicy::Unchecked } else { policy };
    let options = naga::back::spv::Options {
        lang_version: (1, 3),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer,
            image_load: policy,
            // naga cannot guard an access to an array of textures or samplers (a handle has no
            // zero to read). D3D12 leaves an index past the end undefined; clamping it to the
            // last element is what the reference device does.
            binding_array: naga::proc::BoundsCheckPolicy::Restrict,
        },
        flags: naga::back::spv::WriterFlags::empty(),
        ..Default::default()
    };
    let pipeline = naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: app.entry_point.clone(),
    };
    let words = naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline))
        .map_err(|e| Error::fail(MessageId::CreatePipelineStateInvalid, format!("CreatePipelineState: SPIR-V: {e}")))?;
    // Every descriptor is pushed at each dispatch, in one push, where the device pushes that
    // many; otherwise set 0 is a set of the list's, written at each dispatch.
    let pool_sizes = pool_sizes(&descriptors);
    let total: u64 = pool_sizes.iter().map(|s| u64::from(s.descriptor_count)).sum();
    let pushed = core.push_descriptor.is_some() && total <= u64::from(core.features.max_push_descriptors);
    if !pushed {
        check_set_limits(core, &pool_sizes, total)?;
    }
    let layout = make_layout(core, &descriptors, push_bytes, pushed)?;
    Ok((words, AppLayout { set_layout: layout.0, layout: layout.1, descriptors, immediates, pushed, pool_sizes }))
}

/// The descriptors of `descriptors` by type.
fn pool_sizes(descriptors: &[(Source, vk::DescriptorType)]) -> Vec<vk::DescriptorPoolSize> {
    let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
    for (source, ty) in descriptors {
        match sizes.iter_mut().find(|s| s.ty == *ty) {
            Some(s) => s.descriptor_count = s.descriptor_count.saturating_add(source.count()),
            None => sizes.push(vk::DescriptorPoolSize { ty: *ty, descriptor_count: source.count() }),
        }
    }
    sizes
}

/// Refuses a set of more descriptors of a type than one compute stage may bind on this device.
fn check_set_limits(core: &Core, sizes: &[vk::DescriptorPoolSize], total: u64) -> Result<()> {
    let l = &core.props.limits;
    let refuse = |what: &str, n: u64, limit: u32| {
        Err(Error::new(
            ErrorCode::Unsupported,
            MessageId::CreatePipelineStateInvalid,
            format!(
                "CreatePipelineState: the kernel binds {n} {what}; this Vulkan device binds at most {limit} in a stage"
            ),
        ))
    };
    if total > u64::from(l.max_per_stage_resources) {
        return refuse("descriptors", total, l.max_per_stage_resources);
    }
    for s in sizes {
        let (what, limit) = match s.ty {
            vk::DescriptorType::UNIFORM_BUFFER => ("constant buffers", l.max_per_stage_descriptor_uniform_buffers),
            vk::DescriptorType::STORAGE_BUFFER => ("storage buffers", l.max_per_stage_descriptor_storage_buffers),
            vk::DescriptorType::SAMPLED_IMAGE => ("sampled textures", l.max_per_stage_descriptor_sampled_images),
            vk::DescriptorType::STORAGE_IMAGE => ("storage textures", l.max_per_stage_descriptor_storage_images),
            vk::DescriptorType::SAMPLER => ("samplers", l.max_per_stage_descriptor_samplers),
            _ => continue,
        };
        if s.descriptor_count > limit {
            return refuse(what, u64::from(s.descriptor_count), limit);
        }
    }
    Ok(())
}

fn make_layout(
    core: &Core,
    descriptors: &[(Source, vk::DescriptorType)],
    push_bytes: u32,
    pushed: bool,
) -> Result<(vk::DescriptorSetLayout, vk::PipelineLayout)> {
    let d = &core.device;
    let oom = |e: vk::Result| Error::out_of_memory(format!("CreatePipelineState: {e}"));
    let bindings: Vec<vk::DescriptorSetLayoutBinding> = descriptors
        .iter()
        .enumerate()
        .map(|(i, (source, ty))| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i as u32)
                .descriptor_type(*ty)
                .descriptor_count(source.count())
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let flags = if pushed { vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR } else { Default::default() };
    let info = vk::DescriptorSetLayoutCreateInfo::default().flags(flags).bindings(&bindings);
    // SAFETY: valid create info (a pushed set within the device's push limit).
    let set_layout = unsafe { d.create_descriptor_set_layout(&info, None) }.map_err(oom)?;
    let ranges = [vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::COMPUTE, offset: 0, size: push_bytes }];
    let sets = [set_layout];
    let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&sets);
    if push_bytes > 0 {
        info = info.push_constant_ranges(&ranges);
    }
    // SAFETY: valid create info.
    match unsafe { d.create_pipeline_layout(&info, None) } {
        Ok(layout) => Ok((set_layout, layout)),
        Err(e) => {
            // SAFETY: created above and used by nothing.
            unsafe { d.destroy_descriptor_set_layout(set_layout, None) };
            Err(oom(e))
        }
    }
}

impl AppLayout {
    /// Destroys the layouts; the pipeline that used them is gone.
    pub(crate) fn destroy(&self, core: &Core) {
        // SAFETY: only the dropped pipeline used them, and lists hold that until the GPU is done.
        unsafe {
            core.device.destroy_pipeline_layout(self.layout, None);
            core.device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

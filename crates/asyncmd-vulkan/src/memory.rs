//! Buffers and images with their memory, zeroed at creation as D3D12 committed resources are.

use crate::conv::{all_aspects, barrier_aspects, image_usage, raw_uint_format, vk_format};
use crate::core::Core;
use ash::vk;
use asyncmd_types::{Error, Format, HeapType, MessageId, ResourceDesc, ResourceDimension, ResourceFlags, Result};
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Identifies an image view: format, type, mip, first layer, layer count, aspect.
pub(crate) type ViewKey = (vk::Format, vk::ImageViewType, u32, u32, u32, vk::ImageAspectFlags);

pub(crate) enum Kind {
    Buffer {
        buffer: vk::Buffer,
    },
    Image {
        image: vk::Image,
        format: vk::Format,
        /// Views by key and mip count.
        views: Mutex<HashMap<(ViewKey, u32), vk::ImageView>>,
        /// The unsigned-integer format of the texel size the image kernels read and write raw
        /// texels through, where the image allows it (storage and sampled usage, mutable format).
        clear_format: Option<vk::Format>,
        /// The image's usage (its flags', and what the device added for its own clears).
        usage: vk::ImageUsageFlags,
        /// Multisampled images: the unsigned-integer format of the texel size `ReadSamples`
        /// reads raw samples through (sampled usage, mutable format).
        sample_format: Option<vk::Format>,
    },
}

/// A resource of the Vulkan device.
pub(crate) struct VkResource {
    core: Arc<Core>,
    pub(crate) desc: ResourceDesc,
    pub(crate) kind: Kind,
    allocation: Mutex<Option<Allocation>>,
    /// A reserved (sparse) resource.
    pub(crate) reserved: bool,
    /// Bytes of a reserved buffer's address range (0 otherwise).
    pub(crate) sparse_size: u64,
    /// Heaps a reserved resource has tiles mapped into, kept alive with it.
    pub(crate) bound_heaps: Mutex<Vec<Arc<crate::sparse::VkHeap>>>,
}

fn location(heap: HeapType) -> MemoryLocation {
    match heap {
        HeapType::Default => MemoryLocation::GpuOnly,
        HeapType::Upload => MemoryLocation::CpuToGpu,
        HeapType::Readback => MemoryLocation::GpuToCpu,
    }
}

/// A depth-stencil texture of a typeless family whose members are mostly colour
/// (`R32_TYPELESS`, `R16_TYPELESS`: D3D12's way to give one texture a depth view and a shader
/// resource view) is a depth image in the family's depth format: Vulkan attaches depth only
/// through a depth format, and views no depth image in a colour format. The device knows the
/// texture by that format from here on; its shader resource views read the depth aspect, as
/// they do of any depth texture.
fn depth_image_desc(desc: &ResourceDesc) -> ResourceDesc {
    let member = desc.format.depth_stencil_member();
    match member {
        Some(f) if desc.flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL) && !desc.format.has_depth() => {
            ResourceDesc { format: f, ..*desc }
        }
        _ => *desc,
    }
}

fn oom(api: &str, e: impl std::fmt::Display) -> Error {
    Error::out_of_memory(format!("{api}: {e}"))
}

impl VkResource {
    pub(crate) fn new(core: &Arc<Core>, desc: &ResourceDesc, heap: HeapType) -> Result<Self> {
        debug_assert!(crate::threads::on_driver_thread(), "a driver call off the driver threads");
        if desc.is_buffer() {
            Self::new_buffer(core, desc, heap)
        } else {
            Self::new_image(core, desc)
        }
    }

    fn new_buffer(core: &Arc<Core>, desc: &ResourceDesc, heap: HeapType) -> Result<Self> {
        let d = &core.device;
        // Every D3D12 buffer may be a constant buffer, a raw or structured view, an address, or
        // indirect arguments.
        let mut usage = vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::INDIRECT_BUFFER
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        if core.features.conditional_rendering {
            usage |= vk::BufferUsageFlags::CONDITIONAL_RENDERING_EXT;
        }
        // Whole dwords: `vkCmdFillBuffer` zeroes whole dwords only, and a D3D12 buffer is zeroed
        // to its last byte.
        let size = desc.width.checked_next_multiple_of(4).ok_or_else(|| {
            Error::out_of_memory(format!("CreateCommittedResource: a buffer of {} bytes", desc.width))
        })?;
        let info = core.shared_buffer(vk::BufferCreateInfo::default().size(size).usage(usage));
        // SAFETY: valid create info; the buffer is destroyed in `Drop` or below on failure.
        let buffer = unsafe { d.create_buffer(&info, None) }.map_err(|e| oom("CreateCommittedResource", e))?;
        // SAFETY: `buffer` is live.
        let requirements = unsafe { d.get_buffer_memory_requirements(buffer) };
        let allocation = core.allocator().allocate(&AllocationCreateDesc {
            name: "buffer",
            requirements,
            location: location(heap),
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the buffer has no memory bound and no user.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(oom("CreateCommittedResource", e));
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements.
        let bound = unsafe { d.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) };
        let res = Self {
            core: core.clone(),
            desc: *desc,
            kind: Kind::Buffer { buffer },
            allocation: Mutex::new(Some(allocation)),
            reserved: false,
            sparse_size: 0,
            bound_heaps: Mutex::new(Vec::new()),
        };
        bound.map_err(|e| oom("CreateCommittedResource", e))?;
        if heap == HeapType::Default {
            // SAFETY: `buffer` is live; the command buffer is submitted and waited for by `one_time`.
            core.one_time(|cb| unsafe { d.cmd_fill_buffer(cb, buffer, 0, vk::WHOLE_SIZE, 0) })?;
        } else {
            res.host_access(0, desc.width as usize, |bytes| bytes.fill(0))?;
        }
        Ok(res)
    }

    fn new_image(core: &Arc<Core>, desc: &ResourceDesc) -> Result<Self> {
        let desc = &depth_image_desc(desc);
        let d = &core.device;
        let i = &core.instance.instance;
        let format = vk_format(desc.format).ok_or_else(|| {
            Error::unsupported(format!("CreateCommittedResource: {} has no Vulkan format", desc.format))
        })?;
        let (ty, extent, layers) = match desc.dimension {
            ResourceDimension::Texture1D => (
                vk::ImageType::TYPE_1D,
                vk::Extent3D { width: desc.width as u32, height: 1, depth: 1 },
                desc.array_size(),
            ),
            ResourceDimension::Texture3D => (
                vk::ImageType::TYPE_3D,
                vk::Extent3D { width: desc.width as u32, height: desc.height, depth: desc.depth() },
                1,
            ),
            _ => (
                vk::ImageType::TYPE_2D,
                vk::Extent3D { width: desc.width as u32, height: desc.height, depth: 1 },
                desc.array_size(),
            ),
        };
        let mut usage = image_usage(desc);
        let mut flags = vk::ImageCreateFlags::empty();
        // The app's kernels read textures through sampled views unless the flags deny it.
        // Depth textures too, single-sampled: kernels read them through depth-aspect views.
        let sampled =
            !desc.flags.contains(ResourceFlags::DENY_SHADER_RESOURCE) && (!desc.format.has_depth() || !desc.is_msaa());
        let group = desc.format.info().typeless;
        if !desc.format.has_depth() && group != desc.format || desc.format.is_typeless() {
            flags |= vk::ImageCreateFlags::MUTABLE_FORMAT;
        }
        // Any square 2D texture of six slices or more may be viewed as cubes, as vkd3d-proton
        // makes them.
        if desc.dimension == ResourceDimension::Texture2D
            && desc.width == u64::from(desc.height)
            && desc.array_size() >= 6
            && desc.sample_desc.count <= 1
        {
            flags |= vk::ImageCreateFlags::CUBE_COMPATIBLE;
        }
        if desc.dimension == ResourceDimension::Texture3D && desc.flags.contains(ResourceFlags::ALLOW_RENDER_TARGET) {
            // Render-target views of 3D textures select depth slices as array layers.
            flags |= vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE;
        }
        let samples = vk::SampleCountFlags::from_raw(desc.sample_desc.count);
        // SAFETY: capability queries on this device's physical device.
        let properties = |usage, flags| unsafe {
            i.get_physical_device_image_format_properties(
                core.physical,
                format,
                ty,
                vk::ImageTiling::OPTIMAL,
                usage,
                flags,
            )
        };
        // Single-sample 2D colour images of plain texels can be cleared, copied and resolved
        // into by compute shaders that store and read raw texels through an unsigned-integer
        // view of the same size.
        let info = desc.format.info();
        let plain = matches!(
            info.layout,
            asyncmd_types::Layout::Channels { .. }
                | asyncmd_types::Layout::R10G10B10A2
                | asyncmd_types::Layout::R11G11B10
                | asyncmd_types::Layout::R9G9B9E5
                | asyncmd_types::Layout::B5G6R5
                | asyncmd_types::Layout::B5G5R5A1
                | asyncmd_types::Layout::B4G4R4A4
        );
        let (mut clear_format, mut sample_format) = (None, None);
        if desc.is_msaa() {
            // Copies reach no sample of a multisampled image, so a partial clear of one is an
            // attachment clear: made possible where the D3D12 flags ask for no attachment.
            let attachment = if desc.format.has_depth() {
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            } else {
                vk::ImageUsageFlags::COLOR_ATTACHMENT
            };
            if !usage.contains(attachment) && properties(usage | attachment, flags).is_ok() {
                usage |= attachment;
            }
            // The compute resolves read the samples through a sampled view.
            let sampled = usage | vk::ImageUsageFlags::SAMPLED;
            if core.features.image_kernels && !desc.format.has_depth() && properties(sampled, flags).is_ok() {
                usage = sampled;
                // `ReadSamples` and the exact clears of samples read and draw raw texels
                // through an unsigned-integer view of the texel's size.
                let raw = raw_uint_format(info.bytes_per_block as u32).filter(|_| plain);
                let mutable = flags | vk::ImageCreateFlags::MUTABLE_FORMAT;
                let raw_usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED;
                // SAFETY: a format-properties query on this device's physical device.
                let raw_samples = raw.and_then(|r| unsafe {
                    i.get_physical_device_image_format_properties(
                        core.physical,
                        r,
                        ty,
                        vk::ImageTiling::OPTIMAL,
                        raw_usage,
                        mutable,
                    )
                    .ok()
                });
                if raw_samples.is_some_and(|p| p.sample_counts.contains(samples)) && properties(usage, mutable).is_ok()
                {
                    (flags, sample_format) = (mutable, raw);
                }
            }
        }
        if core.features.image_kernels && plain && !desc.is_msaa() && desc.dimension == ResourceDimension::Texture2D {
            let raw = raw_uint_format(info.bytes_per_block as u32);
            let raw_usage = vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::SAMPLED;
            let (u, f) = (usage | raw_usage, flags | vk::ImageCreateFlags::MUTABLE_FORMAT);
            if raw.is_some() && properties(u, f).is_ok() {
                (usage, flags, clear_format) = (u, f, raw);
            }
        }
        if sampled && properties(usage | vk::ImageUsageFlags::SAMPLED, flags).is_ok() {
            usage |= vk::ImageUsageFlags::SAMPLED;
        }
        let supported = properties(usage, flags);
        match supported {
            Ok(p)
                if p.sample_counts.contains(samples)
                    && p.max_array_layers >= layers
                    && p.max_mip_levels >= desc.mip_count()
                    && p.max_extent.width >= extent.width
                    && p.max_extent.height >= extent.height
                    && p.max_extent.depth >= extent.depth => {}
            _ => {
                return Err(Error::new(
                    asyncmd_types::ErrorCode::Unsupported,
                    MessageId::CreateResourceInvalidDesc,
                    format!("CreateCommittedResource: the Vulkan device cannot make a {:?} {} texture of this size with these flags and {} samples", desc.dimension, desc.format, desc.sample_desc.count),
                ))
            }
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(ty)
            .format(format)
            .extent(extent)
            .mip_levels(desc.mip_count())
            .array_layers(layers)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .flags(flags)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let info = core.shared_image(info);
        // SAFETY: valid create info, checked against the format's properties.
        let image = unsafe { d.create_image(&info, None) }.map_err(|e| oom("CreateCommittedResource", e))?;
        // SAFETY: `image` is live.
        let requirements = unsafe { d.get_image_memory_requirements(image) };
        let allocation = core.allocator().allocate(&AllocationCreateDesc {
            name: "image",
            requirements,
            location: MemoryLocation::GpuOnly,
            linear: false,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: no memory bound, no user.
                unsafe { d.destroy_image(image, None) };
                return Err(oom("CreateCommittedResource", e));
            }
        };
        tracing::debug!(
            bytes = requirements.size,
            types = requirements.memory_type_bits,
            flags = ?allocation.memory_properties(),
            "image memory"
        );
        // SAFETY: the allocation satisfies the image's requirements.
        let bound = unsafe { d.bind_image_memory(image, allocation.memory(), allocation.offset()) };
        let res = Self {
            core: core.clone(),
            desc: *desc,
            kind: Kind::Image { image, format, views: Mutex::new(HashMap::new()), clear_format, usage, sample_format },
            allocation: Mutex::new(Some(allocation)),
            reserved: false,
            sparse_size: 0,
            bound_heaps: Mutex::new(Vec::new()),
        };
        bound.map_err(|e| oom("CreateCommittedResource", e))?;
        res.zero_image(image, format)?;
        Ok(res)
    }

    /// A reserved resource: sparse, with no memory until tiles are mapped (unmapped tiles read
    /// zero).
    pub(crate) fn new_reserved(core: &Arc<Core>, desc: &ResourceDesc) -> Result<Self> {
        let d = &core.device;
        let sparse = vk::BufferCreateFlags::SPARSE_BINDING | vk::BufferCreateFlags::SPARSE_RESIDENCY;
        if desc.is_buffer() {
            // A device address too: native tile copies of reserved buffers are compute copies.
            let usage = vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::UNIFORM_BUFFER
                | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
            let info = core.shared_buffer(vk::BufferCreateInfo::default().size(desc.width).usage(usage).flags(sparse));
            // SAFETY: valid create info; destroyed in `Drop`.
            let buffer = unsafe { d.create_buffer(&info, None) }.map_err(|e| oom("CreateReservedResource", e))?;
            // SAFETY: `buffer` is live.
            let size = unsafe { d.get_buffer_memory_requirements(buffer) }.size;
            return Ok(Self {
                core: core.clone(),
                desc: *desc,
                kind: Kind::Buffer { buffer },
                allocation: Mutex::new(None),
                reserved: true,
                sparse_size: size,
                bound_heaps: Mutex::new(Vec::new()),
            });
        }
        let format = vk_format(desc.format).ok_or_else(|| {
            Error::unsupported(format!("CreateReservedResource: {} has no Vulkan format", desc.format))
        })?;
        let usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        crate::sparse::check_reserved(core, desc, usage)?;
        let mut flags = vk::ImageCreateFlags::SPARSE_BINDING | vk::ImageCreateFlags::SPARSE_RESIDENCY;
        if desc.format.is_typeless() {
            flags |= vk::ImageCreateFlags::MUTABLE_FORMAT;
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D { width: desc.width as u32, height: desc.height, depth: 1 })
            .mip_levels(desc.mip_count())
            .array_layers(desc.array_size())
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .flags(flags)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let info = core.shared_image(info);
        // SAFETY: valid create info checked against the sparse format properties.
        let image = unsafe { d.create_image(&info, None) }.map_err(|e| oom("CreateReservedResource", e))?;
        let res = Self {
            core: core.clone(),
            desc: *desc,
            kind: Kind::Image {
                image,
                format,
                views: Mutex::new(HashMap::new()),
                clear_format: None,
                usage,
                sample_format: None,
            },
            allocation: Mutex::new(None),
            reserved: true,
            sparse_size: 0,
            bound_heaps: Mutex::new(Vec::new()),
        };
        let to_general = [vk::ImageMemoryBarrier2::default()
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::GENERAL)
            .image(image)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: barrier_aspects(desc.format),
                base_mip_level: 0,
                level_count: vk::REMAINING_MIP_LEVELS,
                base_array_layer: 0,
                layer_count: vk::REMAINING_ARRAY_LAYERS,
            })];
        // SAFETY: a layout transition of the live image in the one-time command buffer.
        core.one_time(|cb| unsafe {
            d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().image_memory_barriers(&to_general))
        })?;
        Ok(res)
    }

    /// Moves a new image to GENERAL and zeroes it, as D3D12 zeroes committed resources.
    fn zero_image(&self, image: vk::Image, format: vk::Format) -> Result<()> {
        let d = &self.core.device;
        let desc = &self.desc;
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(barrier_aspects(desc.format))
            .level_count(vk::REMAINING_MIP_LEVELS)
            .layer_count(vk::REMAINING_ARRAY_LAYERS);
        let to_general = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::NONE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::GENERAL)
            .image(image)
            .subresource_range(range)];
        let block_or_planar =
            desc.format.is_block_compressed() || desc.format.plane_count() > 1 && !desc.format.has_depth();
        let staging = if block_or_planar { Some(self.zero_staging()?) } else { None };
        let _ = format;
        let result = self.core.one_time(|cb| {
            // SAFETY: recording into the one-time command buffer; every handle is live.
            unsafe {
                d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().image_memory_barriers(&to_general));
                if let Some((buffer, _)) = &staging {
                    let regions = self.zero_copy_regions();
                    d.cmd_copy_buffer_to_image(cb, *buffer, image, vk::ImageLayout::GENERAL, &regions);
                } else if desc.format.has_depth() {
                    let range = vk::ImageSubresourceRange { aspect_mask: all_aspects(desc.format), ..range };
                    d.cmd_clear_depth_stencil_image(
                        cb,
                        image,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearDepthStencilValue::default(),
                        &[range],
                    );
                } else {
                    let range = vk::ImageSubresourceRange { aspect_mask: vk::ImageAspectFlags::COLOR, ..range };
                    d.cmd_clear_color_image(
                        cb,
                        image,
                        vk::ImageLayout::GENERAL,
                        &vk::ClearColorValue::default(),
                        &[range],
                    );
                }
                let done = [vk::MemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                    .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
                d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&done));
            }
        });
        if let Some((buffer, allocation)) = staging {
            // SAFETY: the one-time submission that used the buffer has completed.
            unsafe { d.destroy_buffer(buffer, None) };
            let _ = self.core.allocator().free(allocation);
        }
        result
    }

    /// A zeroed host-visible buffer as large as the image's largest subresource.
    fn zero_staging(&self) -> Result<(vk::Buffer, Allocation)> {
        let d = &self.core.device;
        let size = (0..self.desc.subresource_count())
            .filter_map(|s| self.desc.packed_layout(s))
            .map(|l| l.size())
            .max()
            .unwrap_or(1);
        let info = vk::BufferCreateInfo::default().size(size.max(1)).usage(vk::BufferUsageFlags::TRANSFER_SRC);
        // SAFETY: valid create info.
        let buffer = unsafe { d.create_buffer(&info, None) }.map_err(|e| oom("CreateCommittedResource", e))?;
        // SAFETY: `buffer` is live.
        let requirements = unsafe { d.get_buffer_memory_requirements(buffer) };
        let mut allocation = self
            .core
            .allocator()
            .allocate(&AllocationCreateDesc {
                name: "zero",
                requirements,
                location: MemoryLocation::CpuToGpu,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| oom("CreateCommittedResource", e))?;
        if let Some(bytes) = allocation.mapped_slice_mut() {
            bytes.fill(0);
        }
        // SAFETY: the allocation satisfies the buffer's requirements.
        unsafe { d.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) }
            .map_err(|e| oom("CreateCommittedResource", e))?;
        Ok((buffer, allocation))
    }

    fn zero_copy_regions(&self) -> Vec<vk::BufferImageCopy> {
        (0..self.desc.subresource_count())
            .filter_map(|s| {
                let sub = self.desc.subresource(s)?;
                let (w, h, depth) = self.desc.subresource_extent(s)?;
                Some(
                    vk::BufferImageCopy::default()
                        .image_subresource(vk::ImageSubresourceLayers {
                            aspect_mask: crate::conv::plane_aspect(self.desc.format, sub.plane),
                            mip_level: sub.mip,
                            base_array_layer: sub.slice,
                            layer_count: 1,
                        })
                        .image_extent(vk::Extent3D { width: w, height: h, depth }),
                )
            })
            .collect()
    }

    pub(crate) fn buffer(&self) -> Option<vk::Buffer> {
        match self.kind {
            Kind::Buffer { buffer } => Some(buffer),
            Kind::Image { .. } => None,
        }
    }

    pub(crate) fn image(&self) -> Option<vk::Image> {
        match self.kind {
            Kind::Image { image, .. } => Some(image),
            Kind::Buffer { .. } => None,
        }
    }

    /// The buffer's device address (0 for images).
    pub(crate) fn address(&self) -> u64 {
        match self.kind {
            // SAFETY: a device-address query on a live buffer made with SHADER_DEVICE_ADDRESS.
            Kind::Buffer { buffer } => unsafe {
                self.core.device.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(buffer))
            },
            Kind::Image { .. } => 0,
        }
    }

    /// Runs `f` over a host-visible buffer's bytes `[offset, offset + len)`, with cache
    /// maintenance for memory that is not coherent.
    pub(crate) fn host_access<R>(&self, offset: u64, len: usize, f: impl FnOnce(&mut [u8]) -> R) -> Result<R> {
        let mut guard = self.allocation.lock().unwrap_or_else(PoisonError::into_inner);
        let allocation = guard
            .as_mut()
            .ok_or_else(|| Error::invalid_arg(MessageId::ResourceMapInvalid, "Map: resource released"))?;
        let coherent = allocation.memory_properties().contains(vk::MemoryPropertyFlags::HOST_COHERENT);
        // SAFETY: the handle is only used for cache maintenance while the allocation lives.
        let (memory, base) = (unsafe { allocation.memory() }, allocation.offset());
        let bytes = allocation
            .mapped_slice_mut()
            .ok_or_else(|| Error::invalid_arg(MessageId::ResourceMapInvalid, "Map: the resource is not CPU-visible"))?;
        let end = usize::try_from(offset).ok().and_then(|o| o.checked_add(len).map(|e| o..e));
        let slice = end
            .and_then(|range| bytes.get_mut(range))
            .ok_or_else(|| Error::invalid_arg(MessageId::ResourceMapInvalid, "Map: range outside the buffer"))?;
        let atom = self.core.props.limits.non_coherent_atom_size.max(1);
        // The allocator maps whole memory blocks, so "to the end of the mapping" is valid.
        let mapped = vk::MappedMemoryRange::default().memory(memory).offset(base / atom * atom).size(vk::WHOLE_SIZE);
        if !coherent {
            let core = &self.core;
            // SAFETY: the range lies in this allocation's mapped memory, aligned to the atom size.
            let invalidate = || unsafe { core.device.invalidate_mapped_memory_ranges(&[mapped]) };
            core.on_driver(invalidate).map_err(|e| oom("Map", e))?;
        }
        let r = f(slice);
        if !coherent {
            let core = &self.core;
            // SAFETY: as above.
            let flush = || unsafe { core.device.flush_mapped_memory_ranges(&[mapped]) };
            core.on_driver(flush).map_err(|e| oom("Map", e))?;
        }
        Ok(r)
    }

    /// An image view of one mip, made on first use and kept with the image.
    pub(crate) fn view(&self, key: ViewKey) -> Result<vk::ImageView> {
        self.view_of_mips(key, 1)
    }

    /// An image view of `levels` mips from the key's, made on first use and kept with the image.
    pub(crate) fn view_of_mips(&self, key: ViewKey, levels: u32) -> Result<vk::ImageView> {
        let Kind::Image { image, views, .. } = &self.kind else {
            return Err(Error::invalid_arg(MessageId::CreateViewInvalidDesc, "a buffer has no image views"));
        };
        let mut views = views.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = views.get(&(key, levels)) {
            return Ok(*v);
        }
        let (format, ty, mip, first, count, aspect) = key;
        // Only the compute clear's own view stores into an image made storage-capable for it.
        let mut usage = vk::ImageViewUsageCreateInfo::default().usage(self.usage_of_view(format));
        let info = vk::ImageViewCreateInfo::default()
            .image(*image)
            .view_type(ty)
            .format(format)
            .push_next(&mut usage)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: mip,
                level_count: levels,
                base_array_layer: first,
                layer_count: count,
            });
        // SAFETY: the view covers subresources of a live image, with a format it allows.
        let view = unsafe { self.core.device.create_image_view(&info, None) }.map_err(|e| oom("CreateView", e))?;
        views.insert((key, levels), view);
        Ok(view)
    }

    /// The view type of a render-target or depth-stencil view of this image: 1D images take 1D
    /// views, 3D images select depth slices as layers of a 2D array (they are created
    /// 2D-array compatible), arrays take array views.
    pub(crate) fn attachment_view_type(&self) -> vk::ImageViewType {
        let arrayed = self.desc.array_size() > 1;
        match self.desc.dimension {
            ResourceDimension::Texture1D if arrayed => vk::ImageViewType::TYPE_1D_ARRAY,
            ResourceDimension::Texture1D => vk::ImageViewType::TYPE_1D,
            ResourceDimension::Texture3D => vk::ImageViewType::TYPE_2D_ARRAY,
            _ if arrayed => vk::ImageViewType::TYPE_2D_ARRAY,
            _ => vk::ImageViewType::TYPE_2D,
        }
    }

    /// The unsigned-integer format the image kernels read and write raw texels through, where
    /// the image allows it.
    pub(crate) fn clear_format(&self) -> Option<vk::Format> {
        match self.kind {
            Kind::Image { clear_format, .. } => clear_format,
            Kind::Buffer { .. } => None,
        }
    }

    /// The unsigned-integer format `ReadSamples` reads a multisampled image's raw samples
    /// through, where the image allows it.
    pub(crate) fn sample_format(&self) -> Option<vk::Format> {
        match self.kind {
            Kind::Image { sample_format, .. } => sample_format,
            Kind::Buffer { .. } => None,
        }
    }

    /// The usage a view of `format` has: the image's, less storage and sampling where the view's
    /// format supports neither (the image has them for the image kernels' views; an sRGB view,
    /// say, cannot be a storage image).
    fn usage_of_view(&self, format: vk::Format) -> vk::ImageUsageFlags {
        let Kind::Image { usage, .. } = self.kind else { return vk::ImageUsageFlags::empty() };
        let i = &self.core.instance.instance;
        // SAFETY: a format-properties query on this device's physical device.
        let features =
            unsafe { i.get_physical_device_format_properties(self.core.physical, format) }.optimal_tiling_features;
        let mut usage = usage;
        if !features.contains(vk::FormatFeatureFlags::STORAGE_IMAGE) {
            usage &= !vk::ImageUsageFlags::STORAGE;
        }
        if !features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
            usage &= !vk::ImageUsageFlags::SAMPLED;
        }
        usage
    }

    /// Whether the image allows `usage` (what its flags ask, and what the device added).
    pub(crate) fn has_usage(&self, usage: vk::ImageUsageFlags) -> bool {
        matches!(self.kind, Kind::Image { usage: u, .. } if u.contains(usage))
    }

    /// Whether the image can be a colour or a depth-stencil attachment (its flags ask for it,
    /// or the device made a multisampled one so for its own clears).
    pub(crate) fn attachment_capable(&self, depth: bool) -> bool {
        let want =
            if depth { vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT } else { vk::ImageUsageFlags::COLOR_ATTACHMENT };
        matches!(self.kind, Kind::Image { usage, .. } if usage.contains(want))
    }

    /// The Vulkan format of a view format on this image.
    pub(crate) fn view_format(&self, format: Format) -> vk::Format {
        vk_format(format)
            .or(match self.kind {
                Kind::Image { format, .. } => Some(format),
                Kind::Buffer { .. } => None,
            })
            .unwrap_or(vk::Format::UNDEFINED)
    }
}

impl Drop for VkResource {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`).
        self.core.on_driver(|| {
            let d = &self.core.device;
            // SAFETY: the resource is unreachable: every recorded use holds an Arc of it, and the
            // queues drop theirs only after the GPU finished the work.
            unsafe {
                match &self.kind {
                    Kind::Buffer { buffer } => d.destroy_buffer(*buffer, None),
                    Kind::Image { image, views, .. } => {
                        for v in views.lock().unwrap_or_else(PoisonError::into_inner).values() {
                            d.destroy_image_view(*v, None);
                        }
                        d.destroy_image(*image, None);
                    }
                }
            }
            if let Some(a) = self.allocation.lock().unwrap_or_else(PoisonError::into_inner).take() {
                let _ = self.core.allocator().free(a);
            }
        })
    }
}

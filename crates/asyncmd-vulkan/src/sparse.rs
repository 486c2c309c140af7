//! Reserved (tiled) resources on sparse binding: heaps of 64 KiB tiles, tile mappings through
//! `vkQueueBindSparse`, and `CopyTiles` as copies between tiles and a linear buffer.
//!
//! Only 2D images whose mips are all at least one tile (no mip tail) and buffers are supported;
//! the device reports tier 2 only where unbound blocks read zero and drop writes and image
//! blocks have the standard shapes, so tiles match the D3D12 shapes of
//! [`asyncmd_types::tile_shape`].

use crate::conv::{plane_aspect, vk_format};
use crate::core::Core;
use crate::memory::VkResource;
use ash::vk;
use asyncmd_ddi::TileMapping;
use asyncmd_types::{
    linear_tile, tile_coordinate, tile_count, tile_shape, Error, ErrorCode, MessageId, ResourceDesc, ResourceDimension,
    Result, TILE_SIZE_IN_BYTES,
};
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::sync::{Arc, Mutex, PoisonError};

fn unsupported(text: String) -> Error {
    Error::new(ErrorCode::Unsupported, MessageId::CreateResourceInvalidDesc, text)
}

/// A heap: device memory that tiles map into, zeroed at creation.
pub(crate) struct VkHeap {
    core: Arc<Core>,
    allocation: Mutex<Option<Allocation>>,
    pub(crate) tiles: u64,
}

impl VkHeap {
    pub(crate) fn new(core: &Arc<Core>, size: u64) -> Result<Self> {
        if size == 0 || !size.is_multiple_of(TILE_SIZE_IN_BYTES) {
            return Err(Error::invalid_arg(
                MessageId::CreateResourceInvalidHeap,
                format!("CreateHeap: size {size} is not a non-zero multiple of 64 KiB"),
            ));
        }
        let d = &core.device;
        let oom = |e: String| Error::out_of_memory(format!("CreateHeap: {e}"));
        // The memory types a sparse buffer accepts, from a probe buffer.
        let probe_info = vk::BufferCreateInfo::default()
            .size(TILE_SIZE_IN_BYTES)
            .usage(vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC)
            .flags(vk::BufferCreateFlags::SPARSE_BINDING | vk::BufferCreateFlags::SPARSE_RESIDENCY);
        // SAFETY: valid create info; the probe is destroyed right after the query.
        let probe = unsafe { d.create_buffer(&probe_info, None) }.map_err(|e| oom(e.to_string()))?;
        // SAFETY: `probe` is live.
        let bits = unsafe { d.get_buffer_memory_requirements(probe) }.memory_type_bits;
        // SAFETY: no other user.
        unsafe { d.destroy_buffer(probe, None) };
        let requirements = vk::MemoryRequirements { size, alignment: TILE_SIZE_IN_BYTES, memory_type_bits: bits };
        let allocation = core
            .allocator()
            .allocate(&AllocationCreateDesc {
                name: "heap",
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| oom(e.to_string()))?;
        let heap =
            Self { core: core.clone(), allocation: Mutex::new(Some(allocation)), tiles: size / TILE_SIZE_IN_BYTES };
        heap.zero(size)?;
        Ok(heap)
    }

    /// Zeroes the heap through a buffer bound over its memory.
    fn zero(&self, size: u64) -> Result<()> {
        let d = &self.core.device;
        let (memory, offset) = self.memory();
        let info = vk::BufferCreateInfo::default().size(size).usage(vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info; bound to memory of this heap; destroyed after the fill.
        let buffer =
            unsafe { d.create_buffer(&info, None) }.map_err(|e| Error::out_of_memory(format!("CreateHeap: {e}")))?;
        // SAFETY: the heap's memory range covers `size` bytes at `offset`.
        let bound = unsafe { d.bind_buffer_memory(buffer, memory, offset) };
        let result = bound.map_err(|e| Error::out_of_memory(format!("CreateHeap: {e}"))).and_then(|_| {
            // SAFETY: recording a fill of the live buffer into the one-time command buffer.
            self.core.one_time(|cb| unsafe { d.cmd_fill_buffer(cb, buffer, 0, vk::WHOLE_SIZE, 0) })
        });
        // SAFETY: the fill has completed.
        unsafe { d.destroy_buffer(buffer, None) };
        result
    }

    fn memory(&self) -> (vk::DeviceMemory, u64) {
        let a = self.allocation.lock().unwrap_or_else(PoisonError::into_inner);
        match a.as_ref() {
            // SAFETY: the handle is only bound while the heap lives.
            Some(a) => (unsafe { a.memory() }, a.offset()),
            None => (vk::DeviceMemory::null(), 0),
        }
    }
}

impl Drop for VkHeap {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`).
        self.core.on_driver(|| {
            // Reserved resources keep the heaps they map into alive, and lists keep their resources
            // until the GPU is done: no GPU work can touch the memory once the heap is dropped.
            if let Some(a) = self.allocation.lock().unwrap_or_else(PoisonError::into_inner).take() {
                let _ = self.core.allocator().free(a);
            }
        })
    }
}

/// Checks that a reserved resource of `desc` can be made here.
pub(crate) fn check_reserved(core: &Core, desc: &ResourceDesc, usage: vk::ImageUsageFlags) -> Result<()> {
    if !core.features.sparse_tier2 {
        return Err(Error::unsupported("CreateReservedResource: the Vulkan device has no tier 2 sparse residency"));
    }
    if desc.is_buffer() {
        return Ok(());
    }
    if desc.dimension != ResourceDimension::Texture2D || desc.is_msaa() || desc.format.plane_count() > 1 {
        return Err(unsupported(
            "CreateReservedResource: only single-sample, single-plane 2D textures can be reserved on the Vulkan device"
                .into(),
        ));
    }
    let limits = &core.props.limits;
    if desc.width > u64::from(limits.max_image_dimension2_d)
        || desc.height > limits.max_image_dimension2_d
        || desc.array_size() > limits.max_image_array_layers
    {
        return Err(unsupported(format!(
            "CreateReservedResource: {}x{} with {} slices exceeds the Vulkan device's image limits",
            desc.width,
            desc.height,
            desc.array_size()
        )));
    }
    let format = vk_format(desc.format)
        .ok_or_else(|| unsupported(format!("CreateReservedResource: {} has no Vulkan format", desc.format)))?;
    // SAFETY: a capability query on this device's physical device.
    let props = unsafe {
        core.instance.instance.get_physical_device_sparse_image_format_properties(
            core.physical,
            format,
            vk::ImageType::TYPE_2D,
            vk::SampleCountFlags::TYPE_1,
            usage,
            vk::ImageTiling::OPTIMAL,
        )
    };
    let (tw, th, _) = tile_shape(desc);
    let standard = props.iter().any(|p| p.image_granularity.width == tw && p.image_granularity.height == th);
    if !standard {
        return Err(unsupported(format!(
            "CreateReservedResource: {}'s sparse blocks are not the standard {tw}x{th} tiles",
            desc.format
        )));
    }
    let (w, h, _) = desc.mip_extent(desc.mip_count() - 1);
    if w < tw || h < th {
        return Err(unsupported(
            "CreateReservedResource: mips smaller than a tile (packed mips) are not supported on the Vulkan device"
                .into(),
        ));
    }
    Ok(())
}

/// Maps or unmaps tiles of a reserved resource, waiting for the binding to complete.
pub(crate) fn update_tile_mappings(
    core: &Core,
    res: &VkResource,
    heaps: &asyncmd_ddi::Table<VkHeap>,
    mappings: &[TileMapping],
) -> Result<()> {
    let err = |t: String| Error::invalid_arg(MessageId::CopyTilesInvalidParameters, format!("UpdateTileMappings: {t}"));
    let desc = &res.desc;
    let total = tile_count(desc);
    let mut buffer_binds = Vec::new();
    let mut image_binds = Vec::new();
    let mut keep_heaps = Vec::new();
    for m in mappings {
        let first =
            linear_tile(desc, &m.coordinate).ok_or_else(|| err("start coordinate outside the resource".into()))?;
        if first + m.num_tiles as u64 > total {
            return Err(err(format!("{} tiles from tile {first} run past the resource", m.num_tiles)));
        }
        let target = match m.heap {
            None => None,
            Some((id, start)) => {
                let heap = heaps.get(id.0).ok_or_else(|| err("unknown heap".into()))?;
                if start as u64 + m.num_tiles as u64 > heap.tiles {
                    return Err(err("heap range past the heap's end".into()));
                }
                let (memory, offset) = heap.memory();
                keep_heaps.push(heap);
                Some((memory, offset + start as u64 * TILE_SIZE_IN_BYTES))
            }
        };
        for i in 0..m.num_tiles as u64 {
            let (memory, memory_offset) =
                target.map_or((vk::DeviceMemory::null(), 0), |(mem, off)| (mem, off + i * TILE_SIZE_IN_BYTES));
            let tile = first + i;
            if desc.is_buffer() {
                let offset = tile * TILE_SIZE_IN_BYTES;
                let size = TILE_SIZE_IN_BYTES.min(res.sparse_size.saturating_sub(offset));
                buffer_binds.push(vk::SparseMemoryBind {
                    resource_offset: offset,
                    size,
                    memory,
                    memory_offset,
                    flags: vk::SparseMemoryBindFlags::empty(),
                });
            } else {
                let c = tile_coordinate(desc, tile).ok_or_else(|| err("tile outside the resource".into()))?;
                let sub = desc.subresource(c.subresource).ok_or_else(|| err("subresource out of range".into()))?;
                let (w, h, _) = desc.mip_extent(sub.mip);
                let (tw, th, _) = tile_shape(desc);
                let (x, y) = (c.x * tw, c.y * th);
                image_binds.push(vk::SparseImageMemoryBind {
                    subresource: vk::ImageSubresource {
                        aspect_mask: plane_aspect(desc.format, sub.plane),
                        mip_level: sub.mip,
                        array_layer: sub.slice,
                    },
                    offset: vk::Offset3D { x: x as i32, y: y as i32, z: 0 },
                    extent: vk::Extent3D { width: tw.min(w - x), height: th.min(h - y), depth: 1 },
                    memory,
                    memory_offset,
                    flags: vk::SparseMemoryBindFlags::empty(),
                });
            }
        }
    }
    let d = &core.device;
    // A bind info names at least one bind (VUID-VkSparseImageMemoryBindInfo-bindCount-arraylength).
    let buffer_info = res
        .buffer()
        .filter(|_| !buffer_binds.is_empty())
        .map(|b| [vk::SparseBufferMemoryBindInfo::default().buffer(b).binds(&buffer_binds)]);
    let image_info = res
        .image()
        .filter(|_| !image_binds.is_empty())
        .map(|i| [vk::SparseImageMemoryBindInfo::default().image(i).binds(&image_binds)]);
    if buffer_info.is_none() && image_info.is_none() {
        res.bound_heaps.lock().unwrap_or_else(PoisonError::into_inner).extend(keep_heaps);
        return Ok(());
    }
    let mut info = vk::BindSparseInfo::default();
    if let Some(b) = &buffer_info {
        info = info.buffer_binds(b);
    }
    if let Some(i) = &image_info {
        info = info.image_binds(i);
    }
    let fail = |e: vk::Result| Error::out_of_memory(format!("UpdateTileMappings: {e}"));
    // SAFETY: binds of live memory into a live sparse resource; the queue is locked and the
    // fence waited for before returning.
    core.submit_and_wait(|fence| unsafe {
        let q = core.queue(core.families.direct, 0).lock().unwrap_or_else(PoisonError::into_inner);
        d.queue_bind_sparse(*q, &[info], fence)
    })
    .map_err(fail)?;
    res.bound_heaps.lock().unwrap_or_else(PoisonError::into_inner).extend(keep_heaps);
    Ok(())
}

/// The copy regions of `CopyTiles`: one per tile, 64 KiB apart in the buffer, rows of a full
/// tile width.
pub(crate) fn tile_regions(desc: &ResourceDesc, tiles: &[u64], buffer_offset: u64) -> Vec<vk::BufferImageCopy> {
    let (tw, th, _) = tile_shape(desc);
    tiles
        .iter()
        .enumerate()
        .filter_map(|(n, &tile)| {
            let c = tile_coordinate(desc, tile)?;
            let sub = desc.subresource(c.subresource)?;
            let (w, h, _) = desc.mip_extent(sub.mip);
            let (x, y) = (c.x * tw, c.y * th);
            Some(vk::BufferImageCopy {
                buffer_offset: buffer_offset + n as u64 * TILE_SIZE_IN_BYTES,
                buffer_row_length: tw,
                buffer_image_height: th,
                image_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: plane_aspect(desc.format, sub.plane),
                    mip_level: sub.mip,
                    base_array_layer: sub.slice,
                    layer_count: 1,
                },
                image_offset: vk::Offset3D { x: x as i32, y: y as i32, z: 0 },
                image_extent: vk::Extent3D { width: tw.min(w - x), height: th.min(h - y), depth: 1 },
            })
        })
        .collect()
}

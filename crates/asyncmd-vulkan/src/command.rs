//! Command lists: commands are kept as they come and recorded into a Vulkan command buffer at
//! `Close`, on a driver thread (`threads.rs` says why no other thread calls the driver).

use crate::core::Core;
use crate::device::Tables;
use crate::format::{barrier_aspects, plane_aspect};
use crate::memory::VkResource;
use crate::sync;
use ash::vk;
use asyncmd_ddi::{
    Command, CommandListDdi, DepthStencilView, Executable, QueryResolve, RenderTargetView, Resolve, ResourceId,
};
use asyncmd_types::{
    BarrierGroup, BarrierLayout, BarrierSubresourceRange, BarrierSync, Box3, BufferCopyRegion, ClearFlags,
    CommandListType, CopyLocationKind, Error, MessageId, PlacedSubresourceFootprint, QueryType, Rect, ResolveMode,
    ResourceDimension, Result, TextureCopyLocation,
};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

const TILE: u64 = asyncmd_types::TILE_SIZE_IN_BYTES;

/// A closed list: command buffers ready to submit, and everything they use.
pub(crate) struct Recorded {
    core: Arc<Core>,
    pub(crate) ty: CommandListType,
    pool: vk::CommandPool,
    /// Query resets first, then the list's commands.
    buffers: Vec<vk::CommandBuffer>,
    _keep: Vec<Arc<VkResource>>,
    _keep_queries: Vec<Arc<crate::device::VkQueryHeap>>,
    /// A bundle's commands, replayed into the lists that execute it.
    pub(crate) bundle: Vec<Command>,
    _keep_pipelines: Vec<Arc<crate::pipeline::VkPipeline>>,
    _keep_roots: Vec<Arc<crate::pipeline::VkRootSignature>>,
}

impl Recorded {
    pub(crate) fn command_buffers(&self) -> Vec<vk::CommandBuffer> {
        self.buffers.clone()
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        // On a driver thread (`threads.rs`), with everything the list held.
        let held = (
            std::mem::take(&mut self._keep),
            std::mem::take(&mut self._keep_queries),
            std::mem::take(&mut self.bundle),
            std::mem::take(&mut self._keep_pipelines),
            std::mem::take(&mut self._keep_roots),
        );
        let (device, pool) = (&self.core.device, self.pool);
        crate::threads::on_driver(move || {
            // SAFETY: queues keep an Arc of a submitted list until the GPU has finished it.
            unsafe { device.destroy_command_pool(pool, None) };
            drop(held);
        })
    }
}

/// A command list of the Vulkan device.
pub(crate) struct VkCommandList {
    pub(crate) core: Arc<Core>,
    pub(crate) tables: Arc<Tables>,
    pub(crate) ty: CommandListType,
    pool: vk::CommandPool,
    prologue: vk::CommandBuffer,
    pub(crate) cb: vk::CommandBuffer,
    keep: HashMap<u64, Arc<VkResource>>,
    /// Temporary buffers the list's commands use.
    pub(crate) scratch: Vec<Arc<VkResource>>,
    /// Conditional rendering is on.
    predicated: bool,
    queries: HashMap<u64, Arc<crate::device::VkQueryHeap>>,
    resets: HashSet<(u64, u32)>,
    /// Slots in the order this list first wrote them (the prologue resets them).
    reset_order: Vec<(u64, u32)>,
    /// Each query resolve: heap, first slot, count. A slot first written after a resolve that
    /// reads it is reset where it is written, not in the prologue.
    query_reads: Vec<(u64, u32, u32)>,
    /// A legacy transfer was recorded: the next one needs a barrier first.
    transfer_pending: bool,
    bundle: Vec<Command>,
    error: Option<Error>,
    pub(crate) gfx: crate::graphics::Graphics,
    /// Commands since the last `Close` or `Reset`, recorded into Vulkan at `Close`.
    pub(crate) deferred: crate::deferred::Deferred,
}

fn fail(text: String) -> Error {
    Error::fail(MessageId::DeviceUnsupported, text)
}

impl VkCommandList {
    pub(crate) fn new(core: &Arc<Core>, tables: &Arc<Tables>, ty: CommandListType) -> Result<Self> {
        let mut list = Self {
            core: core.clone(),
            tables: tables.clone(),
            ty,
            pool: vk::CommandPool::null(),
            prologue: vk::CommandBuffer::null(),
            cb: vk::CommandBuffer::null(),
            keep: HashMap::new(),
            scratch: Vec::new(),
            predicated: false,
            queries: HashMap::new(),
            resets: HashSet::new(),
            reset_order: Vec::new(),
            query_reads: Vec::new(),
            transfer_pending: false,
            bundle: Vec::new(),
            error: None,
            gfx: Default::default(),
            deferred: Default::default(),
        };
        list.begin()?;
        Ok(list)
    }

    /// Whether this list's queue family runs compute shaders.
    /// Whether copies recorded here may run as compute dispatches, so that copy barriers must
    /// cover the compute stage (which a transfer-only family may not name).
    pub(crate) fn copies_in_compute(&self) -> bool {
        self.core.compute_copies() && self.family_has_compute()
    }

    pub(crate) fn family_has_compute(&self) -> bool {
        let f = self.family();
        f == self.core.families.direct || f == self.core.families.compute
    }

    fn family(&self) -> u32 {
        match self.ty {
            CommandListType::Compute => self.core.families.compute,
            CommandListType::Copy => self.core.families.copy,
            _ => self.core.families.direct,
        }
    }

    fn begin(&mut self) -> Result<()> {
        let d = &self.core.device;
        let oom = |e: vk::Result| Error::out_of_memory(format!("CreateCommandList: {e}"));
        // SAFETY: a new pool and primary command buffer owned by this list (then by its
        // `Recorded`), begun for one submission.
        unsafe {
            self.pool = d
                .create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(self.family()), None)
                .map_err(oom)?;
            let cbs = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default().command_pool(self.pool).command_buffer_count(2),
                )
                .map_err(oom)?;
            self.prologue = cbs[0];
            self.cb = cbs[1];
            d.begin_command_buffer(self.cb, &simultaneous_use()).map_err(oom)?;
        }
        Ok(())
    }

    pub(crate) fn resource(&mut self, id: ResourceId) -> Result<Arc<VkResource>> {
        if let Some(r) = self.keep.get(&id.0) {
            return Ok(r.clone());
        }
        let r = self.tables.resources.get(id.0).ok_or_else(|| fail(format!("unknown resource {id:?}")))?;
        self.keep.insert(id.0, r.clone());
        Ok(r)
    }

    pub(crate) fn buffer_of(&mut self, id: ResourceId) -> Result<vk::Buffer> {
        self.resource(id)?.buffer().ok_or_else(|| fail("a texture where a buffer was expected".into()))
    }

    pub(crate) fn image_of(&mut self, id: ResourceId) -> Result<(Arc<VkResource>, vk::Image)> {
        let r = self.resource(id)?;
        let image = r.image().ok_or_else(|| fail("a buffer where a texture was expected".into()))?;
        Ok((r, image))
    }

    /// Legacy copies, clears and resolves complete one before the next: a barrier between them.
    fn serialize(&mut self) {
        if self.transfer_pending {
            let b = [sync::serialize_transfers(self.copies_in_compute())];
            // SAFETY: recording into this list's open command buffer.
            unsafe {
                self.core.device.cmd_pipeline_barrier2(self.cb, &vk::DependencyInfo::default().memory_barriers(&b))
            };
        }
        self.transfer_pending = true;
    }

    pub(crate) fn record_command(&mut self, c: Command) -> Result<()> {
        debug_assert!(crate::threads::on_pooled_thread(), "a driver call off the driver threads");
        if self.ty == CommandListType::Bundle {
            self.bundle.push(c);
            return Ok(());
        }
        let inside = matches!(
            c,
            Command::DrawInstanced { .. }
                | Command::SetPipelineState(_)
                | Command::SetGraphicsRootSignature(_)
                | Command::SetComputeRootSignature(_)
                | Command::SetGraphicsRootConstants { .. }
                | Command::SetComputeRootConstants { .. }
                | Command::SetGraphicsRootUav { .. }
                | Command::SetComputeRootUav { .. }
                | Command::SetViewports(_)
                | Command::SetScissorRects(_)
                | Command::SetPrimitiveTopology(_)
                | Command::SetBlendFactor(_)
                | Command::SetStencilRef(_)
                | Command::ExecuteBundle(_)
                | Command::EndRenderPass
                | Command::ClearBoundRenderTargetViews { .. }
                | Command::ClearBoundDepthStencilView { .. }
        );
        if !inside {
            self.end_lazy_rendering();
        }
        match c {
            Command::SetPipelineState(id) => self.set_pipeline(id.0),
            Command::SetGraphicsRootSignature(id) => self.set_root_signature(id.0, false),
            Command::SetComputeRootSignature(id) => self.set_root_signature(id.0, true),
            Command::SetGraphicsRootConstants { parameter, offset, values } => {
                self.set_root_constants(parameter, offset, &values, false);
                Ok(())
            }
            Command::SetComputeRootConstants { parameter, offset, values } => {
                self.set_root_constants(parameter, offset, &values, true);
                Ok(())
            }
            Command::SetGraphicsRootUav { parameter, address } => self.set_root_uav(parameter, address, false),
            Command::SetComputeRootUav { parameter, address } => self.set_root_uav(parameter, address, true),
            Command::SetViewports(v) => {
                self.gfx.viewports = v;
                Ok(())
            }
            Command::SetScissorRects(r) => {
                self.gfx.scissors = r;
                Ok(())
            }
            // The topology type is fixed by the pipeline; list topologies are all the clear
            // shaders use.
            Command::SetPrimitiveTopology(_) => Ok(()),
            Command::SetBlendFactor(f) => {
                self.gfx.blend = f;
                Ok(())
            }
            Command::SetStencilRef(s) => {
                self.gfx.stencil_ref = s;
                Ok(())
            }
            Command::SetRenderTargets { rtvs, dsv } => {
                self.set_render_targets(rtvs, dsv);
                Ok(())
            }
            Command::BeginRenderPass { render_targets, depth_stencil, flags } => {
                self.begin_render_pass(&render_targets, depth_stencil.as_ref(), flags)
            }
            Command::EndRenderPass => self.end_render_pass(),
            Command::DrawInstanced { vertex_count, instance_count, start_vertex, start_instance } => {
                self.draw(vertex_count, instance_count, start_vertex, start_instance)
            }
            Command::Dispatch { x, y, z } => self.dispatch(x, y, z),
            Command::SetPredication(p) => self.set_predication(p),
            Command::CopyBufferRegion(r) => self.copy_buffer(&r),
            Command::CopyTiles(t) => self.copy_tiles(&t),
            Command::CopyTextureRegion { dest, dest_x, dest_y, dest_z, source, source_box } => {
                self.copy_texture(&dest, (dest_x, dest_y, dest_z), &source, source_box)
            }
            Command::CopyResource { dest, source } => self.copy_resource(dest, source),
            Command::Barrier(groups) => self.barrier(&groups),
            Command::ClearRenderTargetView { view, color, rects } => self.clear_rtv(&view, color, &rects),
            Command::ClearDepthStencilView { view, flags, depth, stencil, rects } => {
                self.clear_dsv(&view, flags, depth, stencil, &rects)
            }
            Command::BeginQuery { heap, ty, index } => self.query(heap.0, ty, index, true),
            Command::EndQuery { heap, ty, index } => self.query(heap.0, ty, index, false),
            Command::ResolveQueryData(q) => self.resolve_query(&q),
            Command::ResolveSubresourceRegion(r) => self.resolve(&r),
            Command::ExecuteBundle(exe) => {
                let bundle = exe
                    .0
                    .downcast::<Recorded>()
                    .map_err(|_| fail("ExecuteBundle: not a bundle of this device".into()))?;
                for c in bundle.bundle.clone() {
                    self.record_command(c)?;
                }
                Ok(())
            }
            other if other.is_async() => self.native(other),
            other => Err(fail(format!("{}: not yet implemented on the Vulkan device", other.name()))),
        }
    }

    fn copy_buffer(&mut self, r: &BufferCopyRegion<ResourceId>) -> Result<()> {
        self.check_not_predicated("CopyBufferRegion")?;
        let (dst, src) = (self.buffer_of(r.dest)?, self.buffer_of(r.source)?);
        if r.size == 0 {
            // Copies nothing (Vulkan has no empty copy region).
            return Ok(());
        }
        self.serialize();
        let aligned = (r.source_offset | r.dest_offset | r.size) % 16 == 0;
        let threshold = self.core.compute_copy_min.get().copied().flatten();
        if aligned && threshold.is_some_and(|t| r.size >= t) && self.family_has_compute() {
            let (s, d) = (self.resource(r.source)?, self.resource(r.dest)?);
            let internal = self.core.internal.get().ok_or_else(|| fail("internal pipelines missing".into()))?;
            // One dispatch per 2^32 elements (the shader counts in 32 bits).
            let mut done = 0u64;
            while done < r.size {
                let bytes = (r.size - done).min(1 << 36);
                let count = bytes / 16;
                let constants = [s.address() + r.source_offset + done, d.address() + r.dest_offset + done, count];
                internal.dispatch(self.cb, internal.copy, constants, crate::copy_speed::groups(count));
                done += bytes;
            }
            return Ok(());
        }
        let region = [vk::BufferCopy { src_offset: r.source_offset, dst_offset: r.dest_offset, size: r.size }];
        // SAFETY: both buffers are live and kept by this list; the runtime checked the ranges.
        unsafe { self.core.device.cmd_copy_buffer(self.cb, src, dst, &region) };
        Ok(())
    }

    fn layers(res: &VkResource, index: u32) -> Result<(vk::ImageSubresourceLayers, u32)> {
        let sub = res.desc.subresource(index).ok_or_else(|| fail(format!("subresource {index} out of range")))?;
        let three_d = res.desc.dimension == ResourceDimension::Texture3D;
        Ok((
            vk::ImageSubresourceLayers {
                aspect_mask: plane_aspect(res.desc.format, sub.plane),
                mip_level: sub.mip,
                base_array_layer: if three_d { 0 } else { sub.slice },
                layer_count: 1,
            },
            sub.plane,
        ))
    }

    /// A buffer region for a footprint, starting at texel (x, y, z) of it.
    fn footprint_region(fp: &PlacedSubresourceFootprint, (x, y, z): (u32, u32, u32)) -> (u64, u32, u32) {
        let f = fp.footprint;
        let plane = f.format.plane(0).unwrap_or(asyncmd_types::PlaneInfo {
            format: f.format,
            bytes_per_block: 1,
            block_width: 1,
            block_height: 1,
            subsample_x: 1,
            subsample_y: 1,
        });
        let rows = f.height.div_ceil(plane.block_height) as u64;
        let offset = fp.offset
            + z as u64 * rows * f.row_pitch as u64
            + (y / plane.block_height) as u64 * f.row_pitch as u64
            + (x / plane.block_width) as u64 * plane.bytes_per_block as u64;
        let row_length = f.row_pitch / plane.bytes_per_block * plane.block_width;
        (offset, row_length, rows as u32 * plane.block_height)
    }

    fn copy_texture(
        &mut self,
        dest: &TextureCopyLocation<ResourceId>,
        at: (u32, u32, u32),
        source: &TextureCopyLocation<ResourceId>,
        source_box: Option<Box3>,
    ) -> Result<()> {
        self.check_not_predicated("CopyTextureRegion")?;
        let d = self.core.device.clone();
        let (dst, src) = (self.resource(dest.resource)?, self.resource(source.resource)?);
        let full = |res: &VkResource, kind: &CopyLocationKind| match kind {
            CopyLocationKind::Subresource(i) => res.desc.subresource_extent(*i).map(|(w, h, z)| Box3::sized(w, h, z)),
            CopyLocationKind::PlacedFootprint(fp) => {
                Some(Box3::sized(fp.footprint.width, fp.footprint.height, fp.footprint.depth))
            }
        };
        let sbox = match source_box {
            Some(b) => b,
            None => full(&src, &source.kind).ok_or_else(|| fail("CopyTextureRegion: bad source".into()))?,
        };
        let (w, h, depth) = sbox.extent();
        if w == 0 || h == 0 || depth == 0 {
            return Ok(());
        }
        let mut extent = vk::Extent3D { width: w, height: h, depth };
        // Footprints of block-compressed mips are padded to whole blocks; Vulkan wants the
        // copy to end at the image's edge instead.
        for (res, kind, (x, y, z)) in [(&dst, &dest.kind, at), (&src, &source.kind, (sbox.left, sbox.top, sbox.front))]
        {
            if let CopyLocationKind::Subresource(i) = kind {
                if let Some((ew, eh, ed)) = res.desc.subresource_extent(*i) {
                    extent.width = extent.width.min(ew.saturating_sub(x));
                    extent.height = extent.height.min(eh.saturating_sub(y));
                    extent.depth = extent.depth.min(ed.saturating_sub(z));
                }
            }
        }
        let src_offset = vk::Offset3D { x: sbox.left as i32, y: sbox.top as i32, z: sbox.front as i32 };
        let dst_offset = vk::Offset3D { x: at.0 as i32, y: at.1 as i32, z: at.2 as i32 };
        self.serialize();
        match (&dest.kind, &source.kind) {
            (CopyLocationKind::Subresource(di), CopyLocationKind::Subresource(si))
                if copies_through_buffer(&dst.desc, &src.desc) =>
            {
                self.copy_aspect_through_buffer(&dst, *di, dst_offset, &src, *si, src_offset, extent)?;
            }
            (CopyLocationKind::Subresource(di), CopyLocationKind::Subresource(si)) => {
                let (dl, _) = Self::layers(&dst, *di)?;
                let (sl, _) = Self::layers(&src, *si)?;
                let region =
                    [vk::ImageCopy { src_subresource: sl, src_offset, dst_subresource: dl, dst_offset, extent }];
                let (di, si) = (dst.image().unwrap_or_default(), src.image().unwrap_or_default());
                // SAFETY: live images in GENERAL; the runtime checked the regions.
                unsafe {
                    d.cmd_copy_image(self.cb, si, vk::ImageLayout::GENERAL, di, vk::ImageLayout::GENERAL, &region)
                };
            }
            (CopyLocationKind::Subresource(di), CopyLocationKind::PlacedFootprint(fp)) => {
                let (dl, _) = Self::layers(&dst, *di)?;
                let (offset, row_length, image_height) = Self::footprint_region(fp, (sbox.left, sbox.top, sbox.front));
                let region = [vk::BufferImageCopy {
                    buffer_offset: offset,
                    buffer_row_length: row_length,
                    buffer_image_height: image_height,
                    image_subresource: dl,
                    image_offset: dst_offset,
                    image_extent: extent,
                }];
                let (image, buffer) = (dst.image().unwrap_or_default(), src.buffer().unwrap_or_default());
                // SAFETY: a live buffer and image; the runtime checked footprint and region.
                unsafe { d.cmd_copy_buffer_to_image(self.cb, buffer, image, vk::ImageLayout::GENERAL, &region) };
            }
            (CopyLocationKind::PlacedFootprint(fp), CopyLocationKind::Subresource(si)) => {
                let (sl, _) = Self::layers(&src, *si)?;
                let (offset, row_length, image_height) = Self::footprint_region(fp, at);
                let region = [vk::BufferImageCopy {
                    buffer_offset: offset,
                    buffer_row_length: row_length,
                    buffer_image_height: image_height,
                    image_subresource: sl,
                    image_offset: src_offset,
                    image_extent: extent,
                }];
                let (image, buffer) = (src.image().unwrap_or_default(), dst.buffer().unwrap_or_default());
                // SAFETY: as above.
                unsafe { d.cmd_copy_image_to_buffer(self.cb, image, vk::ImageLayout::GENERAL, buffer, &region) };
            }
            _ => return Err(fail("CopyTextureRegion: buffer to buffer".into())),
        }
        Ok(())
    }

    /// Copies one aspect of `src` into one aspect of `dst` through a scratch buffer: the copies
    /// `vkCmdCopyImage` cannot make (see [`copies_through_buffer`]).
    #[allow(clippy::too_many_arguments)] // both ends of an image copy
    fn copy_aspect_through_buffer(
        &mut self,
        dst: &VkResource,
        dst_sub: u32,
        dst_offset: vk::Offset3D,
        src: &VkResource,
        src_sub: u32,
        src_offset: vk::Offset3D,
        extent: vk::Extent3D,
    ) -> Result<()> {
        if src.desc.is_msaa() || dst.desc.is_msaa() {
            // Buffers hold no samples, and Vulkan copies images of different aspects only
            // through buffers.
            return Err(fail(
                "CopyTextureRegion: the Vulkan device cannot copy between a multisampled depth or stencil plane \
                 and a plane of another aspect"
                    .into(),
            ));
        }
        let (sl, plane) = Self::layers(src, src_sub)?;
        let (dl, _) = Self::layers(dst, dst_sub)?;
        let bytes = src.desc.format.plane(plane).map_or(4, |p| p.bytes_per_block) as u64;
        let size = bytes * extent.width as u64 * extent.height as u64 * extent.depth as u64;
        let scratch = Arc::new(VkResource::new(
            &self.core,
            &asyncmd_types::ResourceDesc::buffer(size),
            asyncmd_types::HeapType::Default,
        )?);
        let buffer = scratch.buffer().unwrap_or_default();
        self.scratch.push(scratch);
        let d = &self.core.device;
        let out = [vk::BufferImageCopy {
            image_subresource: sl,
            image_offset: src_offset,
            image_extent: extent,
            ..Default::default()
        }];
        let back = [vk::BufferImageCopy {
            image_subresource: dl,
            image_offset: dst_offset,
            image_extent: extent,
            ..Default::default()
        }];
        let between = [sync::serialize_transfers(false)];
        let (si, di) = (src.image().unwrap_or_default(), dst.image().unwrap_or_default());
        // SAFETY: live images and a scratch buffer kept by this list; a barrier orders the two
        // halves.
        unsafe {
            d.cmd_copy_image_to_buffer(self.cb, si, vk::ImageLayout::GENERAL, buffer, &out);
            d.cmd_pipeline_barrier2(self.cb, &vk::DependencyInfo::default().memory_barriers(&between));
            d.cmd_copy_buffer_to_image(self.cb, buffer, di, vk::ImageLayout::GENERAL, &back);
        }
        Ok(())
    }

    fn copy_tiles(&mut self, t: &asyncmd_ddi::TileCopy) -> Result<()> {
        self.check_not_predicated("CopyTiles")?;
        let res = self.resource(t.resource)?;
        let buffer = self.buffer_of(t.buffer)?;
        let desc = res.desc;
        let first = asyncmd_types::linear_tile(&desc, &t.start)
            .ok_or_else(|| fail("CopyTiles: start outside the resource".into()))?;
        let tiles: Vec<u64> = if t.size.use_box {
            let (tx, ty, _) = asyncmd_types::subresource_tiles(&desc, t.start.subresource).unwrap_or((0, 0, 0));
            let mut v = Vec::new();
            for z in 0..t.size.depth as u64 {
                for y in 0..t.size.height as u64 {
                    for x in 0..t.size.width as u64 {
                        v.push(first + (z * ty as u64 + y) * tx as u64 + x);
                    }
                }
            }
            v
        } else {
            (first..first + t.size.num_tiles as u64).collect()
        };
        self.serialize();
        let to_buffer = t.flags.contains(asyncmd_types::TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER);
        let d = self.core.device.clone();
        if let Some(rb) = res.buffer() {
            let regions: Vec<vk::BufferCopy> = tiles
                .iter()
                .enumerate()
                .map(|(n, &tile)| {
                    let (tile_offset, linear) = (tile * TILE, t.buffer_offset + n as u64 * TILE);
                    let size = TILE.min(desc.width.saturating_sub(tile_offset));
                    if to_buffer {
                        vk::BufferCopy { src_offset: tile_offset, dst_offset: linear, size }
                    } else {
                        vk::BufferCopy { src_offset: linear, dst_offset: tile_offset, size }
                    }
                })
                .filter(|r| r.size > 0)
                .collect();
            let (src, dst) = if to_buffer { (rb, buffer) } else { (buffer, rb) };
            // SAFETY: live buffers; the runtime checked the tile range and buffer size.
            unsafe { d.cmd_copy_buffer(self.cb, src, dst, &regions) };
            return Ok(());
        }
        let image = res.image().unwrap_or_default();
        let regions = crate::sparse::tile_regions(&desc, &tiles, t.buffer_offset);
        // SAFETY: a live sparse image in GENERAL and a live buffer; regions are whole tiles.
        unsafe {
            if to_buffer {
                d.cmd_copy_image_to_buffer(self.cb, image, vk::ImageLayout::GENERAL, buffer, &regions);
            } else {
                d.cmd_copy_buffer_to_image(self.cb, buffer, image, vk::ImageLayout::GENERAL, &regions);
            }
        }
        Ok(())
    }

    fn copy_resource(&mut self, dest: ResourceId, source: ResourceId) -> Result<()> {
        self.check_not_predicated("CopyResource")?;
        let d = self.core.device.clone();
        let (dst, src) = (self.resource(dest)?, self.resource(source)?);
        self.serialize();
        if let (Some(db), Some(sb)) = (dst.buffer(), src.buffer()) {
            let region = [vk::BufferCopy { src_offset: 0, dst_offset: 0, size: dst.desc.width.min(src.desc.width) }];
            // SAFETY: live buffers of equal size.
            unsafe { d.cmd_copy_buffer(self.cb, sb, db, &region) };
            return Ok(());
        }
        let (Some(di), Some(si)) = (dst.image(), src.image()) else {
            return Err(fail("CopyResource: mixed kinds".into()));
        };
        let desc = src.desc;
        if copies_through_buffer(&dst.desc, &desc) {
            for sub in 0..desc.subresource_count() {
                let (width, height, depth) = desc.subresource_extent(sub).unwrap_or((0, 0, 0));
                let (origin, extent) = (vk::Offset3D::default(), vk::Extent3D { width, height, depth });
                self.copy_aspect_through_buffer(&dst, sub, origin, &src, sub, origin, extent)?;
            }
            return Ok(());
        }
        let mut regions = Vec::new();
        for mip in 0..desc.mip_count() {
            let (w, h, z) = desc.mip_extent(mip);
            for plane in 0..desc.plane_count() {
                let layers = vk::ImageSubresourceLayers {
                    aspect_mask: plane_aspect(desc.format, plane),
                    mip_level: mip,
                    base_array_layer: 0,
                    layer_count: desc.array_size(),
                };
                let p = desc.format.plane(plane).map_or((1, 1), |p| (p.subsample_x, p.subsample_y));
                regions.push(vk::ImageCopy {
                    src_subresource: layers,
                    src_offset: vk::Offset3D::default(),
                    dst_subresource: layers,
                    dst_offset: vk::Offset3D::default(),
                    extent: vk::Extent3D { width: w.div_ceil(p.0), height: h.div_ceil(p.1), depth: z },
                });
            }
        }
        // SAFETY: live images of one description.
        unsafe { d.cmd_copy_image(self.cb, si, vk::ImageLayout::GENERAL, di, vk::ImageLayout::GENERAL, &regions) };
        Ok(())
    }

    fn range(res: &VkResource, r: &BarrierSubresourceRange) -> Vec<vk::ImageSubresourceRange> {
        let desc = &res.desc;
        let all = vk::ImageSubresourceRange {
            aspect_mask: barrier_aspects(desc.format),
            base_mip_level: 0,
            level_count: vk::REMAINING_MIP_LEVELS,
            base_array_layer: 0,
            layer_count: vk::REMAINING_ARRAY_LAYERS,
        };
        if r.index_or_first_mip == u32::MAX {
            return vec![all];
        }
        if r.num_mip_levels == 0 {
            let Some(s) = desc.subresource(r.index_or_first_mip) else { return vec![all] };
            let three_d = desc.dimension == ResourceDimension::Texture3D;
            return vec![vk::ImageSubresourceRange {
                aspect_mask: barrier_aspects(desc.format),
                base_mip_level: s.mip,
                level_count: 1,
                base_array_layer: if three_d { 0 } else { s.slice },
                layer_count: 1,
            }];
        }
        vec![vk::ImageSubresourceRange {
            aspect_mask: barrier_aspects(desc.format),
            base_mip_level: r.index_or_first_mip,
            level_count: r.num_mip_levels,
            base_array_layer: r.first_array_slice,
            layer_count: r.num_array_slices.max(1),
        }]
    }

    /// The Vulkan stages of a D3D12 sync scope, as this list's queue family may name them.
    fn stages(&self, scope: BarrierSync) -> vk::PipelineStageFlags2 {
        let f = self.family();
        let graphics = f == self.core.families.direct;
        sync::limit_to_family(sync::stages(scope, self.copies_in_compute()), graphics, self.family_has_compute())
    }

    fn barrier(&mut self, groups: &[BarrierGroup<ResourceId>]) -> Result<()> {
        let mut memory = Vec::new();
        let mut buffers = Vec::new();
        let mut images = Vec::new();
        for g in groups {
            match g {
                BarrierGroup::Global(bs) => {
                    for b in bs {
                        let (ss, ds) = (self.stages(b.sync_before), self.stages(b.sync_after));
                        memory.push(
                            vk::MemoryBarrier2::default()
                                .src_stage_mask(ss)
                                .src_access_mask(sync::accesses(b.access_before, ss))
                                .dst_stage_mask(ds)
                                .dst_access_mask(sync::accesses(b.access_after, ds)),
                        );
                    }
                }
                BarrierGroup::Buffer(bs) => {
                    for b in bs {
                        let buffer = self.buffer_of(b.resource)?;
                        let (ss, ds) = (self.stages(b.sync_before), self.stages(b.sync_after));
                        buffers.push(
                            vk::BufferMemoryBarrier2::default()
                                .src_stage_mask(ss)
                                .src_access_mask(sync::accesses(b.access_before, ss))
                                .dst_stage_mask(ds)
                                .dst_access_mask(sync::accesses(b.access_after, ds))
                                .buffer(buffer)
                                .offset(0)
                                .size(vk::WHOLE_SIZE),
                        );
                    }
                }
                BarrierGroup::Texture(bs) => {
                    for b in bs {
                        let (res, image) = self.image_of(b.resource)?;
                        let (ss, ds) = (self.stages(b.sync_before), self.stages(b.sync_after));
                        // Barriers name every aspect of a depth-stencil image (separate
                        // depth and stencil layouts are not enabled); a discard of one plane
                        // must then keep the other, so it transitions from GENERAL.
                        let one_plane = res.desc.format.plane_count() > 1
                            && b.subresources.index_or_first_mip != u32::MAX
                            && (b.subresources.num_mip_levels == 0 || b.subresources.num_planes < 2);
                        let discard = b.layout_before == BarrierLayout::Undefined && !one_plane;
                        for range in Self::range(&res, &b.subresources) {
                            images.push(
                                vk::ImageMemoryBarrier2::default()
                                    .src_stage_mask(ss)
                                    .src_access_mask(sync::accesses(b.access_before, ss))
                                    .dst_stage_mask(if ds == vk::PipelineStageFlags2::NONE {
                                        vk::PipelineStageFlags2::ALL_COMMANDS
                                    } else {
                                        ds
                                    })
                                    .dst_access_mask(sync::accesses(b.access_after, ds))
                                    .old_layout(if discard {
                                        vk::ImageLayout::UNDEFINED
                                    } else {
                                        sync::layout(b.layout_before)
                                    })
                                    .new_layout(vk::ImageLayout::GENERAL)
                                    .image(image)
                                    .subresource_range(range),
                            );
                        }
                    }
                }
            }
        }
        let info = vk::DependencyInfo::default()
            .memory_barriers(&memory)
            .buffer_memory_barriers(&buffers)
            .image_memory_barriers(&images);
        // SAFETY: every handle is live and kept by this list.
        unsafe { self.core.device.cmd_pipeline_barrier2(self.cb, &info) };
        // An explicit barrier orders what came before.
        self.transfer_pending = false;
        Ok(())
    }

    /// Runs `f` inside a dynamic-rendering instance over one attachment view.
    fn with_attachment(
        &mut self,
        res: &VkResource,
        key: crate::memory::ViewKey,
        depth: Option<ClearFlags>,
        area: (u32, u32),
        f: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<()> {
        let view = res.view(key)?;
        let attachment = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::GENERAL)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let render_area =
            vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: area.0, height: area.1 } };
        let mut info = vk::RenderingInfo::default().render_area(render_area).layer_count(key.4);
        match depth {
            None => info = info.color_attachments(&attachment),
            Some(flags) => {
                if flags.contains(ClearFlags::DEPTH) || res.desc.format.has_depth() {
                    info = info.depth_attachment(&attachment[0]);
                }
                if res.desc.format.has_stencil() {
                    info = info.stencil_attachment(&attachment[0]);
                }
            }
        }
        let d = &self.core.device;
        // SAFETY: a rendering instance over a live view, ended right after `f` records into it.
        unsafe {
            d.cmd_begin_rendering(self.cb, &info);
            f(d, self.cb);
            d.cmd_end_rendering(self.cb);
        }
        Ok(())
    }

    pub(crate) fn clear_rtv(&mut self, view: &RenderTargetView, color: [f32; 4], rects: &[Rect]) -> Result<()> {
        let flushed = color.map(|c| if c.is_subnormal() { 0.0f32.copysign(c) } else { c });
        let value = match view.desc.format.info().class {
            asyncmd_types::ComponentClass::Uint => vk::ClearColorValue { uint32: flushed.map(|c| c as u32) },
            asyncmd_types::ComponentClass::Sint => vk::ClearColorValue { int32: flushed.map(|c| c as i32) },
            _ => vk::ClearColorValue { float32: flushed },
        };
        self.clear_rtv_value(view, value, rects)
    }

    /// A view clear with the value as Vulkan takes it (integers exact).
    pub(crate) fn clear_rtv_value(
        &mut self,
        view: &RenderTargetView,
        value: vk::ClearColorValue,
        rects: &[Rect],
    ) -> Result<()> {
        let (res, image) = self.image_of(view.resource)?;
        let range = view.desc.range(&res.desc).ok_or_else(|| fail("ClearRenderTargetView: bad view".into()))?;
        let format = view.desc.format;
        self.serialize();
        let three_d = res.desc.dimension == ResourceDimension::Texture3D;
        let (w, h, _) = res.desc.mip_extent(range.mip);
        if rects.is_empty()
            && !self.predicated
            && !three_d
            && res.view_format(format) == res.view_format(res.desc.format)
        {
            let r = vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: range.mip,
                level_count: 1,
                base_array_layer: range.first_slice,
                layer_count: range.slices,
            };
            // SAFETY: a live image in GENERAL with TRANSFER_DST usage.
            unsafe { self.core.device.cmd_clear_color_image(self.cb, image, vk::ImageLayout::GENERAL, &value, &[r]) };
            return Ok(());
        }
        let ty = res.attachment_view_type();
        let key =
            (res.view_format(format), ty, range.mip, range.first_slice, range.slices, vk::ImageAspectFlags::COLOR);
        let clear_rects = clear_rects(rects, w, h, range.slices);
        let attachment = [vk::ClearAttachment {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            color_attachment: 0,
            clear_value: vk::ClearValue { color: value },
        }];
        self.with_attachment(&res, key, None, (w, h), |d, cb| {
            if !clear_rects.is_empty() {
                // SAFETY: inside the rendering instance; rectangles are inside the render area.
                unsafe { d.cmd_clear_attachments(cb, &attachment, &clear_rects) };
            }
        })
    }

    pub(crate) fn clear_dsv(
        &mut self,
        view: &DepthStencilView,
        flags: ClearFlags,
        depth: f32,
        stencil: u8,
        rects: &[Rect],
    ) -> Result<()> {
        let (res, image) = self.image_of(view.resource)?;
        let range = view.desc.range(&res.desc).ok_or_else(|| fail("ClearDepthStencilView: bad view".into()))?;
        let aspect = crate::format::clear_aspects(res.desc.format, flags);
        if aspect.is_empty() {
            return Ok(());
        }
        // A stencil-only clear leaves depth alone, whatever value came with it; Vulkan takes
        // depths in [0, 1] only.
        let depth = if flags.contains(ClearFlags::DEPTH) && !depth.is_nan() { depth.clamp(0.0, 1.0) } else { 0.0 };
        let value = vk::ClearDepthStencilValue { depth, stencil: stencil as u32 };
        self.serialize();
        let (w, h, _) = res.desc.mip_extent(range.mip);
        // Predicated clears go through the attachment: conditional rendering skips those.
        if rects.is_empty() && !self.predicated {
            let r = vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: range.mip,
                level_count: 1,
                base_array_layer: range.first_slice,
                layer_count: range.slices,
            };
            // SAFETY: a live depth image in GENERAL.
            unsafe {
                self.core.device.cmd_clear_depth_stencil_image(self.cb, image, vk::ImageLayout::GENERAL, &value, &[r])
            };
            return Ok(());
        }
        let ty = res.attachment_view_type();
        let key = (
            res.view_format(res.desc.format),
            ty,
            range.mip,
            range.first_slice,
            range.slices,
            crate::format::all_aspects(res.desc.format),
        );
        let clear_rects = clear_rects(rects, w, h, range.slices);
        let attachment = [vk::ClearAttachment {
            aspect_mask: aspect,
            color_attachment: 0,
            clear_value: vk::ClearValue { depth_stencil: value },
        }];
        self.with_attachment(&res, key, Some(flags), (w, h), |d, cb| {
            if !clear_rects.is_empty() {
                // SAFETY: inside the rendering instance; rectangles are inside the render area.
                unsafe { d.cmd_clear_attachments(cb, &attachment, &clear_rects) };
            }
        })
    }

    fn query_heap(&mut self, id: u64) -> Result<Arc<crate::device::VkQueryHeap>> {
        if let Some(h) = self.queries.get(&id) {
            return Ok(h.clone());
        }
        let h = self.tables.query_heaps.get(id).ok_or_else(|| fail(format!("unknown query heap {id}")))?;
        self.queries.insert(id, h.clone());
        Ok(h)
    }

    fn query(&mut self, heap: u64, ty: QueryType, index: u32, begin: bool) -> Result<()> {
        let h = self.query_heap(heap)?;
        let writes = begin || ty == QueryType::Timestamp;
        let again = writes && !self.resets.insert((heap, index));
        // A slot this list resolved before writing it keeps its earlier result for that
        // resolve: it is reset here, not when the list starts.
        let read_first = writes && !again && self.resolved_before(heap, index);
        if again || read_first {
            // A slot this list wrote before: Vulkan needs a reset between two uses (D3D12 just
            // overwrites), and resets happen outside rendering instances only.
            if self.gfx.pass.is_some() && self.gfx.rendering {
                let what = if again { "written twice" } else { "resolved, then written," };
                return Err(fail(format!(
                    "{}: query slot {index} is {what} in one render pass, which the Vulkan device cannot do",
                    if begin { "BeginQuery" } else { "EndQuery" }
                )));
            }
            self.end_lazy_rendering();
            // SAFETY: outside any rendering instance; the pool is live and kept by this list.
            unsafe { self.core.device.cmd_reset_query_pool(self.cb, h.pool, index, 1) };
        } else if writes {
            self.reset_order.push((heap, index));
        }
        let d = &self.core.device;
        // SAFETY: the pool is live and kept by this list; the slot is reset in the prologue.
        unsafe {
            match (ty, begin) {
                (QueryType::Timestamp, _) => {
                    d.cmd_write_timestamp2(self.cb, vk::PipelineStageFlags2::ALL_COMMANDS, h.pool, index);
                }
                (QueryType::Occlusion, true) => d.cmd_begin_query(self.cb, h.pool, index, h.precise),
                (_, true) => d.cmd_begin_query(self.cb, h.pool, index, vk::QueryControlFlags::empty()),
                (_, false) => d.cmd_end_query(self.cb, h.pool, index),
            }
        }
        Ok(())
    }

    /// Whether this list resolved slot `index` of `heap` before.
    fn resolved_before(&self, heap: u64, index: u32) -> bool {
        self.query_reads.iter().any(|&(h, start, count)| h == heap && (start..start + count).contains(&index))
    }

    fn resolve_query(&mut self, q: &QueryResolve) -> Result<()> {
        let h = self.query_heap(q.heap.0)?;
        let dest = self.resource(q.dest)?;
        let buffer = dest.buffer().ok_or_else(|| fail("ResolveQueryData: the destination is not a buffer".into()))?;
        if q.count == 0 {
            // Resolves nothing; Vulkan names no query past the pool's end even for none.
            return Ok(());
        }
        self.query_reads.push((q.heap.0, q.start, q.count));
        self.serialize();
        // SAFETY: a live pool and buffer; the runtime checked range and alignment.
        unsafe {
            self.core.device.cmd_copy_query_pool_results(
                self.cb,
                h.pool,
                q.start,
                q.count,
                buffer,
                q.dest_offset,
                q.ty.result_size(),
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        };
        if q.ty == QueryType::BinaryOcclusion {
            // Occlusion counts may be any non-zero number: normalize them to 0 or 1.
            let internal = self.core.internal.get().ok_or_else(|| fail("internal pipelines missing".into()))?;
            self.memory_barrier(
                vk::PipelineStageFlags2::ALL_TRANSFER,
                vk::AccessFlags2::TRANSFER_WRITE,
                vk::PipelineStageFlags2::COMPUTE_SHADER,
                vk::AccessFlags2::SHADER_STORAGE_READ | vk::AccessFlags2::SHADER_STORAGE_WRITE,
            );
            internal.dispatch(
                self.cb,
                internal.binary_occlusion,
                [dest.address() + q.dest_offset, q.count as u64, 0],
                q.count.div_ceil(64),
            );
            self.memory_barrier(
                vk::PipelineStageFlags2::COMPUTE_SHADER,
                vk::AccessFlags2::SHADER_STORAGE_WRITE,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
            );
        }
        Ok(())
    }

    /// Records one global memory barrier.
    pub(crate) fn memory_barrier(
        &self,
        src: vk::PipelineStageFlags2,
        src_access: vk::AccessFlags2,
        dst: vk::PipelineStageFlags2,
        dst_access: vk::AccessFlags2,
    ) {
        let b = [vk::MemoryBarrier2::default()
            .src_stage_mask(src)
            .src_access_mask(src_access)
            .dst_stage_mask(dst)
            .dst_access_mask(dst_access)];
        // SAFETY: recording outside any rendering instance into this list's command buffer.
        unsafe { self.core.device.cmd_pipeline_barrier2(self.cb, &vk::DependencyInfo::default().memory_barriers(&b)) };
    }

    /// `SetPredication`: folds the 64-bit predicate into a 32-bit value and begins conditional
    /// rendering on it, which skips draws, dispatches and attachment clears.
    fn set_predication(&mut self, p: Option<(asyncmd_ddi::GpuAddress, asyncmd_types::PredicationOp)>) -> Result<()> {
        self.end_conditional();
        let Some((address, op)) = p else { return Ok(()) };
        if self.gfx.pass.is_some() {
            return Err(fail("SetPredication: inside a render pass is not supported on the Vulkan device".into()));
        }
        if !self.core.features.conditional_rendering {
            return Err(fail("SetPredication: the Vulkan device has no VK_EXT_conditional_rendering".into()));
        }
        let source = self.resource(address.resource)?;
        let folded = Arc::new(VkResource::new(
            &self.core,
            &asyncmd_types::ResourceDesc::buffer(4),
            asyncmd_types::HeapType::Default,
        )?);
        let internal = self.core.internal.get().ok_or_else(|| fail("internal pipelines missing".into()))?;
        self.memory_barrier(
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::AccessFlags2::MEMORY_WRITE,
            vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::SHADER_STORAGE_READ | vk::AccessFlags2::SHADER_STORAGE_WRITE,
        );
        internal.dispatch(self.cb, internal.predicate, [source.address() + address.offset, folded.address(), 0], 1);
        self.memory_barrier(
            vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::SHADER_STORAGE_WRITE,
            vk::PipelineStageFlags2::CONDITIONAL_RENDERING_EXT,
            vk::AccessFlags2::CONDITIONAL_RENDERING_READ_EXT,
        );
        // EQUAL_ZERO skips work when the value is zero: render when it is not (plain);
        // NOT_EQUAL_ZERO renders when it is zero (inverted).
        let flags = match op {
            asyncmd_types::PredicationOp::EqualZero => vk::ConditionalRenderingFlagsEXT::empty(),
            asyncmd_types::PredicationOp::NotEqualZero => vk::ConditionalRenderingFlagsEXT::INVERTED,
        };
        let info = vk::ConditionalRenderingBeginInfoEXT::default()
            .buffer(folded.buffer().unwrap_or_default())
            .offset(0)
            .flags(flags);
        let ext =
            self.core.conditional.as_ref().ok_or_else(|| fail("SetPredication: no conditional rendering".into()))?;
        // SAFETY: a live buffer with CONDITIONAL_RENDERING usage, outside any rendering instance.
        unsafe { (ext.fp().cmd_begin_conditional_rendering_ext)(self.cb, &info) };
        self.scratch.push(folded);
        self.predicated = true;
        Ok(())
    }

    /// Ends conditional rendering if it is on.
    pub(crate) fn end_conditional(&mut self) {
        if self.predicated {
            if let Some(ext) = &self.core.conditional {
                // SAFETY: ends the conditional rendering this list began, outside rendering.
                unsafe { (ext.fp().cmd_end_conditional_rendering_ext)(self.cb) };
            }
            self.predicated = false;
        }
    }

    /// Transfer commands cannot be skipped by conditional rendering.
    /// Whether predication is on: it reaches draws and dispatches, not transfers.
    pub(crate) fn is_predicated(&self) -> bool {
        self.predicated
    }

    pub(crate) fn check_not_predicated(&self, api: &str) -> Result<()> {
        if self.predicated {
            return Err(fail(format!(
                "{api}: predicated copies, resolves and transfer clears are not supported on the Vulkan device"
            )));
        }
        Ok(())
    }

    pub(crate) fn resolve(&mut self, r: &Resolve) -> Result<()> {
        self.check_not_predicated("ResolveSubresourceRegion")?;
        if !matches!(r.mode, ResolveMode::Average | ResolveMode::Decompress) {
            return Err(fail(format!("ResolveSubresourceRegion: {:?} is not supported on the Vulkan device", r.mode)));
        }
        if r.mode == ResolveMode::Decompress && r.dest == r.source && r.dest_subresource == r.source_subresource {
            // Vulkan images in GENERAL need no decompression: in place, there is nothing to do.
            return Ok(());
        }
        let (dst, di) = self.image_of(r.dest)?;
        let (src, si) = self.image_of(r.source)?;
        let (sl, _) = Self::layers(&src, r.source_subresource)?;
        let (dl, _) = Self::layers(&dst, r.dest_subresource)?;
        let (sw, sh, _) = src.desc.subresource_extent(r.source_subresource).unwrap_or((0, 0, 0));
        let rect = r.source_rect.unwrap_or(Rect::new(0, 0, sw as i32, sh as i32));
        self.serialize();
        let region = [vk::ImageResolve {
            src_subresource: sl,
            src_offset: vk::Offset3D { x: rect.left, y: rect.top, z: 0 },
            dst_subresource: dl,
            dst_offset: vk::Offset3D { x: r.dest_x as i32, y: r.dest_y as i32, z: 0 },
            extent: vk::Extent3D {
                width: (rect.right - rect.left) as u32,
                height: (rect.bottom - rect.top) as u32,
                depth: 1,
            },
        }];
        let d = &self.core.device;
        let general = vk::ImageLayout::GENERAL;
        if r.mode == ResolveMode::Decompress {
            // Equal sample counts: a decompress into another image is a copy of every sample.
            let [reg] = region;
            let copy = [vk::ImageCopy {
                src_subresource: reg.src_subresource,
                src_offset: reg.src_offset,
                dst_subresource: reg.dst_subresource,
                dst_offset: reg.dst_offset,
                extent: reg.extent,
            }];
            // SAFETY: live images in GENERAL with equal sample counts; regions checked.
            unsafe { d.cmd_copy_image(self.cb, si, general, di, general, &copy) };
            return Ok(());
        }
        // SAFETY: live images in GENERAL; the runtime checked the regions and formats.
        unsafe { d.cmd_resolve_image(self.cb, si, general, di, general, &region) };
        Ok(())
    }
}

/// View-space rectangles clipped to the view, as clear rectangles over `layers` layers.
fn clear_rects(rects: &[Rect], w: u32, h: u32, layers: u32) -> Vec<vk::ClearRect> {
    let full = Rect::new(0, 0, w as i32, h as i32);
    let rects: Vec<Rect> =
        if rects.is_empty() { vec![full] } else { rects.iter().map(|r| r.intersect(&full)).collect() };
    rects
        .into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| vk::ClearRect {
            rect: vk::Rect2D {
                offset: vk::Offset2D { x: r.left, y: r.top },
                extent: vk::Extent2D { width: (r.right - r.left) as u32, height: (r.bottom - r.top) as u32 },
            },
            base_array_layer: 0,
            layer_count: layers,
        })
        .collect()
}

impl CommandListDdi for VkCommandList {
    fn record(&mut self, command: Command) {
        if self.error.is_some() {
            return;
        }
        if !self.deferred.push(&self.tables, &mut self.keep, &mut self.queries, command) {
            self.error = Some(Error::out_of_memory("Close: no memory for the list's commands"));
        }
    }

    fn close(&mut self) -> Result<Executable> {
        crate::threads::on_driver(|| {
            self.replay();
            self.close_here()
        })
    }

    fn reset(&mut self) {
        crate::threads::on_driver(|| self.reset_here())
    }
}

impl VkCommandList {
    /// Records the pending commands into the command buffer; the first error stops it.
    fn replay(&mut self) {
        let mut commands = self.deferred.take_commands();
        for c in commands.drain(..) {
            if self.error.is_some() {
                break;
            }
            if let Err(e) = self.record_command(c) {
                self.error = Some(e);
            }
        }
        self.deferred.recorded(commands);
    }

    fn close_here(&mut self) -> Result<Executable> {
        if let Some(e) = self.error.take() {
            self.reset();
            return Err(e);
        }
        self.end_lazy_rendering();
        self.end_conditional();
        let d = self.core.device.clone();
        let oom = |e: vk::Result| Error::out_of_memory(format!("Close: {e}"));
        // SAFETY: ends this list's command buffer; records the prologue into the pool's first
        // buffer; both then belong to the returned `Recorded`.
        let buffers = unsafe {
            d.end_command_buffer(self.cb).map_err(oom)?;
            let prologue = self.prologue;
            if self.reset_order.is_empty() {
                d.free_command_buffers(self.pool, &[prologue]);
                vec![self.cb]
            } else {
                d.begin_command_buffer(prologue, &simultaneous_use()).map_err(oom)?;
                for (heap, index) in &self.reset_order {
                    if let Some(h) = self.queries.get(heap) {
                        d.cmd_reset_query_pool(prologue, h.pool, *index, 1);
                    }
                }
                d.end_command_buffer(prologue).map_err(oom)?;
                vec![prologue, self.cb]
            }
        };
        let recorded = Recorded {
            core: self.core.clone(),
            ty: self.ty,
            pool: std::mem::replace(&mut self.pool, vk::CommandPool::null()),
            buffers,
            _keep: self.keep.drain().map(|(_, v)| v).chain(self.scratch.drain(..)).collect(),
            _keep_queries: self.queries.drain().map(|(_, v)| v).collect(),
            bundle: std::mem::take(&mut self.bundle),
            _keep_pipelines: std::mem::take(&mut self.gfx.keep_pipelines),
            _keep_roots: std::mem::take(&mut self.gfx.keep_roots),
        };
        self.gfx = Default::default();
        self.resets.clear();
        self.reset_order.clear();
        self.query_reads.clear();
        self.transfer_pending = false;
        Ok(Executable(Arc::new(recorded)))
    }

    fn reset_here(&mut self) {
        if self.pool != vk::CommandPool::null() {
            // SAFETY: the pool was never submitted (it is still this list's).
            unsafe { self.core.device.destroy_command_pool(self.pool, None) };
            self.pool = vk::CommandPool::null();
        }
        self.keep.clear();
        self.scratch.clear();
        self.predicated = false;
        self.queries.clear();
        self.resets.clear();
        self.reset_order.clear();
        self.query_reads.clear();
        self.bundle.clear();
        self.transfer_pending = false;
        self.error = None;
        self.gfx = Default::default();
        self.deferred.clear();
        if let Err(e) = self.begin() {
            self.error = Some(e);
        }
    }
}

impl Drop for VkCommandList {
    fn drop(&mut self) {
        // On a driver thread (`threads.rs`), with everything the list held.
        crate::threads::on_driver(|| {
            if self.pool != vk::CommandPool::null() {
                // SAFETY: an open pool is never submitted.
                unsafe { self.core.device.destroy_command_pool(self.pool, None) };
            }
            drop((
                std::mem::take(&mut self.keep),
                std::mem::take(&mut self.scratch),
                std::mem::take(&mut self.queries),
                std::mem::take(&mut self.bundle),
                std::mem::take(&mut self.gfx),
                std::mem::take(&mut self.deferred),
            ));
        })
    }
}

/// Whether an image-to-image copy between these resources must go through a buffer:
/// `vkCmdCopyImage` copies only between equal aspects (a depth and a colour image of one
/// typeless family are copy-compatible in D3D12), and some drivers (lavapipe 22.3) copy both
/// aspects of a combined depth-stencil image where one is asked for. Nor does it copy between
/// a 1D image and another type (VUID-vkCmdCopyImage-srcImage-07743; D3D12 copies a 1D texture
/// into a row of a 2D one). Multisampled images cannot go through a buffer; those of equal
/// aspects copy directly.
fn copies_through_buffer(dst: &asyncmd_types::ResourceDesc, src: &asyncmd_types::ResourceDesc) -> bool {
    let (d, s) = (dst.format, src.format);
    let aspects_differ = s.has_depth() != d.has_depth() || s.has_stencil() != d.has_stencil();
    let one_d = |r: &asyncmd_types::ResourceDesc| r.dimension == ResourceDimension::Texture1D;
    aspects_differ || one_d(src) != one_d(dst) || (s.has_stencil() && !src.is_msaa())
}

/// How a list's command buffers begin: D3D12 executes a closed list any number of times, also
/// while an earlier execution is still pending (the same list twice in one submission too).
fn simultaneous_use() -> vk::CommandBufferBeginInfo<'static> {
    vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE)
}

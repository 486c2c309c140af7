//! Command lists: commands are kept as they come and recorded into a Vulkan command buffer at
//! `Close`, on a driver thread (`threads.rs` says why no other thread calls the driver).
//!
//! Recording is split by Vulkan concern: `transfer.rs` (copies), `resolve.rs`, `barrier.rs`,
//! `rendering.rs` (rendering instances, passes, draws), `attachment_clear.rs` (view clears),
//! `dispatch.rs`, `state.rs` (pipelines, root arguments), `query.rs` (queries, predication);
//! the native Async Commands in `native/`, one file per family.

use crate::core::Core;
use crate::device::Tables;
use crate::memory::VkResource;
use crate::sync;
use ash::vk;
use asyncmd_ddi::{Command, CommandListDdi, Executable, ResourceId};
use asyncmd_types::{CommandListType, Error, MessageId, Result};
use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

mod attachment_clear;
pub(crate) use attachment_clear::{driver_depth, driver_floats};
pub(crate) use transfer::{copy_extent, tiles_of};
mod barrier;
mod descriptor_sets;
mod dispatch;
mod indirect;
mod native;
mod pool;
mod query;
mod rendering;
mod resolve;
mod state;
mod transfer;
mod upload;

pub(crate) use pool::ListPools;
pub(crate) use upload::SpareChunks;

/// A closed list: command buffers ready to submit, and everything they use.
pub(crate) struct Recorded {
    core: Arc<Core>,
    pub(crate) ty: CommandListType,
    /// Given back to the device when the last execution is done.
    pool: pool::ListPool,
    /// Query resets first, then the list's commands.
    /// The prologue (where the list resets queries) and the list's own.
    buffers: smallvec::SmallVec<[vk::CommandBuffer; 2]>,
    _keep: Vec<Arc<VkResource>>,
    _keep_queries: Vec<Arc<crate::device::VkQueryHeap>>,
    /// A bundle's commands, replayed into the lists that execute it.
    pub(crate) bundle: Vec<Command>,
    _keep_pipelines: Vec<Arc<crate::pipeline::VkPipeline>>,
    _keep_roots: Vec<Arc<crate::pipeline::VkRootSignature>>,
    _sets: Option<descriptor_sets::SetPools>,
    /// The arenas' chunks, given back to `spare` when the last execution is done.
    chunks: upload::Owned,
    spare: Arc<upload::SpareChunks>,
}

impl Recorded {
    pub(crate) fn command_buffers(&self) -> &[vk::CommandBuffer] {
        &self.buffers
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`), with everything the list held.
        let held = (
            std::mem::take(&mut self._keep),
            std::mem::take(&mut self._keep_queries),
            std::mem::take(&mut self.bundle),
            std::mem::take(&mut self._keep_pipelines),
            std::mem::take(&mut self._keep_roots),
            self._sets.take(),
        );
        let (core, pool, spare) = (self.core.clone(), self.pool, self.spare.clone());
        let chunks = std::mem::take(&mut self.chunks);
        // Nobody waits for it where it is handed over: the app's thread (a list's `Reset`)
        // goes on at once.
        let (drops, here) = (core.drops.clone(), core.calls_here);
        drops.run(here, move || {
            // SAFETY: queues keep an Arc of a submitted list until the GPU has finished it, and
            // this was the last.
            unsafe { core.list_pools.give_back(&core, pool) };
            spare.give_back(chunks);
            drop(held);
        })
    }
}

/// A command list of the Vulkan device.
pub(crate) struct VkCommandList {
    pub(crate) core: Arc<Core>,
    pub(crate) tables: Arc<Tables>,
    pub(crate) ty: CommandListType,
    /// The pool recorded into: taken at `Close` (`None` before it, once closed, or where
    /// taking one failed).
    pool: Option<pool::ListPool>,
    /// The pool's command buffer for the list's commands (its `cb`), read by every recording.
    pub(crate) cb: vk::CommandBuffer,
    keep: HashMap<u64, Arc<VkResource>>,
    /// Temporary buffers the list's commands use.
    pub(crate) scratch: Vec<Arc<VkResource>>,
    /// Where the list's commands put the bytes they read from host memory or write for
    /// themselves on the GPU.
    arenas: upload::Arenas,
    /// The device's spare chunks, which the arenas take from and finished recordings give to.
    spare: Arc<upload::SpareChunks>,
    /// Descriptor sets of kernels that bind more than the device pushes.
    sets: Option<descriptor_sets::SetPools>,
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
    /// Copies of the run of `CopyBufferRegions` calls being recorded (`native::flush_copies`).
    pending_copies: Vec<native::PendingCopy>,
    /// Fills of the run of `FillBuffers` calls being recorded (`native::flush_fills`).
    pending_fills: Vec<native::PendingFill>,
    /// What the transfer form of one copy or fill call has written, kept for its capacity.
    written: native::Written,
    bundle: Vec<Command>,
    error: Option<Error>,
    pub(crate) gfx: state::Graphics,
    /// Commands since the last `Close` or `Reset`, recorded into Vulkan at `Close`.
    pub(crate) deferred: crate::deferred::Deferred,
    /// A driver thread held from the recording's first command, awake when `Close` hands it
    /// the recording (`threads.rs`).
    reserved: Option<crate::threads::Reserved>,
}

fn fail(text: String) -> Error {
    Error::fail(MessageId::DeviceUnsupported, text)
}

impl VkCommandList {
    pub(crate) fn new(
        core: &Arc<Core>,
        tables: &Arc<Tables>,
        spare: &Arc<upload::SpareChunks>,
        ty: CommandListType,
    ) -> Result<Self> {
        let list = Self {
            core: core.clone(),
            tables: tables.clone(),
            ty,
            pool: None,
            cb: vk::CommandBuffer::null(),
            keep: HashMap::default(),
            scratch: Vec::new(),
            arenas: Default::default(),
            spare: spare.clone(),
            sets: None,
            predicated: false,
            queries: HashMap::default(),
            resets: HashSet::default(),
            reset_order: Vec::new(),
            query_reads: Vec::new(),
            transfer_pending: false,
            pending_copies: Vec::new(),
            pending_fills: Vec::new(),
            written: Default::default(),
            bundle: Vec::new(),
            error: None,
            gfx: Default::default(),
            deferred: Default::default(),
            reserved: None,
        };
        // Checks here that the family can have a pool at all; it goes back at once, and
        // `Close` takes one to record into (`begin`).
        let p = core.list_pools.take(core, list.family())?;
        // SAFETY: a pool just taken, never recorded into or submitted.
        unsafe { core.list_pools.give_back(core, p) };
        Ok(list)
    }

    /// Whether copies recorded here may run as compute dispatches, so that copy barriers must
    /// cover the compute stage (which a transfer-only family may not name).
    pub(crate) fn copies_in_compute(&self) -> bool {
        self.core.compute_copies() && self.family_has_compute()
    }

    /// Whether this list's texture copies, clears and resolves run as the image kernels:
    /// where compute copies win and the device has the kernels.
    pub(crate) fn image_kernels_on(&self) -> bool {
        self.copies_in_compute() && self.core.meta.get().is_some_and(|m| m.image.is_some())
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

    /// Takes a pool to record into and begins its command buffer (at `Close`: the commands
    /// before it are kept, so that recording them is one stretch of driver calls).
    fn begin(&mut self) -> Result<()> {
        let p = self.core.list_pools.take(&self.core, self.family())?;
        (self.pool, self.cb) = (Some(p), p.cb);
        // SAFETY: a reset pool owned by this list (then by its `Recorded`), begun for one
        // submission.
        unsafe { self.core.device.begin_command_buffer(self.cb, &simultaneous_use()) }
            .map_err(|e| Error::out_of_memory(format!("CreateCommandList: {e}")))
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
    pub(crate) fn serialize(&mut self) {
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
        debug_assert!(crate::threads::on_driver_thread(), "a driver call off the driver threads");
        if self.ty == CommandListType::Bundle {
            self.bundle.push(c);
            return Ok(());
        }
        // Runs of buffer Async Commands are recorded as one batch each (`native::flush_copies`).
        if !matches!(c, Command::CopyBufferRegions(_)) {
            self.flush_copies()?;
        }
        if !matches!(c, Command::FillBuffers(_)) {
            self.flush_fills()?;
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
                | Command::SetGraphicsRootView { .. }
                | Command::SetComputeRootView { .. }
                | Command::SetTableViews { .. }
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
            // A root CBV, SRV or UAV: the root signature says which; its buffer and offset are
            // kept alike.
            Command::SetGraphicsRootUav { parameter, address }
            | Command::SetGraphicsRootView { parameter, address } => self.set_root_uav(parameter, address, false),
            Command::SetComputeRootUav { parameter, address } | Command::SetComputeRootView { parameter, address } => {
                self.set_root_uav(parameter, address, true)
            }
            Command::SetTableViews { compute, views } => self.set_table_views(&views, compute),
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
                self.begin_render_pass(&render_targets, depth_stencil.as_deref(), flags)
            }
            Command::EndRenderPass => self.end_render_pass(),
            Command::DrawInstanced { vertex_count, instance_count, start_vertex, start_instance } => {
                self.draw(vertex_count, instance_count, start_vertex, start_instance)
            }
            Command::Dispatch { x, y, z } => self.dispatch(x, y, z),
            Command::ExecuteIndirect { signature, max_count, arguments, count } => {
                self.execute_indirect(&signature, max_count, arguments, count)
            }
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
}

impl CommandListDdi for VkCommandList {
    fn record(&mut self, command: Command) {
        if self.error.is_some() {
            return;
        }
        if self.core.calls_here && self.ty != CommandListType::Bundle {
            // The app's thread may call the driver: the command goes into the command buffer
            // now, with no copy kept for `Close` and no replay there.
            crate::threads::on_driver_or_here(true, || self.record_now(command));
            return;
        }
        if self.deferred.is_empty() {
            if self.reserved.is_none() && !self.core.calls_here {
                self.reserved = crate::threads::reserve();
            }
            self.core.expect_submission(self.ty);
        }
        if !self.deferred.push(&self.tables, &mut self.keep, &mut self.queries, command) {
            self.error = Some(Error::out_of_memory("Close: no memory for the list's commands"));
        }
    }

    fn close(&mut self) -> Result<Executable> {
        let reserved = self.reserved.take();
        let here = self.core.calls_here;
        let close = || {
            if self.pool.is_none() && self.error.is_none() {
                if let Err(e) = self.begin() {
                    self.error = Some(e);
                }
            }
            self.replay();
            self.close_here()
        };
        match reserved {
            Some(thread) => thread.run(close),
            None => crate::threads::on_driver_or_here(here, close),
        }
    }

    fn reset(&mut self) {
        self.reserved = None;
        // A closed list holds no pool: its reset calls no driver, so needs no driver thread.
        if self.pool.is_some() {
            let here = self.core.calls_here;
            crate::threads::on_driver_or_here(here, || self.reset_here())
        } else {
            self.reset_here()
        }
    }
}

impl VkCommandList {
    /// Records `command` into the command buffer, begun with the list's first command; the
    /// first error is the list's, which `Close` returns.
    fn record_now(&mut self, command: Command) {
        if self.pool.is_none() {
            if let Err(e) = self.begin() {
                self.error = Some(e);
                return;
            }
        }
        crate::deferred::hold_named(&self.tables, &mut self.keep, &mut self.queries, &command);
        if let Err(e) = self.record_command(command) {
            self.error = Some(e);
        }
    }

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
        if self.error.is_none() {
            if let Err(e) = self.flush_copies().and_then(|()| self.flush_fills()) {
                self.error = Some(e);
            }
        }
        self.pending_copies.clear();
        self.pending_fills.clear();
        self.deferred.recorded(commands);
    }

    fn close_here(&mut self) -> Result<Executable> {
        if let Some(e) = self.error.take() {
            self.reset();
            return Err(e);
        }
        let Some(pool) = self.pool else {
            return Err(fail("Close: the list holds no command buffer".into()));
        };
        self.end_lazy_rendering();
        self.end_conditional();
        let d = self.core.device.clone();
        let oom = |e: vk::Result| Error::out_of_memory(format!("Close: {e}"));
        // SAFETY: ends this list's command buffer; records the prologue into the pool's first
        // buffer; both then belong to the returned `Recorded`.
        let buffers = unsafe {
            d.end_command_buffer(self.cb).map_err(oom)?;
            let prologue = pool.prologue;
            if self.reset_order.is_empty() {
                // The prologue stays unrecorded in the pool, for the pool's next list.
                smallvec::smallvec![self.cb]
            } else {
                d.begin_command_buffer(prologue, &simultaneous_use()).map_err(oom)?;
                for (heap, index) in &self.reset_order {
                    if let Some(h) = self.queries.get(heap) {
                        d.cmd_reset_query_pool(prologue, h.pool, *index, 1);
                    }
                }
                d.end_command_buffer(prologue).map_err(oom)?;
                smallvec::smallvec![prologue, self.cb]
            }
        };
        // The pool is the `Recorded`'s from here on.
        self.pool = None;
        // The chunks go with the recording, back to the device once its work is done; the next
        // recording uploads into other chunks.
        let chunks = self.arenas.finish();
        let recorded = Recorded {
            chunks,
            spare: self.spare.clone(),
            core: self.core.clone(),
            ty: self.ty,
            pool,
            buffers,
            _keep: self.keep.drain().map(|(_, v)| v).chain(self.scratch.drain(..)).collect(),
            _keep_queries: self.queries.drain().map(|(_, v)| v).collect(),
            bundle: std::mem::take(&mut self.bundle),
            _keep_pipelines: std::mem::take(&mut self.gfx.keep_pipelines),
            _keep_roots: std::mem::take(&mut self.gfx.keep_roots),
            _sets: self.sets.take(),
        };
        self.gfx = Default::default();
        self.resets.clear();
        self.reset_order.clear();
        self.query_reads.clear();
        self.transfer_pending = false;
        Ok(Executable(Arc::new(recorded)))
    }

    /// Gives an open list's pool back to the device. Rendering and conditional rendering are
    /// ended first: a reset pool forgets them, but validation layer 1.3.239 keeps a command
    /// buffer's conditional rendering active across `vkResetCommandPool` and reports the pool's
    /// next list as ending with it active (fuzz seed 1000092).
    fn give_back_open_pool(&mut self) {
        if self.pool.is_none() {
            return;
        }
        // Any rendering instance, the app's render pass included: a list reset or dropped
        // while recording one (recorded at once, `record_now`) must not end conditional
        // rendering begun outside it inside it (VUID-vkCmdEndConditionalRenderingEXT-None-01986).
        if self.gfx.rendering {
            // SAFETY: ends the instance this list began.
            unsafe { self.core.device.cmd_end_rendering(self.cb) };
            self.gfx.rendering = false;
        }
        self.end_conditional();
        if let Some(p) = self.pool.take() {
            // SAFETY: an open pool was never submitted (it is still this list's).
            unsafe { self.core.list_pools.give_back(&self.core, p) };
        }
    }

    fn reset_here(&mut self) {
        self.give_back_open_pool();
        self.keep.clear();
        self.scratch.clear();
        // Never submitted: the chunks can serve the next recordings at once.
        self.spare.give_back(self.arenas.finish());
        self.sets = None;
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
    }
}

impl Drop for VkCommandList {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`), with everything the list held
        // (a closed list's objects each go there themselves).
        if self.pool.is_none() {
            return;
        }
        let here = self.core.calls_here;
        crate::threads::on_driver_or_here(here, || {
            self.give_back_open_pool();
            drop((
                std::mem::take(&mut self.keep),
                std::mem::take(&mut self.scratch),
                std::mem::take(&mut self.arenas),
                self.sets.take(),
                std::mem::take(&mut self.queries),
                std::mem::take(&mut self.bundle),
                std::mem::take(&mut self.gfx),
                std::mem::take(&mut self.deferred),
            ));
        })
    }
}

/// How a list's command buffers begin: D3D12 executes a closed list any number of times, also
/// while an earlier execution is still pending (the same list twice in one submission too).
fn simultaneous_use() -> vk::CommandBufferBeginInfo<'static> {
    vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE)
}

//! Queries and predication (conditional rendering).

use super::{fail, VkCommandList};
use crate::memory::VkResource;
use ash::vk;
use asyncmd_ddi::QueryResolve;
use asyncmd_types::{QueryType, Result};
use std::sync::Arc;

impl VkCommandList {
    pub(super) fn query_heap(&mut self, id: u64) -> Result<Arc<crate::device::VkQueryHeap>> {
        if let Some(h) = self.queries.get(&id) {
            return Ok(h.clone());
        }
        let h = self.tables.query_heaps.get(id).ok_or_else(|| fail(format!("unknown query heap {id}")))?;
        self.queries.insert(id, h.clone());
        Ok(h)
    }

    pub(super) fn query(&mut self, heap: u64, ty: QueryType, index: u32, begin: bool) -> Result<()> {
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
            // The slot's first write: its reset goes to the list's prologue, which runs before
            // the list's work, as vkd3d-proton's initial command buffer does. Resets recorded
            // where the slots are written fell between the work and the timestamp after it:
            // on an H100, 16 fills × 1 MiB read 0.0102 ms between the timestamps with the
            // prologue and 0.0133 with the resets there (`docs/performance.md`). Inside a
            // rendering instance no reset can be recorded at all.
            self.reset_order.push((heap, index));
        }
        let d = &self.core.device;
        // SAFETY: the pool is live and kept by this list; the slot is reset above or in the
        // prologue.
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
    pub(super) fn resolved_before(&self, heap: u64, index: u32) -> bool {
        self.query_reads.iter().any(|&(h, start, count)| h == heap && (start..start + count).contains(&index))
    }

    pub(super) fn resolve_query(&mut self, q: &QueryResolve) -> Result<()> {
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
            let meta = self.core.meta()?;
            self.memory_barrier(
                vk::PipelineStageFlags2::ALL_TRANSFER,
                vk::AccessFlags2::TRANSFER_WRITE,
                vk::PipelineStageFlags2::COMPUTE_SHADER,
                vk::AccessFlags2::SHADER_STORAGE_READ | vk::AccessFlags2::SHADER_STORAGE_WRITE,
            );
            meta.occlusion_binary.dispatch(
                self.cb,
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

    /// `SetPredication`: folds the 64-bit predicate into a 32-bit value and begins conditional
    /// rendering on it, which skips draws, dispatches and attachment clears.
    pub(super) fn set_predication(
        &mut self,
        p: Option<(asyncmd_ddi::GpuAddress, asyncmd_types::PredicationOp)>,
    ) -> Result<()> {
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
        let meta = self.core.meta()?;
        self.memory_barrier(
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::AccessFlags2::MEMORY_WRITE,
            vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::SHADER_STORAGE_READ | vk::AccessFlags2::SHADER_STORAGE_WRITE,
        );
        meta.predicate_fold.dispatch(self.cb, [source.address() + address.offset, folded.address(), 0], 1);
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
}

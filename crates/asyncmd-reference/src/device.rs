//! The reference device: object creation and the [`DeviceDdi`] implementation.

use crate::budget::{zeroed, Budget, Reservation};
use crate::fence::RefFence;
use crate::memory::RefResource;
use crate::queue::RefQueue;
use crate::recorder::RefCommandList;
use asyncmd_ddi::*;
use asyncmd_types::{
    CommandListType, Error, Format, MessageId, QueryHeapDesc, QueryHeapType, ResourceDesc, Result, TILE_SIZE_IN_BYTES,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The settable capabilities of a reference device. Every route and rejection of the
/// specification can be reached by choosing them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceConfig {
    /// Enhanced barriers (the fallback needs them).
    pub enhanced_barriers: bool,
    /// Implements the Async Commands natively.
    pub native_async_commands: bool,
    /// Unified memory instead of discrete.
    pub uma: bool,
    /// Programmable sample positions.
    pub programmable_sample_positions: bool,
    /// Tiled-resources tier (0 for none).
    pub tiled_resources_tier: u32,
    /// Compute shaders can run the built-in fill shader.
    pub compute_fill_shader: bool,
    /// Compute shaders write buffers faster than transfers (the fallback's fill route).
    pub compute_fills_win: bool,
    /// Protected content.
    pub protected_content: bool,
    /// Bytes that resources, heaps and query heaps may hold at once; creation past it fails
    /// with `OutOfMemory`, as on a GPU whose memory is full.
    pub memory_budget: u64,
    /// Copy queues run on their own worker, as a GPU's DMA engine (`false`: the device reports
    /// one queue for everything, as lavapipe does).
    pub dedicated_copy_queue: bool,
    /// How long one dispatch of an app's kernel may run before the device counts it hung and
    /// is removed (`DeviceRemoved`, reason "device hung"), as a GPU's timeout detection does.
    pub shader_time_budget: Duration,
}

/// The default [`ReferenceConfig::shader_time_budget`]: 2 s, Windows' GPU timeout.
pub const DEFAULT_SHADER_TIME_BUDGET: Duration = Duration::from_secs(2);

/// The default [`ReferenceConfig::memory_budget`]: 4 GiB, a small discrete GPU.
pub const DEFAULT_MEMORY_BUDGET: u64 = 4 << 30;

impl Default for ReferenceConfig {
    /// A discrete device with enhanced barriers, tiled resources tier 2 and compute, without
    /// native Async Commands.
    fn default() -> Self {
        Self {
            enhanced_barriers: true,
            native_async_commands: false,
            uma: false,
            programmable_sample_positions: true,
            tiled_resources_tier: 2,
            compute_fill_shader: true,
            compute_fills_win: true,
            protected_content: true,
            memory_budget: DEFAULT_MEMORY_BUDGET,
            dedicated_copy_queue: true,
            shader_time_budget: DEFAULT_SHADER_TIME_BUDGET,
        }
    }
}

/// A pipeline: its description and, for the app's kernels, the program that runs them.
pub(crate) struct RefPipeline {
    pub(crate) desc: PipelineDesc,
    pub(crate) program: Option<crate::shader::Program>,
}

/// A query heap: 64-bit results, 11 per pipeline-statistics query.
pub(crate) struct RefQueryHeap {
    pub(crate) desc: QueryHeapDesc,
    pub(crate) data: Mutex<Vec<u64>>,
    _memory: Reservation,
}

/// A heap for tile mappings: its size in tiles, held against the budget.
pub(crate) struct RefHeap {
    pub(crate) tiles: u64,
    _memory: Reservation,
}

impl RefQueryHeap {
    pub(crate) fn stride(&self) -> usize {
        if self.desc.ty == QueryHeapType::PipelineStatistics {
            11
        } else {
            1
        }
    }

    pub(crate) fn data(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// State shared by the device, its queues and its command lists.
pub(crate) struct Shared {
    pub(crate) caps: Capabilities,
    pub(crate) resources: Table<RefResource>,
    pub(crate) heaps: Table<RefHeap>,
    pub(crate) query_heaps: Table<RefQueryHeap>,
    pub(crate) root_signatures: Table<RootSignatureDesc>,
    pub(crate) pipelines: Table<RefPipeline>,
    /// A kernel ran past its time budget: the device is removed.
    pub(crate) hung: AtomicBool,
    pub(crate) shader_time_budget: Duration,
    pub(crate) fences: Table<RefFence>,
    pub(crate) epoch: Instant,
    pub(crate) shutdown: Arc<AtomicBool>,
    pub(crate) memory: Arc<Budget>,
    /// Storage of lists the queue is done with, for new lists to record into.
    pub(crate) spare: Arc<crate::recorder::Spare>,
}

impl Shared {
    /// Nanoseconds since the device was created: the timestamp counter.
    pub(crate) fn timestamp(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
}

/// The reference device.
pub struct ReferenceDevice {
    shared: Arc<Shared>,
}

impl ReferenceDevice {
    /// Creates a device with the given capabilities.
    pub fn new(config: ReferenceConfig) -> Self {
        let caps = Capabilities {
            name: "asyncmd reference device".into(),
            enhanced_barriers: config.enhanced_barriers,
            native_async_commands: config.native_async_commands.then_some(ASYNC_COMMANDS_DDI_VERSION),
            uma: config.uma,
            programmable_sample_positions: config.programmable_sample_positions,
            tiled_resources_tier: config.tiled_resources_tier,
            compute_fill_shader: config.compute_fill_shader,
            compute_fills_win: config.compute_fills_win,
            protected_content: config.protected_content,
            resolve_min_max: true,
            timestamp_frequency: 1_000_000_000,
            dedicated_copy_queue: config.dedicated_copy_queue,
            copy_queue_timestamps: true,
            indirect_root_constants: true,
        };
        Self {
            shared: Arc::new(Shared {
                caps,
                resources: Table::default(),
                heaps: Table::default(),
                query_heaps: Table::default(),
                root_signatures: Table::default(),
                pipelines: Table::default(),
                hung: AtomicBool::new(false),
                shader_time_budget: config.shader_time_budget,
                fences: Table::default(),
                epoch: Instant::now(),
                shutdown: Arc::new(AtomicBool::new(false)),
                memory: Budget::new(config.memory_budget),
                spare: Default::default(),
            }),
        }
    }

    fn resource(&self, id: ResourceId, api: &str) -> Result<Arc<RefResource>> {
        self.shared
            .resources
            .get(id.0)
            .ok_or_else(|| Error::invalid_arg(MessageId::ResourceMapInvalid, format!("{api}: unknown resource {id:?}")))
    }

    fn host_range(&self, res: &RefResource, offset: u64, len: usize, api: &str) -> Result<std::ops::Range<usize>> {
        if !res.desc.is_buffer() {
            return Err(Error::invalid_arg(
                MessageId::ResourceMapInvalid,
                format!("{api}: only buffers can be mapped here"),
            ));
        }
        let end = offset.checked_add(len as u64).filter(|&e| e <= res.desc.width).ok_or_else(|| {
            Error::invalid_arg(
                MessageId::ResourceMapInvalid,
                format!("{api}: range {offset}+{len} exceeds the buffer's {} bytes", res.desc.width),
            )
        })?;
        Ok(offset as usize..end as usize)
    }
}

impl Drop for ReferenceDevice {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::Release);
        for f in self.shared.fences.values() {
            f.wake();
        }
    }
}

impl FormatQuery for ReferenceDevice {
    fn format_caps(&self, format: Format) -> FormatCaps {
        crate::formats::format_caps(format)
    }
}

impl DeviceDdi for ReferenceDevice {
    fn is_lost(&self) -> bool {
        self.shared.hung.load(Ordering::Acquire)
    }

    fn lost_reason(&self) -> &'static str {
        "device hung: a kernel ran past the device's shader time budget (DXGI_ERROR_DEVICE_HUNG)"
    }

    fn capabilities(&self) -> &Capabilities {
        &self.shared.caps
    }

    fn create_resource(&self, desc: &ResourceDesc, info: &ResourceCreateInfo) -> Result<ResourceId> {
        if info.reserved && self.shared.caps.tiled_resources_tier == 0 {
            return Err(Error::unsupported("CreateReservedResource: the device has no tiled resources"));
        }
        if info.protected && !self.shared.caps.protected_content {
            return Err(Error::unsupported("CreateResource: the device has no protected content"));
        }
        let id = self.shared.resources.next_id();
        let resource = RefResource::new(ResourceId(id), desc, info.reserved, &self.shared.memory)?;
        self.shared.resources.insert_at(id, resource);
        Ok(ResourceId(id))
    }

    fn destroy_resource(&self, id: ResourceId) {
        self.shared.resources.remove(id.0);
    }

    fn write_buffer(&self, id: ResourceId, offset: u64, data: &[u8]) -> Result<()> {
        let res = self.resource(id, "Map (write)")?;
        let range = self.host_range(&res, offset, data.len(), "Map (write)")?;
        let mut d = res.write();
        d[range].copy_from_slice(data);
        res.scrub_unmapped(&mut d);
        Ok(())
    }

    fn read_buffer(&self, id: ResourceId, offset: u64, out: &mut [u8]) -> Result<()> {
        let res = self.resource(id, "Map (read)")?;
        let range = self.host_range(&res, offset, out.len(), "Map (read)")?;
        out.copy_from_slice(&res.read()[range]);
        Ok(())
    }

    fn read_samples(&self, id: ResourceId, subresource: u32) -> Result<Vec<u8>> {
        const API: &str = "ReadSamples";
        let res = self.resource(id, API)?;
        let (offset, layout) = res.subresource(subresource).ok_or_else(|| {
            Error::invalid_arg(MessageId::InvalidSubresourceIndex, format!("{API}: no subresource {subresource}"))
        })?;
        // The samples of a texel lie next to each other: the subresource is one span.
        let bytes = layout.checked_size().and_then(|s| s.checked_mul(u64::from(res.samples)));
        let range = bytes
            .and_then(|b| Some(usize::try_from(offset).ok()?..usize::try_from(offset.checked_add(b)?).ok()?))
            .ok_or_else(|| Error::out_of_memory(format!("{API}: the subresource does not fit the address space")))?;
        let data = res.read();
        let span = data
            .get(range)
            .ok_or_else(|| Error::fail(MessageId::InvalidSubresourceIndex, format!("{API}: outside the resource")))?;
        let mut out = Vec::new();
        out.try_reserve_exact(span.len()).map_err(|_| Error::out_of_memory(format!("{API}: {} bytes", span.len())))?;
        out.extend_from_slice(span);
        Ok(out)
    }

    fn create_heap(&self, size: u64) -> Result<HeapId> {
        if size == 0 || !size.is_multiple_of(TILE_SIZE_IN_BYTES) {
            return Err(Error::invalid_arg(
                MessageId::CreateResourceInvalidHeap,
                format!("CreateHeap: size {size} is not a non-zero multiple of 64 KiB"),
            ));
        }
        let memory = self.shared.memory.reserve(size, "CreateHeap")?;
        Ok(HeapId(self.shared.heaps.insert(RefHeap { tiles: size / TILE_SIZE_IN_BYTES, _memory: memory })))
    }

    fn destroy_heap(&self, id: HeapId) {
        self.shared.heaps.remove(id.0);
    }

    fn update_tile_mappings(&self, resource: ResourceId, mappings: &[TileMapping]) -> Result<()> {
        crate::tiles::update_tile_mappings(&self.shared, resource, mappings)
    }

    fn create_query_heap(&self, desc: &QueryHeapDesc) -> Result<QueryHeapId> {
        let per = if desc.ty == QueryHeapType::PipelineStatistics { 11 } else { 1 };
        let len = (desc.count as usize).checked_mul(per).filter(|_| desc.count > 0).ok_or_else(|| {
            Error::invalid_arg(MessageId::CreateQueryHeapInvalidParameters, "CreateQueryHeap: count must be non-zero")
        })?;
        let bytes = (len as u64).saturating_mul(8);
        let memory = self.shared.memory.reserve(bytes, "CreateQueryHeap")?;
        let data = Mutex::new(zeroed(len, "CreateQueryHeap")?);
        Ok(QueryHeapId(self.shared.query_heaps.insert(RefQueryHeap { desc: *desc, data, _memory: memory })))
    }

    fn destroy_query_heap(&self, id: QueryHeapId) {
        self.shared.query_heaps.remove(id.0);
    }

    fn create_root_signature(&self, desc: &RootSignatureDesc) -> Result<RootSignatureId> {
        Ok(RootSignatureId(self.shared.root_signatures.insert(desc.clone())))
    }

    fn destroy_root_signature(&self, id: RootSignatureId) {
        self.shared.root_signatures.remove(id.0);
    }

    fn create_pipeline(&self, desc: &PipelineDesc) -> Result<PipelineId> {
        let root = match desc {
            PipelineDesc::Graphics(g) => g.root_signature,
            PipelineDesc::Compute(c) => c.root_signature,
        };
        let Some(signature) = self.shared.root_signatures.get(root.0) else {
            return Err(Error::invalid_arg(
                MessageId::CreatePipelineStateInvalid,
                "CreatePipelineState: unknown root signature",
            ));
        };
        let program = match desc {
            PipelineDesc::Compute(asyncmd_ddi::ComputePipelineDesc { cs: ComputeShader::App(app), .. }) => {
                Some(crate::shader::Program::compile(app, &signature)?)
            }
            _ => None,
        };
        Ok(PipelineId(self.shared.pipelines.insert(RefPipeline { desc: desc.clone(), program })))
    }

    fn destroy_pipeline(&self, id: PipelineId) {
        self.shared.pipelines.remove(id.0);
    }

    fn create_fence(&self, initial: u64) -> Result<FenceId> {
        Ok(FenceId(self.shared.fences.insert(RefFence::new(initial, self.shared.shutdown.clone()))))
    }

    fn destroy_fence(&self, id: FenceId) {
        self.shared.fences.remove(id.0);
    }

    fn fence_value(&self, id: FenceId) -> u64 {
        self.shared.fences.get(id.0).map_or(0, |f| f.value())
    }

    fn signal_fence(&self, id: FenceId, value: u64) -> Result<()> {
        let f = self
            .shared
            .fences
            .get(id.0)
            .ok_or_else(|| Error::invalid_arg(MessageId::FenceInvalidOperation, "Signal: unknown fence"))?;
        f.signal(value);
        Ok(())
    }

    fn wait_fence(&self, id: FenceId, value: u64, timeout: Duration) -> bool {
        self.shared.fences.get(id.0).is_some_and(|f| f.wait(value, Some(timeout), &AtomicBool::new(false)))
    }

    fn create_queue(&self, ty: CommandListType) -> Result<Box<dyn QueueDdi>> {
        if ty == CommandListType::Bundle {
            return Err(Error::invalid_arg(
                MessageId::ExecuteCommandListsInvalid,
                "CreateCommandQueue: no bundle queues",
            ));
        }
        Ok(Box::new(RefQueue::new(self.shared.clone(), ty)?))
    }

    fn create_command_list(&self, ty: CommandListType) -> Result<Box<dyn CommandListDdi>> {
        Ok(Box::new(RefCommandList::new(self.shared.clone(), ty)))
    }
}

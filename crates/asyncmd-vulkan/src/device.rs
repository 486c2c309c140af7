//! The Vulkan device: enumeration, capabilities and the [`DeviceDdi`] implementation.

use crate::command::VkCommandList;
use crate::conv::vk_format;
use crate::core::{Core, ThreadExit};
use crate::instance::{Instance, Validation, ValidationLog};
use crate::memory::VkResource;
use crate::physical::{adapter_info, vulkan13_devices, AdapterInfo};
use crate::pipeline::{VkPipeline, VkRootSignature};
use crate::queue::{VkFence, VkQueue};
use ash::vk;
use asyncmd_ddi::*;
use asyncmd_types::{CommandListType, Error, Format, MessageId, QueryHeapDesc, QueryHeapType, ResourceDesc, Result};
use std::sync::Arc;
use std::time::Duration;

/// When `CopyBufferRegion` between device-local buffers runs as a compute shader instead of
/// `vkCmdCopyBuffer`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComputeCopies {
    /// Measured once per process and device: compute copies from the smallest size at which
    /// they beat `vkCmdCopyBuffer`; never on CPU devices.
    #[default]
    Auto,
    /// Always, for 16-byte-aligned copies (for tests of the compute path).
    Always,
    /// Never.
    Never,
    /// From this many bytes, on any device: a crossover the app has measured itself, or the
    /// size rules of a GPU (which single parts and which runs take transfer commands) on a
    /// device where `Auto` finds none, for tests.
    From(u64),
}

/// Which threads make the device's driver calls (`threads.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DriverThreads {
    /// The app's own threads where the driver is one of Mesa's, whose threads may end while
    /// others call it; the app's threads for every call but those that leave them per-thread
    /// driver state on NVIDIA's driver 580, which deadlocks when a thread with that state exits
    /// (`docs/decisions.md`); the device's pooled threads on every other driver.
    #[default]
    Auto,
    /// The pooled threads on every driver (for tests of that path on any driver).
    Pooled,
    /// The app's threads for every call but pipeline creation and the instance's creation and
    /// destruction, which the pooled threads make: NVIDIA's rule, on any driver (for tests of
    /// that path on any driver).
    AllButStateful,
}

/// Options for opening a Vulkan device.
#[derive(Clone, Copy, Debug)]
pub struct VulkanOptions {
    /// The Khronos validation layer.
    pub validation: Validation,
    /// The compute copy path.
    pub compute_copies: ComputeCopies,
    /// Report the native Async Commands DDI (the default); off, the runtime lowers the Async
    /// Commands through its fallback, as on a device without them.
    pub native_async_commands: bool,
    /// How long an invocation of an app kernel may run on a device without a GPU timeout (a
    /// CPU device: lavapipe, SwiftShader) before the device is removed with "device hung"
    /// (`VulkanDevice::shader_time_budget`). A GPU's driver applies its own.
    pub shader_time_budget: std::time::Duration,
    /// Which threads call the driver.
    pub driver_threads: DriverThreads,
}

impl Default for VulkanOptions {
    fn default() -> Self {
        Self {
            validation: Validation::default(),
            compute_copies: ComputeCopies::default(),
            native_async_commands: true,
            shader_time_budget: std::time::Duration::from_secs(2),
            driver_threads: DriverThreads::Auto,
        }
    }
}

/// A query heap: a query pool.
pub(crate) struct VkQueryHeap {
    core: Arc<Core>,
    pub(crate) pool: vk::QueryPool,
    pub(crate) precise: vk::QueryControlFlags,
}

impl Drop for VkQueryHeap {
    fn drop(&mut self) {
        // Where the device calls its driver (`Core::on_driver`).
        self.core.on_driver(|| {
            // SAFETY: lists that use the pool hold an Arc of it until the GPU is done.
            unsafe { self.core.device.destroy_query_pool(self.pool, None) };
        })
    }
}

/// Fences by id, shared with the queues.
pub(crate) type Fences = Arc<Table<VkFence>>;

/// The device's objects by id.
pub(crate) struct Tables {
    pub(crate) resources: Table<VkResource>,
    pub(crate) query_heaps: Table<VkQueryHeap>,
    pub(crate) fences: Fences,
    pub(crate) root_signatures: Table<VkRootSignature>,
    pub(crate) pipelines: Table<VkPipeline>,
    pub(crate) heaps: Table<crate::sparse::VkHeap>,
}

/// A device on a Vulkan 1.3 driver.
pub struct VulkanDevice {
    core: Arc<Core>,
    tables: Arc<Tables>,
    /// Upload and scratch chunks of finished recordings, for the next lists.
    spare: Arc<crate::command::SpareChunks>,
    caps: Capabilities,
    info: AdapterInfo,
    /// Every format's support, asked once (recording asks it per command).
    formats: std::collections::HashMap<Format, FormatCaps>,
}

impl VulkanDevice {
    /// The Vulkan 1.3 devices the loader offers. Fails with `Unsupported` where there is no
    /// loader or instance.
    pub fn enumerate() -> Result<Vec<AdapterInfo>> {
        // An instance's creation leaves its thread the driver's state (`ThreadExit`).
        crate::threads::on_pooled(|| {
            let instance = Instance::new(Validation::Off)?;
            Ok(vulkan13_devices(&instance)?.iter().enumerate().map(|(i, (_, p))| adapter_info(i, p)).collect())
        })
    }

    /// Opens Vulkan device `index` (see [`VulkanDevice::enumerate`]).
    pub fn open(index: usize, options: VulkanOptions) -> Result<Self> {
        // An instance's creation and the pipelines made with the device leave their thread
        // the driver's state (`ThreadExit`).
        crate::threads::on_pooled(|| Self::open_here(index, options))
    }

    fn open_here(index: usize, options: VulkanOptions) -> Result<Self> {
        let instance = Arc::new(Instance::new(options.validation)?);
        let devices = vulkan13_devices(&instance)?;
        let (physical, props) = *devices.get(index).ok_or_else(|| {
            Error::unsupported(format!("Vulkan: no Vulkan 1.3 device {index} ({} found)", devices.len()))
        })?;
        let info = adapter_info(index, &props);
        let mut core = Core::new(instance, physical)?;
        core.shader_time_budget = options.shader_time_budget;
        let rule = match options.driver_threads {
            DriverThreads::Auto => core.features.thread_exit,
            DriverThreads::Pooled => ThreadExit::NoCall,
            DriverThreads::AllButStateful => ThreadExit::StatelessCalls,
        };
        core.calls_here = rule != ThreadExit::NoCall;
        core.compiles_here = rule == ThreadExit::AnyCall;
        let meta = crate::meta::Meta::new(&core)?;
        let _ = core.meta.set(meta);
        let core = Arc::new(core);
        let threshold = match options.compute_copies {
            ComputeCopies::Never => None,
            ComputeCopies::Always => Some(0),
            ComputeCopies::From(bytes) => Some(bytes),
            ComputeCopies::Auto => crate::copy_speed::threshold(&core, &props)?,
        };
        let _ = core.compute_copy_min.set(threshold);
        let caps = Capabilities {
            name: format!("{} (Vulkan {})", info.name, info.api_version),
            enhanced_barriers: true,
            native_async_commands: options.native_async_commands.then_some(ASYNC_COMMANDS_DDI_VERSION),
            uma: info.uma,
            programmable_sample_positions: core.features.sample_locations,
            tiled_resources_tier: if core.features.sparse_tier2 { 2 } else { 0 },
            compute_fill_shader: true,
            compute_fills_win: core.compute_copies(),
            protected_content: false,
            // Colour MIN/MAX resolves need a shader the device does not have yet.
            // Colour MIN/MAX resolves are the image kernels' (Vulkan's resolves have none).
            resolve_min_max: core.features.image_kernels,
            timestamp_frequency: (1e9 / props.limits.timestamp_period.max(f32::MIN_POSITIVE) as f64) as u64,
            dedicated_copy_queue: core.families.copy != core.families.direct
                && core.families.copy != core.families.compute,
            // A transfer-only family may write timestamps but cannot reset query pools or
            // copy their results (`VUID-vkCmdResetQueryPool-commandBuffer-cmdpool`, seen on
            // the H200's DMA family): copy lists time only where they share a family with
            // compute or graphics.
            copy_queue_timestamps: core.families.copy == core.families.direct
                || core.families.copy == core.families.compute,
            // Commands that set root constants run the kernel's form that reads them from
            // memory (`command/indirect.rs`).
            indirect_root_constants: true,
        };
        let tables = Arc::new(Tables {
            resources: Table::default(),
            query_heaps: Table::default(),
            fences: Arc::new(Table::default()),
            root_signatures: Table::default(),
            pipelines: Table::default(),
            heaps: Table::default(),
        });
        let formats = Format::ALL.iter().map(|&f| (f, query_format_caps(&core, f))).collect();
        Ok(Self { core, tables, spare: Default::default(), caps, info, formats })
    }

    /// What the loader says of this device.
    pub fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// The validation layer's error messages so far (empty without the layer).
    pub fn validation_log(&self) -> ValidationLog {
        self.core.instance.log.clone()
    }

    /// The smallest `CopyBufferRegion` that runs as a compute copy, if any.
    pub fn compute_copy_threshold(&self) -> Option<u64> {
        self.core.compute_copy_min.get().copied().flatten()
    }

    /// GPU nanoseconds of one `vkCmdCopyBuffer` and one compute copy of `size` bytes between
    /// device-local buffers (best of three): the measurement behind [`ComputeCopies::Auto`].
    pub fn measure_copy_paths(&self, size: u64) -> Result<(u64, u64)> {
        self.core.on_driver(|| crate::copy_speed::measure(&self.core, size))
    }

    /// The time an invocation of an app kernel may run where this device ends kernels itself
    /// (a CPU device, which has no GPU timeout); `None` where the GPU's driver does.
    pub fn shader_time_budget(&self) -> Option<std::time::Duration> {
        self.core.enforces_time_budget().then_some(self.core.shader_time_budget)
    }

    /// Whether the validation layer is on.
    pub fn validation_enabled(&self) -> bool {
        self.core.instance.validation
    }

    /// How many command pools the device has made. Lists take the pools of retired lists, so
    /// this stays at the most lists recording or in flight at once, however often they reset.
    pub fn command_pools_created(&self) -> u64 {
        self.core.list_pools.created()
    }

    /// How many 64 KiB chunks of upload and scratch memory lists have made (for root constants
    /// past the push-constant bytes, indirect calls' constants and group counts, fill
    /// patterns, the buffer kernels' tables). Finished recordings give theirs back for the next
    /// lists, so this stays at what the lists recording or in flight at once use.
    pub fn scratch_chunks_created(&self) -> u64 {
        self.spare.created()
    }

    /// How many driver calls the calling thread has handed to the device's driver threads and
    /// waited for, on every Vulkan device of the process (`threads.rs` says why no app thread
    /// calls the driver itself). Each costs a wake-up of another thread: tests and benchmarks
    /// count them to keep the app's path short.
    pub fn driver_handovers() -> u64 {
        crate::threads::handovers()
    }

    /// How many queue operations (`ExecuteCommandLists`, `Signal`, `Wait`) the calling thread
    /// has handed to a queue's thread instead of submitting them itself, on every Vulkan device
    /// of the process. Where the device calls its driver on the app's threads, a queue submits
    /// on the caller's thread while its own thread has nothing to do; a queue-side wait for a
    /// signal not yet submitted, and everything after it, go to the thread, which holds them.
    pub fn queue_jobs_sent() -> u64 {
        crate::threads::queue_jobs_sent()
    }

    /// Whether this process's driver threads poll before they sleep (machines of 8 cores or
    /// more, or as [`crate::POLLING_ENV`] says): hand-overs, CPU waits and queue threads.
    pub fn driver_threads_poll() -> bool {
        crate::threads::polling()
    }

    /// Whether this device makes its driver calls on the app's threads, handing nothing over
    /// (`DriverThreads`): all of them, or all but the pipelines' creation
    /// ([`VulkanDevice::compiles_here`]).
    pub fn calls_driver_here(&self) -> bool {
        self.core.calls_here
    }

    /// Whether this device also makes pipelines on the app's threads: where no call of its
    /// driver leaves the calling thread per-thread state (Mesa's drivers).
    pub fn compiles_here(&self) -> bool {
        self.core.compiles_here
    }

    fn resource(&self, id: ResourceId, api: &str) -> Result<Arc<VkResource>> {
        self.tables
            .resources
            .get(id.0)
            .ok_or_else(|| Error::invalid_arg(MessageId::ResourceMapInvalid, format!("{api}: unknown resource {id:?}")))
    }
}

impl Drop for VulkanDevice {
    fn drop(&mut self) {
        // Recordings dropped on pooled threads hold the core: the device's last handle waits
        // for them, so that the device is not destroyed after the app has moved on (`drops.rs`).
        if !self.core.drops.close_and_wait(crate::core::DESTROY_TIMEOUT) {
            tracing::error!("a recording's drop did not end in {:?}", crate::core::DESTROY_TIMEOUT);
        }
    }
}

/// What the driver supports of `format`, in D3D12 terms.
fn query_format_caps(core: &Core, format: Format) -> FormatCaps {
    let Some(vf) = vk_format(format) else {
        return FormatCaps {
            support: if format == Format::Unknown { FormatSupport::BUFFER } else { FormatSupport::empty() },
            sample_counts: 1,
        };
    };
    // SAFETY: a format-properties query on this device's physical device.
    let props = unsafe { core.instance.instance.get_physical_device_format_properties(core.physical, vf) };
    let t = props.optimal_tiling_features;
    let mut support = FormatSupport::empty();
    if t.contains(vk::FormatFeatureFlags::TRANSFER_DST) {
        support |= FormatSupport::TEXTURE;
    }
    // A8 is stored as R8: an attachment would write alpha to red.
    if t.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT) && !format.is_typeless() && format != Format::A8Unorm {
        support |= FormatSupport::RENDER_TARGET | FormatSupport::MULTISAMPLE_RENDER_TARGET;
        if !matches!(format.info().class, asyncmd_types::ComponentClass::Uint | asyncmd_types::ComponentClass::Sint) {
            support |= FormatSupport::MULTISAMPLE_RESOLVE;
        }
    }
    if t.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT) && format.is_depth_stencil() {
        support |= FormatSupport::DEPTH_STENCIL | FormatSupport::MULTISAMPLE_RENDER_TARGET;
    }
    if t.contains(vk::FormatFeatureFlags::STORAGE_IMAGE) {
        support |= FormatSupport::UNORDERED_ACCESS;
    }
    if props.buffer_features.contains(vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER)
        && !format.is_typeless()
        && !format.is_depth_stencil()
    {
        support |= FormatSupport::BUFFER;
    }
    let limits = &core.props.limits;
    let counts = if format.is_depth_stencil() {
        limits.framebuffer_depth_sample_counts
            & limits.framebuffer_stencil_sample_counts.max(limits.framebuffer_depth_sample_counts)
    } else if matches!(format.info().class, asyncmd_types::ComponentClass::Uint | asyncmd_types::ComponentClass::Sint) {
        limits.sampled_image_integer_sample_counts & limits.framebuffer_color_sample_counts
    } else {
        limits.framebuffer_color_sample_counts
    };
    let sample_counts = if support.intersects(FormatSupport::RENDER_TARGET | FormatSupport::DEPTH_STENCIL) {
        counts.as_raw()
    } else {
        1
    };
    FormatCaps { support, sample_counts }
}

impl FormatQuery for VulkanDevice {
    fn format_caps(&self, format: Format) -> FormatCaps {
        self.formats.get(&format).copied().unwrap_or(FormatCaps { support: FormatSupport::empty(), sample_counts: 1 })
    }
}

/// The most queries one query heap holds on the Vulkan device (64 MiB of pipeline statistics).
const MAX_QUERIES: u32 = 1 << 20;

impl DeviceDdi for VulkanDevice {
    fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    fn is_lost(&self) -> bool {
        self.core.is_lost()
    }

    fn lost_reason(&self) -> &'static str {
        if self.core.hung() {
            "device hung: a kernel ran past the device's shader time budget (DXGI_ERROR_DEVICE_HUNG)"
        } else {
            "a GPU fault or reset"
        }
    }

    fn create_resource(&self, desc: &ResourceDesc, info: &ResourceCreateInfo) -> Result<ResourceId> {
        self.core.on_driver(|| {
            if info.reserved {
                if !self.core.features.sparse_tier2 {
                    return Err(Error::unsupported(
                        "CreateReservedResource: the Vulkan device has no tier 2 sparse residency",
                    ));
                }
                let id = self.tables.resources.next_id();
                let res = VkResource::new_reserved(&self.core, desc)?;
                self.tables.resources.insert_at(id, res);
                return Ok(ResourceId(id));
            }
            if info.protected {
                return Err(Error::unsupported("CreateResource: the Vulkan device has no protected content"));
            }
            let id = self.tables.resources.next_id();
            let res = VkResource::new(&self.core, desc, info.heap)?;
            self.tables.resources.insert_at(id, res);
            Ok(ResourceId(id))
        })
    }

    fn destroy_resource(&self, id: ResourceId) {
        self.core.on_driver(|| {
            self.tables.resources.remove(id.0);
        })
    }

    fn write_buffer(&self, id: ResourceId, offset: u64, data: &[u8]) -> Result<()> {
        self.resource(id, "Map (write)")?.host_access(offset, data.len(), |bytes| bytes.copy_from_slice(data))
    }

    fn read_buffer(&self, id: ResourceId, offset: u64, out: &mut [u8]) -> Result<()> {
        self.resource(id, "Map (read)")?.host_access(offset, out.len(), |bytes| out.copy_from_slice(bytes))
    }

    fn read_samples(&self, id: ResourceId, subresource: u32) -> Result<Vec<u8>> {
        let res = self.resource(id, "ReadSamples")?;
        self.core.on_driver(|| crate::meta::read_samples(&self.core, &res, subresource))
    }

    fn create_heap(&self, size: u64) -> Result<HeapId> {
        self.core.on_driver(|| {
            if !self.core.features.sparse_tier2 {
                return Err(Error::unsupported(
                    "CreateHeap: heaps serve tiled resources, which this Vulkan device lacks",
                ));
            }
            Ok(HeapId(self.tables.heaps.insert(crate::sparse::VkHeap::new(&self.core, size)?)))
        })
    }

    fn destroy_heap(&self, id: HeapId) {
        self.core.on_driver(|| {
            self.tables.heaps.remove(id.0);
        })
    }

    fn update_tile_mappings(&self, resource: ResourceId, mappings: &[TileMapping]) -> Result<()> {
        self.core.on_driver(|| {
            let res = self.resource(resource, "UpdateTileMappings")?;
            if !res.reserved {
                return Err(Error::invalid_arg(
                    MessageId::CopyTilesInvalidParameters,
                    "UpdateTileMappings: the resource is not reserved",
                ));
            }
            crate::sparse::update_tile_mappings(&self.core, &res, &self.tables.heaps, mappings)
        })
    }

    fn create_query_heap(&self, desc: &QueryHeapDesc) -> Result<QueryHeapId> {
        self.core.on_driver(|| {
            let ty = match desc.ty {
                QueryHeapType::Occlusion => vk::QueryType::OCCLUSION,
                QueryHeapType::Timestamp | QueryHeapType::CopyQueueTimestamp => vk::QueryType::TIMESTAMP,
                QueryHeapType::PipelineStatistics if self.core.features.pipeline_statistics => {
                    vk::QueryType::PIPELINE_STATISTICS
                }
                QueryHeapType::PipelineStatistics => {
                    return Err(Error::unsupported(
                        "CreateQueryHeap: the Vulkan device has no pipeline statistics queries",
                    ))
                }
            };
            if desc.count > MAX_QUERIES {
                // Drivers and layers allocate host memory per query, and some throw (a C++
                // exception cannot cross into Rust) instead of failing: refuse as a GPU out of memory.
                return Err(Error::out_of_memory(format!(
                    "CreateQueryHeap: {} queries exceed the Vulkan device's {MAX_QUERIES}",
                    desc.count
                )));
            }
            // All eleven counters, in the order D3D12 lays them out.
            let stats = vk::QueryPipelineStatisticFlags::from_raw(0x7FF);
            let info = vk::QueryPoolCreateInfo::default().query_type(ty).query_count(desc.count).pipeline_statistics(
                if ty == vk::QueryType::PIPELINE_STATISTICS { stats } else { vk::QueryPipelineStatisticFlags::empty() },
            );
            // SAFETY: valid create info.
            let pool = unsafe { self.core.device.create_query_pool(&info, None) }
                .map_err(|e| Error::out_of_memory(format!("CreateQueryHeap: {e}")))?;
            let precise = if self.core.features.occlusion_precise {
                vk::QueryControlFlags::PRECISE
            } else {
                vk::QueryControlFlags::empty()
            };
            let heap = VkQueryHeap { core: self.core.clone(), pool, precise };
            // Every slot gets a result now, so that resolving a slot no list has written yet
            // returns a value instead of waiting for ever (its value is undefined in D3D12).
            self.core.one_time(|cb| {
                // SAFETY: recording into the one-time command buffer; the pool is live, and each
                // slot is reset before it is written.
                unsafe {
                    let d = &self.core.device;
                    d.cmd_reset_query_pool(cb, pool, 0, desc.count);
                    for slot in 0..desc.count {
                        if ty == vk::QueryType::TIMESTAMP {
                            d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, pool, slot);
                        } else {
                            d.cmd_begin_query(cb, pool, slot, vk::QueryControlFlags::empty());
                            d.cmd_end_query(cb, pool, slot);
                        }
                    }
                }
            })?;
            Ok(QueryHeapId(self.tables.query_heaps.insert(heap)))
        })
    }

    fn destroy_query_heap(&self, id: QueryHeapId) {
        self.core.on_driver(|| {
            self.tables.query_heaps.remove(id.0);
        })
    }

    fn create_root_signature(&self, desc: &RootSignatureDesc) -> Result<RootSignatureId> {
        self.core.on_driver(|| {
            Ok(RootSignatureId(self.tables.root_signatures.insert(VkRootSignature::new(&self.core, desc)?)))
        })
    }

    fn destroy_root_signature(&self, id: RootSignatureId) {
        // Pipelines made with it and recorded lists hold it; its layouts go with the last.
        self.core.on_driver(|| {
            self.tables.root_signatures.remove(id.0);
        })
    }

    fn create_pipeline(&self, desc: &PipelineDesc) -> Result<PipelineId> {
        self.core.on_compiler(|| {
            let root = match desc {
                PipelineDesc::Graphics(g) => g.root_signature,
                PipelineDesc::Compute(c) => c.root_signature,
            };
            let root = self.tables.root_signatures.get(root.0).ok_or_else(|| {
                Error::invalid_arg(MessageId::CreatePipelineStateInvalid, "CreatePipelineState: unknown root signature")
            })?;
            Ok(PipelineId(self.tables.pipelines.insert(VkPipeline::new(&self.core, desc, root)?)))
        })
    }

    fn destroy_pipeline(&self, id: PipelineId) {
        self.core.on_driver(|| {
            self.tables.pipelines.remove(id.0);
        })
    }

    fn create_fence(&self, initial: u64) -> Result<FenceId> {
        self.core.on_driver(|| Ok(FenceId(self.tables.fences.insert(VkFence::new(&self.core, initial)?))))
    }

    fn destroy_fence(&self, id: FenceId) {
        self.core.on_driver(|| {
            self.tables.fences.remove(id.0);
        })
    }

    fn fence_value(&self, id: FenceId) -> u64 {
        self.core.on_driver(|| self.tables.fences.get(id.0).map_or(0, |f| f.value()))
    }

    fn signal_fence(&self, id: FenceId, value: u64) -> Result<()> {
        self.core.on_driver(|| {
            self.tables
                .fences
                .get(id.0)
                .ok_or_else(|| Error::invalid_arg(MessageId::FenceInvalidOperation, "Signal: unknown fence"))?
                .signal(value)
        })
    }

    fn wait_fence(&self, id: FenceId, value: u64, timeout: Duration) -> bool {
        self.core.on_driver_waiting(|| self.tables.fences.get(id.0).is_some_and(|f| f.wait(value, timeout)))
    }

    fn create_queue(&self, ty: CommandListType) -> Result<Box<dyn QueueDdi>> {
        if ty == CommandListType::Bundle {
            return Err(Error::invalid_arg(
                MessageId::ExecuteCommandListsInvalid,
                "CreateCommandQueue: no bundle queues",
            ));
        }
        Ok(Box::new(self.core.on_driver(|| VkQueue::new(&self.core, ty, self.tables.fences.clone()))?))
    }

    fn create_command_list(&self, ty: CommandListType) -> Result<Box<dyn CommandListDdi>> {
        Ok(Box::new(self.core.on_driver(|| VkCommandList::new(&self.core, &self.tables, &self.spare, ty))?))
    }
}

//! The device: creates resources, queues, fences, allocators, command lists, pipelines, views.

use crate::allocator::CommandAllocator;
use crate::command_list::CommandList;
use crate::debug::InfoQueue;
use crate::descriptor::{CpuDescriptorHandle, DescriptorHeap, DescriptorHeapType, ViewDescriptor};
use crate::err;
use crate::factory::StartupOptions;
use crate::fallback;
use crate::fallback::pools::TileKey;
use crate::fence::Fence;
use crate::objects::{Heap, PipelineState, QueryHeap, RootSignature};
use crate::queue::CommandQueue;
use crate::resource::Resource;
use asyncmd_ddi::{Capabilities, DeviceDdi, FormatCaps, PipelineDesc, RootSignatureDesc};
use asyncmd_types::{
    AsyncCommandsImpl, BarrierLayout, CommandListType, CopyableFootprints, DepthStencilViewDesc, Error, Format,
    HeapType, MessageId, QueryHeapDesc, RenderTargetViewDesc, ResourceDesc, Result,
};
use std::sync::Arc;

/// State shared by a device and every object it made.
pub(crate) struct DeviceShared {
    pub(crate) ddi: Arc<dyn DeviceDdi>,
    pub(crate) options: StartupOptions,
    pub(crate) async_impl: AsyncCommandsImpl,
    pub(crate) info_queue: InfoQueue,
    /// What the device keeps for its fallback: pools, the fill pipeline, the clear pipelines.
    pub(crate) fallback: fallback::Resources,
    /// Root signatures by id, while the app holds them (pipeline descriptions name them by id).
    pub(crate) root_signatures: std::sync::Mutex<
        std::collections::HashMap<asyncmd_ddi::RootSignatureId, std::sync::Weak<crate::objects::RootSignatureShared>>,
    >,
    /// Set by `RemoveDevice`.
    removed: std::sync::atomic::AtomicBool,
    /// Resources created and not yet destroyed (the app's and the runtime's own).
    pub(crate) live_resources: std::sync::atomic::AtomicUsize,
    /// What the app's `Device` handles share, while one lives.
    app: std::sync::Mutex<std::sync::Weak<AppHandle>>,
    /// The debug layer's semantic checks are on (fast-semantics warnings).
    pub(crate) debug_layer: std::sync::atomic::AtomicBool,
}

/// What the app's handles on a device share. When the last goes, the device empties the caches
/// of objects that hold it (the fallback's pools of buffers, each holding its device), so that
/// it is freed once the app's other objects are; until then it pools nothing more.
pub(crate) struct AppHandle(std::sync::Weak<DeviceShared>);

impl Drop for AppHandle {
    fn drop(&mut self) {
        if let Some(device) = self.0.upgrade() {
            // Under the lock `give_back` pools under: nothing is pooled after this.
            let _app = device.app.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            device.fallback.pools.clear();
        }
    }
}

impl DeviceShared {
    pub(crate) fn new(ddi: Arc<dyn DeviceDdi>, options: StartupOptions, async_impl: AsyncCommandsImpl) -> Self {
        Self {
            ddi,
            options,
            async_impl,
            info_queue: InfoQueue::default(),
            fallback: Default::default(),
            root_signatures: Default::default(),
            removed: Default::default(),
            live_resources: Default::default(),
            app: Default::default(),
            debug_layer: Default::default(),
        }
    }

    /// Whether the debug layer's semantic checks are on.
    pub(crate) fn debug_layer(&self) -> bool {
        self.debug_layer.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A warning of the debug layer.
    pub(crate) fn warn(&self, id: MessageId, text: String) {
        self.info_queue.push(asyncmd_types::MessageSeverity::Warning, id, text);
    }

    /// Gives the fallback's buffers of a reset allocator to the pools while the app holds a
    /// handle on the device (pooled buffers hold the device); releases them otherwise.
    pub(crate) fn give_back(&self, owned: Vec<Resource>) {
        let app = self.app.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if app.strong_count() > 0 {
            self.fallback.pools.give_back(owned);
        } else {
            drop(app);
            drop(owned);
        }
    }

    /// Keeps an allocator's pattern tiles for later recordings while the app holds a handle
    /// on the device (kept tiles hold it), as [`DeviceShared::give_back`] does.
    pub(crate) fn keep_tiles(&self, tiles: impl IntoIterator<Item = ((TileKey, bool), Resource)>) {
        let app = self.app.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if app.strong_count() > 0 {
            self.fallback.pools.keep_tiles(tiles);
        }
    }

    /// `GetDeviceRemovedReason` for `api`: the error every call that needs the GPU returns
    /// once the app removed the device or the driver lost it.
    pub(crate) fn removed_reason(&self, api: &str) -> Result<()> {
        if self.removed.load(std::sync::atomic::Ordering::Acquire) {
            Err(err::device_removed(api, "the device was removed by RemoveDevice"))
        } else if self.ddi.is_lost() {
            Err(err::device_removed(api, format!("the driver lost the device ({})", self.ddi.lost_reason())))
        } else {
            Ok(())
        }
    }

    /// Reports an error to the info queue and returns it.
    pub(crate) fn fail<T>(&self, error: Error) -> Result<T> {
        self.info_queue.report(&error);
        Err(error)
    }
}

/// The fallback makes its objects through the device, as the app does.
impl fallback::Factory for Arc<DeviceShared> {
    fn create_committed_resource(
        &self,
        heap: HeapType,
        desc: &ResourceDesc,
        layout: BarrierLayout,
    ) -> Result<Resource> {
        Device::from_shared(self.clone()).create_committed_resource(heap, desc, layout)
    }

    fn create_root_signature(&self, desc: &RootSignatureDesc) -> Result<RootSignature> {
        Device::from_shared(self.clone()).create_root_signature(desc)
    }

    fn create_pipeline_state(&self, desc: &PipelineDesc) -> Result<PipelineState> {
        Device::from_shared(self.clone()).create_pipeline_state(desc)
    }

    fn format_caps(&self, format: Format) -> FormatCaps {
        self.ddi.format_caps(format)
    }
}

/// `D3D12_DEVICE_CONFIGURATION_DESC`: how the device was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceConfiguration {
    /// `D3D12_DEVICE_FLAG_ASYNC_COMMANDS_FALLBACK_ENABLED`: the app opted in to the fallback.
    pub async_commands_fallback_enabled: bool,
    /// The developer's forced setting in effect at creation.
    pub async_commands_force_fallback: bool,
    /// The fallback clears with the closest value a legacy view clear takes, as the D3D12
    /// runtime's does (`AsyncCommandsFallback::set_closest_clear_values`).
    pub async_commands_closest_clear_values: bool,
}

/// A device (`ID3D12Device`). Cloning shares it.
#[derive(Clone)]
pub struct Device {
    pub(crate) shared: Arc<DeviceShared>,
    /// The app's handles share this; the runtime's own handles have none.
    _app: Option<Arc<AppHandle>>,
}

impl Device {
    /// A handle for the runtime's own use: it does not count as the app's.
    pub(crate) fn from_shared(shared: Arc<DeviceShared>) -> Self {
        Self { shared, _app: None }
    }

    /// A handle for the app (what the factory returns).
    pub(crate) fn for_app(shared: Arc<DeviceShared>) -> Self {
        let handle = {
            let mut app = shared.app.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            app.upgrade().unwrap_or_else(|| {
                let h = Arc::new(AppHandle(Arc::downgrade(&shared)));
                *app = Arc::downgrade(&h);
                h
            })
        };
        Self { shared, _app: Some(handle) }
    }

    /// `CheckFeatureSupport(D3D12_FEATURE_ASYNC_COMMANDS)`: the implementation chosen at creation.
    pub fn async_commands_impl(&self) -> AsyncCommandsImpl {
        self.shared.async_impl
    }

    /// The device's creation settings.
    pub fn configuration(&self) -> DeviceConfiguration {
        DeviceConfiguration {
            async_commands_fallback_enabled: self.shared.options.async_commands_fallback_enabled,
            async_commands_force_fallback: self.shared.options.async_commands_force_fallback,
            async_commands_closest_clear_values: self.shared.options.async_commands_closest_clear_values,
        }
    }

    /// The driver's capabilities.
    pub fn capabilities(&self) -> &Capabilities {
        self.shared.ddi.capabilities()
    }

    /// `CheckFeatureSupport(D3D12_FEATURE_FORMAT_SUPPORT)` and the multisample counts.
    pub fn format_support(&self, format: Format) -> FormatCaps {
        self.shared.ddi.format_caps(format)
    }

    /// The debug layer's message queue.
    pub fn info_queue(&self) -> &InfoQueue {
        &self.shared.info_queue
    }

    /// Turns the debug layer's semantic checks on or off (off by default): with them on,
    /// command buffers with fast semantics report, as warnings with their own message ids,
    /// each missing barrier, each object dropped while pending work uses it and each CPU read
    /// of a resource pending GPU writes. The API's validation runs either way. Lists recording
    /// when it changes keep the setting they began with.
    pub fn set_debug_layer(&self, enable: bool) {
        self.shared.debug_layer.store(enable, std::sync::atomic::Ordering::Relaxed);
    }

    /// Bytes of fallback buffers the device keeps for reuse (at most
    /// [`POOL_BUDGET`](crate::fallback::pools::POOL_BUDGET)).
    pub fn pooled_bytes(&self) -> u64 {
        self.shared.fallback.pools.kept_bytes()
    }

    /// Clear pipelines the device keeps for bound-clear draws (at most
    /// [`CLEAR_PSO_CACHE_SIZE`](crate::fallback::pso_cache::CLEAR_PSO_CACHE_SIZE)).
    pub fn cached_clear_pipelines(&self) -> usize {
        self.shared.fallback.cached_clear_pipelines()
    }

    /// `ID3D12Device5::RemoveDevice`: puts the device in the removed state, as a GPU fault
    /// would, so that apps can test their recovery. Later submissions and allocator resets
    /// fail with `DeviceRemoved`; work already submitted still completes.
    pub fn remove_device(&self) {
        tracing::warn!("RemoveDevice: the device is now removed");
        self.shared.removed.store(true, std::sync::atomic::Ordering::Release);
    }

    /// `GetDeviceRemovedReason`: `Ok` while the device is healthy, else the
    /// `DeviceRemoved` error saying why.
    pub fn device_removed_reason(&self) -> Result<()> {
        self.shared.removed_reason("GetDeviceRemovedReason")
    }

    /// Resources of this device alive now: the app's, and those the runtime holds (the
    /// fallback's pools, what command buffers keep alive). For debugging lifetimes.
    pub fn live_resource_count(&self) -> usize {
        self.shared.live_resources.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether two handles name the same device.
    pub fn same(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// `CreateCommittedResource3`: a resource with its own memory in a heap of `heap` type.
    /// Buffers start `Undefined`; textures in `initial_layout`.
    pub fn create_committed_resource(
        &self,
        heap: HeapType,
        desc: &ResourceDesc,
        initial_layout: BarrierLayout,
    ) -> Result<Resource> {
        Resource::create(self, heap, desc, initial_layout, false, false)
    }

    /// `CreateReservedResource2`: a tiled resource whose tiles are mapped later.
    pub fn create_reserved_resource(&self, desc: &ResourceDesc, initial_layout: BarrierLayout) -> Result<Resource> {
        Resource::create(self, HeapType::Default, desc, initial_layout, true, false)
    }

    /// A committed resource in a protected session.
    pub fn create_protected_resource(&self, desc: &ResourceDesc, initial_layout: BarrierLayout) -> Result<Resource> {
        Resource::create(self, HeapType::Default, desc, initial_layout, false, true)
    }

    /// `CreateHeap`: memory that reserved resources map tiles into.
    pub fn create_heap(&self, size: u64) -> Result<Heap> {
        Heap::create(self, size)
    }

    /// `GetCopyableFootprints`: the placed footprints of `num` subresources of `desc` from
    /// `first`, placed from `base_offset`.
    pub fn copyable_footprints(
        &self,
        desc: &ResourceDesc,
        first: u32,
        num: u32,
        base_offset: u64,
    ) -> Result<CopyableFootprints> {
        desc.copyable_footprints(first, num, base_offset).ok_or_else(|| {
            err::invalid(
                MessageId::InvalidSubresourceIndex,
                "GetCopyableFootprints",
                format!("subresources {first}..{first}+{num} exceed the resource's {}", desc.subresource_count()),
            )
        })
    }

    /// `CreateCommandQueue`.
    pub fn create_command_queue(&self, ty: CommandListType) -> Result<CommandQueue> {
        CommandQueue::create(self, ty)
    }

    /// `CreateFence`.
    pub fn create_fence(&self, initial: u64) -> Result<Fence> {
        Fence::create(self, initial)
    }

    /// `CreateCommandAllocator`.
    pub fn create_command_allocator(&self, ty: CommandListType) -> Result<CommandAllocator> {
        Ok(CommandAllocator::new(self, ty))
    }

    /// `CreateCommandList`: a list open for recording on `allocator`.
    pub fn create_command_list(&self, ty: CommandListType, allocator: &CommandAllocator) -> Result<CommandList> {
        CommandList::create(self, ty, allocator)
    }

    /// `CreateQueryHeap`.
    pub fn create_query_heap(&self, desc: &QueryHeapDesc) -> Result<QueryHeap> {
        QueryHeap::create(self, desc)
    }

    /// `CreateRootSignature`.
    pub fn create_root_signature(&self, desc: &RootSignatureDesc) -> Result<RootSignature> {
        RootSignature::create(self, desc)
    }

    /// `CreatePipelineState` for a pipeline of built-in shaders.
    pub fn create_pipeline_state(&self, desc: &PipelineDesc) -> Result<PipelineState> {
        PipelineState::create(self, desc)
    }

    /// `CreateDescriptorHeap` (CPU-only RTV or DSV heaps).
    pub fn create_descriptor_heap(&self, ty: DescriptorHeapType, count: u32) -> Result<DescriptorHeap> {
        DescriptorHeap::create(self, ty, count, false)
    }

    /// `CreateRenderTargetView`: writes a view of `resource` into `handle`. `None` describes the
    /// whole mip 0 in the resource's format.
    pub fn create_render_target_view(
        &self,
        resource: &Resource,
        desc: Option<&RenderTargetViewDesc>,
        handle: &CpuDescriptorHandle,
    ) -> Result<()> {
        let d = desc.copied().unwrap_or_else(|| RenderTargetViewDesc::default_for(resource.desc()));
        let err = |t: String| err::invalid(MessageId::CreateViewInvalidDesc, "CreateRenderTargetView", t);
        if handle.heap_type() != DescriptorHeapType::Rtv {
            return self.shared.fail(err("the handle is not in an RTV heap".into()));
        }
        if resource.desc().is_buffer() {
            return self.shared.fail(err("buffers have no render-target views here".into()));
        }
        if d.format.is_typeless() || !d.format.castable_from(resource.desc().format) {
            return self.shared.fail(err(format!(
                "format {} cannot view a {} resource",
                d.format,
                resource.desc().format
            )));
        }
        if d.range(resource.desc()).is_none() {
            return self.shared.fail(err(format!("{:?} does not fit the resource", d.dimension)));
        }
        handle.write(ViewDescriptor::render_target(resource, d)).or_else(|e| self.shared.fail(e))
    }

    /// `CreateDepthStencilView`: writes a view of `resource` into `handle`.
    pub fn create_depth_stencil_view(
        &self,
        resource: &Resource,
        desc: Option<&DepthStencilViewDesc>,
        handle: &CpuDescriptorHandle,
    ) -> Result<()> {
        let d = desc.copied().unwrap_or_else(|| DepthStencilViewDesc::default_for(resource.desc()));
        let err = |t: String| err::invalid(MessageId::CreateViewInvalidDesc, "CreateDepthStencilView", t);
        if handle.heap_type() != DescriptorHeapType::Dsv {
            return self.shared.fail(err("the handle is not in a DSV heap".into()));
        }
        if !d.format.is_depth_stencil() || !d.format.castable_from(resource.desc().format) {
            return self.shared.fail(err(format!(
                "format {} cannot view a {} resource as depth",
                d.format,
                resource.desc().format
            )));
        }
        if d.range(resource.desc()).is_none() {
            return self.shared.fail(err(format!("{:?} does not fit the resource", d.dimension)));
        }
        handle.write(ViewDescriptor::depth_stencil(resource, d)).or_else(|e| self.shared.fail(e))
    }
}

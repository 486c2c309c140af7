//! Shared test harness: every available device, and helpers to upload, run and read back.
#![allow(dead_code)]

pub mod clears;
pub mod draws;
pub mod kernels;
pub mod spy;
pub mod targets;

use asyncmd::ddi::DeviceDdi;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use asyncmd_vulkan::{ComputeCopies, DriverThreads, Validation, VulkanDevice, VulkanOptions};
use std::sync::Arc;
use std::time::Duration;

/// A fresh adapter over a reference device with `config`.
pub fn reference_adapter(config: ReferenceConfig) -> Adapter {
    Adapter::new(Arc::new(ReferenceDevice::new(config)) as Arc<dyn DeviceDdi>)
}

/// A device on a fresh reference adapter (own factory, so no singleton interplay).
pub fn reference_device(config: ReferenceConfig) -> Device {
    DeviceFactory::new().create_device(&reference_adapter(config)).expect("reference device")
}

/// A device on `adapter` whose app opted in to the Async Commands fallback (forcing off).
pub fn opted_in(adapter: &Adapter) -> Device {
    let _guard = ForceFallbackGuard::new(false);
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    factory.create_device(adapter).expect("device")
}

/// Contexts whose devices have the Async Commands: the reference device natively and through
/// the fallback, and the Vulkan device through the fallback where there is one.
pub fn async_contexts() -> Vec<(&'static str, Ctx)> {
    let native = opted_in(&reference_adapter(ReferenceConfig { native_async_commands: true, ..Default::default() }));
    assert_eq!(native.async_commands_impl(), AsyncCommandsImpl::Native);
    let fallback = opted_in(&reference_adapter(ReferenceConfig::default()));
    assert_eq!(fallback.async_commands_impl(), AsyncCommandsImpl::Fallback);
    let mut v = vec![("reference native", Ctx::new(native)), ("reference fallback", Ctx::new(fallback))];
    if std::env::var("ASYNCMD_DEVICE").is_ok_and(|d| d == "reference") {
        return v;
    }
    let options = |native, compute_copies, driver_threads| VulkanOptions {
        validation: Validation::IfAvailable,
        compute_copies,
        native_async_commands: native,
        driver_threads,
        ..Default::default()
    };
    for (label, native, copies, threads) in [
        // The driver's calls on the pooled threads, as on NVIDIA, also where the app's threads
        // may make them (lavapipe).
        ("vulkan fallback", false, ComputeCopies::Auto, DriverThreads::Pooled),
        ("vulkan native", true, ComputeCopies::Auto, DriverThreads::Auto),
        // Batched compute kernels, also where transfers are faster (lavapipe), and NVIDIA's
        // rule for the driver's calls: all on the app's threads but the pipelines'.
        ("vulkan native compute", true, ComputeCopies::Always, DriverThreads::AllButStateful),
    ] {
        let Some(vk) = vulkan_driver_with(options(native, copies, threads)) else { break };
        let device = opted_in(&Adapter::new(vk.clone() as Arc<dyn DeviceDdi>));
        let mut ctx = Ctx::new(device);
        ctx.vulkan = Some(vk);
        v.push((label, ctx));
    }
    v
}

/// The Vulkan device with the validation layer where installed, or `None` where there is no
/// Vulkan driver. With `ASYNCMD_REQUIRE_VULKAN=1` a missing driver fails the test instead.
pub fn vulkan_driver() -> Option<Arc<VulkanDevice>> {
    vulkan_driver_with(VulkanOptions { validation: Validation::IfAvailable, ..Default::default() })
}

/// [`vulkan_driver`] with other options.
pub fn vulkan_driver_with(options: VulkanOptions) -> Option<Arc<VulkanDevice>> {
    let required = std::env::var("ASYNCMD_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    match VulkanDevice::open(0, options) {
        Ok(d) => Some(Arc::new(d)),
        Err(e) if required => panic!("ASYNCMD_REQUIRE_VULKAN=1 but no Vulkan device: {}", e.text),
        Err(_) => None,
    }
}

/// A context on every device the tests run on, by name: the reference device always, the
/// Vulkan device where a driver is installed.
/// `ASYNCMD_DEVICE=reference` or `vulkan` restricts them to one.
pub fn contexts() -> Vec<(&'static str, Ctx)> {
    let only = std::env::var("ASYNCMD_DEVICE").unwrap_or_default();
    let mut v = Vec::new();
    if !only.starts_with("vulkan") {
        v.push(("reference", Ctx::reference()));
    }
    if only == "reference" {
        return v;
    }
    if let Some(ctx) = vulkan_ctx(VulkanOptions { validation: Validation::IfAvailable, ..Default::default() }) {
        v.push(("vulkan", ctx));
    }
    v
}

/// A context on the Vulkan device opened with `options`, if there is one.
pub fn vulkan_ctx(options: VulkanOptions) -> Option<Ctx> {
    let vk = vulkan_driver_with(options)?;
    let device =
        DeviceFactory::new().create_device(&Adapter::new(vk.clone() as Arc<dyn DeviceDdi>)).expect("vulkan device");
    let mut ctx = Ctx::new(device);
    ctx.vulkan = Some(vk);
    Some(ctx)
}

/// Every device the tests run on, by name.
pub fn devices() -> Vec<(&'static str, Device)> {
    contexts().into_iter().map(|(n, c)| (n, c.device.clone())).collect()
}

/// A device with a direct, a compute and a copy queue.
pub struct Ctx {
    pub device: Device,
    pub direct: CommandQueue,
    pub compute: CommandQueue,
    pub copy: CommandQueue,
    /// The Vulkan driver behind `device`, whose validation messages fail the test.
    pub vulkan: Option<Arc<VulkanDevice>>,
}

impl Drop for Ctx {
    fn drop(&mut self) {
        if let Some(vk) = &self.vulkan {
            let messages = vk.validation_log().messages();
            let warnings = vk.validation_log().warnings();
            if !warnings.is_empty() || !messages.is_empty() {
                eprintln!("vulkan-validation: {} errors, {} warnings", messages.len(), warnings.len());
                for w in &warnings {
                    eprintln!("vulkan-validation warning: {w}");
                }
            }
            if !messages.is_empty() && !std::thread::panicking() {
                panic!("{} Vulkan validation error(s):\n{}", messages.len(), messages.join("\n"));
            }
        }
    }
}

pub const TIMEOUT: Duration = Duration::from_secs(20);

impl Ctx {
    pub fn new(device: Device) -> Self {
        let direct = device.create_command_queue(CommandListType::Direct).unwrap();
        let compute = device.create_command_queue(CommandListType::Compute).unwrap();
        let copy = device.create_command_queue(CommandListType::Copy).unwrap();
        Self { device, direct, compute, copy, vulkan: None }
    }

    pub fn reference() -> Self {
        Self::new(reference_device(ReferenceConfig::default()))
    }

    pub fn queue(&self, ty: CommandListType) -> &CommandQueue {
        match ty {
            CommandListType::Compute => &self.compute,
            CommandListType::Copy => &self.copy,
            _ => &self.direct,
        }
    }

    /// A new open list of `ty` with its own allocator.
    pub fn list(&self, ty: CommandListType) -> CommandList {
        let alloc = self.device.create_command_allocator(ty).unwrap();
        self.device.create_command_list(ty, &alloc).unwrap()
    }

    /// Records with `f` on a list of `ty`, closes it, runs it and waits. Panics with the
    /// list's error if recording failed.
    pub fn run(&self, ty: CommandListType, f: impl FnOnce(&mut CommandList)) {
        let mut list = self.list(ty);
        f(&mut list);
        list.close().expect("close");
        let q = self.queue(ty);
        q.execute_command_lists(&[&list]).expect("execute");
        q.wait_idle(TIMEOUT).expect("idle");
    }

    /// Records with `f`, closes, and returns what close said.
    pub fn record(&self, ty: CommandListType, f: impl FnOnce(&mut CommandList)) -> Result<()> {
        let mut list = self.list(ty);
        f(&mut list);
        list.close()
    }

    pub fn buffer(&self, heap: HeapType, size: u64) -> Resource {
        self.device.create_committed_resource(heap, &ResourceDesc::buffer(size), BarrierLayout::Undefined).unwrap()
    }

    /// An upload buffer holding `data`.
    pub fn upload(&self, data: &[u8]) -> Resource {
        let b = self.buffer(HeapType::Upload, data.len().max(1) as u64);
        b.write(0, data).unwrap();
        b
    }

    /// A default-heap buffer holding `data` (uploaded through a copy).
    pub fn default_buffer(&self, data: &[u8]) -> Resource {
        let src = self.upload(data);
        let dst = self.buffer(HeapType::Default, data.len() as u64);
        self.run(CommandListType::Direct, |l| l.copy_buffer_region(&dst, 0, &src, 0, data.len() as u64));
        dst
    }

    /// Reads a buffer back through a readback copy.
    pub fn read_buffer(&self, buffer: &Resource) -> Vec<u8> {
        let size = buffer.desc().width;
        if buffer.heap_type() != HeapType::Default {
            return buffer.read_vec(0, size as usize).unwrap();
        }
        let rb = self.buffer(HeapType::Readback, size);
        self.run(CommandListType::Direct, |l| l.copy_buffer_region(&rb, 0, buffer, 0, size));
        rb.read_vec(0, size as usize).unwrap()
    }

    /// A committed texture in `layout`.
    pub fn texture(&self, desc: &ResourceDesc, layout: BarrierLayout) -> Resource {
        self.device.create_committed_resource(HeapType::Default, desc, layout).unwrap()
    }

    /// Uploads tightly packed `data` into one subresource (which must be in a layout that
    /// allows copies: COMMON or COPY_DEST).
    pub fn upload_subresource(&self, tex: &Resource, sub: u32, data: &[u8]) {
        let fp = self.device.copyable_footprints(tex.desc(), sub, 1, 0).unwrap();
        let layout = fp.layouts[0];
        let rows = fp.num_rows[0] as usize;
        let row = fp.row_sizes[0] as usize;
        let depth = layout.footprint.depth as usize;
        let mut staging = vec![0u8; fp.total_bytes as usize];
        for z in 0..depth {
            for y in 0..rows {
                let s = (z * rows + y) * row;
                let d = (z * rows + y) * layout.footprint.row_pitch as usize;
                staging[d..d + row].copy_from_slice(&data[s..s + row]);
            }
        }
        let src = self.upload(&staging);
        self.run(CommandListType::Direct, |l| {
            l.copy_texture_region(
                &TextureCopyLocation::subresource(tex, sub),
                0,
                0,
                0,
                &TextureCopyLocation::footprint(&src, layout),
                None,
            )
        });
    }

    /// Reads one subresource back, tightly packed.
    pub fn read_subresource(&self, tex: &Resource, sub: u32) -> Vec<u8> {
        let fp = self.device.copyable_footprints(tex.desc(), sub, 1, 0).unwrap();
        let layout = fp.layouts[0];
        let rb = self.buffer(HeapType::Readback, fp.total_bytes);
        self.run(CommandListType::Direct, |l| {
            l.copy_texture_region(
                &TextureCopyLocation::footprint(&rb, layout),
                0,
                0,
                0,
                &TextureCopyLocation::subresource(tex, sub),
                None,
            )
        });
        let raw = rb.read_vec(0, fp.total_bytes as usize).unwrap();
        let rows = fp.num_rows[0] as usize;
        let row = fp.row_sizes[0] as usize;
        let mut out = Vec::new();
        for z in 0..layout.footprint.depth as usize {
            for y in 0..rows {
                let s = (z * rows + y) * layout.footprint.row_pitch as usize;
                out.extend_from_slice(&raw[s..s + row]);
            }
        }
        out
    }
}

/// Deterministic test bytes.
pub fn pattern(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(12345);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// Records one `CopyTextureRegion` between two texture subresources, the source box (`None`:
/// the whole source) landing at `at`.
pub fn copy_region(
    l: &mut CommandList,
    dst: &Resource,
    dst_sub: u32,
    at: (u32, u32, u32),
    src: &Resource,
    src_sub: u32,
    source_box: Option<&Box3>,
) {
    let (d, s) = (TextureCopyLocation::subresource(dst, dst_sub), TextureCopyLocation::subresource(src, src_sub));
    l.copy_texture_region(&d, at.0, at.1, at.2, &s, source_box);
}

/// Asserts that closing failed with `code` and `id`.
#[track_caller]
pub fn assert_error(r: Result<()>, code: ErrorCode, id: MessageId) -> Error {
    match r {
        Ok(()) => panic!("expected {code:?} {id:?}, got Ok"),
        Err(e) => {
            assert_eq!((e.code, e.id), (code, id), "unexpected error: {}", e.text);
            e
        }
    }
}

/// The sync and access that go with a layout in the tests' barriers.
pub fn scope(layout: BarrierLayout) -> (BarrierSync, BarrierAccess) {
    match layout {
        BarrierLayout::Undefined => (BarrierSync::NONE, BarrierAccess::NO_ACCESS),
        BarrierLayout::RenderTarget => (BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET),
        BarrierLayout::DepthStencilWrite => (BarrierSync::DEPTH_STENCIL, BarrierAccess::DEPTH_STENCIL_WRITE),
        BarrierLayout::CopySource => (BarrierSync::COPY, BarrierAccess::COPY_SOURCE),
        BarrierLayout::CopyDest => (BarrierSync::COPY, BarrierAccess::COPY_DEST),
        BarrierLayout::ResolveSource => (BarrierSync::RESOLVE, BarrierAccess::RESOLVE_SOURCE),
        BarrierLayout::ResolveDest => (BarrierSync::RESOLVE, BarrierAccess::RESOLVE_DEST),
        _ => (BarrierSync::ALL, BarrierAccess::COMMON),
    }
}

/// A barrier moving every subresource of `t` from one layout to another.
pub fn transition(t: &Resource, from: BarrierLayout, to: BarrierLayout) -> TextureBarrier<&Resource> {
    let (sync_before, access_before) = scope(from);
    let (sync_after, access_after) = scope(to);
    TextureBarrier {
        sync_before,
        sync_after,
        access_before,
        access_after,
        layout_before: from,
        layout_after: to,
        resource: t,
        subresources: BarrierSubresourceRange::ALL,
        flags: TextureBarrierFlags::empty(),
    }
}

/// Records one transition.
pub fn barrier(l: &mut CommandList, t: &Resource, from: BarrierLayout, to: BarrierLayout) {
    l.barrier(&[BarrierGroup::Texture(vec![transition(t, from, to)])]);
}

/// A root signature and pipeline for the built-in fill shader (constants, then a root UAV).
pub fn fill_pipeline(ctx: &Ctx) -> (RootSignature, PipelineState) {
    fill_pipeline_on(&ctx.device).unwrap()
}

/// [`fill_pipeline`] on any device, failing as creation does.
pub fn fill_pipeline_on(device: &Device) -> Result<(RootSignature, PipelineState)> {
    use asyncmd::ddi::{
        ComputePipelineDesc, PipelineDesc, RootParameter, RootSignatureDesc, ShaderId, FILL_CONSTANT_COUNT,
    };
    let root = device.create_root_signature(&RootSignatureDesc::new(vec![
        RootParameter::constants(0, FILL_CONSTANT_COUNT),
        RootParameter::uav(0),
    ]))?;
    let pso = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ShaderId::FillCs.into(),
    }))?;
    Ok((root, pso))
}

/// Records a dispatch of the built-in fill shader: `root` and `pso` bound, the constants
/// (pattern, length, count) set and the destination bound as the root UAV.
pub fn dispatch_fill(
    l: &mut CommandRecorder,
    (root, pso): (&RootSignature, &PipelineState),
    constants: &[u32],
    dest: asyncmd::ddi::GpuAddress,
    groups: u32,
) {
    l.set_compute_root_signature(root);
    l.set_pipeline_state(pso);
    l.set_compute_root_32bit_constants(0, constants, 0);
    l.set_compute_root_unordered_access_view(1, dest);
    l.dispatch(groups, 1, 1);
}

/// A reserved resource with its first `tiles` tiles mapped to a new heap.
pub fn mapped_reserved(ctx: &Ctx, desc: &ResourceDesc, layout: BarrierLayout, tiles: u32) -> (Resource, Heap) {
    let res = ctx.device.create_reserved_resource(desc, layout).unwrap();
    let heap = ctx.device.create_heap(tiles as u64 * TILE_SIZE_IN_BYTES).unwrap();
    let mapping = TileRangeMapping { coordinate: Default::default(), num_tiles: tiles, heap: Some((&heap, 0)) };
    ctx.direct.update_tile_mappings(&res, &[mapping]).unwrap();
    (res, heap)
}

/// A barrier from everything to everything: orders every command before it against every
/// command after it.
pub fn full_barrier(l: &mut CommandRecorder) {
    l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
        sync_before: BarrierSync::ALL,
        sync_after: BarrierSync::ALL,
        access_before: BarrierAccess::COMMON,
        access_after: BarrierAccess::COMMON,
    }])]);
}

/// Runs `f` on another thread and fails the test if it has not returned within `limit`
/// (a hang is reported, not waited out).
pub fn within<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("{what} did not return within {limit:?}"))
}

/// A D3D12 frame loop's objects for one 256-byte copy: an upload source, a readback
/// destination, an allocator, a list (closed) and a fence.
pub struct CopyFrames {
    pub src: Resource,
    pub dst: Resource,
    alloc: CommandAllocator,
    list: CommandList,
    fence: Fence,
}

impl CopyFrames {
    pub fn new(ctx: &Ctx) -> Self {
        let d = &ctx.device;
        let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
        let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
        list.close().unwrap();
        let (src, dst) = (ctx.buffer(HeapType::Upload, 256), ctx.buffer(HeapType::Readback, 256));
        Self { src, dst, alloc, list, fence: d.create_fence(0).unwrap() }
    }

    /// One frame on `queue`: the allocator and list reset, the copy recorded and closed,
    /// executed, the fence signalled to `value` and waited for on the CPU.
    pub fn run(&mut self, queue: &CommandQueue, value: u64) {
        self.alloc.reset().unwrap();
        self.list.reset(&self.alloc).unwrap();
        self.list.copy_buffer_regions(&[BufferCopyRegion {
            dest: &self.dst,
            dest_offset: 0,
            source: &self.src,
            source_offset: 0,
            size: 256,
        }]);
        self.list.close().unwrap();
        queue.execute_command_lists(&[&self.list]).unwrap();
        queue.signal(&self.fence, value).unwrap();
        self.fence.wait(value, Duration::from_secs(20)).unwrap();
    }
}

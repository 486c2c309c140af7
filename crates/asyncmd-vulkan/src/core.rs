//! The logical device: queues, the memory allocator, and what both need to outlive.

use crate::instance::Instance;
use crate::physical::{choose_families, Families};
use ash::prelude::VkResult;
use ash::vk;
use asyncmd_types::{Error, Result};
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use rustc_hash::FxHashMap as HashMap;
use std::mem::ManuallyDrop;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Optional features the device turned on.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Features {
    pub(crate) conditional_rendering: bool,
    pub(crate) sample_locations: bool,
    pub(crate) sparse_buffer: bool,
    pub(crate) sparse_image_2d: bool,
    /// Unbound sparse blocks read zero and drop writes, image blocks have the standard shapes,
    /// and the direct family can bind sparse memory: D3D12 tiled resources tier 2.
    pub(crate) sparse_tier2: bool,
    pub(crate) bc: bool,
    pub(crate) pipeline_statistics: bool,
    pub(crate) occlusion_precise: bool,
    /// `VK_KHR_push_descriptor`, storage-image writes without a format and 64-bit integers in
    /// shaders: the image kernels (`meta::image`) can run.
    pub(crate) image_kernels: bool,
    /// `VK_EXT_robustness2`'s `robustBufferAccess2`: a shader's out-of-bounds buffer reads give
    /// 0 and its writes are dropped, as D3D12 and the reference device do (`shader.rs`).
    pub(crate) robust_buffers: bool,
    /// Arrays of sampled images and samplers, of storage images and of buffers indexed by a
    /// dynamically uniform value, each (the core `shader*ArrayDynamicIndexing` features;
    /// lavapipe 22.3 has the buffers' only).
    pub(crate) sampled_array_indexing: bool,
    pub(crate) storage_image_array_indexing: bool,
    pub(crate) buffer_array_indexing: bool,
    /// Arrays of sampled and storage images and samplers indexed by any value (Vulkan 1.2's
    /// `shader*ArrayNonUniformIndexing`).
    pub(crate) array_non_uniform_indexing: bool,
    /// Views of cube arrays (`imageCubeArray`).
    pub(crate) cube_arrays: bool,
    /// Minimum and maximum sampler reductions (Vulkan 1.2's `samplerFilterMinmax`).
    pub(crate) sampler_minmax: bool,
    /// Descriptors one push may write (`maxPushDescriptors`).
    pub(crate) max_push_descriptors: u32,
    /// A batch of command buffers may signal a fence other threads wait on: every driver but
    /// lavapipe, whose 22.3.6 queue thread writes through a null pointer on such batches
    /// within minutes of fuzzing (`docs/reliability.md`); there the lists' batch signals the
    /// queue's own progress only and the fence gets a batch of its own.
    pub(crate) lists_signal_fences: bool,
    /// Which of its calls leave a thread free to end while other threads call the driver
    /// (`threads.rs`, `DriverThreads::Auto`).
    pub(crate) thread_exit: ThreadExit,
}

/// Which driver calls a thread may make and then end while other threads call the driver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ThreadExit {
    /// Any call: Mesa's drivers, none of which locks anything in a thread's exit.
    AnyCall,
    /// Any call but those that leave the thread per-thread driver state whose destructor runs
    /// at its exit, where NVIDIA's driver deadlocks (`threads.rs`): instance creation and
    /// destruction, and pipeline creation (its shader compiler's). Measured on NVIDIA's
    /// driver 580 (`examples/driver_thread_state.rs`, `docs/reliability.md`).
    StatelessCalls,
    /// No call: a driver not measured is taken for one that leaves state everywhere.
    #[default]
    NoCall,
}

impl ThreadExit {
    /// The rule of the driver `id` at `version` (`VkPhysicalDeviceProperties::driverVersion`).
    fn of(id: vk::DriverId, version: u32) -> Self {
        if mesa_native(id) {
            ThreadExit::AnyCall
        } else if id == vk::DriverId::NVIDIA_PROPRIETARY && nvidia_major(version) == MEASURED_NVIDIA_MAJOR {
            ThreadExit::StatelessCalls
        } else {
            ThreadExit::NoCall
        }
    }
}

/// The NVIDIA driver branch whose calls' per-thread state was measured (580.159): another
/// branch may keep state where this one does not, so it keeps every call on the pooled threads
/// until it is measured too.
const MEASURED_NVIDIA_MAJOR: u32 = 580;

/// The major version of an NVIDIA `driverVersion` (10 bits major, 8 minor, 8 sub-minor, 6
/// patch: NVIDIA's own packing, not `VK_MAKE_VERSION`'s).
fn nvidia_major(version: u32) -> u32 {
    (version >> 22) & 0x3ff
}

pub(crate) struct Core {
    pub(crate) instance: Arc<Instance>,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    allocator: Mutex<ManuallyDrop<Allocator>>,
    queues: HashMap<(u32, u32), Mutex<vk::Queue>>,
    pub(crate) families: Families,
    /// The queue families every resource is shared by (`CONCURRENT`), where there are several;
    /// empty where one family serves every queue (`EXCLUSIVE`).
    pub(crate) sharing: Vec<u32>,
    pub(crate) props: vk::PhysicalDeviceProperties,
    pub(crate) features: Features,
    pub(crate) conditional: Option<ash::ext::conditional_rendering::Device>,
    /// `VK_KHR_push_descriptor`, where the image kernels can run.
    pub(crate) push_descriptor: Option<ash::khr::push_descriptor::Device>,
    /// Highest value submitted for a signal, per timeline semaphore: a queue holds a wait back
    /// until its signal has been submitted (queue forward progress on shared queues).
    submitted: Mutex<HashMap<vk::Semaphore, Signalled>>,
    submitted_changed: Condvar,
    /// The device's own compute pipelines (made right after the device).
    pub(crate) meta: std::sync::OnceLock<crate::meta::Meta>,
    /// Smallest buffer copy that runs as a compute copy (`None`: never), set once at open.
    pub(crate) compute_copy_min: std::sync::OnceLock<Option<u64>>,
    /// Set once any call returned `VK_ERROR_DEVICE_LOST`.
    lost: std::sync::atomic::AtomicBool,
    /// How long an app kernel's invocation may run on a device without a GPU timeout.
    pub(crate) shader_time_budget: std::time::Duration,
    /// Driver calls run on the calling thread (`DriverThreads`, [`Core::on_driver`]).
    pub(crate) calls_here: bool,
    /// Pipelines are made on the calling thread too ([`Core::on_compiler`]): where it calls
    /// its driver and no call of the driver leaves the thread state ([`ThreadExit::AnyCall`]).
    pub(crate) compiles_here: bool,
    /// Drops handed to pooled threads that still hold this core (`drops.rs`).
    pub(crate) drops: Arc<crate::drops::DetachedDrops>,
    /// The budget's clock on such a device, made with the first kernel that has a loop.
    watchdog: std::sync::OnceLock<crate::watchdog::Watchdog>,
    /// The fence of one-time submissions and sparse binds, made on first use, reset and reused
    /// (one such submission at a time per device), destroyed with the device: no fence is
    /// destroyed just after its wait returns, which lavapipe's queue thread was suspected of
    /// racing with (the heap corruption `docs/reliability.md` traces to one view in two
    /// render-target slots; the reuse stays, as it costs nothing).
    one_time_fence: Mutex<Option<vk::Fence>>,
    /// Command pools of retired lists, for the next lists (`command/pool.rs`).
    pub(crate) list_pools: crate::command::ListPools,
    /// The app kernels' samplers, by description (`sampler.rs`).
    pub(crate) samplers: Mutex<HashMap<asyncmd_types::SamplerDesc, vk::Sampler>>,
    /// The device's queues, by type, for [`Core::expect_submission`].
    inboxes: Mutex<Vec<(asyncmd_types::CommandListType, std::sync::Weak<crate::queue::Inbox>)>>,
}

impl Core {
    /// Runs a driver call of this device: on the calling thread where the device calls its
    /// driver there ([`Core::calls_here`]), else on a pooled thread (`threads.rs`).
    pub(crate) fn on_driver<R: Send>(&self, call: impl FnOnce() -> R + Send) -> R {
        crate::threads::on_driver_or_here(self.calls_here, call)
    }

    /// Runs a call that makes pipelines: as [`Core::on_driver`] where [`Core::compiles_here`],
    /// else on a pooled thread whoever calls, a `Close` on the app's thread included. NVIDIA's
    /// shader compiler gives the thread that makes a pipeline per-thread state whose
    /// destructor runs at the thread's exit (`ThreadExit::StatelessCalls`).
    pub(crate) fn on_compiler<R: Send>(&self, call: impl FnOnce() -> R + Send) -> R {
        if self.compiles_here {
            self.on_driver(call)
        } else {
            crate::threads::on_pooled(call)
        }
    }

    /// Registers a queue of type `ty` for [`Core::expect_submission`].
    pub(crate) fn expect_submissions_to(&self, ty: asyncmd_types::CommandListType, inbox: &Arc<crate::queue::Inbox>) {
        let mut inboxes = self.inboxes.lock().unwrap_or_else(PoisonError::into_inner);
        inboxes.retain(|(_, q)| q.strong_count() > 0);
        inboxes.push((ty, Arc::downgrade(inbox)));
    }

    /// A list of type `ty` started recording: the queues of its type wake (where threads poll)
    /// to be awake when it is executed, instead of being woken then (`threads::Alert`). Only
    /// queues whose thread makes every submission are registered (`queue.rs`).
    pub(crate) fn expect_submission(&self, ty: asyncmd_types::CommandListType) {
        if !crate::threads::polling() {
            return;
        }
        let inboxes = self.inboxes.lock().unwrap_or_else(PoisonError::into_inner);
        for inbox in inboxes.iter().filter(|(t, _)| *t == ty).filter_map(|(_, q)| q.upgrade()) {
            inbox.expect();
        }
    }

    /// [`Core::on_driver`] for a call that waits for the GPU: a caller whose call is handed
    /// over polls for its end a while before it sleeps (`threads::on_driver_or_here_waiting`).
    pub(crate) fn on_driver_waiting<R: Send>(&self, call: impl FnOnce() -> R + Send) -> R {
        crate::threads::on_driver_or_here_waiting(self.calls_here, call)
    }

    /// Buffer creation info shared as the device's queues need.
    pub(crate) fn shared_buffer<'a>(&'a self, info: vk::BufferCreateInfo<'a>) -> vk::BufferCreateInfo<'a> {
        match self.sharing.as_slice() {
            [] => info.sharing_mode(vk::SharingMode::EXCLUSIVE),
            families => info.sharing_mode(vk::SharingMode::CONCURRENT).queue_family_indices(families),
        }
    }

    /// Image creation info shared as the device's queues need.
    pub(crate) fn shared_image<'a>(&'a self, info: vk::ImageCreateInfo<'a>) -> vk::ImageCreateInfo<'a> {
        match self.sharing.as_slice() {
            [] => info.sharing_mode(vk::SharingMode::EXCLUSIVE),
            families => info.sharing_mode(vk::SharingMode::CONCURRENT).queue_family_indices(families),
        }
    }

    /// The device's own pipelines, made when it opened.
    pub(crate) fn meta(&self) -> Result<&crate::meta::Meta> {
        self.meta.get().ok_or_else(|| {
            Error::fail(asyncmd_types::MessageId::DeviceUnsupported, "Vulkan: the device's pipelines are missing")
        })
    }

    pub(crate) fn new(instance: Arc<Instance>, physical: vk::PhysicalDevice) -> Result<Self> {
        let i = &instance.instance;
        // SAFETY: queries on a physical device of this instance.
        let (props, families_props, extensions, base) = unsafe {
            (
                i.get_physical_device_properties(physical),
                i.get_physical_device_queue_family_properties(physical),
                i.enumerate_device_extension_properties(physical).unwrap_or_default(),
                i.get_physical_device_features(physical),
            )
        };
        // SAFETY: a query on a physical device of this instance.
        let memory = unsafe { i.get_physical_device_memory_properties(physical) };
        for (n, t) in memory.memory_types_as_slice().iter().enumerate() {
            let heap = memory.memory_heaps[t.heap_index as usize];
            tracing::debug!(n, flags = ?t.property_flags, heap = t.heap_index, heap_bytes = heap.size, heap_flags = ?heap.flags, "memory type");
        }
        let has_ext = |name: &std::ffi::CStr| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(name));
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut robust2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut all = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12).push_next(&mut f13);
        let has_robustness2 = has_ext(ash::ext::robustness2::NAME);
        if has_robustness2 {
            all = all.push_next(&mut robust2);
        }
        // SAFETY: the chained structs live on this stack frame during the call.
        unsafe { i.get_physical_device_features2(physical, &mut all) };
        if f12.timeline_semaphore == 0
            || f12.buffer_device_address == 0
            || f13.synchronization2 == 0
            || f13.dynamic_rendering == 0
        {
            return Err(Error::unsupported(
                "Vulkan: the device lacks timeline semaphores, buffer device address, synchronization2 or dynamic rendering",
            ));
        }
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut push = vk::PhysicalDevicePushDescriptorPropertiesKHR::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
        if has_ext(ash::khr::push_descriptor::NAME) {
            props2 = props2.push_next(&mut push);
        }
        // SAFETY: the chained struct lives on this stack frame during the call.
        unsafe { i.get_physical_device_properties2(physical, &mut props2) };
        // vkd3d-proton's list of drivers that share images concurrently with a transfer-only
        // family at no cost (RADV only on RDNA2 and later, which it tells by mesh shaders).
        let transfer_shares = matches!(driver.driver_id, vk::DriverId::NVIDIA_PROPRIETARY | vk::DriverId::MESA_NVK);
        let families = choose_families(&families_props, transfer_shares)
            .ok_or_else(|| Error::unsupported("Vulkan: no graphics queue family"))?;
        let features = Features {
            conditional_rendering: has_ext(ash::ext::conditional_rendering::NAME),
            sample_locations: has_ext(ash::ext::sample_locations::NAME),
            sparse_buffer: base.sparse_binding != 0 && base.sparse_residency_buffer != 0,
            sparse_image_2d: base.sparse_binding != 0 && base.sparse_residency_image2_d != 0,
            sparse_tier2: base.sparse_binding != 0
                && base.sparse_residency_buffer != 0
                && base.sparse_residency_image2_d != 0
                && props.sparse_properties.residency_non_resident_strict != 0
                && props.sparse_properties.residency_standard2_d_block_shape != 0
                && families_props[families.direct as usize].queue_flags.contains(vk::QueueFlags::SPARSE_BINDING),
            bc: base.texture_compression_bc != 0,
            pipeline_statistics: base.pipeline_statistics_query != 0,
            occlusion_precise: base.occlusion_query_precise != 0,
            image_kernels: has_ext(ash::khr::push_descriptor::NAME)
                && base.shader_storage_image_write_without_format != 0
                && base.shader_int64 != 0,
            robust_buffers: has_robustness2 && robust2.robust_buffer_access2 != 0 && base.robust_buffer_access != 0,
            sampled_array_indexing: base.shader_sampled_image_array_dynamic_indexing != 0,
            storage_image_array_indexing: base.shader_storage_image_array_dynamic_indexing != 0,
            buffer_array_indexing: base.shader_storage_buffer_array_dynamic_indexing != 0
                && base.shader_uniform_buffer_array_dynamic_indexing != 0,
            array_non_uniform_indexing: base.shader_sampled_image_array_dynamic_indexing != 0
                && base.shader_storage_image_array_dynamic_indexing != 0
                && f12.shader_sampled_image_array_non_uniform_indexing != 0
                && f12.shader_storage_image_array_non_uniform_indexing != 0,
            sampler_minmax: f12.sampler_filter_minmax != 0,
            cube_arrays: base.image_cube_array != 0,
            max_push_descriptors: push.max_push_descriptors,
            lists_signal_fences: driver.driver_id != vk::DriverId::MESA_LLVMPIPE,
            thread_exit: ThreadExit::of(driver.driver_id, props.driver_version),
        };
        let mut unique: Vec<u32> = vec![families.direct, families.compute, families.copy];
        unique.sort_unstable();
        unique.dedup();
        // D3D12 gives no queue-family ownership to transfer: with several families, every
        // resource is shared by all of them (`CONCURRENT`), as vkd3d-proton does.
        let sharing = if unique.len() > 1 { unique.clone() } else { Vec::new() };
        // Compute lists may take a second queue of the graphics family.
        let count = |f: u32| if f == families.direct && families.compute == f { families.compute_index + 1 } else { 1 };
        let priorities = [1.0f32; 2];
        let queue_infos: Vec<_> = unique
            .iter()
            .map(|&f| {
                vk::DeviceQueueCreateInfo::default()
                    .queue_family_index(f)
                    .queue_priorities(&priorities[..count(f) as usize])
            })
            .collect();
        let mut ext_names = Vec::new();
        if features.conditional_rendering {
            ext_names.push(ash::ext::conditional_rendering::NAME.as_ptr());
        }
        if features.sample_locations {
            ext_names.push(ash::ext::sample_locations::NAME.as_ptr());
        }
        if features.image_kernels {
            ext_names.push(ash::khr::push_descriptor::NAME.as_ptr());
        }
        if features.robust_buffers {
            ext_names.push(ash::ext::robustness2::NAME.as_ptr());
        }
        let enabled = vk::PhysicalDeviceFeatures {
            sparse_binding: (features.sparse_buffer || features.sparse_image_2d) as u32,
            sparse_residency_buffer: features.sparse_buffer as u32,
            sparse_residency_image2_d: features.sparse_image_2d as u32,
            texture_compression_bc: features.bc as u32,
            pipeline_statistics_query: features.pipeline_statistics as u32,
            occlusion_query_precise: features.occlusion_precise as u32,
            independent_blend: base.independent_blend,
            image_cube_array: features.cube_arrays as u32,
            sample_rate_shading: base.sample_rate_shading,
            fragment_stores_and_atomics: base.fragment_stores_and_atomics,
            shader_int64: base.shader_int64,
            shader_storage_image_write_without_format: features.image_kernels as u32,
            robust_buffer_access: features.robust_buffers as u32,
            shader_sampled_image_array_dynamic_indexing: features.sampled_array_indexing as u32,
            shader_storage_image_array_dynamic_indexing: features.storage_image_array_indexing as u32,
            shader_storage_buffer_array_dynamic_indexing: features.buffer_array_indexing as u32,
            shader_uniform_buffer_array_dynamic_indexing: features.buffer_array_indexing as u32,
            ..Default::default()
        };
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
            .timeline_semaphore(true)
            .buffer_device_address(true)
            .host_query_reset(f12.host_query_reset != 0)
            .shader_output_layer(f12.shader_output_layer != 0)
            .scalar_block_layout(f12.scalar_block_layout != 0)
            .sampler_filter_minmax(features.sampler_minmax)
            .shader_sampled_image_array_non_uniform_indexing(features.array_non_uniform_indexing)
            .shader_storage_image_array_non_uniform_indexing(features.array_non_uniform_indexing);
        let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true)
            .maintenance4(f13.maintenance4 != 0);
        let mut cond = vk::PhysicalDeviceConditionalRenderingFeaturesEXT::default().conditional_rendering(true);
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_infos)
            .enabled_extension_names(&ext_names)
            .enabled_features(&enabled)
            .push_next(&mut e12)
            .push_next(&mut e13);
        if features.conditional_rendering {
            info = info.push_next(&mut cond);
        }
        let mut robust = vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_buffer_access2(true);
        if features.robust_buffers {
            info = info.push_next(&mut robust);
        }
        let device = create_device(i, physical, &info)?;
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: i.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: true,
            allocation_sizes: Default::default(),
        });
        let allocator = match allocator {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: nothing was created from the device yet.
                crate::gate::exclusive(|| unsafe { device.destroy_device(None) });
                return Err(Error::unsupported(format!("Vulkan: cannot create the memory allocator: {e}")));
            }
        };
        let queues = unique
            .iter()
            .flat_map(|&f| (0..count(f)).map(move |i| (f, i)))
            .map(|(f, i)| {
                // SAFETY: `count(f)` queues of each family were requested above.
                ((f, i), Mutex::new(unsafe { device.get_device_queue(f, i) }))
            })
            .collect();
        let conditional =
            features.conditional_rendering.then(|| ash::ext::conditional_rendering::Device::new(i, &device));
        let push_descriptor = features.image_kernels.then(|| ash::khr::push_descriptor::Device::new(i, &device));
        Ok(Self {
            push_descriptor,
            instance,
            physical,
            device,
            allocator: Mutex::new(ManuallyDrop::new(allocator)),
            queues,
            families,
            sharing,
            props,
            features,
            conditional,
            submitted: Mutex::new(HashMap::default()),
            submitted_changed: Condvar::new(),
            meta: std::sync::OnceLock::new(),
            compute_copy_min: std::sync::OnceLock::new(),
            lost: Default::default(),
            shader_time_budget: std::time::Duration::from_secs(2),
            calls_here: false,
            compiles_here: false,
            drops: Default::default(),
            watchdog: std::sync::OnceLock::new(),
            one_time_fence: Mutex::new(None),
            list_pools: Default::default(),
            samplers: Default::default(),
            inboxes: Default::default(),
        })
    }

    /// Makes `submit` with the device's one-time fence and waits for it, for at most 30 s (a
    /// lost device then fails the call instead of hanging it). One at a time per device. A
    /// timed-out fence is left to the driver (it is still the GPU's) and the next call makes
    /// another.
    pub(crate) fn submit_and_wait(&self, submit: impl FnOnce(vk::Fence) -> VkResult<()>) -> VkResult<()> {
        let mut slot = self.one_time_fence.lock().unwrap_or_else(PoisonError::into_inner);
        let d = &self.device;
        let fence = match *slot {
            Some(f) => f,
            // SAFETY: a plain fence of this device.
            None => unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None)? },
        };
        *slot = None;
        let r = submit(fence);
        // SAFETY: the fence is this device's and only used under the lock.
        let r = self.note(r.and_then(|_| unsafe { d.wait_for_fences(&[fence], true, 30_000_000_000) }));
        match r {
            Err(vk::Result::TIMEOUT) => {
                tracing::error!("a one-time submission did not finish in 30 s; its fence is left to the driver");
            }
            // SAFETY: the fence has signalled (or its submission failed): nothing uses it.
            _ => match unsafe { d.reset_fences(&[fence]) } {
                Ok(()) => *slot = Some(fence),
                // SAFETY: as above.
                Err(_) => unsafe { d.destroy_fence(fence, None) },
            },
        }
        r
    }

    /// Whether legacy copies may run as compute shaders on this device: the copy scope then
    /// covers the compute stage too.
    pub(crate) fn compute_copies(&self) -> bool {
        self.compute_copy_min.get().copied().flatten().is_some()
    }

    pub(crate) fn allocator(&self) -> MutexGuard<'_, ManuallyDrop<Allocator>> {
        self.allocator.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The shared queue `index` of a family; lock it for every submission.
    pub(crate) fn queue(&self, family: u32, index: u32) -> &Mutex<vk::Queue> {
        &self.queues[&(family, index)]
    }

    /// Takes the slot for a signal of `value` on `semaphore`: until the slot is dropped, no other
    /// signal of any semaphore is submitted, so host and queue signals of one fence happen in one
    /// order. The slot says whether the signal moves the semaphore forward (a timeline semaphore
    /// may only be signalled above its value and every pending signal).
    pub(crate) fn signal_slot(&self, semaphore: vk::Semaphore, value: u64) -> SignalSlot<'_> {
        let table = self.submitted.lock().unwrap_or_else(PoisonError::into_inner);
        let last = table.get(&semaphore).copied().unwrap_or_default();
        let reached = self.counter(semaphore);
        SignalSlot { core: self, table, semaphore, value, last, reached }
    }

    /// Forgets what was signalled of a semaphore about to be destroyed: the driver may give its
    /// handle to the next semaphore it makes (NVIDIA's and lavapipe's do, without the
    /// validation layer), which starts with none of these signals.
    pub(crate) fn forget(&self, semaphore: vk::Semaphore) {
        self.submitted.lock().unwrap_or_else(PoisonError::into_inner).remove(&semaphore);
    }

    /// Blocks until a signal reaching `value` has been submitted or has happened on the CPU,
    /// `deadline` passes, or `cancel` returns true (checked every 50 ms).
    pub(crate) fn wait_submitted(
        &self,
        semaphore: vk::Semaphore,
        value: u64,
        deadline: Option<std::time::Instant>,
        cancel: impl Fn() -> bool,
    ) -> bool {
        const POLL: std::time::Duration = std::time::Duration::from_millis(50);
        let submitted = |m: &HashMap<vk::Semaphore, Signalled>| submitted_in(m, semaphore, value);
        // A wait for a submission on its way (the app's wait right after its `Signal`) sees it
        // submitted within the queue thread's next job: polled for, where threads poll, not
        // slept on (its wake-up would come after the GPU's work).
        let limit = deadline.map_or(crate::threads::SPIN, |d| {
            d.saturating_duration_since(std::time::Instant::now()).min(crate::threads::SPIN)
        });
        crate::gate::unlocked(|| {
            crate::threads::spin_until(limit, || {
                submitted(&self.submitted.lock().unwrap_or_else(PoisonError::into_inner))
            })
        });
        loop {
            // The table's lock is not held across the driver call, nor the gate across the wait
            // (another thread submits the signal: `gate.rs`).
            if self.signal_known(semaphore, value) {
                return true;
            }
            let left = deadline.map_or(POLL, |d| d.saturating_duration_since(std::time::Instant::now()));
            if left.is_zero() || cancel() {
                return false;
            }
            crate::gate::unlocked(|| {
                let m = self.submitted.lock().unwrap_or_else(PoisonError::into_inner);
                if !submitted(&m) {
                    drop(
                        self.submitted_changed.wait_timeout(m, left.min(POLL)).unwrap_or_else(PoisonError::into_inner),
                    );
                }
            });
        }
    }

    /// Whether a signal reaching `value` has been submitted or has happened on the CPU: a wait
    /// for it waits for no other thread.
    pub(crate) fn signal_known(&self, semaphore: vk::Semaphore, value: u64) -> bool {
        submitted_in(&self.submitted.lock().unwrap_or_else(PoisonError::into_inner), semaphore, value)
            || self.counter(semaphore) >= value
    }

    pub(crate) fn counter(&self, semaphore: vk::Semaphore) -> u64 {
        debug_assert!(crate::threads::on_driver_thread(), "a driver call off the driver threads");
        // SAFETY: the semaphore is a live timeline semaphore of this device.
        self.note(unsafe { self.device.get_semaphore_counter_value(semaphore) }).unwrap_or(0)
    }

    /// Passes `r` through, remembering a lost device.
    pub(crate) fn note<T>(&self, r: ash::prelude::VkResult<T>) -> ash::prelude::VkResult<T> {
        if r.as_ref().err() == Some(&vk::Result::ERROR_DEVICE_LOST) {
            tracing::error!("the Vulkan device was lost");
            self.lost.store(true, std::sync::atomic::Ordering::Release);
        }
        r
    }

    /// Whether a call returned `VK_ERROR_DEVICE_LOST`.
    pub(crate) fn is_lost(&self) -> bool {
        self.lost.load(std::sync::atomic::Ordering::Acquire) || self.hung()
    }

    /// Whether an app kernel ran past the shader time budget (`watchdog.rs`).
    pub(crate) fn hung(&self) -> bool {
        self.watchdog.get().is_some_and(|w| w.hung())
    }

    /// Whether the device enforces the shader time budget itself: a CPU device has no GPU
    /// timeout to end a kernel that never does.
    pub(crate) fn enforces_time_budget(&self) -> bool {
        self.props.device_type == vk::PhysicalDeviceType::CPU
    }

    /// The budget's watchdog, made on first use, where the device enforces the budget.
    pub(crate) fn watchdog(&self) -> Result<Option<&crate::watchdog::Watchdog>> {
        if !self.enforces_time_budget() {
            return Ok(None);
        }
        if self.watchdog.get().is_none() {
            // Two first kernels at once make two; the second is dropped unused.
            let _ = self.watchdog.set(crate::watchdog::Watchdog::new(self, self.shader_time_budget)?);
        }
        Ok(self.watchdog.get())
    }

    /// Runs `record` in a one-time command buffer on the direct family and waits for it.
    pub(crate) fn one_time(&self, record: impl FnOnce(vk::CommandBuffer)) -> Result<()> {
        debug_assert!(crate::threads::on_driver_thread(), "a driver call off the driver threads");
        let d = &self.device;
        let fail = |e: vk::Result| Error::out_of_memory(format!("Vulkan: one-time submission failed: {e}"));
        // SAFETY: the pool, buffer and fence are created, used and destroyed here; the queue is
        // locked for the submission and the wait.
        unsafe {
            let pool = d
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(self.families.direct),
                    None,
                )
                .map_err(fail)?;
            // An error, and whether the pool may be destroyed.
            let result = (|| {
                let cb = d
                    .allocate_command_buffers(
                        &vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1),
                    )
                    .map_err(|e| (fail(e), true))?[0];
                d.begin_command_buffer(
                    cb,
                    &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(|e| (fail(e), true))?;
                record(cb);
                d.end_command_buffer(cb).map_err(|e| (fail(e), true))?;
                let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
                let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cbs)];
                let r = self.submit_and_wait(|fence| {
                    let q = self.queue(self.families.direct, 0).lock().unwrap_or_else(PoisonError::into_inner);
                    d.queue_submit2(*q, &submit, fence)
                });
                if r == Err(vk::Result::TIMEOUT) {
                    // Still pending: the pool is the GPU's until it is done, so it is left to
                    // the driver with the fence (VUID-vkDestroyFence-fence-01120).
                    tracing::error!("a one-time submission did not finish in 30 s; its pool is left to the driver");
                    return Err((fail(vk::Result::TIMEOUT), false));
                }
                r.map_err(|e| (fail(e), true))
            })();
            match result {
                Err((e, false)) => Err(e),
                result => {
                    d.destroy_command_pool(pool, None);
                    result.map_err(|(e, _)| e)
                }
            }
        }
    }
}

/// What the loader reports of a `vkCreateDevice` the driver failed (Vulkan-Loader 1.3.239).
const LOADER_CREATE_FAILURES: &[&str] = &["terminator_CreateDevice: Failed in ICD", "Failed to create device chain"];

/// Device creations one at a time in the process.
static CREATING: Mutex<()> = Mutex::new(());

/// Mesa's drivers for a GPU or the CPU, whose threads may end while others call them: none
/// locks anything in a thread's exit (lavapipe ran the tests with every call on the app's
/// threads before the pool existed). Venus and Dozen, which pass the calls on to another
/// driver, are not counted in.
fn mesa_native(id: vk::DriverId) -> bool {
    matches!(
        id,
        vk::DriverId::MESA_RADV
            | vk::DriverId::INTEL_OPEN_SOURCE_MESA
            | vk::DriverId::MESA_LLVMPIPE
            | vk::DriverId::MESA_TURNIP
            | vk::DriverId::MESA_V3DV
            | vk::DriverId::MESA_PANVK
            | vk::DriverId::MESA_NVK
            | vk::DriverId::MESA_AGXV
            | vk::DriverId::IMAGINATION_OPEN_SOURCE_MESA
    )
}

/// `vkCreateDevice`, one call at a time, tried again after a pause where the driver fails to
/// initialise: NVIDIA's driver 580.159 returns `VK_ERROR_INITIALIZATION_FAILED` for some of
/// the devices that many threads create at once (a test binary's parallel tests), and creates
/// them one after another. Under the validation layer (slower, so more devices live at once)
/// 1.5 s of retries were not enough for `bound_clears`' parallel tests: about 13 s in all.
/// The loader reports each failed attempt through the messenger; an attempt the device then
/// retries is no error of the app's, so those reports count as warnings (a creation that
/// fails for good returns its error).
fn create_device(i: &ash::Instance, physical: vk::PhysicalDevice, info: &vk::DeviceCreateInfo) -> Result<ash::Device> {
    const TRIES: u32 = 12;
    const LONGEST: std::time::Duration = std::time::Duration::from_secs(2);
    let mut pause = std::time::Duration::from_millis(50);
    for attempt in 1..=TRIES {
        let r = crate::gate::exclusive(|| {
            let _one = CREATING.lock().unwrap_or_else(PoisonError::into_inner);
            let retried = if attempt < TRIES { LOADER_CREATE_FAILURES } else { &[] };
            crate::instance::disproven(retried, || {
                // SAFETY: every pointer in `info` refers to the caller's locals, alive during the call.
                unsafe { i.create_device(physical, info, None) }
            })
        });
        match r {
            Ok(device) => return Ok(device),
            Err(vk::Result::ERROR_INITIALIZATION_FAILED) if attempt < TRIES => {
                tracing::warn!("vkCreateDevice: initialization failed (attempt {attempt} of {TRIES}); trying again");
                crate::gate::unlocked(|| std::thread::sleep(pause));
                pause = (pause * 2).min(LONGEST);
            }
            Err(e) => return Err(Error::unsupported(format!("Vulkan: cannot create the device: {e}"))),
        }
    }
    Err(Error::unsupported("Vulkan: cannot create the device"))
}

/// How long dropping a device waits for the driver to destroy it.
pub(crate) const DESTROY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl Drop for Core {
    fn drop(&mut self) {
        // On a driver thread (`threads.rs`).
        crate::threads::on_driver(|| {
            // SAFETY: waiting for idle, then destroying the allocator's memory once; every object
            // made from the device holds an Arc of this core and is gone by now.
            unsafe {
                let _ = self.device.device_wait_idle();
                if let Some(f) = self.one_time_fence.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
                    self.device.destroy_fence(f, None);
                }
                drop(self.meta.take());
                drop(self.watchdog.take());
                self.list_pools.destroy_all(&self.device);
                for s in self.samplers.get_mut().unwrap_or_else(PoisonError::into_inner).values() {
                    self.device.destroy_sampler(*s, None);
                }
                ManuallyDrop::drop(self.allocator.get_mut().unwrap_or_else(PoisonError::into_inner));
            }
            let device = self.device.clone();
            // The instance outlives the device: the task holds it until the device is gone.
            let instance = self.instance.clone();
            let destroy = move || {
                // SAFETY: the device is idle and nothing made from it is left; it is destroyed once.
                crate::gate::exclusive(|| unsafe { device.destroy_device(None) });
                drop(instance);
            };
            // On a pooled thread, waited for a bounded time (`threads.rs` says why).
            match crate::threads::spawn(destroy) {
                Ok(task) => {
                    if !task.join_timeout(DESTROY_TIMEOUT) {
                        tracing::error!(
                            "vkDestroyDevice did not return in {DESTROY_TIMEOUT:?}; the device is left to the driver"
                        );
                    }
                }
                Err(e) => tracing::error!("the device could not be destroyed: {}", e.text),
            }
        })
    }
}

/// Whether `table` holds a signal of `semaphore` reaching `value`.
fn submitted_in(table: &HashMap<vk::Semaphore, Signalled>, semaphore: vk::Semaphore, value: u64) -> bool {
    table.get(&semaphore).is_some_and(|s| s.value >= value)
}

/// The highest signal of a semaphore submitted or done on the host.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Signalled {
    value: u64,
    /// A queue's signal no host wait has seen yet.
    unseen: bool,
}

/// The right to signal one timeline semaphore next (see [`Core::signal_slot`]).
pub(crate) struct SignalSlot<'a> {
    core: &'a Core,
    table: MutexGuard<'a, HashMap<vk::Semaphore, Signalled>>,
    semaphore: vk::Semaphore,
    value: u64,
    last: Signalled,
    reached: u64,
}

impl SignalSlot<'_> {
    /// Whether the signal moves the semaphore forward. One that does not is left out: the
    /// fence is already past it, and a fence's value is the highest value signalled on it.
    pub(crate) fn moves_forward(&self) -> bool {
        self.value > self.last.value.max(self.reached)
    }

    /// The highest signal submitted to a queue, until a host wait for it has been made: the
    /// validation layer counts a queue's signal as pending until a host wait sees it, and a
    /// host signal may not pass a pending one.
    pub(crate) fn unseen(&self) -> Option<u64> {
        self.last.unseen.then_some(self.last.value)
    }

    /// Records that a host wait saw the queue's signal of `value`.
    pub(crate) fn seen(mut self, value: u64) {
        if let Some(s) = self.table.get_mut(&self.semaphore).filter(|s| s.value == value) {
            s.unseen = false;
        }
    }

    /// Records that the signal was submitted to a queue (`by_queue`) or done on the host.
    pub(crate) fn done(mut self, by_queue: bool) {
        if self.moves_forward() {
            self.table.insert(self.semaphore, Signalled { value: self.value, unseen: by_queue });
            self.core.submitted_changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests;

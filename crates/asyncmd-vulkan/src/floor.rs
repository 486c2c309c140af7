//! The floor a runtime on Vulkan is measured against: the peer benchmark's workloads as plain
//! `ash` calls, with nothing between the app and the driver (no tracking, no barriers the
//! work does not need, one command pool reset per run). `asyncmd bench --suite peers` sets it
//! beside asyncmd and wgpu on the same adapter; the tests run it on every driver.

use ash::vk;
use asyncmd_types::{Error, MessageId, Result};
use std::time::{Duration, Instant};

/// What the floor records in one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloorWork {
    /// `count` copies of `bytes` each, between independent buffers.
    Copies {
        /// Copies.
        count: u32,
        /// Bytes each.
        bytes: u64,
    },
    /// `count` zero fills of `bytes` each, of independent buffers.
    ZeroFills {
        /// Fills.
        count: u32,
        /// Bytes each.
        bytes: u64,
    },
    /// `count` clears of `side`² RGBA8 textures to one color.
    TextureClears {
        /// Textures.
        count: u32,
        /// Width and height.
        side: u32,
    },
    /// `commands` copies of 256 bytes into disjoint ranges of one buffer.
    Stream {
        /// Copies.
        commands: u32,
    },
}

/// Objects one work may make at most (the peer suite's largest makes 128).
const MAX_OBJECTS: u64 = 4096;

impl FloorWork {
    /// Objects the work makes and the bytes they hold, or `None` past `u64`.
    fn footprint(&self) -> Option<(u64, u64)> {
        match *self {
            FloorWork::Copies { count, bytes } => {
                let n = u64::from(count).checked_mul(2)?;
                Some((n, n.checked_mul(bytes)?))
            }
            FloorWork::ZeroFills { count, bytes } => Some((u64::from(count), u64::from(count).checked_mul(bytes)?)),
            FloorWork::TextureClears { count, side } => {
                let each = u64::from(side).checked_mul(u64::from(side))?.checked_mul(4)?;
                Some((u64::from(count), u64::from(count).checked_mul(each)?))
            }
            FloorWork::Stream { commands } => Some((2, u64::from(commands).checked_mul(256)?.checked_add(256)?)),
        }
    }

    /// Refuses work Vulkan cannot hold: empty buffers or images, images past `max_side`,
    /// more than [`MAX_OBJECTS`] objects, more bytes than `device_bytes`.
    fn check(&self, max_side: u32, device_bytes: u64) -> Result<()> {
        let bad = |why: String| {
            Err(Error::invalid_arg(MessageId::CreateResourceInvalidDesc, format!("Vulkan floor: {self:?}: {why}")))
        };
        match *self {
            FloorWork::Copies { bytes: 0, .. } | FloorWork::ZeroFills { bytes: 0, .. } => {
                return bad("buffers of 0 bytes".into())
            }
            FloorWork::Stream { commands: 0 } => return bad("a stream of no commands".into()),
            FloorWork::TextureClears { side, .. } if side == 0 || side > max_side => {
                return bad(format!("a side of {side} (1 to {max_side})"))
            }
            _ => {}
        }
        match self.footprint() {
            Some((objects, _)) if objects > MAX_OBJECTS => bad(format!("{objects} objects (at most {MAX_OBJECTS})")),
            Some((_, bytes)) if bytes > device_bytes => {
                bad(format!("{bytes} bytes, more than the device's largest heap ({device_bytes})"))
            }
            Some(_) => Ok(()),
            None => bad("its size overflows 64 bits".into()),
        }
    }
}

/// What one run cost.
#[derive(Clone, Copy, Debug)]
pub struct FloorSample {
    /// CPU microseconds from the first recording call to the submission's return.
    pub cpu_us: f64,
    /// CPU microseconds from the submission to the CPU seeing it done.
    pub done_us: f64,
    /// Device milliseconds between the timestamps around the work; `None` where the queue
    /// has no timestamps.
    pub gpu_ms: Option<f64>,
}

/// The driver's own timeout for the floor's waits: a run past it is a hung device.
const WAIT: Duration = Duration::from_secs(20);

fn fail(what: &str) -> impl Fn(vk::Result) -> Error + '_ {
    move |e| Error::fail(MessageId::DeviceUnsupported, format!("Vulkan floor: {what}: {e}"))
}

/// One buffer or image and its memory.
struct Owned {
    buffer: vk::Buffer,
    image: vk::Image,
    memory: vk::DeviceMemory,
}

/// A raw Vulkan device with one queue, the objects of the work prepared last, and two
/// timestamps.
///
/// Every call goes to the driver from the caller's thread, as a plain app's would. On NVIDIA's
/// driver no thread that has made such calls may end while another thread calls it (the
/// deadlock `threads.rs` describes), so use it from threads that outlive it, as the bench's
/// main thread does.
pub struct Floor {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    memory_types: vk::PhysicalDeviceMemoryProperties,
    queue: vk::Queue,
    pool: vk::CommandPool,
    cb: vk::CommandBuffer,
    fence: vk::Fence,
    ticks: Option<vk::QueryPool>,
    /// Nanoseconds per timestamp tick.
    period: f64,
    /// The largest 2D image side.
    max_side: u32,
    name: String,
    work: Option<FloorWork>,
    objects: Vec<Owned>,
}

impl Floor {
    /// Opens the adapter named `name` (the first adapter where `None`) with one queue of a
    /// graphics family.
    pub fn open(name: Option<&str>) -> Result<Self> {
        // SAFETY: loading libvulkan runs its initialisers; we trust the system's loader.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| Error::unsupported(format!("Vulkan floor: no Vulkan loader: {e}")))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        // SAFETY: the create info points at a local that outlives the call.
        let instance =
            unsafe { entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None) }
                .map_err(fail("vkCreateInstance"))?;
        match Self::open_on(entry.clone(), &instance, name) {
            Ok(floor) => Ok(floor),
            Err(e) => {
                // SAFETY: nothing was made from the instance that is still alive.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn open_on(entry: ash::Entry, instance: &ash::Instance, name: Option<&str>) -> Result<Self> {
        // SAFETY: plain enumeration on a live instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }.map_err(fail("vkEnumeratePhysicalDevices"))?;
        let physical = physicals
            .into_iter()
            .find(|&p| name.is_none_or(|n| device_name(instance, p) == n))
            .ok_or_else(|| Error::unsupported(format!("Vulkan floor: no adapter named {name:?}")))?;
        // SAFETY: queries on a physical device of this instance.
        let (families, memory_types, props) = unsafe {
            (
                instance.get_physical_device_queue_family_properties(physical),
                instance.get_physical_device_memory_properties(physical),
                instance.get_physical_device_properties(physical),
            )
        };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE))
            .ok_or_else(|| Error::unsupported("Vulkan floor: no graphics queue family"))?;
        let family = family as u32;
        let has_ticks = families[family as usize].timestamp_valid_bits > 0;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
        // SAFETY: the create info points at locals that outlive the call.
        let device = unsafe {
            instance.create_device(physical, &vk::DeviceCreateInfo::default().queue_create_infos(&queues), None)
        }
        .map_err(fail("vkCreateDevice"))?;
        let mut floor = Floor {
            _entry: entry,
            instance: instance.clone(),
            device,
            memory_types,
            queue: vk::Queue::null(),
            pool: vk::CommandPool::null(),
            cb: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            ticks: None,
            period: f64::from(props.limits.timestamp_period),
            max_side: props.limits.max_image_dimension2_d,
            name: device_name(instance, physical),
            work: None,
            objects: Vec::new(),
        };
        // SAFETY: objects of the live device, each destroyed in `Drop` (null handles are
        // ignored there, so a failure half-way leaves nothing behind).
        unsafe {
            floor.queue = floor.device.get_device_queue(family, 0);
            floor.pool = floor
                .device
                .create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)
                .map_err(fail("vkCreateCommandPool"))?;
            floor.cb = floor
                .device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default().command_pool(floor.pool).command_buffer_count(1),
                )
                .map_err(fail("vkAllocateCommandBuffers"))?[0];
            floor.fence =
                floor.device.create_fence(&vk::FenceCreateInfo::default(), None).map_err(fail("vkCreateFence"))?;
            if has_ticks {
                let info = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2);
                floor.ticks = Some(floor.device.create_query_pool(&info, None).map_err(fail("vkCreateQueryPool"))?);
            }
        }
        Ok(floor)
    }

    /// The adapter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Makes the objects `work` needs (those of the work before are destroyed).
    /// Work Vulkan cannot hold is refused with `InvalidArg` (see [`FloorWork`]'s sizes).
    pub fn prepare(&mut self, work: FloorWork) -> Result<()> {
        self.release();
        work.check(self.max_side, self.largest_heap())?;
        let usage = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
        match work {
            FloorWork::Copies { count, bytes } => {
                for _ in 0..count.saturating_mul(2) {
                    self.buffer(bytes, usage)?;
                }
            }
            FloorWork::ZeroFills { count, bytes } => {
                for _ in 0..count {
                    self.buffer(bytes, usage)?;
                }
            }
            FloorWork::Stream { commands } => {
                self.buffer(256, usage)?;
                self.buffer(u64::from(commands) * 256, usage)?;
            }
            FloorWork::TextureClears { count, side } => {
                for _ in 0..count {
                    self.image(side)?;
                }
                // The images stay in TRANSFER_DST_OPTIMAL from here on: one transition each.
                self.submit_and_wait(|d, cb, objects| {
                    let barriers: Vec<_> = objects
                        .iter()
                        .map(|o| {
                            vk::ImageMemoryBarrier2::default()
                                .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                                .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                                .old_layout(vk::ImageLayout::UNDEFINED)
                                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                                .image(o.image)
                                .subresource_range(color_range())
                        })
                        .collect();
                    // SAFETY: recording into the floor's open command buffer.
                    unsafe {
                        d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().image_memory_barriers(&barriers))
                    };
                })?;
            }
        }
        self.work = Some(work);
        Ok(())
    }

    /// Records the prepared work between two timestamps, submits it and waits: what it cost.
    pub fn run(&mut self) -> Result<FloorSample> {
        self.run_with(self.ticks)
    }

    /// Records the prepared work alone, submits it and waits: what it cost, with no GPU time.
    /// Rows that time the CPU's side of a submission (a cycle, submit → done) record only
    /// their work, as the other engines of the peer suite do.
    pub fn run_untimed(&mut self) -> Result<FloorSample> {
        self.run_with(None)
    }

    fn run_with(&mut self, ticks: Option<vk::QueryPool>) -> Result<FloorSample> {
        let work = self.work.ok_or_else(|| Error::unsupported("Vulkan floor: run before prepare"))?;
        let start = Instant::now();
        let (d, cb) = (&self.device, self.cb);
        // SAFETY: the pool's buffer is not in use (the last run was waited for); every object
        // recorded is the floor's and alive until the next `prepare`.
        unsafe {
            d.reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty()).map_err(fail("vkResetCommandPool"))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.begin_command_buffer(cb, &begin).map_err(fail("vkBeginCommandBuffer"))?;
            if let Some(q) = ticks {
                d.cmd_reset_query_pool(cb, q, 0, 2);
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::TOP_OF_PIPE, q, 0);
            }
            self.record(work);
            if let Some(q) = ticks {
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::BOTTOM_OF_PIPE, q, 1);
            }
            d.end_command_buffer(cb).map_err(fail("vkEndCommandBuffer"))?;
            let cbs = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
            d.queue_submit(self.queue, &submit, self.fence).map_err(fail("vkQueueSubmit"))?;
        }
        let submitted = Instant::now();
        self.wait()?;
        let done = Instant::now();
        Ok(FloorSample {
            cpu_us: (submitted - start).as_secs_f64() * 1e6,
            done_us: (done - submitted).as_secs_f64() * 1e6,
            gpu_ms: if ticks.is_some() { self.gpu_ms()? } else { None },
        })
    }

    /// Records `work` into the open command buffer.
    ///
    /// # Safety
    /// The command buffer is recording and the prepared objects are `work`'s.
    unsafe fn record(&self, work: FloorWork) {
        let (d, cb) = (&self.device, self.cb);
        let o = &self.objects;
        match work {
            FloorWork::Copies { bytes, .. } => {
                for pair in o.chunks_exact(2) {
                    let region = [vk::BufferCopy { src_offset: 0, dst_offset: 0, size: bytes }];
                    // SAFETY: both buffers hold `bytes` (the caller's contract).
                    unsafe { d.cmd_copy_buffer(cb, pair[1].buffer, pair[0].buffer, &region) };
                }
            }
            FloorWork::ZeroFills { .. } => {
                for b in o {
                    // SAFETY: as above.
                    unsafe { d.cmd_fill_buffer(cb, b.buffer, 0, vk::WHOLE_SIZE, 0) };
                }
            }
            FloorWork::Stream { commands } => {
                for i in 0..u64::from(commands) {
                    let region = [vk::BufferCopy { src_offset: 0, dst_offset: i * 256, size: 256 }];
                    // SAFETY: the destination holds `commands` × 256 bytes.
                    unsafe { d.cmd_copy_buffer(cb, o[0].buffer, o[1].buffer, &region) };
                }
            }
            FloorWork::TextureClears { .. } => {
                let color = vk::ClearColorValue { float32: [0.2, 0.4, 0.6, 0.8] };
                for t in o {
                    // SAFETY: the images are in TRANSFER_DST_OPTIMAL since `prepare`.
                    unsafe {
                        d.cmd_clear_color_image(
                            cb,
                            t.image,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            &color,
                            &[color_range()],
                        )
                    };
                }
            }
        }
    }

    fn wait(&self) -> Result<()> {
        // SAFETY: the fence of the floor's last submission.
        unsafe {
            self.device
                .wait_for_fences(&[self.fence], true, WAIT.as_nanos() as u64)
                .map_err(fail("vkWaitForFences"))?;
            self.device.reset_fences(&[self.fence]).map_err(fail("vkResetFences"))
        }
    }

    fn gpu_ms(&self) -> Result<Option<f64>> {
        let Some(q) = self.ticks else { return Ok(None) };
        let mut ticks = [0u64; 2];
        // SAFETY: both queries were written by the submission waited for.
        unsafe {
            self.device.get_query_pool_results(
                q,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(fail("vkGetQueryPoolResults"))?;
        Ok(Some(ticks[1].saturating_sub(ticks[0]) as f64 * self.period / 1e6))
    }

    /// Records with `f`, submits, waits.
    fn submit_and_wait(&self, f: impl FnOnce(&ash::Device, vk::CommandBuffer, &[Owned])) -> Result<()> {
        let (d, cb) = (&self.device, self.cb);
        // SAFETY: as in `run`.
        unsafe {
            d.reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty()).map_err(fail("vkResetCommandPool"))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.begin_command_buffer(cb, &begin).map_err(fail("vkBeginCommandBuffer"))?;
            f(d, cb, &self.objects);
            d.end_command_buffer(cb).map_err(fail("vkEndCommandBuffer"))?;
            let cbs = [cb];
            d.queue_submit(self.queue, &[vk::SubmitInfo::default().command_buffers(&cbs)], self.fence)
                .map_err(fail("vkQueueSubmit"))?;
        }
        self.wait()
    }

    /// Bytes of the largest device-local heap.
    fn largest_heap(&self) -> u64 {
        let m = &self.memory_types;
        m.memory_heaps[..m.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0)
    }

    /// The first device-local memory type `bits` allows.
    fn memory_type(&self, bits: u32) -> Result<u32> {
        let types = &self.memory_types.memory_types[..self.memory_types.memory_type_count as usize];
        (0..types.len() as u32)
            .find(|&i| {
                bits & (1 << i) != 0 && types[i as usize].property_flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
            })
            .ok_or_else(|| Error::unsupported("Vulkan floor: no device-local memory type"))
    }

    /// New device-local memory for `req`, owned by the object pushed last (so that `release`
    /// frees it).
    fn memory_for(&mut self, req: vk::MemoryRequirements) -> Result<vk::DeviceMemory> {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(self.memory_type(req.memory_type_bits)?);
        // SAFETY: a plain allocation on the live device, recorded for `release` at once.
        let memory = unsafe { self.device.allocate_memory(&info, None) }.map_err(fail("vkAllocateMemory"))?;
        if let Some(last) = self.objects.last_mut() {
            last.memory = memory;
        }
        Ok(memory)
    }

    fn buffer(&mut self, bytes: u64, usage: vk::BufferUsageFlags) -> Result<()> {
        let d = self.device.clone();
        // SAFETY: a new buffer bound to new memory of its own; both recorded in `objects`
        // before anything can fail after their creation, so `release` destroys them.
        unsafe {
            let buffer = d
                .create_buffer(&vk::BufferCreateInfo::default().size(bytes).usage(usage), None)
                .map_err(fail("vkCreateBuffer"))?;
            self.objects.push(Owned { buffer, image: vk::Image::null(), memory: vk::DeviceMemory::null() });
            let memory = self.memory_for(d.get_buffer_memory_requirements(buffer))?;
            d.bind_buffer_memory(buffer, memory, 0).map_err(fail("vkBindBufferMemory"))
        }
    }

    fn image(&mut self, side: u32) -> Result<()> {
        let d = self.device.clone();
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .extent(vk::Extent3D { width: side, height: side, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC);
        // SAFETY: as in `buffer`.
        unsafe {
            let image = d.create_image(&info, None).map_err(fail("vkCreateImage"))?;
            self.objects.push(Owned { buffer: vk::Buffer::null(), image, memory: vk::DeviceMemory::null() });
            let memory = self.memory_for(d.get_image_memory_requirements(image))?;
            d.bind_image_memory(image, memory, 0).map_err(fail("vkBindImageMemory"))
        }
    }

    /// Destroys the prepared objects once the device is idle.
    fn release(&mut self) {
        let d = &self.device;
        // SAFETY: every submission was waited for (`run` and `prepare` wait), and an idle
        // device uses none of the objects; null handles are ignored by the driver.
        unsafe {
            let _ = d.device_wait_idle();
            for o in self.objects.drain(..) {
                d.destroy_buffer(o.buffer, None);
                d.destroy_image(o.image, None);
                d.free_memory(o.memory, None);
            }
        }
        self.work = None;
    }
}

/// The adapter's name as the driver reports it.
fn device_name(instance: &ash::Instance, physical: vk::PhysicalDevice) -> String {
    // SAFETY: a query on a physical device of this instance.
    let props = unsafe { instance.get_physical_device_properties(physical) };
    props.device_name_as_c_str().map_or_else(|_| "unknown".into(), |n| n.to_string_lossy().into_owned())
}

fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default().aspect_mask(vk::ImageAspectFlags::COLOR).level_count(1).layer_count(1)
}

impl Drop for Floor {
    fn drop(&mut self) {
        self.release();
        // SAFETY: the device is idle (`release` waited) and nothing made from it is used after
        // this; null handles are ignored.
        unsafe {
            if let Some(q) = self.ticks {
                self.device.destroy_query_pool(q, None);
            }
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

//! Which Vulkan calls leave the calling thread per-thread driver state: thread keys with a
//! destructor that runs when the thread exits, where NVIDIA's driver deadlocks (`threads.rs`).
//! Each call, or group of calls, runs on a thread of its own that then exits. Run it with the
//! spy preloaded, which names every thread key a library sets and every destructor that runs
//! at a thread's exit:
//!
//! ```sh
//! gcc -O1 -shared -fPIC -o spy.so crates/asyncmd-vulkan/tools/thread_state_spy.c -ldl
//! cargo build --release -p asyncmd-vulkan --example driver_thread_state
//! LD_PRELOAD=$PWD/spy.so target/release/examples/driver_thread_state 2>&1 | grep -v asyncmd
//! ```
//!
//! A step whose thread shows no `set` line of a driver library and runs no destructor leaves
//! no state: the Vulkan device makes such calls on the app's threads (`ThreadExit`). Without
//! the spy it runs every step on the first Vulkan device, or says there is none.

// Raw Vulkan calls are the point; each block says why it is sound.
#![allow(unsafe_code)]

use ash::vk;
use std::error::Error;

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

/// Runs `f` on a new thread, which exits before the next step begins.
fn step<R: Send>(name: &str, f: impl FnOnce() -> Res<R> + Send) -> Res<R> {
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            eprintln!("STEP {name}");
            f()
        })
        .join()
    });
    // The thread's exit (its destructors' output) comes before the next step's name.
    eprintln!("END {name}");
    r.map_err(|_| format!("{name} panicked"))?
}

/// A compute kernel of one storage buffer, through naga as the device's app kernels are.
fn kernel() -> Res<Vec<u32>> {
    const WGSL: &str = "@group(0) @binding(0) var<storage, read_write> d: array<u32>;
        @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3<u32>) {
            if i.x < arrayLength(&d) { d[i.x] = 7u; } }";
    let module = naga::front::wgsl::parse_str(WGSL)?;
    let info = naga::valid::Validator::new(Default::default(), Default::default()).validate(&module)?;
    Ok(naga::back::spv::write_vec(&module, &info, &Default::default(), None)?)
}

fn main() -> Res<()> {
    // SAFETY: loading libvulkan runs its initialisers; we trust the system's loader.
    let entry = match step("load the loader", || Ok(unsafe { ash::Entry::load() }?)) {
        Ok(e) => e,
        Err(e) => {
            println!("no Vulkan loader: {e}");
            return Ok(());
        }
    };
    // SAFETY: every object below is made from live parents, used while alive, and destroyed
    // once, children first; the steps run one after another, never two at a time.
    unsafe { run(&entry) }
}

unsafe fn run(entry: &ash::Entry) -> Res<()> {
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let instance = step("vkCreateInstance", || {
        Ok(entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None)?)
    })?;
    let Some(physical) =
        step("vkEnumeratePhysicalDevices", || Ok(instance.enumerate_physical_devices()?))?.first().copied()
    else {
        println!("no Vulkan device");
        instance.destroy_instance(None);
        return Ok(());
    };
    let (props, mem, features, push_ext) = step("physical-device queries", || {
        let exts = instance.enumerate_device_extension_properties(physical)?;
        Ok((
            instance.get_physical_device_properties(physical),
            instance.get_physical_device_memory_properties(physical),
            instance.get_physical_device_features(physical),
            exts.iter().any(|e| e.extension_name_as_c_str() == Ok(ash::khr::push_descriptor::NAME)),
        ))
    })?;
    println!("device: {:?}, driver version {:#x}", props.device_name_as_c_str()?, props.driver_version);
    let d = step("vkCreateDevice", || {
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(0).queue_priorities(&priorities)];
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default().synchronization2(true).dynamic_rendering(true);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let exts = [ash::khr::push_descriptor::NAME.as_ptr()];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(if push_ext { &exts[..] } else { &[] })
            .push_next(&mut f13)
            .push_next(&mut f12);
        Ok(instance.create_device(physical, &info, None)?)
    })?;
    let push = push_ext.then(|| ash::khr::push_descriptor::Device::new(&instance, &d));
    let d = &d;
    let host = (0..mem.memory_type_count)
        .find(|&i| {
            mem.memory_types[i as usize]
                .property_flags
                .contains(vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT)
        })
        .ok_or("no host-coherent memory")?;
    let queue = step("vkGetDeviceQueue", || Ok(d.get_device_queue(0, 0)))?;
    let usage =
        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::STORAGE_BUFFER;
    let buffer = || -> Res<(vk::Buffer, vk::DeviceMemory)> {
        let b = d.create_buffer(&vk::BufferCreateInfo::default().size(1 << 16).usage(usage), None)?;
        let r = d.get_buffer_memory_requirements(b);
        let m = d.allocate_memory(
            &vk::MemoryAllocateInfo::default().allocation_size(r.size).memory_type_index(host),
            None,
        )?;
        d.bind_buffer_memory(b, m, 0)?;
        Ok((b, m))
    };
    let (a, am) = step("vkCreateBuffer, vkAllocateMemory, vkBindBufferMemory", buffer)?;
    let (b, bm) = buffer()?;
    step("vkMapMemory, vkFlush/InvalidateMappedMemoryRanges, vkUnmapMemory", || {
        d.map_memory(am, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())?;
        let r = [vk::MappedMemoryRange::default().memory(am).size(vk::WHOLE_SIZE)];
        d.flush_mapped_memory_ranges(&r)?;
        d.invalidate_mapped_memory_ranges(&r)?;
        d.unmap_memory(am);
        Ok(())
    })?;
    let range =
        vk::ImageSubresourceRange::default().aspect_mask(vk::ImageAspectFlags::COLOR).level_count(1).layer_count(1);
    let (image, im, view) = step("vkCreateImage, its memory, vkCreateImageView", || {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .extent(vk::Extent3D { width: 64, height: 64, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .usage(
                vk::ImageUsageFlags::TRANSFER_DST
                    | vk::ImageUsageFlags::TRANSFER_SRC
                    | vk::ImageUsageFlags::COLOR_ATTACHMENT,
            );
        let image = d.create_image(&info, None)?;
        let r = d.get_image_memory_requirements(image);
        let t = (0..mem.memory_type_count).find(|&i| r.memory_type_bits & (1 << i) != 0).ok_or("no image memory")?;
        let m =
            d.allocate_memory(&vk::MemoryAllocateInfo::default().allocation_size(r.size).memory_type_index(t), None)?;
        d.bind_image_memory(image, m, 0)?;
        let v = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .subresource_range(range);
        Ok((image, m, d.create_image_view(&v, None)?))
    })?;
    let (sampler, ticks) = step("vkCreateSampler, vkCreateQueryPool", || {
        let q = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2);
        Ok((d.create_sampler(&vk::SamplerCreateInfo::default(), None)?, d.create_query_pool(&q, None)?))
    })?;
    let words = kernel()?;
    let binding = [vk::DescriptorSetLayoutBinding::default()
        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
        .descriptor_count(1)
        .stage_flags(vk::ShaderStageFlags::COMPUTE)];
    let (module, set_layout, layout, push_set_layout, push_layout) =
        step("vkCreateShaderModule, vkCreateDescriptorSetLayout, vkCreatePipelineLayout", || {
            let module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)?;
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&binding);
            let s = d.create_descriptor_set_layout(&info, None)?;
            let pushed = info.flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR);
            let p = d.create_descriptor_set_layout(&pushed, None)?;
            let l = d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&[s]), None)?;
            let pl = d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&[p]), None)?;
            Ok((module, s, l, p, pl))
        })?;
    let pipeline = step("vkCreateComputePipelines", || {
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
        Ok(d.create_compute_pipelines(vk::PipelineCache::null(), &info, None).map_err(|(_, e)| e)?[0])
    })?;
    let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: 1 }];
    let buffer_info = [vk::DescriptorBufferInfo { buffer: a, offset: 0, range: vk::WHOLE_SIZE }];
    let (pool, set) = step("vkCreateDescriptorPool, vkAllocateDescriptorSets, vkUpdateDescriptorSets", || {
        let pool =
            d.create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes), None)?;
        let set = d.allocate_descriptor_sets(
            &vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&[set_layout]),
        )?[0];
        let w = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .buffer_info(&buffer_info);
        d.update_descriptor_sets(&[w], &[]);
        Ok((pool, set))
    })?;
    let (timeline, fence, commands, cb) =
        step("vkCreateSemaphore, vkCreateFence, vkCreateCommandPool, vkAllocateCommandBuffers", || {
            let mut ty = vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE);
            let timeline = d.create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut ty), None)?;
            let fence = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
            let commands = d.create_command_pool(&vk::CommandPoolCreateInfo::default(), None)?;
            let info = vk::CommandBufferAllocateInfo::default().command_pool(commands).command_buffer_count(1);
            Ok((timeline, fence, commands, d.allocate_command_buffers(&info)?[0]))
        })?;
    for round in 1..=2u64 {
        step("vkBeginCommandBuffer", || Ok(d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())?))?;
        step("transfer commands", || {
            d.cmd_reset_query_pool(cb, ticks, 0, 2);
            d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, ticks, 0);
            d.cmd_copy_buffer(cb, a, b, &[vk::BufferCopy { src_offset: 0, dst_offset: 0, size: 256 }]);
            d.cmd_fill_buffer(cb, b, 256, 256, 0);
            d.cmd_update_buffer(cb, b, 512, &[1; 64]);
            let all = [vk::MemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
            d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&all));
            Ok(())
        })?;
        step("image and rendering commands", || {
            let to_general = [vk::ImageMemoryBarrier2::default()
                .image(image)
                .subresource_range(range)
                .new_layout(vk::ImageLayout::GENERAL)
                .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
            d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().image_memory_barriers(&to_general));
            let red = vk::ClearColorValue { float32: [1.0, 0.0, 0.0, 1.0] };
            d.cmd_clear_color_image(cb, image, vk::ImageLayout::GENERAL, &red, &[range]);
            let area = vk::Rect2D { offset: vk::Offset2D::default(), extent: vk::Extent2D { width: 64, height: 64 } };
            let color = [vk::RenderingAttachmentInfo::default()
                .image_view(view)
                .image_layout(vk::ImageLayout::GENERAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)];
            d.cmd_begin_rendering(
                cb,
                &vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&color),
            );
            d.cmd_set_viewport(
                cb,
                0,
                &[vk::Viewport { width: 64.0, height: 64.0, max_depth: 1.0, ..Default::default() }],
            );
            d.cmd_set_scissor(cb, 0, &[area]);
            let attachment = vk::ClearAttachment { aspect_mask: vk::ImageAspectFlags::COLOR, ..Default::default() };
            d.cmd_clear_attachments(
                cb,
                &[attachment],
                &[vk::ClearRect { rect: area, base_array_layer: 0, layer_count: 1 }],
            );
            d.cmd_end_rendering(cb);
            let layers = vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
            let region = vk::BufferImageCopy::default().image_subresource(layers).image_extent(vk::Extent3D {
                width: 64,
                height: 64,
                depth: 1,
            });
            d.cmd_copy_image_to_buffer(cb, image, vk::ImageLayout::GENERAL, b, &[region]);
            Ok(())
        })?;
        step("compute and query commands", || {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_dispatch(cb, 1, 1, 1);
            if let Some(push) = &push {
                let w = [vk::WriteDescriptorSet::default()
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&buffer_info)];
                push.cmd_push_descriptor_set(cb, vk::PipelineBindPoint::COMPUTE, push_layout, 0, &w);
            }
            d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, ticks, 1);
            d.cmd_copy_query_pool_results(
                cb,
                ticks,
                0,
                2,
                b,
                4096,
                8,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            );
            Ok(())
        })?;
        step("vkEndCommandBuffer", || Ok(d.end_command_buffer(cb)?))?;
        step("vkQueueSubmit2", || {
            let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
            let signal = [vk::SemaphoreSubmitInfo::default()
                .semaphore(timeline)
                .value(round)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
            let submit = vk::SubmitInfo2::default().command_buffer_infos(&cbs).signal_semaphore_infos(&signal);
            Ok(d.queue_submit2(queue, &[submit], fence)?)
        })?;
        step("vkGetSemaphoreCounterValue, vkWaitSemaphores", || {
            d.get_semaphore_counter_value(timeline)?;
            Ok(d.wait_semaphores(
                &vk::SemaphoreWaitInfo::default().semaphores(&[timeline]).values(&[round]),
                5_000_000_000,
            )?)
        })?;
        step("vkWaitForFences, vkGetFenceStatus, vkResetFences, vkGetQueryPoolResults", || {
            d.wait_for_fences(&[fence], true, 5_000_000_000)?;
            d.get_fence_status(fence)?;
            d.reset_fences(&[fence])?;
            let mut t = [0u64; 2];
            Ok(d.get_query_pool_results(ticks, 0, &mut t, vk::QueryResultFlags::TYPE_64)?)
        })?;
        step("vkQueueSubmit (empty), vkQueueWaitIdle, vkResetCommandPool", || {
            d.queue_submit(queue, &[vk::SubmitInfo::default()], vk::Fence::null())?;
            d.queue_wait_idle(queue)?;
            Ok(d.reset_command_pool(commands, vk::CommandPoolResetFlags::empty())?)
        })?;
    }
    if features.sparse_binding != 0 {
        step("vkQueueBindSparse", || {
            let info =
                vk::BufferCreateInfo::default().size(1 << 20).usage(usage).flags(vk::BufferCreateFlags::SPARSE_BINDING);
            let sparse = d.create_buffer(&info, None)?;
            let r = d.get_buffer_memory_requirements(sparse);
            let t =
                (0..mem.memory_type_count).find(|&i| r.memory_type_bits & (1 << i) != 0).ok_or("no sparse memory")?;
            let m = d.allocate_memory(
                &vk::MemoryAllocateInfo::default().allocation_size(r.size).memory_type_index(t),
                None,
            )?;
            let binds = [vk::SparseMemoryBind { size: r.size, memory: m, ..Default::default() }];
            let buffers = [vk::SparseBufferMemoryBindInfo::default().buffer(sparse).binds(&binds)];
            d.queue_bind_sparse(queue, &[vk::BindSparseInfo::default().buffer_binds(&buffers)], fence)?;
            d.wait_for_fences(&[fence], true, 5_000_000_000)?;
            d.destroy_buffer(sparse, None);
            d.free_memory(m, None);
            Ok(())
        })?;
    }
    step("vkDeviceWaitIdle and every vkDestroy, vkFreeMemory", || {
        d.device_wait_idle()?;
        d.destroy_command_pool(commands, None);
        d.destroy_fence(fence, None);
        d.destroy_semaphore(timeline, None);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_pipeline_layout(push_layout, None);
        d.destroy_descriptor_set_layout(set_layout, None);
        d.destroy_descriptor_set_layout(push_set_layout, None);
        d.destroy_shader_module(module, None);
        d.destroy_query_pool(ticks, None);
        d.destroy_sampler(sampler, None);
        d.destroy_image_view(view, None);
        d.destroy_image(image, None);
        for (buffer, memory) in [(a, am), (b, bm), (vk::Buffer::null(), im)] {
            d.destroy_buffer(buffer, None);
            d.free_memory(memory, None);
        }
        Ok(())
    })?;
    step("vkDestroyDevice", || {
        d.destroy_device(None);
        Ok(())
    })?;
    step("vkDestroyInstance", || {
        instance.destroy_instance(None);
        Ok(())
    })?;
    println!("every step ran");
    Ok(())
}

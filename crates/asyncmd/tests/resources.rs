//! Making and freeing device objects: what a device refuses for want of memory, what a new
//! buffer holds, and when a device whose fallback made objects is freed.

mod common;

use asyncmd::types::*;
use asyncmd_reference::ReferenceConfig;
use common::*;

#[test]
fn the_reference_device_refuses_what_its_memory_budget_cannot_hold() {
    let ctx = Ctx::new(reference_device(ReferenceConfig { memory_budget: 64 << 20, ..Default::default() }));
    let d = &ctx.device;
    let huge_heap = d.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::PipelineStatistics, count: u32::MAX });
    assert_eq!(huge_heap.err().map(|e| e.code), Some(ErrorCode::OutOfMemory));
    let desc = ResourceDesc::tex2d(Format::R32G32B32A32Float, 16384, 16384);
    let big = d.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Common);
    let Err(e) = big else { panic!("a 4 GiB texture on a 64 MiB device") };
    assert_eq!(e.code, ErrorCode::OutOfMemory, "{}", e.text);
    assert!(e.text.contains("CreateResource"), "{}", e.text);
    assert_eq!(d.create_heap(!(TILE_SIZE_IN_BYTES - 1)).err().map(|e| e.code), Some(ErrorCode::OutOfMemory));
    // Memory comes back when a resource is released.
    let half = ResourceDesc::buffer(40 << 20);
    let first = d.create_committed_resource(HeapType::Default, &half, BarrierLayout::Undefined).unwrap();
    assert!(d.create_committed_resource(HeapType::Default, &half, BarrierLayout::Undefined).is_err());
    drop(first);
    d.create_committed_resource(HeapType::Default, &half, BarrierLayout::Undefined).unwrap();
}

#[test]
fn a_query_heap_too_large_for_the_device_is_out_of_memory() {
    for (name, ctx) in contexts() {
        for ty in [QueryHeapType::Occlusion, QueryHeapType::Timestamp] {
            let r = ctx.device.create_query_heap(&QueryHeapDesc { ty, count: u32::MAX });
            assert_eq!(r.err().map(|e| e.code), Some(ErrorCode::OutOfMemory), "{name}, {ty:?}");
        }
    }
}

/// Found by the fuzzer: a default-heap buffer whose size is no multiple of 4 kept the old
/// contents of its memory in its last bytes on Vulkan (`vkCmdFillBuffer` zeroes whole dwords).
#[test]
fn buffers_of_any_size_start_zeroed_to_their_last_byte() {
    for (name, ctx) in contexts() {
        let used: Vec<asyncmd::Resource> = (0..16).map(|_| ctx.default_buffer(&[0xFF; 256])).collect();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        drop(used);
        let fresh: Vec<asyncmd::Resource> = (0..16).map(|i| ctx.buffer(HeapType::Default, 253 + i % 3)).collect();
        for b in &fresh {
            let size = b.desc().width as usize;
            assert_eq!(ctx.read_buffer(b), vec![0; size], "{name}, {size} bytes");
        }
    }
}

/// Runs `use_device` on a fallback device made by a factory, lets everything go, and shows the
/// device was freed: the factory's singleton rule then allows a device of other options on the
/// same adapter (it refuses one while the first lives).
fn assert_freed_after(use_device: impl FnOnce(&asyncmd::Device)) {
    let adapter = reference_adapter(ReferenceConfig::default());
    let factory = asyncmd::DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    {
        let device = factory.create_device(&adapter).unwrap();
        assert_eq!(device.async_commands_impl(), AsyncCommandsImpl::Fallback);
        use_device(&device);
    }
    factory.async_commands_fallback().set_fallback_layer_enabled(false);
    let other = factory.create_device(&adapter).expect("the first device is gone, so other options are allowed");
    assert_eq!(other.async_commands_impl(), AsyncCommandsImpl::NotSupported);
}

/// A fill of `value` over 1024 dwords of `buffer`.
fn fill_u32(buffer: &asyncmd::Resource, value: u32) -> FillBufferDesc<&asyncmd::Resource> {
    FillBufferDesc {
        buffer,
        offset: 0,
        fill_value: ClearData::from_uints([value, 0, 0, 0]),
        format: Format::R32Uint,
        raw_pattern_size: 0,
        repeat_count: 1024,
    }
}

/// The fallback's fill pipeline held a reference to its device, which held the pipeline: a
/// device that had lowered a compute fill was never freed, and the singleton rule went on
/// counting it (a device of other options on the same adapter was refused).
#[test]
fn a_device_that_ran_the_fallbacks_fill_is_freed_when_the_app_lets_go() {
    assert_freed_after(|device| {
        let ctx = Ctx::new(device.clone());
        let desc = ResourceDesc::buffer(4096).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let target = ctx.device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Undefined).unwrap();
        ctx.run(CommandListType::Direct, |l| l.fill_buffers(&[fill_u32(&target, 7)]));
        assert_eq!(ctx.read_buffer(&target), 7u32.to_le_bytes().repeat(1024));
    });
}

/// The fallback's pools keep the buffers of reset allocators, and every buffer holds its
/// device: a device whose allocators had given buffers back was never freed. The pools now
/// empty when the app's last handle on the device goes.
#[test]
fn a_device_whose_pools_hold_buffers_is_freed_when_the_app_lets_go() {
    assert_freed_after(|device| {
        let queue = device.create_command_queue(CommandListType::Direct).unwrap();
        // No UAV flag: the upload route, whose chunk comes from the pools.
        let target = device
            .create_committed_resource(HeapType::Default, &ResourceDesc::buffer(4096), BarrierLayout::Undefined)
            .unwrap();
        let allocator = device.create_command_allocator(CommandListType::Direct).unwrap();
        let mut list = device.create_command_list(CommandListType::Direct, &allocator).unwrap();
        list.fill_buffers(&[fill_u32(&target, 9)]);
        list.close().unwrap();
        queue.execute_command_lists(&[&list]).unwrap();
        queue.wait_idle(TIMEOUT).unwrap();
        let live = device.live_resource_count();
        // The chunk goes back to the pools: still alive, held by the device.
        allocator.reset().unwrap();
        assert_eq!(device.live_resource_count(), live, "the pooled chunk lives on");
    });
}

//! Inputs that once panicked, aborted, hung or made the devices disagree: each gets the spec's
//! error or the same bytes on every device, and never blocks.

mod common;

use asyncmd::types::*;
use asyncmd_reference::ReferenceConfig;
use asyncmd_vulkan::{Validation, VulkanOptions};
use common::*;
use std::time::{Duration, Instant};

#[test]
fn texture_copies_with_no_region_still_check_their_subresources() {
    for (name, ctx) in async_contexts() {
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
        let r = ctx.record(CommandListType::Direct, |l| {
            l.copy_texture_regions(&[TextureCopyDesc {
                kind: TextureCopyKind::TextureToTexture {
                    dest: &tex,
                    dest_subresource: 3,
                    source: &tex,
                    source_subresource: 0,
                },
                regions: vec![],
            }])
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::InvalidSubresourceIndex);
        assert!(e.text.starts_with("CopyTextureRegions"), "{name}: {}", e.text);
    }
}

#[test]
fn a_footprint_whose_size_overflows_is_refused() {
    for (name, ctx) in contexts() {
        let tex = ctx.texture(&ResourceDesc::tex3d(Format::R8G8B8A8Unorm, 4, 4, 4), BarrierLayout::Common);
        let small = ctx.buffer(HeapType::Default, 4096);
        // A 2 GiB pitch times 2^64 rows does not fit in 64 bits (unchecked, it wraps).
        let footprint = PlacedSubresourceFootprint {
            offset: 0,
            footprint: SubresourceFootprint {
                format: Format::R8G8B8A8Unorm,
                width: 4,
                height: u32::MAX,
                depth: u32::MAX,
                row_pitch: 1 << 31,
            },
        };
        let r = ctx.record(CommandListType::Direct, |l| {
            l.copy_texture_region(
                &TextureCopyLocation::subresource(&tex, 0),
                0,
                0,
                0,
                &TextureCopyLocation::footprint(&small, footprint),
                Some(&Box3::sized(4, 4, 4)),
            )
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CopyTextureRegionInvalidParameters);
        assert!(e.text.contains("footprint"), "{name}: {}", e.text);
    }
}

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
fn dropping_a_queue_abandons_waits_nothing_will_satisfy() {
    for (name, ctx) in contexts() {
        let fence = ctx.device.create_fence(0).unwrap();
        let queue = ctx.device.create_command_queue(CommandListType::Direct).unwrap();
        let buffer = ctx.buffer(HeapType::Readback, 256);
        let source = ctx.upload(&[7; 256]);
        queue.wait(&fence, 1).unwrap();
        let mut list = ctx.list(CommandListType::Direct);
        list.copy_buffer_region(&buffer, 0, &source, 0, 256);
        list.close().unwrap();
        queue.execute_command_lists(&[&list]).unwrap();
        within(Duration::from_secs(5), &format!("{name}: dropping the queue"), move || drop(queue));
        assert_eq!(buffer.read_vec(0, 4).unwrap(), vec![0; 4], "{name}: the abandoned copy ran");
    }
}

#[test]
fn fence_values_only_move_forward() {
    for (name, ctx) in contexts() {
        let fence = ctx.device.create_fence(5).unwrap();
        for value in [3, 5] {
            let e = fence.signal(value).unwrap_err();
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::FenceInvalidOperation), "{name}");
            let e = ctx.direct.signal(&fence, value).unwrap_err();
            assert!(e.text.contains("only increase"), "{name}: {}", e.text);
        }
        assert_eq!(fence.completed_value(), 5, "{name}");
        ctx.direct.signal(&fence, 8).unwrap();
        fence.wait(8, TIMEOUT).unwrap();
        assert!(fence.signal(7).is_err(), "{name}: below a queue's signal");
        fence.signal(9).unwrap();
        assert_eq!(fence.completed_value(), 9, "{name}");
    }
}

#[test]
fn a_queue_signal_that_runs_after_a_higher_cpu_signal_leaves_the_fence_where_it_is() {
    for (name, ctx) in contexts() {
        let gate = ctx.device.create_fence(0).unwrap();
        let fence = ctx.device.create_fence(0).unwrap();
        ctx.direct.wait(&gate, 1).unwrap();
        ctx.direct.signal(&fence, 5).unwrap();
        fence.signal(10).unwrap();
        gate.signal(1).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(fence.completed_value(), 10, "{name}");
        // A queue waiting on the fence is not stranded, and dropping the fence does not hang.
        ctx.compute.wait(&fence, 10).unwrap();
        ctx.compute.signal(&gate, 2).unwrap();
        gate.wait(2, TIMEOUT).unwrap_or_else(|e| panic!("{name}: {}", e.text));
        within(Duration::from_secs(5), &format!("{name}: dropping the fence"), move || drop(fence));
    }
}

#[test]
fn depth_and_colour_textures_of_one_family_copy_into_each_other() {
    for (name, ctx) in contexts() {
        let depth = ctx.texture(
            &ResourceDesc::tex2d(Format::D32Float, 8, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
            BarrierLayout::Common,
        );
        let colour = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 8, 4), BarrierLayout::Common);
        let back = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 8, 4), BarrierLayout::Common);
        let texels: Vec<u8> = (0..32).flat_map(|i| (i as f32 / 32.0).to_le_bytes()).collect();
        ctx.upload_subresource(&colour, 0, &texels);
        ctx.run(CommandListType::Direct, |l| {
            copy_region(l, &depth, 0, (0, 0, 0), &colour, 0, None);
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_SOURCE,
            }])]);
            l.copy_resource(&back, &depth);
        });
        assert_eq!(ctx.read_subresource(&depth, 0), texels, "{name}: colour to depth");
        assert_eq!(ctx.read_subresource(&back, 0), texels, "{name}: depth to colour");
    }
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

#[test]
fn a_list_executes_again_while_its_earlier_execution_is_pending() {
    for (name, ctx) in contexts() {
        let (gate, counter) = (ctx.device.create_fence(0).unwrap(), ctx.buffer(HeapType::Default, 256));
        let source = ctx.default_buffer(&[9; 256]);
        let mut list = ctx.list(CommandListType::Direct);
        list.copy_buffer_region(&counter, 0, &source, 0, 256);
        list.close().unwrap();
        // Held back by the gate, both executions (and the one in the same submission) pend.
        ctx.direct.wait(&gate, 1).unwrap();
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.execute_command_lists(&[&list, &list]).unwrap();
        gate.signal(1).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap_or_else(|e| panic!("{name}: {}", e.text));
        assert_eq!(ctx.read_buffer(&counter), vec![9; 256], "{name}");
    }
}

#[test]
fn fences_move_in_steps_a_timeline_semaphore_can_take() {
    for (name, ctx) in contexts() {
        let fence = ctx.device.create_fence(8).unwrap();
        let e = fence.signal(8 + asyncmd::MAX_FENCE_STEP + 1).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::FenceInvalidOperation), "{name}");
        assert!(ctx.direct.signal(&fence, u64::MAX).is_err(), "{name}");
        assert!(ctx.direct.wait(&fence, u64::MAX).is_err(), "{name}: a wait too far ahead");
        // The largest step is taken, and waits for old values are satisfied.
        ctx.direct.signal(&fence, 8 + asyncmd::MAX_FENCE_STEP).unwrap();
        ctx.direct.wait(&fence, 1).unwrap();
        fence.wait(8 + asyncmd::MAX_FENCE_STEP, TIMEOUT).unwrap_or_else(|e| panic!("{name}: {}", e.text));
    }
}

/// Found by the fuzzer: a CPU wait that timed out on a value nothing had signalled stayed in
/// the Vulkan validation layer's timeline, which then reported the next host signals as
/// passing a pending one (VUID-VkSemaphoreSignalInfo-value-03259).
#[test]
fn host_signals_after_a_cpu_wait_that_timed_out() {
    for (name, ctx) in contexts() {
        let fence = ctx.device.create_fence(1).unwrap();
        let started = Instant::now();
        let e = fence.wait(2, Duration::from_millis(30)).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::Fail, MessageId::FenceInvalidOperation), "{name}");
        assert!(started.elapsed() >= Duration::from_millis(30), "{name}: the wait returned before its timeout");
        fence.signal(3).unwrap();
        fence.signal(256).unwrap();
        assert_eq!(fence.completed_value(), 256, "{name}");
        // A wait for a value a later host signal reaches returns once it is made.
        let waiter = {
            let fence = fence.clone();
            std::thread::spawn(move || fence.wait(300, TIMEOUT))
        };
        std::thread::sleep(Duration::from_millis(20));
        fence.signal(300).unwrap();
        waiter.join().unwrap().unwrap_or_else(|e| panic!("{name}: {}", e.text));
    }
}

/// Found by the fuzzer: an empty copy reached `vkCmdCopyBuffer` as a region of size 0
/// (VUID-VkBufferCopy-size-01988).
#[test]
fn empty_buffer_copies_copy_nothing() {
    for (name, ctx) in async_contexts() {
        let (src, dst) = (ctx.default_buffer(&[7; 64]), ctx.default_buffer(&[1; 64]));
        ctx.run(CommandListType::Direct, |l| {
            l.copy_buffer_region(&dst, 0, &src, 0, 0);
            full_barrier(l);
            l.copy_buffer_regions(&[
                BufferCopyRegion { dest: &dst, dest_offset: 4, source: &src, source_offset: 0, size: 0 },
                BufferCopyRegion { dest: &dst, dest_offset: 8, source: &src, source_offset: 0, size: 4 },
            ]);
        });
        let mut want = vec![1; 64];
        want[8..12].fill(7);
        assert_eq!(ctx.read_buffer(&dst), want, "{name}");
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

/// Found by the fuzzer: a resolve of no queries at the heap's end reached
/// `vkCmdCopyQueryPoolResults` with a first query past the pool (VUID-…-firstQuery-00820).
#[test]
fn resolving_no_queries_at_the_heaps_end_writes_nothing() {
    for (name, ctx) in contexts() {
        let heap = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 2 }).unwrap();
        let out = ctx.default_buffer(&[3; 16]);
        ctx.run(CommandListType::Direct, |l| l.resolve_query_data(&heap, QueryType::Occlusion, 2, 0, &out, 0));
        assert_eq!(ctx.read_buffer(&out), vec![3; 16], "{name}");
    }
}

/// Found by the fuzzer: a stencil-only ClearDepthStencilView passed its (ignored) depth, out
/// of [0, 1], to `vkCmdClearDepthStencilImage` (VUID-VkClearDepthStencilValue-depth-02506).
#[test]
fn a_stencil_only_clear_ignores_its_depth_value() {
    for (name, ctx) in contexts() {
        let desc = ResourceDesc::tex2d(Format::D24UnormS8Uint, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let heap = ctx.device.create_descriptor_heap(asyncmd::DescriptorHeapType::Dsv, 1).unwrap();
        ctx.device.create_depth_stencil_view(&tex, None, &heap.handle(0)).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            barrier(l, &tex, BarrierLayout::Common, BarrierLayout::DepthStencilWrite);
            l.clear_depth_stencil_view(&heap.handle(0), ClearFlags::STENCIL, -0.25, 7, &[]);
            l.clear_depth_stencil_view(&heap.handle(0), ClearFlags::STENCIL, f32::NAN, 9, &[Rect::new(0, 0, 2, 4)]);
            barrier(l, &tex, BarrierLayout::DepthStencilWrite, BarrierLayout::Common);
        });
        assert_eq!(ctx.read_subresource(&tex, 0), vec![0; 64], "{name}: depth");
        assert_eq!(ctx.read_subresource(&tex, 1), [9, 9, 7, 7].repeat(4), "{name}: stencil");
    }
}

/// Found by the cross-device fuzzer: a query slot written twice in one list was reset only
/// once, at the list's start (Vulkan's UNASSIGNED-CoreValidation-DrawState-QueryNotReset).
#[test]
fn a_query_slot_written_twice_in_one_list() {
    for (name, ctx) in contexts() {
        let occlusion =
            ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 1 }).unwrap();
        let stamps = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 1 }).unwrap();
        let out = ctx.default_buffer(&[7; 16]);
        ctx.run(CommandListType::Direct, |l| {
            for _ in 0..2 {
                l.begin_query(&occlusion, QueryType::Occlusion, 0);
                l.end_query(&occlusion, QueryType::Occlusion, 0);
                l.end_query(&stamps, QueryType::Timestamp, 0);
            }
            l.resolve_query_data(&occlusion, QueryType::Occlusion, 0, 1, &out, 0);
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &out, 8);
        });
        let bytes = ctx.read_buffer(&out);
        assert_eq!(bytes[..8], [0; 8], "{name}: nothing was drawn inside the query");
        assert_ne!(bytes[8..], [7; 8], "{name}: the timestamp was resolved");
    }
}

/// Found by the cross-device fuzzer (seeds 69826, 89254): a list that resolves a slot and then
/// writes it was refused on Vulkan, which reset every slot a list writes when the list starts
/// (the resolve would have read nothing). D3D12 resolves the slot's earlier result.
#[test]
fn a_query_slot_resolved_then_written_in_one_list() {
    for (name, ctx) in contexts() {
        let stamps = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 1 }).unwrap();
        let first = ctx.default_buffer(&[7; 8]);
        let out = ctx.default_buffer(&[7; 16]);
        ctx.run(CommandListType::Direct, |l| {
            l.end_query(&stamps, QueryType::Timestamp, 0);
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &first, 0);
        });
        ctx.run(CommandListType::Direct, |l| {
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &out, 0);
            l.end_query(&stamps, QueryType::Timestamp, 0);
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &out, 8);
        });
        let (earlier, bytes) = (ctx.read_buffer(&first), ctx.read_buffer(&out));
        assert_ne!(earlier, [7; 8], "{name}");
        assert_eq!(bytes[..8], earlier[..], "{name}: the first resolve reads the earlier list's timestamp");
        let stamp = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
        assert!(stamp(&bytes[8..]) >= stamp(&earlier), "{name}: the second reads this list's");
    }
}

/// Found by the cross-device fuzzer: a copy between a 1D and a 2D texture reached
/// `vkCmdCopyImage` (VUID-vkCmdCopyImage-srcImage-07743); it goes through a buffer.
#[test]
fn a_1d_texture_copies_into_a_row_of_a_2d_texture() {
    for (name, ctx) in contexts() {
        let line = ctx.texture(&ResourceDesc::tex1d(Format::R8G8B8A8Unorm, 4), BarrierLayout::Common);
        let data = pattern(16, 3);
        ctx.upload_subresource(&line, 0, &data);
        let plane = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 2), BarrierLayout::Common);
        ctx.run(CommandListType::Direct, |l| {
            l.copy_texture_region(
                &TextureCopyLocation::subresource(&plane, 0),
                0,
                1,
                0,
                &TextureCopyLocation::subresource(&line, 0),
                None,
            )
        });
        let mut want = vec![0u8; 32];
        want[16..].copy_from_slice(&data);
        assert_eq!(ctx.read_subresource(&plane, 0), want, "{name}");
    }
}

/// Found by the fuzzer on the H200 (only without the validation layer, whose handles are never
/// reused): the Vulkan device kept what it knew of a fence's signals by semaphore handle after
/// the fence was dropped, so a new fence the driver gave the same handle started with the old
/// one's signals. A queue then waited on the GPU for a value nothing signals, and a CPU signal
/// of the new fence was taken as already done. Vulkan runs it without the layer too (lavapipe
/// reuses a semaphore's handle there).
#[test]
fn a_new_fence_starts_with_nothing_of_a_dropped_ones_signals() {
    let unwrapped = vulkan_ctx(VulkanOptions { validation: Validation::Off, ..Default::default() })
        .filter(|_| std::env::var("ASYNCMD_DEVICE").map_or(true, |d| d != "reference"));
    for (name, ctx) in contexts().into_iter().chain(unwrapped.map(|c| ("vulkan without the layer", c))) {
        let tick = ctx.device.create_fence(0).unwrap();
        for round in 0..8 {
            let old = ctx.device.create_fence(0).unwrap();
            ctx.direct.signal(&old, 50).unwrap();
            ctx.direct.wait_idle(TIMEOUT).unwrap();
            drop(old);
            // The queue lets go of the old fence's semaphore at its next submission, once the
            // GPU is past it; the driver may then give its handle to the next semaphore.
            ctx.direct.signal(&tick, round + 1).unwrap();
            ctx.direct.wait_idle(TIMEOUT).unwrap();
            let fence = ctx.device.create_fence(0).unwrap();
            ctx.direct.wait(&fence, 3).unwrap();
            within(Duration::from_secs(5), &format!("{name}: a CPU signal of a new fence"), {
                let fence = fence.clone();
                move || fence.signal(3).unwrap()
            });
            ctx.direct.signal(&fence, 4).unwrap();
            fence.wait(4, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{name}, round {round}: {}", e.text));
            assert_eq!(fence.completed_value(), 4, "{name}, round {round}");
        }
    }
}

/// The fuzzer's dispatches of the built-in fill shader with wild constants: on Vulkan the count
/// reached the shader unbounded and it wrote past its buffer (on lavapipe, into the heap: the
/// `malloc_consolidate` aborts). Every device bounds it by the buffer the root UAV names.
#[test]
fn the_fill_shader_writes_nothing_outside_its_buffer() {
    for (name, ctx) in contexts() {
        let (root, pso) = fill_pipeline(&ctx);
        // Made one after the other, so that a buffer's overrun lands in its neighbours.
        let buffers: Vec<_> = (0..4).map(|_| ctx.default_buffer(&[0xAA; 64])).collect();
        let target = &buffers[1];
        ctx.run(CommandListType::Compute, |l| {
            // A 9-dword pattern (the shader holds 4) and 4096 dwords, for 1024 threads.
            dispatch_fill(l, (&root, &pso), &[0x11, 0x22, 0x33, 0x44, 9, 4096], target.gpu_address(16), 4);
            // Past the end, and with no room for a whole dword.
            l.set_compute_root_unordered_access_view(1, buffers[2].gpu_address(64));
            l.dispatch(1, 1, 1);
            l.set_compute_root_unordered_access_view(1, buffers[3].gpu_address(1 << 40));
            l.dispatch(1, 1, 1);
        });
        // A texture bound as the root UAV: it has no address, nothing is written.
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
        let before = ctx.read_subresource(&tex, 0);
        ctx.run(CommandListType::Compute, |l| {
            dispatch_fill(l, (&root, &pso), &[0x11, 0x22, 0x33, 0x44, 4, 16], tex.gpu_address(0), 1)
        });
        assert_eq!(ctx.read_subresource(&tex, 0), before, "{name}: a texture as the root UAV");
        let mut want = vec![0xAA; 16];
        want.extend([0x11u32, 0x22, 0x33, 0x44].iter().cycle().take(12).flat_map(|d| d.to_le_bytes()));
        assert_eq!(ctx.read_buffer(target), want, "{name}: the pattern's length is taken as 4");
        for b in [0, 2, 3] {
            assert_eq!(ctx.read_buffer(&buffers[b]), vec![0xAA; 64], "{name}: buffer {b} was written");
        }
    }
}

#[test]
fn a_pipeline_needs_a_root_signature_that_fits_its_shaders() {
    use asyncmd::ddi::{ComputePipelineDesc, PipelineDesc, RootParameter, RootSignatureDesc, ShaderId};
    for (name, device) in devices() {
        // Constants where the shader reads its destination address.
        for parameters in [
            vec![RootParameter::Constants { shader_register: 0, count: 8 }, RootParameter::Uav { shader_register: 0 }],
            vec![RootParameter::Constants { shader_register: 0, count: 6 }],
            vec![RootParameter::Uav { shader_register: 0 }, RootParameter::Constants { shader_register: 0, count: 6 }],
        ] {
            let root = device.create_root_signature(&RootSignatureDesc { parameters: parameters.clone() }).unwrap();
            let r = device
                .create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
                    root_signature: root.id(),
                    cs: ShaderId::FillCs,
                }))
                .map(drop);
            let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid);
            assert!(e.text.contains("FillCs"), "{name}, {parameters:?}: {}", e.text);
        }
        // A shader in the wrong slot is named as that, whatever the root signature.
        let clear_root = device
            .create_root_signature(&RootSignatureDesc {
                parameters: vec![RootParameter::Constants { shader_register: 0, count: 6 }],
            })
            .unwrap();
        let r = device
            .create_pipeline_state(&PipelineDesc::Graphics(asyncmd::ddi::GraphicsPipelineDesc {
                root_signature: clear_root.id(),
                vs: ShaderId::FillCs,
                ps: None,
                write_masks: [asyncmd::ddi::ColorWriteMask::ALL; 8],
                depth_stencil: Default::default(),
                rtv_formats: vec![],
                dsv_format: Format::Unknown,
                sample_desc: SampleDesc { count: 1, quality: 0 },
                sample_mask: u32::MAX,
                topology_type: asyncmd::ddi::PrimitiveTopologyType::Triangle,
            }))
            .map(drop);
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid);
        assert!(e.text.contains("do not match their slots"), "{name}: {}", e.text);
        // Counts whose sum wraps to 64 in 32 bits.
        let wraps = vec![
            RootParameter::Constants { shader_register: 0, count: u32::MAX },
            RootParameter::Constants { shader_register: 1, count: 65 },
        ];
        let r = device.create_root_signature(&RootSignatureDesc { parameters: wraps }).map(drop);
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid);
        assert!(e.text.contains("64-dword"), "{name}: {}", e.text);
        // A root signature the app has let go of.
        let id = device.create_root_signature(&RootSignatureDesc { parameters: vec![] }).unwrap().id();
        let r = device
            .create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
                root_signature: id,
                cs: ShaderId::FillCs,
            }))
            .map(drop);
        assert_error(r, ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid);
    }
}

#[test]
fn a_dispatch_needs_the_pipelines_root_signature_bound() {
    use asyncmd::ddi::{RootParameter, RootSignatureDesc};
    for (name, ctx) in contexts() {
        let (_, pso) = fill_pipeline(&ctx);
        let buf = ctx.default_buffer(&[0xAA; 64]);
        // Two 32-bit constants and a UAV: the shader would read its address from dwords 6–7.
        let other = ctx
            .device
            .create_root_signature(&RootSignatureDesc {
                parameters: vec![
                    RootParameter::Constants { shader_register: 0, count: 8 },
                    RootParameter::Uav { shader_register: 0 },
                ],
            })
            .unwrap();
        let r = ctx.record(CommandListType::Compute, |l| {
            l.set_compute_root_signature(&other);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[0, 0, 0, 0, 1, 16, 0x1000, 0], 0);
            l.set_compute_root_unordered_access_view(1, buf.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.starts_with("Dispatch"), "{name}: {}", e.text);
        // A second root signature of the same description is the same one to D3D12.
        let (same, _) = fill_pipeline(&ctx);
        ctx.run(CommandListType::Compute, |l| {
            dispatch_fill(l, (&same, &pso), &[0x0101_0101, 0, 0, 0, 1, 16], buf.gpu_address(0), 1)
        });
        assert_eq!(ctx.read_buffer(&buf), vec![1; 64], "{name}");
        // A root UAV address that is not dword-aligned.
        let r = ctx.record(CommandListType::Compute, |l| {
            l.set_compute_root_signature(&same);
            l.set_compute_root_unordered_access_view(1, buf.gpu_address(2));
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::StateSettingInvalid);
        assert!(e.text.contains("aligned"), "{name}: {}", e.text);
    }
}

/// Root signatures are destroyed in the driver when their last handle goes (they were kept
/// for the device's life, which a long-lived driver device paid for every one an app made):
/// work already recorded with one, and a pipeline made with one, keep what they need.
#[test]
fn a_root_signature_dropped_after_recording_still_serves_its_dispatch() {
    for (name, ctx) in contexts() {
        let target = ctx.default_buffer(&[0; 64]);
        let mut list = ctx.list(CommandListType::Compute);
        {
            let (root, pso) = fill_pipeline(&ctx);
            dispatch_fill(&mut list, (&root, &pso), &[0x0A0B_0C0D, 0, 0, 0, 1, 16], target.gpu_address(0), 1);
        }
        list.close().unwrap();
        ctx.compute.execute_command_lists(&[&list]).unwrap();
        ctx.compute.wait_idle(TIMEOUT).unwrap();
        assert_eq!(ctx.read_buffer(&target), [0x0D, 0x0C, 0x0B, 0x0A].repeat(16), "{name}");
        // Made and dropped many times over: nothing accumulates in the driver, nothing fails.
        for _ in 0..500 {
            drop(fill_pipeline(&ctx));
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

//! Copy queues (spec 004) on every device: copy lists take copies only, textures in COMMON
//! need no barrier on them and are in COMMON after, and the debug layer reports a list that
//! uses what a copy queue writes with no fence wait between them.

mod common;

use asyncmd::types::*;
use asyncmd::*;
use common::*;

/// One recording call.
type Record<'a> = Box<dyn Fn(&mut CommandList) + 'a>;

/// Every recording call but the copies removes a copy list, with `InvalidArg` naming it.
#[test]
fn copy_lists_take_copies_only() {
    for (name, ctx) in async_contexts() {
        let (root, pso) = fill_pipeline(&ctx);
        let buf = ctx.buffer(HeapType::Default, 4096);
        let rt = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 8).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&rt, BarrierLayout::Common);
        let ms = ctx.texture(&rt.with_samples(4, 0), BarrierLayout::Common);
        let rtvs = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
        ctx.device.create_render_target_view(&tex, None, &rtvs.handle(0)).unwrap();
        let queries = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 1 }).unwrap();
        let bundle_alloc = ctx.device.create_command_allocator(CommandListType::Bundle).unwrap();
        let mut bundle = ctx.device.create_command_list(CommandListType::Bundle, &bundle_alloc).unwrap();
        bundle.close().unwrap();
        let fill = FillBufferDesc {
            buffer: &buf,
            offset: 0,
            fill_value: ClearData { bytes: [0; 16] },
            format: Format::Unknown,
            raw_pattern_size: 4,
            repeat_count: 4,
        };
        let clear = ClearTextureDesc {
            texture: &tex,
            subresource: 0,
            clear_value: ClearData::from_floats([0.0; 4]),
            format: Format::Unknown,
            region: None,
        };
        let calls: Vec<(&str, Record)> = vec![
            ("SetPipelineState", Box::new(|l| l.set_pipeline_state(&pso))),
            ("SetGraphicsRootSignature", Box::new(|l| l.set_graphics_root_signature(&root))),
            ("SetComputeRootSignature", Box::new(|l| l.set_compute_root_signature(&root))),
            ("SetComputeRoot32BitConstants", Box::new(|l| l.set_compute_root_32bit_constants(0, &[1], 0))),
            (
                "SetComputeRootUnorderedAccessView",
                Box::new(|l| l.set_compute_root_unordered_access_view(1, buf.gpu_address(0))),
            ),
            ("RSSetViewports", Box::new(|l| l.rs_set_viewports(&[Viewport::sized(8.0, 8.0)]))),
            ("RSSetScissorRects", Box::new(|l| l.rs_set_scissor_rects(&[Rect::new(0, 0, 8, 8)]))),
            (
                "IASetPrimitiveTopology",
                Box::new(|l| l.ia_set_primitive_topology(asyncmd::ddi::PrimitiveTopology::TriangleList)),
            ),
            ("OMSetBlendFactor", Box::new(|l| l.om_set_blend_factor([1.0; 4]))),
            ("OMSetStencilRef", Box::new(|l| l.om_set_stencil_ref(1))),
            ("OMSetRenderTargets", Box::new(|l| l.om_set_render_targets(&[rtvs.handle(0)], None))),
            ("ClearRenderTargetView", Box::new(|l| l.clear_render_target_view(&rtvs.handle(0), [0.0; 4], &[]))),
            ("BeginRenderPass", Box::new(|l| l.begin_render_pass(&[], None, RenderPassFlags::empty()))),
            ("EndRenderPass", Box::new(|l| l.end_render_pass())),
            ("DrawInstanced", Box::new(|l| l.draw_instanced(3, 1, 0, 0))),
            ("Dispatch", Box::new(|l| l.dispatch(1, 1, 1))),
            ("ExecuteBundle", Box::new(|l| l.execute_bundle(&bundle))),
            ("SetPredication", Box::new(|l| l.set_predication(None, PredicationOp::EqualZero))),
            ("BeginQuery", Box::new(|l| l.begin_query(&queries, QueryType::Occlusion, 0))),
            (
                "ResolveSubresourceRegion",
                Box::new(|l| {
                    l.resolve_subresource_region(
                        &tex,
                        0,
                        0,
                        0,
                        &ms,
                        0,
                        None,
                        Format::R8G8B8A8Unorm,
                        ResolveMode::Average,
                    )
                }),
            ),
            ("FillBuffers", Box::new(|l| l.fill_buffers(&[fill]))),
            ("ClearTextureSubresources", Box::new(|l| l.clear_texture_subresources(&[clear]))),
            (
                "ClearBoundRenderTargetViews",
                Box::new(|l| l.clear_bound_render_target_views(1, &[ClearData::from_floats([0.0; 4])], None)),
            ),
            (
                "ClearBoundDepthStencilView",
                Box::new(|l| l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 1.0, 0, None)),
            ),
            (
                "ResolveSubresourceRegionAsync",
                Box::new(|l| {
                    l.resolve_subresource_region_async(
                        &tex,
                        0,
                        0,
                        0,
                        &ms,
                        0,
                        None,
                        Format::R8G8B8A8Unorm,
                        ResolveMode::Average,
                    )
                }),
            ),
        ];
        for (api, call) in calls {
            let e = ctx.record(CommandListType::Copy, |l| call(l)).expect_err(api);
            assert_eq!(e.code, ErrorCode::InvalidArg, "{name}: {api}: {}", e.text);
            assert!(e.text.contains(api), "{name}: the error names {api}: {}", e.text);
        }
        // The copies, their barriers and (where the device has them) timestamps are taken.
        let src = ctx.upload(&pattern(4096, 1));
        let stamps = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::CopyQueueTimestamp, count: 2 });
        let stamps = match stamps {
            Ok(s) => Some(s),
            Err(e) => {
                assert!(!ctx.device.capabilities().copy_queue_timestamps, "{name}: {}", e.text);
                assert_eq!(e.code, ErrorCode::Unsupported, "{name}");
                None
            }
        };
        let rb = ctx.buffer(HeapType::Readback, 16);
        let (other, third) = (ctx.buffer(HeapType::Default, 4096), ctx.buffer(HeapType::Default, 4096));
        let r = ctx.record(CommandListType::Copy, |l| {
            if let Some(stamps) = &stamps {
                l.end_query(stamps, QueryType::Timestamp, 0);
            }
            l.copy_buffer_region(&buf, 0, &src, 0, 4096);
            l.copy_buffer_regions(&[BufferCopyRegion {
                dest: &other,
                dest_offset: 0,
                source: &src,
                source_offset: 0,
                size: 16,
            }]);
            l.copy_resource(&third, &src);
            l.barrier(&[BarrierGroup::Texture(vec![transition(&tex, BarrierLayout::Common, BarrierLayout::CopyDest)])]);
            l.barrier(&[BarrierGroup::Texture(vec![transition(&tex, BarrierLayout::CopyDest, BarrierLayout::Common)])]);
            if let Some(stamps) = &stamps {
                l.end_query(stamps, QueryType::Timestamp, 1);
                l.resolve_query_data(stamps, QueryType::Timestamp, 0, 2, &rb, 0);
            }
        });
        assert!(r.is_ok(), "{name}: {r:?}");
    }
}

/// A texture in COMMON is written by a copy list with no barrier, and read by the direct
/// queue after a fence wait with none either: it stays in COMMON.
#[test]
fn common_textures_cross_from_the_copy_queue_without_barriers() {
    for (name, ctx) in contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let fp = ctx.device.copyable_footprints(&desc, 0, 1, 0).unwrap();
        let data = pattern(fp.total_bytes as usize, 6);
        let src = ctx.upload(&data);
        let mut l = ctx.list(CommandListType::Copy);
        l.copy_texture_region(
            &TextureCopyLocation::subresource(&tex, 0),
            0,
            0,
            0,
            &TextureCopyLocation::footprint(&src, fp.layouts[0]),
            None,
        );
        l.close().unwrap();
        ctx.copy.execute_command_lists(&[&l]).unwrap();
        let done = ctx.device.create_fence(0).unwrap();
        ctx.copy.signal(&done, 1).unwrap();
        ctx.direct.wait(&done, 1).unwrap();
        assert_eq!(tex.layout(0), Some(BarrierLayout::Common), "{name}");
        let bytes = ctx.read_subresource(&tex, 0);
        let row = fp.row_sizes[0] as usize;
        let pitch = fp.layouts[0].footprint.row_pitch as usize;
        for y in 0..16 {
            assert_eq!(bytes[y * row..][..row], data[y * pitch..][..row], "{name}: row {y}");
        }
        ctx.copy.wait_idle(TIMEOUT).unwrap();
    }
}

fn warnings(device: &Device) -> usize {
    let n = device.info_queue().messages().iter().filter(|m| m.id == MessageId::CrossQueueWriteNotAwaited).count();
    device.info_queue().clear();
    n
}

/// The copy queue writes a buffer while held back by a fence; a direct list that reads it with
/// no wait is reported, one after a wait for the copy queue's signal is not, and neither is one
/// after a wait for an upload's ticket.
#[test]
fn a_read_of_a_copy_queue_write_with_no_fence_wait_is_reported() {
    for (name, ctx) in contexts() {
        ctx.device.set_debug_layer(true);
        let data = pattern(4096, 2);
        let (src, dst, rb) =
            (ctx.upload(&data), ctx.buffer(HeapType::Default, 4096), ctx.buffer(HeapType::Readback, 4096));
        let gate = ctx.device.create_fence(0).unwrap();
        let written = ctx.device.create_fence(0).unwrap();
        ctx.copy.wait(&gate, 1).unwrap();
        let mut c = ctx.list(CommandListType::Copy);
        c.copy_buffer_region(&dst, 0, &src, 0, 4096);
        c.close().unwrap();
        ctx.copy.execute_command_lists(&[&c]).unwrap();
        ctx.copy.signal(&written, 1).unwrap();
        let read = || {
            let mut l = ctx.list(CommandListType::Direct);
            l.copy_buffer_region(&rb, 0, &dst, 0, 4096);
            l.close().unwrap();
            l
        };
        ctx.device.info_queue().clear();
        let unsynced = read();
        ctx.direct.execute_command_lists(&[&unsynced]).unwrap();
        assert_eq!(warnings(&ctx.device), 1, "{name}: no wait");
        ctx.direct.wait(&written, 1).unwrap();
        let synced = read();
        ctx.direct.execute_command_lists(&[&synced]).unwrap();
        assert_eq!(warnings(&ctx.device), 0, "{name}: after the wait");
        gate.signal(1).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(rb.read_vec(0, 4096).unwrap(), data, "{name}");

        // Through the uploader: its ticket is the wait.
        let up = StreamingUploader::new(&ctx.device, 1 << 20).unwrap();
        up.queue().wait(&gate, 2).unwrap();
        let t = up.upload_buffer(&dst, 0, &pattern(4096, 3)).unwrap();
        let unsynced = read();
        ctx.direct.execute_command_lists(&[&unsynced]).unwrap();
        // The uploader's queue is its own, a direct one where the device has one queue.
        assert_eq!(warnings(&ctx.device), 1, "{name}: an upload not waited for");
        ctx.direct.wait_ticket(&t).unwrap();
        let synced = read();
        ctx.direct.execute_command_lists(&[&synced]).unwrap();
        assert_eq!(warnings(&ctx.device), 0, "{name}: after the ticket");
        gate.signal(2).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(rb.read_vec(0, 4096).unwrap(), pattern(4096, 3), "{name}");
        ctx.device.set_debug_layer(false);
    }
}

/// Found by the layers fuzzer: the debug layer credited a queue only with the queues it waited
/// for itself, so work ordered through a chain (copy waits for compute, which waited for
/// direct) was reported as a race. Waits order work transitively; a queue outside the chain is
/// still reported.
#[test]
fn a_chain_of_fence_waits_orders_work_across_three_queues() {
    for (name, ctx) in contexts() {
        ctx.device.set_debug_layer(true);
        let data = pattern(4096, 3);
        let (src, dst) = (ctx.upload(&data), ctx.buffer(HeapType::Default, 4096));
        let gate = ctx.device.create_fence(0).unwrap();
        let order = ctx.device.create_fence(0).unwrap();
        // The direct queue writes `dst`, held back so that the write is pending throughout.
        ctx.direct.wait(&gate, 1).unwrap();
        let mut w = ctx.list(CommandListType::Direct);
        w.copy_buffer_region(&dst, 0, &src, 0, 4096);
        w.close().unwrap();
        ctx.direct.execute_command_lists(&[&w]).unwrap();
        ctx.direct.signal(&order, 1).unwrap();
        ctx.compute.wait(&order, 1).unwrap();
        ctx.compute.signal(&order, 2).unwrap();
        let read = |ty| {
            let mut l = ctx.list(ty);
            let rb = ctx.buffer(HeapType::Readback, 4096);
            l.copy_buffer_region(&rb, 0, &dst, 0, 4096);
            l.close().unwrap();
            (l, rb)
        };
        ctx.device.info_queue().clear();
        // Before the copy queue waits: a race.
        let (early, _) = read(CommandListType::Copy);
        ctx.copy.execute_command_lists(&[&early]).unwrap();
        assert_eq!(warnings(&ctx.device), 1, "{name}: no wait yet");
        // After waiting for the compute queue's signal, which came after its wait for direct.
        ctx.copy.wait(&order, 2).unwrap();
        let (late, rb) = read(CommandListType::Copy);
        ctx.copy.execute_command_lists(&[&late]).unwrap();
        assert_eq!(warnings(&ctx.device), 0, "{name}: ordered through the compute queue");
        gate.signal(1).unwrap();
        ctx.copy.wait_idle(TIMEOUT).unwrap();
        assert_eq!(rb.read_vec(0, 4096).unwrap(), data, "{name}");
        ctx.device.set_debug_layer(false);
    }
}

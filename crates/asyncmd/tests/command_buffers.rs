//! Command buffers (spec 002): made by a queue, consumed by submit, recycled; secondary
//! buffers; tracked lifetimes; transfer usage; CPU memory; threads. Every test runs on the
//! reference device and on Vulkan where a driver is installed.

mod common;

use asyncmd::command_buffer::BoundTargets;
use asyncmd::types::*;
use asyncmd::*;
use common::*;
use std::sync::Arc;

fn primary(queue: &CommandQueue) -> CommandBuffer {
    queue.create_command_buffer(Semantics::Legacy, Level::Primary).expect("command buffer")
}

fn secondary(queue: &CommandQueue) -> CommandBuffer {
    queue.create_command_buffer(Semantics::Legacy, Level::Secondary).expect("secondary buffer")
}

#[test]
fn a_buffer_records_at_once_and_each_submission_passes_a_later_fence_value() {
    for (name, ctx) in contexts() {
        let src = ctx.upload(&pattern(256, 1));
        let dst = ctx.buffer(HeapType::Readback, 256);
        let mut values = Vec::new();
        for _ in 0..3 {
            let mut b = primary(&ctx.direct);
            assert!(b.is_recording(), "{name}");
            assert_eq!((b.semantics(), b.level()), (Semantics::Legacy, Level::Primary));
            b.copy_buffer_region(&dst, 0, &src, 0, 256);
            values.push(b.submit().expect("submit"));
        }
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{name}: {values:?}");
        ctx.direct.wait_for(values[2], TIMEOUT).expect("wait");
        assert!(ctx.direct.fence().completed_value() >= values[2], "{name}");
        assert_eq!(dst.read_vec(0, 256).unwrap(), pattern(256, 1), "{name}");
    }
}

/// A command the buffer refuses (a copy past the destination's end) ends its recording, as it
/// does a list's: `is_recording` says so before the submission that fails.
#[test]
fn a_refused_command_ends_the_buffers_recording() {
    for (name, ctx) in contexts() {
        let src = ctx.upload(&pattern(256, 1));
        let dst = ctx.buffer(HeapType::Readback, 256);
        let mut b = primary(&ctx.direct);
        b.copy_buffer_region(&dst, 0, &src, 0, 256);
        assert!(b.is_recording(), "{name}");
        let text = format!("{b:?}");
        assert!(text.contains("semantics: Legacy") && text.contains("recording: true"), "{name}: {text}");
        b.copy_buffer_region(&dst, 128, &src, 0, 256);
        assert!(!b.is_recording(), "{name}: the out-of-range copy ended the recording");
        assert!(format!("{b:?}").contains("recording: false"), "{name}");
        assert_eq!(b.submit().unwrap_err().code, ErrorCode::InvalidArg, "{name}");
    }
}

/// Each copy reads what the one before wrote, in the submission before it, with no barrier:
/// a queue starts a submission only once the one before has finished.
#[test]
fn a_dependent_copy_chain_split_across_submissions_needs_no_barrier() {
    for (name, ctx) in contexts() {
        let data = pattern(1 << 16, 7);
        let size = data.len() as u64;
        let chain: Vec<Resource> = (0..6).map(|_| ctx.buffer(HeapType::Default, size)).collect();
        let source = ctx.upload(&data);
        let mut b = primary(&ctx.direct);
        b.copy_buffer_region(&chain[0], 0, &source, 0, size);
        b.submit().expect("submit");
        for pair in chain.windows(2) {
            let mut b = primary(&ctx.direct);
            b.copy_buffer_region(&pair[1], 0, &pair[0], 0, size);
            b.submit().expect("submit");
        }
        let rb = ctx.buffer(HeapType::Readback, size);
        let mut b = primary(&ctx.direct);
        b.copy_buffer_region(&rb, 0, &chain[5], 0, size);
        let last = b.submit().expect("submit");
        ctx.direct.wait_for(last, TIMEOUT).expect("wait");
        assert_eq!(rb.read_vec(0, size as usize).unwrap(), data, "{name}");
    }
}

#[test]
fn several_buffers_submit_in_order_as_one_submission() {
    for (name, ctx) in contexts() {
        let a = ctx.upload(&[1; 64]);
        let b = ctx.upload(&[2; 64]);
        let dst = ctx.buffer(HeapType::Readback, 64);
        let mut first = primary(&ctx.direct);
        first.copy_buffer_region(&dst, 0, &a, 0, 64);
        let mut second = primary(&ctx.direct);
        // Ordered after the first buffer's copy in the same submission: a barrier.
        full_barrier(&mut second);
        second.copy_buffer_region(&dst, 32, &b, 0, 32);
        let value = ctx.direct.submit_all(vec![first, second]).expect("submit_all");
        ctx.direct.wait_for(value, TIMEOUT).expect("wait");
        let got = dst.read_vec(0, 64).unwrap();
        assert_eq!(got[..32], [1; 32], "{name}");
        assert_eq!(got[32..], [2; 32], "{name}");
    }
}

#[test]
fn misuse_of_submission_is_invalid_and_runs_nothing() {
    for (name, ctx) in contexts() {
        let other = ctx.device.create_command_queue(CommandListType::Direct).unwrap();
        let before = ctx.direct.fence().completed_value();
        let e = ctx.direct.submit_all(vec![primary(&other)]).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CommandBufferInvalid), "{name}");
        assert!(e.text.contains("another queue"), "{name}: {}", e.text);
        let fast = ctx.direct.create_command_buffer(Semantics::Fast, Level::Primary).unwrap();
        let e = ctx.direct.submit_all(vec![primary(&ctx.direct), fast]).unwrap_err();
        assert!(e.text.contains("semantics"), "{name}: {}", e.text);
        let e = secondary(&ctx.direct).submit().unwrap_err();
        assert!(e.text.contains("secondary"), "{name}: {}", e.text);
        let e = ctx.direct.submit_all(Vec::new()).unwrap_err();
        assert_eq!(e.id, MessageId::CommandBufferInvalid, "{name}");
        // A list an earlier command removed: its error, and nothing runs.
        let mut b = primary(&ctx.direct);
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
        b.copy_buffer_region(&tex, 0, &tex, 0, 4);
        let e = b.submit().unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArg, "{name}");
        assert!(e.text.contains("buffer 0"), "{name}: {}", e.text);
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(ctx.direct.fence().completed_value(), before, "{name}: nothing was submitted");
        // Secondary buffers only on direct queues.
        for q in [&ctx.compute, &ctx.copy] {
            let e = q.create_command_buffer(Semantics::Legacy, Level::Secondary).unwrap_err();
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CommandBufferInvalid), "{name}");
        }
    }
}

/// A secondary buffer's fill dispatch, executed by two primaries, writes its buffer each time.
#[test]
fn a_secondary_buffer_runs_in_every_primary_that_executes_it() {
    for (name, ctx) in contexts() {
        let (root, pso) = fill_pipeline(&ctx);
        let target = ctx.default_buffer(&[0; 256]);
        let mut s = secondary(&ctx.direct);
        assert!(s.is_recording(), "{name}");
        dispatch_fill(&mut s, (&root, &pso), &[0x0102_0304, 0, 0, 0, 1, 64], target.gpu_address(0), 1);
        let expected: Vec<u8> = [4u8, 3, 2, 1].repeat(64);
        let mut first = primary(&ctx.direct);
        first.execute(&mut s).expect("execute");
        assert!(!s.is_recording(), "{name}: executing ends the secondary's recording");
        let v = first.submit().expect("submit");
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert_eq!(ctx.read_buffer(&target), expected, "{name}: first primary");
        let mut second = primary(&ctx.direct);
        second.transfer_host_to_buffer(&[0; 256], &target, 0).expect("transfer");
        full_barrier(&mut second);
        second.execute(&mut s).expect("execute again");
        second.execute(&mut s).expect("and again");
        let v = second.submit().expect("submit");
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert_eq!(ctx.read_buffer(&target), expected, "{name}: second primary");
        // Recording into the ended secondary: ignored, and its next use fails.
        s.dispatch(1, 1, 1);
        let mut third = primary(&ctx.direct);
        let e = third.execute(&mut s).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CommandBufferInvalid), "{name}");
        assert!(e.text.contains("after it ended"), "{name}: {}", e.text);
        let e = third.execute(&mut primary(&ctx.direct)).unwrap_err();
        assert_eq!(e.id, MessageId::CommandBufferInvalid, "{name}");
    }
}

/// A staging buffer the app let go of right after recording stays alive until the copy has
/// run (the bytes arrive), and is released lazily after the fence: at the next submit or CPU
/// wait, not before.
#[test]
fn tracked_resources_live_until_the_fence_and_go_at_the_next_submit_or_wait() {
    for (name, ctx) in contexts() {
        let data = pattern(4096, 3);
        let dst = ctx.buffer(HeapType::Readback, 4096);
        let live_before = ctx.device.live_resource_count();
        let mut b = primary(&ctx.direct);
        {
            let staging = ctx.upload(&data);
            b.transfer_buffer(&staging, 0, &dst, 0, 4096).expect("transfer");
            assert_eq!(b.tracked_resources().len(), 2, "{name}: source and destination are tracked");
        }
        // Handed over: the app keeps no handle.
        let (root, pso) = fill_pipeline(&ctx);
        b.track(root);
        b.track(pso);
        assert_eq!(b.tracked_resources().len(), 4, "{name}");
        let value = b.submit().expect("submit");
        assert_eq!(ctx.direct.tracked_in_flight(), 4, "{name}: the queue holds them");
        // The staging buffer is one more live resource than before, until released.
        assert_eq!(ctx.device.live_resource_count(), live_before + 1, "{name}");
        ctx.direct.fence().wait(value, TIMEOUT).expect("fence");
        assert_eq!(dst.read_vec(0, 4096).unwrap(), data, "{name}");
        assert_eq!(ctx.direct.tracked_in_flight(), 4, "{name}: released lazily, not at the fence");
        ctx.direct.wait_for(value, TIMEOUT).expect("wait");
        assert_eq!(ctx.direct.tracked_in_flight(), 0, "{name}: released at the CPU wait");
        assert_eq!(ctx.device.live_resource_count(), live_before, "{name}: the staging buffer is gone");
        // And at the next submit.
        let mut b = primary(&ctx.direct);
        b.transfer_host_to_buffer(&data, &dst, 0).expect("host transfer");
        let v = b.submit().unwrap();
        ctx.direct.fence().wait(v, TIMEOUT).unwrap();
        assert_eq!(ctx.direct.tracked_in_flight(), 2, "{name}");
        primary(&ctx.direct).submit().unwrap();
        assert_eq!(ctx.direct.tracked_in_flight(), 0, "{name}: released at the next submit");
    }
}

#[test]
fn transfers_check_usage_on_every_device() {
    for (name, ctx) in contexts() {
        let make = |usage| {
            ctx.device
                .create_committed_resource(
                    HeapType::Default,
                    &ResourceDesc::buffer(64).with_usage(usage),
                    BarrierLayout::Undefined,
                )
                .unwrap()
        };
        let (src_only, dst_only, both) = (
            make(ResourceUsage::TRANSFER_SOURCE),
            make(ResourceUsage::TRANSFER_DESTINATION),
            make(ResourceUsage::DEFAULT),
        );
        let mut b = primary(&ctx.direct);
        let e = b.transfer_buffer(&dst_only, 0, &both, 0, 64).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::TransferUsageInvalid), "{name}");
        assert!(e.text.contains("TRANSFER_SOURCE"), "{name}: {}", e.text);
        let e = b.transfer_buffer(&both, 0, &src_only, 0, 64).unwrap_err();
        assert!(e.text.contains("TRANSFER_DESTINATION"), "{name}: {}", e.text);
        let e = b.transfer_host_to_buffer(&[1; 8], &src_only, 0).unwrap_err();
        assert_eq!(e.id, MessageId::TransferUsageInvalid, "{name}");
        assert!(b.tracked_resources().is_empty(), "{name}: a refused transfer tracks nothing");
        b.transfer_buffer(&src_only, 0, &dst_only, 0, 64).expect("allowed");
        b.submit().expect("submit");
    }
}

#[test]
fn host_memory_reaches_textures_and_comes_back_after_a_wait() {
    for (name, ctx) in contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 5, 3);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        // Rows of 20 bytes given 24 bytes apart.
        let rows: Vec<u8> = (0..3).flat_map(|r| pattern(20, r).into_iter().chain([0xEE; 4])).collect();
        let fp = desc.copyable_footprints(0, 1, 0).unwrap();
        let rb = ctx.buffer(HeapType::Readback, fp.total_bytes);
        let mut b = primary(&ctx.direct);
        b.transfer_host_to_texture(&rows, 24, &tex, 0).expect("host to texture");
        full_barrier(&mut b);
        b.transfer_texture_to_buffer(&tex, 0, &rb, fp.layouts[0]).expect("texture to buffer");
        let v = b.submit().unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        let pitch = fp.layouts[0].footprint.row_pitch as usize;
        let got = rb.read_vec(0, fp.total_bytes as usize).unwrap();
        for r in 0..3 {
            assert_eq!(got[r * pitch..r * pitch + 20], pattern(20, r as u32)[..], "{name}: row {r}");
        }
        // Too little data, a pitch below the row, a subresource out of range.
        let mut b = primary(&ctx.direct);
        for (data, pitch, sub) in [(&rows[..40], 24, 0), (&rows[..], 16, 0), (&rows[..], 24, 1)] {
            let e = b.transfer_host_to_texture(data, pitch, &tex, sub).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArg, "{name}: {}", e.text);
        }
        b.submit().unwrap();
    }
}

/// A buffer's placed footprint reaches a texture and comes back byte for byte, both copies
/// made with the transfers.
#[test]
fn a_buffer_footprint_reaches_a_texture_and_comes_back() {
    for (name, ctx) in contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 5, 3);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let fp = desc.copyable_footprints(0, 1, 0).unwrap();
        let layout = fp.layouts[0];
        let pitch = layout.footprint.row_pitch as usize;
        let mut data = vec![0u8; fp.total_bytes as usize];
        for r in 0..3 {
            data[r * pitch..r * pitch + 20].copy_from_slice(&pattern(20, 9 + r as u32));
        }
        let src = ctx.upload(&data);
        let rb = ctx.buffer(HeapType::Readback, fp.total_bytes);
        let mut b = primary(&ctx.direct);
        b.transfer_buffer_to_texture(&src, layout, &tex, 0).expect("buffer to texture");
        full_barrier(&mut b);
        b.transfer_texture_to_buffer(&tex, 0, &rb, layout).expect("texture to buffer");
        let v = b.submit().unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        let got = rb.read_vec(0, fp.total_bytes as usize).unwrap();
        for r in 0..3 {
            assert_eq!(got[r * pitch..r * pitch + 20], pattern(20, 9 + r as u32)[..], "{name}: row {r}");
        }
    }
}

/// An upload buffer written by the CPU between submissions: each submission sees the write
/// made before it, with no barrier.
#[test]
fn each_submission_sees_the_cpu_writes_made_before_it() {
    for (name, ctx) in contexts() {
        let upload = ctx.buffer(HeapType::Upload, 16);
        let rb = ctx.buffer(HeapType::Readback, 48);
        let mut last = 0;
        for i in 0..3u8 {
            upload.write(0, &[i + 1; 16]).unwrap();
            let mut b = primary(&ctx.direct);
            b.copy_buffer_region(&rb, 16 * i as u64, &upload, 0, 16);
            last = b.submit().unwrap();
            // The next write must not race this submission's read of the buffer.
            ctx.direct.wait_for(last, TIMEOUT).unwrap();
        }
        ctx.direct.wait_for(last, TIMEOUT).unwrap();
        let got = rb.read_vec(0, 48).unwrap();
        assert_eq!(got, [[1u8; 16], [2; 16], [3; 16]].concat(), "{name}");
    }
}

#[test]
fn many_threads_record_and_submit_to_one_queue() {
    fn is_send<T: Send>() {}
    is_send::<CommandBuffer>();
    for (name, ctx) in contexts() {
        let ctx = Arc::new(ctx);
        let threads = 8;
        let per_thread = 1000;
        let src = ctx.upload(&[9; 64]);
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (queue, src) = (ctx.direct.clone(), src.clone());
                let dst = ctx.buffer(HeapType::Readback, 64);
                std::thread::spawn(move || {
                    let mut last = 0;
                    for _ in 0..per_thread {
                        let mut b = queue.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
                        b.transfer_buffer(&src, 0, &dst, 0, 64).unwrap();
                        last = b.submit().unwrap();
                    }
                    queue.wait_for(last, TIMEOUT).unwrap();
                    (t, dst.read_vec(0, 64).unwrap(), last)
                })
            })
            .collect();
        let mut values = Vec::new();
        for h in handles {
            let (t, bytes, last) = h.join().expect("thread");
            assert_eq!(bytes, [9; 64], "{name}: thread {t}");
            values.push(last);
        }
        let highest = values.iter().copied().max().unwrap();
        assert!(highest >= (threads * per_thread) as u64, "{name}: every submission has its value");
        assert!(ctx.direct.fence().completed_value() >= highest, "{name}");
        assert_eq!(ctx.direct.tracked_in_flight(), 0, "{name}: all released by the waits");
    }
}

/// Legacy buffers shadow their state from the default state; fast buffers keep none.
#[test]
fn legacy_buffers_return_their_bound_state_and_fast_buffers_refuse() {
    for (name, ctx) in contexts() {
        let mut b = primary(&ctx.direct);
        assert_eq!(b.pipeline_state().unwrap().map(|_| ()), None, "{name}: the default state");
        assert_eq!(b.render_targets().unwrap(), BoundTargets::default(), "{name}");
        assert!(b.viewports().unwrap().is_empty() && b.scissor_rects().unwrap().is_empty(), "{name}");
        assert_eq!(b.primitive_topology().unwrap(), asyncmd::ddi::PrimitiveTopology::Undefined, "{name}");
        let (root, pso) = fill_pipeline(&ctx);
        b.set_compute_root_signature(&root);
        b.set_pipeline_state(&pso);
        let viewport =
            Viewport { top_left_x: 0.0, top_left_y: 0.0, width: 8.0, height: 4.0, min_depth: 0.0, max_depth: 1.0 };
        b.rs_set_viewports(&[viewport]);
        b.rs_set_scissor_rects(&[Rect::new(1, 1, 7, 3)]);
        b.ia_set_primitive_topology(asyncmd::ddi::PrimitiveTopology::TriangleList);
        b.om_set_blend_factor([0.5; 4]);
        b.om_set_stencil_ref(7);
        let tex = ctx.texture(
            &ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 4).with_flags(ResourceFlags::ALLOW_RENDER_TARGET),
            BarrierLayout::RenderTarget,
        );
        let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
        ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
        b.om_set_render_targets(&[heap.handle(0)], None);
        assert!(b.pipeline_state().unwrap().is_some_and(|p| p.id() == pso.id()), "{name}");
        assert!(b.compute_root_signature().unwrap().is_some_and(|r| r.id() == root.id()), "{name}");
        assert!(b.graphics_root_signature().unwrap().is_none(), "{name}");
        b.set_graphics_root_signature(&root);
        assert!(b.graphics_root_signature().unwrap().is_some_and(|r| r.id() == root.id()), "{name}");
        assert_eq!(b.viewports().unwrap(), [viewport], "{name}");
        assert_eq!(b.scissor_rects().unwrap(), [Rect::new(1, 1, 7, 3)], "{name}");
        assert_eq!(b.primitive_topology().unwrap(), asyncmd::ddi::PrimitiveTopology::TriangleList, "{name}");
        assert_eq!((b.blend_factor().unwrap(), b.stencil_ref().unwrap()), ([0.5; 4], 7), "{name}");
        let targets = b.render_targets().unwrap();
        assert_eq!(targets.render_targets.len(), 1, "{name}");
        assert_eq!(targets.render_targets[0].map(|v| v.resource), Some(tex.id()), "{name}");
        assert!(targets.depth_stencil.is_none(), "{name}");
        b.submit().unwrap();
        // The next buffer (the same recycled list) starts from the default state again.
        let b = primary(&ctx.direct);
        assert!(b.pipeline_state().unwrap().is_none() && b.viewports().unwrap().is_empty(), "{name}");
        let mut fast = ctx.direct.create_command_buffer(Semantics::Fast, Level::Primary).unwrap();
        fast.set_pipeline_state(&pso);
        for e in [
            fast.pipeline_state().map(|_| ()).unwrap_err(),
            fast.graphics_root_signature().map(|_| ()).unwrap_err(),
            fast.render_targets().map(|_| ()).unwrap_err(),
            fast.viewports().map(|_| ()).unwrap_err(),
            fast.primitive_topology().map(|_| ()).unwrap_err(),
        ] {
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::StateNotShadowed), "{name}: {}", e.text);
        }
    }
}

/// The transfers keep what they copy between alive whatever the semantics: a fast buffer's
/// `transfer_buffer` tracks its source and destination (a fast `copy_buffer_region` tracks
/// nothing), so a staging buffer the app drops lives until the fence.
#[test]
fn a_fast_buffers_transfer_tracks_both_buffers() {
    for (name, ctx) in contexts() {
        let data = pattern(4096, 5);
        let dst = ctx.buffer(HeapType::Readback, 4096);
        let live = ctx.device.live_resource_count();
        let mut b = ctx.direct.create_command_buffer(Semantics::Fast, Level::Primary).unwrap();
        {
            let staging = ctx.upload(&data);
            b.transfer_buffer(&staging, 0, &dst, 0, 4096).expect("transfer");
            assert_eq!(b.tracked_resources().len(), 2, "{name}: source and destination");
        }
        let value = b.submit().unwrap();
        assert_eq!(ctx.device.live_resource_count(), live + 1, "{name}: the staging buffer is kept");
        ctx.direct.wait_for(value, TIMEOUT).unwrap();
        assert_eq!(ctx.device.live_resource_count(), live, "{name}: and released at the wait");
        assert!(dst.read_vec(0, 4096).unwrap() == data, "{name}");
    }
}

/// The barrier a legacy submission puts before a buffer (its prefix) makes the writes of the
/// texture's last layout available: from `RenderTarget` after a clear it names the access
/// before (not `NO_ACCESS`, which would drop the clear's writes); from `Undefined` there is
/// nothing to keep, and D3D12 asks for `NO_ACCESS`.
#[test]
fn a_legacy_prefix_barrier_keeps_the_last_layouts_writes() {
    use asyncmd::ddi::spy::SpyDevice;
    use asyncmd::ddi::Command;
    use asyncmd::ddi::DeviceDdi;
    use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(ReferenceConfig::default()))));
    let log = spy.log();
    let ctx = Ctx::new(opted_in(&Adapter::new(spy as Arc<dyn DeviceDdi>)));
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let fp = desc.copyable_footprints(0, 1, 0).unwrap();
    let rb = ctx.buffer(HeapType::Readback, fp.total_bytes);
    let tex = ctx.texture(&desc, BarrierLayout::Common);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
    let mut clear = primary(&ctx.direct);
    clear.clear_render_target_view(&heap.handle(0), [0.5; 4], &[]);
    clear.submit().unwrap();
    let fresh = ctx.texture(&desc, BarrierLayout::Undefined);
    log.clear();
    let mut copy = primary(&ctx.direct);
    copy.transfer_texture_to_buffer(&tex, 0, &rb, fp.layouts[0]).unwrap();
    copy.transfer_host_to_texture(&[7; 64], 16, &fresh, 0).unwrap();
    let v = copy.submit().unwrap();
    ctx.direct.wait_for(v, TIMEOUT).unwrap();
    let barriers: Vec<_> = log
        .commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::Barrier(groups) => Some(groups),
            _ => None,
        })
        .flatten()
        .filter_map(|g| match g {
            BarrierGroup::Texture(t) => Some(t),
            _ => None,
        })
        .flatten()
        .collect();
    let from = |layout| barriers.iter().filter(move |b| b.layout_before == layout);
    assert!(from(BarrierLayout::RenderTarget).count() > 0, "{barriers:?}");
    assert!(from(BarrierLayout::RenderTarget).all(|b| b.access_before != BarrierAccess::NO_ACCESS), "{barriers:?}");
    assert!(from(BarrierLayout::Undefined).count() > 0, "{barriers:?}");
    assert!(from(BarrierLayout::Undefined).all(|b| b.access_before == BarrierAccess::NO_ACCESS), "{barriers:?}");
    let got = rb.read_vec(0, 4).unwrap();
    assert_eq!(got, [128; 4], "the clear reached the copy");
}

/// Fast semantics takes no per-use references, and memory stays safe: a source the app drops
/// right after submitting is still read whole (the devices keep what a submitted list names
/// until the queue has run it), with no validation error on Vulkan.
#[test]
fn a_source_dropped_while_its_copy_is_pending_is_still_read_whole() {
    for (name, ctx) in contexts() {
        let size = 8 << 20;
        let data = pattern(size, 11);
        let dst = ctx.buffer(HeapType::Readback, size as u64);
        let live = ctx.device.live_resource_count();
        let mut b = ctx.direct.create_command_buffer(Semantics::Fast, Level::Primary).unwrap();
        {
            let src = ctx.upload(&data);
            b.copy_buffer_region(&dst, 0, &src, 0, size as u64);
            assert!(b.tracked_resources().is_empty(), "{name}: fast semantics tracks nothing");
        }
        let value = b.submit().unwrap();
        assert_eq!(ctx.device.live_resource_count(), live, "{name}: the app's source is gone");
        ctx.direct.wait_for(value, TIMEOUT).unwrap();
        assert!(dst.read_vec(0, size).unwrap() == data, "{name}: the copy read the dropped source whole");
    }
}

/// Found by a spec check: a pipeline a buffer set (and a legacy buffer tracked) outlived the
/// fence and `wait_for`, held by the executed buffer's recording until a later buffer reused
/// its parts. 002: what a submission holds goes at the next submit or CPU wait after the GPU
/// is done; 001: fast buffers take no references.
#[test]
fn a_buffers_objects_go_at_the_wait_after_its_fence() {
    use asyncmd::ddi::spy::SpyDevice;
    use asyncmd::ddi::DeviceDdi;
    use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
    for semantics in [Semantics::Legacy, Semantics::Fast] {
        let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(ReferenceConfig::default()))));
        let destroyed = spy.destroyed_pipelines();
        let ctx = Ctx::new(opted_in(&Adapter::new(spy as Arc<dyn DeviceDdi>)));
        let dst = ctx
            .device
            .create_committed_resource(
                HeapType::Default,
                &ResourceDesc::buffer(256).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
                BarrierLayout::Undefined,
            )
            .unwrap();
        let mut b = ctx.direct.create_command_buffer(semantics, Level::Primary).unwrap();
        let id = {
            let (root, pso) = fill_pipeline(&ctx);
            dispatch_fill(&mut b, (&root, &pso), &[7, 0, 0, 0, 1, 64], dst.gpu_address(0), 1);
            if semantics == Semantics::Legacy {
                b.track(pso.clone());
            }
            pso.id()
        };
        let value = b.submit().unwrap();
        ctx.direct.wait_for(value, TIMEOUT).unwrap();
        assert!(destroyed.contains(id), "{semantics:?}: the pipeline outlived the wait after its fence");
        assert_eq!(ctx.read_buffer(&dst)[..8], [7, 0, 0, 0, 7, 0, 0, 0], "{semantics:?}: the dispatch ran");
    }
}

/// Found by a spec check: `submit_all([valid, removed, valid])` stopped closing at the removed
/// buffer, recycled the third still recording, and every later `create_command_buffer` failed
/// ("a command list is still recording on this allocator").
#[test]
fn a_failed_submission_leaves_the_queue_able_to_make_buffers() {
    for (name, ctx) in contexts() {
        let src = ctx.upload(&[5; 64]);
        let dst = ctx.buffer(HeapType::Readback, 64);
        let mut removed = primary(&ctx.direct);
        // Past the source's end: the list is removed.
        removed.copy_buffer_region(&dst, 0, &src, 32, 64);
        let (mut first, mut last) = (primary(&ctx.direct), primary(&ctx.direct));
        first.transfer_buffer(&src, 0, &dst, 0, 16).unwrap();
        last.transfer_buffer(&src, 0, &dst, 16, 16).unwrap();
        let e = ctx.direct.submit_all(vec![first, removed, last]).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArg, "{name}: {}", e.text);
        for _ in 0..4 {
            let mut b = primary(&ctx.direct);
            b.transfer_buffer(&src, 0, &dst, 0, 64).unwrap();
            let v = b.submit().expect("a buffer after the failed submission");
            ctx.direct.wait_for(v, TIMEOUT).unwrap();
        }
        assert_eq!(dst.read_vec(0, 64).unwrap(), [5; 64], "{name}");
    }
}

/// Found by a spec check: the app could signal a queue's progress fence, after which
/// `wait_for` returned, and tracked objects were released, before the work ran. The fence is
/// the queue's: the app's signals of it are refused, from the CPU and from queues.
#[test]
fn a_queues_progress_fence_is_signalled_by_its_queue_alone() {
    for (name, ctx) in contexts() {
        let fence = ctx.direct.fence();
        let before = fence.completed_value();
        for (api, e) in [
            ("Fence::Signal", fence.signal(before + 3).unwrap_err()),
            ("CommandQueue::Signal", ctx.compute.signal(fence, before + 3).unwrap_err()),
            ("CommandQueue::Signal", ctx.direct.signal(fence, before + 3).unwrap_err()),
        ] {
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::FenceInvalidOperation), "{name}");
            assert!(e.text.starts_with(api) && e.text.contains("progress fence"), "{name}: {}", e.text);
        }
        assert_eq!(fence.completed_value(), before, "{name}: nothing moved");
        // The queue's own submissions still move it.
        let v = primary(&ctx.direct).submit().unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert!(fence.completed_value() >= v, "{name}");
    }
}

/// Found by a spec check: legacy submissions from several threads to one queue planned their
/// layout prefixes, checked and applied them in three unlocked steps, so one thread's prefix
/// could be planned from a layout another's submission was changing (refusals "a barrier from
/// Common …, which is in RenderTarget"). 002: submitting is thread-safe.
#[test]
fn legacy_submissions_from_several_threads_see_each_others_layouts() {
    for (name, ctx) in contexts() {
        let ctx = Arc::new(ctx);
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
        ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
        let fp = desc.copyable_footprints(0, 1, 0).unwrap();
        let (footprint, total) = (fp.layouts[0], fp.total_bytes);
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let (ctx, tex, rtv) = (ctx.clone(), tex.clone(), heap.handle(0));
                let rb = ctx.buffer(HeapType::Readback, total);
                std::thread::spawn(move || {
                    let mut refused = Vec::new();
                    for i in 0..100 {
                        let mut b = primary(&ctx.direct);
                        // Half the buffers leave the texture a render target, half a copy source.
                        if (t + i) % 2 == 0 {
                            b.clear_render_target_view(&rtv, [0.5; 4], &[]);
                        } else {
                            b.transfer_texture_to_buffer(&tex, 0, &rb, footprint).unwrap();
                        }
                        if let Err(e) = b.submit() {
                            refused.push(e.text);
                        }
                    }
                    refused
                })
            })
            .collect();
        let refused: Vec<String> = handles.into_iter().flat_map(|h| h.join().expect("thread")).collect();
        assert!(refused.is_empty(), "{name}: {} refused, first: {:?}", refused.len(), refused.first());
    }
}

/// Found by a spec check: a legacy direct buffer left a texture a render target; a legacy
/// compute or copy buffer that then read it (after waiting for the direct queue) failed with
/// the runtime's own barrier's error ("LayoutBefore RenderTarget is not legal on a compute
/// list"). Those queues cannot leave that layout: the refusal names the texture and what to
/// do, and once the direct work ends with a barrier to COMMON the read works.
#[test]
fn a_texture_another_queue_left_a_render_target_is_refused_by_name() {
    for (name, ctx) in contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
        ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
        let fp = desc.copyable_footprints(0, 1, 0).unwrap();
        for queue in [&ctx.compute, &ctx.copy] {
            let mut draw = primary(&ctx.direct);
            draw.clear_render_target_view(&heap.handle(0), [0.0, 0.0, 1.0, 1.0], &[]);
            let v = draw.submit().unwrap();
            queue.wait(ctx.direct.fence(), v).unwrap();
            let rb = ctx.buffer(HeapType::Readback, fp.total_bytes);
            let mut read = queue.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
            read.transfer_texture_to_buffer(&tex, 0, &rb, fp.layouts[0]).unwrap();
            let e = read.submit().unwrap_err();
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::IncompatibleBarrierLayout), "{name}");
            let (texture, queue_name) = (format!("texture {:?}", tex.id()), queue.ty().name());
            assert!(e.text.contains(&texture) && e.text.contains("RenderTarget"), "{name}: {}", e.text);
            assert!(e.text.contains(queue_name) && e.text.contains("barrier to Common"), "{name}: {}", e.text);
            // What the error says to do: the direct work ends with the texture in COMMON.
            let mut back = primary(&ctx.direct);
            back.barrier(&[BarrierGroup::Texture(vec![TextureBarrier {
                sync_before: BarrierSync::RENDER_TARGET,
                sync_after: BarrierSync::NONE,
                access_before: BarrierAccess::RENDER_TARGET,
                access_after: BarrierAccess::NO_ACCESS,
                layout_before: BarrierLayout::RenderTarget,
                layout_after: BarrierLayout::Common,
                resource: &tex,
                subresources: BarrierSubresourceRange::ALL,
                flags: TextureBarrierFlags::empty(),
            }])]);
            let v = back.submit().unwrap();
            queue.wait(ctx.direct.fence(), v).unwrap();
            let mut read = queue.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
            read.transfer_texture_to_buffer(&tex, 0, &rb, fp.layouts[0]).unwrap();
            let v = read.submit().expect("the read after the barrier to COMMON");
            queue.wait_for(v, TIMEOUT).unwrap();
            let pitch = fp.layouts[0].footprint.row_pitch as usize;
            let got = rb.read_vec(0, fp.total_bytes as usize).unwrap();
            for row in 0..4 {
                assert_eq!(got[row * pitch..row * pitch + 16], [0, 0, 255, 255].repeat(4)[..], "{name}: row {row}");
            }
        }
    }
}

//! Legacy and fast semantics (spec 001) on every device: legacy command buffers get the
//! barriers, layouts, lifetimes and CPU waits their commands need; fast ones get none, and the
//! debug layer reports what legacy semantics would have fixed. The Async Commands run natively
//! and through the fallback (`async_contexts`).

mod common;

use asyncmd::types::*;
use asyncmd::*;
use common::spy::*;
use common::*;

const SIZE: u64 = 1 << 16;

fn buffer(queue: &CommandQueue, semantics: Semantics) -> CommandBuffer {
    queue.create_command_buffer(semantics, Level::Primary).expect("command buffer")
}

fn fill(buffer: &Resource, byte: u8) -> FillBufferDesc<&Resource> {
    FillBufferDesc {
        buffer,
        offset: 0,
        fill_value: ClearData { bytes: [byte; 16] },
        format: Format::Unknown,
        raw_pattern_size: 4,
        repeat_count: (buffer.desc().width / 4) as u32,
    }
}

fn whole<'a>(dest: &'a Resource, source: &'a Resource) -> BufferCopyRegion<&'a Resource> {
    BufferCopyRegion { dest, dest_offset: 0, source, source_offset: 0, size: dest.desc().width }
}

fn buffer_barrier(
    buffer: &Resource,
    (sync_before, access_before): (BarrierSync, BarrierAccess),
    (sync_after, access_after): (BarrierSync, BarrierAccess),
) -> BarrierGroup<&Resource> {
    BarrierGroup::Buffer(vec![BufferBarrier {
        sync_before,
        sync_after,
        access_before,
        access_after,
        resource: buffer,
        offset: 0,
        size: u64::MAX,
    }])
}

const COPY_DEST: (BarrierSync, BarrierAccess) = (BarrierSync::COPY, BarrierAccess::COPY_DEST);
const COPY_SOURCE: (BarrierSync, BarrierAccess) = (BarrierSync::COPY, BarrierAccess::COPY_SOURCE);

/// The hazard warnings the device reported since the last call, by kind in their text.
fn hazard_warnings(device: &Device) -> Vec<String> {
    let m = device.info_queue().messages();
    device.info_queue().clear();
    m.into_iter().filter(|m| m.id == MessageId::HazardWithoutBarrier).map(|m| m.text).collect()
}

/// The Vulkan validation errors since the last call (the log is cleared).
fn validation_errors(ctx: &Ctx) -> Vec<String> {
    let Some(vk) = &ctx.vulkan else { return Vec::new() };
    let m = vk.validation_log().messages();
    vk.validation_log().clear();
    m
}

/// One hazard, recorded three ways: legacy without barriers (right bytes, `barriers` inserted),
/// fast without them (the warning names `kind`), fast with the app's barrier (no warning).
fn check_hazard(
    name: &str,
    ctx: &Ctx,
    kind: &str,
    barriers: u64,
    record: impl Fn(&mut CommandBuffer, bool),
    check: impl Fn(),
) {
    let legacy = {
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        record(&mut b, false);
        let costs = b.tracking_costs();
        let v = b.submit().expect("submit");
        ctx.direct.wait_for(v, TIMEOUT).expect("wait");
        costs
    };
    check();
    assert_eq!(legacy.barriers_inserted, barriers, "{name}: {kind}: barriers legacy semantics inserted");
    let errors = validation_errors(ctx);
    assert!(errors.is_empty(), "{name}: {kind}: legacy semantics is enough for the Khronos rules: {errors:?}");
    ctx.device.set_debug_layer(true);
    ctx.device.info_queue().clear();
    for app_barrier in [false, true] {
        let mut b = buffer(&ctx.direct, Semantics::Fast);
        record(&mut b, app_barrier);
        assert_eq!(b.tracking_costs().barriers_inserted, 0, "{name}: fast semantics inserts nothing");
        let v = b.submit().expect("submit");
        ctx.direct.wait_for(v, TIMEOUT).expect("wait");
        let warnings = hazard_warnings(&ctx.device);
        // Without the barrier, synchronization validation may see the same race (where the
        // route reaches the GPU unordered); with it, nothing.
        let errors = validation_errors(ctx);
        let agreed = errors.iter().all(|e| !app_barrier && e.contains("SYNC-HAZARD"));
        assert!(agreed, "{name}: {kind} (app barrier: {app_barrier}): {errors:?}");
        if app_barrier {
            assert!(warnings.is_empty(), "{name}: {kind} with the app's barrier: {warnings:?}");
        } else {
            assert!(warnings.iter().any(|w| w.contains(kind)), "{name}: {kind} not reported: {warnings:?}");
        }
    }
    ctx.device.set_debug_layer(false);
}

#[test]
fn a_read_after_an_async_write_gets_one_barrier() {
    for (name, ctx) in async_contexts() {
        let a = ctx.buffer(HeapType::Default, SIZE);
        let rb = ctx.buffer(HeapType::Readback, SIZE);
        let record = |b: &mut CommandBuffer, app: bool| {
            b.fill_buffers(&[fill(&a, 0x5A)]);
            if app {
                b.barrier(&[buffer_barrier(&a, COPY_DEST, COPY_SOURCE)]);
            }
            b.copy_buffer_region(&rb, 0, &a, 0, SIZE);
        };
        let check = || assert!(rb.read_vec(0, SIZE as usize).unwrap().iter().all(|&x| x == 0x5A), "{name}");
        check_hazard(name, &ctx, "read-after-write", 1, record, check);
    }
}

#[test]
fn a_write_after_an_async_write_gets_one_barrier() {
    for (name, ctx) in async_contexts() {
        let a = ctx.buffer(HeapType::Default, SIZE);
        let second = ctx.upload(&pattern(SIZE as usize, 3));
        let record = |b: &mut CommandBuffer, app: bool| {
            b.fill_buffers(&[fill(&a, 0x11)]);
            if app {
                b.barrier(&[buffer_barrier(&a, COPY_DEST, COPY_DEST)]);
            }
            b.copy_buffer_regions(&[whole(&a, &second)]);
        };
        let check = || assert_eq!(ctx.read_buffer(&a), pattern(SIZE as usize, 3), "{name}: the later write wins");
        check_hazard(name, &ctx, "write-after-write", 1, record, check);
    }
}

#[test]
fn a_write_after_an_async_read_gets_one_barrier() {
    for (name, ctx) in async_contexts() {
        let a = ctx.default_buffer(&pattern(SIZE as usize, 9));
        let b_buf = ctx.buffer(HeapType::Default, SIZE);
        let record = |b: &mut CommandBuffer, app: bool| {
            b.copy_buffer_regions(&[whole(&b_buf, &a)]);
            if app {
                b.barrier(&[buffer_barrier(&a, (BarrierSync::COPY, BarrierAccess::NO_ACCESS), COPY_DEST)]);
            }
            b.fill_buffers(&[fill(&a, 0x77)]);
        };
        let check = || {
            assert_eq!(ctx.read_buffer(&b_buf), pattern(SIZE as usize, 9), "{name}: the copy read before the fill");
            assert!(ctx.read_buffer(&a).iter().all(|&x| x == 0x77), "{name}");
        };
        check_hazard(name, &ctx, "write-after-read", 1, record, check);
    }
}

/// Dispatches writing one UAV in turn, then a copy of it: each dispatch waits for the one
/// before (write-after-write), the copy for the last (read-after-write).
#[test]
fn dispatches_on_one_uav_are_ordered_and_the_copy_after_them_waits() {
    for (name, ctx) in contexts() {
        let pso = fill_pipeline(&ctx);
        let a = ctx.device.create_committed_resource(
            HeapType::Default,
            &ResourceDesc::buffer(SIZE).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
            BarrierLayout::Undefined,
        );
        let a = a.unwrap();
        let rb = ctx.buffer(HeapType::Readback, SIZE);
        let dwords = (SIZE / 4) as u32;
        let record = |b: &mut CommandBuffer, app: bool| {
            for value in [1u32, 2, 3] {
                let groups = dwords.div_ceil(asyncmd::ddi::FILL_THREADS_PER_GROUP);
                dispatch_fill(b, (&pso.0, &pso.1), &[value, 0, 0, 0, 1, dwords], a.gpu_address(0), groups);
                if app {
                    let uav = (BarrierSync::COMPUTE_SHADING, BarrierAccess::UNORDERED_ACCESS);
                    let after = if value == 3 { COPY_SOURCE } else { uav };
                    b.barrier(&[buffer_barrier(&a, uav, after)]);
                }
            }
            b.copy_buffer_region(&rb, 0, &a, 0, SIZE);
        };
        let check = || {
            let bytes = rb.read_vec(0, SIZE as usize).unwrap();
            assert!(bytes.chunks(4).all(|c| c == 3u32.to_le_bytes()), "{name}: the last dispatch's value");
        };
        check_hazard(name, &ctx, "write-after-write", 3, record, check);
    }
}

#[test]
fn independent_copies_and_fills_get_no_barrier() {
    for (name, ctx) in async_contexts() {
        let sources: Vec<Resource> = (0..8).map(|i| ctx.upload(&pattern(SIZE as usize, i))).collect();
        let dests: Vec<Resource> = (0..8).map(|_| ctx.buffer(HeapType::Default, SIZE)).collect();
        let filled: Vec<Resource> = (0..8).map(|_| ctx.buffer(HeapType::Default, SIZE)).collect();
        let legacy: Vec<Resource> = (0..8).map(|_| ctx.buffer(HeapType::Default, SIZE)).collect();
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        let regions: Vec<_> = dests.iter().zip(&sources).map(|(d, s)| whole(d, s)).collect();
        b.copy_buffer_regions(&regions);
        b.fill_buffers(&filled.iter().map(|f| fill(f, 0xC3)).collect::<Vec<_>>());
        for (d, s) in legacy.iter().zip(&sources) {
            b.copy_buffer_region(d, 0, s, 0, SIZE);
        }
        let costs = b.tracking_costs();
        assert_eq!(costs.barriers_inserted, 0, "{name}: independent commands need no barrier");
        assert_eq!(costs.objects_tracked, 32, "{name}: every buffer kept once");
        let v = b.submit().unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        for (i, (d, l)) in dests.iter().zip(&legacy).enumerate() {
            assert_eq!(ctx.read_buffer(d), pattern(SIZE as usize, i as u32), "{name}");
            assert_eq!(ctx.read_buffer(l), pattern(SIZE as usize, i as u32), "{name}");
        }
    }
}

/// One command reading two buffers that earlier commands wrote gets one barrier call with both.
#[test]
fn barriers_needed_at_once_are_merged_into_one_call() {
    for (name, ctx) in async_contexts() {
        let (a, c) = (ctx.buffer(HeapType::Default, SIZE), ctx.buffer(HeapType::Default, SIZE));
        let (da, dc) = (ctx.buffer(HeapType::Default, SIZE), ctx.buffer(HeapType::Default, SIZE));
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        b.fill_buffers(&[fill(&a, 1), fill(&c, 2)]);
        b.copy_buffer_regions(&[whole(&da, &a), whole(&dc, &c)]);
        let costs = b.tracking_costs();
        assert_eq!((costs.barriers_inserted, costs.barrier_groups), (2, 1), "{name}");
        let v = b.submit().unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert!(ctx.read_buffer(&da).iter().all(|&x| x == 1), "{name}");
        assert!(ctx.read_buffer(&dc).iter().all(|&x| x == 2), "{name}");
    }
}

fn target(ctx: &Ctx) -> (Resource, DescriptorHeap) {
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let tex = ctx.texture(&desc, BarrierLayout::Common);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
    (tex, heap)
}

/// Copies `tex` into a readback buffer in `b`; returns the buffer and its row pitch.
fn read_back(ctx: &Ctx, b: &mut CommandBuffer, tex: &Resource) -> (Resource, u32) {
    let fp = ctx.device.copyable_footprints(tex.desc(), 0, 1, 0).unwrap();
    let rb = ctx.buffer(HeapType::Readback, fp.total_bytes);
    let at = TextureCopyLocation::footprint(&rb, fp.layouts[0]);
    b.copy_texture_region(&at, 0, 0, 0, &TextureCopyLocation::subresource(tex, 0), None);
    (rb, fp.layouts[0].footprint.row_pitch)
}

fn assert_cleared(name: &str, rb: &Resource, pitch: u32, texel: [u8; 4]) {
    let bytes = rb.read_vec(0, rb.desc().width as usize).unwrap();
    for y in 0..16 {
        let row = &bytes[(y * pitch) as usize..][..64];
        assert!(row.chunks(4).all(|t| t == texel), "{name}: row {y}: {:?}", &row[..8]);
    }
}

/// A texture in COMMON is cleared as a render target and copied from, with no app barrier:
/// the submission moves it to RENDER_TARGET, the buffer moves it on to COPY_SOURCE.
#[test]
fn textures_move_into_the_layouts_their_commands_need() {
    for (name, ctx) in contexts() {
        let (tex, heap) = target(&ctx);
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        b.clear_render_target_view(&heap.handle(0), [1.0, 0.0, 0.0, 1.0], &[]);
        let (rb, pitch) = read_back(&ctx, &mut b, &tex);
        assert_eq!(b.tracking_costs().barriers_inserted, 1, "{name}: RENDER_TARGET to COPY_SOURCE");
        let v = b.submit().expect("submit");
        // No CPU wait: a legacy read waits for the buffer that writes it.
        assert_cleared(name, &rb, pitch, [255, 0, 0, 255]);
        assert!(ctx.direct.fence().completed_value() >= v, "{name}");
        assert_eq!(tex.layout(0), Some(BarrierLayout::CopySource), "{name}");
        // A plain list recording the same is refused: the layout is the app's job there.
        let mut l = ctx.list(CommandListType::Direct);
        l.clear_render_target_view(&heap.handle(0), [0.0; 4], &[]);
        l.close().unwrap();
        let r = ctx.direct.execute_command_lists(&[&l]);
        assert_error(r, ErrorCode::InvalidArg, MessageId::InvalidSubresourceLayout);
    }
}

/// Two buffers recorded before either is submitted: the second assumed the layout the
/// texture had while it recorded; the submission moves the texture there after the first, and
/// orders the second's read after the first's write.
#[test]
fn a_buffers_first_uses_are_resolved_against_the_queue_at_submit() {
    for (name, ctx) in contexts() {
        let (tex, heap) = target(&ctx);
        let mut first = buffer(&ctx.direct, Semantics::Legacy);
        first.clear_render_target_view(&heap.handle(0), [0.0, 1.0, 0.0, 1.0], &[]);
        let mut second = buffer(&ctx.direct, Semantics::Legacy);
        let (rb, pitch) = read_back(&ctx, &mut second, &tex);
        assert_eq!(second.tracking_costs().barriers_inserted, 0, "{name}: COMMON allows the copy");
        ctx.direct.submit_all(vec![first, second]).expect("one submission");
        assert_cleared(name, &rb, pitch, [0, 255, 0, 255]);
        assert_eq!(tex.layout(0), Some(BarrierLayout::Common), "{name}: the layout the second buffer assumed");

        // And across submissions: a buffer recorded while the texture was in COMMON, submitted
        // after another moved it.
        let mut late = buffer(&ctx.direct, Semantics::Legacy);
        let (rb, pitch) = read_back(&ctx, &mut late, &tex);
        let mut clear = buffer(&ctx.direct, Semantics::Legacy);
        clear.clear_render_target_view(&heap.handle(0), [0.0, 0.0, 1.0, 1.0], &[]);
        clear.submit().unwrap();
        assert_eq!(tex.layout(0), Some(BarrierLayout::RenderTarget), "{name}");
        late.submit().unwrap();
        assert_cleared(name, &rb, pitch, [0, 0, 255, 255]);
    }
}

/// A buffer filled by one command buffer and read by the next of the same submission.
#[test]
fn a_later_buffer_of_a_submission_waits_for_an_earlier_ones_write() {
    for (name, ctx) in async_contexts() {
        let a = ctx.buffer(HeapType::Default, SIZE);
        let rb = ctx.buffer(HeapType::Readback, SIZE);
        let mut first = buffer(&ctx.direct, Semantics::Legacy);
        first.fill_buffers(&[fill(&a, 0x3C)]);
        let mut second = buffer(&ctx.direct, Semantics::Legacy);
        second.copy_buffer_region(&rb, 0, &a, 0, SIZE);
        ctx.direct.submit_all(vec![first, second]).expect("submit");
        assert!(rb.read_vec(0, SIZE as usize).unwrap().iter().all(|&x| x == 0x3C), "{name}");
    }
}

/// The queue is held back by a fence wait, so its work is pending while the test looks.
fn held_queue(ctx: &Ctx) -> Fence {
    let gate = ctx.device.create_fence(0).unwrap();
    ctx.direct.wait(&gate, 1).unwrap();
    gate
}

#[test]
fn a_cpu_read_of_a_pending_legacy_write_waits_for_it() {
    for (name, ctx) in contexts() {
        let data = pattern(SIZE as usize, 5);
        let (src, rb) = (ctx.upload(&data), ctx.buffer(HeapType::Readback, SIZE));
        let gate = held_queue(&ctx);
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        b.copy_buffer_region(&rb, 0, &src, 0, SIZE);
        b.submit().unwrap();
        let opener = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            gate.signal(1).unwrap();
        });
        assert_eq!(rb.read_vec(0, SIZE as usize).unwrap(), data, "{name}: the read waited for the copy");
        opener.join().unwrap();
    }
}

#[test]
fn fast_semantics_reports_cpu_reads_and_drops_of_pending_work_and_stays_memory_safe() {
    for (name, ctx) in contexts() {
        ctx.device.set_debug_layer(true);
        let data = pattern(SIZE as usize, 8);
        let rb = ctx.buffer(HeapType::Readback, SIZE);
        let gate = held_queue(&ctx);
        let mut b = buffer(&ctx.direct, Semantics::Fast);
        let v = {
            let src = ctx.upload(&data);
            b.copy_buffer_region(&rb, 0, &src, 0, SIZE);
            assert!(b.tracked_resources().is_empty(), "{name}");
            ctx.device.info_queue().clear();
            b.submit().unwrap()
        };
        assert!(ctx.device.info_queue().contains(MessageId::ObjectDroppedWhilePending), "{name}: the drop");
        let _ = rb.read_vec(0, 16).unwrap();
        assert!(ctx.device.info_queue().contains(MessageId::CpuReadOfPendingWrite), "{name}: the read");
        gate.signal(1).unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert_eq!(rb.read_vec(0, SIZE as usize).unwrap(), data, "{name}: the dropped source was read whole");
        ctx.device.info_queue().clear();
        let _ = rb.read_vec(0, 16).unwrap();
        assert!(!ctx.device.info_queue().contains(MessageId::CpuReadOfPendingWrite), "{name}: done now");
        ctx.device.set_debug_layer(false);
    }
}

#[test]
fn a_secondary_buffer_takes_its_primarys_semantics() {
    for (name, ctx) in contexts() {
        for (p, s) in [(Semantics::Legacy, Semantics::Fast), (Semantics::Fast, Semantics::Legacy)] {
            let mut primary = buffer(&ctx.direct, p);
            let mut secondary = ctx.direct.create_command_buffer(s, Level::Secondary).unwrap();
            let e = primary.execute(&mut secondary).expect_err("mixed semantics");
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CommandBufferInvalid), "{name}");
        }
        let mut primary = buffer(&ctx.direct, Semantics::Fast);
        let mut secondary = ctx.direct.create_command_buffer(Semantics::Fast, Level::Secondary).unwrap();
        primary.execute(&mut secondary).expect("same semantics");
    }
}

/// A legacy secondary buffer takes no barriers; the primary that executes it orders its uses
/// against what came before, and what comes after against them.
#[test]
fn a_legacy_secondary_buffers_uses_are_ordered_by_its_primary() {
    for (name, ctx) in contexts() {
        let pso = fill_pipeline(&ctx);
        let desc = ResourceDesc::buffer(SIZE).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let a = ctx.device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Undefined).unwrap();
        let src = ctx.upload(&pattern(SIZE as usize, 4));
        let rb = ctx.buffer(HeapType::Readback, SIZE);
        let dwords = (SIZE / 4) as u32;
        let mut secondary = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Secondary).unwrap();
        let groups = dwords.div_ceil(asyncmd::ddi::FILL_THREADS_PER_GROUP);
        dispatch_fill(&mut secondary, (&pso.0, &pso.1), &[9, 0, 0, 0, 1, dwords], a.gpu_address(0), groups);
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        b.copy_buffer_region(&a, 0, &src, 0, SIZE);
        b.execute(&mut secondary).unwrap();
        b.copy_buffer_region(&rb, 0, &a, 0, SIZE);
        let costs = b.tracking_costs();
        assert_eq!((costs.barriers_inserted, costs.barrier_groups), (2, 2), "{name}: before and after the secondary");
        b.submit().unwrap();
        let bytes = rb.read_vec(0, SIZE as usize).unwrap();
        assert!(bytes.chunks(4).all(|c| c == 9u32.to_le_bytes()), "{name}: the secondary's dispatch wrote last");
        let errors = validation_errors(&ctx);
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

/// A bound clear (ordered like draws, in the RENDER_TARGET scope) and a copy of its result,
/// natively and through the fallback: the copy gets the layout change and the barrier.
#[test]
fn a_copy_after_a_bound_clear_waits_for_it_in_the_layout_it_needs() {
    for (name, ctx) in async_contexts() {
        let (tex, heap) = target(&ctx);
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        b.om_set_render_targets(&[heap.handle(0)], None);
        b.clear_bound_render_target_views(1, &[ClearData::from_floats([1.0, 1.0, 0.0, 1.0])], None);
        let (rb, pitch) = read_back(&ctx, &mut b, &tex);
        assert_eq!(b.tracking_costs().barriers_inserted, 1, "{name}: RENDER_TARGET to COPY_SOURCE");
        b.submit().unwrap();
        assert_cleared(name, &rb, pitch, [255, 255, 0, 255]);
        let errors = validation_errors(&ctx);
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

/// `ClearTextureSubresources` of a texture left in RENDER_TARGET, then a copy of it, natively
/// and through the fallback (whose in-place route moves it on its own and back): the clear
/// gets a layout that allows it, the copy waits for it.
#[test]
fn a_texture_clear_and_a_copy_of_it_get_their_layouts_and_barrier() {
    for (name, ctx) in async_contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&desc, BarrierLayout::RenderTarget);
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        b.clear_texture_subresources(&[ClearTextureDesc {
            texture: &tex,
            subresource: 0,
            clear_value: ClearData::from_floats([0.0, 0.0, 1.0, 1.0]),
            format: Format::Unknown,
            region: None,
        }]);
        let (rb, pitch) = read_back(&ctx, &mut b, &tex);
        let costs = b.tracking_costs();
        // The submission's prefix moves it from RENDER_TARGET to COPY_DEST; the buffer on.
        assert_eq!(costs.barriers_inserted, 1, "{name}: COPY_DEST to COPY_SOURCE");
        b.submit().unwrap();
        assert_cleared(name, &rb, pitch, [0, 0, 255, 255]);
        assert_eq!(tex.layout(0), Some(BarrierLayout::CopySource), "{name}");
        let errors = validation_errors(&ctx);
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

/// Found by a spec check: a fast buffer's `tracking_costs()`, documented as zero, counted the
/// objects handed to `track` and the debug layer's time. Only legacy tracking costs.
#[test]
fn a_fast_buffer_costs_no_tracking_with_track_and_the_debug_layer() {
    for (name, ctx) in async_contexts() {
        let src = ctx.default_buffer(&pattern(SIZE as usize, 1));
        let dst = ctx.buffer(HeapType::Default, SIZE);
        ctx.device.set_debug_layer(true);
        ctx.device.info_queue().clear();
        let mut fast = buffer(&ctx.direct, Semantics::Fast);
        fast.copy_buffer_region(&dst, 0, &src, 0, SIZE);
        // A hazard the debug layer reports: the copy's destination read by an Async Command
        // (ordered by nothing) with no barrier.
        fast.copy_buffer_regions(&[whole(&src, &dst)]);
        fast.track(&src);
        fast.track(&dst);
        assert_eq!(fast.tracking_costs(), asyncmd::command_buffer::TrackingCosts::default(), "{name}");
        assert!(!hazard_warnings(&ctx.device).is_empty(), "{name}: the debug layer did report the hazard");
        ctx.device.set_debug_layer(false);
        // The same in a legacy buffer: the two buffers are kept and the barriers inserted; the
        // app's own `track` of a third object adds nothing.
        let third = ctx.buffer(HeapType::Default, SIZE);
        let mut legacy = buffer(&ctx.direct, Semantics::Legacy);
        legacy.copy_buffer_region(&dst, 0, &src, 0, SIZE);
        legacy.copy_buffer_regions(&[whole(&src, &dst)]);
        legacy.track(&third);
        let costs = legacy.tracking_costs();
        // Two barriers: the async copy reads what the legacy copy wrote and writes what it read.
        assert_eq!((costs.objects_tracked, costs.barriers_inserted), (2, 2), "{name}: {costs:?}");
        drop((fast, legacy));
        // The fast buffer's race is the app's, on purpose: the synchronization layer sees it too.
        let errors = validation_errors(&ctx);
        assert!(errors.iter().all(|e| e.contains("SYNC-HAZARD")), "{name}: {errors:?}");
    }
}

/// Found by a spec check: in a legacy buffer, a hazard on a simultaneous-access texture (no
/// layouts) got a *buffer* barrier, which the Vulkan device refused at submission ("a texture
/// where a buffer was expected"). It gets a texture barrier in COMMON, its only layout.
#[test]
fn a_simultaneous_access_texture_gets_a_texture_barrier() {
    for (name, ctx) in async_contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 8)
            .with_flags(ResourceFlags::ALLOW_RENDER_TARGET | ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
        ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
        let mut b = buffer(&ctx.direct, Semantics::Legacy);
        b.clear_render_target_view(&heap.handle(0), [1.0, 0.0, 0.0, 1.0], &[]);
        b.om_set_render_targets(&[heap.handle(0)], None);
        // Writes what the view clear wrote: a write-after-write hazard.
        b.clear_bound_render_target_views(1, &[ClearData::from_floats([0.0, 1.0, 0.0, 1.0])], None);
        let v = b.submit().expect("the submission");
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert_eq!(ctx.read_subresource(&tex, 0), [0u8, 255, 0, 255].repeat(64), "{name}");
    }
}

/// Found by an independent fuzzer: a command naming one buffer twice (a copy within it) had
/// its accesses checked one after the other, so its read was taken for a hazard of its own
/// write (a false report in a fast buffer), and in a legacy buffer the barrier before it could
/// lack `COPY_SOURCE` where its write, listed first, masked its read. One command's accesses to
/// a buffer are one access.
#[test]
fn a_command_that_names_one_buffer_twice_is_one_access() {
    for (name, ctx) in async_contexts() {
        let data = pattern(4096, 5);
        let b = ctx.default_buffer(&data);
        let within = |dest_offset, source_offset, size| BufferCopyRegion {
            dest: &b,
            dest_offset,
            source: &b,
            source_offset,
            size,
        };
        let fill_at = |offset, byte, repeat_count| FillBufferDesc {
            buffer: &b,
            offset,
            fill_value: ClearData { bytes: [byte; 16] },
            format: Format::Unknown,
            raw_pattern_size: 4,
            repeat_count,
        };
        // Fast, with the debug layer, after a full barrier: nothing to report.
        ctx.device.set_debug_layer(true);
        ctx.device.info_queue().clear();
        let mut fast = buffer(&ctx.direct, Semantics::Fast);
        full_barrier(&mut fast);
        fast.copy_buffer_regions(&[within(1024, 0, 64)]);
        let v = fast.submit().unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert!(hazard_warnings(&ctx.device).is_empty(), "{name}: a copy within a buffer is no hazard of itself");
        ctx.device.set_debug_layer(false);
        // Legacy: a fill, a copy within the buffer reading what the fill wrote, an async copy
        // reading what that copy wrote, and a fill over what the async copy wrote.
        let mut legacy = buffer(&ctx.direct, Semantics::Legacy);
        legacy.fill_buffers(&[fill_at(3440, 0xC3, 100)]);
        legacy.copy_buffer_region(&b, 100, &b, 3574, 16);
        legacy.copy_buffer_regions(&[within(2048, 100, 64)]);
        legacy.fill_buffers(&[fill_at(2048, 0x5A, 4)]);
        let v = legacy.submit().unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        let mut want = data.clone();
        want.copy_within(0..64, 1024);
        want[3440..3840].fill(0xC3);
        want[100..116].fill(0xC3);
        want.copy_within(100..164, 2048);
        want[2048..2064].fill(0x5A);
        assert_eq!(ctx.read_buffer(&b), want, "{name}");
        assert!(validation_errors(&ctx).is_empty(), "{name}: {:?}", validation_errors(&ctx));
    }
}

/// The barriers a legacy buffer inserts reach the device with D3D12's scopes: a read of an
/// Async Command's write gets one buffer barrier from the write's scope to the read's, on that
/// buffer alone, also where the reading command names another buffer twice; a write gets one
/// where the app's barrier made the earlier write visible to reads only; a read the app's own
/// global barrier already ordered gets none; and no buffer gets a texture barrier.
#[test]
fn legacy_buffer_barriers_reach_the_device_with_the_scopes_they_need() {
    let (ctx, log) = spied();
    let [a, b, c] = [1u8, 2, 3].map(|_| ctx.buffer(HeapType::Default, SIZE));
    let region =
        |dest, dest_offset, source| BufferCopyRegion { dest, dest_offset, source, source_offset: 0, size: 256 };
    log.clear();
    let mut l = buffer(&ctx.direct, Semantics::Legacy);
    l.fill_buffers(&[fill(&b, 0x5A), fill(&c, 0xC3)]);
    l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
        sync_before: BarrierSync::COPY,
        sync_after: BarrierSync::COPY,
        access_before: BarrierAccess::COPY_DEST,
        access_after: BarrierAccess::COPY_SOURCE,
    }])]);
    l.fill_buffers(&[fill(&b, 0x77)]);
    // `a` twice as a destination, `b` read after the second fill, `c` after the app's barrier.
    l.copy_buffer_regions(&[region(&a, 0, &b), region(&a, 256, &c)]);
    let v = l.submit().unwrap();
    ctx.direct.wait_for(v, TIMEOUT).unwrap();
    let groups = barrier_groups(&log);
    let buffers = buffer_barriers(&log);
    let on_b = |access_after| BufferBarrier {
        sync_before: BarrierSync::COPY,
        sync_after: BarrierSync::COPY,
        access_before: BarrierAccess::COPY_DEST,
        access_after,
        resource: b.id(),
        offset: 0,
        size: u64::MAX,
    };
    // The second fill of `b` writes over the first, which the app's barrier made visible to
    // copy reads only: write-after-write, then the copy's read-after-write.
    assert_eq!(buffers, [on_b(BarrierAccess::COPY_DEST), on_b(BarrierAccess::COPY_SOURCE)], "{groups:?}");
    assert!(groups.iter().all(|g| !matches!(g, BarrierGroup::Texture(_))), "{groups:?}");
    let read = ctx.read_buffer(&a);
    assert!(read[..256].iter().all(|&x| x == 0x77) && read[256..512].iter().all(|&x| x == 0xC3));
}

/// Layouts as the device receives them: a legacy buffer moves a cleared render target on to
/// `COPY_SOURCE` with one texture barrier whose scopes are the clear's and the copy's; fast
/// semantics leaves layouts to the app, with the debug layer on too: the same clear of a
/// texture the app left in `COMMON` gets no barrier, and its submission is refused.
#[test]
fn legacy_buffers_move_layouts_and_fast_ones_leave_them_to_the_app() {
    let (ctx, log) = spied();
    let (tex, heap) = target(&ctx);
    log.clear();
    let mut b = buffer(&ctx.direct, Semantics::Legacy);
    b.clear_render_target_view(&heap.handle(0), [1.0, 0.0, 0.0, 1.0], &[]);
    let (rb, pitch) = read_back(&ctx, &mut b, &tex);
    let textures = texture_barriers(&log);
    assert_eq!(textures.len(), 1, "{textures:?}");
    let t = &textures[0];
    assert_eq!(
        (t.resource, t.layout_before, t.layout_after),
        (tex.id(), BarrierLayout::RenderTarget, BarrierLayout::CopySource)
    );
    assert_eq!((t.sync_before, t.access_before), (BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET));
    assert_eq!((t.sync_after, t.access_after), (BarrierSync::COPY, BarrierAccess::COPY_SOURCE));
    let v = b.submit().unwrap();
    ctx.direct.wait_for(v, TIMEOUT).unwrap();
    assert_cleared("reference", &rb, pitch, [255, 0, 0, 255]);

    let (tex, heap) = target(&ctx);
    ctx.device.set_debug_layer(true);
    log.clear();
    let mut b = buffer(&ctx.direct, Semantics::Fast);
    b.clear_render_target_view(&heap.handle(0), [1.0, 0.0, 0.0, 1.0], &[]);
    assert!(log.commands().iter().any(|c| matches!(c, asyncmd::ddi::Command::ClearRenderTargetView { .. })));
    assert_error(b.submit().map(|_| ()), ErrorCode::InvalidArg, MessageId::InvalidSubresourceLayout);
    assert!(barrier_groups(&log).is_empty(), "{:?}", barrier_groups(&log));
    assert_eq!(tex.layout(0), Some(BarrierLayout::Common));
    ctx.device.set_debug_layer(false);
}

/// Hazard reports are the debug layer's: with it off, neither a fast buffer nor a plain list
/// reports the race it records (fast semantics costs nothing then).
#[test]
fn without_the_debug_layer_no_hazard_is_reported() {
    let (ctx, _log) = spied();
    let a = ctx.buffer(HeapType::Default, SIZE);
    let rb = ctx.buffer(HeapType::Readback, SIZE);
    ctx.device.info_queue().clear();
    let mut fast = buffer(&ctx.direct, Semantics::Fast);
    fast.fill_buffers(&[fill(&a, 1)]);
    fast.copy_buffer_region(&rb, 0, &a, 0, SIZE);
    let v = fast.submit().unwrap();
    ctx.direct.wait_for(v, TIMEOUT).unwrap();
    ctx.run(CommandListType::Direct, |l| {
        l.fill_buffers(&[fill(&a, 2)]);
        l.copy_buffer_region(&rb, 0, &a, 0, SIZE);
    });
    assert!(hazard_warnings(&ctx.device).is_empty());
    // The same with the layer on is reported (the fast buffer's race).
    ctx.device.set_debug_layer(true);
    let mut fast = buffer(&ctx.direct, Semantics::Fast);
    fast.fill_buffers(&[fill(&a, 1)]);
    fast.copy_buffer_region(&rb, 0, &a, 0, SIZE);
    drop(fast);
    assert!(!hazard_warnings(&ctx.device).is_empty());
    ctx.device.set_debug_layer(false);
}

/// A legacy buffer's draws (here a bound clear) use the bound targets again once another
/// command touched them: a render target copied from since it was bound goes back to
/// `RENDER_TARGET` before the clear, with a barrier the device sees.
#[test]
fn a_bound_target_copied_from_goes_back_to_render_target_before_the_next_draw() {
    let (ctx, log) = spied();
    let (tex, heap) = target(&ctx);
    log.clear();
    let mut b = buffer(&ctx.direct, Semantics::Legacy);
    b.om_set_render_targets(&[heap.handle(0)], None);
    let (_first, pitch) = read_back(&ctx, &mut b, &tex);
    b.clear_bound_render_target_views(1, &[ClearData::from_floats([0.0, 0.0, 1.0, 1.0])], None);
    let before_second_copy = texture_barriers(&log);
    let moves: Vec<_> =
        before_second_copy.iter().map(|t| (t.resource, t.layout_before, t.layout_after, t.access_after)).collect();
    assert_eq!(
        moves,
        [
            (tex.id(), BarrierLayout::RenderTarget, BarrierLayout::CopySource, BarrierAccess::COPY_SOURCE),
            (tex.id(), BarrierLayout::CopySource, BarrierLayout::RenderTarget, BarrierAccess::RENDER_TARGET),
        ]
    );
    let (after, _) = read_back(&ctx, &mut b, &tex);
    // Back from COPY_SOURCE: the copy's read is waited for and named (D3D12: `AccessBefore`
    // suits `LayoutBefore`); the clear's write was flushed by the first barrier already.
    let back = &before_second_copy[1];
    assert_eq!(back.access_before, BarrierAccess::COPY_SOURCE, "{back:?}");
    assert!(back.sync_before.contains(BarrierSync::COPY), "{back:?}");
    let v = b.submit().unwrap();
    ctx.direct.wait_for(v, TIMEOUT).unwrap();
    assert_cleared("reference", &after, pitch, [0, 0, 255, 255]);
}

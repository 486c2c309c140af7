//! Where a thread that called the driver must not end (a driver not measured, `threads.rs`),
//! the app's thread calls no driver itself: each call it must make is handed to a driver
//! thread and waited for, at the cost of waking that thread. A D3D12 frame loop needs two such
//! calls a frame, `Close` (the recording) and the CPU wait; the rest (the allocator's and the
//! list's resets, the queue's signal, the submission) is answered from what the runtime
//! already knows or handed over without a wait. These tests hold every driver to the pooled
//! threads; on Mesa's drivers and NVIDIA's the app's thread makes the calls itself and hands
//! over none.

#[path = "../../asyncmd/tests/common/mod.rs"]
mod common;

use asyncmd::types::*;
use asyncmd::{Level, Semantics};
use asyncmd_vulkan::{DriverThreads, VulkanDevice};
use common::*;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(20);

/// A device whose driver calls run on the pooled threads, or by `threads` where it allows.
fn ctx_with(threads: DriverThreads) -> Option<Ctx> {
    vulkan_ctx(asyncmd_vulkan::VulkanOptions {
        validation: asyncmd_vulkan::Validation::IfAvailable,
        driver_threads: threads,
        ..Default::default()
    })
}

fn ctx() -> Option<Ctx> {
    ctx_with(DriverThreads::Pooled)
}

fn buffer(ctx: &Ctx, heap: HeapType) -> asyncmd::Resource {
    ctx.device.create_committed_resource(heap, &ResourceDesc::buffer(256), BarrierLayout::Undefined).unwrap()
}

#[test]
fn a_frame_loop_hands_over_its_close_and_its_wait_alone() {
    let Some(ctx) = ctx() else { return };
    frame_loop(&ctx, 2);
}

#[test]
fn a_frame_loop_on_the_apps_threads_hands_over_nothing_where_the_driver_allows() {
    let Some(ctx) = ctx_with(DriverThreads::Auto) else { return };
    let vk = ctx.vulkan.as_ref().unwrap();
    let here = vk.calls_driver_here();
    let name = asyncmd::ddi::DeviceDdi::capabilities(vk.as_ref()).name.clone();
    // Mesa's drivers take the calls on the app's thread, and NVIDIA's (of the branch whose
    // per-thread state was measured, 580) every call but the pipelines' and the instance's;
    // any other driver takes them on the pool.
    let here_drivers = ["llvmpipe", "radv", "intel", "turnip", "v3d", "panvk", "nvk", "agx", "nvidia"];
    let lower = name.to_lowercase();
    assert_eq!(here, here_drivers.iter().any(|m| lower.contains(m)), "{name}: calls on the app's threads: {here}");
    frame_loop(&ctx, if here { 0 } else { 2 });
}

/// Twelve frames of one 256-byte copy (allocator and list reset, record, `Close`, execute,
/// signal, CPU wait); every frame after the first must hand over `handovers` driver calls.
fn frame_loop(ctx: &Ctx, handovers: u64) {
    let mut frames = CopyFrames::new(ctx);
    for frame in 1..=12u8 {
        frames.src.write(0, &[frame; 256]).unwrap();
        let before = VulkanDevice::driver_handovers();
        frames.run(&ctx.direct, u64::from(frame));
        let handed = VulkanDevice::driver_handovers() - before;
        // The first frame's reset has nothing known to answer from.
        if frame > 1 {
            assert_eq!(handed, handovers, "frame {frame}: {handed} driver calls handed over and waited for");
        }
        assert_eq!(frames.dst.read_vec(0, 256).unwrap(), vec![frame; 256], "frame {frame}");
    }
}

/// A command buffer of one 256-byte copy made, recorded by `record`, submitted and waited for,
/// twelve times; each cycle after the first two must hand over its close and its wait alone.
fn command_buffer_cycles(
    semantics: Semantics,
    record: impl Fn(&mut asyncmd::CommandBuffer, &asyncmd::Resource, &asyncmd::Resource),
) {
    let Some(ctx) = ctx() else { return };
    let (src, dst) = (buffer(&ctx, HeapType::Upload), buffer(&ctx, HeapType::Readback));
    for cycle in 1..=12u8 {
        src.write(0, &[cycle; 256]).unwrap();
        let before = VulkanDevice::driver_handovers();
        let mut b = ctx.direct.create_command_buffer(semantics, Level::Primary).unwrap();
        record(&mut b, &dst, &src);
        let value = b.submit().unwrap();
        ctx.direct.wait_for(value, TIMEOUT).unwrap();
        let handed = VulkanDevice::driver_handovers() - before;
        // The first cycles make the buffer's list and allocator, and recycle them.
        if cycle > 2 {
            assert_eq!(handed, 2, "{semantics:?} cycle {cycle}: {handed} driver calls handed over and waited for");
        }
        assert_eq!(dst.read_vec(0, 256).unwrap(), vec![cycle; 256], "{semantics:?} cycle {cycle}");
    }
}

#[test]
fn a_fast_command_buffer_cycle_of_an_async_copy_hands_over_its_close_and_its_wait_alone() {
    command_buffer_cycles(Semantics::Fast, |b, dst, src| {
        b.copy_buffer_regions(&[BufferCopyRegion {
            dest: dst,
            dest_offset: 0,
            source: src,
            source_offset: 0,
            size: 256,
        }])
    });
}

#[test]
fn a_legacy_command_buffer_cycle_of_a_copy_hands_over_its_close_and_its_wait_alone() {
    command_buffer_cycles(Semantics::Legacy, |b, dst, src| b.copy_buffer_region(dst, 0, src, 0, 256));
}

/// NVIDIA's rule (`DriverThreads::AllButStateful`) on any driver: a frame loop hands over
/// nothing, and a pipeline is made on a pooled thread, so that its shader compiler's
/// per-thread state is never the app thread's (one hand-over and wait for it).
#[test]
fn under_nvidias_rule_a_frame_hands_over_nothing_and_a_pipeline_is_made_on_the_pool() {
    let Some(ctx) = ctx_with(DriverThreads::AllButStateful) else { return };
    let vk = ctx.vulkan.as_ref().unwrap();
    assert!(vk.calls_driver_here() && !vk.compiles_here());
    frame_loop(&ctx, 0);
    let before = VulkanDevice::driver_handovers();
    let (root, pso) = fill_pipeline(&ctx);
    assert_eq!(VulkanDevice::driver_handovers() - before, 1, "the root signature here, the pipeline on the pool");
    // The pipeline made on the pool records and runs from the app's thread.
    let target = ctx.default_buffer(&[0; 256]);
    ctx.run(CommandListType::Direct, |l| {
        dispatch_fill(l, (&root, &pso), &[0x0102_0304, 0, 0, 0, 1, 64], target.gpu_address(0), 1)
    });
    assert_eq!(ctx.read_buffer(&target), [4u8, 3, 2, 1].repeat(64));
}

/// Where the app's threads call the driver, a queue whose thread has nothing to do submits on
/// the caller's thread: a frame loop hands its queue's thread nothing. On the pooled threads
/// every submission goes to the queue's thread.
#[test]
fn a_frame_loop_on_the_apps_threads_submits_there() {
    for (threads, here) in [(DriverThreads::Pooled, false), (DriverThreads::AllButStateful, true)] {
        let Some(ctx) = ctx_with(threads) else { return };
        let mut frames = CopyFrames::new(&ctx);
        for frame in 1..=6u8 {
            frames.src.write(0, &[frame; 256]).unwrap();
            let before = VulkanDevice::queue_jobs_sent();
            frames.run(&ctx.direct, u64::from(frame));
            let sent = VulkanDevice::queue_jobs_sent() - before;
            assert_eq!(sent == 0, here, "{threads:?} frame {frame}: {sent} queue jobs sent to its thread");
            assert_eq!(frames.dst.read_vec(0, 256).unwrap(), vec![frame; 256], "{threads:?} frame {frame}");
        }
    }
}

/// A queue-side wait for a signal nobody has made yet cannot be submitted on the caller's
/// thread (the submission would name a value no signal is on its way to): it goes to the
/// queue's thread, which holds it, and the work after it follows it there, in order. Once the
/// thread has run them, the caller submits itself again.
#[test]
fn a_queue_wait_for_a_signal_not_yet_made_holds_the_work_after_it_on_the_queues_thread() {
    let Some(ctx) = ctx_with(DriverThreads::AllButStateful) else { return };
    let d = &ctx.device;
    let (src, dst) = (buffer(&ctx, HeapType::Upload), buffer(&ctx, HeapType::Readback));
    src.write(0, &[7; 256]).unwrap();
    let (gate, done) = (d.create_fence(0).unwrap(), d.create_fence(0).unwrap());
    let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
    let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
    list.copy_buffer_region(&dst, 0, &src, 0, 256);
    list.close().unwrap();

    let before = VulkanDevice::queue_jobs_sent();
    ctx.direct.wait(&gate, 1).unwrap();
    ctx.direct.execute_command_lists(&[&list]).unwrap();
    ctx.direct.signal(&done, 1).unwrap();
    let sent = VulkanDevice::queue_jobs_sent() - before;
    assert!(sent >= 2, "the wait and the work after it go to the queue's thread ({sent} sent)");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(done.completed_value(), 0, "the queue is held by its wait");
    assert_eq!(dst.read_vec(0, 256).unwrap(), vec![0; 256], "the copy waits behind the wait");

    gate.signal(1).unwrap();
    done.wait(1, TIMEOUT).unwrap();
    assert_eq!(dst.read_vec(0, 256).unwrap(), vec![7; 256]);
    // The thread has run its jobs (a wait for the GPU's signal of them is long past their
    // submission): the next signal is the caller's own.
    std::thread::sleep(Duration::from_millis(50));
    let before = VulkanDevice::queue_jobs_sent();
    ctx.direct.signal(&done, 2).unwrap();
    assert_eq!(VulkanDevice::queue_jobs_sent() - before, 0, "the idle queue's thread is passed by");
    done.wait(2, TIMEOUT).unwrap();
}

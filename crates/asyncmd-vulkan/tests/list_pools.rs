//! Command lists take the pools of retired lists: a list reset and executed many times makes
//! no pool after the first, and each execution still runs its own recording.

#[path = "../../asyncmd/tests/common/mod.rs"]
mod common;

use asyncmd::types::*;
use common::*;
use std::time::Duration;

/// The Vulkan device with the validation layer where installed, and its driver, making its
/// driver calls as `threads` says.
fn ctx_and_driver_with(
    threads: asyncmd_vulkan::DriverThreads,
) -> Option<(Ctx, std::sync::Arc<asyncmd_vulkan::VulkanDevice>)> {
    let ctx = vulkan_ctx(asyncmd_vulkan::VulkanOptions {
        validation: asyncmd_vulkan::Validation::IfAvailable,
        driver_threads: threads,
        ..Default::default()
    })?;
    let vk = ctx.vulkan.clone()?;
    Some((ctx, vk))
}

/// The same, as the driver allows.
fn ctx_and_driver() -> Option<(Ctx, std::sync::Arc<asyncmd_vulkan::VulkanDevice>)> {
    ctx_and_driver_with(asyncmd_vulkan::DriverThreads::Auto)
}

/// One list reset, recorded by `record` (which copies a 256-byte source into a destination)
/// and executed 40 times, each execution's bytes checked before the next reset.
fn forty_executions(ctx: &Ctx, record: impl Fn(&mut asyncmd::CommandList, &asyncmd::Resource, &asyncmd::Resource)) {
    let d = &ctx.device;
    let buffer =
        |heap| d.create_committed_resource(heap, &ResourceDesc::buffer(256), BarrierLayout::Undefined).unwrap();
    let (src, dst) = (buffer(HeapType::Upload), buffer(HeapType::Readback));
    let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
    let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
    list.close().unwrap();
    let fence = d.create_fence(0).unwrap();
    for i in 1..=40u8 {
        src.write(0, &[i; 256]).unwrap();
        alloc.reset().unwrap();
        list.reset(&alloc).unwrap();
        record(&mut list, &dst, &src);
        list.close().unwrap();
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.signal(&fence, u64::from(i)).unwrap();
        fence.wait(u64::from(i), Duration::from_secs(20)).unwrap();
        assert_eq!(dst.read_vec(0, 256).unwrap(), vec![i; 256], "execution {i}");
    }
}

#[test]
fn a_list_reset_many_times_reuses_its_pool_and_runs_each_recording() {
    // Where the app's thread calls the driver a reset drops its last recording itself; on the
    // pool the drop is handed over, and `Close` waits for the pool it gives back. Before each,
    // the handed-over give-back lost the race to the next `Close` under load (lavapipe, both
    // cores busy: 3 or 4 pools in 13 of 30 runs as the driver allows, 3 in 4 of 30 pooled).
    for threads in [asyncmd_vulkan::DriverThreads::Auto, asyncmd_vulkan::DriverThreads::Pooled] {
        let Some((ctx, vk)) = ctx_and_driver_with(threads) else { return };
        let before = vk.command_pools_created();
        forty_executions(&ctx, |list, dst, src| list.copy_buffer_region(dst, 0, src, 0, 256));
        // Each `Close` takes a pool while the last execution's may not be retired yet: two at
        // most, against one per reset (40) when pools are made afresh.
        let made = vk.command_pools_created() - before;
        assert!(made <= 2, "{threads:?}: {made} pools made for 40 resets");
    }
}

/// Found by the fuzzer (seed 1000092): a list whose `Close` failed under predication (a copy,
/// which Vulkan cannot predicate) gave its pool back with conditional rendering begun, and
/// the validation layer reported the pool's next list as ending with it active. An open pool
/// now goes back with rendering and predication ended.
#[test]
fn a_pool_given_back_by_a_list_refused_under_predication_serves_the_next_list_cleanly() {
    let Some((ctx, vk)) = ctx_and_driver() else { return };
    let d = &ctx.device;
    let predicate = ctx.default_buffer(&[0u8; 8]);
    let buffer =
        |heap| d.create_committed_resource(heap, &ResourceDesc::buffer(256), BarrierLayout::Undefined).unwrap();
    let (src, dst) = (buffer(HeapType::Upload), buffer(HeapType::Readback));
    src.write(0, &[7; 256]).unwrap();
    let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
    for _ in 0..4 {
        let mut refused = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
        refused.set_predication(Some((&predicate, 0)), PredicationOp::NotEqualZero);
        refused.copy_buffer_region(&dst, 0, &src, 0, 256);
        assert!(refused.close().is_err(), "a predicated copy on Vulkan");
        drop(refused);
        let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
        list.copy_buffer_region(&dst, 0, &src, 0, 256);
        list.close().unwrap();
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.wait_idle(Duration::from_secs(20)).unwrap();
    }
    assert_eq!(dst.read_vec(0, 256).unwrap(), vec![7; 256]);
    assert!(vk.validation_log().messages().is_empty(), "{:?}", vk.validation_log().messages());
}

/// Lists whose commands upload (here the buffer kernels' tables of a batch copy) take the
/// chunks of finished recordings: 40 lists make no more chunks than the few in flight at
/// once, and each still copies its own bytes.
#[test]
fn lists_that_upload_reuse_the_chunks_of_finished_recordings() {
    let Some(ctx) = vulkan_ctx(asyncmd_vulkan::VulkanOptions {
        validation: asyncmd_vulkan::Validation::IfAvailable,
        compute_copies: asyncmd_vulkan::ComputeCopies::Always,
        native_async_commands: true,
        ..Default::default()
    }) else {
        return;
    };
    let Some(vk) = ctx.vulkan.clone() else { return };
    let before = vk.scratch_chunks_created();
    forty_executions(&ctx, |list, dst, src| {
        // Two regions: one batch kernel, whose table the list uploads.
        list.copy_buffer_regions(&[
            BufferCopyRegion { dest: dst, dest_offset: 0, source: src, source_offset: 128, size: 128 },
            BufferCopyRegion { dest: dst, dest_offset: 128, source: src, source_offset: 0, size: 128 },
        ]);
    });
    let made = vk.scratch_chunks_created() - before;
    assert!((1..=2).contains(&made), "{made} chunks made for 40 lists that upload");
    assert!(vk.validation_log().messages().is_empty(), "{:?}", vk.validation_log().messages());
}

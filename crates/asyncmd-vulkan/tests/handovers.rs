//! The app's thread calls no driver itself (`threads.rs`): each call it must make is handed to
//! a driver thread and waited for, at the cost of waking that thread. A D3D12 frame loop needs
//! two such calls a frame, `Close` (the recording) and the CPU wait; the rest (the allocator's
//! and the list's resets, the queue's signal, the submission) is answered from what the runtime
//! already knows or handed over without a wait.

#[path = "../../asyncmd/tests/common/mod.rs"]
mod common;

use asyncmd::types::*;
use asyncmd::{Level, Semantics};
use asyncmd_vulkan::VulkanDevice;
use common::*;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(20);

fn ctx() -> Option<Ctx> {
    vulkan_ctx(asyncmd_vulkan::VulkanOptions {
        validation: asyncmd_vulkan::Validation::IfAvailable,
        ..Default::default()
    })
}

fn buffer(ctx: &Ctx, heap: HeapType) -> asyncmd::Resource {
    ctx.device.create_committed_resource(heap, &ResourceDesc::buffer(256), BarrierLayout::Undefined).unwrap()
}

#[test]
fn a_frame_loop_hands_over_its_close_and_its_wait_alone() {
    let Some(ctx) = ctx() else { return };
    let d = &ctx.device;
    let (src, dst) = (buffer(&ctx, HeapType::Upload), buffer(&ctx, HeapType::Readback));
    let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
    let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
    list.close().unwrap();
    let fence = d.create_fence(0).unwrap();
    for frame in 1..=12u8 {
        src.write(0, &[frame; 256]).unwrap();
        let before = VulkanDevice::driver_handovers();
        alloc.reset().unwrap();
        list.reset(&alloc).unwrap();
        list.copy_buffer_regions(&[BufferCopyRegion {
            dest: &dst,
            dest_offset: 0,
            source: &src,
            source_offset: 0,
            size: 256,
        }]);
        list.close().unwrap();
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.signal(&fence, u64::from(frame)).unwrap();
        fence.wait(u64::from(frame), TIMEOUT).unwrap();
        let handed = VulkanDevice::driver_handovers() - before;
        // The first frame's reset has nothing known to answer from.
        if frame > 1 {
            assert_eq!(handed, 2, "frame {frame}: {handed} driver calls handed over and waited for");
        }
        assert_eq!(dst.read_vec(0, 256).unwrap(), vec![frame; 256], "frame {frame}");
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

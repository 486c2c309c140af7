//! A steady-state frame on the Vulkan device: `ExecuteCommandLists` and the `Signal` after it
//! allocate nothing on the app's thread but the queue channel's blocks (one per 31 messages),
//! whichever threads call the driver (the recordings go to the queue's thread in an inline
//! vector, and it submits from inline vectors too). What
//! still allocates there is the recording's own (a command's regions, the finished recording)
//! and, on the pooled threads, the hand-over of `Close` and of the wait. A test binary of its
//! own: `allocation-counter` installs a counting global allocator, which counts per thread.

mod common;

use asyncmd::types::*;
use asyncmd_vulkan::{DriverThreads, VulkanOptions};
use common::*;
use std::time::Duration;

fn frames(threads: DriverThreads) {
    let Some(ctx) = vulkan_ctx(VulkanOptions { driver_threads: threads, ..Default::default() }) else { return };
    let d = &ctx.device;
    let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
    let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
    list.close().unwrap();
    let (src, dst) = (ctx.buffer(HeapType::Upload, 256), ctx.buffer(HeapType::Readback, 256));
    let fence = d.create_fence(0).unwrap();
    let count = |f: &mut dyn FnMut()| allocation_counter::measure(f).count_total;
    // The check counts: one string allocates once.
    assert_eq!(count(&mut || drop(std::hint::black_box(String::from("x")))), 1);
    let mut steady = 0;
    for frame in 1..=24u8 {
        src.write(0, &[frame; 256]).unwrap();
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
        let value = u64::from(frame);
        let executed = count(&mut || ctx.direct.execute_command_lists(&[&list]).unwrap());
        let signalled = count(&mut || ctx.direct.signal(&fence, value).unwrap());
        fence.wait(value, Duration::from_secs(20)).unwrap();
        assert_eq!(dst.read_vec(0, 256).unwrap(), vec![frame; 256], "{threads:?} frame {frame}");
        // The first frames fill the queue's bookkeeping.
        if frame > 8 {
            steady += executed + signalled;
        }
    }
    // 16 frames send 32 jobs or more (a list's first command may send a wake-up too): two of
    // the channel's blocks at most, where one allocation per `ExecuteCommandLists` was 16.
    assert!(steady <= 2, "{threads:?}: {steady} allocations in 16 frames' executions and signals");
}

#[test]
fn executing_and_signalling_allocate_only_the_queue_channels_blocks_on_the_apps_thread() {
    frames(DriverThreads::Auto);
    frames(DriverThreads::Pooled);
}

/// Recording a copy or fill call of 16 parts allocates on the app's thread only what the
/// runtime's own command holds (its part vector, and the ownership check's list of resources
/// past eight): the Vulkan device's side, the overlap set of the transfer form included, keeps
/// what it needs in the list. Before, each call allocated 22 (copies) and 39 (fills) times.
#[test]
fn recording_copies_and_fills_allocates_only_the_runtimes_command() {
    let Some(ctx) = vulkan_ctx(VulkanOptions::default()) else { return };
    let d = &ctx.device;
    let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
    let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
    list.close().unwrap();
    let sources: Vec<_> = (0..16).map(|_| ctx.buffer(HeapType::Default, 256)).collect();
    let dests: Vec<_> = (0..16).map(|_| ctx.buffer(HeapType::Default, 256)).collect();
    let fence = d.create_fence(0).unwrap();
    let count = |f: &mut dyn FnMut()| allocation_counter::measure(f).count_total;
    let (mut copies, mut fills) = (0, 0);
    for frame in 1..=12u64 {
        alloc.reset().unwrap();
        list.reset(&alloc).unwrap();
        let regions: Vec<_> = dests
            .iter()
            .zip(&sources)
            .map(|(dest, source)| BufferCopyRegion { dest, dest_offset: 0, source, source_offset: 0, size: 256 })
            .collect();
        let parts: Vec<_> = dests
            .iter()
            .map(|buffer| FillBufferDesc {
                buffer,
                offset: 0,
                fill_value: ClearData::from_uints([frame as u32; 4]),
                format: Format::Unknown,
                raw_pattern_size: 4,
                repeat_count: 64,
            })
            .collect();
        let copied = count(&mut || list.copy_buffer_regions(&regions));
        let filled = count(&mut || list.fill_buffers(&parts));
        list.close().unwrap();
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.signal(&fence, frame).unwrap();
        fence.wait(frame, Duration::from_secs(20)).unwrap();
        assert_eq!(ctx.read_buffer(&dests[15])[..4], (frame as u32).to_le_bytes(), "frame {frame}");
        // The first frames fill the list's and the device's bookkeeping.
        if frame > 4 {
            copies = copies.max(copied);
            fills = fills.max(filled);
        }
    }
    assert!(copies <= 2, "CopyBufferRegions of 16 regions: {copies} allocations");
    assert!(fills <= 2, "FillBuffers of 16 parts: {fills} allocations");
}

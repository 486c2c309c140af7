//! Many threads at once: recording and submitting to shared queues with cross-queue waits,
//! fences signalled from host threads, devices made and dropped side by side. Every case
//! checks the bytes it wrote and runs under a time limit, so that a race shows as a wrong
//! byte and a deadlock as a failure, not a stuck run.

mod common;

use asyncmd::types::*;
use asyncmd::{AsyncCommandsImpl, Fence, Resource};
use asyncmd_reference::ReferenceConfig;
use common::*;
use std::time::Duration;

const THREADS: u32 = 4;
const ROUNDS: u32 = 6;
const SIZE: u64 = 4096;

/// One worker's rounds: the direct queue copies host data into `middle` and signals `staged`;
/// the compute queue waits for that, copies `middle` on to a readback buffer and signals
/// `done`; the thread waits for `done` on the CPU and checks the bytes. Every queue is shared
/// with the other workers.
fn worker(ctx: &Ctx, t: u32) {
    let staged = ctx.device.create_fence(0).unwrap();
    let done = ctx.device.create_fence(0).unwrap();
    let middle = ctx.buffer(HeapType::Default, SIZE);
    let readback = ctx.buffer(HeapType::Readback, SIZE);
    for round in 1..=u64::from(ROUNDS) {
        let data = pattern(SIZE as usize, t * 1000 + round as u32);
        let upload = ctx.upload(&data);
        let mut stage = ctx.list(CommandListType::Direct);
        stage.copy_buffer_region(&middle, 0, &upload, 0, SIZE);
        stage.close().unwrap();
        let mut forward = ctx.list(CommandListType::Compute);
        forward.copy_buffer_region(&readback, 0, &middle, 0, SIZE);
        forward.close().unwrap();
        // The compute queue's wait goes in first: it must hold the queue until the direct
        // queue's signal, which another thread's work may precede.
        ctx.compute.wait(&staged, round).unwrap();
        ctx.compute.execute_command_lists(&[&forward]).unwrap();
        ctx.compute.signal(&done, round).unwrap();
        ctx.direct.execute_command_lists(&[&stage]).unwrap();
        ctx.direct.signal(&staged, round).unwrap();
        done.wait(round, TIMEOUT).unwrap();
        assert_eq!(readback.read_vec(0, SIZE as usize).unwrap(), data, "thread {t}, round {round}");
    }
}

#[test]
fn threads_share_queues_with_cross_queue_waits() {
    for (name, ctx) in contexts() {
        let ctx = std::sync::Arc::new(ctx);
        let shared = ctx.clone();
        within(Duration::from_secs(120), name, move || {
            std::thread::scope(|s| {
                for t in 0..THREADS {
                    let ctx = &shared;
                    s.spawn(move || worker(ctx, t));
                }
            })
        });
        drop(ctx);
    }
}

/// A host thread opens a gate the copy queue waits behind, while other threads keep
/// submitting to the same copy queue: their work runs after the gate, in submission order.
#[test]
fn a_host_thread_opens_a_gate_other_threads_submit_behind() {
    for (name, ctx) in contexts() {
        let ctx = std::sync::Arc::new(ctx);
        let shared = ctx.clone();
        within(Duration::from_secs(120), name, move || {
            let ctx = &*shared;
            let gate: Fence = ctx.device.create_fence(0).unwrap();
            let done = ctx.device.create_fence(0).unwrap();
            ctx.copy.wait(&gate, 1).unwrap();
            let buffers: Vec<Resource> = (0..THREADS).map(|_| ctx.buffer(HeapType::Readback, SIZE)).collect();
            let submitted = std::sync::Barrier::new(THREADS as usize + 1);
            let (submitted, done) = (&submitted, &done);
            std::thread::scope(|s| {
                for (t, buffer) in buffers.iter().enumerate() {
                    s.spawn(move || {
                        let upload = ctx.upload(&pattern(SIZE as usize, 77 + t as u32));
                        let mut l = ctx.list(CommandListType::Copy);
                        l.copy_buffer_region(buffer, 0, &upload, 0, SIZE);
                        full_barrier(&mut l);
                        l.close().unwrap();
                        ctx.copy.execute_command_lists(&[&l]).unwrap();
                        submitted.wait();
                        // Nothing runs before the gate opens; the upload stays alive until
                        // `done`, which only the gate lets through.
                        done.wait(1, TIMEOUT).unwrap();
                    });
                }
                s.spawn(move || {
                    submitted.wait();
                    std::thread::sleep(Duration::from_millis(30));
                    assert_eq!(done.completed_value(), 0, "work ran before the gate opened");
                    ctx.copy.signal(done, 1).unwrap();
                    gate.signal(1).unwrap();
                });
            });
            for (t, buffer) in buffers.iter().enumerate() {
                assert_eq!(buffer.read_vec(0, SIZE as usize).unwrap(), pattern(SIZE as usize, 77 + t as u32));
            }
        });
        drop(ctx);
    }
}

/// Devices made, used and dropped on several threads at once, again and again (the NVIDIA
/// driver once deadlocked in `vkDestroyDevice` while another thread exited).
#[test]
fn devices_are_made_and_dropped_on_many_threads_at_once() {
    within(Duration::from_secs(300), "devices made and dropped concurrently", || {
        std::thread::scope(|s| {
            for t in 0..THREADS {
                s.spawn(move || {
                    for round in 0..3 {
                        for (name, ctx) in contexts() {
                            let data = pattern(256, t * 10 + round);
                            let buffer = ctx.default_buffer(&data);
                            assert_eq!(ctx.read_buffer(&buffer), data, "{name}, thread {t}, round {round}");
                        }
                    }
                });
            }
        })
    });
}

/// Two queues race on one buffer with work large enough for the reference device to spread
/// over its workers: the direct queue's copies read the buffer into sixteen others while the
/// compute queue's fill writes it. The API leaves the bytes the copies read undefined, but
/// neither queue may stall: the fill holds the buffer's lock while its rows are spread, and
/// the copies' parts wait on that lock on the workers that its rows would need.
#[test]
fn two_queues_racing_on_one_buffer_with_spread_work_never_stall() {
    const PART: u64 = 4 << 20;
    const PARTS: u64 = 16;
    // The device lives on the timed thread: a stalled queue must fail the test, not hold the
    // test's thread in the device's drop.
    within(Duration::from_secs(120), "reference native", move || {
        let config = ReferenceConfig { native_async_commands: true, ..Default::default() };
        let native = opted_in(&reference_adapter(config));
        assert_eq!(native.async_commands_impl(), AsyncCommandsImpl::Native);
        let ctx = &Ctx::new(native);
        let source = ctx.buffer(HeapType::Default, PART * PARTS);
        let dests: Vec<Resource> = (0..PARTS).map(|_| ctx.buffer(HeapType::Default, PART)).collect();
        let pattern = [7u8, 1, 2, 9];
        for round in 0..16 {
            let mut copies = ctx.list(CommandListType::Direct);
            let regions: Vec<BufferCopyRegion<&Resource>> = dests
                .iter()
                .enumerate()
                .map(|(i, dest)| BufferCopyRegion {
                    dest,
                    dest_offset: 0,
                    source: &source,
                    source_offset: i as u64 * PART,
                    size: PART,
                })
                .collect();
            copies.copy_buffer_regions(&regions);
            copies.close().unwrap();
            let mut fill = ctx.list(CommandListType::Compute);
            let mut bytes = [0u8; 16];
            bytes[..4].copy_from_slice(&pattern);
            fill.fill_buffers(&[FillBufferDesc {
                buffer: &source,
                offset: 0,
                fill_value: ClearData { bytes },
                format: Format::Unknown,
                raw_pattern_size: 4,
                repeat_count: (PART * PARTS / 4) as u32,
            }]);
            fill.close().unwrap();
            ctx.direct.execute_command_lists(&[&copies]).unwrap();
            ctx.compute.execute_command_lists(&[&fill]).unwrap();
            ctx.direct.wait_idle(TIMEOUT).unwrap_or_else(|e| panic!("round {round}: {e}"));
            ctx.compute.wait_idle(TIMEOUT).unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
        assert!(ctx.read_buffer(&source).chunks(4).all(|c| c == pattern), "the fill's bytes");
    });
}

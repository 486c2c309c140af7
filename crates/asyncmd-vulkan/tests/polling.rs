//! The driver threads' polling paths, which run on machines of 8 cores or more (`threads.rs`),
//! forced on ([`asyncmd_vulkan::POLLING_ENV`]) so that they run on any machine: lists that hold
//! a polling thread from their first command and alert their queues' threads, CPU waits whose
//! caller and waiter poll before they sleep, and the cap on long polls, with several threads
//! waiting at once and waits that outlast the polls. The setting is read once per process, so
//! this binary holds one test, which sets it before any device exists.

#[path = "../../asyncmd/tests/common/mod.rs"]
mod common;

use asyncmd::types::*;
use asyncmd_vulkan::{DriverThreads, VulkanDevice};
use common::*;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(20);

#[test]
fn frames_and_waits_on_threads_that_poll_see_every_result() {
    // Before any device: the first driver call reads it. No other test shares this process.
    std::env::set_var(asyncmd_vulkan::POLLING_ENV, "on");
    let Some(ctx) = vulkan_ctx(asyncmd_vulkan::VulkanOptions {
        validation: asyncmd_vulkan::Validation::IfAvailable,
        driver_threads: DriverThreads::Pooled,
        ..Default::default()
    }) else {
        return;
    };
    assert!(VulkanDevice::driver_threads_poll(), "{} is set", asyncmd_vulkan::POLLING_ENV);
    // More threads waiting at once than the long polls' cap on a small machine.
    std::thread::scope(|s| {
        for t in 0..4u8 {
            let ctx = &ctx;
            s.spawn(move || frames(ctx, t));
        }
    });
    a_wait_outlasts_the_polls(&ctx);
}

/// Twenty frames of a 256-byte copy on a queue of this thread's own, each read back.
fn frames(ctx: &Ctx, thread: u8) {
    let queue = ctx.device.create_command_queue(CommandListType::Direct).unwrap();
    let mut frames = CopyFrames::new(ctx);
    for frame in 1..=20u8 {
        let byte = thread.wrapping_mul(50).wrapping_add(frame);
        frames.src.write(0, &[byte; 256]).unwrap();
        frames.run(&queue, u64::from(frame));
        assert_eq!(frames.dst.read_vec(0, 256).unwrap(), vec![byte; 256], "thread {thread}, frame {frame}");
    }
}

/// A queue waits for a fence that the CPU signals 50 ms later, long past every poll, and a CPU
/// wait for the queue's signal after it: both end once the signal comes, not before.
fn a_wait_outlasts_the_polls(ctx: &Ctx) {
    let d = &ctx.device;
    let (gate, done) = (d.create_fence(0).unwrap(), d.create_fence(0).unwrap());
    ctx.direct.wait(&gate, 1).unwrap();
    ctx.direct.signal(&done, 1).unwrap();
    let start = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            gate.signal(1).unwrap();
        });
        done.wait(1, TIMEOUT).unwrap();
    });
    assert!(start.elapsed() >= Duration::from_millis(50), "the wait ended before the signal");
    assert_eq!(done.completed_value(), 1);
    // A wait for a value nothing will signal times out, polls and all.
    let never = Instant::now();
    assert!(done.wait(2, Duration::from_millis(30)).is_err());
    assert!(never.elapsed() >= Duration::from_millis(30));
}

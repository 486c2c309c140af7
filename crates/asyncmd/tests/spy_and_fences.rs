//! The spy records what the runtime emits; fences order work across queues and the CPU.

mod common;

use asyncmd::ddi::spy::SpyDevice;
use asyncmd::ddi::{Command, DeviceDdi};
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use asyncmd_vulkan::{Validation, VulkanOptions};
use common::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn the_spy_records_every_command_a_list_emits_and_forwards_it() {
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(ReferenceConfig::default()))));
    let log = spy.log();
    let device = DeviceFactory::new().create_device(&Adapter::new(spy as Arc<dyn DeviceDdi>)).unwrap();
    let ctx = Ctx::new(device);
    let src = ctx.upload(&[5; 32]);
    let dst = ctx.buffer(HeapType::Readback, 32);
    log.clear();
    ctx.run(CommandListType::Direct, |l| {
        l.copy_buffer_region(&dst, 0, &src, 0, 16);
        l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
            sync_before: BarrierSync::COPY,
            sync_after: BarrierSync::COPY,
            access_before: BarrierAccess::COPY_DEST,
            access_after: BarrierAccess::COPY_DEST,
        }])]);
        l.copy_buffer_region(&dst, 16, &src, 16, 16);
    });
    assert_eq!(log.names(), vec!["CopyBufferRegion", "Barrier", "CopyBufferRegion"]);
    match &log.commands()[2] {
        Command::CopyBufferRegion(r) => assert_eq!((r.dest, r.dest_offset, r.size), (dst.id(), 16, 16)),
        other => panic!("unexpected {other:?}"),
    }
    // The spy forwards: the copies really ran.
    assert_eq!(dst.read_vec(0, 32).unwrap(), vec![5; 32]);
    // A rejected call emits nothing.
    log.clear();
    let r = ctx.record(CommandListType::Direct, |l| l.copy_buffer_region(&dst, 0, &src, 0, 33));
    assert!(r.is_err());
    assert!(log.names().is_empty());
}

#[test]
fn cpu_signals_and_waits() {
    for (name, ctx) in contexts() {
        let _ = name;
        let fence = ctx.device.create_fence(3).unwrap();
        assert_eq!(fence.completed_value(), 3);
        let e = fence.wait(4, Duration::from_millis(20)).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::Fail, MessageId::FenceInvalidOperation));
        let f2 = fence.clone();
        let t = std::thread::spawn(move || f2.signal(9).unwrap());
        fence.wait(9, TIMEOUT).unwrap();
        t.join().unwrap();
        assert_eq!(fence.completed_value(), 9);
    }
}

#[test]
fn queue_signals_follow_the_work_before_them() {
    for (name, ctx) in contexts() {
        let _ = name;
        let gate = ctx.device.create_fence(0).unwrap();
        let done = ctx.device.create_fence(0).unwrap();
        ctx.compute.wait(&gate, 1).unwrap();
        ctx.compute.signal(&done, 1).unwrap();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(done.completed_value(), 0, "the queue is held by its wait");
        gate.signal(1).unwrap();
        done.wait(1, TIMEOUT).unwrap();
    }
}

#[test]
fn a_fence_of_another_device_is_refused() {
    let a = Ctx::reference();
    let b = Ctx::reference();
    let fence = b.device.create_fence(0).unwrap();
    assert_eq!(a.direct.signal(&fence, 1).unwrap_err().id, MessageId::FenceInvalidOperation);
    assert_eq!(a.direct.wait(&fence, 1).unwrap_err().id, MessageId::FenceInvalidOperation);
}

#[test]
fn resources_of_another_device_are_refused() {
    let a = Ctx::reference();
    let b = Ctx::reference();
    let mine = a.buffer(HeapType::Default, 16);
    let theirs = b.buffer(HeapType::Default, 16);
    let r = a.record(CommandListType::Direct, |l| l.copy_buffer_region(&mine, 0, &theirs, 0, 16));
    assert_eq!(r.unwrap_err().code, ErrorCode::InvalidArg);
}

#[test]
fn dropping_everything_with_work_in_flight_neither_hangs_nor_crashes() {
    for (name, ctx) in contexts() {
        let _ = name;
        let gate = ctx.device.create_fence(0).unwrap();
        let buf = ctx.default_buffer(&[1; 1024]);
        let other = ctx.buffer(HeapType::Default, 1024);
        let mut list = ctx.list(CommandListType::Compute);
        list.copy_buffer_region(&other, 0, &buf, 0, 1024);
        list.close().unwrap();
        // The compute queue waits on a fence that is signalled only after every handle is gone.
        ctx.compute.wait(&gate, 1).unwrap();
        ctx.compute.execute_command_lists(&[&list]).unwrap();
        drop((buf, other, list));
        let signal = gate.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            signal.signal(1).unwrap();
        });
        drop(ctx);
        t.join().unwrap();
    }
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

/// A fence a queue signalled after its work tells the runtime that work is done once the fence
/// gets there, so that an allocator's reset need not ask the device (`fence/implied.rs`).
/// `pass` makes the fence pass the direct queue's signal of 1 while that queue is held with its
/// list: the allocator must still see its work pending.
fn passing_the_queues_signal_says_nothing_of_its_work(pass: impl Fn(&Ctx, &Fence)) {
    for (name, ctx) in contexts() {
        let d = &ctx.device;
        let gate = d.create_fence(0).unwrap();
        let fence = d.create_fence(0).unwrap();
        let alloc = d.create_command_allocator(CommandListType::Direct).unwrap();
        let mut list = d.create_command_list(CommandListType::Direct, &alloc).unwrap();
        list.close().unwrap();
        // The queue holds the list and its signal until the gate opens.
        ctx.direct.wait(&gate, 1).unwrap();
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.signal(&fence, 1).unwrap();
        pass(&ctx, &fence);
        fence.wait(2, TIMEOUT).unwrap_or_else(|e| panic!("{name}: {}", e.text));
        let e = alloc.reset().unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::Fail, MessageId::CommandAllocatorResetWhileInFlight), "{name}");
        gate.signal(1).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        alloc.reset().unwrap_or_else(|e| panic!("{name}: {}", e.text));
    }
}

#[test]
fn a_cpu_signal_past_a_queue_signal_says_nothing_of_the_queues_work() {
    passing_the_queues_signal_says_nothing_of_its_work(|_, fence| fence.signal(2).unwrap());
}

/// The same with a second queue's signal, which runs while the first queue is held.
#[test]
fn another_queues_signal_says_nothing_of_the_first_queues_work() {
    passing_the_queues_signal_says_nothing_of_its_work(|ctx, fence| ctx.compute.signal(fence, 2).unwrap());
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

/// The step rule counts from the value the fence has reached, also where the runtime has not
/// read it since a queue moved it: the known value is only a first answer.
#[test]
fn a_step_counts_from_the_value_a_queue_set_unread() {
    for (name, ctx) in contexts() {
        let fence = ctx.device.create_fence(0).unwrap();
        ctx.direct.signal(&fence, asyncmd::MAX_FENCE_STEP).unwrap();
        // Another fence signalled after it: nothing reads this fence's value.
        let after = ctx.device.create_fence(0).unwrap();
        ctx.direct.signal(&after, 1).unwrap();
        after.wait(1, TIMEOUT).unwrap();
        fence.signal(asyncmd::MAX_FENCE_STEP + 5).unwrap_or_else(|e| panic!("{name}: {}", e.text));
        ctx.direct.wait(&fence, 2 * asyncmd::MAX_FENCE_STEP).unwrap_or_else(|e| panic!("{name}: {}", e.text));
        let e = fence.signal(2 * asyncmd::MAX_FENCE_STEP + 6).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::FenceInvalidOperation), "{name}");
        assert!(e.text.contains("MAX_FENCE_STEP"), "{name}: {}", e.text);
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

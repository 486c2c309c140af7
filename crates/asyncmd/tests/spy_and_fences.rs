//! The spy records what the runtime emits; fences order work across queues and the CPU.

mod common;

use asyncmd::ddi::spy::SpyDevice;
use asyncmd::ddi::{Command, DeviceDdi};
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use common::*;
use std::sync::Arc;
use std::time::Duration;

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

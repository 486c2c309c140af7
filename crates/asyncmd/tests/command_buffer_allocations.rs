//! After a warm-up, making a command buffer, recording a few commands, submitting it and
//! waiting for it allocates nothing on the calling thread (reference device): the queue
//! recycles executed buffers, buffers dropped unsubmitted, and the vectors of its bookkeeping. A test binary of its own: `allocation-counter` installs a counting global
//! allocator, which counts per thread.

use asyncmd::types::*;
use asyncmd::{Adapter, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;
use std::time::Duration;

#[test]
fn a_steady_state_frame_of_command_buffers_allocates_nothing() {
    let device = DeviceFactory::new()
        .create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))
        .expect("device");
    let queue = device.create_command_queue(CommandListType::Direct).expect("queue");
    let buffer = |heap| device.create_committed_resource(heap, &ResourceDesc::buffer(4096), BarrierLayout::Undefined);
    let (src, dst, rb) =
        (buffer(HeapType::Upload).unwrap(), buffer(HeapType::Default).unwrap(), buffer(HeapType::Readback).unwrap());
    src.write(0, &[5; 4096]).unwrap();
    // A frame, counted whole: a buffer made and dropped unsubmitted (its parts go straight
    // back), one that tracks a resource, records three copies and is submitted, and the CPU
    // wait that releases what it tracked.
    let frame = || {
        allocation_counter::measure(|| {
            let mut dropped = queue.create_command_buffer(Semantics::Fast, Level::Primary).expect("buffer");
            dropped.copy_buffer_region(&dst, 0, &src, 0, 16);
            drop(dropped);
            let mut b = queue.create_command_buffer(Semantics::Legacy, Level::Primary).expect("buffer");
            b.track(&src);
            b.copy_buffer_region(&dst, 0, &src, 0, 4096);
            b.copy_buffer_region(&rb, 0, &dst, 0, 1024);
            b.copy_buffer_region(&rb, 1024, &src, 1024, 1024);
            let value = b.submit().expect("submit");
            queue.wait_for(value, Duration::from_secs(5)).expect("wait");
        })
        .count_total
    };
    // The check counts: one string allocates once.
    assert_eq!(allocation_counter::measure(|| drop(std::hint::black_box(String::from("x")))).count_total, 1);
    for _ in 0..8 {
        frame();
    }
    let counts: Vec<u64> = (0..32).map(|_| frame()).collect();
    assert_eq!(rb.read_vec(0, 4).unwrap(), [5; 4]);
    assert!(counts.iter().all(|&n| n == 0), "allocations per frame after the warm-up: {counts:?}");
}

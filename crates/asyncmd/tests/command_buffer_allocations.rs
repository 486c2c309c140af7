//! After a warm-up, making a command buffer, recording a few commands and submitting it
//! allocates nothing on the calling thread (reference device): the queue recycles executed
//! buffers. A test binary of its own: `allocation-counter` installs a counting global
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
    // Create, record three copies, submit: counted. The CPU wait between frames is not.
    let frame = || {
        let mut value = 0;
        let counted = allocation_counter::measure(|| {
            let mut b = queue.create_command_buffer(Semantics::Legacy, Level::Primary).expect("buffer");
            b.copy_buffer_region(&dst, 0, &src, 0, 4096);
            b.copy_buffer_region(&rb, 0, &dst, 0, 1024);
            b.copy_buffer_region(&rb, 1024, &src, 1024, 1024);
            value = b.submit().expect("submit");
        });
        queue.wait_for(value, Duration::from_secs(5)).expect("wait");
        counted.count_total
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

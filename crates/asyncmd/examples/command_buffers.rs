//! The command-buffer cycle: a queue makes a buffer, it records, `transfer` copies host memory
//! through a staging buffer it keeps alive, `submit` hands it to the queue, and the CPU reads
//! the result back after waiting for the fence value submit returned. A secondary buffer runs
//! in two primaries. Frames reuse the queue's recycled buffers.
//!
//! `cargo run -p asyncmd --example command_buffers`

use asyncmd::types::*;
use asyncmd::{Adapter, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;
use std::time::Duration;

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let timeout = Duration::from_secs(5);

    let target =
        device.create_committed_resource(HeapType::Default, &ResourceDesc::buffer(256), BarrierLayout::Undefined)?;
    let readback =
        device.create_committed_resource(HeapType::Readback, &ResourceDesc::buffer(256), BarrierLayout::Undefined)?;

    // Three frames, each a new command buffer: the queue recycles the memory of executed ones.
    for frame in 0..3u8 {
        let mut buffer = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
        // Host memory to the GPU: a staging buffer is made and tracked until the copy has run.
        buffer.transfer_host_to_buffer(&[frame; 256], &target, 0)?;
        buffer.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
            sync_before: BarrierSync::COPY,
            sync_after: BarrierSync::COPY,
            access_before: BarrierAccess::COPY_DEST,
            access_after: BarrierAccess::COPY_SOURCE,
        }])]);
        buffer.transfer_buffer(&target, 0, &readback, 0, 256)?;
        println!("frame {frame}: {} objects tracked", buffer.tracked_resources().len());
        let value = buffer.submit()?;
        // Readback after a CPU wait on the submission's fence value.
        queue.wait_for(value, timeout)?;
        let bytes = readback.read_vec(0, 4)?;
        println!("frame {frame}: fence {value}, read back {bytes:?}, {} objects still held", queue.tracked_in_flight());
    }

    // Usage flags: a destination created without TRANSFER_DESTINATION is refused.
    let read_only = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(256).with_usage(ResourceUsage::TRANSFER_SOURCE),
        BarrierLayout::Undefined,
    )?;
    let mut buffer = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    if let Err(e) = buffer.transfer_buffer(&target, 0, &read_only, 0, 256) {
        println!("transfer into a source-only buffer: {:?}: {}", e.code, e.text);
    }
    // Dropped unsubmitted: its parts go straight back to the queue.
    drop(buffer);

    // A secondary buffer (a bundle) records once and runs in every primary that executes it.
    let mut secondary = queue.create_command_buffer(Semantics::Legacy, Level::Secondary)?;
    secondary.ia_set_primitive_topology(asyncmd::ddi::PrimitiveTopology::TriangleList);
    let mut last = 0;
    for _ in 0..2 {
        let mut primary = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
        primary.execute(&mut secondary)?;
        last = primary.submit()?;
    }
    queue.wait_for(last, timeout)?;
    println!("a secondary buffer ran in two primaries; the queue's fence is at {}", queue.fence().completed_value());
    Ok(())
}

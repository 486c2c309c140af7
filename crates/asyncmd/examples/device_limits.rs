//! What a device refuses instead of failing badly: memory past the reference device's budget
//! (`OutOfMemory`) and fence values that go back or jump too far (`InvalidArg`).
//!
//! `cargo run -p asyncmd --example device_limits`

use asyncmd::types::*;
use asyncmd::{Adapter, DeviceFactory, MAX_FENCE_STEP};
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use std::sync::Arc;
use std::time::Duration;

fn main() -> Result<()> {
    // A small device: 64 MiB for everything it holds.
    let config = ReferenceConfig { memory_budget: 64 << 20, ..Default::default() };
    let device = DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(config))))?;

    let half = ResourceDesc::buffer(40 << 20);
    let first = device.create_committed_resource(HeapType::Default, &half, BarrierLayout::Undefined)?;
    match device.create_committed_resource(HeapType::Default, &half, BarrierLayout::Undefined) {
        Err(e) => println!("second 40 MiB buffer: {:?}: {}", e.code, e.text),
        Ok(_) => println!("second 40 MiB buffer: created (unexpected)"),
    }
    drop(first);
    device.create_committed_resource(HeapType::Default, &half, BarrierLayout::Undefined)?;
    println!("after the first is released, it fits");

    let queue = device.create_command_queue(CommandListType::Direct)?;
    let fence = device.create_fence(10)?;
    for value in [5, 10, 11 + MAX_FENCE_STEP] {
        if let Err(e) = queue.signal(&fence, value) {
            println!("signal {value}: {:?}: {}", e.code, e.text);
        }
    }
    queue.signal(&fence, 11)?;
    fence.wait(11, Duration::from_secs(5))?;
    println!("signal 11: the fence is at {}", fence.completed_value());
    Ok(())
}

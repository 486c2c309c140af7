//! `asyncmd bench --suite command-buffers`: the CPU cost of a command buffer's cycle (made by
//! the queue, N commands recorded, submitted) against the same work recorded by hand on a
//! command list and allocator the app keeps and resets itself, side by side on one device.
//! The GPU's work is waited for between cycles and not timed: both sides reuse memory the GPU
//! is done with.

use super::timing::median;
use crate::devices::DeviceSpec;
use asyncmd::types::{BarrierLayout, CommandListType, HeapType, ResourceDesc};
use asyncmd::{Adapter, CommandQueue, Device, DeviceFactory, Level, Resource, Result, Semantics};
use serde::Serialize;
use std::time::{Duration, Instant};

/// One workload: N copies a cycle.
#[derive(Clone, Debug, Serialize)]
pub struct CycleRow {
    /// Commands recorded per cycle.
    pub commands: u32,
    /// Microseconds per cycle with a command buffer (median of the runs).
    pub command_buffer_us: f64,
    /// Microseconds per cycle with a list and allocator managed by hand (median).
    pub by_hand_us: f64,
}

impl CycleRow {
    /// Command buffer ÷ by hand.
    pub fn ratio(&self) -> f64 {
        self.command_buffer_us / self.by_hand_us
    }
}

const TIMEOUT: Duration = Duration::from_secs(10);

/// Sources and destinations of the copies: small buffers, so the CPU side dominates.
struct Work {
    src: Resource,
    dst: Vec<Resource>,
}

impl Work {
    fn new(device: &Device, commands: u32) -> Result<Self> {
        let buffer =
            |heap| device.create_committed_resource(heap, &ResourceDesc::buffer(256), BarrierLayout::Undefined);
        let src = buffer(HeapType::Upload)?;
        let dst = (0..commands).map(|_| buffer(HeapType::Default)).collect::<Result<Vec<_>>>()?;
        Ok(Work { src, dst })
    }

    fn record(&self, list: &mut asyncmd::CommandRecorder) {
        for d in &self.dst {
            list.copy_buffer_region(d, 0, &self.src, 0, 256);
        }
    }
}

/// The app's own allocator, list and fence, for the cycles by hand.
struct ByHand {
    allocator: asyncmd::CommandAllocator,
    list: asyncmd::CommandList,
    fence: asyncmd::Fence,
    value: u64,
}

impl ByHand {
    fn new(device: &Device) -> Result<Self> {
        let allocator = device.create_command_allocator(CommandListType::Direct)?;
        let mut list = device.create_command_list(CommandListType::Direct, &allocator)?;
        list.close()?;
        Ok(ByHand { allocator, list, fence: device.create_fence(0)?, value: 0 })
    }

    /// One cycle: reset (the GPU is done), record, close, execute, signal. Returns the time
    /// it took; waits for the GPU after, untimed.
    fn cycle(&mut self, queue: &CommandQueue, work: &Work) -> Result<Duration> {
        let t = Instant::now();
        self.allocator.reset()?;
        self.list.reset(&self.allocator)?;
        work.record(&mut self.list);
        self.list.close()?;
        queue.execute_command_lists(&[&self.list])?;
        self.value += 1;
        queue.signal(&self.fence, self.value)?;
        let spent = t.elapsed();
        self.fence.wait(self.value, TIMEOUT)?;
        Ok(spent)
    }
}

/// One command-buffer cycle: made by the queue, recorded, submitted. Returns the time it
/// took; waits for the GPU after, untimed.
fn buffer_cycle(queue: &CommandQueue, work: &Work) -> Result<Duration> {
    let t = Instant::now();
    let mut b = queue.create_command_buffer(Semantics::Fast, Level::Primary)?;
    work.record(&mut b);
    let value = b.submit()?;
    let spent = t.elapsed();
    queue.wait_for(value, TIMEOUT)?;
    Ok(spent)
}

/// Measures 1, 16 and 256 commands a cycle (`quick`: fewer cycles). The two sides alternate
/// cycle by cycle, so that the machine's drift touches both alike; each side's figure is the
/// median of its cycles.
pub fn measure(spec: DeviceSpec, quick: bool) -> Result<(String, Vec<CycleRow>)> {
    let device = DeviceFactory::new().create_device(&Adapter::new(spec.open_with_native(false)?))?;
    let name = device.capabilities().name.clone();
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let cycles = if quick { 60 } else { 2000 };
    let mut rows = Vec::new();
    for commands in [1u32, 16, 256] {
        let work = Work::new(&device, commands)?;
        let mut hand = ByHand::new(&device)?;
        // Warm-up: the queue's recycled buffers and the device's pools fill.
        for _ in 0..8 {
            buffer_cycle(&queue, &work)?;
            hand.cycle(&queue, &work)?;
        }
        let (mut cb, mut by_hand) = (Vec::with_capacity(cycles), Vec::with_capacity(cycles));
        for _ in 0..cycles {
            cb.push(buffer_cycle(&queue, &work)?.as_secs_f64() * 1e6);
            by_hand.push(hand.cycle(&queue, &work)?.as_secs_f64() * 1e6);
        }
        rows.push(CycleRow { commands, command_buffer_us: median(cb), by_hand_us: median(by_hand) });
    }
    Ok((name, rows))
}

/// The suite as a Markdown table.
pub fn markdown(device: &str, rows: &[CycleRow]) -> String {
    let mut out = format!(
        "## Command buffers on {device}\n\nCPU µs per cycle (create or reset, record, submit), median\n\n\
         | commands | command buffer | by hand | ratio |\n|---|---|---|---|\n"
    );
    for r in rows {
        out += &format!("| {} | {:.2} | {:.2} | {:.2} |\n", r.commands, r.command_buffer_us, r.by_hand_us, r.ratio());
    }
    out
}

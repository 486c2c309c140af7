//! `asyncmd bench --suite command-buffers`: the CPU cost of a command buffer's cycle (made by
//! the queue, N commands recorded, submitted) against the same work recorded by hand on a
//! command list and allocator the app keeps and resets itself, side by side on one device.
//! The GPU's work is waited for between iterations and not timed: both sides reuse memory the
//! GPU is done with.

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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

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

    fn record(&self, list: &mut asyncmd::CommandList) {
        for d in &self.dst {
            list.copy_buffer_region(d, 0, &self.src, 0, 256);
        }
    }
}

/// Microseconds per cycle with command buffers, `iterations` cycles a run.
fn with_command_buffers(queue: &CommandQueue, work: &Work, iterations: u32) -> Result<f64> {
    let mut spent = Duration::ZERO;
    for _ in 0..iterations {
        let t = Instant::now();
        let mut b = queue.create_command_buffer(Semantics::Fast, Level::Primary)?;
        work.record(&mut b);
        let value = b.submit()?;
        spent += t.elapsed();
        queue.wait_for(value, TIMEOUT)?;
    }
    Ok(spent.as_secs_f64() * 1e6 / iterations as f64)
}

/// The same by hand: one allocator and list, reset before each recording once the GPU is
/// done, executed and signalled on an app fence.
fn by_hand(device: &Device, queue: &CommandQueue, work: &Work, iterations: u32) -> Result<f64> {
    let allocator = device.create_command_allocator(CommandListType::Direct)?;
    let mut list = device.create_command_list(CommandListType::Direct, &allocator)?;
    list.close()?;
    let fence = device.create_fence(0)?;
    let mut spent = Duration::ZERO;
    for i in 1..=iterations as u64 {
        let t = Instant::now();
        allocator.reset()?;
        list.reset(&allocator)?;
        work.record(&mut list);
        list.close()?;
        queue.execute_command_lists(&[&list])?;
        queue.signal(&fence, i)?;
        spent += t.elapsed();
        fence.wait(i, TIMEOUT)?;
    }
    Ok(spent.as_secs_f64() * 1e6 / iterations as f64)
}

/// Measures 1, 16 and 256 commands a cycle (`quick`: fewer runs and iterations).
pub fn measure(spec: DeviceSpec, quick: bool) -> Result<(String, Vec<CycleRow>)> {
    let device = DeviceFactory::new().create_device(&Adapter::new(spec.open_with_native(false)?))?;
    let name = device.capabilities().name.clone();
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let (runs, iterations) = if quick { (3, 20) } else { (9, 200) };
    let mut rows = Vec::new();
    for commands in [1u32, 16, 256] {
        let work = Work::new(&device, commands)?;
        // Warm-up: the queue's recycled buffers and the device's pools fill.
        with_command_buffers(&queue, &work, 8)?;
        by_hand(&device, &queue, &work, 8)?;
        let (mut cb, mut hand) = (Vec::new(), Vec::new());
        // Interleaved, so that the machine's drift touches both alike.
        for _ in 0..runs {
            cb.push(with_command_buffers(&queue, &work, iterations)?);
            hand.push(by_hand(&device, &queue, &work, iterations)?);
        }
        rows.push(CycleRow { commands, command_buffer_us: median(cb), by_hand_us: median(hand) });
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

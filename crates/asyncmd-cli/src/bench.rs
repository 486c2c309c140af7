//! `asyncmd bench`: each Async Command measured as the spec asks, on one device and in one run:
//! **Legacy** (the loop of legacy calls an app writes without the API), **Fallback** (the API
//! through the runtime's lowering) and **Native** (the API through the device's own DDI).
//!
//! Times are device time between two timestamp queries around the work in one command list,
//! the median of the runs after a warm-up.

mod cases;

use crate::devices::DeviceSpec;
use asyncmd::types::{BarrierLayout, CommandListType, HeapType, QueryHeapDesc, QueryHeapType, QueryType, ResourceDesc};
use asyncmd::{Adapter, CommandList, CommandQueue, Device, DeviceFactory, Result};
use cases::Case;
use std::time::Duration;

/// How much work each case does and how often it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Small batches and three runs: a check that every path works (tests, CI).
    Quick,
    /// The batches of `docs/measurements.md`, seven runs.
    Full,
}

impl Size {
    fn runs(self) -> usize {
        match self {
            Size::Quick => 3,
            Size::Full => 7,
        }
    }
}

/// A device with a direct queue, ready to time lists.
struct Bench {
    device: Device,
    queue: CommandQueue,
    ticks: QueryHeap,
    out: asyncmd::Resource,
}

type QueryHeap = asyncmd::QueryHeap;

impl Bench {
    fn new(ddi: std::sync::Arc<dyn asyncmd::ddi::DeviceDdi>) -> Result<Self> {
        let factory = DeviceFactory::new();
        factory.async_commands_fallback().set_fallback_layer_enabled(true);
        let device = factory.create_device(&Adapter::new(ddi))?;
        let queue = device.create_command_queue(CommandListType::Direct)?;
        let ticks = device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 2 })?;
        let out = device.create_committed_resource(
            HeapType::Readback,
            &ResourceDesc::buffer(16),
            BarrierLayout::Undefined,
        )?;
        Ok(Self { device, queue, ticks, out })
    }

    /// Median device milliseconds of `record`, recorded alone in one list.
    fn time(&self, runs: usize, record: &dyn Fn(&mut CommandList)) -> Result<f64> {
        let freq = self.queue.timestamp_frequency() as f64;
        let alloc = self.device.create_command_allocator(CommandListType::Direct)?;
        let mut samples = Vec::with_capacity(runs);
        for run in 0..=runs {
            let mut list = self.device.create_command_list(CommandListType::Direct, &alloc)?;
            list.end_query(&self.ticks, QueryType::Timestamp, 0);
            record(&mut list);
            list.end_query(&self.ticks, QueryType::Timestamp, 1);
            list.resolve_query_data(&self.ticks, QueryType::Timestamp, 0, 2, &self.out, 0);
            list.close()?;
            self.queue.execute_command_lists(&[&list])?;
            self.queue.wait_idle(Duration::from_secs(120))?;
            drop(list);
            alloc.reset()?;
            let b = self.out.read_vec(0, 16)?;
            let t0 = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
            let t1 = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
            if run > 0 {
                samples.push(t1.saturating_sub(t0) as f64 / freq * 1e3);
            }
        }
        samples.sort_by(|a, b| a.total_cmp(b));
        Ok(samples[samples.len() / 2])
    }
}

/// One row of the report.
#[derive(Clone, Debug)]
pub struct Row {
    /// The Async Command.
    pub api: &'static str,
    /// The work, in words.
    pub work: String,
    /// Legacy loop, fallback and native milliseconds.
    pub legacy: f64,
    /// The API through the fallback.
    pub fallback: f64,
    /// The API through the device's native DDI; `None` where the device has none.
    pub native: Option<f64>,
}

/// Measures every case on the device `spec` names.
pub fn measure(spec: DeviceSpec, size: Size) -> Result<(String, Vec<Row>)> {
    let fallback = Bench::new(spec.open_with_native(false)?)?;
    if fallback.device.async_commands_impl() != asyncmd::AsyncCommandsImpl::Fallback {
        return Err(asyncmd::Error::fail(
            asyncmd::MessageId::AsyncCommandsFallbackUnsupported,
            "bench: the fallback is not available on this device (it needs enhanced barriers)",
        ));
    }
    let native = Bench::new(spec.open_with_native(true)?)?;
    let native = (native.device.async_commands_impl() == asyncmd::AsyncCommandsImpl::Native).then_some(native);
    let name = fallback.device.capabilities().name.clone();
    let mut rows = Vec::new();
    for build in cases::ALL {
        let Some(f) = build(&fallback.device, size)? else { continue };
        let legacy = fallback.time(size.runs(), &*f.legacy)?;
        let fb = fallback.time(size.runs(), &*f.batch)?;
        let nt = match &native {
            Some(n) => match build(&n.device, size)? {
                Some(Case { batch, .. }) => Some(n.time(size.runs(), &*batch)?),
                None => None,
            },
            None => None,
        };
        rows.push(Row { api: f.api, work: f.work, legacy, fallback: fb, native: nt });
    }
    Ok((name, rows))
}

/// `asyncmd bench`: prints the report as a Markdown table.
pub fn run(spec: Option<DeviceSpec>, quick: bool) -> Result<()> {
    let spec = DeviceSpec::resolve(spec)?;
    let size = if quick { Size::Quick } else { Size::Full };
    let (name, rows) = measure(spec, size)?;
    println!("device: {name}");
    println!("| API | work | legacy ms | fallback ms | native ms | fallback / legacy | native speedup over legacy |");
    println!("|---|---|---|---|---|---|---|");
    for r in rows {
        let native = r.native.map_or("n/a".to_string(), |n| format!("{n:.4}"));
        let speedup = r.native.map_or("n/a".to_string(), |n| format!("{:.1}×", r.legacy / n.max(1e-9)));
        println!(
            "| {} | {} | {:.4} | {:.4} | {native} | {:.2} | {speedup} |",
            r.api,
            r.work,
            r.legacy,
            r.fallback,
            r.fallback / r.legacy.max(1e-9)
        );
    }
    Ok(())
}

//! Timing one recording: device time between two timestamps around it, and the CPU time of
//! recording it, each the median of the runs after a warm-up.

use asyncmd::types::{BarrierLayout, CommandListType, HeapType, QueryHeapDesc, QueryHeapType, QueryType, ResourceDesc};
use asyncmd::{Adapter, CommandAllocator, CommandList, CommandQueue, Device, DeviceFactory, QueryHeap, Result};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What one recording cost.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Timing {
    /// Device milliseconds between the timestamps around the work (median).
    pub gpu_ms: f64,
    /// Microseconds the CPU spent recording the work (median).
    pub cpu_us: f64,
}

/// A device with a direct queue, ready to time lists.
pub struct Bench {
    pub(crate) device: Device,
    pub(crate) queue: CommandQueue,
    /// Two timestamps, and the buffer they are resolved into.
    pub(crate) ticks: QueryHeap,
    pub(crate) out: asyncmd::Resource,
}

/// One side of a comparison: what to record on which device, between untimed setup and
/// teardown in the same list.
pub struct Part<'a> {
    /// The device and queue to run on.
    pub bench: &'a Bench,
    /// Recorded before the first timestamp.
    pub before: &'a dyn Fn(&mut CommandList),
    /// The timed recording.
    pub record: &'a dyn Fn(&mut CommandList),
    /// Recorded after the second timestamp.
    pub after: &'a dyn Fn(&mut CommandList),
}

impl<'a> Part<'a> {
    /// `record` alone on `bench`.
    pub fn alone(bench: &'a Bench, record: &'a dyn Fn(&mut CommandList)) -> Self {
        Part { bench, before: &|_| {}, record, after: &|_| {} }
    }
}

/// How long the timed runs of one row take at least, where `runs` of them take less: short
/// parts get more runs (up to [`MORE_RUNS`] times `runs`). On a 2-core machine the median of 16
/// runs of a 0.1 ms part moved by a third between bench runs (native against legacy on the
/// same work read 0.63–1.04); the machine's noise falls off with more of them.
const ROW_TIME: Duration = Duration::from_millis(60);

/// At most this many times `runs`, for the shortest parts.
const MORE_RUNS: usize = 16;

/// Times each part at least `runs` times after one warm-up run (more where the row is short:
/// [`ROW_TIME`]), the parts taking turns run by run, so that whatever else the machine does
/// falls on every part alike: the ratios of one call compare like with like.
pub fn interleaved(runs: usize, parts: &[Part]) -> Result<Vec<Timing>> {
    let allocs = parts
        .iter()
        .map(|p| p.bench.device.create_command_allocator(CommandListType::Direct))
        .collect::<Result<Vec<_>>>()?;
    let freqs: Vec<f64> = parts.iter().map(|p| p.bench.queue.timestamp_frequency() as f64).collect();
    let mut samples = vec![(Vec::with_capacity(runs), Vec::with_capacity(runs)); parts.len()];
    let mut timed_since = Instant::now();
    for run in 0..=runs.saturating_mul(MORE_RUNS) {
        if run == 1 {
            timed_since = Instant::now();
        }
        if run > runs && timed_since.elapsed() >= ROW_TIME {
            break;
        }
        // Each run starts with the next part: what one part leaves behind (warm caches, busy
        // workers) falls on every other part alike.
        for k in 0..parts.len() {
            let i = (run + k) % parts.len();
            let p = &parts[i];
            let (gpu, cpu) = p.bench.once(&allocs[i], freqs[i], p)?;
            if run > 0 {
                samples[i].0.push(gpu);
                samples[i].1.push(cpu);
            }
        }
    }
    Ok(samples.into_iter().map(|(gpu, cpu)| Timing { gpu_ms: median(gpu), cpu_us: median(cpu) }).collect())
}

/// The median of `v` (0 for none).
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

impl Bench {
    /// A device on `ddi` whose app opted in to the fallback.
    pub fn new(ddi: std::sync::Arc<dyn asyncmd::ddi::DeviceDdi>) -> Result<Self> {
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

    /// Runs `part` once in a list of `alloc`, returning device and recording time.
    fn once(&self, alloc: &CommandAllocator, freq: f64, part: &Part) -> Result<(f64, f64)> {
        let mut list = self.device.create_command_list(CommandListType::Direct, alloc)?;
        (part.before)(&mut list);
        list.end_query(&self.ticks, QueryType::Timestamp, 0);
        let start = Instant::now();
        (part.record)(&mut list);
        let recorded = start.elapsed();
        list.end_query(&self.ticks, QueryType::Timestamp, 1);
        (part.after)(&mut list);
        list.resolve_query_data(&self.ticks, QueryType::Timestamp, 0, 2, &self.out, 0);
        list.close()?;
        self.queue.execute_command_lists(&[&list])?;
        self.queue.wait_idle(Duration::from_secs(120))?;
        drop(list);
        alloc.reset()?;
        Ok((self.gpu_ms(freq)?, recorded.as_secs_f64() * 1e6))
    }

    /// Device milliseconds between the two timestamps last resolved into `out`, at `freq`
    /// ticks per second.
    pub(crate) fn gpu_ms(&self, freq: f64) -> Result<f64> {
        let b = self.out.read_vec(0, 16)?;
        let tick = |i: usize| b.get(i * 8..i * 8 + 8).and_then(|s| s.try_into().ok()).map_or(0, u64::from_le_bytes);
        Ok(tick(1).saturating_sub(tick(0)) as f64 / freq * 1e3)
    }
}

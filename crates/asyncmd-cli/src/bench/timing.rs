//! Timing one recording: device time between two timestamps around it, and the CPU time of
//! recording it, each the median of the runs after a warm-up.

use asyncmd::types::{BarrierLayout, CommandListType, HeapType, QueryHeapDesc, QueryHeapType, QueryType, ResourceDesc};
use asyncmd::{Adapter, CommandList, CommandQueue, Device, DeviceFactory, QueryHeap, Result};
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

    /// Times `record`, recorded alone in one list between `before` and `after` (which are not
    /// timed), `runs` times after one warm-up run.
    pub fn time_between(
        &self,
        runs: usize,
        before: &dyn Fn(&mut CommandList),
        record: &dyn Fn(&mut CommandList),
        after: &dyn Fn(&mut CommandList),
    ) -> Result<Timing> {
        let freq = self.queue.timestamp_frequency() as f64;
        let alloc = self.device.create_command_allocator(CommandListType::Direct)?;
        let (mut gpu, mut cpu) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
        for run in 0..=runs {
            let mut list = self.device.create_command_list(CommandListType::Direct, &alloc)?;
            before(&mut list);
            list.end_query(&self.ticks, QueryType::Timestamp, 0);
            let start = Instant::now();
            record(&mut list);
            let recorded = start.elapsed();
            list.end_query(&self.ticks, QueryType::Timestamp, 1);
            after(&mut list);
            list.resolve_query_data(&self.ticks, QueryType::Timestamp, 0, 2, &self.out, 0);
            list.close()?;
            self.queue.execute_command_lists(&[&list])?;
            self.queue.wait_idle(Duration::from_secs(120))?;
            drop(list);
            alloc.reset()?;
            let ms = self.gpu_ms(freq)?;
            if run > 0 {
                gpu.push(ms);
                cpu.push(recorded.as_secs_f64() * 1e6);
            }
        }
        Ok(Timing { gpu_ms: median(gpu), cpu_us: median(cpu) })
    }

    /// Device milliseconds between the two timestamps last resolved into `out`, at `freq`
    /// ticks per second.
    pub(crate) fn gpu_ms(&self, freq: f64) -> Result<f64> {
        let b = self.out.read_vec(0, 16)?;
        let tick = |i: usize| b.get(i * 8..i * 8 + 8).and_then(|s| s.try_into().ok()).map_or(0, u64::from_le_bytes);
        Ok(tick(1).saturating_sub(tick(0)) as f64 / freq * 1e3)
    }

    /// Times `record` alone in one list.
    pub fn time(&self, runs: usize, record: &dyn Fn(&mut CommandList)) -> Result<Timing> {
        self.time_between(runs, &|_| {}, record, &|_| {})
    }
}

//! The floor of the peer suite: the workloads as plain Vulkan calls (`asyncmd_vulkan::floor`).

use super::{peer_error, Engine, FloorWork, Sample, Workload, ASH};
use asyncmd::Result;
use asyncmd_vulkan::floor::Floor;

/// Raw Vulkan on the adapter asyncmd runs on.
pub struct AshEngine(Floor);

impl AshEngine {
    /// Opens the adapter named `name`.
    pub fn open(name: &str) -> Result<Self> {
        Floor::open(Some(name)).map(AshEngine).map_err(|e| peer_error(ASH, e))
    }
}

fn floor_work(w: Workload) -> FloorWork {
    match w {
        Workload::Work(w) => w,
        // A cycle is a command pool reset, one copy recorded and submitted.
        Workload::Cycle | Workload::Latency => FloorWork::Copies { count: 1, bytes: 256 },
    }
}

impl Engine for AshEngine {
    fn name(&self) -> &'static str {
        ASH
    }

    fn prepare(&mut self, w: Workload) -> Result<()> {
        self.0.prepare(floor_work(w))
    }

    fn run(&mut self, w: Workload) -> Result<Sample> {
        let s = match w {
            Workload::Work(_) => self.0.run()?,
            Workload::Cycle | Workload::Latency => self.0.run_untimed()?,
        };
        Ok(Sample { cpu_us: s.cpu_us, done_us: s.done_us, gpu_ms: s.gpu_ms, ..Sample::default() })
    }
}

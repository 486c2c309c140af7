//! `asyncmd bench --suite peers` (feature `peers`): the same workloads through asyncmd (the
//! Async Commands natively, and the legacy calls an app makes without them), through wgpu, and
//! through raw `ash` calls as the floor, on one adapter in one run. Each row gives the CPU time
//! of recording and submitting, the GPU time between two timestamps around the work, and for
//! the latency row the time from submission until the CPU sees the work done.
//!
//! The engines take turns run by run (the first engine of a run rotates), so whatever else the
//! machine does falls on each alike; every figure is the median of its runs after a warm-up.

mod ash_side;
mod asyncmd_side;
mod wgpu_side;

use super::timing::median;
use crate::devices::DeviceSpec;
use asyncmd::{Error, MessageId, Result};
pub use asyncmd_vulkan::floor::FloorWork;
use serde::Serialize;

/// One workload of the suite: work the floor records too, or a submission's cycle or latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Copies, zero fills (wgpu's `clear_buffer` fills with zeros only), texture clears or a
    /// command stream, as [`FloorWork`] describes them.
    Work(FloorWork),
    /// One command buffer's cycle with one 256-byte copy: made (or reset), recorded, submitted.
    Cycle,
    /// One 256-byte copy: from submission until the CPU sees it done.
    Latency,
}

impl Workload {
    /// The workload in words.
    pub fn text(&self) -> String {
        match *self {
            Workload::Work(FloorWork::Copies { count, bytes }) => {
                format!("{count} copies × {}", super::cases::size_text(bytes))
            }
            Workload::Work(FloorWork::ZeroFills { count, bytes }) => {
                format!("{count} zero fills × {}", super::cases::size_text(bytes))
            }
            Workload::Work(FloorWork::TextureClears { count, side }) => format!("{count} clears of {side}² RGBA8"),
            Workload::Work(FloorWork::Stream { commands }) => format!("{commands} copies of 256 B (a command stream)"),
            Workload::Cycle => "a command-buffer cycle of one copy".into(),
            Workload::Latency => "submit → done of one copy".into(),
        }
    }

    /// The suite: the rows at full size, or small ones for a check that each runs.
    pub fn suite(quick: bool) -> Vec<Workload> {
        if quick {
            return vec![
                Workload::Work(FloorWork::Copies { count: 4, bytes: 64 << 10 }),
                Workload::Work(FloorWork::ZeroFills { count: 4, bytes: 64 << 10 }),
                Workload::Work(FloorWork::TextureClears { count: 2, side: 64 }),
                Workload::Work(FloorWork::Stream { commands: 100 }),
                Workload::Cycle,
                Workload::Latency,
            ];
        }
        vec![
            Workload::Work(FloorWork::Copies { count: 16, bytes: 1 << 20 }),
            Workload::Work(FloorWork::ZeroFills { count: 16, bytes: 1 << 20 }),
            Workload::Work(FloorWork::ZeroFills { count: 64, bytes: 64 << 10 }),
            Workload::Work(FloorWork::TextureClears { count: 8, side: 1024 }),
            Workload::Work(FloorWork::Stream { commands: 10_000 }),
            Workload::Cycle,
            Workload::Latency,
        ]
    }
}

/// What one run of one engine cost.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    /// CPU microseconds from the first recording call to the submission's return.
    pub cpu_us: f64,
    /// Microseconds from the submission's return until the CPU saw the work done.
    pub done_us: f64,
    /// Device milliseconds between the timestamps around the work, where the engine has them.
    pub gpu_ms: Option<f64>,
    /// Where asyncmd's CPU time went, µs a phase ([`PHASES`]); zero for the peers.
    pub phases: [f64; PHASES.len()],
}

/// The phases of asyncmd's CPU time a run is split into: the list's (or command buffer's)
/// reset or creation, the recording calls, `Close`, and the submission with its signal.
pub const PHASES: [&str; 4] = ["reset", "record", "close", "submit"];

/// One way of running the workloads.
pub trait Engine {
    /// The engine's name in the report.
    fn name(&self) -> &'static str;
    /// Makes what `w` needs (what the workload before made may go).
    fn prepare(&mut self, w: Workload) -> Result<()>;
    /// Records `w`, submits it and waits for it.
    fn run(&mut self, w: Workload) -> Result<Sample>;
}

/// One engine's figures on one workload (medians).
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// The engine.
    pub engine: &'static str,
    /// CPU µs of recording and submitting.
    pub cpu_us: f64,
    /// µs from submission to the CPU seeing the work done.
    pub done_us: f64,
    /// GPU ms of the work, where the engine has timestamps.
    pub gpu_ms: Option<f64>,
    /// Median µs of each of [`PHASES`], for asyncmd's engines (zeros for the peers).
    pub phases: [f64; PHASES.len()],
}

/// One workload's row.
#[derive(Clone, Debug, Serialize)]
pub struct PeerRow {
    /// The workload.
    #[serde(skip)]
    pub workload: Workload,
    /// The workload in words.
    pub work: String,
    /// Each engine's figures, in the suite's engine order.
    pub cells: Vec<Cell>,
}

impl PeerRow {
    /// The cell of `engine`.
    pub fn cell(&self, engine: &str) -> Option<&Cell> {
        self.cells.iter().find(|c| c.engine == engine)
    }
}

/// The suite's report.
#[derive(Clone, Debug, Serialize)]
pub struct PeerReport {
    /// The adapter.
    pub device: String,
    /// Engines that could not be opened, with why.
    pub missing: Vec<String>,
    /// One row per workload.
    pub rows: Vec<PeerRow>,
}

/// The color the texture clears write (the floor's is the same).
const COLOR: [f32; 4] = [0.2, 0.4, 0.6, 0.8];

/// The engine names, in the report's order.
pub const NATIVE: &str = "asyncmd native";
/// asyncmd recording the legacy calls.
pub const LEGACY: &str = "asyncmd legacy";
/// wgpu.
pub const WGPU: &str = "wgpu";
/// Raw Vulkan.
pub const ASH: &str = "ash";

/// Runs the suite on `spec`: asyncmd on it, and wgpu and raw Vulkan on the same adapter where
/// it is a Vulkan one.
pub fn measure(spec: DeviceSpec, quick: bool) -> Result<PeerReport> {
    let native = asyncmd_side::AsyncmdEngine::open(spec, true)?;
    let device = native.adapter_name();
    let mut engines: Vec<Box<dyn Engine>> =
        vec![Box::new(native), Box::new(asyncmd_side::AsyncmdEngine::open(spec, false)?)];
    let mut missing = Vec::new();
    if let DeviceSpec::Vulkan(n) = spec {
        // The driver's own name, which wgpu and the floor see too.
        let adapters = asyncmd_vulkan::VulkanDevice::enumerate()?;
        let adapter = adapters.get(n).map_or_else(|| device.clone(), |a| a.name.clone());
        match wgpu_side::WgpuEngine::open(&adapter) {
            Ok(e) => engines.push(Box::new(e)),
            Err(e) => missing.push(format!("{WGPU}: {e}")),
        }
        match ash_side::AshEngine::open(&adapter) {
            Ok(e) => engines.push(Box::new(e)),
            Err(e) => missing.push(format!("{ASH}: {e}")),
        }
    } else {
        missing.push(format!("{WGPU} and {ASH}: they run on Vulkan adapters only (--device vulkan)"));
    }
    let (warm, runs) = if quick { (1, 3) } else { (5, 31) };
    let mut rows = Vec::new();
    for w in Workload::suite(quick) {
        for e in engines.iter_mut() {
            e.prepare(w)?;
        }
        let mut samples: Vec<Vec<Sample>> = vec![Vec::with_capacity(runs); engines.len()];
        for run in 0..warm + runs {
            for k in 0..engines.len() {
                let i = (run + k) % engines.len();
                let s = engines[i].run(w)?;
                if run >= warm {
                    samples[i].push(s);
                }
            }
        }
        let cells = engines
            .iter()
            .zip(samples)
            .map(|(e, s)| {
                let gpu: Vec<f64> = s.iter().filter_map(|s| s.gpu_ms).collect();
                Cell {
                    engine: e.name(),
                    cpu_us: median(s.iter().map(|s| s.cpu_us).collect()),
                    done_us: median(s.iter().map(|s| s.done_us).collect()),
                    gpu_ms: (!gpu.is_empty()).then(|| median(gpu)),
                    phases: std::array::from_fn(|p| median(s.iter().map(|s| s.phases[p]).collect())),
                }
            })
            .collect();
        rows.push(PeerRow { workload: w, work: w.text(), cells });
    }
    Ok(PeerReport { device, missing, rows })
}

/// `a ÷ b` as text, or a dash where either is missing or `b` is zero.
fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "–".into(),
    }
}

/// The report as Markdown: absolute figures per engine, then asyncmd's ratios to its peers.
pub fn markdown(r: &PeerReport) -> String {
    let mut out = format!("## Peers on {}\n\n", r.device);
    for m in &r.missing {
        out += &format!("Not run: {m}\n\n");
    }
    out += "CPU µs to record and submit (the latency row: µs from submission to done); GPU ms between \
            timestamps around the work; medians\n\n| work | engine | CPU µs | GPU ms |\n|---|---|---|---|\n";
    for row in &r.rows {
        for c in &row.cells {
            let cpu = if row.workload == Workload::Latency { c.done_us } else { c.cpu_us };
            let gpu = c.gpu_ms.filter(|_| !matches!(row.workload, Workload::Cycle | Workload::Latency));
            out += &format!(
                "| {} | {} | {cpu:.1} | {} |\n",
                row.work,
                c.engine,
                gpu.map_or_else(|| "–".into(), |g| format!("{g:.4}"))
            );
        }
    }
    out += "\nasyncmd native against its peers (CPU: record+submit, or latency; GPU: time of the work)\n\n\
            | work | CPU ÷ wgpu | CPU ÷ ash | GPU ÷ wgpu | GPU ÷ ash | native GPU ÷ legacy GPU |\n\
            |---|---|---|---|---|---|\n";
    for row in &r.rows {
        let cpu = |e| row.cell(e).map(|c| if row.workload == Workload::Latency { c.done_us } else { c.cpu_us });
        let gpu = |e| {
            row.cell(e).and_then(|c| c.gpu_ms).filter(|_| !matches!(row.workload, Workload::Cycle | Workload::Latency))
        };
        out += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            row.work,
            ratio(cpu(NATIVE), cpu(WGPU)),
            ratio(cpu(NATIVE), cpu(ASH)),
            ratio(gpu(NATIVE), gpu(WGPU)),
            ratio(gpu(NATIVE), gpu(ASH)),
            ratio(gpu(NATIVE), gpu(LEGACY)),
        );
    }
    out += &format!(
        "\nWhere asyncmd's CPU time goes (median µs of each phase: {})\n\n| work | engine | {} |\n|---|---|{}\n",
        PHASES.join(", "),
        PHASES.join(" | "),
        "---|".repeat(PHASES.len())
    );
    for row in r.rows.iter().filter(|r| r.workload != Workload::Latency) {
        for c in row.cells.iter().filter(|c| c.engine == NATIVE || c.engine == LEGACY) {
            let phases: Vec<String> = c.phases.iter().map(|p| format!("{p:.1}")).collect();
            out += &format!("| {} | {} | {} |\n", row.work, c.engine, phases.join(" | "));
        }
    }
    out
}

/// The error for a peer that could not be set up or run.
pub(crate) fn peer_error(engine: &str, what: impl std::fmt::Display) -> Error {
    Error::fail(MessageId::CreateDeviceInvalidArgs, format!("bench --suite peers: {engine}: {what}"))
}

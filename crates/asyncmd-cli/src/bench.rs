//! `asyncmd bench`: each Async Command measured as the spec asks, on one device and in one run:
//! **Legacy** (what an app records by hand without the API), **Fallback** (the API through the
//! runtime's lowering) and **Native** (the API through the device's own DDI), plus the sweeps
//! of large fills and texture clears through each fallback route and the partial-region sweep
//! that shows the texture clear's quarter-coverage threshold.
//!
//! Device time is measured between two timestamp queries around the work in one command list;
//! CPU time is the time to record it; both are the median of the runs after a warm-up.

pub mod bundle_clears;
mod cases;
pub mod command_buffers;
mod draw_target;
mod e2e;
#[cfg(feature = "peers")]
pub mod peers;
mod report;
pub mod semantics;
pub mod shaders;
pub mod streaming;
mod sweeps;
mod timing;

use crate::devices::DeviceSpec;
use asyncmd::{AsyncCommandsImpl, Error, MessageId, Result};
use serde::Serialize;
use std::path::PathBuf;
pub use timing::{Bench, Part, Timing};

/// What `asyncmd bench` measures and where it writes.
#[derive(Clone, Debug, Default)]
pub struct BenchOptions {
    /// The device (`None`: `ASYNCMD_DEVICE`, else the reference device).
    pub device: Option<DeviceSpec>,
    /// Only these APIs (case-insensitive names); empty: all ten and the sweeps.
    pub apis: Vec<String>,
    /// Independent resources per case, instead of each case's default.
    pub count: Option<u64>,
    /// Bytes per resource, instead of each case's default.
    pub size: Option<u64>,
    /// Small work and three runs: a check that every path works.
    pub quick: bool,
    /// The sample's end-to-end mode: frames of work around draws, instead of the API rows.
    pub e2e: bool,
    /// An A/A run of the API rows: the native column records the legacy loop on the native
    /// device, so it shows the spread of identical work.
    pub same_work: bool,
    /// Write the report as JSON here.
    pub json: Option<PathBuf>,
    /// Draw the ratios as an SVG plot here.
    pub plot: Option<PathBuf>,
    /// What to measure: the Async Commands (default) or the command-buffer cycle.
    pub suite: Suite,
}

/// What `asyncmd bench` measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    /// Every Async Command as Legacy, Fallback and Native, and the route sweeps.
    #[default]
    AsyncCommands,
    /// The CPU cost of a command buffer's cycle against a list and allocator managed by hand.
    CommandBuffers,
    /// Legacy against fast semantics against a plain list: CPU per command, GPU time, barriers.
    Semantics,
    /// Uploads on the copy queue alone, beside direct work and together; frames with a budget.
    Streaming,
    /// Bound clears in bundles under the fallback: a bundle executed N times against the same
    /// clears recorded in the list, and what the bundle keeps.
    BundleClears,
    /// The same workloads through asyncmd (native and legacy), wgpu and raw Vulkan on one
    /// adapter: CPU to record and submit, GPU time, submit-to-done latency (feature `peers`).
    Peers,
    /// The app's kernels (saxpy, a reduction, a histogram, a texture blur, a matrix multiply,
    /// Mandelbrot) on the reference device and the first Vulkan device (or `--device` alone),
    /// taking turns.
    Shaders,
}

/// How much work a case does, from the options.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    quick: bool,
    count: Option<u64>,
    size: Option<u64>,
    /// A discrete GPU: sweeps use 4K targets and large buffers (CPU devices get smaller ones).
    large: bool,
}

impl Params {
    /// Checks that a case's `resources` of `each` bytes fit [`MAX_CASE_BYTES`] (the case's own
    /// sizes: a count of queries or tiles asks for far less than a count of 1 MiB buffers).
    fn fits(&self, api: &str, resources: u64, each: u64) -> Result<()> {
        if resources.saturating_mul(each) > MAX_CASE_BYTES {
            return Err(Error::invalid_arg(
                MessageId::CreateDeviceInvalidArgs,
                format!(
                    "bench: {api}: {resources} resources of {each} bytes (--count, --size) ask for more than {} GiB \
                     per case",
                    MAX_CASE_BYTES >> 30
                ),
            ));
        }
        Ok(())
    }

    /// Resources per case: the `--count` or the case's default.
    fn count(&self, quick: u64, full: u64) -> u64 {
        self.count.unwrap_or(if self.quick { quick } else { full }).max(1)
    }

    /// Bytes per resource: the `--size` or the case's default.
    fn bytes(&self, quick: u64, full: u64) -> u64 {
        self.size.unwrap_or(if self.quick { quick } else { full }).max(16) / 16 * 16
    }

    /// Side of a square texture of `texel` bytes per texel: from `--size`, or the default.
    fn side(&self, quick: u32, full: u32, texel: u64) -> u32 {
        match self.size {
            Some(b) => (((b / texel) as f64).sqrt() as u32 / 4 * 4).max(4),
            None if self.quick => quick,
            None => full,
        }
    }

    /// Timed runs of each case: the sample's 16, or 3 for a quick check.
    fn runs(&self) -> usize {
        if self.quick {
            3
        } else {
            16
        }
    }
}

/// One measured workload: Legacy, Fallback and Native side by side.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The Async Command (and, for sweeps, the route).
    pub api: String,
    /// The work, in words.
    pub work: String,
    /// What an app records without the API.
    pub legacy: Timing,
    /// The API through the fallback.
    pub fallback: Timing,
    /// The API through the device's native DDI; `None` where the device has none.
    pub native: Option<Timing>,
}

/// One point of the partial-region sweep.
#[derive(Clone, Debug, Serialize)]
pub struct CoverageRow {
    /// Fraction of the target the region covers.
    pub coverage: f64,
    /// The fallback's pattern copy.
    pub pattern_copy: Timing,
    /// The in-place route's commands (transitions and the view clear).
    pub in_place: Timing,
    /// What the fallback's planner picked.
    pub fallback: Timing,
    /// Whether the planner picked the in-place route.
    pub fallback_in_place: bool,
    /// The native clear.
    pub native: Option<Timing>,
}

/// Everything one run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The device's name.
    pub device: String,
    /// One row per API.
    pub apis: Vec<Row>,
    /// Large fills and texture clears through each route.
    pub routes: Vec<Row>,
    /// The partial-region sweep.
    pub coverage: Vec<CoverageRow>,
    /// The side of the sweep's target.
    pub coverage_side: u32,
    /// The end-to-end frames (`--e2e`).
    pub e2e: Vec<Row>,
    /// The rows whose fallback records above the CPU bar.
    pub cpu_goal: CpuGoal,
}

/// The bar the fallback's recording cost is held to, fallback ÷ legacy CPU time: close to what
/// an app would record by hand, as the spec asks.
#[derive(Clone, Debug, Serialize)]
pub struct CpuGoal {
    /// The bar for the API rows and the end-to-end frames.
    pub api_bar: f64,
    /// The bar for the route sweeps (one large call each, whose fixed cost weighs more).
    pub route_bar: f64,
    /// Microseconds below which the two recordings' difference is the timer's and the caches'
    /// noise, not the fallback's cost: a row over its bar by less is not counted (a
    /// `ResolveQueryDataAsync` of 4096 queries records one command in 0.1–0.2 µs both ways,
    /// and its ratio read 0.85–1.60 between runs).
    pub noise_floor_us: f64,
    /// The rows above their bar (empty: every row meets it).
    pub over: Vec<String>,
}

impl CpuGoal {
    /// The goal, checked on `apis` (with the end-to-end frames) and `routes`.
    fn check<'a>(apis: impl Iterator<Item = &'a Row>, routes: &[Row]) -> CpuGoal {
        const API_BAR: f64 = 1.5;
        const ROUTE_BAR: f64 = 3.0;
        const NOISE_FLOOR_US: f64 = 0.5;
        let ratio = |r: &Row| r.fallback.cpu_us / r.legacy.cpu_us.max(1e-9);
        let over = apis
            .map(|r| (r, API_BAR))
            .chain(routes.iter().map(|r| (r, ROUTE_BAR)))
            .filter(|(r, bar)| ratio(r) > *bar && r.fallback.cpu_us - r.legacy.cpu_us >= NOISE_FLOOR_US)
            .map(|(r, _)| format!("{} ({:.2})", r.api, ratio(r)))
            .collect();
        CpuGoal { api_bar: API_BAR, route_bar: ROUTE_BAR, noise_floor_us: NOISE_FLOOR_US, over }
    }
}

/// Whether `api` is selected by `--api`.
fn selected(opts: &BenchOptions, api: &str) -> bool {
    opts.apis.is_empty() || opts.apis.iter().any(|a| a.eq_ignore_ascii_case(api))
}

/// The two devices of a run: the fallback one, and the native one where the device has it.
fn devices(spec: DeviceSpec) -> Result<(Bench, Option<Bench>)> {
    let fallback = Bench::new(spec.open_with_native(false)?)?;
    if fallback.device.async_commands_impl() != AsyncCommandsImpl::Fallback {
        return Err(Error::fail(
            MessageId::AsyncCommandsFallbackUnsupported,
            "bench: the fallback is not available on this device (it needs enhanced barriers)",
        ));
    }
    let native = Bench::new(spec.open_with_native(true)?)?;
    // A run is labelled by the Impl it got, never by the one it asked for.
    let native = (native.device.async_commands_impl() == AsyncCommandsImpl::Native).then_some(native);
    Ok((fallback, native))
}

/// Measures what `opts` selects.
pub fn measure(opts: &BenchOptions) -> Result<Report> {
    let spec = DeviceSpec::resolve(opts.device)?;
    let (fallback, native) = devices(spec)?;
    let caps = fallback.device.capabilities();
    let params = Params {
        quick: opts.quick,
        count: opts.count,
        size: opts.size,
        large: matches!(spec, DeviceSpec::Vulkan(_)) && !caps.uma,
    };
    if opts.e2e {
        let e2e = e2e::measure(&fallback, native.as_ref(), opts)?;
        let (apis, routes, coverage) = (Vec::new(), Vec::new(), Vec::new());
        let cpu_goal = CpuGoal::check(e2e.iter(), &routes);
        return Ok(Report { device: caps.name.clone(), apis, routes, coverage, coverage_side: 0, e2e, cpu_goal });
    }
    let builds: Vec<_> = cases::ALL.iter().filter(|b| selected(opts, b.0)).collect();
    let route_sweeps = selected(opts, "FillBuffers") || selected(opts, "ClearTextureSubresources");
    let coverage_sweep = selected(opts, "ClearTextureSubresources");
    let steps = builds.len() + usize::from(route_sweeps) + usize::from(coverage_sweep);
    let progress = report::progress(steps as u64);
    let mut apis = Vec::new();
    for (api, build) in builds {
        progress.set_message(*api);
        let Some(f) = build(&fallback.device, &params)? else {
            progress.inc(1);
            continue;
        };
        let runs = f.runs.unwrap_or(params.runs());
        // Every part works on resources of its own. Sharing them, the legacy and fallback
        // parts found them in the cache the one before had warmed, and the native part, on a
        // device of its own, never did: where the work is near the cache's size (a 16 MiB
        // depth clear on a 2-core machine with 32 MiB of L3) the same legacy loop on the
        // native device read 0.6-0.8 of itself.
        let g = build(&fallback.device, &params)?;
        let batch = g.as_ref().map_or(&*f.batch, |g| &*g.batch);
        let n = match &native {
            Some(n) => build(&n.device, &params)?.map(|c| (n, c)),
            None => None,
        };
        let mut parts = vec![Part::alone(&fallback, &*f.legacy), Part::alone(&fallback, batch)];
        parts.extend(n.as_ref().map(|(n, c)| Part::alone(n, if opts.same_work { &*c.legacy } else { &*c.batch })));
        let t = timing::interleaved(runs, &parts)?;
        apis.push(Row { api: api.to_string(), work: f.work, legacy: t[0], fallback: t[1], native: t.get(2).copied() });
        progress.inc(1);
    }
    let mut routes = Vec::new();
    if route_sweeps {
        progress.set_message("route sweeps");
        routes = sweeps::routes(&fallback, native.as_ref(), &params, opts)?;
        progress.inc(1);
    }
    let (mut coverage, mut side) = (Vec::new(), 0);
    if coverage_sweep {
        progress.set_message("coverage sweep");
        (side, coverage) = sweeps::coverage(&fallback, native.as_ref(), &params)?;
        progress.inc(1);
    }
    progress.finish_and_clear();
    let cpu_goal = CpuGoal::check(apis.iter(), &routes);
    Ok(Report { device: caps.name.clone(), apis, routes, coverage, coverage_side: side, e2e: Vec::new(), cpu_goal })
}

/// The most memory one case's resources may ask for (`--count` × `--size`, or the case's own).
const MAX_CASE_BYTES: u64 = 16 << 30;

/// Writes `rows` as JSON to `path`, if one is given.
fn write_json<T: serde::Serialize>(path: Option<&std::path::Path>, rows: &T) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    let text = serde_json::to_string_pretty(rows)
        .map_err(|e| Error::fail(MessageId::CreateDeviceInvalidArgs, format!("bench: cannot write JSON: {e}")))?;
    std::fs::write(path, text).map_err(|e| {
        Error::fail(MessageId::CreateDeviceInvalidArgs, format!("bench: cannot write {}: {e}", path.display()))
    })
}

/// `--suite peers`: wgpu and raw Vulkan beside asyncmd, where the build has them.
#[cfg(feature = "peers")]
fn run_peers(opts: &BenchOptions) -> Result<()> {
    let report = peers::measure(DeviceSpec::resolve(opts.device)?, opts.quick)?;
    print!("{}", peers::markdown(&report));
    write_json(opts.json.as_deref(), &report)
}

/// Without the feature, the suite says how to build it.
#[cfg(not(feature = "peers"))]
fn run_peers(_: &BenchOptions) -> Result<()> {
    Err(Error::unsupported(
        "bench --suite peers: this build has no peers (wgpu and raw Vulkan); build with `cargo build --release -p asyncmd-cli --features peers`",
    ))
}

/// `asyncmd bench`: prints the report as Markdown tables, and writes JSON and a plot if asked.
pub fn run(opts: BenchOptions) -> Result<()> {
    if opts.e2e && (opts.suite != Suite::AsyncCommands || opts.count.is_some() || opts.size.is_some()) {
        return Err(Error::invalid_arg(
            MessageId::CreateDeviceInvalidArgs,
            "bench: --e2e is the Async Commands suite's end-to-end mode, on the sample's own sizes \
             (no --suite, --count or --size)",
        ));
    }
    match opts.suite {
        Suite::CommandBuffers => {
            let (device, rows) = command_buffers::measure(DeviceSpec::resolve(opts.device)?, opts.quick)?;
            print!("{}", command_buffers::markdown(&device, &rows));
            return write_json(opts.json.as_deref(), &rows);
        }
        Suite::Semantics => {
            let (device, rows) = semantics::measure(DeviceSpec::resolve(opts.device)?, opts.quick)?;
            print!("{}", semantics::markdown(&device, &rows));
            return write_json(opts.json.as_deref(), &rows);
        }
        Suite::Streaming => {
            let report = streaming::measure(DeviceSpec::resolve(opts.device)?, opts.quick)?;
            print!("{}", streaming::markdown(&report));
            return write_json(opts.json.as_deref(), &report);
        }
        Suite::BundleClears => {
            let (device, rows) = bundle_clears::measure(DeviceSpec::resolve(opts.device)?, opts.quick)?;
            print!("{}", bundle_clears::markdown(&device, &rows));
            return write_json(opts.json.as_deref(), &rows);
        }
        Suite::Peers => return run_peers(&opts),
        Suite::Shaders => {
            let specs = match opts.device {
                Some(d) => vec![d],
                None => {
                    let mut v = vec![DeviceSpec::Reference];
                    // The first Vulkan device beside it, where there is one.
                    if DeviceSpec::Vulkan(0).open().is_ok() {
                        v.push(DeviceSpec::Vulkan(0));
                    }
                    v
                }
            };
            let rows = shaders::measure(&specs, opts.quick, &opts.apis)?;
            print!("{}", shaders::markdown(&rows));
            return write_json(opts.json.as_deref(), &rows);
        }
        Suite::AsyncCommands => {}
    }
    if let Some(bad) = opts.apis.iter().find(|a| !cases::ALL.iter().any(|b| b.0.eq_ignore_ascii_case(a))) {
        return Err(Error::invalid_arg(
            MessageId::CreateDeviceInvalidArgs,
            format!("bench: `{bad}` is not one of the ten Async Commands"),
        ));
    }
    let r = measure(&opts)?;
    if opts.same_work {
        println!("A/A run (--same-work): the native column is the legacy loop recorded on the native device.");
    }
    print!("{}", report::markdown(&r));
    if let Some(path) = &opts.json {
        report::write_json(&r, path)?;
    }
    if let Some(path) = &opts.plot {
        report::write_plot(&r, path)?;
    }
    Ok(())
}

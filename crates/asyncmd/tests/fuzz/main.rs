//! The fuzzer: seeded random API sequences through the public API, on the reference device
//! (native, forced fallback, random capabilities) and on Vulkan, with a panic catcher on every
//! thread, a per-sequence watchdog, the Vulkan validation layer, and differential modes that
//! run one valid sequence natively and through the forced fallback and compare every result
//! and every byte.
//!
//! A short slice runs with the default tests. The long run:
//!
//! ```sh
//! ASYNCMD_FUZZ_SEEDS=0..1000000 ASYNCMD_FUZZ_TARGETS=reference ASYNCMD_FUZZ_SECONDS=3600 \
//!     cargo test --release -p asyncmd --test fuzz -- --ignored --nocapture
//! ```
//!
//! `ASYNCMD_FUZZ_TARGETS` is a comma-separated list of `reference`, `vulkan`, `cross`, and
//! `layers` / `vulkan-layers` (programs of command buffers, `layers.rs`: a hundred times slower
//! than a core sequence, so named on their own; the short slices run them too), and `kernels` /
//! `cross-kernels` (random compute kernels, `kernels.rs`, twice on the reference device or on
//! both devices);
//! `ASYNCMD_FUZZ_THREADS` sets the workers (default: the machine's cores);
//! `ASYNCMD_FUZZ_COMPUTE_COPIES=always` makes the Vulkan device take its compute copy and clear
//! routes, as on the H200, on any driver; `ASYNCMD_FUZZ_DRIVER_SECONDS` sets how long a worker
//! keeps its Vulkan drivers before it opens them afresh (120). Every panic, hang,
//! validation error and mismatch is printed with its seed and check; `ASYNCMD_FUZZ_PRINT=1`
//! prints the sequences too, and a seed range of one seed replays it.

#[path = "../common/mod.rs"]
mod common;
mod exec;
mod gen;
mod kernels;
mod layers;

use asyncmd::ddi::DeviceDdi;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use asyncmd_vulkan::{ComputeCopies, DriverThreads, Validation, ValidationLog, VulkanDevice, VulkanOptions};
use exec::{Outcome, World};
use gen::Gen;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::time::{Duration, Instant};

/// Steps per sequence.
const STEPS: usize = 60;
/// A sequence that runs longer than this is a hang.
const HANG: Duration = Duration::from_secs(90);
/// Memory the reference devices of the fuzzer may hold (small: the sequences are small).
const FUZZ_BUDGET: u64 = 256 << 20;
/// How long a worker keeps its Vulkan drivers before it opens them afresh: devices are then
/// made and dropped while other workers run, and what the layer says as one goes (objects
/// left undestroyed) is a failure. (It does not bound the run's memory: `docs/reliability.md`.)
const DRIVER_LIFETIME: Duration = Duration::from_secs(120);

/// Which device a check runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    ReferenceNative,
    ReferenceFallback,
    /// Capabilities drawn from the seed (enhanced barriers, UMA, tiers, compute, ...).
    ReferenceRandom,
    VulkanNative,
    VulkanFallback,
    /// The reference device with the Vulkan device's capabilities, natively or through the
    /// forced fallback: what it refuses for a capability, Vulkan refuses too.
    ReferenceLikeVulkan {
        native: bool,
    },
}

impl Target {
    fn is_reference(self) -> bool {
        matches!(
            self,
            Target::ReferenceNative
                | Target::ReferenceFallback
                | Target::ReferenceRandom
                | Target::ReferenceLikeVulkan { .. }
        )
    }
}

/// One check of one seed.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// No panic, abort, hang or validation error, with `wild` edge arguments.
    Crash(Target, f64),
    /// A valid sequence gives the same results and bytes on both.
    Differential(Target, Target),
    /// A program of command buffers gives the same bytes as legacy buffers, plain lists with
    /// full barriers and fast buffers with them, the debug layer silent (`layers.rs`); on the
    /// Vulkan device (`true`) or the reference device.
    Layers(bool),
    /// A random kernel (`kernels.rs`) gives the same bytes on the reference device and the
    /// Vulkan device (`true`), or twice on the reference device.
    Kernels(bool),
}

/// Panics on any thread, counted by a hook that also keeps the first messages.
static PANICS: AtomicUsize = AtomicUsize::new(0);
static PANIC_TEXT: Mutex<Vec<String>> = Mutex::new(Vec::new());

thread_local! {
    /// Set while a test reports its failures (its assertion must not count as a panic found).
    static REPORTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // One line a panic: a run may meet thousands, and backtraces would dominate it.
        std::panic::set_hook(Box::new(move |info| {
            if REPORTING.get() {
                // A check's own failed assertion, not a panic under test.
                eprintln!("{info}");
                return;
            }
            PANICS.fetch_add(1, Ordering::SeqCst);
            let thread = std::thread::current().name().unwrap_or("?").to_string();
            eprintln!("fuzz: panic on thread {thread}: {info}");
            let mut t = PANIC_TEXT.lock().unwrap_or_else(PoisonError::into_inner);
            if t.len() < 20 {
                t.push(format!("[{thread}] {info}"));
            }
        }));
    });
}

/// The Vulkan drivers of one worker thread (opened once: opening one per sequence is slow),
/// with or without the native Async Commands.
struct VulkanDrivers {
    native: Option<Arc<VulkanDevice>>,
    fallback: Option<Arc<VulkanDevice>>,
}

impl VulkanDrivers {
    fn open() -> Self {
        // `always` takes the compute routes a GPU such as the H200 takes (compute copies and
        // clears) on any driver.
        let compute_copies = match std::env::var("ASYNCMD_FUZZ_COMPUTE_COPIES").as_deref() {
            Ok("always") => ComputeCopies::Always,
            Ok("never") => ComputeCopies::Never,
            _ => ComputeCopies::Auto,
        };
        let open = |native| {
            let options = VulkanOptions {
                validation: Validation::IfAvailable,
                native_async_commands: native,
                compute_copies,
                // The native device calls the driver where the driver allows (the app's
                // threads on lavapipe), the fallback's on the pooled threads everywhere: both
                // paths are fuzzed on any driver.
                driver_threads: if native { DriverThreads::Auto } else { DriverThreads::Pooled },
                ..Default::default()
            };
            VulkanDevice::open(0, options).ok().map(Arc::new)
        };
        Self { native: open(true), fallback: open(false) }
    }

    /// No drivers (a run of reference checks alone).
    fn none() -> Self {
        Self { native: None, fallback: None }
    }

    /// The drivers' validation logs, which outlive them.
    fn logs(&self) -> [ValidationLog; 2] {
        [&self.native, &self.fallback].map(|v| v.as_ref().map(|v| v.validation_log()).unwrap_or_default())
    }

    /// How many errors each driver's validation log holds.
    fn errors(&self) -> [usize; 2] {
        self.logs().map(|l| l.messages().len())
    }

    /// The errors each driver logged after `before` (from [`Self::errors`]).
    fn errors_since(&self, before: [usize; 2]) -> Vec<String> {
        errors_since(&self.logs(), before)
    }

    /// Drops these drivers and opens them afresh; what the layer says as the old ones go
    /// (objects left undestroyed), or a driver that does not open again, is an error.
    fn reopen(&mut self) -> std::result::Result<(), String> {
        let had = [self.native.is_some(), self.fallback.is_some()];
        let (logs, before) = (self.logs(), self.errors());
        // The old drivers go first: two at once would double the peak.
        *self = Self::none();
        let said = errors_since(&logs, before);
        *self = Self::open();
        if !said.is_empty() {
            return Err(format!("dropping the Vulkan drivers: {}", said.join("\n")));
        }
        if had != [self.native.is_some(), self.fallback.is_some()] {
            return Err("the Vulkan drivers did not open again".into());
        }
        Ok(())
    }
}

/// The errors each log holds past its count in `before`.
fn errors_since(logs: &[ValidationLog; 2], before: [usize; 2]) -> Vec<String> {
    logs.iter()
        .zip(before)
        .flat_map(|(l, n)| l.messages().get(n..).map(<[String]>::to_vec).unwrap_or_default())
        .collect()
}

fn random_config(seed: u64) -> ReferenceConfig {
    let mut r = fastrand::Rng::with_seed(seed ^ 0x5eed_cafe);
    ReferenceConfig {
        enhanced_barriers: r.u8(..8) != 0,
        native_async_commands: r.bool(),
        uma: r.bool(),
        programmable_sample_positions: r.bool(),
        tiled_resources_tier: r.u32(0..3),
        compute_fill_shader: r.bool(),
        protected_content: r.bool(),
        memory_budget: FUZZ_BUDGET,
        dedicated_copy_queue: true,
        shader_time_budget: asyncmd_reference::DEFAULT_SHADER_TIME_BUDGET,
        // Drawn last, so that the draws before it are those of the seeds' earlier runs.
        compute_fills_win: r.bool(),
    }
}

/// A runtime device on `target`, opted in to the fallback (and forced for the fallback targets).
fn device(target: Target, seed: u64, vk: &VulkanDrivers) -> Option<Device> {
    let driver: Arc<dyn DeviceDdi> = match target {
        Target::ReferenceNative | Target::ReferenceFallback => Arc::new(ReferenceDevice::new(ReferenceConfig {
            native_async_commands: true,
            memory_budget: FUZZ_BUDGET,
            ..Default::default()
        })),
        Target::ReferenceRandom => Arc::new(ReferenceDevice::new(random_config(seed))),
        Target::VulkanNative => vk.native.clone()?,
        Target::VulkanFallback => vk.fallback.clone()?,
        Target::ReferenceLikeVulkan { native } => {
            let vulkan: Arc<dyn DeviceDdi> = vk.native.clone()?;
            let caps = vulkan.capabilities();
            let reference = Arc::new(ReferenceDevice::new(ReferenceConfig {
                enhanced_barriers: caps.enhanced_barriers,
                native_async_commands: native,
                uma: caps.uma,
                programmable_sample_positions: caps.programmable_sample_positions,
                tiled_resources_tier: caps.tiled_resources_tier,
                compute_fill_shader: caps.compute_fill_shader,
                compute_fills_win: caps.compute_fills_win,
                protected_content: caps.protected_content,
                memory_budget: FUZZ_BUDGET,
                dedicated_copy_queue: caps.dedicated_copy_queue,
                shader_time_budget: asyncmd_reference::DEFAULT_SHADER_TIME_BUDGET,
            }));
            Arc::new(asyncmd::ddi::spy::SpyDevice::new(reference).limited_to(vulkan))
        }
    };
    let forced = matches!(target, Target::ReferenceFallback | Target::ReferenceLikeVulkan { native: false });
    let _guard = ForceFallbackGuard::new(forced);
    let factory = DeviceFactory::new();
    let mut r = fastrand::Rng::with_seed(seed);
    factory.async_commands_fallback().set_fallback_layer_enabled(target != Target::ReferenceRandom || r.bool());
    factory.create_device(&Adapter::new(driver)).ok()
}

fn run_on(target: Target, seed: u64, wild: f64, vk: &VulkanDrivers) -> Option<std::result::Result<Outcome, String>> {
    let mut steps = Gen::new(seed, wild).sequence(STEPS);
    // A prefix, to reduce a failing sequence.
    if let Some(n) = std::env::var("ASYNCMD_FUZZ_STEPS").ok().and_then(|n| n.parse().ok()) {
        steps.truncate(n);
    }
    if let Ok(skip) = std::env::var("ASYNCMD_FUZZ_SKIP") {
        let skip: Vec<usize> = skip.split(',').filter_map(|i| i.parse().ok()).collect();
        steps = steps.into_iter().enumerate().filter(|(i, _)| !skip.contains(i)).map(|(_, s)| s).collect();
    }
    if std::env::var("ASYNCMD_FUZZ_PRINT").is_ok_and(|v| v == "seeds") {
        eprintln!("fuzz: seed {seed} on {target:?}");
    }
    if std::env::var("ASYNCMD_FUZZ_PRINT").is_ok_and(|v| v == "1") {
        eprintln!("seed {seed} on {target:?}: {steps:#?}");
    }
    let world = World::new(device(target, seed, vk)?, wild == 0.0).ok()?;
    let outcome = world.run(&steps);
    if std::env::var("ASYNCMD_FUZZ_PRINT").is_ok_and(|v| v == "results") {
        if let Ok(o) = &outcome {
            eprintln!("seed {seed} on {target:?}: {:#?}, {} resources compared", o.results, o.contents.len());
        }
    }
    Some(outcome)
}

/// What a run found.
#[derive(Default)]
struct Report {
    sequences: AtomicU64,
    not_comparable: AtomicU64,
    /// Of the differential runs: steps that succeeded, steps that failed, resources compared
    /// and bytes compared (what shows the sequences reach past validation).
    succeeded: AtomicU64,
    refused: AtomicU64,
    compared: AtomicU64,
    bytes: AtomicU64,
    failures: Mutex<Vec<String>>,
}

impl Report {
    fn fail(&self, what: String) {
        eprintln!("fuzz: {what}");
        self.failures.lock().unwrap_or_else(PoisonError::into_inner).push(what);
    }
}

fn check_one(check: Check, seed: u64, vk: &VulkanDrivers, report: &Report) {
    let errors_before = vk.errors();
    let panics_before = PANICS.load(Ordering::SeqCst);
    let caught = std::panic::catch_unwind(AssertUnwindSafe(|| match check {
        Check::Crash(target, wild) => {
            if let Some(Err(hang)) = run_on(target, seed, wild, vk) {
                report.fail(format!("seed {seed}, {check:?}: {hang}"));
            }
        }
        Check::Differential(a, b) => {
            let (Some(x), Some(y)) = (run_on(a, seed, 0.0, vk), run_on(b, seed, 0.0, vk)) else { return };
            // Two devices may each refuse what is beyond them; one device's two routes may not.
            let cross = a.is_reference() != b.is_reference();
            match (x, y) {
                (Ok(x), Ok(y))
                    if x.fallback_refused
                        || y.fallback_refused
                        || cross && parted_at_refusal(&x, &y)
                        || !cross && fallback_parted_at_refusal(&x, &y) =>
                {
                    report.not_comparable.fetch_add(1, Ordering::Relaxed);
                }
                (Ok(x), Ok(y)) => {
                    let ok = x.results.iter().filter(|r| r.ends_with(": ok")).count() as u64;
                    report.succeeded.fetch_add(ok, Ordering::Relaxed);
                    report.refused.fetch_add(x.results.len() as u64 - ok, Ordering::Relaxed);
                    report.compared.fetch_add(x.contents.len() as u64, Ordering::Relaxed);
                    report.bytes.fetch_add(x.contents.iter().map(|c| c.1.len() as u64).sum(), Ordering::Relaxed);
                    if let Some(d) = first_difference(&x, &y) {
                        report.fail(format!("seed {seed}, {check:?}: mismatch: {d}"));
                    }
                }
                (Err(e), _) | (_, Err(e)) => report.fail(format!("seed {seed}, {check:?}: {e}")),
            }
        }
        Check::Layers(vulkan) => check_layers(vulkan, seed, vk, report),
        Check::Kernels(vulkan) => check_kernels(vulkan, seed, vk, report),
    }));
    if let Err(p) = caught {
        let text = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
        report.fail(format!("seed {seed}, {check:?}: panic: {}", text.unwrap_or_default()));
    } else if PANICS.load(Ordering::SeqCst) != panics_before {
        report.fail(format!("seed {seed}, {check:?}: a panic on another thread (device worker?)"));
    }
    let mut new = vk.errors_since(errors_before);
    if let Check::Crash(..) = check {
        // A wild sequence leaves out barriers an app needs: the races it then has are its own,
        // and synchronization validation reports them.
        new.retain(|m| !m.contains("SYNC-HAZARD"));
    }
    if !new.is_empty() {
        report.fail(format!("seed {seed}, {check:?}: {} Vulkan validation error(s):\n{}", new.len(), new.join("\n")));
    }
    report.sequences.fetch_add(1, Ordering::Relaxed);
}

/// One program of command buffers three ways (`layers.rs`), natively or through the forced
/// fallback as the seed says.
fn check_kernels(vulkan: bool, seed: u64, vk: &VulkanDrivers, report: &Report) {
    let kernel = kernels::Kernel::generate(seed);
    if std::env::var("ASYNCMD_FUZZ_PRINT").is_ok() {
        eprintln!("seed {seed}: kernel of {} × {} threads:\n{}", kernel.groups, kernel.group, kernel.wgsl);
        if let Some(i) = &kernel.indirect {
            eprintln!("dispatched by ExecuteIndirect from constant {}: {:?}", i.dest, i.commands);
        }
    }
    let other = if vulkan { Target::VulkanNative } else { Target::ReferenceNative };
    let (Some(a), Some(b)) = (device(Target::ReferenceNative, seed, vk), device(other, seed, vk)) else { return };
    match (kernel.run(&a), kernel.run(&b)) {
        (Ok(x), Ok(y)) => {
            report.compared.fetch_add(1, Ordering::Relaxed);
            report.bytes.fetch_add(x.len() as u64, Ordering::Relaxed);
            if let Some(at) = x.iter().zip(&y).position(|(p, q)| p != q) {
                if std::env::var("ASYNCMD_FUZZ_DEBUG").is_ok() {
                    let w = |v: &[u8]| {
                        v.chunks(4)
                            .map(|c| format!("{:x}", u32::from_le_bytes(c.try_into().unwrap())))
                            .collect::<Vec<_>>()
                            .join(" ")
                    };
                    eprintln!(
                        "ref: {}
vk:  {}",
                        w(&x),
                        w(&y)
                    );
                }
                let word = |v: &[u8]| u32::from_le_bytes(v[at / 4 * 4..at / 4 * 4 + 4].try_into().unwrap_or_default());
                report.fail(format!(
                    "seed {seed}, kernels on {other:?}: word {} is {:#x} on the reference device, {:#x} there",
                    at / 4,
                    word(&x),
                    word(&y)
                ));
            }
        }
        (Err(e), _) | (_, Err(e)) => report.fail(format!("seed {seed}, kernels on {other:?}: {e}")),
    }
}

fn check_layers(vulkan: bool, seed: u64, vk: &VulkanDrivers, report: &Report) {
    let target = match (vulkan, seed.is_multiple_of(2)) {
        (false, true) => Target::ReferenceNative,
        (false, false) => Target::ReferenceFallback,
        (true, true) => Target::VulkanNative,
        (true, false) => Target::VulkanFallback,
    };
    let program = layers::Program::generate(seed);
    // One device for the three ways: each makes its own queues and buffers, and a way that
    // leaves something behind in the device would show as a difference.
    let Some(device) = device(target, seed, vk) else { return };
    let runs: Vec<_> = [layers::Mode::Plain, layers::Mode::Legacy, layers::Mode::Fast]
        .into_iter()
        .map(|mode| layers::run(&device, &program, mode))
        .collect();
    let plain = match &runs[0] {
        Ok(c) => c,
        Err(e) => return report.fail(format!("seed {seed}, layers on {target:?}: {e}")),
    };
    for (mode, run) in ["legacy", "fast"].iter().zip(&runs[1..]) {
        match run {
            Err(e) => return report.fail(format!("seed {seed}, layers on {target:?}: {e}")),
            Ok(c) => {
                if let Some((i, (a, b))) = c.iter().zip(plain).enumerate().find(|(_, (a, b))| a != b) {
                    let at = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0);
                    return report.fail(format!(
                        "seed {seed}, layers on {target:?}: {mode} against plain: buffer {i} differs at byte {at}"
                    ));
                }
            }
        }
    }
    report.succeeded.fetch_add(3 * program.commands(), Ordering::Relaxed);
    report.compared.fetch_add(3 * plain.len() as u64, Ordering::Relaxed);
    report.bytes.fetch_add(3 * plain.iter().map(|c| c.len() as u64).sum::<u64>(), Ordering::Relaxed);
}

/// Whether the first step whose results differ is one where `refused(x, y)` holds of the two
/// sides' "beyond the device" flags.
fn parted_where(x: &Outcome, y: &Outcome, refused: impl Fn(bool, bool) -> bool) -> bool {
    let beyond = |o: &Outcome, i: usize| o.beyond.get(i).copied().unwrap_or(false);
    let first = x.results.iter().zip(&y.results).position(|(a, b)| a != b);
    first.is_some_and(|i| refused(beyond(x, i), beyond(y, i)))
}

/// Two devices: whether they part at a call either refused as beyond it.
fn parted_at_refusal(x: &Outcome, y: &Outcome) -> bool {
    parted_where(x, y, |a, b| a || b)
}

/// On one device: whether they part at a call the fallback (`y`) refused as beyond the device
/// where the native path (`x`) took it. The fallback lowers to legacy operations, and the
/// device may lack one there (a predicated copy on Vulkan); the native path must never do
/// less than the fallback, so the reverse is a failure.
fn fallback_parted_at_refusal(x: &Outcome, y: &Outcome) -> bool {
    parted_where(x, y, |native, fallback| fallback && !native)
}

fn first_difference(x: &Outcome, y: &Outcome) -> Option<String> {
    if let Some((a, b)) = x.results.iter().zip(&y.results).find(|(a, b)| a != b) {
        return Some(format!("result `{a}` against `{b}`"));
    }
    if x.results.len() != y.results.len() {
        return Some(format!("{} results against {}", x.results.len(), y.results.len()));
    }
    for ((i, a), (j, b)) in x.contents.iter().zip(&y.contents) {
        if i != j {
            return Some(format!("resource {i} compared on one side, {j} on the other"));
        }
        if a != b {
            let at = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(a.len().min(b.len()));
            let near = |v: &[u8]| v.get(at..(at + 8).min(v.len())).map(<[u8]>::to_vec).unwrap_or_default();
            return Some(format!(
                "resource {i}: {} against {} bytes, first difference at byte {at}: {:?} against {:?}",
                a.len(),
                b.len(),
                near(a),
                near(b)
            ));
        }
    }
    (x.contents.len() != y.contents.len()).then(|| "a different number of compared resources".into())
}

/// What each worker runs now: a seed and since when.
type Heartbeats = Arc<Vec<Mutex<Option<(u64, Instant)>>>>;

/// Runs `checks` on every seed of `seeds` with `threads` workers until `limit` passes.
fn run(seeds: std::ops::Range<u64>, checks: &[Check], threads: usize, limit: Duration) -> Report {
    install_panic_hook();
    let report = Arc::new(Report::default());
    let next = Arc::new(AtomicU64::new(seeds.start));
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let beats: Heartbeats = Arc::new((0..threads).map(|_| Mutex::new(None)).collect());
    let needs_vulkan = checks.iter().any(|c| {
        let t = |t: &Target| !t.is_reference() || matches!(t, Target::ReferenceLikeVulkan { .. });
        match c {
            Check::Crash(a, _) => t(a),
            Check::Differential(a, b) => t(a) || t(b),
            Check::Layers(vulkan) | Check::Kernels(vulkan) => *vulkan,
        }
    });
    let watchdog = {
        let (beats, stop) = (beats.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(200));
                for b in beats.iter() {
                    if let Some((seed, since)) = *b.lock().unwrap_or_else(PoisonError::into_inner) {
                        if since.elapsed() > HANG {
                            eprintln!("fuzz: HANG: seed {seed} has run for more than {HANG:?}; replay it with ASYNCMD_FUZZ_SEEDS={seed}..{}", seed + 1);
                            std::process::exit(3);
                        }
                    }
                }
            }
        })
    };
    std::thread::scope(|s| {
        for w in 0..threads {
            let (report, next, beats, checks) = (report.clone(), next.clone(), beats.clone(), checks.to_vec());
            s.spawn(move || {
                let mut vk = if needs_vulkan { VulkanDrivers::open() } else { VulkanDrivers::none() };
                let mut opened = Instant::now();
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= seeds.end || start.elapsed() > limit {
                        break;
                    }
                    if needs_vulkan && opened.elapsed() > driver_lifetime() {
                        if let Err(e) = vk.reopen() {
                            report.fail(format!("before seed {seed}: {e}"));
                        }
                        opened = Instant::now();
                    }
                    *beats[w].lock().unwrap_or_else(PoisonError::into_inner) = Some((seed, Instant::now()));
                    for &c in &checks {
                        check_one(c, seed, &vk, &report);
                    }
                    *beats[w].lock().unwrap_or_else(PoisonError::into_inner) = None;
                }
            });
        }
    });
    stop.store(true, Ordering::Release);
    let _ = watchdog.join();
    Arc::try_unwrap(report).unwrap_or_else(|_| unreachable!("every worker has ended"))
}

fn summary(what: &str, report: &Report, elapsed: Duration) -> String {
    let failures = report.failures.lock().unwrap_or_else(PoisonError::into_inner);
    let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
    format!(
        "fuzz {what}: {} sequences in {:.1} s, {} failures (panics, hangs, validation errors, mismatches), \
         {} not comparable (the fallback refused a call); differential: {} steps succeeded, {} refused, \
         {} resources and {} bytes compared",
        n(&report.sequences),
        elapsed.as_secs_f64(),
        failures.len(),
        n(&report.not_comparable),
        n(&report.succeeded),
        n(&report.refused),
        n(&report.compared),
        n(&report.bytes),
    )
}

fn assert_clean(what: &str, report: &Report, elapsed: Duration) {
    let line = summary(what, report, elapsed);
    println!("{line}");
    let failures = report.failures.lock().unwrap_or_else(PoisonError::into_inner).join("\n");
    // Copied out: the panic hook takes this lock, so it must not be held while panicking.
    let panics = PANIC_TEXT.lock().unwrap_or_else(PoisonError::into_inner).join("\n");
    REPORTING.set(true);
    assert!(failures.is_empty(), "{line}\n{failures}\n{panics}");
    REPORTING.set(false);
}

fn reference_checks() -> Vec<Check> {
    vec![
        Check::Crash(Target::ReferenceRandom, 0.15),
        Check::Crash(Target::ReferenceNative, 0.05),
        Check::Differential(Target::ReferenceNative, Target::ReferenceFallback),
    ]
}

fn vulkan_checks() -> Vec<Check> {
    vec![
        Check::Crash(Target::VulkanNative, 0.1),
        Check::Crash(Target::VulkanFallback, 0.1),
        Check::Differential(Target::VulkanNative, Target::VulkanFallback),
    ]
}

/// The reference device against Vulkan, natively and through the fallback.
fn cross_checks() -> Vec<Check> {
    vec![
        Check::Differential(Target::ReferenceLikeVulkan { native: true }, Target::VulkanNative),
        Check::Differential(Target::ReferenceLikeVulkan { native: false }, Target::VulkanFallback),
    ]
}

fn threads() -> usize {
    std::env::var("ASYNCMD_FUZZ_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// How long a worker keeps its Vulkan drivers: [`DRIVER_LIFETIME`], or
/// `ASYNCMD_FUZZ_DRIVER_SECONDS`.
fn driver_lifetime() -> Duration {
    std::env::var("ASYNCMD_FUZZ_DRIVER_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(DRIVER_LIFETIME, Duration::from_secs)
}

/// Seeds of a short slice: `default`, or `ASYNCMD_FUZZ_SLICE`.
fn slice(default: u64) -> u64 {
    std::env::var("ASYNCMD_FUZZ_SLICE").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

#[test]
fn short_slice_on_the_reference_device() {
    let start = Instant::now();
    let checks: Vec<Check> =
        reference_checks().into_iter().chain([Check::Layers(false), Check::Kernels(false)]).collect();
    let report = run(0..slice(150), &checks, threads(), Duration::from_secs(600));
    assert_clean("reference (short slice)", &report, start.elapsed());
}

#[test]
fn short_slice_on_vulkan() {
    if std::env::var("ASYNCMD_DEVICE").is_ok_and(|d| d == "reference") || common::vulkan_driver().is_none() {
        return;
    }
    let start = Instant::now();
    let checks: Vec<Check> =
        vulkan_checks().into_iter().chain(cross_checks()).chain([Check::Layers(true), Check::Kernels(true)]).collect();
    let report = run(0..slice(12), &checks, 1, Duration::from_secs(600));
    assert_clean("vulkan and cross-device (short slice)", &report, start.elapsed());
}

/// The long run; see the crate-level text for its settings.
#[test]
#[ignore = "long: run with --ignored and ASYNCMD_FUZZ_* settings"]
fn long_run() {
    let seeds = std::env::var("ASYNCMD_FUZZ_SEEDS").unwrap_or_else(|_| "0..100000".into());
    let (a, b) = seeds.split_once("..").expect("ASYNCMD_FUZZ_SEEDS is START..END");
    let seeds = a.parse().expect("start seed")..b.parse().expect("end seed");
    let limit =
        Duration::from_secs(std::env::var("ASYNCMD_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3600));
    let targets = std::env::var("ASYNCMD_FUZZ_TARGETS").unwrap_or_else(|_| "reference".into());
    let mut checks = Vec::new();
    for t in targets.split(',') {
        match t.trim() {
            "reference" => checks.extend(reference_checks()),
            "vulkan" => checks.extend(vulkan_checks()),
            "cross" => checks.extend(cross_checks()),
            "layers" => checks.push(Check::Layers(false)),
            "vulkan-layers" => checks.push(Check::Layers(true)),
            "kernels" => checks.push(Check::Kernels(false)),
            "cross-kernels" => checks.push(Check::Kernels(true)),
            other => panic!(
                "unknown fuzz target {other:?} (reference, vulkan, cross, layers, vulkan-layers, kernels, cross-kernels)"
            ),
        }
    }
    let start = Instant::now();
    let report = run(seeds, &checks, threads(), limit);
    assert_clean(&format!("{targets} ({} checks a seed)", checks.len()), &report, start.elapsed());
}

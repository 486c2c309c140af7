//! `asyncmd bench --suite semantics`: what legacy semantics costs. Three streams (copies that
//! read what the command before wrote, draws, dispatches), each recorded three ways side by
//! side: on a plain command list with the app's minimal barriers, on a fast command buffer
//! with the same barriers, and on a legacy command buffer with none (the runtime inserts
//! them). CPU time per recorded command, GPU time between timestamps around the stream, and
//! the barriers each way records.

use super::draw_target::DrawTarget;
use super::timing::{median, Bench};
use crate::devices::DeviceSpec;
use asyncmd::ddi::{
    ComputePipelineDesc, PipelineDesc, RootParameter, RootSignatureDesc, ShaderId, FILL_CONSTANT_COUNT,
    FILL_THREADS_PER_GROUP,
};
use asyncmd::types::*;
use asyncmd::*;
use serde::Serialize;
use std::time::{Duration, Instant};

/// One stream measured three ways.
#[derive(Clone, Debug, Serialize)]
pub struct SemanticsRow {
    /// The stream.
    pub stream: &'static str,
    /// Commands recorded per stream.
    pub commands: u32,
    /// CPU nanoseconds per command: plain list, fast buffer, legacy buffer (medians).
    pub raw_ns: f64,
    pub fast_ns: f64,
    pub legacy_ns: f64,
    /// GPU milliseconds: the app's minimal barriers, and legacy semantics' (medians).
    pub hand_gpu_ms: f64,
    pub legacy_gpu_ms: f64,
    /// Barriers: the app's minimal set, and those legacy semantics inserted.
    pub hand_barriers: u64,
    pub legacy_barriers: u64,
}

const TIMEOUT: Duration = Duration::from_secs(60);

/// What the streams touch.
struct Scene {
    src: Resource,
    mids: Vec<Resource>,
    dsts: Vec<Resource>,
    uavs: Vec<Resource>,
    fill: (RootSignature, PipelineState),
    draw: DrawTarget,
}

const BYTES: u64 = 64 << 10;
const TARGET: u32 = 64;

impl Scene {
    fn new(device: &Device, commands: u32) -> Result<Scene> {
        let buffer = |heap, flags| {
            device.create_committed_resource(
                heap,
                &ResourceDesc::buffer(BYTES).with_flags(flags),
                BarrierLayout::Undefined,
            )
        };
        let none = ResourceFlags::empty();
        let n = commands as usize;
        let src = buffer(HeapType::Upload, none)?;
        let mids = (0..n / 2).map(|_| buffer(HeapType::Default, none)).collect::<Result<Vec<_>>>()?;
        let dsts = (0..n / 2).map(|_| buffer(HeapType::Default, none)).collect::<Result<Vec<_>>>()?;
        let uav = ResourceFlags::ALLOW_UNORDERED_ACCESS;
        let uavs = (0..n / 2).map(|_| buffer(HeapType::Default, uav)).collect::<Result<Vec<_>>>()?;
        let fill_root = device.create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, FILL_CONSTANT_COUNT),
            RootParameter::uav(0),
        ]))?;
        let fill_pso = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
            root_signature: fill_root.id(),
            cs: ShaderId::FillCs.into(),
        }))?;
        Ok(Scene { src, mids, dsts, uavs, fill: (fill_root, fill_pso), draw: DrawTarget::new(device, TARGET, TARGET)? })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stream {
    Copies,
    Draws,
    Dispatches,
}

impl Stream {
    /// The commands one recording of the stream makes (barriers aside), over `pairs` steps.
    fn commands(self, pairs: usize) -> u32 {
        (match self {
            Stream::Copies => 2 * pairs,
            Stream::Draws => 6 + 2 * pairs,
            Stream::Dispatches => 3 + 3 * pairs,
        }) as u32
    }

    fn name(self) -> &'static str {
        match self {
            Stream::Copies => "copy-heavy (async copy, then a copy of its result)",
            Stream::Draws => "draw-heavy (root constants and a draw)",
            Stream::Dispatches => "dispatch-heavy (root UAV and a dispatch into it, then a copy of it)",
        }
    }
}

/// Records `stream`; `barriers`: with the app's minimal barriers. Returns the barriers it
/// recorded.
fn record(s: &Scene, stream: Stream, l: &mut asyncmd::CommandRecorder, barriers: bool) -> u64 {
    let mut placed = 0;
    let mut barrier = |l: &mut asyncmd::CommandRecorder, b: &Resource, before: (BarrierSync, BarrierAccess)| {
        if barriers {
            placed += 1;
            l.barrier(&[BarrierGroup::Buffer(vec![BufferBarrier {
                sync_before: before.0,
                sync_after: BarrierSync::COPY,
                access_before: before.1,
                access_after: BarrierAccess::COPY_SOURCE,
                resource: b,
                offset: 0,
                size: u64::MAX,
            }])]);
        }
    };
    match stream {
        Stream::Copies => {
            for (mid, dst) in s.mids.iter().zip(&s.dsts) {
                l.copy_buffer_regions(&[BufferCopyRegion {
                    dest: mid,
                    dest_offset: 0,
                    source: &s.src,
                    source_offset: 0,
                    size: BYTES,
                }]);
                barrier(l, mid, (BarrierSync::COPY, BarrierAccess::COPY_DEST));
                l.copy_buffer_region(dst, 0, mid, 0, BYTES);
            }
        }
        Stream::Draws => {
            s.draw.bind(l);
            l.rs_set_viewports(&[Viewport::sized(TARGET as f32, TARGET as f32)]);
            l.rs_set_scissor_rects(&[Rect::new(0, 0, TARGET as i32, TARGET as i32)]);
            for i in 0..(s.mids.len() as u32) {
                let c = (i as f32 / 255.0).to_bits();
                l.set_graphics_root_32bit_constants(0, &[c, c, c, 1.0f32.to_bits(), 0, 0], 0);
                l.draw_instanced(3, 1, 0, 0);
            }
        }
        Stream::Dispatches => {
            l.set_compute_root_signature(&s.fill.0);
            l.set_pipeline_state(&s.fill.1);
            let dwords = (BYTES / 4) as u32;
            l.set_compute_root_32bit_constants(0, &[7, 0, 0, 0, 1, dwords], 0);
            for (uav, dst) in s.uavs.iter().zip(&s.dsts) {
                l.set_compute_root_unordered_access_view(1, uav.gpu_address(0));
                l.dispatch(dwords.div_ceil(FILL_THREADS_PER_GROUP), 1, 1);
                barrier(l, uav, (BarrierSync::COMPUTE_SHADING, BarrierAccess::UNORDERED_ACCESS));
                l.copy_buffer_region(dst, 0, uav, 0, BYTES);
            }
        }
    }
    placed
}

/// Times for one recording: CPU µs, GPU ms, barriers.
struct Run {
    cpu_us: f64,
    gpu_ms: f64,
    barriers: u64,
}

/// The bench's queue and timestamps, and the plain list the raw streams record on.
struct Timer {
    bench: Bench,
    allocator: CommandAllocator,
    list: CommandList,
}

impl Timer {
    fn new(bench: Bench) -> Result<Timer> {
        let allocator = bench.device.create_command_allocator(CommandListType::Direct)?;
        let mut list = bench.device.create_command_list(CommandListType::Direct, &allocator)?;
        list.close()?;
        Ok(Timer { bench, allocator, list })
    }

    fn gpu_ms(&self) -> Result<f64> {
        self.bench.gpu_ms(self.bench.queue.timestamp_frequency() as f64)
    }

    /// The stream on the app's own list, with its barriers.
    fn raw(&mut self, s: &Scene, stream: Stream) -> Result<Run> {
        self.allocator.reset()?;
        self.list.reset(&self.allocator)?;
        let l = &mut self.list;
        l.end_query(&self.bench.ticks, QueryType::Timestamp, 0);
        let t = Instant::now();
        let barriers = record(s, stream, l, true);
        let cpu_us = t.elapsed().as_secs_f64() * 1e6;
        l.end_query(&self.bench.ticks, QueryType::Timestamp, 1);
        l.resolve_query_data(&self.bench.ticks, QueryType::Timestamp, 0, 2, &self.bench.out, 0);
        l.close()?;
        self.bench.queue.execute_command_lists(&[&self.list])?;
        self.bench.queue.wait_idle(TIMEOUT)?;
        Ok(Run { cpu_us, gpu_ms: self.gpu_ms()?, barriers })
    }

    /// The stream on a command buffer: fast with the app's barriers, or legacy without.
    fn buffer(&self, s: &Scene, stream: Stream, semantics: Semantics) -> Result<Run> {
        let mut b = self.bench.queue.create_command_buffer(semantics, Level::Primary)?;
        b.end_query(&self.bench.ticks, QueryType::Timestamp, 0);
        let t = Instant::now();
        let placed = record(s, stream, &mut b, semantics == Semantics::Fast);
        let cpu_us = t.elapsed().as_secs_f64() * 1e6;
        b.end_query(&self.bench.ticks, QueryType::Timestamp, 1);
        b.resolve_query_data(&self.bench.ticks, QueryType::Timestamp, 0, 2, &self.bench.out, 0);
        let inserted = b.tracking_costs().barriers_inserted;
        let v = b.submit()?;
        self.bench.queue.wait_for(v, TIMEOUT)?;
        // As the plain list waits: the next recording starts with the device as idle.
        self.bench.queue.wait_idle(TIMEOUT)?;
        Ok(Run { cpu_us, gpu_ms: self.gpu_ms()?, barriers: placed + inserted })
    }
}

/// Measures each stream (`quick`: few runs); the three ways alternate run by run, in
/// rotating order.
pub fn measure(spec: DeviceSpec, quick: bool) -> Result<(String, Vec<SemanticsRow>)> {
    let bench = Bench::new(spec.open_with_native(true)?)?;
    let device = bench.device.clone();
    let name = format!("{} ({:?} Async Commands)", device.capabilities().name, device.async_commands_impl());
    let scene = Scene::new(&device, 512)?;
    let mut timer = Timer::new(bench)?;
    let runs = if quick { 5 } else { 200 };
    let mut rows = Vec::new();
    for stream in [Stream::Copies, Stream::Draws, Stream::Dispatches] {
        let (mut raw, mut fast, mut legacy) = (Vec::new(), Vec::new(), Vec::new());
        for run in 0..runs + 3 {
            // Each way goes first, second and third in turn: whichever follows another runs
            // with the caches that one left.
            for way in (0..3).map(|k| (k + run) % 3) {
                let r = match way {
                    0 => timer.raw(&scene, stream)?,
                    1 => timer.buffer(&scene, stream, Semantics::Fast)?,
                    _ => timer.buffer(&scene, stream, Semantics::Legacy)?,
                };
                if run >= 3 {
                    [&mut raw, &mut fast, &mut legacy][way].push(r);
                }
            }
        }
        let commands = stream.commands(scene.mids.len());
        let cpu = |v: &[Run]| median(v.iter().map(|r| r.cpu_us).collect()) * 1e3 / commands as f64;
        let gpu = |v: &[Run]| median(v.iter().map(|r| r.gpu_ms).collect());
        rows.push(SemanticsRow {
            stream: stream.name(),
            commands,
            raw_ns: cpu(&raw),
            fast_ns: cpu(&fast),
            legacy_ns: cpu(&legacy),
            hand_gpu_ms: gpu(&fast),
            legacy_gpu_ms: gpu(&legacy),
            hand_barriers: fast.first().map_or(0, |r| r.barriers),
            legacy_barriers: legacy.first().map_or(0, |r| r.barriers),
        });
    }
    Ok((name, rows))
}

/// The suite as a Markdown table.
pub fn markdown(device: &str, rows: &[SemanticsRow]) -> String {
    let mut out = format!(
        "## Semantics on {device}\n\nCPU ns per recorded command (median), GPU ms of the stream (median), barriers\n\n\
         | stream | commands | raw list ns | fast ns | legacy ns | fast / raw | legacy / fast | hand GPU ms | \
         legacy GPU ms | legacy / hand GPU | hand barriers | legacy barriers |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for r in rows {
        out += &format!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2} | {:.4} | {:.4} | {:.2} | {} | {} |\n",
            r.stream,
            r.commands,
            r.raw_ns,
            r.fast_ns,
            r.legacy_ns,
            r.fast_ns / r.raw_ns.max(1e-9),
            r.legacy_ns / r.fast_ns.max(1e-9),
            r.hand_gpu_ms,
            r.legacy_gpu_ms,
            r.legacy_gpu_ms / r.hand_gpu_ms.max(1e-9),
            r.hand_barriers,
            r.legacy_barriers,
        );
    }
    out
}

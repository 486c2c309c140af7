//! `asyncmd bench --suite shaders`: the app's kernels on each device given (by default the
//! reference device and the first Vulkan device), the devices taking turns run by run, with
//! each kernel's device time, its rate, and the reference device's time over the other's.
//!
//! Kernels: a bandwidth-bound saxpy, a reduction in workgroup memory with barriers, a histogram
//! with storage atomics, a 5×5 blur of a texture read through a descriptor table, a tiled
//! matrix multiply and an ALU-bound Mandelbrot. Each result is checked against the same
//! computation on the CPU before it is timed.

use super::timing::{interleaved, Bench, Part, Timing};
use crate::devices::DeviceSpec;
use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::{
    BarrierLayout, CommandListType, DescriptorRange, Error, Format, HeapType, MessageId, RegisterClass, ResourceDesc,
    ResourceFlags, RootParameter, RootSignatureDesc, TextureCopyLocation, TextureViewDesc,
};
use asyncmd::{CommandList, DescriptorHeap, DescriptorHeapType, PipelineState, Resource, Result, RootSignature};
use serde::Serialize;
use std::sync::Arc;

/// One kernel on one device.
#[derive(Clone, Debug, Serialize)]
pub struct KernelTime {
    /// The device.
    pub device: String,
    /// Device milliseconds (median).
    pub ms: f64,
    /// The kernel's rate in its unit.
    pub rate: f64,
}

/// One kernel on every device.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRow {
    /// The kernel.
    pub kernel: String,
    /// What one dispatch does.
    pub work: String,
    /// The unit of `rate`.
    pub unit: String,
    /// Each device's time.
    pub times: Vec<KernelTime>,
}

impl KernelRow {
    /// The first device's time over the second's.
    pub fn ratio(&self) -> Option<f64> {
        Some(self.times.first()?.ms / self.times.get(1)?.ms)
    }
}

/// A kernel ready to dispatch on one device.
struct Prepared {
    root: RootSignature,
    pso: PipelineState,
    constants: Vec<u32>,
    srv: Resource,
    /// For a texture input: the heap whose first descriptor is its SRV (t0's table).
    table: Option<DescriptorHeap>,
    uav: Resource,
    groups: [u32; 3],
}

impl Prepared {
    fn record(&self, l: &mut CommandList) {
        l.set_compute_root_signature(&self.root);
        l.set_pipeline_state(&self.pso);
        l.set_compute_root_32bit_constants(0, &self.constants, 0);
        match &self.table {
            Some(heap) => {
                l.set_descriptor_heaps(&[heap]);
                if let Some(table) = heap.gpu_handle(0) {
                    l.set_compute_root_descriptor_table(1, &table);
                }
            }
            None => l.set_compute_root_shader_resource_view(1, self.srv.gpu_address(0)),
        }
        l.set_compute_root_unordered_access_view(2, self.uav.gpu_address(0));
        l.dispatch(self.groups[0], self.groups[1], self.groups[2]);
    }
}

/// Checks a kernel's output bytes.
type Check = Box<dyn Fn(&[u8]) -> std::result::Result<(), String>>;

/// Records part of a timed list.
type Recording<'a> = Box<dyn Fn(&mut CommandList) + 'a>;

/// A kernel: its source, work, data and check.
struct Kernel {
    name: &'static str,
    wgsl: &'static str,
    work: String,
    unit: &'static str,
    /// Units of `unit` one dispatch does.
    amount: f64,
    constants: Vec<u32>,
    input: Vec<u8>,
    /// The input as a texture of this format, width and height (a table's SRV) instead of a
    /// buffer (a root SRV).
    texture: Option<(Format, u32, u32)>,
    output: Vec<u8>,
    groups: [u32; 3],
    /// Checks u0's bytes after a dispatch.
    check: Check,
}

fn words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

fn to_bytes(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(u32::to_le_bytes).collect()
}

// Four floats a thread (16-byte loads and stores, as bandwidth-bound GPU code does); `n` counts
// vec4s.
const SAXPY: &str = r#"
struct P { a: f32, n: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(0) var<storage, read_write> y: array<vec4<f32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) g: vec3<u32>) {
    let i = id.y * g.x * 256u + id.x;
    if i < p.n { y[i] = p.a * x[i] + y[i]; }
}
"#;

const REDUCE: &str = r#"
struct P { n: u32, pad: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> sums: array<u32>;
var<workgroup> part: array<u32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) g: vec3<u32>) {
    // Each thread first adds 16 elements, then the group reduces its 256 partial sums.
    var s = 0u;
    for (var k = 0u; k < 16u; k++) { s += input[(g.x * 16u + k) * 256u + i]; }
    part[i] = s;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride /= 2u) {
        if i < stride { part[i] += part[i + stride]; }
        workgroupBarrier();
    }
    if i == 0u { sums[g.x] = part[0]; }
}
"#;

const HISTOGRAM: &str = r#"
struct P { n: u32, pad: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < p.n { atomicAdd(&bins[input[id.x] & 255u], 1u); }
}
"#;

const BLUR: &str = r#"
struct P { side: u32, pad: u32 }
var<immediate> p: P;
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(0) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = vec2<i32>(id.xy);
    let last = vec2<i32>(textureDimensions(src)) - 1;
    var sum = 0.0;
    for (var dy = -2; dy <= 2; dy++) {
        for (var dx = -2; dx <= 2; dx++) {
            sum += textureLoad(src, clamp(p + vec2<i32>(dx, dy), vec2<i32>(0), last), 0).r;
        }
    }
    dst[id.y * u32(last.x + 1) + id.x] = sum / 25.0;
}
"#;

const MATMUL: &str = r#"
struct P { n: u32, pad: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> ab: array<f32>;   // A then B, n×n each, row-major
@group(0) @binding(0) var<storage, read_write> c: array<f32>;
var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) g: vec3<u32>) {
    let row = g.y * 16u + l.y;
    let col = g.x * 16u + l.x;
    var acc = 0.0;
    for (var t = 0u; t < p.n / 16u; t++) {
        ta[l.y * 16u + l.x] = ab[row * p.n + t * 16u + l.x];
        tb[l.y * 16u + l.x] = ab[p.n * p.n + (t * 16u + l.y) * p.n + col];
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) { acc += ta[l.y * 16u + k] * tb[k * 16u + l.x]; }
        workgroupBarrier();
    }
    c[row * p.n + col] = acc;
}
"#;

const MANDELBROT: &str = r#"
struct P { side: u32, iterations: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read> unused: array<u32>;
@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = vec2<f32>(f32(id.x) / f32(p.side) * 3.0 - 2.0, f32(id.y) / f32(p.side) * 3.0 - 1.5);
    var z = vec2<f32>(0.0, 0.0);
    var k = 0u;
    loop {
        if k >= p.iterations || dot(z, z) > 4.0 { break; }
        z = vec2<f32>(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        k++;
    }
    counts[id.y * p.side + id.x] = k;
}
"#;

fn kernels(quick: bool) -> Vec<Kernel> {
    let mut out = Vec::new();
    // saxpy: x and y of n floats each (128 MiB each by default: 256 MiB of buffers).
    let n: u32 = if quick { 1 << 18 } else { 32 << 20 };
    let x: Vec<u32> = (0..n).map(|i| ((i % 1000) as f32).to_bits()).collect();
    let y: Vec<u32> = (0..n).map(|i| ((i % 7) as f32).to_bits()).collect();
    let threads = n / 4;
    let groups_x = (threads / 256).min(32768);
    let groups_y = (threads / 256).div_ceil(groups_x);
    out.push(Kernel {
        name: "saxpy",
        wgsl: SAXPY,
        work: format!("{} M floats: y = a·x + y ({} MiB of buffers)", n >> 20, (n as u64 * 8) >> 20),
        unit: "GB/s",
        amount: n as f64 * 12.0 / 1e9,
        constants: vec![2.0f32.to_bits(), threads],
        input: to_bytes(x),
        texture: None,
        output: to_bytes(y),
        groups: [groups_x, groups_y, 1],
        check: Box::new(move |b| {
            for (i, v) in words(b).enumerate().step_by(4099) {
                let want = 2.0 * (i % 1000) as f32 + (i % 7) as f32;
                if f32::from_bits(v) != want {
                    return Err(format!("saxpy: y[{i}] = {}, want {want}", f32::from_bits(v)));
                }
            }
            Ok(())
        }),
    });
    // Reduction: 4096 elements a group.
    let n: u32 = if quick { 1 << 18 } else { 16 << 20 };
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761) >> 24).collect();
    let sums: Vec<u32> = input.chunks(4096).map(|c| c.iter().sum()).collect();
    out.push(Kernel {
        name: "reduce",
        wgsl: REDUCE,
        work: format!("{} M u32, 4096 a group, workgroup memory and barriers", n >> 20),
        unit: "GB/s",
        amount: n as f64 * 4.0 / 1e9,
        constants: vec![n, 0],
        input: to_bytes(input),
        texture: None,
        output: vec![0; sums.len() * 4],
        groups: [n / 4096, 1, 1],
        check: Box::new(move |b| {
            let got: Vec<u32> = words(b).collect();
            (got == sums).then_some(()).ok_or_else(|| "reduce: a group's sum differs".to_string())
        }),
    });
    // Histogram: 256 bins.
    let n: u32 = if quick { 1 << 16 } else { 4 << 20 };
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2246822519).rotate_left(9)).collect();
    let mut bins = vec![0u32; 256];
    input.iter().for_each(|v| bins[(v & 255) as usize] += 1);
    out.push(Kernel {
        name: "histogram",
        wgsl: HISTOGRAM,
        work: format!("{} M u32 into 256 bins, storage atomics", n >> 20),
        unit: "G elements/s",
        amount: n as f64 / 1e9,
        constants: vec![n, 0],
        input: to_bytes(input),
        texture: None,
        output: vec![0; 1024],
        groups: [n / 256, 1, 1],
        check: Box::new(move |b| {
            let got: Vec<u32> = words(b).collect();
            (got == bins).then_some(()).ok_or_else(|| "histogram: a bin differs".to_string())
        }),
    });
    // Blur: an R32 float texture of small integers, whose sums are exact; the division by 25 is
    // correctly rounded on the CPU, within the device's division precision on a GPU.
    let side: u32 = if quick { 256 } else { 4096 };
    let texel = move |x: i64, y: i64| {
        let (x, y) = (x.clamp(0, side as i64 - 1) as u32, y.clamp(0, side as i64 - 1) as u32);
        (x.wrapping_mul(7) ^ y.wrapping_mul(13)) % 17
    };
    out.push(Kernel {
        name: "blur",
        wgsl: BLUR,
        work: format!("5×5 box blur of a {side}² R32 float texture (a table's SRV)"),
        unit: "M texels/s",
        amount: (side as f64).powi(2) / 1e6,
        constants: vec![side, 0],
        input: to_bytes((0..side * side).map(|i| (texel((i % side) as i64, (i / side) as i64) as f32).to_bits())),
        texture: Some((Format::R32Float, side, side)),
        output: vec![0; (side * side * 4) as usize],
        groups: [side / 16, side / 16, 1],
        check: Box::new(move |b| {
            let got: Vec<u32> = words(b).collect();
            for (x, y) in [(0, 0), (side - 1, side - 1), (side / 3, side / 2), (1, side - 2)] {
                let mut sum = 0;
                for dy in -2..=2 {
                    for dx in -2..=2 {
                        sum += texel(i64::from(x) + dx, i64::from(y) + dy);
                    }
                }
                let want = sum as f32 / 25.0;
                let v = f32::from_bits(got[(y * side + x) as usize]);
                if (v - want).abs() > want * 1e-6 {
                    return Err(format!("blur: ({x}, {y}) = {v}, want {want}"));
                }
            }
            Ok(())
        }),
    });
    // Matrix multiply: small integers, exact in f32.
    let side: u32 = if quick { 128 } else { 1024 };
    let a: Vec<f32> = (0..side * side).map(|i| (i % 5) as f32).collect();
    let bm: Vec<f32> = (0..side * side).map(|i| (i % 3) as f32).collect();
    let probe = [(0u32, 0u32), (side - 1, side - 1), (side / 3, side / 2)];
    let want: Vec<f32> = probe
        .iter()
        .map(|&(r, c)| (0..side).map(|k| a[(r * side + k) as usize] * bm[(k * side + c) as usize]).sum())
        .collect();
    out.push(Kernel {
        name: "matmul",
        wgsl: MATMUL,
        work: format!("{side}² f32, 16×16 tiles in workgroup memory"),
        unit: "GFLOP/s",
        amount: 2.0 * (side as f64).powi(3) / 1e9,
        constants: vec![side, 0],
        input: to_bytes(a.iter().chain(&bm).map(|f| f.to_bits())),
        texture: None,
        output: vec![0; (side * side * 4) as usize],
        groups: [side / 16, side / 16, 1],
        check: Box::new(move |b| {
            let c: Vec<u32> = words(b).collect();
            for ((r, col), w) in probe.iter().zip(&want) {
                let got = f32::from_bits(c[(r * side + col) as usize]);
                if got != *w {
                    return Err(format!("matmul: c[{r}][{col}] = {got}, want {w}"));
                }
            }
            Ok(())
        }),
    });
    // Mandelbrot: per-pixel iteration counts; checked where the iteration cannot diverge by
    // rounding (the main cardioid's centre, far outside).
    let side: u32 = if quick { 256 } else { 2048 };
    let iterations = 256u32;
    out.push(Kernel {
        name: "mandelbrot",
        wgsl: MANDELBROT,
        work: format!("{side}² pixels, up to {iterations} iterations"),
        unit: "G pixels/s",
        amount: (side as f64).powi(2) / 1e9,
        constants: vec![side, iterations],
        input: vec![0; 4],
        texture: None,
        output: vec![0; (side * side * 4) as usize],
        groups: [side / 16, side / 16, 1],
        check: Box::new(move |b| {
            let c: Vec<u32> = words(b).collect();
            // c = (-0.5, 0) is inside: every iteration; (-2, -1.5) escapes at once.
            let centre = c[((side / 2) * side + side / 2) as usize];
            let corner = c[0];
            (centre == iterations && corner <= 2)
                .then_some(())
                .ok_or_else(|| format!("mandelbrot: centre {centre}, corner {corner}"))
        }),
    });
    out
}

fn prepare(bench: &Bench, k: &Kernel) -> Result<Prepared> {
    let d = &bench.device;
    let module = Arc::new(ShaderModule::from_wgsl(k.wgsl)?);
    let t0 = match k.texture {
        Some(_) => RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
        None => RootParameter::srv(0),
    };
    let root = d.create_root_signature(&RootSignatureDesc::new(vec![
        RootParameter::constants(0, k.constants.len() as u32),
        t0,
        RootParameter::uav(0),
    ]))?;
    let pso = d.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader { module, entry_point: "main".into() }),
    }))?;
    let buffer = |heap, len: usize, flags| {
        d.create_committed_resource(heap, &ResourceDesc::buffer(len as u64).with_flags(flags), BarrierLayout::Undefined)
    };
    let uav = buffer(HeapType::Default, k.output.len(), ResourceFlags::ALLOW_UNORDERED_ACCESS)?;
    let mut list =
        d.create_command_list(CommandListType::Direct, &d.create_command_allocator(CommandListType::Direct)?)?;
    // Load the input once; the output is reloaded before each timed run, untimed.
    let (srv, table, _upload) = match k.texture {
        None => {
            let srv = buffer(HeapType::Default, k.input.len(), ResourceFlags::empty())?;
            let up_in = buffer(HeapType::Upload, k.input.len(), ResourceFlags::empty())?;
            up_in.write(0, &k.input)?;
            list.copy_buffer_region(&srv, 0, &up_in, 0, k.input.len() as u64);
            (srv, None, up_in)
        }
        Some((format, width, height)) => {
            let desc = ResourceDesc::tex2d(format, width, height);
            let tex = d.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Common)?;
            let fp = d.copyable_footprints(&desc, 0, 1, 0)?;
            let (layout, row) = (fp.layouts[0], fp.row_sizes[0] as usize);
            let up_in = buffer(HeapType::Upload, fp.total_bytes as usize, ResourceFlags::empty())?;
            for (y, bytes) in k.input.chunks_exact(row).enumerate() {
                up_in.write(y as u64 * u64::from(layout.footprint.row_pitch), bytes)?;
            }
            list.copy_texture_region(
                &TextureCopyLocation::subresource(&tex, 0),
                0,
                0,
                0,
                &TextureCopyLocation::footprint(&up_in, layout),
                None,
            );
            let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1)?;
            d.create_shader_resource_view(&tex, TextureViewDesc::texture_2d(), &heap.handle(0))?;
            (tex, Some(heap), up_in)
        }
    };
    let p = Prepared { root, pso, constants: k.constants.clone(), srv, table, uav, groups: k.groups };
    list.close()?;
    bench.queue.execute_command_lists(&[&list])?;
    bench.queue.wait_idle(std::time::Duration::from_secs(120))?;
    Ok(p)
}

/// Runs the suite on `specs`, the first device's time set over the others'; `only` names the
/// kernels to run (`--api`; empty: all).
pub fn measure(specs: &[DeviceSpec], quick: bool, only: &[String]) -> Result<Vec<KernelRow>> {
    let benches: Vec<(String, Bench)> = specs
        .iter()
        .map(|s| {
            // A kernel may run longer than a GPU's timeout here: the suite measures throughput.
            let ddi: Arc<dyn asyncmd::ddi::DeviceDdi> = match s {
                DeviceSpec::Reference => {
                    Arc::new(asyncmd_reference::ReferenceDevice::new(asyncmd_reference::ReferenceConfig {
                        shader_time_budget: std::time::Duration::from_secs(600),
                        ..Default::default()
                    }))
                }
                _ => s.open()?,
            };
            let name = ddi.capabilities().name.clone();
            Ok((name, Bench::new(ddi)?))
        })
        .collect::<Result<_>>()?;
    let mut rows = Vec::new();
    for k in kernels(quick).into_iter().filter(|k| only.is_empty() || only.iter().any(|o| o == k.name)) {
        let prepared: Vec<(Prepared, Resource, Resource)> = benches
            .iter()
            .map(|(_, b)| {
                let p = prepare(b, &k)?;
                let d = &b.device;
                let up = d.create_committed_resource(
                    HeapType::Upload,
                    &ResourceDesc::buffer(k.output.len() as u64),
                    BarrierLayout::Undefined,
                )?;
                up.write(0, &k.output)?;
                let rb = d.create_committed_resource(
                    HeapType::Readback,
                    &ResourceDesc::buffer(k.output.len() as u64),
                    BarrierLayout::Undefined,
                )?;
                Ok((p, up, rb))
            })
            .collect::<Result<_>>()?;
        let len = k.output.len() as u64;
        let befores: Vec<Recording> = prepared
            .iter()
            .map(|(p, up, _)| {
                let (uav, up) = (p.uav.clone(), up.clone());
                Box::new(move |l: &mut CommandList| l.copy_buffer_region(&uav, 0, &up, 0, len)) as Recording
            })
            .collect();
        let afters: Vec<Recording> = prepared
            .iter()
            .map(|(p, _, rb)| {
                let (uav, rb) = (p.uav.clone(), rb.clone());
                Box::new(move |l: &mut CommandList| l.copy_buffer_region(&rb, 0, &uav, 0, len)) as Recording
            })
            .collect();
        let record_fns: Vec<Recording> =
            prepared.iter().map(|(p, _, _)| Box::new(move |l: &mut CommandList| p.record(l)) as Recording).collect();
        let parts: Vec<Part> = benches
            .iter()
            .enumerate()
            .map(|(i, (_, b))| Part { bench: b, before: &*befores[i], record: &*record_fns[i], after: &*afters[i] })
            .collect();
        let runs = if quick { 2 } else { 3 };
        let times: Vec<Timing> = interleaved(runs, &parts)?;
        // The last run's output is the kernel's result on its reloaded input.
        for ((name, _), (_, _, rb)) in benches.iter().zip(&prepared) {
            let bytes = rb.read_vec(0, k.output.len())?;
            (k.check)(&bytes)
                .map_err(|why| Error::fail(MessageId::DrawInvalid, format!("bench --suite shaders: {name}: {why}")))?;
        }
        rows.push(KernelRow {
            kernel: k.name.into(),
            work: k.work.clone(),
            unit: k.unit.into(),
            times: benches
                .iter()
                .zip(&times)
                .map(|((name, _), t)| KernelTime {
                    device: name.clone(),
                    ms: t.gpu_ms,
                    rate: k.amount / (t.gpu_ms / 1e3),
                })
                .collect(),
        });
    }
    Ok(rows)
}

/// The rows as a Markdown table, with the ratio and its geometric mean.
pub fn markdown(rows: &[KernelRow]) -> String {
    let devices: Vec<String> =
        rows.first().map(|r| r.times.iter().map(|t| t.device.clone()).collect()).unwrap_or_default();
    let mut out = String::from(
        "## App kernels\n\nDevice ms per dispatch (median), rate, and the first device's time over the second's\n\n",
    );
    out += "| kernel | work |";
    for d in &devices {
        out += &format!(" {d} ms | {d} rate |");
    }
    out += " ratio |\n|---|---|";
    out += &"---|---|".repeat(devices.len());
    out += "---|\n";
    let mut logs = Vec::new();
    for r in rows {
        out += &format!("| {} | {} |", r.kernel, r.work);
        for t in &r.times {
            out += &format!(" {:.3} | {:.2} {} |", t.ms, t.rate, r.unit);
        }
        match r.ratio() {
            Some(x) => {
                logs.push(x.ln());
                out += &format!(" {x:.2} |\n");
            }
            None => out += " – |\n",
        }
    }
    if !logs.is_empty() {
        let g = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        out += &format!("\nGeometric mean of the ratios: {g:.2}\n");
    }
    out
}

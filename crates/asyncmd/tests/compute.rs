//! The app's compute kernels: modules, root signatures, pipelines, root arguments and
//! dispatches, with the bytes read back and the errors of bad input.

mod common;

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::ReferenceConfig;
use common::*;
use std::sync::Arc;
use std::time::Duration;

const SAXPY: &str = r#"
struct Params { a: f32, n: u32 }
var<immediate> params: Params;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < params.n {
        y[id.x] = params.a * x[id.x] + y[id.x];
    }
}
"#;

/// The root signature the suite's kernels share: root constants (b0), t0, u0.
fn saxpy_root(device: &Device) -> RootSignature {
    device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, 2),
            RootParameter::srv(0),
            RootParameter::uav(0),
        ]))
        .unwrap()
}

fn pipeline(device: &Device, root: &RootSignature, module: &Arc<ShaderModule>, entry: &str) -> Result<PipelineState> {
    device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader { module: module.clone(), entry_point: entry.into() }),
    }))
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes_of<T: Copy + Into<Word>>(v: &[T]) -> Vec<u8> {
    v.iter().flat_map(|x| (*x).into().0.to_le_bytes()).collect()
}

/// A 32-bit word of any of the kernels' scalar types.
struct Word(u32);
impl From<f32> for Word {
    fn from(v: f32) -> Word {
        Word(v.to_bits())
    }
}
impl From<u32> for Word {
    fn from(v: u32) -> Word {
        Word(v)
    }
}
impl From<i32> for Word {
    fn from(v: i32) -> Word {
        Word(v as u32)
    }
}

/// A default buffer the kernels may write, holding `data`.
fn uav_buffer(ctx: &Ctx, data: &[u8]) -> Resource {
    let b = ctx
        .device
        .create_committed_resource(
            HeapType::Default,
            &ResourceDesc::buffer(data.len() as u64).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
            BarrierLayout::Undefined,
        )
        .unwrap();
    let src = ctx.upload(data);
    ctx.run(CommandListType::Direct, |l| l.copy_buffer_region(&b, 0, &src, 0, data.len() as u64));
    b
}

/// Runs `entry` of `wgsl` over `groups` groups with root constants, t0 = `input`, u0 = a
/// buffer holding `output`; returns u0's bytes.
fn run(
    ctx: &Ctx,
    wgsl: &str,
    entry: &str,
    groups: [u32; 3],
    constants: &[u32],
    input: &[u8],
    output: &[u8],
) -> Vec<u8> {
    let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
    let root = ctx
        .device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, constants.len().max(1) as u32),
            RootParameter::srv(0),
            RootParameter::uav(0),
        ]))
        .unwrap();
    let pso = pipeline(&ctx.device, &root, &module, entry).unwrap();
    let x = ctx.default_buffer(input);
    let y = uav_buffer(ctx, output);
    ctx.run(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        if !constants.is_empty() {
            l.set_compute_root_32bit_constants(0, constants, 0);
        }
        l.set_compute_root_shader_resource_view(1, x.gpu_address(0));
        l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
        l.dispatch(groups[0], groups[1], groups[2]);
    });
    ctx.read_buffer(&y)
}

/// The contexts whose devices run the app's kernels, and the error the others give.
fn kernel_contexts() -> Vec<(&'static str, Ctx)> {
    contexts()
        .into_iter()
        .filter(|(name, ctx)| {
            let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
            match pipeline(&ctx.device, &saxpy_root(&ctx.device), &module, "main") {
                Ok(_) => true,
                Err(e) => {
                    // Only a device that says so may skip: the Vulkan device, until it runs them.
                    assert_eq!((e.code, *name), (ErrorCode::Unsupported, "vulkan"), "{e}");
                    false
                }
            }
        })
        .collect()
}

#[test]
fn saxpy_writes_a_times_x_plus_y_below_n_and_nothing_past_it() {
    for (name, ctx) in kernel_contexts() {
        let n = 1000u32;
        // Small integers: every product and sum is exact in f32.
        let x: Vec<f32> = (0..1024).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..1024).map(|i| (i % 7) as f32).collect();
        let out = run(&ctx, SAXPY, "main", [16, 1, 1], &[3.0f32.to_bits(), n], &bytes_of(&x), &bytes_of(&y));
        let out = f32s(&out);
        for i in 0..1024 {
            let want = if (i as u32) < n { 3.0 * x[i] + y[i] } else { y[i] };
            assert_eq!(out[i], want, "{name}: element {i}");
        }
    }
}

#[test]
fn divergent_loops_switches_and_function_calls_follow_each_lane() {
    // Collatz steps (capped at 500) through a loop with continue and break, and a switch with
    // fall-through-free cases, per element: worked out below in plain Rust.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

fn classify(v: u32) -> u32 {
    switch v % 4u {
        case 0u: { return 10u; }
        case 1u, 3u: { return 20u; }
        default: { return 30u; }
    }
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var v = input[id.x];
    var steps = 0u;
    loop {
        if v <= 1u || steps >= 500u { break; }
        steps += 1u;
        if v % 2u == 0u { v = v / 2u; continue; }
        v = 3u * v + 1u;
    }
    var acc = 0u;
    for (var i = 0u; i < id.x % 5u; i++) {
        if i == 2u { continue; }
        acc += classify(input[id.x] + i);
    }
    output[id.x] = steps * 1000u + acc;
}
"#;
    let classify = |v: u32| match v % 4 {
        0 => 10,
        1 | 3 => 20,
        _ => 30,
    };
    for (name, ctx) in kernel_contexts() {
        let input: Vec<u32> = (0..256).map(|i| i * 37 % 1000 + 1).collect();
        let out = run(&ctx, wgsl, "main", [8, 1, 1], &[], &bytes_of(&input), &vec![0; 1024]);
        for (i, &x) in input.iter().enumerate() {
            let (mut v, mut steps) = (x, 0u32);
            while v > 1 && steps < 500 {
                steps += 1;
                v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            }
            let acc: u32 = (0..i as u32 % 5).filter(|&k| k != 2).map(|k| classify(x + k)).sum();
            let got = u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
            assert_eq!(got, steps * 1000 + acc, "{name}: element {i} (input {x})");
        }
    }
}

#[test]
fn a_workgroup_reduction_with_barriers_sums_each_group() {
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> partial: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) g: vec3<u32>) {
    partial[i] = input[g.x * 256u + i];
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride /= 2u) {
        if i < stride {
            partial[i] += partial[i + stride];
        }
        workgroupBarrier();
    }
    if i == 0u {
        output[g.x] = partial[0];
    }
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input: Vec<u32> = (0..4 * 256u32).map(|i| i.wrapping_mul(2654435761) >> 20).collect();
        let out = run(&ctx, wgsl, "main", [4, 1, 1], &[], &bytes_of(&input), &[0; 16]);
        for g in 0..4 {
            let want = input[g * 256..(g + 1) * 256].iter().fold(0u32, |s, v| s.wrapping_add(*v));
            assert_eq!(u32::from_le_bytes(out[g * 4..g * 4 + 4].try_into().unwrap()), want, "{name}: group {g}");
        }
    }
}

#[test]
fn atomics_count_a_histogram_exactly() {
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    atomicAdd(&bins[input[id.x] % 16u], 1u);
    atomicMax(&bins[16], input[id.x]);
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input: Vec<u32> = (0..4096u32).map(|i| i.wrapping_mul(2246822519).rotate_left(7)).collect();
        let out = run(&ctx, wgsl, "main", [64, 1, 1], &[], &bytes_of(&input), &[0; 17 * 4]);
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        for b in 0..16 {
            let want = input.iter().filter(|v| *v % 16 == b as u32).count() as u32;
            assert_eq!(word(b), want, "{name}: bin {b}");
        }
        assert_eq!(word(16), *input.iter().max().unwrap(), "{name}: atomicMax");
    }
}

#[test]
fn integer_and_conversion_edge_cases_follow_wgsl() {
    // WGSL: a zero divisor (or i32::MIN / -1) divides by one; shift amounts are taken modulo
    // 32; float-to-int conversions clamp to the largest f32 in range and send NaN to 0.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let zero = input[0];          // 0
    let minus_one = i32(input[1]); // -1
    let big = bitcast<f32>(input[2]); // 3e9
    let nan = bitcast<f32>(input[3]);
    output[0] = 7u / zero;
    output[1] = 7u % zero;
    output[2] = bitcast<u32>(i32(-2147483647 - 1) / minus_one);
    output[3] = bitcast<u32>(-7 % i32(zero + 3u));
    output[4] = 1u << (zero + 33u);
    output[5] = bitcast<u32>(i32(big));
    output[6] = u32(-big);
    output[7] = bitcast<u32>(i32(nan));
    output[8] = countOneBits(input[2]);
    output[9] = reverseBits(1u);
    output[10] = firstLeadingBit(0x00F0u);
    output[11] = bitcast<u32>(firstLeadingBit(-1));
    output[12] = extractBits(0xABCDu, 4u, 8u);
    output[13] = bitcast<u32>(extractBits(i32(0x0F00), 8u, 4u));
    output[14] = insertBits(0u, 0xFFu, 28u, 8u);
    output[15] = bitcast<u32>(-7 / i32(zero + 2u));
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input = [0u32, u32::MAX, 3e9f32.to_bits(), f32::NAN.to_bits()];
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&input), &[0; 64]);
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        let want = [
            7,
            0,
            i32::MIN as u32,
            (-7i32 % 3) as u32,
            1 << 1,
            // WGSL clamps to the largest f32 below 2^31 before converting.
            2147483520,
            0,
            0,
            3e9f32.to_bits().count_ones(),
            1 << 31,
            7,
            u32::MAX,
            0xBC,
            (-1i32) as u32, // 0b1111 sign-extends
            0xF000_0000,
            (-3i32) as u32,
        ];
        for (i, w) in want.iter().enumerate() {
            // NaN to an integer is an indeterminate value in WGSL (lavapipe gives i32::MIN);
            // the reference device gives D3D's 0.
            if i == 7 && name != "reference" {
                continue;
            }
            assert_eq!(word(i), *w, "{name}: output {i}");
        }
    }
}

#[test]
fn out_of_bounds_reads_give_zero_and_writes_are_dropped() {
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var local: array<u32, 4>;
    local[id.x] = 5u;             // lanes 4-7 index past the array: clamped to local[3]
    output[id.x * 2u] = input[id.x + 6u] + local[id.x % 4u];   // reads past input give 0
    output[id.x + 1000000u] = 9u; // far past the buffer: dropped
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input: Vec<u32> = (1..=8).collect();
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&input), &[0xEE; 40]);
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        for lane in 0..5usize {
            // input[lane + 6] exists for lanes 0 and 1 only. `local` is each lane's own:
            // lanes 0-3 wrote 5 at the index they read; lane 4 wrote its local[3] (an index past
            // the kernel's own array clamps, naga's `Restrict`) and reads its zeroed local[0].
            let read = if lane + 6 < 8 { input[lane + 6] } else { 0 };
            let local = if lane < 4 { 5 } else { 0 };
            assert_eq!(word(lane * 2), read + local, "{name}: lane {lane}");
            assert_eq!(word(lane * 2 + 1), 0xEEEE_EEEE, "{name}: untouched word");
        }
    }
}

#[test]
fn a_kernel_that_never_ends_removes_the_device_and_every_wait_returns() {
    let config = ReferenceConfig { shader_time_budget: Duration::from_millis(200), ..Default::default() };
    let ctx = Ctx::new(reference_device(config));
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(1)
fn main() {
    var i = 0u;
    loop {
        if input[0] == 12345u { break; }
        i += 1u;
        output[0] = i;
    }
}
"#;
    let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
    let root = saxpy_root(&ctx.device);
    let pso = pipeline(&ctx.device, &root, &module, "main").unwrap();
    let x = ctx.default_buffer(&[0; 16]);
    let y = uav_buffer(&ctx, &[0; 16]);
    let mut list = ctx.list(CommandListType::Direct);
    list.set_compute_root_signature(&root);
    list.set_pipeline_state(&pso);
    list.set_compute_root_shader_resource_view(1, x.gpu_address(0));
    list.set_compute_root_unordered_access_view(2, y.gpu_address(0));
    list.dispatch(1, 1, 1);
    list.close().unwrap();
    let fence = ctx.device.create_fence(0).unwrap();
    ctx.direct.execute_command_lists(&[&list]).unwrap();
    ctx.direct.signal(&fence, 1).unwrap();
    let e = within(Duration::from_secs(20), "the hung kernel's wait", move || {
        let r = fence.wait(1, Duration::from_secs(10));
        (r, ctx.device.device_removed_reason())
    });
    e.0.expect("the fence still passes");
    let e = e.1.expect_err("the device is removed");
    assert_eq!(e.code, ErrorCode::DeviceRemoved);
    assert!(e.text.contains("device hung"), "{}", e.text);
}

#[test]
fn a_pipeline_whose_shader_and_root_signature_disagree_is_refused() {
    let device = reference_device(ReferenceConfig::default());
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let refuse = |root: &RootSignature, entry: &str, text: &str| {
        let e = pipeline(&device, root, &module, entry).map(drop).expect_err("refused");
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid), "{e}");
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    let no_srv = device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, 2), RootParameter::uav(0)]))
        .unwrap();
    refuse(&no_srv, "main", "binds no t0 of space 0 (`x`)");
    refuse(&saxpy_root(&device), "nope", "no Compute entry point \"nope\"");
    let small = device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, 1),
            RootParameter::srv(0),
            RootParameter::uav(0),
        ]))
        .unwrap();
    refuse(&small, "main", "8 bytes");
    let big = Arc::new(ShaderModule::from_wgsl("@compute @workgroup_size(32, 32, 2) fn main() {}").unwrap());
    let e = pipeline(&device, &saxpy_root(&device), &big, "main").map(drop).unwrap_err();
    assert!(e.text.contains("32×32×2"), "{}", e.text);
    // A root signature D3D12's serializer refuses.
    let r = device.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::srv(3), RootParameter::srv(3)]));
    let e = r.map(drop).unwrap_err();
    assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreateRootSignatureInvalid));
}

#[test]
fn root_views_check_their_parameter_and_alignment() {
    let ctx = Ctx::reference();
    let root = ctx
        .device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::cbv(0), RootParameter::srv(0)]))
        .unwrap();
    let b = ctx.buffer(HeapType::Default, 1024);
    for (f, text) in [
        (
            &|l: &mut CommandList, b: &Resource| l.set_compute_root_constant_buffer_view(0, b.gpu_address(16)) as _,
            "256-byte",
        ),
        (&|l: &mut CommandList, b: &Resource| l.set_compute_root_shader_resource_view(1, b.gpu_address(2)), "4-byte"),
        (
            &|l: &mut CommandList, b: &Resource| l.set_compute_root_shader_resource_view(0, b.gpu_address(0)),
            "parameter 0 is Cbv",
        ),
    ] as [(&dyn Fn(&mut CommandList, &Resource), &str); 3]
    {
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            f(l, &b);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::StateSettingInvalid);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    }
    ctx.record(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_compute_root_constant_buffer_view(0, b.gpu_address(256));
        l.set_compute_root_shader_resource_view(1, b.gpu_address(4));
    })
    .unwrap();
}

#[test]
fn a_uniform_buffer_may_be_root_constants_or_a_root_cbv() {
    let wgsl = r#"
struct C { scale: u32, bias: u32 }
@group(0) @binding(1) var<uniform> c: C;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    output[id.x] = id.x * c.scale + c.bias;
}
"#;
    for (name, ctx) in kernel_contexts() {
        let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
        let y = uav_buffer(&ctx, &[0; 16]);
        // b1 as root constants.
        let root = ctx
            .device
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(1, 2), RootParameter::uav(0)]))
            .unwrap();
        let pso = pipeline(&ctx.device, &root, &module, "main").unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[3, 100], 0);
            l.set_compute_root_unordered_access_view(1, y.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        assert_eq!(ctx.read_buffer(&y), bytes_of(&[100u32, 103, 106, 109]), "{name}: root constants");
        // b1 as a root CBV at 256 bytes into a buffer.
        let mut cb = vec![0u8; 512];
        cb[256..264].copy_from_slice(&bytes_of(&[5u32, 1]));
        let cb = ctx.default_buffer(&cb);
        let root = ctx
            .device
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::cbv(1), RootParameter::uav(0)]))
            .unwrap();
        let pso = pipeline(&ctx.device, &root, &module, "main").unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_constant_buffer_view(0, cb.gpu_address(256));
            l.set_compute_root_unordered_access_view(1, y.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        assert_eq!(ctx.read_buffer(&y), bytes_of(&[1u32, 6, 11, 16]), "{name}: root CBV");
    }
}

#[test]
fn every_thread_sees_its_own_ids_across_groups_and_batches() {
    // 12-thread groups: the reference device's batches of lanes split groups (1024 is not a
    // multiple of 12), so ids must follow each lane, not each batch.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(3, 2, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(num_workgroups) ng: vec3<u32>) {
    let flat = gid.x + gid.y * ng.x * 3u + gid.z * ng.x * 3u * ng.y * 2u;
    output[flat * 4u] = gid.x | (gid.y << 8u) | (gid.z << 16u);
    output[flat * 4u + 1u] = lid.x | (lid.y << 8u) | (lid.z << 16u);
    output[flat * 4u + 2u] = wid.x | (wid.y << 8u) | (wid.z << 16u);
    output[flat * 4u + 3u] = li | (ng.x << 8u) | (ng.y << 16u) | (ng.z << 24u);
}
"#;
    let groups = [20u32, 5, 3];
    let threads = (groups[0] * 3 * groups[1] * 2 * groups[2] * 2) as usize;
    for (name, ctx) in kernel_contexts() {
        let out = run(&ctx, wgsl, "main", groups, &[], &[0; 4], &vec![0; threads * 16]);
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        for z in 0..groups[2] * 2 {
            for y in 0..groups[1] * 2 {
                for x in 0..groups[0] * 3 {
                    let flat = (x + y * groups[0] * 3 + z * groups[0] * 3 * groups[1] * 2) as usize;
                    let (l, w) = ([x % 3, y % 2, z % 2], [x / 3, y / 2, z / 2]);
                    let pack = |v: [u32; 3]| v[0] | v[1] << 8 | v[2] << 16;
                    let li = l[0] + l[1] * 3 + l[2] * 6;
                    let want = [pack([x, y, z]), pack(l), pack(w), li | 20 << 8 | 5 << 16 | 3 << 24];
                    for (k, w) in want.iter().enumerate() {
                        assert_eq!(word(flat * 4 + k), *w, "{name}: thread ({x}, {y}, {z}) word {k}");
                    }
                }
            }
        }
    }
}

/// saxpy through a descriptor table of an SRV and a UAV (t0 and u0 of the table's two ranges).
fn table_root(device: &Device) -> RootSignature {
    device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, 2),
            RootParameter::table(vec![
                DescriptorRange::new(RegisterClass::Srv, 1, 0),
                DescriptorRange::new(RegisterClass::Uav, 1, 0),
            ]),
        ]))
        .unwrap()
}

#[test]
fn a_descriptor_table_gives_the_kernel_its_buffer_views() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
        let root = table_root(d);
        let pso = pipeline(d, &root, &module, "main").unwrap();
        let x: Vec<f32> = (0..128).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..128).map(|i| (i % 3) as f32).collect();
        let xb = ctx.default_buffer(&bytes_of(&x));
        let yb = uav_buffer(&ctx, &bytes_of(&y));
        // The views sit at descriptors 5 and 6; a CPU heap holds them first and they are copied in.
        let cpu = d.create_descriptor_heap(DescriptorHeapType::CbvSrvUav, 2).unwrap();
        // x from element 16 on: the kernel's x[i] is x[16 + i].
        d.create_shader_resource_view(&xb, &BufferViewDesc::structured(16, 64, 4), &cpu.handle(0)).unwrap();
        d.create_unordered_access_view(&yb, &BufferViewDesc::raw(0, 512), &cpu.handle(1)).unwrap();
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 8).unwrap();
        d.copy_descriptors_simple(2, &heap.handle(5), &cpu.handle(0), DescriptorHeapType::CbvSrvUav).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_32bit_constants(0, &[2.0f32.to_bits(), 100], 0);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(5).unwrap());
            l.dispatch(2, 1, 1);
        });
        let out = f32s(&ctx.read_buffer(&yb));
        for i in 0..128 {
            // 64 elements of x are in view: y changes below 64; from 64 to n = 100, x reads 0
            // past its view and y keeps its value, as it does past n.
            let want = if i < 64 { 2.0 * x[16 + i] + y[i] } else { y[i] };
            assert_eq!(out[i], want, "{name}: element {i}");
        }
    }
}

#[test]
fn tables_refuse_what_d3d12_leaves_undefined() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let root = table_root(d);
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let xb = ctx.default_buffer(&[0; 256]);
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    d.create_shader_resource_view(&xb, &BufferViewDesc::raw(0, 256), &heap.handle(0)).unwrap();
    let run = |f: &dyn Fn(&mut CommandList)| {
        ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[0, 64], 0);
            f(l);
            l.dispatch(1, 1, 1);
        })
    };
    let refused = |r: Result<()>, id: MessageId, text: &str| {
        let e = assert_error(r, ErrorCode::InvalidArg, id);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    refused(run(&|_| {}), MessageId::DrawInvalid, "table of root parameter 1");
    // Descriptor 1 (the UAV u0) was never written.
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
        }),
        MessageId::DrawInvalid,
        "uninitialised descriptor",
    );
    // An SRV where the kernel writes a UAV.
    d.create_shader_resource_view(&xb, &BufferViewDesc::raw(0, 256), &heap.handle(1)).unwrap();
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
        }),
        MessageId::DrawInvalid,
        "Srv view where the shader reads a Uav",
    );
    // A table running past the heap's end: t0 at descriptor 3, u0 past it.
    d.create_shader_resource_view(&xb, &BufferViewDesc::raw(0, 256), &heap.handle(3)).unwrap();
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(3).unwrap());
        }),
        MessageId::DrawInvalid,
        "past the heap's 4 descriptors",
    );
    // Changing the heaps leaves the table undefined.
    let other = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
            l.set_descriptor_heaps(&[&other]);
        }),
        MessageId::DrawInvalid,
        "is not set",
    );
    // A table in a heap that is not set; heaps that are not shader-visible.
    refused(
        run(&|l| l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap())),
        MessageId::StateSettingInvalid,
        "heap SetDescriptorHeaps set",
    );
    let cpu = d.create_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    assert!(cpu.gpu_handle(0).is_none());
    refused(run(&|l| l.set_descriptor_heaps(&[&cpu])), MessageId::StateSettingInvalid, "not shader-visible");
}

#[test]
fn views_are_checked_against_their_buffer() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    let plain = ctx.buffer(HeapType::Default, 1024);
    let refused = |r: Result<()>, text: &str| {
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreateViewInvalidDesc);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    refused(
        d.create_unordered_access_view(&plain, &BufferViewDesc::raw(0, 64), &heap.handle(0)),
        "ALLOW_UNORDERED_ACCESS",
    );
    refused(d.create_shader_resource_view(&plain, &BufferViewDesc::raw(8, 64), &heap.handle(0)), "16-byte");
    refused(
        d.create_shader_resource_view(&plain, &BufferViewDesc::structured(0, 300, 4), &heap.handle(0)),
        "pass the buffer",
    );
    refused(d.create_constant_buffer_view(&plain, 128, 256, &heap.handle(0)), "multiples of 256");
    refused(d.create_constant_buffer_view(&plain, 768, 512, &heap.handle(0)), "pass the buffer");
    let rtv = d.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    refused(
        d.create_shader_resource_view(&plain, &BufferViewDesc::raw(0, 64), &rtv.handle(0)),
        "not in a CBV/SRV/UAV heap",
    );
    let e = d.create_shader_resource_view(&plain, &BufferViewDesc::raw(0, 64), &heap.handle(4)).unwrap_err();
    assert_eq!(e.id, MessageId::InvalidDescriptorHandle);
    let e = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Rtv, 4).map(drop).unwrap_err();
    assert!(e.text.contains("cannot be shader-visible"), "{}", e.text);
    let e = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 2049).map(drop).unwrap_err();
    assert!(e.text.contains("1 to 2048"), "{}", e.text);
    let e = d.copy_descriptors_simple(3, &heap.handle(2), &heap.handle(0), DescriptorHeapType::CbvSrvUav).unwrap_err();
    assert!(e.text.contains("destination heap's end"), "{}", e.text);
}

#[test]
fn workgroup_atomics_count_per_group_and_exchange_once() {
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<atomic<u32>>;
var<workgroup> local_bins: array<atomic<u32>, 16>;
var<workgroup> winner: atomic<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    atomicAdd(&local_bins[input[id.x] % 16u], 1u);
    // Exactly one thread of the group swaps 0 for its index + 1.
    let r = atomicCompareExchangeWeak(&winner, 0u, i + 1u);
    workgroupBarrier();
    if i < 16u { atomicAdd(&output[i], atomicLoad(&local_bins[i])); }
    if r.exchanged { atomicAdd(&output[16], 1u); }
    if i == 0u { atomicMax(&output[17], atomicLoad(&winner)); }
}
"#;
    for (name, ctx) in kernel_contexts() {
        let input: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(40503) >> 3).collect();
        let out = run(&ctx, wgsl, "main", [4, 1, 1], &[], &bytes_of(&input), &[0; 18 * 4]);
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        for b in 0..16 {
            let want = input.iter().filter(|v| **v % 16 == b as u32).count() as u32;
            assert_eq!(word(b), want, "{name}: bin {b}");
        }
        // One exchange a group; the winner is some thread of it (1..=64).
        assert_eq!(word(16), 4, "{name}: exchanges");
        assert!((1..=64).contains(&word(17)), "{name}: winner {}", word(17));
    }
}

#[test]
fn an_index_past_the_kernels_own_array_clamps_to_its_last_element() {
    // naga's `Restrict` on the Vulkan device, the same on the reference device: the index is
    // clamped, so the write lands on element 3 and the read past the end reads it back.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
var<workgroup> shared_words: array<u32, 4>;
@compute @workgroup_size(1)
fn main() {
    var local = array<u32, 4>(1u, 2u, 3u, 4u);
    let far = input[0];                  // 9
    local[far] = 40u;
    shared_words[far + 1u] = 70u;
    let v = vec3<u32>(5u, 6u, 7u);
    output[0] = local[far + 100u];
    output[1] = local[3];
    output[2] = local[0];
    output[3] = shared_words[3];
    output[4] = v[far];
}
"#;
    for (name, ctx) in kernel_contexts() {
        let out = run(&ctx, wgsl, "main", [1, 1, 1], &[], &bytes_of(&[9u32]), &[0; 20]);
        assert_eq!(out, bytes_of(&[40u32, 40, 1, 70, 7]), "{name}");
    }
}

#[test]
fn a_bundle_of_a_dispatch_runs_in_every_list_that_executes_it() {
    // The bundle sets its own root signature, pipeline and arguments (D3D12 bundles inherit
    // none of those), and each execution adds a·x to y again.
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
        let root = saxpy_root(d);
        let pso = pipeline(d, &root, &module, "main").unwrap();
        let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
        let xb = ctx.default_buffer(&bytes_of(&x));
        let yb = uav_buffer(&ctx, &[0; 256]);
        let mut bundle = ctx.list(CommandListType::Bundle);
        bundle.set_compute_root_signature(&root);
        bundle.set_pipeline_state(&pso);
        bundle.set_compute_root_32bit_constants(0, &[1.0f32.to_bits(), 64], 0);
        bundle.set_compute_root_shader_resource_view(1, xb.gpu_address(0));
        bundle.set_compute_root_unordered_access_view(2, yb.gpu_address(0));
        bundle.dispatch(1, 1, 1);
        bundle.close().unwrap();
        for _ in 0..3 {
            ctx.run(CommandListType::Direct, |l| l.execute_bundle(&bundle));
        }
        let barrier_between = |l: &mut CommandList| {
            l.barrier(&[BarrierGroup::Buffer(vec![BufferBarrier {
                sync_before: BarrierSync::COMPUTE_SHADING,
                sync_after: BarrierSync::COMPUTE_SHADING,
                access_before: BarrierAccess::UNORDERED_ACCESS,
                access_after: BarrierAccess::UNORDERED_ACCESS,
                resource: &yb,
                offset: 0,
                size: u64::MAX,
            }])])
        };
        // Twice more in one list, with the UAV barrier D3D12 asks for between them.
        ctx.run(CommandListType::Direct, |l| {
            l.execute_bundle(&bundle);
            barrier_between(l);
            l.execute_bundle(&bundle);
        });
        let want: Vec<f32> = x.iter().map(|v| 5.0 * v).collect();
        assert_eq!(f32s(&ctx.read_buffer(&yb)), want, "{name}");
    }
}

#[test]
fn large_dispatches_spread_over_the_workers_give_every_element() {
    // Past the reference device's spreading threshold (16 K threads): batches run on its
    // worker threads in any order; each writes its own elements.
    for (name, ctx) in kernel_contexts() {
        let n = 1u32 << 20;
        let x: Vec<f32> = (0..n).map(|i| (i % 4096) as f32).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 5) as f32).collect();
        let out = run(&ctx, SAXPY, "main", [n / 64, 1, 1], &[0.5f32.to_bits(), n - 3], &bytes_of(&x), &bytes_of(&y));
        let out = f32s(&out);
        for i in (0..n as usize).step_by(97).chain([n as usize - 4, n as usize - 3, n as usize - 1]) {
            let want = if i < (n - 3) as usize { 0.5 * x[i] + y[i] } else { y[i] };
            assert_eq!(out[i], want, "{name}: element {i}");
        }
    }
}

#[test]
fn a_dispatch_needs_every_root_argument_its_kernel_reads() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let root = saxpy_root(d);
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let (x, y) = (ctx.default_buffer(&[0; 256]), uav_buffer(&ctx, &[0; 256]));
    let run = |constants: bool, srv: bool, uav: bool| {
        ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            if constants {
                // One at a time: `SetComputeRoot32BitConstant`.
                l.set_compute_root_32bit_constant(0, 1.0f32.to_bits(), 0);
                l.set_compute_root_32bit_constant(0, 64, 1);
            }
            if srv {
                l.set_compute_root_shader_resource_view(1, x.gpu_address(0));
            }
            if uav {
                l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
            }
            l.dispatch(1, 1, 1);
        })
    };
    run(true, true, true).unwrap();
    for (args, text) in [
        ((false, true, true), "root parameter 0 (the kernel's push constants)"),
        ((true, false, true), "root parameter 1 (`x`)"),
        ((true, true, false), "root parameter 2 (`y`)"),
    ] {
        let e = assert_error(run(args.0, args.1, args.2), ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    }
    // Setting the root signature again unsets every argument.
    let r = ctx.record(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        l.set_compute_root_32bit_constants(0, &[0, 64], 0);
        l.set_compute_root_shader_resource_view(1, x.gpu_address(0));
        l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
        l.set_compute_root_signature(&root);
        l.dispatch(1, 1, 1);
    });
    assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
}

/// The float kernel's results against Rust's IEEE-754 arithmetic (round to nearest even).
/// Exact: add, sub, mul, floor, ceil, trunc, round, negation, abs, comparisons,
/// integer-to-float conversions and `select`. `fma` may be fused or not (WGSL and SPIR-V's
/// `Fma` allow either; the reference device fuses, lavapipe does not): either result passes.
/// Tolerances, as Vulkan and D3D11.3 allow: division 2.5 ULP, square root 3 ULP (lavapipe and
/// the reference device are exact, GPUs need not be).
/// NaN results match as NaN, whatever their bits, and zeros match whatever their sign: Vulkan
/// keeps neither without `SignedZeroInfNanPreserve` (NVIDIA turns `select(a, b, a < b)` into a
/// `max` that gives +0 for (−0, +0)). A denormal result may be flushed to zero (D3D11.3, and
/// NVIDIA does). Division is checked only for divisors in 2^−126–2^126, the range D3D11.3 gives
/// its 2.5 ULP for (NVIDIA divides by multiplying with the reciprocal, which flushes past it).
#[test]
fn float_arithmetic_follows_ieee_754_where_it_is_exact() {
    let values: [f32; 12] =
        [0.0, -0.0, 1.0, -1.0, 0.1, 3.5, -2.5, 1e30, -1e-30, f32::INFINITY, f32::NEG_INFINITY, f32::MAX];
    let ulps = |x: f32, y: f32| (x.to_bits() as i64 - y.to_bits() as i64).unsigned_abs();
    for (name, ctx) in kernel_contexts() {
        let out = run(
            &ctx,
            include_str!("shaders/floats.wgsl"),
            "main",
            [12, 1, 1],
            &[],
            &bytes_of(&values),
            &[0; 12 * 12 * 16 * 4],
        );
        let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        for (i, &a) in values.iter().enumerate() {
            for (j, &b) in values.iter().enumerate() {
                let base = (i * 12 + j) * 16;
                let cmp = (a < b) as u32 | ((a == b) as u32) << 1 | ((a >= b) as u32) << 2;
                let fused = a.mul_add(b, a);
                let got_fma = f32::from_bits(word(base + 5));
                let unfused = a * b + a;
                assert!(
                    [fused, unfused].iter().any(|w| w.to_bits() == got_fma.to_bits()
                        || (w.is_nan() && got_fma.is_nan())
                        || (*w == 0.0 && got_fma == 0.0)),
                    "{name}: fma({a}, {b}, {a}) = {got_fma}, want {fused} or {unfused}"
                );
                let exact: [(usize, u32); 13] = [
                    (0, (a + b).to_bits()),
                    (1, (a - b).to_bits()),
                    (2, (a * b).to_bits()),
                    (6, a.floor().to_bits()),
                    (7, a.ceil().to_bits()),
                    (8, a.trunc().to_bits()),
                    (9, a.round_ties_even().to_bits()),
                    (10, (-a).to_bits()),
                    (11, a.abs().to_bits()),
                    (12, cmp),
                    (13, ((b.to_bits() >> 9) as i32 as f32).to_bits()),
                    (14, ((a.to_bits() >> 1) as f32).to_bits()),
                    (15, if a < b { b } else { a }.to_bits()),
                ];
                for (k, want) in exact {
                    let got = word(base + k);
                    let (g, w) = (f32::from_bits(got), f32::from_bits(want));
                    let flushed = w.is_subnormal() && g == 0.0;
                    let alike = k != 12 && ((g.is_nan() && w.is_nan()) || (g == 0.0 && w == 0.0) || flushed);
                    assert!(got == want || alike, "{name}: op {k} of ({a}, {b}): {got:#x}, want {want:#x}");
                }
                let divisor_in_range =
                    b.is_infinite() || b == 0.0 || (2f32.powi(-126)..=2f32.powi(126)).contains(&b.abs());
                for (k, want, tolerance) in [(3, a / b, 2), (4, a.abs().sqrt(), 3)] {
                    if k == 3 && !divisor_in_range {
                        continue;
                    }
                    let got = f32::from_bits(word(base + k));
                    let ok = (want.is_nan() && got.is_nan())
                        || got == want
                        || ulps(got, want) <= tolerance
                        || (want.is_subnormal() && got == 0.0);
                    assert!(ok, "{name}: op {k} of ({a}, {b}): {got}, want {want} within {tolerance} ULP");
                }
            }
        }
    }
}

#[test]
fn samplers_go_in_sampler_heaps_with_d3d12s_checks() {
    let d = reference_device(ReferenceConfig::default());
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 4).unwrap();
    let linear = SamplerDesc {
        filter: Filter { min: FilterType::Linear, mag: FilterType::Linear, ..Default::default() },
        ..Default::default()
    };
    d.create_sampler(&linear, &heap.handle(0)).unwrap();
    let bad = |desc: SamplerDesc, handle: &CpuDescriptorHandle, text: &str| {
        let e = d.create_sampler(&desc, handle).unwrap_err();
        assert_eq!(e.id, MessageId::CreateViewInvalidDesc, "{e}");
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    let aniso =
        SamplerDesc { filter: Filter { anisotropic: true, ..Default::default() }, max_anisotropy: 17, ..linear };
    bad(aniso, &heap.handle(1), "MaxAnisotropy 17");
    bad(SamplerDesc { min_lod: 4.0, max_lod: 2.0, ..linear }, &heap.handle(1), "MinLOD");
    bad(SamplerDesc { mip_lod_bias: 16.0, ..linear }, &heap.handle(1), "MipLODBias");
    let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    bad(linear, &views.handle(0), "not in a sampler heap");
    let e = d.create_sampler(&linear, &heap.handle(4)).unwrap_err();
    assert_eq!(e.id, MessageId::InvalidDescriptorHandle);
}

#[test]
fn root_constants_past_the_push_constant_bytes_and_beside_a_push_block_reach_the_kernel() {
    // 48 root constants (192 bytes: past lavapipe's 128 bytes of push constants, within
    // D3D12's 64 dwords) as the push-constant block, and 4 more as a constant buffer at b1.
    let wgsl = r#"
struct Big { v: array<vec4<u32>, 12> }
var<immediate> big: Big;
struct Small { s: vec4<u32> }
@group(0) @binding(1) var<uniform> small: Small;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(48)
fn main(@builtin(local_invocation_index) i: u32) {
    output[i] = big.v[i / 4u][i % 4u] + small.s[i % 4u];
}
"#;
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::constants(0, 48),
                RootParameter::constants(1, 4),
                RootParameter::uav(0),
            ]))
            .unwrap();
        let pso = pipeline(d, &root, &module, "main").unwrap();
        let y = uav_buffer(&ctx, &[0; 48 * 4]);
        let big: Vec<u32> = (0..48).map(|i| i * 1000).collect();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &big, 0);
            l.set_compute_root_32bit_constants(1, &[1, 2, 3, 4], 0);
            l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
            l.dispatch(1, 1, 1);
            // Again with another constant: each dispatch reads the constants set before it.
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COMPUTE_SHADING,
                sync_after: BarrierSync::COMPUTE_SHADING,
                access_before: BarrierAccess::UNORDERED_ACCESS,
                access_after: BarrierAccess::UNORDERED_ACCESS,
            }])]);
            l.set_compute_root_32bit_constant(1, 7, 0);
            l.set_compute_root_32bit_constant(0, 5, 47);
            l.dispatch(1, 1, 1);
        });
        let want: Vec<u32> =
            (0..48u32).map(|i| if i == 47 { 5 } else { i * 1000 } + [7, 2, 3, 4][i as usize % 4]).collect();
        assert_eq!(ctx.read_buffer(&y), bytes_of(&want), "{name}");
    }
}

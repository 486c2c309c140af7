//! The app's compute kernels running: control flow, workgroup memory and barriers, atomics,
//! ids, large dispatches spread over workers, bundles, and a kernel that never ends.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::ReferenceConfig;
use common::kernels::*;
use common::*;
use std::sync::Arc;
use std::time::Duration;

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
fn a_kernel_that_never_ends_removes_the_device_and_every_wait_returns() {
    let config = ReferenceConfig { shader_time_budget: Duration::from_millis(200), ..Default::default() };
    never_ends(Ctx::new(reference_device(config)), ENDLESS);
}

/// A CPU Vulkan device (lavapipe) has no GPU timeout: the device's own budget ends the kernel.
/// Lavapipe 22.3 ends every invocation's loops after 65535 iterations itself, so the kernel
/// here runs only some milliseconds there, and the budget is 1 ms: what the test shows is that
/// the budget's check ends it first and removes the device.
#[test]
fn a_kernel_that_never_ends_on_a_cpu_vulkan_device_removes_it_too() {
    let budget = Duration::from_millis(1);
    let options = asyncmd_vulkan::VulkanOptions {
        validation: asyncmd_vulkan::Validation::IfAvailable,
        shader_time_budget: budget,
        ..Default::default()
    };
    let Some(ctx) = vulkan_ctx(options) else { return };
    let vk = ctx.vulkan.clone().expect("a Vulkan context");
    match vk.shader_time_budget() {
        Some(b) => assert_eq!(b, budget),
        // A GPU: its driver's timeout applies, and a test must not wait for it.
        None => return,
    }
    // 64 dependent multiply-adds an iteration: 65535 iterations take milliseconds.
    let work = "        x = x * 1.0001 + 0.5;\n".repeat(64);
    let wgsl = ENDLESS.replace("                i += 1u;\n", &format!("{work}                i += 1u;\n"));
    let wgsl = wgsl.replace("    var i = 0u;\n", "    var i = 0u;\n    var x = 1.0;\n");
    let wgsl = wgsl.replace("output[0] = i;", "output[0] = i + u32(x < 0.0);");
    never_ends(ctx, &wgsl);
}

/// Nested loops that never end: lavapipe 22.3 leaves its loops after 65535 iterations an
/// invocation in all, so one endless loop would end there; these run 2^48 times elsewhere.
const ENDLESS: &str = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(1)
fn main() {
    var i = 0u;
    loop {
        if input[0] == 12345u { break; }
        loop {
            if input[1] == 12345u { break; }
            loop {
                if input[2] == 12345u { break; }
                i += 1u;
                output[0] = i;
            }
        }
    }
}
"#;

/// Dispatches `wgsl`, whose loops never end (or not within the device's budget): the device
/// is removed as hung, and the fence the queue signals after it still passes.
fn never_ends(ctx: Ctx, wgsl: &str) {
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
fn a_bundle_of_a_dispatch_runs_in_every_list_that_executes_it() {
    // The bundle sets its own root signature, pipeline and arguments (it could inherit all but
    // the pipeline: `bindings::a_bundle_inherits_…`), and each execution adds a·x to y again.
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
fn storage_atomics_of_a_large_dispatch_lose_no_count() {
    // 256 K threads, past the reference device's spreading threshold: a kernel with storage
    // atomics keeps its batches on one thread, in order, so that no increment is lost.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    atomicAdd(&bins[(id.x * 2654435761u) >> 30u], 1u);
}
"#;
    for (name, ctx) in kernel_contexts() {
        let out = run(&ctx, wgsl, "main", [1024, 1, 1], &[], &[0; 4], &[0; 16]);
        let mut want = [0u32; 4];
        (0..1024u32 * 256).for_each(|i| want[(i.wrapping_mul(2654435761) >> 30) as usize] += 1);
        assert_eq!(out, bytes_of(&want), "{name}");
    }
}

#[test]
fn lanes_that_stay_long_in_a_loop_finish_it_with_their_own_state() {
    // Trip counts from 0 to 144, most short: the reference device goes on with the few lanes
    // left (lane compaction) and puts their variables, returns and exits back.
    let wgsl = r#"
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<private> steps: u32;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var acc = input[0];
    var i = 0u;
    loop {
        if i >= (id.x % 37u) * (id.x % 5u) { break; }
        acc = acc * 31u + i;
        steps += 1u;
        if (acc & 1023u) == 7u && id.x % 3u == 0u {
            out[id.x] = 0xFFFF0000u | steps;
            return;
        }
        i++;
        if i % 7u == 0u { continue; }
        acc ^= id.x;
    }
    out[id.x] = acc + steps;
}
"#;
    for (name, ctx) in kernel_contexts() {
        let out = run(&ctx, wgsl, "main", [4, 1, 1], &[], &bytes_of(&[12345u32]), &[0; 4096]);
        for t in 0..1024u32 {
            let (mut acc, mut i, mut steps) = (12345u32, 0u32, 0u32);
            let want = loop {
                if i >= (t % 37) * (t % 5) {
                    break acc.wrapping_add(steps);
                }
                acc = acc.wrapping_mul(31).wrapping_add(i);
                steps += 1;
                if acc & 1023 == 7 && t % 3 == 0 {
                    break 0xFFFF_0000 | steps;
                }
                i += 1;
                if i % 7 == 0 {
                    continue;
                }
                acc ^= t;
            };
            let got = u32::from_le_bytes(out[t as usize * 4..t as usize * 4 + 4].try_into().unwrap());
            assert_eq!(got, want, "{name}: thread {t}");
        }
    }
}

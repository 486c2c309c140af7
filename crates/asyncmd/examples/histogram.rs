//! A histogram with atomics, the way GPU code writes one: each group counts its pixels into
//! 256 bins of workgroup memory (`atomicAdd` on `var<workgroup>`), then adds its bins to the
//! global ones (`atomicAdd` on a storage buffer). Root descriptors bind the buffers; the result
//! is checked against the CPU's count.
//!
//! `cargo run -p asyncmd --example histogram`

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;

const HISTOGRAM: &str = r#"
@group(0) @binding(0) var<storage, read> values: array<u32>;           // t0
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>; // u0
var<workgroup> local_bins: array<atomic<u32>, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    // Each thread counts 16 values into the group's bins.
    for (var k = 0u; k < 16u; k++) {
        atomicAdd(&local_bins[values[id.x * 16u + k] & 255u], 1u);
    }
    workgroupBarrier();
    // Thread i adds bin i to the global histogram.
    atomicAdd(&bins[i], atomicLoad(&local_bins[i]));
}
"#;

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let root =
        device.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::srv(0), RootParameter::uav(0)]))?;
    let pipeline = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(HISTOGRAM)?),
            entry_point: "main".into(),
        }),
    }))?;

    // 64 groups × 256 threads × 16 values, skewed towards small bins.
    let values: Vec<u32> = (0..64u32 * 256 * 16).map(|i| (i.wrapping_mul(2654435761) >> 8) % (1 + i % 256)).collect();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let buffer = |heap, len: usize, flags| {
        device.create_committed_resource(
            heap,
            &ResourceDesc::buffer(len as u64).with_flags(flags),
            BarrierLayout::Undefined,
        )
    };
    let input = buffer(HeapType::Upload, bytes.len(), ResourceFlags::empty())?;
    input.write(0, &bytes)?;
    let zeros = buffer(HeapType::Upload, 1024, ResourceFlags::empty())?;
    zeros.write(0, &[0; 1024])?;
    let bins = buffer(HeapType::Default, 1024, ResourceFlags::ALLOW_UNORDERED_ACCESS)?;
    let readback = buffer(HeapType::Readback, 1024, ResourceFlags::empty())?;

    // Legacy semantics: the runtime orders the clear of the bins, the dispatch and the copy out.
    let mut cb = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    cb.copy_buffer_region(&bins, 0, &zeros, 0, 1024);
    cb.set_compute_root_signature(&root);
    cb.set_pipeline_state(&pipeline);
    cb.set_compute_root_shader_resource_view(0, input.gpu_address(0));
    cb.set_compute_root_unordered_access_view(1, bins.gpu_address(0));
    cb.dispatch(64, 1, 1);
    cb.copy_buffer_region(&readback, 0, &bins, 0, 1024);
    cb.submit()?;

    let counts: Vec<u32> =
        readback.read_vec(0, 1024)?.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let mut want = vec![0u32; 256];
    values.iter().for_each(|v| want[(v & 255) as usize] += 1);
    assert_eq!(counts, want);
    println!(
        "histogram of {} values: bins[0..6] = {:?}, bins[250..] = {:?}; every bin matches the CPU's count",
        values.len(),
        &counts[..6],
        &counts[250..]
    );
    Ok(())
}

//! The app's own kernel: `y = a·x + y` in WGSL, bound through a root signature of root
//! constants (the kernel's push-constant block), a root SRV (`x`, register t0) and a root UAV
//! (`y`, register u0), dispatched from a legacy command buffer that inserts the barriers.
//!
//! `cargo run -p asyncmd --example compute_saxpy`

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;

const SAXPY: &str = r#"
struct Params { a: f32, n: u32 }
var<immediate> params: Params;                                   // root constants
@group(0) @binding(0) var<storage, read> x: array<f32>;          // t0: read-only, an SRV
@group(0) @binding(0) var<storage, read_write> y: array<f32>;    // u0: read-write, a UAV

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < params.n {
        y[id.x] = params.a * x[id.x] + y[id.x];
    }
}
"#;

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;

    // The module is parsed and validated once; its bindings are t0, u0 and a push-constant block.
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY)?);
    let root = device.create_root_signature(&RootSignatureDesc::new(vec![
        RootParameter::constants(0, 2), // a, n
        RootParameter::srv(0),          // x
        RootParameter::uav(0),          // y
    ]))?;
    let pipeline = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader { module, entry_point: "main".into() }),
    }))?;

    let n = 100_000u32;
    let a = 2.5f32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i % 10) as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let size = u64::from(n) * 4;
    let buffer = |heap, flags| {
        device.create_committed_resource(heap, &ResourceDesc::buffer(size).with_flags(flags), BarrierLayout::Undefined)
    };
    let x = buffer(HeapType::Upload, ResourceFlags::empty())?;
    x.write(0, &bytes(&xs))?;
    let y_upload = buffer(HeapType::Upload, ResourceFlags::empty())?;
    y_upload.write(0, &bytes(&ys))?;
    let y = buffer(HeapType::Default, ResourceFlags::ALLOW_UNORDERED_ACCESS)?;
    let readback = buffer(HeapType::Readback, ResourceFlags::empty())?;

    // Legacy semantics: the copy into y, the dispatch writing it and the copy out get their
    // barriers from the runtime, and the CPU read waits for the work.
    let mut cb = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    cb.copy_buffer_region(&y, 0, &y_upload, 0, size);
    cb.set_compute_root_signature(&root);
    cb.set_pipeline_state(&pipeline);
    cb.set_compute_root_32bit_constants(0, &[a.to_bits(), n], 0);
    cb.set_compute_root_shader_resource_view(1, x.gpu_address(0));
    cb.set_compute_root_unordered_access_view(2, y.gpu_address(0));
    cb.dispatch(n.div_ceil(64), 1, 1);
    cb.copy_buffer_region(&readback, 0, &y, 0, size);
    cb.submit()?;

    let out: Vec<f32> = readback
        .read_vec(0, size as usize)?
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for i in 0..n as usize {
        // Products and sums of these small numbers are exact in f32.
        assert_eq!(out[i], a * xs[i] + ys[i], "element {i}");
    }
    println!(
        "saxpy: {n} elements, y[0..4] = {:?}, y[{}] = {}; all match a·x + y",
        &out[..4],
        n - 1,
        out[n as usize - 1]
    );
    Ok(())
}

//! The command-buffer example of spec 002 with the app's own kernel:
//!
//! ```text
//! commandBuffer->use(pipeline);
//! commandBuffer->bind(*bindings);
//! commandBuffer->dispatch({ 64, 64, 1 });
//! commandBuffer->track(std::move(bindings));
//! ```
//!
//! The bindings are a descriptor heap made for this one dispatch: a table of an SRV (the
//! input) and a UAV (a 256-bin histogram the kernel counts into with atomics). The command
//! buffer tracks the heap, the app lets go of it, and the queue keeps it alive until the GPU has
//! run the dispatch.
//!
//! `cargo run -p asyncmd --example bindings`

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DescriptorHeapType, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;

const HISTOGRAM: &str = r#"
@group(0) @binding(0) var<storage, read> pixels: array<u32>;         // t0, table descriptor 0
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>>; // u0, table descriptor 1

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = pixels[id.y * 512u + id.x];
    atomicAdd(&bins[v & 255u], 1u);
}
"#;

fn main() -> Result<()> {
    // The app opts in to the Async Commands (its fill of the bins) where a device has no native ones.
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    let device = factory.create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let root = device.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::table(vec![
        DescriptorRange::new(RegisterClass::Srv, 1, 0),
        DescriptorRange::new(RegisterClass::Uav, 1, 0),
    ])]))?;
    let pipeline = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(HISTOGRAM)?),
            entry_point: "main".into(),
        }),
    }))?;

    // 512 × 512 "pixels": 64 × 64 groups of 8 × 8 threads.
    let pixels: Vec<u32> = (0..512u32 * 512).map(|i| (i % 509) * (i % 13) + i / 4096).collect();
    let bytes: Vec<u8> = pixels.iter().flat_map(|p| p.to_le_bytes()).collect();
    let input = device.create_committed_resource(
        HeapType::Upload,
        &ResourceDesc::buffer(bytes.len() as u64),
        BarrierLayout::Undefined,
    )?;
    input.write(0, &bytes)?;
    let bins = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(1024).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
        BarrierLayout::Undefined,
    )?;
    let readback =
        device.create_committed_resource(HeapType::Readback, &ResourceDesc::buffer(1024), BarrierLayout::Undefined)?;

    // The bindings: a heap made for this dispatch alone.
    let bindings = device.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 2)?;
    device.create_shader_resource_view(&input, BufferViewDesc::raw(0, bytes.len() as u32), &bindings.handle(0))?;
    device.create_unordered_access_view(&bins, BufferViewDesc::raw(0, 1024), &bindings.handle(1))?;

    let mut cb = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    cb.fill_buffers(&[FillBufferDesc {
        buffer: &bins,
        offset: 0,
        fill_value: ClearData::from_uints([0; 4]),
        format: Format::Unknown,
        raw_pattern_size: 4,
        repeat_count: 256,
    }]);
    cb.set_compute_root_signature(&root); // use(pipeline)
    cb.set_pipeline_state(&pipeline);
    cb.set_descriptor_heaps(&[&bindings]); // bind(*bindings)
    cb.set_compute_root_descriptor_table(0, &bindings.gpu_handle(0).expect("a shader-visible heap"));
    cb.dispatch(64, 64, 1); // dispatch({ 64, 64, 1 })
    cb.copy_buffer_region(&readback, 0, &bins, 0, 1024);
    cb.track(bindings); // track(std::move(bindings)): the app's handle is gone
    let kept = cb.tracked_resources().len();
    cb.submit()?;

    let counts: Vec<u32> =
        readback.read_vec(0, 1024)?.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let mut want = [0u32; 256];
    pixels.iter().for_each(|p| want[(p & 255) as usize] += 1);
    assert_eq!(counts, want);
    println!(
        "histogram of {} pixels through a tracked descriptor table: bins[0..4] = {:?}, total {}; the buffer kept {kept} objects",
        pixels.len(),
        &counts[..4],
        counts.iter().sum::<u32>()
    );
    Ok(())
}

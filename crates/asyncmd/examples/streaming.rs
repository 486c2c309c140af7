//! Streaming while rendering: a 256 MiB asset goes up through a `StreamingUploader` on the copy
//! queue, 16 MiB a frame, while a direct queue renders frames (a clear and draws into a target).
//! Each frame prints its time and how much of the asset is up; at the end, the upload rate. Then
//! a frame reads the streamed asset in an app kernel (after waiting for the ticket on the GPU):
//! each thread sums words sampled across the whole asset, checked against the CPU's sums, and a
//! direct-queue copy of the asset is checked whole.
//!
//! `cargo run --release -p asyncmd --example streaming`

use asyncmd::ddi::{
    AppShader, ColorWriteMask, ComputePipelineDesc, ComputeShader, DepthStencilState, GraphicsPipelineDesc,
    PipelineDesc, PrimitiveTopology, PrimitiveTopologyType, RootParameter, RootSignatureDesc, ShaderId,
    CLEAR_CONSTANT_COUNT,
};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DescriptorHeapType, DeviceFactory, Level, Semantics, StreamingUploader};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ASSET: usize = 256 << 20;
const PER_FRAME: u64 = 16 << 20;

/// Thread i sums 16 words of the asset spread over all of it (word `(16 i + k) · 4099` modulo
/// its 64 M words).
const SAMPLE: &str = r#"
@group(0) @binding(0) var<storage, read> asset: array<u32>;        // t0
@group(0) @binding(0) var<storage, read_write> sums: array<u32>;   // u0
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var s = 0u;
    for (var k = 0u; k < 16u; k++) {
        s += asset[((id.x * 16u + k) * 4099u) % arrayLength(&asset)];
    }
    sums[id.x] = s;
}
"#;
const THREADS: usize = 256;

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let direct = device.create_command_queue(CommandListType::Direct)?;
    let uploader = StreamingUploader::new(&device, 32 << 20)?;
    println!("uploading on a {:?} queue", uploader.queue().ty());

    // What the frames render: a clear and draws of the built-in clear shaders into a target.
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 128, 128).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let target = device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::RenderTarget)?;
    let rtvs = device.create_descriptor_heap(DescriptorHeapType::Rtv, 1)?;
    device.create_render_target_view(&target, None, &rtvs.handle(0))?;
    let root = device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, CLEAR_CONSTANT_COUNT)]))?;
    let pso = device.create_pipeline_state(&PipelineDesc::Graphics(GraphicsPipelineDesc {
        root_signature: root.id(),
        vs: ShaderId::ClearVs,
        ps: Some(ShaderId::ClearPsFloat),
        write_masks: [ColorWriteMask::ALL; 8],
        depth_stencil: DepthStencilState::default(),
        rtv_formats: vec![Format::R8G8B8A8Unorm],
        dsv_format: Format::Unknown,
        sample_desc: SampleDesc { count: 1, quality: 0 },
        sample_mask: u32::MAX,
        topology_type: PrimitiveTopologyType::Triangle,
    }))?;

    let asset: Vec<u8> = (0..ASSET).map(|i| (i % 253) as u8).collect();
    let dest = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(ASSET as u64),
        BarrierLayout::Undefined,
    )?;
    let mut pending = Some(asset.clone());
    let mut ticket = None;
    let start = Instant::now();
    let mut frame = 0;
    while ticket.as_ref().is_none_or(|t: &asyncmd::UploadTicket| !t.is_done()) && frame < 100 {
        let t = Instant::now();
        let mut b = direct.create_command_buffer(Semantics::Legacy, Level::Primary)?;
        b.om_set_render_targets(&[rtvs.handle(0)], None);
        b.clear_render_target_view(&rtvs.handle(0), [0.0, 0.0, 0.0, 1.0], &[]);
        b.set_graphics_root_signature(&root);
        b.set_pipeline_state(&pso);
        b.rs_set_viewports(&[Viewport::sized(128.0, 128.0)]);
        b.rs_set_scissor_rects(&[Rect::new(0, 0, 128, 128)]);
        b.ia_set_primitive_topology(PrimitiveTopology::TriangleList);
        for i in 0..8u32 {
            let c = (i as f32 / 8.0).to_bits();
            b.set_graphics_root_32bit_constants(0, &[c, c, c, 1.0f32.to_bits(), 0, 0], 0);
            b.draw_instanced(3, 1, 0, 0);
        }
        let rendered = b.submit()?;
        // The upload's CPU side runs while the frame renders, 16 MiB a frame.
        uploader.begin_frame(Some(PER_FRAME))?;
        if let Some(a) = pending.take() {
            ticket = Some(uploader.upload_buffer_owned(&dest, 0, a)?);
        }
        uploader.end_frame();
        direct.wait_for(rendered, Duration::from_secs(10))?;
        println!(
            "frame {frame:2}: {:6.2} ms, {:3} MiB of {} up",
            t.elapsed().as_secs_f64() * 1e3,
            uploader.uploaded_bytes() >> 20,
            ASSET >> 20
        );
        frame += 1;
    }
    let ticket = ticket.expect("the asset was handed over in frame 0");
    ticket.wait(Duration::from_secs(30))?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} MiB in {frame} frames, {:.2} s: {:.2} GB/s beside the rendering",
        ASSET >> 20,
        secs,
        ASSET as f64 / secs / 1e9
    );

    // The direct queue reads the asset only after the ticket, waited for on the GPU: a kernel
    // samples it, and a copy brings it back whole.
    let readback = device.create_committed_resource(
        HeapType::Readback,
        &ResourceDesc::buffer(ASSET as u64),
        BarrierLayout::Undefined,
    )?;
    let sample_root =
        device.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::srv(0), RootParameter::uav(0)]))?;
    let sample = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: sample_root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(SAMPLE)?),
            entry_point: "main".into(),
        }),
    }))?;
    let sums = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(THREADS as u64 * 4).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
        BarrierLayout::Undefined,
    )?;
    let sums_back = device.create_committed_resource(
        HeapType::Readback,
        &ResourceDesc::buffer(THREADS as u64 * 4),
        BarrierLayout::Undefined,
    )?;
    direct.wait_ticket(&ticket)?;
    let mut b = direct.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    b.set_compute_root_signature(&sample_root);
    b.set_pipeline_state(&sample);
    b.set_compute_root_shader_resource_view(0, dest.gpu_address(0));
    b.set_compute_root_unordered_access_view(1, sums.gpu_address(0));
    b.dispatch((THREADS / 64) as u32, 1, 1);
    b.copy_buffer_region(&sums_back, 0, &sums, 0, THREADS as u64 * 4);
    b.copy_buffer_region(&readback, 0, &dest, 0, ASSET as u64);
    b.submit()?;
    let word = |i: usize| u32::from_le_bytes([0, 1, 2, 3].map(|k| asset[4 * i + k]));
    let want: Vec<u32> = (0..THREADS)
        .map(|t| (0..16).fold(0u32, |s, k| s.wrapping_add(word((t * 16 + k) * 4099 % (ASSET / 4)))))
        .collect();
    let got: Vec<u32> = sums_back
        .read_vec(0, THREADS * 4)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, want, "the kernel's samples of the streamed asset");
    println!("a kernel read the streamed asset: {THREADS} sums of 16 sampled words each match the CPU's");
    let back = readback.read_vec(0, ASSET)?;
    assert!(back == asset, "the asset arrived whole");
    println!("the asset arrived whole");
    Ok(())
}

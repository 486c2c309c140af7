//! Streaming while rendering: a 256 MiB asset goes up through a `StreamingUploader` on the copy
//! queue, 16 MiB a frame, while a direct queue renders frames (a clear and draws into a target).
//! Each frame prints its time and how much of the asset is up; at the end, the upload rate, and
//! a direct-queue copy of the asset, made after waiting for the ticket on the GPU, is checked.
//!
//! `cargo run --release -p asyncmd --example streaming`

use asyncmd::ddi::{
    ColorWriteMask, DepthStencilState, GraphicsPipelineDesc, PipelineDesc, PrimitiveTopology, PrimitiveTopologyType,
    RootParameter, RootSignatureDesc, ShaderId, CLEAR_CONSTANT_COUNT,
};
use asyncmd::types::*;
use asyncmd::{Adapter, DescriptorHeapType, DeviceFactory, Level, Semantics, StreamingUploader};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ASSET: usize = 256 << 20;
const PER_FRAME: u64 = 16 << 20;

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

    // The direct queue reads the asset only after the ticket, waited for on the GPU.
    let readback = device.create_committed_resource(
        HeapType::Readback,
        &ResourceDesc::buffer(ASSET as u64),
        BarrierLayout::Undefined,
    )?;
    direct.wait_ticket(&ticket)?;
    let mut b = direct.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    b.copy_buffer_region(&readback, 0, &dest, 0, ASSET as u64);
    b.submit()?;
    let back = readback.read_vec(0, ASSET)?;
    assert!(back == asset, "the asset arrived whole");
    println!("the asset arrived whole");
    Ok(())
}

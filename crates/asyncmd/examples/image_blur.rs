//! A 5×5 box blur of an RGBA image: the kernel reads the source through a shader resource view
//! (`texture_2d<f32>`, t0) and writes the result through an unordered access view
//! (`texture_storage_2d<rgba8unorm, write>`, u0), both in one descriptor table of a
//! shader-visible heap. Legacy semantics moves the textures between the copies and the
//! dispatch. The result is checked against the same blur on the CPU.
//!
//! `cargo run -p asyncmd --example image_blur`

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DescriptorHeapType, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;

const BLUR: &str = r#"
@group(0) @binding(0) var src: texture_2d<f32>;                        // t0
@group(0) @binding(0) var dst: texture_storage_2d<rgba8unorm, write>; // u0

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(src));
    let p = vec2<i32>(id.xy);
    if any(p >= size) {
        return;
    }
    // Texels past the edge repeat the edge's.
    var sum = vec4<f32>(0.0);
    for (var dy = -2; dy <= 2; dy++) {
        for (var dx = -2; dx <= 2; dx++) {
            sum += textureLoad(src, clamp(p + vec2<i32>(dx, dy), vec2<i32>(0), size - 1), 0);
        }
    }
    textureStore(dst, p, sum / 25.0);
}
"#;

const W: u32 = 96;
const H: u32 = 64;

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    // One table: t0 at its first descriptor, u0 at its second.
    let root = device.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::table(vec![
        DescriptorRange::new(RegisterClass::Srv, 1, 0),
        DescriptorRange::new(RegisterClass::Uav, 1, 0),
    ])]))?;
    let pipeline = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(BLUR)?),
            entry_point: "main".into(),
        }),
    }))?;

    // A picture with hard edges: diagonal stripes and a bright square.
    let image: Vec<u8> = (0..W * H)
        .flat_map(|i| {
            let (x, y) = (i % W, i / W);
            let stripe = if (x + y) / 8 % 2 == 0 { 220 } else { 30 };
            let square = (32..64).contains(&x) && (16..48).contains(&y);
            [stripe, if square { 255 } else { 0 }, (x * 255 / W) as u8, 255]
        })
        .collect();
    let src = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::tex2d(Format::R8G8B8A8Unorm, W, H),
        BarrierLayout::Common,
    )?;
    let dst = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::tex2d(Format::R8G8B8A8Unorm, W, H).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
        BarrierLayout::Common,
    )?;
    // Rows of a copy footprint are 256-byte aligned: the upload and readback buffers use it.
    let footprint = device.copyable_footprints(src.desc(), 0, 1, 0)?;
    let (layout, pitch) = (footprint.layouts[0], footprint.layouts[0].footprint.row_pitch as usize);
    let buffer = |heap| {
        device.create_committed_resource(heap, &ResourceDesc::buffer(footprint.total_bytes), BarrierLayout::Undefined)
    };
    let upload = buffer(HeapType::Upload)?;
    for (y, row) in image.chunks_exact(W as usize * 4).enumerate() {
        upload.write((y * pitch) as u64, row)?;
    }
    let readback = buffer(HeapType::Readback)?;

    let heap = device.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 2)?;
    device.create_shader_resource_view(&src, TextureViewDesc::texture_2d(), &heap.handle(0))?;
    device.create_unordered_access_view(&dst, TextureViewDesc::texture_2d(), &heap.handle(1))?;

    let mut cb = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    cb.copy_texture_region(
        &TextureCopyLocation::subresource(&src, 0),
        0,
        0,
        0,
        &TextureCopyLocation::footprint(&upload, layout),
        None,
    );
    cb.set_compute_root_signature(&root);
    cb.set_pipeline_state(&pipeline);
    cb.set_descriptor_heaps(&[&heap]);
    if let Some(table) = heap.gpu_handle(0) {
        cb.set_compute_root_descriptor_table(0, &table);
    }
    cb.dispatch(W.div_ceil(8), H.div_ceil(8), 1);
    cb.copy_texture_region(
        &TextureCopyLocation::footprint(&readback, layout),
        0,
        0,
        0,
        &TextureCopyLocation::subresource(&dst, 0),
        None,
    );
    cb.submit()?;

    let raw = readback.read_vec(0, footprint.total_bytes as usize)?;
    let texel = |x: i64, y: i64, c: usize| {
        let (x, y) = (x.clamp(0, W as i64 - 1) as usize, y.clamp(0, H as i64 - 1) as usize);
        f32::from(image[(y * W as usize + x) * 4 + c]) / 255.0
    };
    let mut worst = 0;
    for y in 0..H as i64 {
        for x in 0..W as i64 {
            for c in 0..4 {
                let mut sum = 0.0f32;
                for dy in -2..=2 {
                    for dx in -2..=2 {
                        sum += texel(x + dx, y + dy, c);
                    }
                }
                let want = (sum / 25.0 * 255.0).round() as i32;
                let got = i32::from(raw[y as usize * pitch + x as usize * 4 + c]);
                // The device's float sums may round the last bit differently: one step of 255.
                worst = worst.max((got - want).abs());
                assert!((got - want).abs() <= 1, "texel ({x}, {y}) channel {c}: {got}, want {want}");
            }
        }
    }
    let at = |x: usize, y: usize| &raw[y * pitch + x * 4..y * pitch + x * 4 + 4];
    println!(
        "blurred a {W}×{H} image with a 5×5 box: texel (0, 0) = {:?}, at the square's corner (32, 16) = {:?}; \
         the largest difference from the CPU's blur is {worst} of 255",
        at(0, 0),
        at(32, 16)
    );
    Ok(())
}

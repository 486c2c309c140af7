//! A cube texture: six square slices viewed as the faces of a cube (`TextureCube`), each face a
//! gradient of its own. A kernel samples it in 64 directions around the equator with a linear
//! sampler, so that the directions between two faces blend across the edge (seamless
//! filtering). The faces the directions hit are checked against D3D's face table.
//!
//! `cargo run -p asyncmd --example cube_lookup`

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DescriptorHeapType, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;

const LOOKUP: &str = r#"
@group(0) @binding(0) var sky: texture_cube<f32>;                  // t0
@group(0) @binding(0) var s: sampler;                             // s0, static
@group(0) @binding(0) var<storage, read_write> seen: array<f32>;  // u0

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    // Around the equator: +Z, +X, −Z, −X and back, with the edges between.
    let a = f32(id.x) / 64.0 * 6.2831853;
    seen[id.x] = textureSampleLevel(sky, s, vec3(sin(a), 0.0, cos(a)), 0.0).x;
}
"#;

const N: u32 = 16;

/// Texel (i, j) of face `f`: the face's hundreds and its column.
fn texel(f: u32, i: u32) -> f32 {
    (100 * f + i) as f32
}

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let mut desc = RootSignatureDesc::new(vec![
        RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
        RootParameter::uav(0),
    ]);
    desc.static_samplers.push(StaticSampler {
        desc: SamplerDesc {
            filter: Filter { min: FilterType::Linear, mag: FilterType::Linear, ..Default::default() },
            ..Default::default()
        },
        border: StaticBorderColor::OpaqueBlack,
        shader_register: 0,
        register_space: 0,
        visibility: ShaderVisibility::All,
    });
    let root = device.create_root_signature(&desc)?;
    let pipeline = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(LOOKUP)?),
            entry_point: "main".into(),
        }),
    }))?;

    // Six faces of N×N texels: slices +X, −X, +Y, −Y, +Z, −Z.
    let sky = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::tex2d(Format::R32Float, N, N).with_array(6),
        BarrierLayout::Common,
    )?;
    let mut cb = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    let mut uploads = Vec::new();
    for f in 0..6 {
        let footprint = device.copyable_footprints(sky.desc(), f, 1, 0)?;
        let layout = footprint.layouts[0];
        let upload = device.create_committed_resource(
            HeapType::Upload,
            &ResourceDesc::buffer(footprint.total_bytes),
            BarrierLayout::Undefined,
        )?;
        for j in 0..N {
            let row: Vec<u8> = (0..N).flat_map(|i| texel(f, i).to_le_bytes()).collect();
            upload.write(u64::from(j) * u64::from(layout.footprint.row_pitch), &row)?;
        }
        cb.copy_texture_region(
            &TextureCopyLocation::subresource(&sky, f),
            0,
            0,
            0,
            &TextureCopyLocation::footprint(&upload, layout),
            None,
        );
        uploads.push(upload);
    }
    let heap = device.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1)?;
    device.create_shader_resource_view(
        &sky,
        TextureViewDesc::new(TextureViewDimension::TextureCube),
        &heap.handle(0),
    )?;
    let bytes = 64 * 4;
    let seen = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(bytes).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
        BarrierLayout::Undefined,
    )?;
    let readback =
        device.create_committed_resource(HeapType::Readback, &ResourceDesc::buffer(bytes), BarrierLayout::Undefined)?;
    cb.set_compute_root_signature(&root);
    cb.set_pipeline_state(&pipeline);
    cb.set_descriptor_heaps(&[&heap]);
    if let Some(table) = heap.gpu_handle(0) {
        cb.set_compute_root_descriptor_table(0, &table);
    }
    cb.set_compute_root_unordered_access_view(1, seen.gpu_address(0));
    cb.dispatch(1, 1, 1);
    cb.copy_buffer_region(&readback, 0, &seen, 0, bytes);
    cb.submit()?;

    let raw = readback.read_vec(0, bytes as usize)?;
    let got: Vec<f32> = raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // Straight along an axis, the face's middle, columns N/2 − 1 and N/2 blended: +Z at 0,
    // +X a quarter turn on, −Z at half, −X at three quarters.
    for (k, face) in [(0, 4), (16, 0), (32, 5), (48, 1)] {
        let want = (texel(face, N / 2 - 1) + texel(face, N / 2)) / 2.0;
        assert!((got[k] - want).abs() < 1e-3, "direction {k}: {}, want face {face}'s middle {want}", got[k]);
    }
    // Between +Z and +X (an eighth of a turn): the edge, each face's edge column half each.
    let edge = (texel(4, N - 1) + texel(0, 0)) / 2.0;
    assert!((got[8] - edge).abs() < 1e-2, "the +Z/+X edge: {}, want {edge}", got[8]);
    println!(
        "sampled a {N}×{N} cube in 64 directions: +Z {}, the +Z/+X edge {} (the faces' edge texels blended), +X {}, −Z {}, −X {}",
        got[0], got[8], got[16], got[32], got[48]
    );
    drop(uploads);
    Ok(())
}

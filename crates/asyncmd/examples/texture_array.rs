//! An array of descriptors: four palette textures bound as one `binding_array` (t0–t3, one
//! table range of four SRVs), each thread picking its palette by a material id it reads from a
//! buffer, so that neighbouring threads read different textures. The result is checked against
//! the same lookup on the CPU.
//!
//! `cargo run -p asyncmd --example texture_array`

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DescriptorHeapType, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;

const SHADE: &str = r#"
enable wgpu_binding_array;
@group(0) @binding(0) var palettes: binding_array<texture_2d<f32>, 4>;  // t0–t3
@group(0) @binding(4) var<storage, read> materials: array<u32>;         // t4
@group(0) @binding(0) var<storage, read_write> shaded: array<f32>;      // u0

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&shaded) {
        return;
    }
    // Each thread its own palette: a non-uniform index into the array.
    let palette = palettes[materials[i]];
    shaded[i] = textureLoad(palette, vec2(i32(i % textureDimensions(palette).x), 0), 0).x;
}
"#;

const THREADS: u32 = 256;
const PALETTE: u32 = 16;

/// Texel `x` of palette `p`.
fn palette(p: u32, x: u32) -> f32 {
    p as f32 * 100.0 + x as f32 * 0.5
}

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let root = device.create_root_signature(&RootSignatureDesc::new(vec![
        RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 5, 0)]),
        RootParameter::uav(0),
    ]))?;
    let pipeline = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(SHADE)?),
            entry_point: "main".into(),
        }),
    }))?;

    let heap = device.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 5)?;
    // Legacy semantics: the copies, the dispatch and the copy out get their barriers from the
    // runtime, and the CPU read waits for the work.
    let mut list = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    let mut keep = Vec::new();
    for p in 0..4 {
        let texture = device.create_committed_resource(
            HeapType::Default,
            &ResourceDesc::tex2d(Format::R32Float, PALETTE, 1),
            BarrierLayout::Common,
        )?;
        let footprint = device.copyable_footprints(texture.desc(), 0, 1, 0)?;
        let upload = device.create_committed_resource(
            HeapType::Upload,
            &ResourceDesc::buffer(footprint.total_bytes),
            BarrierLayout::Undefined,
        )?;
        let texels: Vec<u8> = (0..PALETTE).flat_map(|x| palette(p, x).to_le_bytes()).collect();
        upload.write(0, &texels)?;
        list.copy_texture_region(
            &TextureCopyLocation::subresource(&texture, 0),
            0,
            0,
            0,
            &TextureCopyLocation::footprint(&upload, footprint.layouts[0]),
            None,
        );
        device.create_shader_resource_view(&texture, TextureViewDesc::texture_2d(), &heap.handle(p))?;
        keep.push((texture, upload));
    }
    // Material ids that change from one thread to the next.
    let materials: Vec<u32> = (0..THREADS).map(|i| (i * 7 + i / 5) % 4).collect();
    let ids = device.create_committed_resource(
        HeapType::Upload,
        &ResourceDesc::buffer(u64::from(THREADS) * 4),
        BarrierLayout::Undefined,
    )?;
    ids.write(0, &materials.iter().flat_map(|m| m.to_le_bytes()).collect::<Vec<u8>>())?;
    device.create_shader_resource_view(&ids, BufferViewDesc::raw(0, THREADS * 4), &heap.handle(4))?;
    let bytes = u64::from(THREADS) * 4;
    let shaded = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(bytes).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
        BarrierLayout::Undefined,
    )?;
    let readback =
        device.create_committed_resource(HeapType::Readback, &ResourceDesc::buffer(bytes), BarrierLayout::Undefined)?;

    list.set_compute_root_signature(&root);
    list.set_pipeline_state(&pipeline);
    list.set_descriptor_heaps(&[&heap]);
    if let Some(table) = heap.gpu_handle(0) {
        list.set_compute_root_descriptor_table(0, &table);
    }
    list.set_compute_root_unordered_access_view(1, shaded.gpu_address(0));
    list.dispatch(THREADS / 64, 1, 1);
    list.copy_buffer_region(&readback, 0, &shaded, 0, bytes);
    list.submit()?;

    let raw = readback.read_vec(0, bytes as usize)?;
    let got: Vec<f32> = raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    for (i, (&g, &m)) in got.iter().zip(&materials).enumerate() {
        let want = palette(m, i as u32 % PALETTE);
        assert_eq!(g, want, "thread {i} (material {m})");
    }
    println!(
        "{THREADS} threads each read their material's palette from an array of 4 textures: \
         thread 0 (material {}) = {}, thread 1 (material {}) = {}, thread 255 (material {}) = {}",
        materials[0], got[0], materials[1], got[1], materials[255], got[255]
    );
    Ok(())
}

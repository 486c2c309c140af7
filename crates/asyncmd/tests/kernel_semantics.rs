//! Legacy and fast semantics (spec 001) over the app's kernels: legacy command buffers derive
//! each dispatch's uses from its root views and descriptor tables and insert the barriers and
//! layouts they need, in primaries and in the secondaries they execute; fast buffers insert
//! nothing. Seen on a spy between the runtime and the reference device.

mod common;

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::spy::*;
use common::*;
use std::sync::Arc;

fn compute_pso(d: &Device, root: &RootSignature, wgsl: &str) -> PipelineState {
    d.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(wgsl).unwrap()),
            entry_point: "main".into(),
        }),
    }))
    .unwrap()
}

/// Legacy semantics sees the app's kernels: a dispatch that writes a buffer through a table's
/// UAV and a second that reads it through a root SRV get a barrier between them from the UAV
/// write to the shader read, on that buffer, and the second's output one before the copy out.
/// A fast buffer gets none of them.
#[test]
fn legacy_buffers_order_the_app_kernels_reads_after_their_writes() {
    let (ctx, log) = spied();
    let d = &ctx.device;
    let write = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { out[id.x] = id.x * 3u; }
"#;
    let read = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) { dst[id.x] = src[id.x] + 1u; }
"#;
    let table_root = d
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::table(vec![DescriptorRange::new(
            RegisterClass::Uav,
            1,
            0,
        )])]))
        .unwrap();
    let root_root =
        d.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::srv(0), RootParameter::uav(1)])).unwrap();
    let pso = |root: &RootSignature, src: &str| compute_pso(d, root, src);
    let (first, second) = (pso(&table_root, write), pso(&root_root, read));
    let uav = |size| {
        d.create_committed_resource(
            HeapType::Default,
            &ResourceDesc::buffer(size).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
            BarrierLayout::Undefined,
        )
        .unwrap()
    };
    let (a, b) = (uav(256), uav(256));
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    d.create_unordered_access_view(&a, BufferViewDesc::raw(0, 256), &heap.handle(0)).unwrap();
    let readback = ctx.buffer(HeapType::Readback, 256);
    for semantics in [Semantics::Legacy, Semantics::Fast] {
        log.clear();
        let mut cb = ctx.direct.create_command_buffer(semantics, Level::Primary).unwrap();
        cb.set_compute_root_signature(&table_root);
        cb.set_pipeline_state(&first);
        cb.set_descriptor_heaps(&[&heap]);
        cb.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
        cb.dispatch(1, 1, 1);
        cb.set_compute_root_signature(&root_root);
        cb.set_pipeline_state(&second);
        cb.set_compute_root_shader_resource_view(0, a.gpu_address(0));
        cb.set_compute_root_unordered_access_view(1, b.gpu_address(0));
        cb.dispatch(1, 1, 1);
        if semantics == Semantics::Fast {
            // The app's barriers, as a fast buffer needs.
            cb.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COMPUTE_SHADING,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::UNORDERED_ACCESS,
                access_after: BarrierAccess::COPY_SOURCE,
            }])]);
        }
        cb.copy_buffer_region(&readback, 0, &b, 0, 256);
        let value = cb.submit().unwrap();
        ctx.direct.wait_for(value, std::time::Duration::from_secs(10)).unwrap();
        let barriers = buffer_barriers(&log);
        let on_a: Vec<_> = barriers.iter().filter(|x| x.resource == a.id()).collect();
        if semantics == Semantics::Legacy {
            assert_eq!(on_a.len(), 1, "{on_a:?}");
            assert_eq!(
                (on_a[0].access_before, on_a[0].access_after, on_a[0].sync_before, on_a[0].sync_after),
                (
                    BarrierAccess::UNORDERED_ACCESS,
                    BarrierAccess::SHADER_RESOURCE,
                    BarrierSync::COMPUTE_SHADING,
                    BarrierSync::COMPUTE_SHADING
                ),
            );
            // b: written by the second dispatch, then copied out.
            assert!(barriers.iter().any(|x| x.resource == b.id() && x.access_after == BarrierAccess::COPY_SOURCE));
            let words: Vec<u32> = readback
                .read_vec(0, 256)
                .unwrap()
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            assert_eq!(words, (0..64).map(|i| i * 3 + 1).collect::<Vec<u32>>());
        } else {
            assert!(on_a.is_empty(), "a fast buffer inserts nothing: {on_a:?}");
        }
    }
}

/// A legacy secondary buffer whose dispatch writes a texture through a table's UAV: the
/// primary that executes it moves the texture to the copy's layout with a texture barrier
/// (never a buffer barrier naming it) before it copies the texels out.
#[test]
fn a_texture_a_legacy_secondary_writes_through_a_table_is_ready_for_its_primarys_copy() {
    let (ctx, log) = spied();
    let d = &ctx.device;
    let root = d
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::table(vec![DescriptorRange::new(
            RegisterClass::Uav,
            1,
            0,
        )])]))
        .unwrap();
    let pso = compute_pso(
        d,
        &root,
        r#"
@group(0) @binding(0) var dst: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(4, 4) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    textureStore(dst, id.xy, vec4<u32>(id.x + 10u * id.y));
}
"#,
    );
    let desc = ResourceDesc::tex2d(Format::R32Uint, 4, 4).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
    let tex = ctx.texture(&desc, BarrierLayout::Common);
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    d.create_unordered_access_view(&tex, TextureViewDesc::texture_2d(), &heap.handle(0)).unwrap();
    let mut secondary = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Secondary).unwrap();
    secondary.set_compute_root_signature(&root);
    secondary.set_pipeline_state(&pso);
    secondary.set_descriptor_heaps(&[&heap]);
    secondary.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
    secondary.dispatch(1, 1, 1);
    log.clear();
    let mut primary = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
    primary.set_descriptor_heaps(&[&heap]);
    primary.execute(&mut secondary).unwrap();
    let fp = d.copyable_footprints(tex.desc(), 0, 1, 0).unwrap();
    let rb = ctx.buffer(HeapType::Readback, fp.total_bytes);
    let at = TextureCopyLocation::footprint(&rb, fp.layouts[0]);
    primary.copy_texture_region(&at, 0, 0, 0, &TextureCopyLocation::subresource(&tex, 0), None);
    let value = primary.submit().unwrap();
    ctx.direct.wait_for(value, TIMEOUT).unwrap();
    assert!(buffer_barriers(&log).iter().all(|b| b.resource != tex.id()), "{:?}", buffer_barriers(&log));
    let to_copy = texture_barriers(&log)
        .into_iter()
        .filter(|b| b.resource == tex.id() && b.layout_after == BarrierLayout::CopySource)
        .count();
    assert_eq!(to_copy, 1, "{:?}", texture_barriers(&log));
    let pitch = fp.layouts[0].footprint.row_pitch as usize;
    let bytes = rb.read_vec(0, fp.total_bytes as usize).unwrap();
    for y in 0..4 {
        for x in 0..4 {
            let at = y * pitch + 4 * x;
            let texel = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            assert_eq!(texel, (x + 10 * y) as u32, "texel ({x}, {y})");
        }
    }
}

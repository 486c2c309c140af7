//! Kernels reading a depth texture through its R32_FLOAT shader resource view: loads, plain
//! samples, and comparisons (`textureSampleCompareLevel`, HLSL's `SampleCmpLevelZero`), whose
//! texels each become 1 where `reference <func> texel` holds and 0 where it fails before the
//! filter blends them, and comparison gathers (`textureGatherCompare`, HLSL's `GatherCmp`), which
//! give the four texels' comparisons unfiltered.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::kernels::*;
use common::{assert_error, Ctx};
use std::sync::Arc;

const DEPTH: &str = r#"
@group(0) @binding(0) var depth: texture_depth_2d;              // t0
@group(0) @binding(0) var s_le: sampler_comparison;             // s0: point, LESS_EQUAL
@group(0) @binding(1) var s_gt: sampler_comparison;             // s1: linear, GREATER
@group(0) @binding(2) var s_plain: sampler;                     // s2: point
@group(0) @binding(0) var<storage, read_write> out: array<f32>; // u0

@compute @workgroup_size(1)
fn main() {
    // (0.375, 0.375) is inside texel (1, 1).
    let p = vec2(0.375, 0.375);
    out[0] = textureSampleCompareLevel(depth, s_le, p, 0.3);
    out[1] = textureSampleCompareLevel(depth, s_le, p, 0.35);
    // (0.5, 0.5) blends texels 1–2 on each axis, a quarter each.
    out[2] = textureSampleCompareLevel(depth, s_gt, vec2(0.5, 0.5), 0.5);
    out[3] = textureSampleLevel(depth, s_plain, p, 0);
    out[4] = textureLoad(depth, vec2(2, 3), 0);
}
"#;

/// Texel (x, y)'s depth.
fn depth(x: u32, y: u32) -> f32 {
    (x + 4 * y) as f32 / 16.0
}

fn root(d: &Device, comparison: bool) -> RootSignature {
    let point = Filter { reduction: FilterReduction::Comparison, ..Default::default() };
    let linear = Filter { min: FilterType::Linear, mag: FilterType::Linear, ..point };
    let static_sampler = |filter, comparison, register| StaticSampler {
        desc: SamplerDesc { filter, comparison, ..Default::default() },
        border: StaticBorderColor::OpaqueBlack,
        shader_register: register,
        register_space: 0,
        visibility: ShaderVisibility::All,
    };
    let mut desc = RootSignatureDesc::new(vec![
        RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
        RootParameter::uav(0),
    ]);
    let first = if comparison { point } else { Filter::default() };
    desc.static_samplers = vec![
        static_sampler(first, ComparisonFunc::LessEqual, 0),
        static_sampler(linear, ComparisonFunc::Greater, 1),
        static_sampler(Filter::default(), ComparisonFunc::Never, 2),
    ];
    d.create_root_signature(&desc).unwrap()
}

#[test]
fn a_depth_texture_is_loaded_sampled_and_compared() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let t = ctx.texture(
            &ResourceDesc::tex2d(Format::D32Float, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
            BarrierLayout::Common,
        );
        ctx.upload_subresource(&t, 0, &(0..16).flat_map(|i| depth(i % 4, i / 4).to_le_bytes()).collect::<Vec<u8>>());
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&t, TextureViewDesc::texture_2d().format(Format::R32Float), &heap.handle(0))
            .unwrap();
        let root = root(d, true);
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(DEPTH).unwrap()), "main").unwrap();
        let out = uav_buffer(&ctx, &[0; 5 * 4]);
        ctx.run(CommandListType::Direct, |l| {
            bind_table_and_uav(l, &root, &pso, &heap, &out);
            l.dispatch(1, 1, 1);
        });
        let got = f32s(&ctx.read_buffer(&out));
        let texel = depth(1, 1);
        assert_eq!(got[0], f32::from(u8::from(0.3 <= texel)), "{name}: 0.3 <= {texel}");
        assert_eq!(got[1], f32::from(u8::from(0.35 <= texel)), "{name}: 0.35 <= {texel}");
        // 0.5 > texel for (1, 1) and (2, 1), not for (1, 2) and (2, 2).
        let passed = [(1, 1), (2, 1), (1, 2), (2, 2)].iter().filter(|&&(x, y)| 0.5 > depth(x, y)).count();
        assert_eq!(got[2], passed as f32 / 4.0, "{name}: the linear comparison's share");
        assert_eq!(got[3], texel, "{name}: a plain sample");
        assert_eq!(got[4], depth(2, 3), "{name}: a load");
    }
}

const GATHER: &str = r#"
@group(0) @binding(0) var depth: texture_depth_2d;              // t0
@group(0) @binding(0) var s_le: sampler_comparison;             // s0: point, LESS_EQUAL
@group(0) @binding(1) var s_gt: sampler_comparison;             // s1: linear, GREATER
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>; // u0

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) t: u32) {
    // (0.5, 0.5) is the corner of texels 1–2 on each axis; thread 1 compares with another value.
    out[t] = textureGatherCompare(depth, s_le, vec2(0.5, 0.5), 0.4 + 0.2 * f32(t));
    // The same corner moved by (-1, 1): texels 0–1 across, 2–3 down. The linear filter does
    // not apply to a gather.
    out[2u + t] = textureGatherCompare(depth, s_gt, vec2(0.5, 0.5), 0.75 - 0.2 * f32(t), vec2(-1, 1));
}
"#;

/// The comparisons D3D's `GatherCmp` returns for the 2 × 2 texels whose top-left is `(x, y)`,
/// in its order: (x, y + 1), (x + 1, y + 1), (x + 1, y), (x, y).
fn gathered(x: u32, y: u32, passes: impl Fn(f32) -> bool) -> [f32; 4] {
    [(x, y + 1), (x + 1, y + 1), (x + 1, y), (x, y)].map(|(x, y)| f32::from(u8::from(passes(depth(x, y)))))
}

#[test]
fn a_comparison_gather_compares_each_of_the_four_texels() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let t = ctx.texture(
            &ResourceDesc::tex2d(Format::D32Float, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
            BarrierLayout::Common,
        );
        ctx.upload_subresource(&t, 0, &(0..16).flat_map(|i| depth(i % 4, i / 4).to_le_bytes()).collect::<Vec<u8>>());
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&t, TextureViewDesc::texture_2d().format(Format::R32Float), &heap.handle(0))
            .unwrap();
        let root = root(d, true);
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(GATHER).unwrap()), "main").unwrap();
        // NaN where nothing was written.
        let out = uav_buffer(&ctx, &[0xff; 4 * 16]);
        ctx.run(CommandListType::Direct, |l| {
            bind_table_and_uav(l, &root, &pso, &heap, &out);
            l.dispatch(1, 1, 1);
        });
        let got = f32s(&ctx.read_buffer(&out));
        let rows: Vec<&[f32]> = got.chunks(4).collect();
        for (i, r) in [0.4f32, 0.6].into_iter().enumerate() {
            assert_eq!(rows[i], gathered(1, 1, |texel| r <= texel), "{name}: {r} <= each texel");
        }
        for (i, r) in [0.75f32, 0.55].into_iter().enumerate() {
            assert_eq!(rows[2 + i], gathered(0, 2, |texel| r > texel), "{name}: {r} > each texel, moved");
        }
    }
}

#[test]
fn a_comparison_read_through_a_plain_sampler_is_refused() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(DEPTH).unwrap());
    // A static sampler without a comparison filter at s0, where the kernel compares.
    let e = pipeline(d, &root(d, false), &module, "main").map(drop).unwrap_err();
    assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid), "{e:?}");
    assert!(e.text.contains("comparison sampler"), "{}", e.text);
    // The same through a sampler table.
    const TABLE: &str = r#"
@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(0) var s: sampler_comparison;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureSampleCompareLevel(depth, s, vec2(0.5, 0.5), 0.5);
}
"#;
    let root = d
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Sampler, 1, 0)]),
            RootParameter::uav(0),
        ]))
        .unwrap();
    let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(TABLE).unwrap()), "main").unwrap();
    let t = ctx.texture(
        &ResourceDesc::tex2d(Format::D32Float, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
        BarrierLayout::Common,
    );
    let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    d.create_shader_resource_view(&t, TextureViewDesc::texture_2d().format(Format::R32Float), &views.handle(0))
        .unwrap();
    let samplers = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 1).unwrap();
    d.create_sampler(&SamplerDesc::default(), &samplers.handle(0)).unwrap();
    let out = uav_buffer(&ctx, &[0; 4]);
    let e = assert_error(
        ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&views, &samplers]);
            l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
            l.set_compute_root_descriptor_table(1, &samplers.gpu_handle(0).unwrap());
            l.set_compute_root_unordered_access_view(2, out.gpu_address(0));
            l.dispatch(1, 1, 1);
        }),
        ErrorCode::InvalidArg,
        MessageId::DrawInvalid,
    );
    assert!(e.text.contains("comparison sampler through a sampler without"), "{}", e.text);
}

const LOAD: &str = r#"
@group(0) @binding(0) var depth: texture_2d<f32>;               // t0
@group(0) @binding(0) var<storage, read_write> out: array<f32>; // u0

@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) t: u32) {
    out[t] = textureLoad(depth, vec2(t % 4u, t / 4u), 0).x;
}
"#;

/// D3D12's way to give one texture a depth view and a shader resource view: an
/// `R32_TYPELESS` texture with `ALLOW_DEPTH_STENCIL`, written through a `D32_FLOAT` view and
/// read through an `R32_FLOAT` one (and copied out as its 32-bit floats).
#[test]
fn a_typeless_depth_texture_is_cleared_through_its_depth_view_and_read_through_a_float_view() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let desc = ResourceDesc::tex2d(Format::R32Typeless, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL);
        let t = ctx.texture(&desc, BarrierLayout::DepthStencilWrite);
        let dsvs = d.create_descriptor_heap(DescriptorHeapType::Dsv, 1).unwrap();
        let dsv = DepthStencilViewDesc { format: Format::D32Float, ..DepthStencilViewDesc::default_for(&desc) };
        d.create_depth_stencil_view(&t, Some(&dsv), &dsvs.handle(0)).unwrap();
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&t, TextureViewDesc::texture_2d().format(Format::R32Float), &heap.handle(0))
            .unwrap();
        let root = srv_table_and_uav_root(d, 1);
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(LOAD).unwrap()), "main").unwrap();
        let out = uav_buffer(&ctx, &[0; 16 * 4]);
        // A colour texture of the family, copied into whole (D3D12 copies depth textures whole).
        let copy = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 4, 4), BarrierLayout::CopyDest);
        ctx.run(CommandListType::Direct, |l| {
            l.clear_depth_stencil_view(&dsvs.handle(0), ClearFlags::DEPTH, 0.75, 0, &[]);
            l.clear_depth_stencil_view(&dsvs.handle(0), ClearFlags::DEPTH, 0.25, 0, &[Rect::new(2, 2, 4, 4)]);
            common::barrier(l, &t, BarrierLayout::DepthStencilWrite, BarrierLayout::ShaderResource);
            bind_table_and_uav(l, &root, &pso, &heap, &out);
            l.dispatch(1, 1, 1);
            common::barrier(l, &t, BarrierLayout::ShaderResource, BarrierLayout::CopySource);
            l.copy_resource(&copy, &t);
            common::barrier(l, &copy, BarrierLayout::CopyDest, BarrierLayout::CopySource);
        });
        let want: Vec<f32> = (0..16).map(|i| if i % 4 >= 2 && i / 4 >= 2 { 0.25 } else { 0.75 }).collect();
        assert_eq!(f32s(&ctx.read_buffer(&out)), want, "{name}: the kernel's loads");
        assert_eq!(f32s(&ctx.read_subresource(&t, 0)), want, "{name}: the texture's bytes");
        assert_eq!(f32s(&ctx.read_subresource(&copy, 0)), want, "{name}: the R32_FLOAT copy");
    }
}

/// A depth texture's shader resource views read its depth (or stencil) plane as D3D12's
/// reading formats; another member of the family (`R32_UINT` of `R32_TYPELESS`) is refused on
/// every device, as Vulkan views depth only in its depth format. Without the depth flag the
/// same texture takes any member.
#[test]
fn a_depth_texture_refuses_views_that_do_not_read_its_depth() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        let depth = ctx.texture(
            &ResourceDesc::tex2d(Format::R32Typeless, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
            BarrierLayout::Common,
        );
        let view = |f| TextureViewDesc::texture_2d().format(f);
        for f in [Format::R32Uint, Format::R32Sint] {
            let e = assert_error(
                d.create_shader_resource_view(&depth, view(f), &heap.handle(0)),
                ErrorCode::Unsupported,
                MessageId::DeviceUnsupported,
            );
            assert!(e.text.contains("views of depth textures"), "{name}: {}", e.text);
        }
        d.create_shader_resource_view(&depth, view(Format::R32Float), &heap.handle(0)).unwrap();
        let colour = ctx.texture(&ResourceDesc::tex2d(Format::R32Typeless, 4, 4), BarrierLayout::Common);
        d.create_shader_resource_view(&colour, view(Format::R32Uint), &heap.handle(0)).unwrap();
    }
}

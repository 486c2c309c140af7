//! Textures in the app's kernels: SRV and UAV views of mips and slices in descriptor tables,
//! `textureLoad`, `textureStore` and the size queries, out-of-bounds texels, format
//! conversions, and the errors of views and tables that do not fit.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::kernels::*;
use common::*;
use std::sync::Arc;

/// A table of one SRV (t0) then one UAV (u0).
fn srv_uav_root(device: &Device) -> RootSignature {
    device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::table(vec![
            DescriptorRange::new(RegisterClass::Srv, 1, 0),
            DescriptorRange::new(RegisterClass::Uav, 1, 0),
        ])]))
        .unwrap()
}

/// Runs `entry` of `wgsl` over `groups` with the table of `srv` and `uav` views.
fn run_table(
    ctx: &Ctx,
    wgsl: &str,
    groups: [u32; 3],
    (src, srv): (&Resource, TextureViewDesc),
    (dst, uav): (&Resource, TextureViewDesc),
) {
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
    let root = srv_uav_root(d);
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 2).unwrap();
    d.create_shader_resource_view(src, srv, &heap.handle(0)).unwrap();
    d.create_unordered_access_view(dst, uav, &heap.handle(1)).unwrap();
    ctx.run(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        l.set_descriptor_heaps(&[&heap]);
        l.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
        l.dispatch(groups[0], groups[1], groups[2]);
    });
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

const INTEGER_TEXELS: &str = r#"
@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(0) var dst: texture_storage_2d<rgba32uint, write>;

fn pack(v: vec4<u32>) -> u32 {
    return v.r | (v.g << 8u) | (v.b << 16u) | (v.a << 24u);
}

@compute @workgroup_size(8, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = vec2<i32>(id.xy);
    let a = textureLoad(src, p, 0);
    let b = textureLoad(src, p / 2, 1);
    // Past the right edge from x = 2 on, and a mip the view does not have: zeros.
    let c = textureLoad(src, p + vec2<i32>(6, 0), 0);
    let e = textureLoad(src, p, 2);
    let dims = textureDimensions(src, 1);
    let info = dims.x + dims.y * 100u + textureNumLevels(src) * 10000u + pack(e);
    textureStore(dst, p, vec4<u32>(pack(a), pack(b), pack(c), info));
    // Past the right edge: dropped, never wrapped onto the next row.
    textureStore(dst, p + vec2<i32>(8, 0), vec4<u32>(0xdeadu));
}
"#;

#[test]
fn a_kernel_loads_and_stores_integer_texels_through_views_of_mips() {
    for (name, ctx) in kernel_contexts() {
        let src_desc = ResourceDesc::tex2d(Format::R8G8B8A8Uint, 8, 4).with_mips(2);
        let src = ctx.texture(&src_desc, BarrierLayout::Common);
        let mip0 = pattern(8 * 4 * 4, 3);
        let mip1 = pattern(4 * 2 * 4, 9);
        ctx.upload_subresource(&src, 0, &mip0);
        ctx.upload_subresource(&src, 1, &mip1);
        let dst_desc =
            ResourceDesc::tex2d(Format::R32G32B32A32Uint, 8, 4).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let dst = ctx.texture(&dst_desc, BarrierLayout::Common);
        run_table(
            &ctx,
            INTEGER_TEXELS,
            [1, 1, 1],
            (&src, TextureViewDesc::texture_2d()),
            (&dst, TextureViewDesc::texture_2d()),
        );
        let out = u32s(&ctx.read_subresource(&dst, 0));
        let texel = |data: &[u8], w: usize, x: usize, y: usize| {
            u32::from_le_bytes(data[(y * w + x) * 4..(y * w + x) * 4 + 4].try_into().unwrap())
        };
        for y in 0..4 {
            for x in 0..8 {
                let got = &out[(y * 8 + x) * 4..(y * 8 + x) * 4 + 4];
                let c = if x + 6 < 8 { texel(&mip0, 8, x + 6, y) } else { 0 };
                // Mip 1 is 4×2; the view has 2 mips; mip 2 is past it and reads 0.
                let info = 4 + 2 * 100 + 2 * 10000;
                let want = [texel(&mip0, 8, x, y), texel(&mip1, 4, x / 2, y / 2), c, info];
                assert_eq!(got, want, "{name}: texel ({x}, {y})");
            }
        }
    }
}

const ARRAY_SLICES: &str = r#"
@group(0) @binding(0) var src: texture_2d_array<f32>;
@group(0) @binding(0) var dst: texture_storage_2d_array<r32float, write>;

@compute @workgroup_size(4, 4, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let layers = textureNumLayers(src);
    // Slice `layers` is past the view: zeros.
    for (var s = 0u; s <= layers; s++) {
        let v = textureLoad(src, id.xy, s, 0);
        textureStore(dst, id.xy, s, vec4<f32>(v.r * 2.0 + v.g + f32(layers), 0.0, 0.0, 0.0));
    }
}
"#;

#[test]
fn array_views_select_their_slices() {
    for (name, ctx) in kernel_contexts() {
        // Slices 1 and 2 of a 4-slice R32G32 float array are read; slices 2 and 3 of a 3-slice
        // R32 float array written (its view's slice 0 is the texture's 2... as far as it goes).
        let src = ctx.texture(&ResourceDesc::tex2d(Format::R32G32Float, 4, 4).with_array(4), BarrierLayout::Common);
        let texels = |slice: u32| -> Vec<f32> { (0..32).map(|i| (slice * 100 + i) as f32 * 0.5).collect() };
        for s in 0..4 {
            ctx.upload_subresource(&src, s, &bytes_of(&texels(s)));
        }
        let dst_desc =
            ResourceDesc::tex2d(Format::R32Float, 4, 4).with_array(4).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let dst = ctx.texture(&dst_desc, BarrierLayout::Common);
        let array = TextureViewDesc::new(TextureViewDimension::Texture2DArray);
        run_table(&ctx, ARRAY_SLICES, [1, 1, 1], (&src, array.slices(1, 2)), (&dst, array.slices(1, 3)));
        for s in 0..4u32 {
            let out = f32s(&ctx.read_subresource(&dst, s));
            for i in 0..16usize {
                // Destination slice s is the view's slice s - 1: written from source view slice
                // s - 1 (texture slice s) when that is one of the view's 2, else from zeros.
                let want = match s {
                    0 => 0.0,
                    1 | 2 => {
                        let t = texels(s);
                        t[2 * i] * 2.0 + t[2 * i + 1] + 2.0
                    }
                    _ => 2.0,
                };
                assert_eq!(out[i], want, "{name}: slice {s} texel {i}");
            }
        }
    }
}

const FLOAT_TEXELS: &str = r#"
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(0) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = textureLoad(src, vec2<u32>(id.x, 0u), 0);
    textureStore(dst, vec2<u32>(id.x, 0u), v);
}
"#;

#[test]
fn texels_convert_to_and_from_their_formats_by_d3ds_rules() {
    for (name, ctx) in kernel_contexts() {
        // A float texture of values a UNORM store converts by clamping to [0, 1] and rounding
        // to the nearest of the 255 steps. No value is halfway between two steps: how a tie
        // rounds is the implementation's (the H200 stores 0.5 as 127, the reference device as
        // 128, both within D3D's and Vulkan's tolerance of 0.6 steps).
        let values: [f32; 16] =
            [0.0, 1.0, -1.0, 2.0, 0.25, 0.75, 0.2, 0.8, 1e-9, 0.999, 0.502, 0.003, -0.0, 3.0, 0.6, 0.4];
        let src = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 16, 1), BarrierLayout::Common);
        ctx.upload_subresource(&src, 0, &bytes_of(&values));
        let dst_desc =
            ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 1).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let dst = ctx.texture(&dst_desc, BarrierLayout::Common);
        run_table(
            &ctx,
            FLOAT_TEXELS,
            [1, 1, 1],
            (&src, TextureViewDesc::texture_2d()),
            (&dst, TextureViewDesc::texture_2d()),
        );
        let out = ctx.read_subresource(&dst, 0);
        for (i, v) in values.iter().enumerate() {
            // R32 reads (v, 0, 0, 1): green and blue 0, alpha 1 (D3D's defaults).
            let r = (f64::from(v.clamp(0.0, 1.0)) * 255.0).round() as u8;
            assert_eq!(&out[i * 4..i * 4 + 4], &[r, 0, 0, 255], "{name}: value {v}");
        }
    }
}

#[test]
fn views_and_tables_of_textures_refuse_what_does_not_fit() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Typeless, 8, 8).with_mips(2), BarrierLayout::Common);
    let invalid = |r: Result<()>, text: &str| {
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreateViewInvalidDesc);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    let unorm = TextureViewDesc::texture_2d().format(Format::R8G8B8A8Unorm);
    invalid(d.create_shader_resource_view(&tex, TextureViewDesc::texture_2d(), &heap.handle(0)), "typeless");
    invalid(d.create_shader_resource_view(&tex, unorm.format(Format::R32Float), &heap.handle(0)), "family");
    invalid(d.create_shader_resource_view(&tex, unorm.mips(2, 1), &heap.handle(0)), "past the texture's 2 mips");
    invalid(d.create_unordered_access_view(&tex, unorm, &heap.handle(0)), "ALLOW_UNORDERED_ACCESS");
    invalid(
        d.create_shader_resource_view(&tex, TextureViewDesc::new(TextureViewDimension::Texture3D), &heap.handle(0)),
        "Texture3D view of a Texture2D",
    );
    let buffer = ctx.default_buffer(&[0; 64]);
    invalid(d.create_shader_resource_view(&buffer, unorm, &heap.handle(0)), "texture view of a buffer");
    let bc = ctx.texture(&ResourceDesc::tex2d(Format::Bc1Unorm, 8, 8), BarrierLayout::Common);
    let e = assert_error(
        d.create_shader_resource_view(&bc, TextureViewDesc::texture_2d(), &heap.handle(0)),
        ErrorCode::Unsupported,
        MessageId::DeviceUnsupported,
    );
    assert!(e.text.contains("Bc1Unorm"), "{}", e.text);

    // Tables whose views the kernel cannot read: D3D12 leaves them undefined.
    let root = srv_uav_root(d);
    let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(INTEGER_TEXELS).unwrap()), "main").unwrap();
    let uint = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Uint, 8, 4).with_mips(2), BarrierLayout::Common);
    let uav_desc =
        ResourceDesc::tex2d(Format::R32G32B32A32Typeless, 8, 4).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
    let out = ctx.texture(&uav_desc, BarrierLayout::Common);
    let rgba32 = |f| TextureViewDesc::texture_2d().format(f);
    let dispatch = |srv: &dyn Fn(&CpuDescriptorHandle), uav: &dyn Fn(&CpuDescriptorHandle)| {
        srv(&heap.handle(0));
        uav(&heap.handle(1));
        ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
            l.dispatch(1, 1, 1);
        })
    };
    let undefined = |r: Result<()>, text: &str| {
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    let good_srv =
        |h: &CpuDescriptorHandle| d.create_shader_resource_view(&uint, TextureViewDesc::texture_2d(), h).unwrap();
    let good_uav =
        |h: &CpuDescriptorHandle| d.create_unordered_access_view(&out, rgba32(Format::R32G32B32A32Uint), h).unwrap();
    assert!(dispatch(&good_srv, &good_uav).is_ok());
    undefined(
        dispatch(&good_srv, &|h| d.create_unordered_access_view(&out, rgba32(Format::R32G32B32A32Float), h).unwrap()),
        "reads Uint texels from a R32G32B32A32Float view",
    );
    let half_desc =
        ResourceDesc::tex2d(Format::R16G16B16A16Uint, 8, 4).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
    let half = ctx.texture(&half_desc, BarrierLayout::Common);
    undefined(
        dispatch(&good_srv, &|h| d.create_unordered_access_view(&half, TextureViewDesc::texture_2d(), h).unwrap()),
        "declares R32G32B32A32Uint but the view is R16G16B16A16Uint",
    );
    undefined(
        dispatch(&|h| d.create_shader_resource_view(&tex, unorm, h).unwrap(), &good_uav),
        "reads Uint texels from a R8G8B8A8Unorm view",
    );
    let array = TextureViewDesc::new(TextureViewDimension::Texture2DArray);
    undefined(
        dispatch(&|h| d.create_shader_resource_view(&uint, array, h).unwrap(), &good_uav),
        "2D texture through a Texture2DArray view",
    );
    undefined(
        dispatch(&|h| d.create_shader_resource_view(&buffer, BufferViewDesc::raw(0, 64), h).unwrap(), &good_uav),
        "buffer view where the shader reads a texture",
    );
}

const SAMPLING: &str = r#"
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(0) var s_point_clamp: sampler;   // static
@group(0) @binding(1) var s_linear_wrap: sampler;   // static
@group(0) @binding(2) var s_table: sampler;         // a sampler table
@group(0) @binding(1) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = points[id.x];
    var r = vec4<f32>(-1.0);
    if p.w == 0.0 {
        r = textureSampleLevel(t, s_point_clamp, p.xy, p.z);
    } else if p.w == 1.0 {
        r = textureSampleLevel(t, s_linear_wrap, p.xy, p.z);
    } else {
        r = textureSampleLevel(t, s_table, p.xy, p.z);
    }
    out[id.x] = r;
}
"#;

#[test]
fn sampling_filters_addresses_and_picks_mips_by_d3ds_rules() {
    // Mip 0 is 4×4, mip 1 2×2; red and green vary by texel, blue 0, alpha 255.
    let red0 = |x: usize, y: usize| (10 * x + 60 * y + 5) as u8;
    let red1 = |x: usize, y: usize| (7 + 100 * x + 40 * y) as u8;
    let texels = |red: &dyn Fn(usize, usize) -> u8, side: usize| -> Vec<u8> {
        (0..side * side).flat_map(|i| [red(i % side, i / side), 255 - red(i % side, i / side), 0, 255]).collect()
    };
    let unorm = |r: u8| [f32::from(r) / 255.0, f32::from(255 - r) / 255.0, 0.0, 1.0];
    let t0 = |x, y| unorm(red0(x, y));
    let t1 = |x, y| unorm(red1(x, y));
    let mix =
        |parts: &[([f32; 4], f32)]| -> [f32; 4] { std::array::from_fn(|c| parts.iter().map(|(t, w)| t[c] * w).sum()) };
    // (u, v, level, sampler) and the value D3D's rules give (weights of 0, ¼, ½, ¾ or 1 only,
    // which 8 bits of filter precision hold exactly).
    let cases: Vec<([f32; 4], [f32; 4])> = vec![
        // Point, clamp: the texel holding the coordinate; outside, the edge's.
        ([0.6, 0.1, 0.0, 0.0], t0(2, 0)),
        ([-0.3, 1.3, 0.0, 0.0], t0(0, 3)),
        // Level 1: mip 1's texel; level 0.4: the nearest mip, 0.
        ([0.6, 0.1, 1.0, 0.0], t1(1, 0)),
        ([0.6, 0.1, 0.4, 0.0], t0(2, 0)),
        // Linear, wrap: halfway between texel centres in u, on a centre row in v.
        ([0.25, 0.125, 0.0, 1.0], mix(&[(t0(0, 0), 0.5), (t0(1, 0), 0.5)])),
        ([0.5, 0.5, 0.0, 1.0], mix(&[(t0(1, 1), 0.25), (t0(2, 1), 0.25), (t0(1, 2), 0.25), (t0(2, 2), 0.25)])),
        // Left of the first centre: blends with the last column (wrap).
        ([0.0, 0.125, 0.0, 1.0], mix(&[(t0(3, 0), 0.5), (t0(0, 0), 0.5)])),
        // Level 0.5, linear mips: half mip 0's centre texel, half mip 1's wrapped bilinear.
        (
            [0.125, 0.125, 0.5, 1.0],
            mix(&[
                (t0(0, 0), 0.5),
                (t1(1, 1), 0.5 * 0.0625),
                (t1(0, 1), 0.5 * 0.1875),
                (t1(1, 0), 0.5 * 0.1875),
                (t1(0, 0), 0.5 * 0.5625),
            ]),
        ),
        // The table's sampler: point; u mirrors (texel 4 is texel 3), v reads the border.
        ([1.125, 0.1, 0.0, 2.0], t0(3, 0)),
        ([0.1, 1.3, 0.0, 2.0], [0.0, 0.0, 0.0, 1.0]),
    ];
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4).with_mips(2), BarrierLayout::Common);
        ctx.upload_subresource(&tex, 0, &texels(&red0, 4));
        ctx.upload_subresource(&tex, 1, &texels(&red1, 2));
        let point = SamplerDesc::default();
        let linear = SamplerDesc {
            filter: Filter {
                min: FilterType::Linear,
                mag: FilterType::Linear,
                mip: FilterType::Linear,
                ..Default::default()
            },
            address: [AddressMode::Wrap; 3],
            ..Default::default()
        };
        let static_sampler = |desc, register| StaticSampler {
            desc,
            border: StaticBorderColor::OpaqueWhite,
            shader_register: register,
            register_space: 0,
            visibility: ShaderVisibility::All,
        };
        let mut desc = RootSignatureDesc::new(vec![
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Sampler, 1, 2)]),
            RootParameter::srv(1),
            RootParameter::uav(0),
        ]);
        desc.static_samplers = vec![static_sampler(point, 0), static_sampler(linear, 1)];
        let root = d.create_root_signature(&desc).unwrap();
        let m = ShaderModule::from_wgsl(SAMPLING).unwrap();
        let pso = pipeline(d, &root, &Arc::new(m), "main").unwrap();
        let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&tex, TextureViewDesc::texture_2d(), &views.handle(0)).unwrap();
        let samplers = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 1).unwrap();
        let table_sampler = SamplerDesc {
            address: [AddressMode::Mirror, AddressMode::Border, AddressMode::Clamp],
            border_color: [0.0, 0.0, 0.0, 1.0],
            ..Default::default()
        };
        d.create_sampler(&table_sampler, &samplers.handle(0)).unwrap();
        let mut points: Vec<f32> = cases.iter().flat_map(|(p, _)| *p).collect();
        points.resize(16 * 4, 0.0);
        let input = ctx.default_buffer(&bytes_of(&points));
        let out = uav_buffer(&ctx, &[0; 16 * 16]);
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&views, &samplers]);
            l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
            l.set_compute_root_descriptor_table(1, &samplers.gpu_handle(0).unwrap());
            l.set_compute_root_shader_resource_view(2, input.gpu_address(0));
            l.set_compute_root_unordered_access_view(3, out.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        let got = f32s(&ctx.read_buffer(&out));
        for (i, (p, want)) in cases.iter().enumerate() {
            // A point sample is a texel: exact but for the UNORM-to-float conversion's last bit.
            // A blend may be filtered at the format's precision (D3D11.3 §7.18.16 asks 8 bits
            // of weight; lavapipe blends RGBA8 in 8-bit fixed point and rounds each blend to a
            // step): one step of 1/255.
            let tolerance = if p[3] == 1.0 { 1.0 / 255.0 + 1e-5 } else { 1e-5 };
            for c in 0..4 {
                let v = got[i * 4 + c];
                assert!((v - want[c]).abs() <= tolerance, "{name}: sample {p:?} channel {c}: {v}, want {}", want[c]);
            }
        }
    }
}

#[test]
fn a_bundle_dispatches_through_its_table_in_every_list_that_executes_it() {
    // The bundle sets the heaps (the ones the executing lists set: D3D12 asks them to match),
    // the root signature, pipeline and table its kernel reads.
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let src = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Uint, 8, 4).with_mips(2), BarrierLayout::Common);
        let mip0 = pattern(8 * 4 * 4, 5);
        ctx.upload_subresource(&src, 0, &mip0);
        ctx.upload_subresource(&src, 1, &pattern(4 * 2 * 4, 6));
        let dst_desc =
            ResourceDesc::tex2d(Format::R32G32B32A32Uint, 8, 4).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let root = srv_uav_root(d);
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(INTEGER_TEXELS).unwrap()), "main").unwrap();
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
        d.create_shader_resource_view(&src, TextureViewDesc::texture_2d(), &heap.handle(0)).unwrap();
        let mut bundle = ctx.list(CommandListType::Bundle);
        bundle.set_descriptor_heaps(&[&heap]);
        bundle.set_compute_root_signature(&root);
        bundle.set_pipeline_state(&pso);
        bundle.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
        // Recorded before the UAV descriptor is written: the bundle reads it when it is recorded.
        bundle.dispatch(1, 1, 1);
        assert!(bundle.close().is_err(), "{name}: a table with an empty descriptor");
        let targets: Vec<Resource> = (0..2).map(|_| ctx.texture(&dst_desc, BarrierLayout::Common)).collect();
        for (i, dst) in targets.iter().enumerate() {
            d.create_unordered_access_view(dst, TextureViewDesc::texture_2d(), &heap.handle(1)).unwrap();
            let mut bundle = ctx.list(CommandListType::Bundle);
            bundle.set_descriptor_heaps(&[&heap]);
            bundle.set_compute_root_signature(&root);
            bundle.set_pipeline_state(&pso);
            bundle.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
            bundle.dispatch(1, 1, 1);
            bundle.close().unwrap();
            // Rewritten after the bundle was recorded: the bundle keeps the view it read.
            d.create_unordered_access_view(&targets[1 - i], TextureViewDesc::texture_2d(), &heap.handle(1)).unwrap();
            for _ in 0..2 {
                ctx.run(CommandListType::Direct, |l| {
                    l.set_descriptor_heaps(&[&heap]);
                    l.execute_bundle(&bundle);
                });
            }
        }
        for dst in &targets {
            let out = u32s(&ctx.read_subresource(dst, 0));
            let first = u32::from_le_bytes(mip0[0..4].try_into().unwrap());
            assert_eq!(out[0], first, "{name}: texel (0, 0) of each target");
        }
    }
}

const EVERY_TEXEL: &str = r#"
@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

// Thread (x, y, m) reads texel (x - 2, y - 2) of mip m - 1, signed and unsigned, and of mip 1.
@compute @workgroup_size(12, 8, 4)
fn main(@builtin(local_invocation_id) id: vec3<u32>) {
    let p = vec2<i32>(id.xy) - 2;
    let m = i32(id.z) - 1;
    let i = (id.z * 8u + id.y) * 12u + id.x;
    out[3u * i] = textureLoad(src, p, m).x;
    out[3u * i + 1u] = textureLoad(src, vec2<u32>(p), u32(m)).x;
    // Mip 1 for every lane: one mip, each lane its own texel.
    out[3u * i + 2u] = textureLoad(src, p, 1).x;
}
"#;

#[test]
fn every_texel_and_every_place_past_them_reads_the_same_on_every_device() {
    // Mip 0 is 8×4, mip 1 4×2: coordinates from -2 and mips from -1 reach past both ways.
    let mut outputs = Vec::new();
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let src = ctx.texture(&ResourceDesc::tex2d(Format::R32Uint, 8, 4).with_mips(2), BarrierLayout::Common);
        let mip0: Vec<u32> = (0..32).map(|i| 1000 + i).collect();
        let mip1: Vec<u32> = (0..8).map(|i| 2000 + i).collect();
        ctx.upload_subresource(&src, 0, &bytes_of(&mip0));
        ctx.upload_subresource(&src, 1, &bytes_of(&mip1));
        let root = srv_table_and_uav_root(d, 1);
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(EVERY_TEXEL).unwrap()), "main").unwrap();
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&src, TextureViewDesc::texture_2d(), &heap.handle(0)).unwrap();
        let out = uav_buffer(&ctx, &[0; 12 * 8 * 4 * 12]);
        ctx.run(CommandListType::Direct, |l| {
            bind_table_and_uav(l, &root, &pso, &heap, &out);
            l.dispatch(1, 1, 1);
        });
        let got = u32s(&ctx.read_buffer(&out));
        for z in 0..4i32 {
            for y in 0..8i32 {
                for x in 0..12i32 {
                    let (px, py, m) = (x - 2, y - 2, z - 1);
                    let texel = |m: i32| match m {
                        0 if (0..8).contains(&px) && (0..4).contains(&py) => mip0[(py * 8 + px) as usize],
                        1 if (0..4).contains(&px) && (0..2).contains(&py) => mip1[(py * 4 + px) as usize],
                        _ => 0,
                    };
                    let (want, of_mip1) = (texel(m), texel(1));
                    let i = ((z * 8 + y) * 12 + x) as usize;
                    let three = [got[3 * i], got[3 * i + 1], got[3 * i + 2]];
                    assert_eq!(three, [want, want, of_mip1], "{name}: texel ({px}, {py}) of mip {m}, and of mip 1");
                }
            }
        }
        outputs.push(got);
    }
}

const MIXED_MIPS: &str = r#"
@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

// Neighbouring lanes read texel (i mod 8, 0) of mips 0, 1 and 2 (past the view) in turn.
@compute @workgroup_size(48)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = textureLoad(src, vec2<u32>(i % 8u, 0u), i % 3u).x;
}
"#;

#[test]
fn lanes_reading_different_mips_each_read_their_own() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let src = ctx.texture(&ResourceDesc::tex2d(Format::R32Uint, 8, 4).with_mips(2), BarrierLayout::Common);
        ctx.upload_subresource(&src, 0, &bytes_of(&(0..32).map(|i| 1000 + i).collect::<Vec<u32>>()));
        ctx.upload_subresource(&src, 1, &bytes_of(&(0..8).map(|i| 2000 + i).collect::<Vec<u32>>()));
        let root = srv_table_and_uav_root(d, 1);
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(MIXED_MIPS).unwrap()), "main").unwrap();
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&src, TextureViewDesc::texture_2d(), &heap.handle(0)).unwrap();
        let out = uav_buffer(&ctx, &[0; 48 * 4]);
        ctx.run(CommandListType::Direct, |l| {
            bind_table_and_uav(l, &root, &pso, &heap, &out);
            l.dispatch(1, 1, 1);
        });
        let got = u32s(&ctx.read_buffer(&out));
        // Mip 0 is 8 texels wide, mip 1 4, mip 2 past the view.
        let want: Vec<u32> = (0..48u32)
            .map(|i| match (i % 3, i % 8) {
                (0, x) => 1000 + x,
                (1, x) if x < 4 => 2000 + x,
                _ => 0,
            })
            .collect();
        if d.capabilities().name.contains("llvmpipe") {
            // lavapipe 22.3 checks the coordinates of every lane of an 8-lane group against one
            // lane's mip, so a lane reads 0 where a neighbour's mip is smaller than its own: a
            // driver bug, kept in view here so that a fixed driver shows up (the assertion
            // then fails: drop this branch). Lanes are never wrong but for reading 0.
            assert_ne!(got, want, "{name}: lavapipe reads lanes of different mips right now");
            assert!(got.iter().zip(&want).all(|(g, w)| g == w || *g == 0), "{name}: {got:?}");
            continue;
        }
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn sampler_tables_refuse_samplers_kernels_cannot_use() {
    // A comparison sampler in the table a kernel samples plainly through: refused at the
    // dispatch, naming the binding, rather than sampled as a plain one.
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let wgsl = r#"
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(0) var s: sampler;
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureSampleLevel(t, s, vec2<f32>(0.5), 0.0);
}
"#;
    let root = d
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Sampler, 1, 0)]),
            RootParameter::uav(0),
        ]))
        .unwrap();
    let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(wgsl).unwrap()), "main").unwrap();
    let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
    let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    d.create_shader_resource_view(&tex, TextureViewDesc::texture_2d(), &views.handle(0)).unwrap();
    let samplers = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 1).unwrap();
    let out = uav_buffer(&ctx, &[0; 16]);
    // A comparison filter where the kernel reads a plain sampler (min/max ones it can use:
    // `gathers::minimum_and_maximum_samplers_reduce_the_texels_a_linear_filter_blends`).
    {
        let reduction = FilterReduction::Comparison;
        let desc = SamplerDesc { filter: Filter { reduction, ..Default::default() }, ..Default::default() };
        d.create_sampler(&desc, &samplers.handle(0)).unwrap();
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&views, &samplers]);
            l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
            l.set_compute_root_descriptor_table(1, &samplers.gpu_handle(0).unwrap());
            l.set_compute_root_unordered_access_view(2, out.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(
            e.text.contains("`s`: the shader reads a plain sampler through a sampler with"),
            "{reduction:?}: {}",
            e.text
        );
    }
    // MIRROR_ONCE: the reference device samples with it; a Vulkan device without it says so.
    let mirror_once = SamplerDesc { address: [AddressMode::MirrorOnce; 3], ..Default::default() };
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
                RootParameter::table(vec![DescriptorRange::new(RegisterClass::Sampler, 1, 0)]),
                RootParameter::uav(0),
            ]))
            .unwrap();
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(wgsl).unwrap()), "main").unwrap();
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
        let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&tex, TextureViewDesc::texture_2d(), &views.handle(0)).unwrap();
        let samplers = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 1).unwrap();
        d.create_sampler(&mirror_once, &samplers.handle(0)).unwrap();
        let out = uav_buffer(&ctx, &[0; 16]);
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&views, &samplers]);
            l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
            l.set_compute_root_descriptor_table(1, &samplers.gpu_handle(0).unwrap());
            l.set_compute_root_unordered_access_view(2, out.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        match (name, r) {
            ("reference", r) => assert!(r.is_ok(), "{name}: {r:?}"),
            (_, Ok(())) => panic!("{name}: MIRROR_ONCE recorded"),
            (_, Err(e)) => assert_eq!(e.code, ErrorCode::Unsupported, "{name}: {e}"),
        }
    }
}

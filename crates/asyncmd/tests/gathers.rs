//! `textureGather`: one component of the four texels a bilinear read of mip 0 blends, in D3D's
//! order, through static samplers of each addressing, from float, integer and UNORM textures.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::kernels::*;
use std::sync::Arc;

const GATHER: &str = r#"
@group(0) @binding(0) var tf: texture_2d<f32>;     // t0: R32_FLOAT
@group(0) @binding(1) var tu: texture_2d<u32>;     // t1: R32_UINT
@group(0) @binding(2) var tc: texture_2d<f32>;     // t2: R8G8B8A8_UNORM
@group(0) @binding(0) var s_clamp: sampler;        // s0, static
@group(0) @binding(1) var s_wrap: sampler;         // s1, static
@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;

fn put(i: u32, p: vec2<f32>) {
    out[i * 4u] = bitcast<vec4<u32>>(textureGather(0, tf, s_clamp, p));
    out[i * 4u + 1u] = bitcast<vec4<u32>>(textureGather(0, tf, s_wrap, p));
    out[i * 4u + 2u] = textureGather(0, tu, s_clamp, p);
    out[i * 4u + 3u] = bitcast<vec4<u32>>(textureGather(1, tc, s_clamp, p));
}

@compute @workgroup_size(1)
fn main() {
    put(0u, vec2(0.5, 0.5));
    put(1u, vec2(0.05, 0.05));
    put(2u, vec2(0.9, 0.3));
}
"#;

/// The texels D3D gathers for `(u, v)` of a 4×4 texture, by its definition: u0 =
/// floor(4u − 0.5), u1 = u0 + 1 (the same in v), each addressed; in the order (u0, v1),
/// (u1, v1), (u1, v0), (u0, v0).
fn footprint(p: [f32; 2], wrap: bool) -> [(usize, usize); 4] {
    let axis = |x: f32| {
        let i = (f64::from(x) * 4.0 - 0.5).floor() as i64;
        let at = |i: i64| if wrap { i.rem_euclid(4) } else { i.clamp(0, 3) } as usize;
        (at(i), at(i + 1))
    };
    let ((u0, u1), (v0, v1)) = (axis(p[0]), axis(p[1]));
    [(u0, v1), (u1, v1), (u1, v0), (u0, v0)]
}

#[test]
fn gathers_read_one_component_of_the_four_texels_in_d3ds_order() {
    let points = [[0.5f32, 0.5], [0.05, 0.05], [0.9, 0.3]];
    let float = |x: usize, y: usize| (100 * y + x) as f32;
    let uint = |x: usize, y: usize| (1000 + 100 * y + x) as u32;
    let green = |x: usize, y: usize| (10 * x + 40 * y + 3) as u8;
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let tex = |format, data: Vec<u8>| {
            let t = ctx.texture(&ResourceDesc::tex2d(format, 4, 4), BarrierLayout::Common);
            ctx.upload_subresource(&t, 0, &data);
            t
        };
        let texels =
            |f: &dyn Fn(usize, usize) -> [u8; 4]| -> Vec<u8> { (0..16).flat_map(|i| f(i % 4, i / 4)).collect() };
        let textures = [
            tex(Format::R32Float, texels(&|x, y| float(x, y).to_le_bytes())),
            tex(Format::R32Uint, texels(&|x, y| uint(x, y).to_le_bytes())),
            tex(Format::R8G8B8A8Unorm, texels(&|x, y| [200, green(x, y), 0, 255])),
        ];
        let static_sampler = |address, register| StaticSampler {
            desc: SamplerDesc { address: [address; 3], ..Default::default() },
            border: StaticBorderColor::OpaqueWhite,
            shader_register: register,
            register_space: 0,
            visibility: ShaderVisibility::All,
        };
        let mut desc = RootSignatureDesc::new(vec![
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 3, 0)]),
            RootParameter::uav(0),
        ]);
        desc.static_samplers = vec![static_sampler(AddressMode::Clamp, 0), static_sampler(AddressMode::Wrap, 1)];
        let root = d.create_root_signature(&desc).unwrap();
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(GATHER).unwrap()), "main").unwrap();
        let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 3).unwrap();
        for (i, t) in textures.iter().enumerate() {
            d.create_shader_resource_view(t, TextureViewDesc::texture_2d(), &views.handle(i as u32)).unwrap();
        }
        let out = uav_buffer(&ctx, &[0; 3 * 4 * 16]);
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&views]);
            l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
            l.set_compute_root_unordered_access_view(1, out.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        let got: Vec<u32> = f32s(&ctx.read_buffer(&out)).iter().map(|f| f.to_bits()).collect();
        for (i, p) in points.iter().enumerate() {
            let at = |row: usize, k: usize| got[(i * 4 + row) * 4 + k];
            for (k, ((cx, cy), (wx, wy))) in footprint(*p, false).into_iter().zip(footprint(*p, true)).enumerate() {
                assert_eq!(f32::from_bits(at(0, k)), float(cx, cy), "{name}: {p:?} clamp, texel {k}");
                assert_eq!(f32::from_bits(at(1, k)), float(wx, wy), "{name}: {p:?} wrap, texel {k}");
                assert_eq!(at(2, k), uint(cx, cy), "{name}: {p:?} uint, texel {k}");
                // UNORM to float: c / 255, within its last bit.
                let g = f32::from_bits(at(3, k));
                let want = f32::from(green(cx, cy)) / 255.0;
                assert!((g - want).abs() <= 1e-6, "{name}: {p:?} green, texel {k}: {g}, want {want}");
            }
        }
    }
}

const OFFSETS: &str = r#"
@group(0) @binding(0) var tf: texture_2d<f32>;     // t0: R32_FLOAT, 4×4
@group(0) @binding(0) var s_point: sampler;        // s0, static: point, clamp
@group(0) @binding(1) var s_wrap: sampler;         // s1, static: point, wrap
@group(0) @binding(2) var s_linear: sampler;       // s2, static: linear, clamp
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(1)
fn main() {
    // (0.375, 0.375) is inside texel (1, 1).
    let p = vec2(0.375, 0.375);
    out[0] = textureSampleLevel(tf, s_point, p, 0.0, vec2(1, 2)).x;
    out[1] = textureSampleLevel(tf, s_point, p, 0.0, vec2(-2, 0)).x;
    out[2] = textureSampleLevel(tf, s_wrap, p, 0.0, vec2(3, 0)).x;
    // (0.5, 0.5) blends texels 1 and 2 on each axis equally.
    out[3] = textureSampleLevel(tf, s_linear, vec2(0.5, 0.5), 0.0, vec2(1, 0)).x;
    let g = textureGather(0, tf, s_point, vec2(0.5, 0.5), vec2(1, 1));
    out[4] = g.x;
    out[5] = g.y;
    out[6] = g.z;
    out[7] = g.w;
}
"#;

#[test]
fn constant_offsets_move_the_texels_sampled_and_gathered() {
    let float = |x: usize, y: usize| (100 * y + x) as f32;
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let t = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 4, 4), BarrierLayout::Common);
        let data: Vec<u8> = (0..16).flat_map(|i| float(i % 4, i / 4).to_le_bytes()).collect();
        ctx.upload_subresource(&t, 0, &data);
        let point = Filter { min: FilterType::Point, mag: FilterType::Point, ..Default::default() };
        let linear = Filter { min: FilterType::Linear, mag: FilterType::Linear, ..Default::default() };
        let static_sampler = |filter, address, register| StaticSampler {
            desc: SamplerDesc { filter, address: [address; 3], ..Default::default() },
            border: StaticBorderColor::OpaqueWhite,
            shader_register: register,
            register_space: 0,
            visibility: ShaderVisibility::All,
        };
        let mut desc = RootSignatureDesc::new(vec![
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
            RootParameter::uav(0),
        ]);
        desc.static_samplers = vec![
            static_sampler(point, AddressMode::Clamp, 0),
            static_sampler(point, AddressMode::Wrap, 1),
            static_sampler(linear, AddressMode::Clamp, 2),
        ];
        let root = d.create_root_signature(&desc).unwrap();
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(OFFSETS).unwrap()), "main").unwrap();
        let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&t, TextureViewDesc::texture_2d(), &views.handle(0)).unwrap();
        let out = uav_buffer(&ctx, &[0; 8 * 4]);
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&views]);
            l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
            l.set_compute_root_unordered_access_view(1, out.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        let got = f32s(&ctx.read_buffer(&out));
        // Texel (1, 1) moved by (1, 2), by (−2, 0) then clamped, by (3, 0) then wrapped.
        assert_eq!(got[0], float(2, 3), "{name}: point, offset (1, 2)");
        assert_eq!(got[1], float(0, 1), "{name}: point, offset (−2, 0), clamped");
        assert_eq!(got[2], float(0, 1), "{name}: point, offset (3, 0), wrapped");
        // Texels 2 and 3 across, 1 and 2 down, a quarter each.
        let blend = (float(2, 1) + float(3, 1) + float(2, 2) + float(3, 2)) / 4.0;
        assert_eq!(got[3], blend, "{name}: linear, offset (1, 0)");
        // The footprint of (0.5, 0.5) is texels 1–2 on each axis; moved by (1, 1): 2–3.
        assert_eq!(got[4..8], [float(2, 3), float(3, 3), float(3, 2), float(2, 2)], "{name}: gather, offset (1, 1)");
    }
}

const REDUCTIONS: &str = r#"
@group(0) @binding(0) var tf: texture_2d<f32>;     // t0: R32_FLOAT, 4×4, 2 mips
@group(0) @binding(0) var samplers: binding_array<sampler, 2>;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(1)
fn main() {
    // (0.5, 0.5) of mip 0 blends texels 1–2 on each axis; of mip 1 (2×2), all four.
    out[0] = textureSampleLevel(tf, samplers[0], vec2(0.5, 0.5), 0.0).x;
    out[1] = textureSampleLevel(tf, samplers[0], vec2(0.5, 0.5), 1.0).x;
    out[2] = textureSampleLevel(tf, samplers[1], vec2(0.5, 0.5), 0.0).x;
    out[3] = textureSampleLevel(tf, samplers[1], vec2(0.5, 0.5), 1.0).x;
}
"#;

#[test]
fn minimum_and_maximum_samplers_reduce_the_texels_a_linear_filter_blends() {
    // Values that put neither extreme at a corner of the footprint's blend.
    let mip0 = |x: usize, y: usize| ((x * 7 + y * 13) % 16) as f32;
    let mip1 = |x: usize, y: usize| [[5.0f32, -3.0], [9.0, 2.5]][y][x];
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let t = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 4, 4).with_mips(2), BarrierLayout::Common);
        ctx.upload_subresource(&t, 0, &(0..16).flat_map(|i| mip0(i % 4, i / 4).to_le_bytes()).collect::<Vec<u8>>());
        ctx.upload_subresource(&t, 1, &(0..4).flat_map(|i| mip1(i % 2, i / 2).to_le_bytes()).collect::<Vec<u8>>());
        let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        d.create_shader_resource_view(&t, TextureViewDesc::texture_2d(), &views.handle(0)).unwrap();
        let samplers = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 2).unwrap();
        for (i, reduction) in [FilterReduction::Minimum, FilterReduction::Maximum].into_iter().enumerate() {
            let filter = Filter {
                min: FilterType::Linear,
                mag: FilterType::Linear,
                mip: FilterType::Point,
                anisotropic: false,
                reduction,
            };
            let desc = SamplerDesc { filter, address: [AddressMode::Clamp; 3], ..Default::default() };
            d.create_sampler(&desc, &samplers.handle(i as u32)).unwrap();
        }
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
                RootParameter::table(vec![DescriptorRange::new(RegisterClass::Sampler, 2, 0)]),
                RootParameter::uav(0),
            ]))
            .unwrap();
        let source = format!("enable wgpu_binding_array;\n{REDUCTIONS}");
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(&source).unwrap()), "main").unwrap();
        let out = uav_buffer(&ctx, &[0; 4 * 4]);
        let mut l = ctx.list(CommandListType::Direct);
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        l.set_descriptor_heaps(&[&views, &samplers]);
        l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
        l.set_compute_root_descriptor_table(1, &samplers.gpu_handle(0).unwrap());
        l.set_compute_root_unordered_access_view(2, out.gpu_address(0));
        l.dispatch(1, 1, 1);
        if let Err(e) = l.close() {
            // Only a Vulkan device without `samplerFilterMinmax` may refuse, and says so.
            assert_eq!((name, e.code), ("vulkan", ErrorCode::Unsupported), "{e:?}");
            assert!(e.text.contains("samplerFilterMinmax"), "{}", e.text);
            continue;
        }
        let q = ctx.queue(CommandListType::Direct);
        q.execute_command_lists(&[&l]).unwrap();
        q.wait_idle(std::time::Duration::from_secs(30)).unwrap();
        let got = f32s(&ctx.read_buffer(&out));
        let footprint0 = [mip0(1, 1), mip0(2, 1), mip0(1, 2), mip0(2, 2)];
        let footprint1 = [mip1(0, 0), mip1(1, 0), mip1(0, 1), mip1(1, 1)];
        let least = |f: [f32; 4]| f.into_iter().fold(f32::INFINITY, f32::min);
        let most = |f: [f32; 4]| f.into_iter().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(got, [least(footprint0), least(footprint1), most(footprint0), most(footprint1)], "{name}");
    }
}

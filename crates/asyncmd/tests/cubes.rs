//! Cube textures: six square slices viewed as the faces of a cube (`TextureCube`) or cubes of
//! six (`TextureCubeArray`), sampled by direction. The expected texels come from D3D's face
//! table: the major axis picks the face, the other two components the point on it, and a
//! linear footprint past a face's edge reads the neighbouring face (seamless filtering).

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::kernels::*;
use std::sync::Arc;

const N: u32 = 4;

/// Texel (i, j) of face `f` of cube `k`.
fn value(k: u32, f: u32, i: u32, j: u32) -> f32 {
    (1000 * k + 100 * f + 10 * j + i) as f32
}

/// The direction through the point (s, t) of face `f` (each 0–1), by D3D's table: +X is
/// (1, −t, −s), −X (−1, −t, s), +Y (s, 1, t), −Y (s, −1, −t), +Z (s, −t, 1), −Z (−s, −t, −1)
/// with s and t taken to −1–1.
fn direction(f: u32, s: f32, t: f32) -> [f32; 3] {
    let (sc, tc) = (2.0 * s - 1.0, 2.0 * t - 1.0);
    match f {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    }
}

/// The centre of texel (i, j) on a face, in 0–1.
fn centre(i: u32, j: u32) -> (f32, f32) {
    ((i as f32 + 0.5) / N as f32, (j as f32 + 0.5) / N as f32)
}

const SAMPLE: &str = r#"
struct Probe { dir: vec4<f32> }
@group(0) @binding(0) var cube: texture_cube<f32>;          // t0
@group(0) @binding(1) var cubes: texture_cube_array<f32>;   // t1
@group(0) @binding(2) var<storage, read> probes: array<Probe>;
@group(0) @binding(0) var s_point: sampler;                 // s0, static
@group(0) @binding(1) var s_linear: sampler;                // s1, static
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&probes) {
        if i == arrayLength(&probes) {
            let size = textureDimensions(cubes);
            out[4u * i] = f32(size.x);
            out[4u * i + 1u] = f32(size.y);
            out[4u * i + 2u] = f32(textureNumLayers(cubes));
            out[4u * i + 3u] = f32(textureDimensions(cube).x);
        }
        return;
    }
    let d = probes[i].dir.xyz;
    out[4u * i] = textureSampleLevel(cube, s_point, d, 0.0).x;
    out[4u * i + 1u] = textureSampleLevel(cube, s_linear, d, 0.0).x;
    out[4u * i + 2u] = textureSampleLevel(cubes, s_point, d, 1, 0.0).x;
    let g = textureGather(0, cube, s_point, d);
    // Gathers after every probe's four values and the sizes.
    let at = 4u * (arrayLength(&probes) + 1u + i);
    out[at] = g.x;
    out[at + 1u] = g.y;
    out[at + 2u] = g.z;
    out[at + 3u] = g.w;
    out[4u * i + 3u] = 0.0;
}
"#;

/// A direction and what each read gives there (`None`: not checked).
struct Probe {
    dir: [f32; 3],
    point: Option<f32>,
    /// The linear value, and how far a GPU's filter weights may move it.
    linear: (f32, f32),
    gather: Option<[f32; 4]>,
}

#[test]
fn a_direction_reads_its_faces_texel_and_filters_seamlessly_across_edges() {
    let mut probes = Vec::new();
    for f in 0..6 {
        // Every texel centre: that texel, filtered or not.
        for j in 0..N {
            for i in 0..N {
                let (s, t) = centre(i, j);
                let v = value(0, f, i, j);
                probes.push(Probe { dir: direction(f, s, t), point: Some(v), linear: (v, 0.0), gather: None });
            }
        }
        // Texel corners inside the face: the four texels around, a quarter each; the gather
        // returns them as (u0, v1), (u1, v1), (u1, v0), (u0, v0).
        for j in 0..N - 1 {
            for i in 0..N - 1 {
                let (s, t) = ((i + 1) as f32 / N as f32, (j + 1) as f32 / N as f32);
                let four = [value(0, f, i, j + 1), value(0, f, i + 1, j + 1), value(0, f, i + 1, j), value(0, f, i, j)];
                let mean = four.iter().sum::<f32>() / 4.0;
                probes.push(Probe { dir: direction(f, s, t), point: None, linear: (mean, 0.0), gather: Some(four) });
            }
        }
    }
    // Just inside +X's edge with −Z (s = 1), at row 1's centre: +X's texel (3, 1) and −Z's
    // (0, 1) half each. The weights are 1e-6 from a half, within a GPU's filter precision
    // (D3D asks for 6 bits of it; the tolerance is 1/64 of the two texels' distance).
    let (a, b) = (value(0, 0, 3, 1), value(0, 5, 0, 1));
    probes.push(Probe {
        dir: direction(0, 1.0 - 1e-6, centre(0, 1).1),
        point: Some(a),
        linear: ((a + b) / 2.0, (b - a).abs() / 64.0),
        gather: None,
    });
    // Just inside +X's edge with +Y (t = 0), at column 2's centre: +X's (2, 0) and the +Y texel
    // its row −1 points at, (3, 1) (+X's column 2 is z = −0.25, +Y's row 1).
    let (a, b) = (value(0, 0, 2, 0), value(0, 2, 3, 1));
    probes.push(Probe {
        dir: direction(0, centre(2, 0).0, 1e-6),
        point: Some(a),
        linear: ((a + b) / 2.0, (b - a).abs() / 64.0),
        gather: None,
    });
    // Just inside +X's corner with −Z and +Y (s = 1, t = 0): the footprint is +X's (3, 0),
    // −Z's (0, 0), the +Y texel +X's row −1 points at there, (3, 0), and a fourth texel past
    // both edges that no face holds, for which the average of the three stands (D3D11.3
    // 7.18.8). A quarter each: the three's mean. The tolerance is 1/64 of their spread.
    let three = [value(0, 0, 3, 0), value(0, 5, 0, 0), value(0, 2, 3, 0)];
    let mean = three.iter().sum::<f32>() / 3.0;
    probes.push(Probe {
        dir: direction(0, 1.0 - 1e-6, 1e-6),
        point: Some(three[0]),
        linear: (mean, (three[1] - three[0]) / 64.0),
        gather: None,
    });
    let dirs: Vec<[f32; 3]> = probes.iter().map(|p| p.dir).collect();

    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let cube = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, N, N).with_array(6), BarrierLayout::Common);
        let cubes = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, N, N).with_array(12), BarrierLayout::Common);
        for slice in 0..12u32 {
            let (k, f) = (slice / 6, slice % 6);
            let texels: Vec<u8> = (0..N * N).flat_map(|x| value(k, f, x % N, x / N).to_le_bytes()).collect();
            if slice < 6 {
                ctx.upload_subresource(&cube, slice, &texels);
            }
            ctx.upload_subresource(&cubes, slice, &texels);
        }
        let probe_bytes: Vec<u8> =
            dirs.iter().flat_map(|p| [p[0], p[1], p[2], 0.0]).flat_map(f32::to_le_bytes).collect();
        let probe_buffer = ctx.default_buffer(&probe_bytes);
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 3).unwrap();
        d.create_shader_resource_view(&cube, TextureViewDesc::new(TextureViewDimension::TextureCube), &heap.handle(0))
            .unwrap();
        d.create_shader_resource_view(
            &cubes,
            TextureViewDesc::new(TextureViewDimension::TextureCubeArray),
            &heap.handle(1),
        )
        .unwrap();
        let bytes = probe_bytes.len() as u32;
        d.create_shader_resource_view(&probe_buffer, BufferViewDesc::structured(0, bytes / 16, 16), &heap.handle(2))
            .unwrap();
        let static_sampler = |min, register| StaticSampler {
            desc: SamplerDesc { filter: Filter { min, mag: min, ..Default::default() }, ..Default::default() },
            border: StaticBorderColor::OpaqueBlack,
            shader_register: register,
            register_space: 0,
            visibility: ShaderVisibility::All,
        };
        let mut desc = RootSignatureDesc::new(vec![
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 3, 0)]),
            RootParameter::uav(0),
        ]);
        desc.static_samplers = vec![static_sampler(FilterType::Point, 0), static_sampler(FilterType::Linear, 1)];
        let root = d.create_root_signature(&desc).unwrap();
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(SAMPLE).unwrap()), "main").unwrap();
        let count = probes.len() as u32;
        let out = uav_buffer(&ctx, &vec![0; (2 * count as usize + 1) * 16]);
        ctx.run(CommandListType::Direct, |l| {
            bind_table_and_uav(l, &root, &pso, &heap, &out);
            l.dispatch((count + 1).div_ceil(64), 1, 1);
        });
        let got = f32s(&ctx.read_buffer(&out));
        for (k, p) in probes.iter().enumerate() {
            let at = |c: usize| got[4 * k + c];
            let dir = p.dir;
            if let Some(v) = p.point {
                assert_eq!(at(0), v, "{name}: probe {k} {dir:?}, point");
                assert_eq!(at(2), v + 1000.0, "{name}: probe {k} {dir:?}, cube 1 of the array");
            }
            let (want, tolerance) = p.linear;
            assert!((at(1) - want).abs() <= tolerance, "{name}: probe {k} {dir:?}, linear {} for {want}", at(1));
        }
        let gathers = &got[4 * (count as usize + 1)..];
        for (k, p) in probes.iter().enumerate() {
            if let Some(four) = p.gather {
                assert_eq!(gathers[4 * k..4 * k + 4], four, "{name}: probe {k} {:?}, gather", p.dir);
            }
        }
        let sizes = &got[4 * count as usize..4 * count as usize + 4];
        assert_eq!(sizes, [N as f32, N as f32, 2.0, N as f32], "{name}: dimensions and cubes");
    }
}

#[test]
fn cube_views_need_square_textures_of_whole_cubes_and_no_unordered_access() {
    let ctx = common::Ctx::reference();
    let d = &ctx.device;
    let heap = d.create_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    let refused = |t: &Resource, view: TextureViewDesc, uav: bool, why: &str| {
        let r = if uav {
            d.create_unordered_access_view(t, view, &heap.handle(0))
        } else {
            d.create_shader_resource_view(t, view, &heap.handle(0))
        };
        let e = r.unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreateViewInvalidDesc), "{e:?}");
        assert!(e.text.contains(why), "{why:?} not in {}", e.text);
    };
    let cube = TextureViewDesc::new(TextureViewDimension::TextureCube);
    let array = TextureViewDesc::new(TextureViewDimension::TextureCubeArray);
    let flat = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 8, 4).with_array(6), BarrierLayout::Common);
    refused(&flat, cube, false, "square");
    let five = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 4, 4).with_array(5), BarrierLayout::Common);
    refused(&five, cube, false, "not within");
    let uav =
        ResourceDesc::tex2d(Format::R32Float, 4, 4).with_array(6).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
    refused(&ctx.texture(&uav, BarrierLayout::Common), cube, true, "shader resource view");
    let nine = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 4, 4).with_array(9), BarrierLayout::Common);
    refused(&nine, array.slices(0, 9), false, "whole cubes");
    // Slices 3..9 of nine: one cube, not starting at 0.
    d.create_shader_resource_view(&nine, array.slices(3, 6), &heap.handle(0)).unwrap();
    d.create_shader_resource_view(&nine, cube.slices(3, 6), &heap.handle(0)).unwrap();
}

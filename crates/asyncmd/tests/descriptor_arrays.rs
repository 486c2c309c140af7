//! Arrays of descriptors (`binding_array` in WGSL, `Texture2D t[4]` in HLSL): a table range of
//! several registers bound to one array, indexed by constants, by a value every thread shares
//! and by one that differs a thread; an index past the end reads the last element.
//!
//! Indexing arrays of textures or samplers by a value needs a device feature lavapipe 22.3
//! lacks: there the pipeline is refused with `Unsupported` naming it, and the test checks that.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::assert_error;
use common::kernels::*;
use std::sync::Arc;

/// The value texel `x` of texture `i` holds; texture `i` is `i + 1` texels wide.
fn texel(i: u32, x: u32) -> u32 {
    1000 * (i + 1) + x
}

/// Four R32_UINT textures, texture `i` being `i + 1` texels wide, with SRVs at `heap` 0–3.
fn sampled_textures(ctx: &common::Ctx, heap: &DescriptorHeap) -> Vec<Resource> {
    (0..4u32)
        .map(|i| {
            let t = ctx.texture(&ResourceDesc::tex2d(Format::R32Uint, i + 1, 1), BarrierLayout::Common);
            let data: Vec<u8> = (0..=i).flat_map(|x| texel(i, x).to_le_bytes()).collect();
            ctx.upload_subresource(&t, 0, &data);
            ctx.device.create_shader_resource_view(&t, TextureViewDesc::texture_2d(), &heap.handle(i)).unwrap();
            t
        })
        .collect()
}

/// The pipeline, or `None` where the Vulkan device says it lacks dynamic indexing of
/// arrays of images (the only refusal allowed here).
fn pipeline_where_indexable(name: &str, r: Result<PipelineState>) -> Option<PipelineState> {
    match r {
        Ok(p) => Some(p),
        Err(e) => {
            assert_eq!((name, e.code, e.id), ("vulkan", ErrorCode::Unsupported, MessageId::CreatePipelineStateInvalid));
            assert!(e.text.contains("ArrayDynamicIndexing"), "{}", e.text);
            None
        }
    }
}

const CONSTANT: &str = r#"
enable wgpu_binding_array;
struct Buf { data: array<u32> }
@group(0) @binding(0) var ts: binding_array<texture_2d<u32>, 4>;                     // t0–t3
@group(0) @binding(0) var us: binding_array<texture_storage_2d<r32uint, write>, 2>;   // u0–u1
@group(0) @binding(2) var<storage, read_write> bufs: binding_array<Buf, 3>;          // u2–u4
@group(1) @binding(0) var<storage, read_write> out: array<u32>;                      // u0, space 1

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) t: u32) {
    out[t] = textureLoad(ts[0], vec2(0, 0), 0).x + textureLoad(ts[3], vec2(3, 0), 0).x;
    out[4u + t] = textureDimensions(ts[1]).x + textureDimensions(ts[2]).x;
    textureStore(us[0], vec2(t, 0u), vec4(100u + t));
    textureStore(us[1], vec2(t, 0u), vec4(200u + t));
    // Buffers by a loop's index, which every thread shares.
    for (var i = 0u; i < 3u; i++) {
        bufs[i].data[t] = 10u * i + t;
        if t == 0u {
            out[8u + i] = arrayLength(&bufs[i].data);
        }
    }
}
"#;

#[test]
fn constant_indexes_reach_each_element_of_arrays_of_textures_storage_textures_and_buffers() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let srvs = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 9).unwrap();
        let sampled = sampled_textures(&ctx, &srvs);
        let uav = ResourceDesc::tex2d(Format::R32Uint, 4, 1).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let storage: Vec<Resource> = (0..2u32)
            .map(|i| {
                let t = ctx.texture(&uav, BarrierLayout::Common);
                d.create_unordered_access_view(&t, TextureViewDesc::texture_2d(), &srvs.handle(4 + i)).unwrap();
                t
            })
            .collect();
        // Buffers of 8, 12 and 16 words, all 0xffffffff.
        let buffers: Vec<Resource> = (0..3u32)
            .map(|i| {
                let words = 8 + 4 * i;
                let b = uav_buffer(&ctx, &vec![0xff; words as usize * 4]);
                d.create_unordered_access_view(&b, BufferViewDesc::raw(0, words * 4), &srvs.handle(6 + i)).unwrap();
                b
            })
            .collect();
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::table(vec![
                    DescriptorRange::new(RegisterClass::Srv, 4, 0),
                    DescriptorRange::new(RegisterClass::Uav, 5, 0),
                ]),
                RootParameter::uav(0).space(1),
            ]))
            .unwrap();
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(CONSTANT).unwrap()), "main").unwrap();
        let out = uav_buffer(&ctx, &[0; 11 * 4]);
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&srvs]);
            l.set_compute_root_descriptor_table(0, &srvs.gpu_handle(0).unwrap());
            l.set_compute_root_unordered_access_view(1, out.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        let got = u32s(&ctx.read_buffer(&out));
        for t in 0..4 {
            assert_eq!(got[t], texel(0, 0) + texel(3, 3), "{name}: thread {t}, ts[0] and ts[3]");
            assert_eq!(got[4 + t], 2 + 3, "{name}: thread {t}, widths of ts[1] and ts[2]");
        }
        assert_eq!(got[8..], [8, 12, 16], "{name}: arrayLength of each buffer");
        for (i, t) in storage.iter().enumerate() {
            let want: Vec<u32> = (0..4).map(|x| 100 * (i as u32 + 1) + x).collect();
            assert_eq!(u32s(&ctx.read_subresource(t, 0)), want, "{name}: storage texture {i}");
        }
        for (i, b) in buffers.iter().enumerate() {
            let got = u32s(&ctx.read_buffer(b));
            let want: Vec<u32> = (0..got.len() as u32).map(|t| if t < 4 { 10 * i as u32 + t } else { !0 }).collect();
            assert_eq!(got, want, "{name}: buffer {i}");
        }
        drop(sampled);
    }
}

const PER_THREAD: &str = r#"
enable wgpu_binding_array;
struct Params { k: u32 }
var<immediate> params: Params;
@group(0) @binding(0) var ts: binding_array<texture_2d<u32>, 4>;                     // t0–t3
@group(0) @binding(0) var us: binding_array<texture_storage_2d<r32uint, write>, 2>;   // u0–u1
@group(1) @binding(0) var<storage, read_write> out: array<u32>;                      // u0, space 1

@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) t: u32) {
    // Each thread its own element.
    out[t] = textureLoad(ts[t % 4u], vec2(0, 0), 0).x;
    out[8u + t] = textureDimensions(ts[t % 4u]).x;
    // One element every thread shares, from the root constants.
    out[16u + t] = textureLoad(ts[params.k], vec2(0, 0), 0).x;
    // Past the end: the last element.
    out[24u + t] = textureLoad(ts[params.k + 5u], vec2(0, 0), 0).x;
    // Even threads write storage texture 0, odd ones texture 1.
    textureStore(us[t % 2u], vec2(t / 2u, 0u), vec4(100u + t));
}
"#;

#[test]
fn arrays_of_textures_are_indexed_per_thread_by_a_shared_value_and_past_their_end() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 6).unwrap();
        let sampled = sampled_textures(&ctx, &heap);
        let uav = ResourceDesc::tex2d(Format::R32Uint, 4, 1).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let storage: Vec<Resource> = (0..2u32)
            .map(|i| {
                let t = ctx.texture(&uav, BarrierLayout::Common);
                d.create_unordered_access_view(&t, TextureViewDesc::texture_2d(), &heap.handle(4 + i)).unwrap();
                t
            })
            .collect();
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::table(vec![
                    DescriptorRange::new(RegisterClass::Srv, 4, 0),
                    DescriptorRange::new(RegisterClass::Uav, 2, 0),
                ]),
                RootParameter::uav(0).space(1),
                RootParameter::constants(0, 1),
            ]))
            .unwrap();
        let module = Arc::new(ShaderModule::from_wgsl(PER_THREAD).unwrap());
        assert!(module.non_uniform_indexing());
        let Some(pso) = pipeline_where_indexable(name, pipeline(d, &root, &module, "main")) else { continue };
        let out = uav_buffer(&ctx, &[0; 32 * 4]);
        ctx.run(CommandListType::Direct, |l| {
            bind_table_and_uav(l, &root, &pso, &heap, &out);
            l.set_compute_root_32bit_constants(2, &[2], 0);
            l.dispatch(1, 1, 1);
        });
        let got = u32s(&ctx.read_buffer(&out));
        for t in 0..8u32 {
            let i = t % 4;
            assert_eq!(got[t as usize], texel(i, 0), "{name}: thread {t} reads element {i}");
            assert_eq!(got[8 + t as usize], i + 1, "{name}: thread {t}'s element is {} wide", i + 1);
            assert_eq!(got[16 + t as usize], texel(2, 0), "{name}: thread {t}, shared index 2");
            assert_eq!(got[24 + t as usize], texel(3, 0), "{name}: thread {t}, index 7 reads the last");
        }
        for (i, t) in storage.iter().enumerate() {
            let want: Vec<u32> = (0..4).map(|x| 100 + 2 * x + i as u32).collect();
            assert_eq!(u32s(&ctx.read_subresource(t, 0)), want, "{name}: storage texture {i}");
        }
        drop(sampled);
    }
}

const SAMPLERS: &str = r#"
enable wgpu_binding_array;
@group(0) @binding(0) var tex: texture_2d<f32>;                 // t0
@group(0) @binding(0) var ss: binding_array<sampler, 2>;        // s0–s1
@group(0) @binding(0) var<storage, read_write> out: array<f32>; // u0

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) t: u32) {
    // u = 1.25 is texel 5 of 4. By constants: clamp, then wrap.
    out[t] = textureSampleLevel(tex, ss[0], vec2(1.25, 0.5), 0.0).x;
    out[4u + t] = textureSampleLevel(tex, ss[1], vec2(1.25, 0.5), 0.0).x;
    // Per thread (threads 0 and 2 clamp, 1 and 3 wrap), or 0.
    out[8u + t] = PER_THREAD;
}
"#;

#[test]
fn an_array_of_samplers_is_indexed_by_constants_and_per_thread() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
        let samplers = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 2).unwrap();
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 4, 1), BarrierLayout::Common);
        ctx.upload_subresource(&tex, 0, &bytes_of(&[10.0f32, 11.0, 12.0, 13.0]));
        d.create_shader_resource_view(&tex, TextureViewDesc::texture_2d(), &views.handle(0)).unwrap();
        for (i, address) in [AddressMode::Clamp, AddressMode::Wrap].into_iter().enumerate() {
            let desc = SamplerDesc { address: [address; 3], ..Default::default() };
            d.create_sampler(&desc, &samplers.handle(i as u32)).unwrap();
        }
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0)]),
                RootParameter::table(vec![DescriptorRange::new(RegisterClass::Sampler, 2, 0)]),
                RootParameter::uav(0),
            ]))
            .unwrap();
        for per_thread in [false, true] {
            let by_thread = "textureSampleLevel(tex, ss[t % 2u], vec2(1.25, 0.5), 0.0).x";
            let source = SAMPLERS.replace("PER_THREAD", if per_thread { by_thread } else { "0.0" });
            let module = Arc::new(ShaderModule::from_wgsl(&source).unwrap());
            let Some(pso) = pipeline_where_indexable(name, pipeline(d, &root, &module, "main")) else {
                assert!(per_thread, "{name}: constant indexes need no feature");
                continue;
            };
            let out = uav_buffer(&ctx, &[0; 12 * 4]);
            ctx.run(CommandListType::Direct, |l| {
                l.set_compute_root_signature(&root);
                l.set_pipeline_state(&pso);
                l.set_descriptor_heaps(&[&views, &samplers]);
                l.set_compute_root_descriptor_table(0, &views.gpu_handle(0).unwrap());
                l.set_compute_root_descriptor_table(1, &samplers.gpu_handle(0).unwrap());
                l.set_compute_root_unordered_access_view(2, out.gpu_address(0));
                l.dispatch(1, 1, 1);
            });
            // Point sampling at u = 1.25: texel floor(4 × 1.25) = 5, clamped to 3 or wrapped
            // to 1.
            let (clamp, wrap) = (13.0, 11.0);
            let mut want = vec![clamp; 4];
            want.extend([wrap; 4]);
            want.extend(if per_thread { [clamp, wrap, clamp, wrap] } else { [0.0; 4] });
            assert_eq!(f32s(&ctx.read_buffer(&out)), want, "{name}: per thread {per_thread}");
        }
    }
}

#[test]
fn an_empty_element_or_a_short_range_is_refused() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let module = Arc::new(ShaderModule::from_wgsl(CONSTANT).unwrap());
        let root_of = |srvs: u32| {
            d.create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::table(vec![
                    DescriptorRange::new(RegisterClass::Srv, srvs, 0),
                    DescriptorRange::new(RegisterClass::Uav, 5, 0),
                ]),
                RootParameter::uav(0).space(1),
            ]))
            .unwrap()
        };
        // Three registers for an array of four: the pipeline is refused.
        let e = pipeline(d, &root_of(3), &module, "main").map(drop).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid), "{name}: {e:?}");
        assert!(e.text.contains("spans 4 registers"), "{name}: {}", e.text);
        // Every descriptor written but SRV 2: the dispatch names it.
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 9).unwrap();
        let t = ctx.texture(&ResourceDesc::tex2d(Format::R32Uint, 1, 1), BarrierLayout::Common);
        for i in [0, 1, 3] {
            d.create_shader_resource_view(&t, TextureViewDesc::texture_2d(), &heap.handle(i)).unwrap();
        }
        let uav = ResourceDesc::tex2d(Format::R32Uint, 4, 1).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let u = ctx.texture(&uav, BarrierLayout::Common);
        let b = uav_buffer(&ctx, &[0; 64]);
        for i in 4..6 {
            d.create_unordered_access_view(&u, TextureViewDesc::texture_2d(), &heap.handle(i)).unwrap();
        }
        for i in 6..9 {
            d.create_unordered_access_view(&b, BufferViewDesc::raw(0, 64), &heap.handle(i)).unwrap();
        }
        let root = root_of(4);
        let pso = pipeline(d, &root, &module, "main").unwrap();
        let out = uav_buffer(&ctx, &[0; 11 * 4]);
        let e = assert_error(
            ctx.record(CommandListType::Direct, |l| {
                bind_table_and_uav(l, &root, &pso, &heap, &out);
                l.dispatch(1, 1, 1);
            }),
            ErrorCode::InvalidArg,
            MessageId::DrawInvalid,
        );
        assert!(e.text.contains("`ts[2]`") && e.text.contains("uninitialised"), "{name}: {}", e.text);
    }
}

/// Buffers and textures in the large table: 40 descriptors, more than the 32 lavapipe and
/// NVIDIA push, so the Vulkan device binds them as a descriptor set of the list's (each kind
/// within the 32 a stage may bind on lavapipe).
const BUFFERS: u32 = 24;
const TEXTURES: u32 = 16;

#[test]
fn a_table_of_more_descriptors_than_a_device_pushes_reaches_every_one() {
    // Constant indexes: thread t writes word t of buffer k, adding texture k % 16's texel.
    let writes: String = (0..BUFFERS)
        .map(|k| {
            format!("    bufs[{k}].data[t] = {k}u * 100u + t + textureLoad(ts[{}], vec2(0, 0), 0).x;\n", k % TEXTURES)
        })
        .collect();
    let source = format!(
        "enable wgpu_binding_array;\nstruct Buf {{ data: array<u32> }}\n\
         @group(0) @binding(0) var ts: binding_array<texture_2d<u32>, {TEXTURES}>;\n\
         @group(0) @binding(0) var<storage, read_write> bufs: binding_array<Buf, {BUFFERS}>;\n\
         @compute @workgroup_size(4)\nfn main(@builtin(local_invocation_index) t: u32) {{\n{writes}}}\n"
    );
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, TEXTURES + BUFFERS).unwrap();
        let textures: Vec<Resource> = (0..TEXTURES)
            .map(|j| {
                let t = ctx.texture(&ResourceDesc::tex2d(Format::R32Uint, 1, 1), BarrierLayout::Common);
                ctx.upload_subresource(&t, 0, &(10_000 * j).to_le_bytes());
                d.create_shader_resource_view(&t, TextureViewDesc::texture_2d(), &heap.handle(j)).unwrap();
                t
            })
            .collect();
        let buffers: Vec<Resource> = (0..BUFFERS)
            .map(|k| {
                let b = uav_buffer(&ctx, &[0xff; 8 * 4]);
                d.create_unordered_access_view(&b, BufferViewDesc::raw(0, 8 * 4), &heap.handle(TEXTURES + k)).unwrap();
                b
            })
            .collect();
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::table(vec![
                DescriptorRange::new(RegisterClass::Srv, TEXTURES, 0),
                DescriptorRange::new(RegisterClass::Uav, BUFFERS, 0),
            ])]))
            .unwrap();
        let pso = pipeline(d, &root, &Arc::new(ShaderModule::from_wgsl(&source).unwrap()), "main").unwrap();
        // Two dispatches in one list, each with a set of its own, writing the same values.
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
            l.dispatch(1, 1, 1);
            l.dispatch(1, 1, 1);
        });
        for (k, b) in buffers.iter().enumerate() {
            let k = k as u32;
            let want: Vec<u32> =
                (0..8).map(|t| if t < 4 { 100 * k + t + 10_000 * (k % TEXTURES) } else { !0 }).collect();
            assert_eq!(u32s(&ctx.read_buffer(b)), want, "{name}: buffer {k}");
        }
        drop(textures);
    }
}

/// Past what a stage may bind on a Vulkan device (lavapipe: 32 storage buffers), a kernel is
/// refused at creation with `Unsupported` naming the kind and the limit; the reference device
/// makes it (a GPU with a higher limit, NVIDIA's, makes it too, so it is not checked there).
#[test]
fn a_table_past_a_devices_per_stage_limit_is_refused_by_name() {
    const N: u32 = 40;
    let writes: String = (0..N).map(|k| format!("    bufs[{k}].data[0] = {k}u;\n")).collect();
    let source = format!(
        "enable wgpu_binding_array;\nstruct Buf {{ data: array<u32> }}\n\
         @group(0) @binding(0) var<storage, read_write> bufs: binding_array<Buf, {N}>;\n\
         @compute @workgroup_size(1)\nfn main() {{\n{writes}}}\n"
    );
    let module = Arc::new(ShaderModule::from_wgsl(&source).unwrap());
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::table(vec![DescriptorRange::new(
                RegisterClass::Uav,
                N,
                0,
            )])]))
            .unwrap();
        let r = pipeline(d, &root, &module, "main");
        if ctx.vulkan.is_none() {
            assert!(r.is_ok(), "{name}: {:?}", r.err());
        } else if d.capabilities().name.contains("llvmpipe") {
            let e = r.err().unwrap_or_else(|| panic!("{name}: 40 storage buffers past lavapipe's 32"));
            assert_eq!((e.code, e.id), (ErrorCode::Unsupported, MessageId::CreatePipelineStateInvalid), "{name}");
            assert!(e.text.contains("40 storage buffers") && e.text.contains("at most 32"), "{name}: {}", e.text);
        }
    }
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

//! The binding model: root signatures against shaders, root constants and views, descriptor
//! heaps, views and tables, samplers, and the errors of each when it is misused.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::ReferenceConfig;
use common::kernels::*;
use common::*;
use std::sync::Arc;

/// saxpy through a descriptor table of an SRV and a UAV (t0 and u0 of the table's two ranges).
fn table_root(device: &Device) -> RootSignature {
    device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, 2),
            RootParameter::table(vec![
                DescriptorRange::new(RegisterClass::Srv, 1, 0),
                DescriptorRange::new(RegisterClass::Uav, 1, 0),
            ]),
        ]))
        .unwrap()
}

#[test]
fn a_pipeline_whose_shader_and_root_signature_disagree_is_refused() {
    let device = reference_device(ReferenceConfig::default());
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let refuse = |root: &RootSignature, entry: &str, text: &str| {
        let e = pipeline(&device, root, &module, entry).map(drop).expect_err("refused");
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid), "{e}");
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    let no_srv = device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, 2), RootParameter::uav(0)]))
        .unwrap();
    refuse(&no_srv, "main", "binds no t0 of space 0 (`x`)");
    refuse(&saxpy_root(&device), "nope", "no Compute entry point \"nope\"");
    let small = device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, 1),
            RootParameter::srv(0),
            RootParameter::uav(0),
        ]))
        .unwrap();
    refuse(&small, "main", "8 bytes");
    let big = Arc::new(ShaderModule::from_wgsl("@compute @workgroup_size(32, 32, 2) fn main() {}").unwrap());
    let e = pipeline(&device, &saxpy_root(&device), &big, "main").map(drop).unwrap_err();
    assert!(e.text.contains("32×32×2"), "{}", e.text);
    // A root signature D3D12's serializer refuses.
    let r = device.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::srv(3), RootParameter::srv(3)]));
    let e = r.map(drop).unwrap_err();
    assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreateRootSignatureInvalid));
}

#[test]
fn root_views_check_their_parameter_and_alignment() {
    let ctx = Ctx::reference();
    let root = ctx
        .device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::cbv(0), RootParameter::srv(0)]))
        .unwrap();
    let b = ctx.buffer(HeapType::Default, 1024);
    for (f, text) in [
        (
            &|l: &mut CommandList, b: &Resource| l.set_compute_root_constant_buffer_view(0, b.gpu_address(16)) as _,
            "256-byte",
        ),
        (&|l: &mut CommandList, b: &Resource| l.set_compute_root_shader_resource_view(1, b.gpu_address(2)), "4-byte"),
        (
            &|l: &mut CommandList, b: &Resource| l.set_compute_root_shader_resource_view(0, b.gpu_address(0)),
            "parameter 0 is Cbv",
        ),
    ] as [(&dyn Fn(&mut CommandList, &Resource), &str); 3]
    {
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            f(l, &b);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::StateSettingInvalid);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    }
    ctx.record(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_compute_root_constant_buffer_view(0, b.gpu_address(256));
        l.set_compute_root_shader_resource_view(1, b.gpu_address(4));
    })
    .unwrap();
}

#[test]
fn a_uniform_buffer_may_be_root_constants_or_a_root_cbv() {
    let wgsl = r#"
struct C { scale: u32, bias: u32 }
@group(0) @binding(1) var<uniform> c: C;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    output[id.x] = id.x * c.scale + c.bias;
}
"#;
    for (name, ctx) in kernel_contexts() {
        let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
        let y = uav_buffer(&ctx, &[0; 16]);
        // b1 as root constants.
        let root = ctx
            .device
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(1, 2), RootParameter::uav(0)]))
            .unwrap();
        let pso = pipeline(&ctx.device, &root, &module, "main").unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[3, 100], 0);
            l.set_compute_root_unordered_access_view(1, y.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        assert_eq!(ctx.read_buffer(&y), bytes_of(&[100u32, 103, 106, 109]), "{name}: root constants");
        // b1 as a root CBV at 256 bytes into a buffer.
        let mut cb = vec![0u8; 512];
        cb[256..264].copy_from_slice(&bytes_of(&[5u32, 1]));
        let cb = ctx.default_buffer(&cb);
        let root = ctx
            .device
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::cbv(1), RootParameter::uav(0)]))
            .unwrap();
        let pso = pipeline(&ctx.device, &root, &module, "main").unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_constant_buffer_view(0, cb.gpu_address(256));
            l.set_compute_root_unordered_access_view(1, y.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        assert_eq!(ctx.read_buffer(&y), bytes_of(&[1u32, 6, 11, 16]), "{name}: root CBV");
    }
}

#[test]
fn a_descriptor_table_gives_the_kernel_its_buffer_views() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
        let root = table_root(d);
        let pso = pipeline(d, &root, &module, "main").unwrap();
        let x: Vec<f32> = (0..128).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..128).map(|i| (i % 3) as f32).collect();
        let xb = ctx.default_buffer(&bytes_of(&x));
        let yb = uav_buffer(&ctx, &bytes_of(&y));
        // The views sit at descriptors 5 and 6; a CPU heap holds them first and they are copied in.
        let cpu = d.create_descriptor_heap(DescriptorHeapType::CbvSrvUav, 2).unwrap();
        // x from element 16 on: the kernel's x[i] is x[16 + i].
        d.create_shader_resource_view(&xb, BufferViewDesc::structured(16, 64, 4), &cpu.handle(0)).unwrap();
        d.create_unordered_access_view(&yb, BufferViewDesc::raw(0, 512), &cpu.handle(1)).unwrap();
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 8).unwrap();
        d.copy_descriptors_simple(2, &heap.handle(5), &cpu.handle(0), DescriptorHeapType::CbvSrvUav).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_32bit_constants(0, &[2.0f32.to_bits(), 100], 0);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(5).unwrap());
            l.dispatch(2, 1, 1);
        });
        let out = f32s(&ctx.read_buffer(&yb));
        for i in 0..128 {
            // 64 elements of x are in view: y changes below 64; from 64 to n = 100, x reads 0
            // past its view and y keeps its value, as it does past n.
            let want = if i < 64 { 2.0 * x[16 + i] + y[i] } else { y[i] };
            assert_eq!(out[i], want, "{name}: element {i}");
        }
    }
}

#[test]
fn tables_refuse_what_d3d12_leaves_undefined() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let root = table_root(d);
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let xb = ctx.default_buffer(&[0; 256]);
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    d.create_shader_resource_view(&xb, BufferViewDesc::raw(0, 256), &heap.handle(0)).unwrap();
    let run = |f: &dyn Fn(&mut CommandList)| {
        ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[0, 64], 0);
            f(l);
            l.dispatch(1, 1, 1);
        })
    };
    let refused = |r: Result<()>, id: MessageId, text: &str| {
        let e = assert_error(r, ErrorCode::InvalidArg, id);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    refused(run(&|_| {}), MessageId::DrawInvalid, "table of root parameter 1");
    // Descriptor 1 (the UAV u0) was never written.
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
        }),
        MessageId::DrawInvalid,
        "uninitialised descriptor",
    );
    // An SRV where the kernel writes a UAV.
    d.create_shader_resource_view(&xb, BufferViewDesc::raw(0, 256), &heap.handle(1)).unwrap();
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
        }),
        MessageId::DrawInvalid,
        "Srv view where the shader reads a Uav",
    );
    // A table running past the heap's end: t0 at descriptor 3, u0 past it.
    d.create_shader_resource_view(&xb, BufferViewDesc::raw(0, 256), &heap.handle(3)).unwrap();
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(3).unwrap());
        }),
        MessageId::DrawInvalid,
        "past the heap's 4 descriptors",
    );
    // Changing the heaps leaves the table undefined.
    let other = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    refused(
        run(&|l| {
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
            l.set_descriptor_heaps(&[&other]);
        }),
        MessageId::DrawInvalid,
        "is not set",
    );
    // A table in a heap that is not set; heaps that are not shader-visible.
    refused(
        run(&|l| l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap())),
        MessageId::StateSettingInvalid,
        "heap SetDescriptorHeaps set",
    );
    let cpu = d.create_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    assert!(cpu.gpu_handle(0).is_none());
    refused(run(&|l| l.set_descriptor_heaps(&[&cpu])), MessageId::StateSettingInvalid, "not shader-visible");
}

#[test]
fn views_are_checked_against_their_buffer() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
    let plain = ctx.buffer(HeapType::Default, 1024);
    let refused = |r: Result<()>, text: &str| {
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreateViewInvalidDesc);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    refused(
        d.create_unordered_access_view(&plain, BufferViewDesc::raw(0, 64), &heap.handle(0)),
        "ALLOW_UNORDERED_ACCESS",
    );
    refused(d.create_shader_resource_view(&plain, BufferViewDesc::raw(8, 64), &heap.handle(0)), "16-byte");
    refused(
        d.create_shader_resource_view(&plain, BufferViewDesc::structured(0, 300, 4), &heap.handle(0)),
        "pass the buffer",
    );
    refused(d.create_constant_buffer_view(&plain, 128, 256, &heap.handle(0)), "multiples of 256");
    refused(d.create_constant_buffer_view(&plain, 768, 512, &heap.handle(0)), "pass the buffer");
    let rtv = d.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    refused(
        d.create_shader_resource_view(&plain, BufferViewDesc::raw(0, 64), &rtv.handle(0)),
        "not in a CBV/SRV/UAV heap",
    );
    let e = d.create_shader_resource_view(&plain, BufferViewDesc::raw(0, 64), &heap.handle(4)).unwrap_err();
    assert_eq!(e.id, MessageId::InvalidDescriptorHandle);
    let e = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Rtv, 4).map(drop).unwrap_err();
    assert!(e.text.contains("cannot be shader-visible"), "{}", e.text);
    let e = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 2049).map(drop).unwrap_err();
    assert!(e.text.contains("1 to 2048"), "{}", e.text);
    let e = d.copy_descriptors_simple(3, &heap.handle(2), &heap.handle(0), DescriptorHeapType::CbvSrvUav).unwrap_err();
    assert!(e.text.contains("destination heap's end"), "{}", e.text);
}

#[test]
fn a_dispatch_needs_every_root_argument_its_kernel_reads() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let root = saxpy_root(d);
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let (x, y) = (ctx.default_buffer(&[0; 256]), uav_buffer(&ctx, &[0; 256]));
    let run = |constants: bool, srv: bool, uav: bool| {
        ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            if constants {
                // One at a time: `SetComputeRoot32BitConstant`.
                l.set_compute_root_32bit_constant(0, 1.0f32.to_bits(), 0);
                l.set_compute_root_32bit_constant(0, 64, 1);
            }
            if srv {
                l.set_compute_root_shader_resource_view(1, x.gpu_address(0));
            }
            if uav {
                l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
            }
            l.dispatch(1, 1, 1);
        })
    };
    run(true, true, true).unwrap();
    for (args, text) in [
        ((false, true, true), "root parameter 0 (the kernel's push constants)"),
        ((true, false, true), "root parameter 1 (`x`)"),
        ((true, true, false), "root parameter 2 (`y`)"),
    ] {
        let e = assert_error(run(args.0, args.1, args.2), ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    }
    // Setting the bound root signature again keeps its arguments (D3D12: they do not become
    // stale); setting another one, even of the same description, unsets every argument.
    let other = saxpy_root(&ctx.device);
    let rebind = |between: &RootSignature| {
        ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[0, 64], 0);
            l.set_compute_root_shader_resource_view(1, x.gpu_address(0));
            l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
            l.set_compute_root_signature(between);
            l.set_compute_root_signature(&root);
            l.dispatch(1, 1, 1);
        })
    };
    assert!(rebind(&root).is_ok());
    let r = rebind(&other);
    assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
}

#[test]
fn samplers_go_in_sampler_heaps_with_d3d12s_checks() {
    let d = reference_device(ReferenceConfig::default());
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::Sampler, 4).unwrap();
    let linear = SamplerDesc {
        filter: Filter { min: FilterType::Linear, mag: FilterType::Linear, ..Default::default() },
        ..Default::default()
    };
    d.create_sampler(&linear, &heap.handle(0)).unwrap();
    let bad = |desc: SamplerDesc, handle: &CpuDescriptorHandle, text: &str| {
        let e = d.create_sampler(&desc, handle).unwrap_err();
        assert_eq!(e.id, MessageId::CreateViewInvalidDesc, "{e}");
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    let aniso =
        SamplerDesc { filter: Filter { anisotropic: true, ..Default::default() }, max_anisotropy: 17, ..linear };
    bad(aniso, &heap.handle(1), "MaxAnisotropy 17");
    bad(SamplerDesc { min_lod: 4.0, max_lod: 2.0, ..linear }, &heap.handle(1), "MinLOD");
    bad(SamplerDesc { mip_lod_bias: 16.0, ..linear }, &heap.handle(1), "MipLODBias");
    let views = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    bad(linear, &views.handle(0), "not in a sampler heap");
    let e = d.create_sampler(&linear, &heap.handle(4)).unwrap_err();
    assert_eq!(e.id, MessageId::InvalidDescriptorHandle);
}

#[test]
fn root_constants_past_the_push_constant_bytes_and_beside_a_push_block_reach_the_kernel() {
    // 48 root constants (192 bytes: past lavapipe's 128 bytes of push constants, within
    // D3D12's 64 dwords) as the push-constant block, and 4 more as a constant buffer at b1.
    let wgsl = r#"
struct Big { v: array<vec4<u32>, 12> }
var<immediate> big: Big;
struct Small { s: vec4<u32> }
@group(0) @binding(1) var<uniform> small: Small;
@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@compute @workgroup_size(48)
fn main(@builtin(local_invocation_index) i: u32) {
    output[i] = big.v[i / 4u][i % 4u] + small.s[i % 4u];
}
"#;
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
        let root = d
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::constants(0, 48),
                RootParameter::constants(1, 4),
                RootParameter::uav(0),
            ]))
            .unwrap();
        let pso = pipeline(d, &root, &module, "main").unwrap();
        let y = uav_buffer(&ctx, &[0; 48 * 4]);
        let y2 = uav_buffer(&ctx, &[0; 48 * 4]);
        let big: Vec<u32> = (0..48).map(|i| i * 1000).collect();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &big, 0);
            l.set_compute_root_32bit_constants(1, &[1, 2, 3, 4], 0);
            l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
            l.dispatch(1, 1, 1);
            // Again with another constant: each dispatch reads the constants set before it.
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COMPUTE_SHADING,
                sync_after: BarrierSync::COMPUTE_SHADING,
                access_before: BarrierAccess::UNORDERED_ACCESS,
                access_after: BarrierAccess::UNORDERED_ACCESS,
            }])]);
            l.set_compute_root_32bit_constant(1, 7, 0);
            l.set_compute_root_32bit_constant(0, 5, 47);
            l.set_compute_root_unordered_access_view(2, y2.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        // The first dispatch keeps its own constants though the list changed them after it.
        let first: Vec<u32> = (0..48u32).map(|i| i * 1000 + [1, 2, 3, 4][i as usize % 4]).collect();
        assert_eq!(ctx.read_buffer(&y), bytes_of(&first), "{name}: the first dispatch");
        let second: Vec<u32> =
            (0..48u32).map(|i| if i == 47 { 5 } else { i * 1000 } + [7, 2, 3, 4][i as usize % 4]).collect();
        assert_eq!(ctx.read_buffer(&y2), bytes_of(&second), "{name}: the second");
    }
}

#[test]
fn random_root_signatures_and_tables_get_an_error_or_work_never_a_panic() {
    // Root signatures of random parameters, registers, counts, offsets and flags; each either
    // creates or is refused with `CreateRootSignatureInvalid`; a saxpy pipeline on the ones that
    // create either creates or is refused with `CreatePipelineStateInvalid`; and a dispatch with
    // tables at random heap places records or is refused with `DrawInvalid`.
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 8).unwrap();
    let x = ctx.default_buffer(&[0; 256]);
    let y = uav_buffer(&ctx, &[0; 256]);
    d.create_shader_resource_view(&x, BufferViewDesc::raw(0, 256), &heap.handle(2)).unwrap();
    d.create_unordered_access_view(&y, BufferViewDesc::raw(0, 256), &heap.handle(3)).unwrap();
    let mut rng = fastrand::Rng::with_seed(34);
    let classes = [RegisterClass::Cbv, RegisterClass::Srv, RegisterClass::Uav, RegisterClass::Sampler];
    let (mut created, mut pipelines, mut dispatched) = (0, 0, 0);
    for _ in 0..2000 {
        let count = |rng: &mut fastrand::Rng| *rng.choice(&[0, 1, 2, 4, 70, DESCRIPTOR_RANGE_UNBOUNDED]).unwrap();
        // Half start from what saxpy needs (its views root or in tables), then random ones follow.
        let mut parameters = Vec::new();
        if rng.bool() {
            parameters.push(RootParameter::constants(0, 2));
            for class in [RegisterClass::Srv, RegisterClass::Uav] {
                parameters.push(match (rng.bool(), class) {
                    (true, RegisterClass::Srv) => RootParameter::srv(0),
                    (true, _) => RootParameter::uav(0),
                    (false, c) => RootParameter::table(vec![DescriptorRange::new(c, 1, 0)]),
                });
            }
        }
        parameters.extend((0..rng.usize(0..3)).map(|_| {
            match rng.u8(0..5) {
                0 => RootParameter::constants(rng.u32(0..3), count(&mut rng)),
                1 => RootParameter::srv(rng.u32(0..2)).space(rng.u32(0..2)),
                2 => RootParameter::uav(rng.u32(0..2)),
                3 => RootParameter::cbv(rng.u32(0..3)),
                _ => RootParameter::table(
                    (0..rng.usize(0..3))
                        .map(|_| {
                            let r =
                                DescriptorRange::new(*rng.choice(&classes).unwrap(), count(&mut rng), rng.u32(0..3));
                            let r = if rng.bool() {
                                r.at(rng.u32(0..4).wrapping_mul(if rng.bool() { 1 } else { u32::MAX / 2 }))
                            } else {
                                r
                            };
                            r.flags(DescriptorRangeFlags::from_bits_retain(
                                rng.u32(0..16) * if rng.u8(0..8) == 0 { 4096 } else { 1 },
                            ))
                        })
                        .collect(),
                ),
            }
        }));
        let root = match d.create_root_signature(&RootSignatureDesc::new(parameters.clone())) {
            Ok(r) => r,
            Err(e) => {
                assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreateRootSignatureInvalid), "{e}");
                continue;
            }
        };
        created += 1;
        let pso = match pipeline(d, &root, &module, "main") {
            Ok(p) => p,
            Err(e) => {
                assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid), "{e}");
                continue;
            }
        };
        pipelines += 1;
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_descriptor_heaps(&[&heap]);
            for (i, p) in parameters.iter().enumerate() {
                let i = i as u32;
                match p {
                    RootParameter::Constants { count, .. } => {
                        l.set_compute_root_32bit_constants(i, &vec![1; (*count).min(64) as usize], 0)
                    }
                    RootParameter::Srv(..) => l.set_compute_root_shader_resource_view(i, x.gpu_address(0)),
                    RootParameter::Uav(..) => l.set_compute_root_unordered_access_view(i, y.gpu_address(0)),
                    RootParameter::Cbv(..) => l.set_compute_root_constant_buffer_view(i, x.gpu_address(0)),
                    RootParameter::Table(..) => {
                        l.set_compute_root_descriptor_table(i, &heap.gpu_handle(rng.u32(0..9)).unwrap())
                    }
                }
            }
            l.dispatch(1, 1, 1);
        });
        match r {
            Ok(()) => dispatched += 1,
            Err(e) => assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::DrawInvalid), "{e}"),
        }
    }
    eprintln!("random root signatures: {created} created, {pipelines} pipelines, {dispatched} dispatched");
    // The random draw reaches every stage.
    assert!(created > 200 && pipelines > 10 && dispatched > 0, "{created} {pipelines} {dispatched}");
}

#[test]
fn copy_descriptors_gathers_ranges_into_ranges() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let root = table_root(d);
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let xb = ctx.default_buffer(&bytes_of(&x));
    let yb = uav_buffer(&ctx, &[0; 256]);
    // The SRV and the UAV start in two CPU heaps; one copy puts them side by side at 6 and 7.
    let srvs = d.create_descriptor_heap(DescriptorHeapType::CbvSrvUav, 3).unwrap();
    let uavs = d.create_descriptor_heap(DescriptorHeapType::CbvSrvUav, 1).unwrap();
    d.create_shader_resource_view(&xb, BufferViewDesc::raw(0, 256), &srvs.handle(2)).unwrap();
    d.create_unordered_access_view(&yb, BufferViewDesc::raw(0, 256), &uavs.handle(0)).unwrap();
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 8).unwrap();
    let ty = DescriptorHeapType::CbvSrvUav;
    let refused = |r: Result<()>, text: &str| {
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::InvalidDescriptorHandle);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    refused(d.copy_descriptors(&[(&heap.handle(6), 3)], &[(&srvs.handle(2), 1), (&uavs.handle(0), 1)], ty), "hold 3");
    refused(d.copy_descriptors(&[(&heap.handle(7), 2)], &[(&srvs.handle(2), 2)], ty), "source heap's end");
    refused(d.copy_descriptors(&[(&heap.handle(7), 2)], &[(&srvs.handle(0), 2)], ty), "destination heap's 8");
    refused(
        d.copy_descriptors(&[(&heap.handle(6), 1)], &[(&srvs.handle(2), 1)], DescriptorHeapType::Sampler),
        "not Sampler",
    );
    d.copy_descriptors(&[(&heap.handle(6), 2)], &[(&srvs.handle(2), 1), (&uavs.handle(0), 1)], ty).unwrap();
    ctx.run(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        l.set_descriptor_heaps(&[&heap]);
        l.set_compute_root_32bit_constants(0, &[3.0f32.to_bits(), 64], 0);
        l.set_compute_root_descriptor_table(1, &heap.gpu_handle(6).unwrap());
        l.dispatch(1, 1, 1);
    });
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v).collect();
    assert_eq!(f32s(&ctx.read_buffer(&yb)), want);
}

#[test]
fn a_bundle_inherits_the_root_signature_and_arguments_of_the_list_that_executes_it() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
        let root = table_root(d);
        let pso = pipeline(d, &root, &module, "main").unwrap();
        let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
        let xb = ctx.default_buffer(&bytes_of(&x));
        let ys = [uav_buffer(&ctx, &[0; 256]), uav_buffer(&ctx, &[0; 256])];
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 4).unwrap();
        for (i, y) in ys.iter().enumerate() {
            d.create_shader_resource_view(&xb, BufferViewDesc::raw(0, 256), &heap.handle(2 * i as u32)).unwrap();
            d.create_unordered_access_view(y, BufferViewDesc::raw(0, 256), &heap.handle(2 * i as u32 + 1)).unwrap();
        }
        // The bundle sets its pipeline (D3D12 bundles inherit no pipeline) and nothing else.
        let mut bundle = ctx.list(CommandListType::Bundle);
        bundle.set_pipeline_state(&pso);
        bundle.dispatch(1, 1, 1);
        bundle.close().unwrap();
        // A second bundle sets the executing list's own root signature and the constants; the
        // table it inherits stays (same root signature: inherited arguments are not stale).
        let mut scaled = ctx.list(CommandListType::Bundle);
        scaled.set_compute_root_signature(&root);
        scaled.set_pipeline_state(&pso);
        scaled.set_compute_root_32bit_constants(0, &[10.0f32.to_bits(), 64], 0);
        scaled.dispatch(1, 1, 1);
        scaled.close().unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_descriptor_heaps(&[&heap]);
            l.set_compute_root_32bit_constants(0, &[1.0f32.to_bits(), 64], 0);
            for i in 0..2u32 {
                l.set_compute_root_descriptor_table(1, &heap.gpu_handle(2 * i).unwrap());
                l.execute_bundle(&bundle);
            }
            // `scaled` reads and writes ys[1] after `bundle` did: the UAV barrier D3D12 asks for.
            l.barrier(&[BarrierGroup::Buffer(vec![BufferBarrier {
                sync_before: BarrierSync::COMPUTE_SHADING,
                sync_after: BarrierSync::COMPUTE_SHADING,
                access_before: BarrierAccess::UNORDERED_ACCESS,
                access_after: BarrierAccess::UNORDERED_ACCESS,
                resource: &ys[1],
                offset: 0,
                size: u64::MAX,
            }])]);
            l.execute_bundle(&scaled);
        });
        // ys[0] = 1·x; ys[1] = 1·x + 10·x.
        let y0: Vec<f32> = x.clone();
        let y1: Vec<f32> = x.iter().map(|v| 11.0 * v).collect();
        assert_eq!(f32s(&ctx.read_buffer(&ys[0])), y0, "{name}");
        assert_eq!(f32s(&ctx.read_buffer(&ys[1])), y1, "{name}");
        // Root descriptors are inherited too when the bundle sets the same root signature: the
        // device keeps them (setting the bound root signature again leaves its arguments).
        let direct_root = saxpy_root(d);
        let direct_pso = pipeline(d, &direct_root, &module, "main").unwrap();
        let z = uav_buffer(&ctx, &[0; 256]);
        let mut again = ctx.list(CommandListType::Bundle);
        again.set_compute_root_signature(&direct_root);
        again.set_pipeline_state(&direct_pso);
        again.set_compute_root_32bit_constants(0, &[2.0f32.to_bits(), 64], 0);
        again.dispatch(1, 1, 1);
        again.close().unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&direct_root);
            l.set_compute_root_shader_resource_view(1, xb.gpu_address(0));
            l.set_compute_root_unordered_access_view(2, z.gpu_address(0));
            l.execute_bundle(&again);
        });
        let z2: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
        assert_eq!(f32s(&ctx.read_buffer(&z)), z2, "{name}");
        // A list that sets no arguments: the inherited dispatch is refused where it runs.
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.execute_bundle(&bundle);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.contains("not set"), "{name}: {}", e.text);
    }
}

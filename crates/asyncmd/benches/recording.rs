//! CPU cost of recording one call: the legacy call, native forwarding of the async call, and
//! the fallback's lowering on each route. `cargo bench -p asyncmd --bench recording`.
#![allow(missing_docs)]

use asyncmd::ddi::DeviceDdi;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::sync::Arc;

/// A reference device opted in to the fallback, natively or not.
fn device(native: bool) -> Device {
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    let ddi = Arc::new(ReferenceDevice::new(ReferenceConfig { native_async_commands: native, ..Default::default() }));
    factory.create_device(&Adapter::new(ddi as Arc<dyn DeviceDdi>)).expect("device")
}

fn list(d: &Device, ty: CommandListType) -> CommandList {
    let alloc = d.create_command_allocator(ty).expect("allocator");
    d.create_command_list(ty, &alloc).expect("list")
}

fn buffer(d: &Device, size: u64, flags: ResourceFlags) -> Resource {
    d.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(size).with_flags(flags),
        BarrierLayout::Undefined,
    )
    .expect("buffer")
}

fn texture(d: &Device, desc: &ResourceDesc) -> Resource {
    d.create_committed_resource(HeapType::Default, desc, BarrierLayout::Common).expect("texture")
}

/// Times `record` on a fresh list of `ty` per iteration (list creation is not timed).
fn bench(c: &mut Criterion, name: &str, d: &Device, ty: CommandListType, record: impl Fn(&mut CommandList)) {
    c.bench_function(name, |b| b.iter_batched_ref(|| list(d, ty), |l| record(l), BatchSize::SmallInput));
}

fn copies(c: &mut Criterion) {
    for (native, mode) in [(false, "fallback"), (true, "native")] {
        let d = device(native);
        let (src, dst) = (buffer(&d, 1 << 20, ResourceFlags::empty()), buffer(&d, 1 << 20, ResourceFlags::empty()));
        if !native {
            bench(c, "legacy CopyBufferRegion × 64", &d, CommandListType::Direct, |l| {
                (0..64).for_each(|i| l.copy_buffer_region(&dst, i * 4096, &src, i * 4096, 4096))
            });
        }
        let regions: Vec<_> = (0..64)
            .map(|i| BufferCopyRegion {
                dest: &dst,
                dest_offset: i * 4096,
                source: &src,
                source_offset: i * 4096,
                size: 4096,
            })
            .collect();
        bench(c, &format!("{mode} CopyBufferRegions of 64"), &d, CommandListType::Direct, |l| {
            l.copy_buffer_regions(&regions)
        });
    }
}

fn fills(c: &mut Criterion) {
    for (native, mode) in [(false, "fallback"), (true, "native")] {
        let d = device(native);
        for (flags, route) in
            [(ResourceFlags::ALLOW_UNORDERED_ACCESS, "compute route"), (ResourceFlags::empty(), "upload route")]
        {
            let b = buffer(&d, 1 << 20, flags);
            let fill = [FillBufferDesc {
                buffer: &b,
                offset: 0,
                fill_value: ClearData::from_uints([1, 2, 3, 4]),
                format: Format::Unknown,
                raw_pattern_size: 16,
                repeat_count: 1 << 16,
            }];
            bench(c, &format!("{mode} FillBuffers, {route}"), &d, CommandListType::Direct, |l| l.fill_buffers(&fill));
        }
    }
}

fn clear_desc(t: &Resource, value: ClearData) -> ClearTextureDesc<&Resource> {
    ClearTextureDesc { texture: t, subresource: 0, clear_value: value, format: Format::Unknown, region: None }
}

fn texture_clears(c: &mut Criterion) {
    // No channel on a rounding tie, so the in-place route may take it.
    let value = ClearData::from_floats([0.25, 0.2, 0.6, 1.0]);
    for (native, mode) in [(false, "fallback"), (true, "native")] {
        let d = device(native);
        let plain = texture(&d, &ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 256, 256));
        let rt = texture(
            &d,
            &ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 256, 256).with_flags(ResourceFlags::ALLOW_RENDER_TARGET),
        );
        let msaa = texture(&d, &ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 256, 256).with_samples(4, 0));
        let clear = |t| clear_desc(t, value);
        let known = |l: &mut CommandList, t: &Resource| {
            l.barrier(&[BarrierGroup::Texture(vec![TextureBarrier {
                sync_before: BarrierSync::ALL,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COMMON,
                access_after: BarrierAccess::COPY_DEST,
                layout_before: BarrierLayout::Common,
                layout_after: BarrierLayout::CopyDest,
                resource: t,
                subresources: BarrierSubresourceRange::ALL,
                flags: TextureBarrierFlags::empty(),
            }])])
        };
        bench(c, &format!("{mode} ClearTextureSubresources, pattern copy"), &d, CommandListType::Direct, |l| {
            l.clear_texture_subresources(&[clear(&plain)])
        });
        bench(
            c,
            &format!("{mode} ClearTextureSubresources, in place (with its barrier)"),
            &d,
            CommandListType::Direct,
            |l| {
                known(l, &rt);
                l.clear_texture_subresources(&[clear(&rt)])
            },
        );
        bench(c, &format!("{mode} ClearTextureSubresources, MSAA clear-and-copy"), &d, CommandListType::Direct, |l| {
            l.clear_texture_subresources(&[clear(&msaa)])
        });
    }
}

fn bound_clears(c: &mut Criterion) {
    for (native, mode) in [(false, "fallback"), (true, "native")] {
        let d = device(native);
        let heap = d.create_descriptor_heap(DescriptorHeapType::Rtv, 2).expect("heap");
        for (i, format) in [Format::R8G8B8A8Unorm, Format::R32Uint].into_iter().enumerate() {
            let desc = ResourceDesc::tex2d(format, 256, 256).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
            let t = d.create_committed_resource(HeapType::Default, &desc, BarrierLayout::RenderTarget).expect("target");
            d.create_render_target_view(&t, None, &heap.handle(i as u32)).expect("view");
            std::mem::forget(t);
        }
        let targets = [heap.handle(0), heap.handle(1)];
        if !native {
            bench(c, "legacy ClearRenderTargetView", &d, CommandListType::Direct, |l| {
                l.clear_render_target_view(&targets[0], [0.5; 4], &[])
            });
        }
        for (mask, what) in [(1, "float target (legacy clear)"), (2, "uint target (draws)")] {
            let values = [ClearData::from_uints([1, 2, 3, 4]); 2];
            bench(c, &format!("{mode} ClearBoundRenderTargetViews, {what}"), &d, CommandListType::Direct, |l| {
                l.om_set_render_targets(&targets, None);
                l.clear_bound_render_target_views(mask, &values, None)
            });
        }
    }
}

/// Times the recording of `record` as an app that records a frame does: one allocator, reset
/// after each list has run, so that the fallback's pools and caches are in their steady state.
fn bench_frames(c: &mut Criterion, name: &str, d: &Device, record: impl Fn(&mut CommandList)) {
    let queue = d.create_command_queue(CommandListType::Direct).expect("queue");
    let alloc = d.create_command_allocator(CommandListType::Direct).expect("allocator");
    c.bench_function(name, |b| {
        b.iter_custom(|iterations| {
            let mut spent = std::time::Duration::ZERO;
            for _ in 0..iterations {
                let mut l = d.create_command_list(CommandListType::Direct, &alloc).expect("list");
                let start = std::time::Instant::now();
                record(&mut l);
                spent += start.elapsed();
                l.close().expect("close");
                queue.execute_command_lists(&[&l]).expect("execute");
                queue.wait_idle(std::time::Duration::from_secs(60)).expect("wait");
                drop(l);
                alloc.reset().expect("reset");
            }
            spent
        })
    });
}

/// The bench's default workloads (the D3D12AsyncCommands sample's), legacy against the
/// fallback, recorded frame after frame: 256 fills of 1 MiB buffers, 256 clears of 512²
/// textures.
fn sample_workloads(c: &mut Criterion) {
    let d = device(false);
    let uav = ResourceFlags::ALLOW_UNORDERED_ACCESS;
    let buffers: Vec<Resource> = (0..256).map(|_| buffer(&d, 1 << 20, uav)).collect();
    let pattern = buffer(&d, 1 << 20, ResourceFlags::empty());
    bench_frames(c, "sample legacy copies of a pattern × 256", &d, |l| {
        buffers.iter().for_each(|b| l.copy_buffer_region(b, 0, &pattern, 0, 1 << 20))
    });
    let fills: Vec<_> = buffers
        .iter()
        .map(|buffer| FillBufferDesc {
            buffer,
            offset: 0,
            fill_value: ClearData::from_uints([1, 2, 3, 4]),
            format: Format::Unknown,
            raw_pattern_size: 16,
            repeat_count: 1 << 16,
        })
        .collect();
    bench_frames(c, "sample fallback FillBuffers × 256", &d, |l| l.fill_buffers(&fills));
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 512, 512);
    let textures: Vec<Resource> = (0..256).map(|_| texture(&d, &desc)).collect();
    let fp = d.copyable_footprints(&desc, 0, 1, 0).expect("footprint");
    let upload = d
        .create_committed_resource(HeapType::Upload, &ResourceDesc::buffer(fp.total_bytes), BarrierLayout::Undefined)
        .expect("upload");
    bench_frames(c, "sample legacy copies of an uploaded image × 256", &d, |l| {
        for t in &textures {
            let (dl, sl) =
                (TextureCopyLocation::subresource(t, 0), TextureCopyLocation::footprint(&upload, fp.layouts[0]));
            l.copy_texture_region(&dl, 0, 0, 0, &sl, None);
        }
    });
    let value = ClearData::from_floats([0.2, 0.4, 0.6, 0.8]);
    let clears: Vec<_> = textures.iter().map(|t| clear_desc(t, value)).collect();
    bench_frames(c, "sample fallback ClearTextureSubresources × 256", &d, |l| l.clear_texture_subresources(&clears));
    // The copy-route sweep's one large clear, and the one copy an app would record instead.
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 1024, 1024);
    let large = texture(&d, &desc);
    let fp = d.copyable_footprints(&desc, 0, 1, 0).expect("footprint");
    let image = d
        .create_committed_resource(HeapType::Upload, &ResourceDesc::buffer(fp.total_bytes), BarrierLayout::Undefined)
        .expect("upload");
    bench_frames(c, "sample legacy copy of an uploaded 1024² image", &d, |l| {
        let (dl, sl) =
            (TextureCopyLocation::subresource(&large, 0), TextureCopyLocation::footprint(&image, fp.layouts[0]));
        l.copy_texture_region(&dl, 0, 0, 0, &sl, None);
    });
    bench_frames(c, "sample fallback ClearTextureSubresources of 1024²", &d, |l| {
        l.clear_texture_subresources(&[clear_desc(&large, value)])
    });
}

/// One stream (64 × a root UAV, a dispatch into it, the app's barrier where asked, a copy of
/// it) on a plain list, a fast command buffer and a legacy one (which inserts the barriers):
/// what each semantics costs per recording, with nothing else on the machine's cores.
fn semantics(c: &mut Criterion) {
    use asyncmd::ddi::{ComputePipelineDesc, PipelineDesc, RootParameter, RootSignatureDesc, ShaderId};
    let d = device(true);
    let queue = d.create_command_queue(CommandListType::Direct).expect("queue");
    let root = d
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, asyncmd::ddi::FILL_CONSTANT_COUNT),
            RootParameter::uav(0),
        ]))
        .expect("root signature");
    let pso = d
        .create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
            root_signature: root.id(),
            cs: ShaderId::FillCs.into(),
        }))
        .expect("pipeline");
    let uavs: Vec<Resource> = (0..64).map(|_| buffer(&d, 4096, ResourceFlags::ALLOW_UNORDERED_ACCESS)).collect();
    let dsts: Vec<Resource> = (0..64).map(|_| buffer(&d, 4096, ResourceFlags::empty())).collect();
    let record = |l: &mut CommandRecorder, barriers: bool| {
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        l.set_compute_root_32bit_constants(0, &[7, 0, 0, 0, 1, 1024], 0);
        for (u, dst) in uavs.iter().zip(&dsts) {
            l.set_compute_root_unordered_access_view(1, u.gpu_address(0));
            l.dispatch(16, 1, 1);
            if barriers {
                l.barrier(&[BarrierGroup::Buffer(vec![BufferBarrier {
                    sync_before: BarrierSync::COMPUTE_SHADING,
                    sync_after: BarrierSync::COPY,
                    access_before: BarrierAccess::UNORDERED_ACCESS,
                    access_after: BarrierAccess::COPY_SOURCE,
                    resource: u,
                    offset: 0,
                    size: u64::MAX,
                }])]);
            }
            l.copy_buffer_region(dst, 0, u, 0, 4096);
        }
    };
    bench(c, "semantics: dispatch stream, plain list", &d, CommandListType::Direct, |l| record(l, true));
    for (semantics, barriers, name) in [(Semantics::Fast, true, "fast"), (Semantics::Legacy, false, "legacy")] {
        c.bench_function(&format!("semantics: dispatch stream, {name} command buffer"), |b| {
            b.iter_batched_ref(
                || queue.create_command_buffer(semantics, Level::Primary).expect("command buffer"),
                |cb| record(cb, barriers),
                BatchSize::SmallInput,
            )
        });
    }
}

criterion_group!(benches, copies, fills, texture_clears, bound_clears, semantics, sample_workloads);
criterion_main!(benches);

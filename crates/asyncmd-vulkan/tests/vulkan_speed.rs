//! GPU timings on the Vulkan device, side by side: the two `CopyBufferRegion` paths
//! (`vkCmdCopyBuffer` and the compute copy), and the async copies and fills as legacy loops,
//! fallback and native. Ignored by default: run it on a real GPU with
//! `cargo test --release -p asyncmd-vulkan --test vulkan_speed -- --ignored --nocapture`.

// The runtime's test helpers, shared with its own tests.
#[path = "../../asyncmd/tests/common/mod.rs"]
mod common;

use asyncmd::types::*;
use asyncmd::{Adapter, Resource};
use asyncmd_vulkan::{ComputeCopies, VulkanOptions};
use common::*;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median GPU milliseconds of `copies` copies of `size` bytes each, recorded in one list.
fn time(ctx: &Ctx, size: u64, copies: u32) -> Result<f64> {
    let n = copies as u64;
    let src = ctx.device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(size * n),
        BarrierLayout::Undefined,
    )?;
    let dst = ctx.device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(size * n),
        BarrierLayout::Undefined,
    )?;
    let heap = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 2 })?;
    let out = ctx.buffer(HeapType::Readback, 16);
    let freq = ctx.direct.timestamp_frequency() as f64;
    let mut samples = Vec::new();
    for run in 0..8 {
        ctx.run(CommandListType::Direct, |l| {
            l.end_query(&heap, QueryType::Timestamp, 0);
            for i in 0..n {
                l.copy_buffer_region(&dst, i * size, &src, i * size, size);
            }
            l.end_query(&heap, QueryType::Timestamp, 1);
            l.resolve_query_data(&heap, QueryType::Timestamp, 0, 2, &out, 0);
        });
        let b = out.read_vec(0, 16)?;
        let t0 = u64::from_le_bytes(b[..8].try_into().unwrap());
        let t1 = u64::from_le_bytes(b[8..].try_into().unwrap());
        if run > 0 {
            samples.push((t1 - t0) as f64 / freq * 1e3);
        }
    }
    Ok(median(samples))
}

#[test]
#[ignore = "a measurement for real GPUs, not a check"]
fn copy_buffer_region_paths() {
    let open = |c| vulkan_ctx(VulkanOptions { compute_copies: c, ..Default::default() });
    let (Some(transfer), Some(compute)) = (open(ComputeCopies::Never), open(ComputeCopies::Always)) else {
        eprintln!("no Vulkan device");
        return;
    };
    let auto = asyncmd_vulkan::VulkanDevice::open(0, VulkanOptions::default()).unwrap();
    println!("device: {}", transfer.device.capabilities().name);
    println!("compute copies chosen by the one-time measurement from: {:?} bytes", auto.compute_copy_threshold());
    println!("| copies × size | vkCmdCopyBuffer ms | GB/s | compute copy ms | GB/s | compute / transfer speed |");
    println!("|---|---|---|---|---|---|");
    // Software devices (lavapipe) get small sizes only.
    let software = transfer.device.capabilities().uma;
    let cases: &[(u32, u64)] = if software {
        &[(1, 16 << 20), (1, 64 << 20), (64, 64 << 10), (256, 16 << 10)]
    } else {
        &[
            (1, 16 << 20),
            (1, 64 << 20),
            (1, 256 << 20),
            (1, 1 << 30),
            (1, 4 << 30),
            (64, 64 << 10),
            (64, 1 << 20),
            (256, 16 << 10),
        ]
    };
    for &(n, size) in cases {
        let t = time(&transfer, size, n);
        let c = time(&compute, size, n);
        match (t, c) {
            (Ok(t), Ok(c)) => {
                let moved = (n as u64 * size) as f64 / 1e9;
                println!(
                    "| {n} × {} KiB | {t:.4} | {:.0} | {c:.4} | {:.0} | {:.2}× |",
                    size >> 10,
                    moved / (t / 1e3),
                    moved / (c / 1e3),
                    t / c
                );
            }
            (t, c) => println!("| {n} × {} KiB | {t:?} | | {c:?} | | |", size >> 10),
        }
    }
}

/// Median GPU milliseconds of `record` run as one list.
fn time_list(ctx: &Ctx, record: impl Fn(&mut asyncmd::CommandList)) -> f64 {
    time_between(ctx, |_| {}, record, |_| {})
}

#[test]
#[ignore = "a measurement for real GPUs, not a check"]
fn async_copies_and_fills_legacy_fallback_native() {
    let Some(fallback) = vulkan_ctx_opted_in(false) else {
        eprintln!("no Vulkan device");
        return;
    };
    let native = vulkan_ctx_opted_in(true).unwrap();
    println!("device: {}", fallback.device.capabilities().name);
    println!("| work | legacy loop ms | fallback ms | native ms | fallback / legacy | native speedup |");
    println!("|---|---|---|---|---|---|");
    for &(n, size) in &[(64u64, 64u64 << 10), (256, 16 << 10), (64, 1 << 20), (8, 64 << 20)] {
        let setup = |ctx: &Ctx| {
            let d = ResourceDesc::buffer(n * size).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
            let src = ctx.device.create_committed_resource(HeapType::Default, &d, BarrierLayout::Undefined).unwrap();
            let dst = ctx.device.create_committed_resource(HeapType::Default, &d, BarrierLayout::Undefined).unwrap();
            (src, dst)
        };
        let (fs, fd) = setup(&fallback);
        let (ns, nd) = setup(&native);
        let legacy =
            time_list(&fallback, |l| (0..n).for_each(|i| l.copy_buffer_region(&fd, i * size, &fs, i * size, size)));
        let batch = |l: &mut asyncmd::CommandList, s: &Resource, d: &Resource| {
            let r: Vec<BufferCopyRegion<&Resource>> = (0..n)
                .map(|i| BufferCopyRegion { dest: d, dest_offset: i * size, source: s, source_offset: i * size, size })
                .collect();
            l.copy_buffer_regions(&r);
        };
        let fb = time_list(&fallback, |l| batch(l, &fs, &fd));
        let nt = time_list(&native, |l| batch(l, &ns, &nd));
        println!(
            "| CopyBufferRegions {n} × {} KiB | {legacy:.4} | {fb:.4} | {nt:.4} | {:.2} | {:.1}× |",
            size >> 10,
            fb / legacy,
            legacy / nt
        );
        let fills = |l: &mut asyncmd::CommandList, d: &Resource| {
            let f: Vec<FillBufferDesc<&Resource>> = (0..n)
                .map(|i| FillBufferDesc {
                    buffer: d,
                    offset: i * size,
                    fill_value: ClearData::from_uints([7, 8, 9, 10]),
                    format: Format::Unknown,
                    raw_pattern_size: 16,
                    repeat_count: (size / 16) as u32,
                })
                .collect();
            l.fill_buffers(&f);
        };
        let ff = time_list(&fallback, |l| fills(l, &fd));
        let nf = time_list(&native, |l| fills(l, &nd));
        println!("| FillBuffers {n} × {} KiB | | {ff:.4} | {nf:.4} | | {:.1}× (vs fallback) |", size >> 10, ff / nf);
    }
}

fn vulkan_ctx_opted_in(native: bool) -> Option<Ctx> {
    let vk = vulkan_driver_with(VulkanOptions { native_async_commands: native, ..Default::default() })?;
    let device = opted_in(&Adapter::new(vk.clone() as std::sync::Arc<dyn asyncmd::ddi::DeviceDdi>));
    let mut ctx = Ctx::new(device);
    ctx.vulkan = Some(vk);
    Some(ctx)
}

/// Median GPU milliseconds of `record`, with `before` and `after` recorded outside the timed
/// span of the same list.
fn time_between(
    ctx: &Ctx,
    before: impl Fn(&mut asyncmd::CommandList),
    record: impl Fn(&mut asyncmd::CommandList),
    after: impl Fn(&mut asyncmd::CommandList),
) -> f64 {
    let heap = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 2 }).unwrap();
    let out = ctx.buffer(HeapType::Readback, 16);
    let freq = ctx.direct.timestamp_frequency() as f64;
    let mut samples = Vec::new();
    for run in 0..8 {
        ctx.run(CommandListType::Direct, |l| {
            before(l);
            l.end_query(&heap, QueryType::Timestamp, 0);
            record(l);
            l.end_query(&heap, QueryType::Timestamp, 1);
            after(l);
            l.resolve_query_data(&heap, QueryType::Timestamp, 0, 2, &out, 0);
        });
        let b = out.read_vec(0, 16).unwrap();
        let (t0, t1) = (u64::from_le_bytes(b[..8].try_into().unwrap()), u64::from_le_bytes(b[8..].try_into().unwrap()));
        if run > 0 {
            samples.push((t1 - t0) as f64 / freq * 1e3);
        }
    }
    median(samples)
}

#[test]
#[ignore = "a measurement for real GPUs, not a check"]
fn texture_clear_routes_and_the_quarter_threshold() {
    let Some(fallback) = vulkan_ctx_opted_in(false) else {
        eprintln!("no Vulkan device");
        return;
    };
    let native = vulkan_ctx_opted_in(true).unwrap();
    let side = if fallback.device.capabilities().uma { 1024 } else { 4096 };
    println!("device: {}", fallback.device.capabilities().name);
    println!("{side}² RGBA8 render target, regions of full rows; the in-place time includes its two transitions");
    println!("| coverage | pattern copy ms | in-place ms | native ms | in-place / copy |");
    println!("|---|---|---|---|---|");
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let ft = fallback.texture(&desc, BarrierLayout::Common);
    let nt = native.texture(&desc, BarrierLayout::Common);
    let rtv = fallback.device.create_descriptor_heap(asyncmd::DescriptorHeapType::Rtv, 1).unwrap();
    fallback.device.create_render_target_view(&ft, None, &rtv.handle(0)).unwrap();
    let value = ClearData::from_floats([0.2, 0.4, 0.6, 0.8]);
    for (num, den) in [(1u32, 64u32), (1, 16), (1, 8), (1, 4), (17, 64), (1, 2), (1, 1)] {
        let rows = side * num / den;
        let region = (num != den).then_some(Box3::new(0, 0, 0, side, rows, 1));
        let clear = |l: &mut asyncmd::CommandList, t: &Resource| {
            l.clear_texture_subresources(&[ClearTextureDesc {
                texture: t,
                subresource: 0,
                clear_value: value,
                format: Format::Unknown,
                region,
            }])
        };
        let none = |_: &mut asyncmd::CommandList| {};
        // Without a barrier of the list's own the layout is unknown: the pattern copy.
        let copy = time_between(&fallback, none, |l| clear(l, &ft), none);
        // The in-place route's commands at every coverage: both transitions and the view clear.
        let to = |l: &mut asyncmd::CommandList| barrier(l, &ft, BarrierLayout::Common, BarrierLayout::CopyDest);
        let back = |l: &mut asyncmd::CommandList| barrier(l, &ft, BarrierLayout::CopyDest, BarrierLayout::Common);
        let rect = [Rect::new(0, 0, side as i32, rows as i32)];
        let in_place = time_between(
            &fallback,
            to,
            |l| {
                barrier(l, &ft, BarrierLayout::CopyDest, BarrierLayout::RenderTarget);
                l.clear_render_target_view(&rtv.handle(0), value.floats(), if num == den { &[] } else { &rect });
                barrier(l, &ft, BarrierLayout::RenderTarget, BarrierLayout::CopyDest);
            },
            back,
        );
        let nat = time_between(&native, none, |l| clear(l, &nt), none);
        println!("| {num}/{den} | {copy:.4} | {in_place:.4} | {nat:.4} | {:.2} |", in_place / copy);
    }
}

#[test]
#[ignore = "a measurement for real GPUs, not a check"]
fn image_write_paths() {
    let Some(fallback) = vulkan_ctx_opted_in(false) else {
        eprintln!("no Vulkan device");
        return;
    };
    let native = vulkan_ctx_opted_in(true).unwrap();
    println!("device: {}", fallback.device.capabilities().name);
    println!("| target | vkCmdClearColorImage ms | GB/s | draws (fallback bound clear in a pass) ms | GB/s | vkCmdClearAttachments (native, in a pass) ms | GB/s |");
    println!("|---|---|---|---|---|---|---|");
    let sides: &[u32] = if fallback.device.capabilities().uma { &[1024] } else { &[2048, 4096, 8192] };
    for &side in sides {
        for format in [Format::R8G8B8A8Unorm, Format::R32G32B32A32Float] {
            let desc = ResourceDesc::tex2d(format, side, side).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
            let setup = |ctx: &Ctx| {
                let t = ctx.texture(&desc, BarrierLayout::RenderTarget);
                let heap = ctx.device.create_descriptor_heap(asyncmd::DescriptorHeapType::Rtv, 1).unwrap();
                ctx.device.create_render_target_view(&t, None, &heap.handle(0)).unwrap();
                (t, heap)
            };
            let (ft, fheap) = setup(&fallback);
            let (nt, nheap) = setup(&native);
            let pass = |l: &mut asyncmd::CommandList, heap: &asyncmd::DescriptorHeap| {
                let target = RenderPassRenderTarget {
                    view: heap.handle(0),
                    beginning: BeginningAccess::Preserve,
                    ending: EndingAccess::<&Resource>::Preserve,
                };
                l.begin_render_pass(&[target], None, RenderPassFlags::empty());
            };
            let value = [ClearData::from_floats([0.2, 0.4, 0.6, 0.8])];
            let view_clear =
                time_list(&fallback, |l| l.clear_render_target_view(&fheap.handle(0), [0.2, 0.4, 0.6, 0.8], &[]));
            let draws = time_between(
                &fallback,
                |l| pass(l, &fheap),
                |l| l.clear_bound_render_target_views(1, &value, None),
                |l| l.end_render_pass(),
            );
            let attach = time_between(
                &native,
                |l| pass(l, &nheap),
                |l| l.clear_bound_render_target_views(1, &value, None),
                |l| l.end_render_pass(),
            );
            let gb = (side as f64 * side as f64 * format.bytes_per_block() as f64) / 1e9;
            let rate = |ms: f64| gb / (ms / 1e3);
            println!(
                "| {side}² {format} | {view_clear:.4} | {:.0} | {draws:.4} | {:.0} | {attach:.4} | {:.0} |",
                rate(view_clear),
                rate(draws),
                rate(attach)
            );
            drop((ft, nt));
        }
    }
}

/// The batched kernels' bandwidth from 64 MiB to 4 GiB, whatever the mix of part sizes, beside
/// the transfer commands' on the same run: `vkCmdFillBuffer` (a native fill of a dword pattern
/// where transfers are forced) and the legacy `CopyBufferRegion` of the whole batch at once.
#[test]
#[ignore = "a measurement for real GPUs, not a check"]
fn native_kernel_bandwidth() {
    let Some(native) = vulkan_ctx_opted_in(true) else {
        eprintln!("no Vulkan device");
        return;
    };
    let transfers = {
        let options = VulkanOptions { compute_copies: ComputeCopies::Never, ..Default::default() };
        let vk = vulkan_driver_with(options).unwrap();
        let mut ctx = Ctx::new(opted_in(&Adapter::new(vk.clone() as std::sync::Arc<dyn asyncmd::ddi::DeviceDdi>)));
        ctx.vulkan = Some(vk);
        ctx
    };
    println!("device: {}", native.device.capabilities().name);
    println!("TB/s: bytes written (fills, clears) or copied (copies) per second of GPU time");
    println!("| bytes | parts | native FillBuffers TB/s | vkCmdFillBuffer TB/s | native CopyBufferRegions TB/s | one legacy copy TB/s | native CopyResources TB/s |");
    println!("|---|---|---|---|---|---|---|");
    let uma = native.device.capabilities().uma;
    let totals: &[u64] = if uma { &[64 << 20] } else { &[64 << 20, 256 << 20, 1 << 30, 4 << 30] };
    let buffer = |ctx: &Ctx, bytes: u64| {
        let d = ResourceDesc::buffer(bytes).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        ctx.device.create_committed_resource(HeapType::Default, &d, BarrierLayout::Undefined).unwrap()
    };
    for &total in totals {
        let (src, dst) = (buffer(&native, total), buffer(&native, total));
        let fill_dst = buffer(&transfers, total);
        // Parts: one; 1 MiB each; half the bytes in 16 KiB parts and half in one.
        let shapes: [(&str, Vec<(u64, u64)>); 3] = [
            ("1", vec![(0, total)]),
            ("1 MiB each", (0..total >> 20).map(|i| (i << 20, 1 << 20)).collect()),
            (
                "half 16 KiB, half one",
                (0..(total / 2) >> 14).map(|i| (i << 14, 1 << 14)).chain([(total / 2, total / 2)]).collect(),
            ),
        ];
        let tb = |ms: f64| total as f64 / (ms / 1e3) / 1e12;
        let reference_fill = time_list(&transfers, |l| {
            l.fill_buffers(&[FillBufferDesc {
                buffer: &fill_dst,
                offset: 0,
                fill_value: ClearData::from_uints([7; 4]),
                format: Format::Unknown,
                raw_pattern_size: 4,
                repeat_count: (total / 4) as u32,
            }])
        });
        let one_copy = time_list(&native, |l| l.copy_buffer_region(&dst, 0, &src, 0, total));
        for (name, parts) in &shapes {
            let fill = time_list(&native, |l| {
                let f: Vec<_> = parts
                    .iter()
                    .map(|&(offset, bytes)| FillBufferDesc {
                        buffer: &dst,
                        offset,
                        fill_value: ClearData::from_uints([1, 2, 3, 4]),
                        format: Format::Unknown,
                        raw_pattern_size: 16,
                        repeat_count: (bytes / 16) as u32,
                    })
                    .collect();
                l.fill_buffers(&f);
            });
            let copy = time_list(&native, |l| {
                let r: Vec<_> = parts
                    .iter()
                    .map(|&(o, n)| BufferCopyRegion {
                        dest: &dst,
                        dest_offset: o,
                        source: &src,
                        source_offset: o,
                        size: n,
                    })
                    .collect();
                l.copy_buffer_regions(&r);
            });
            let resources = if parts.len() <= 64 {
                let pairs: Vec<(Resource, Resource)> =
                    parts.iter().map(|&(_, n)| (buffer(&native, n), buffer(&native, n))).collect();
                let ms = time_list(&native, |l| {
                    let refs: Vec<(&Resource, &Resource)> = pairs.iter().map(|(d, s)| (d, s)).collect();
                    l.copy_resources(&refs);
                });
                format!("{:.2}", tb(ms))
            } else {
                String::new()
            };
            println!(
                "| {} MiB | {name} | {:.2} | {:.2} | {:.2} | {:.2} | {resources} |",
                total >> 20,
                tb(fill),
                tb(reference_fill),
                tb(copy),
                tb(one_copy)
            );
        }
    }
    println!();
    println!("| texture work | native ms | TB/s | legacy ms | native speedup |");
    println!("|---|---|---|---|---|");
    let side = if uma { 1024 } else { 8192 };
    for format in [Format::R8G8B8A8Unorm, Format::R32G32B32A32Float] {
        let desc = ResourceDesc::tex2d(format, side, side);
        let (a, b) = (native.texture(&desc, BarrierLayout::Common), native.texture(&desc, BarrierLayout::Common));
        let bytes = side as f64 * side as f64 * format.bytes_per_block() as f64;
        let rate = |ms: f64| bytes / (ms / 1e3) / 1e12;
        let clear = time_list(&native, |l| {
            l.clear_texture_subresources(&[ClearTextureDesc {
                texture: &a,
                subresource: 0,
                clear_value: ClearData::from_floats([0.2, 0.4, 0.6, 0.8]),
                format: Format::Unknown,
                region: None,
            }])
        });
        println!("| ClearTextureSubresources {side}² {format} | {clear:.4} | {:.2} | | |", rate(clear));
        let copy = time_list(&native, |l| l.copy_resources(&[(&b, &a)]));
        let legacy = time_list(&native, |l| l.copy_resource(&b, &a));
        println!(
            "| CopyResources {side}² {format} | {copy:.4} | {:.2} | {legacy:.4} | {:.1}× |",
            rate(copy),
            legacy / copy
        );
    }
    // Resolves: bytes read (every sample) per second.
    let side = side / 2;
    let f = Format::R8G8B8A8Unorm;
    let ms = ResourceDesc::tex2d(f, side, side).with_samples(4, 0).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let src = native.texture(&ms, BarrierLayout::ResolveSource);
    let dst = native.texture(&ResourceDesc::tex2d(f, side, side), BarrierLayout::ResolveDest);
    let avg = ResolveMode::Average;
    let kernel = time_list(&native, |l| l.resolve_subresource_region_async(&dst, 0, 0, 0, &src, 0, None, f, avg));
    let legacy = time_list(&native, |l| l.resolve_subresource_region(&dst, 0, 0, 0, &src, 0, None, f, avg));
    let read = side as f64 * side as f64 * 16.0;
    println!(
        "| ResolveSubresourceRegionAsync {side}² ×4 {f} | {kernel:.4} | {:.2} (read) | {legacy:.4} | {:.1}× |",
        read / (kernel / 1e3) / 1e12,
        legacy / kernel
    );
}

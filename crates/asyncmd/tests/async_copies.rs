//! The async copies and resolves, natively and through the fallback, on every device.

mod common;

use asyncmd::ddi::spy::SpyDevice;
use asyncmd::ddi::{Command, DeviceDdi};
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use common::*;
use proptest::prelude::*;
use std::sync::Arc;

#[test]
fn copy_buffer_regions_copy_every_region() {
    for (name, ctx) in async_contexts() {
        let data = pattern(1024, 1);
        let src = ctx.default_buffer(&data);
        let a = ctx.default_buffer(&[0; 512]);
        let b = ctx.default_buffer(&[0; 512]);
        ctx.run(CommandListType::Direct, |l| {
            l.copy_buffer_regions(&[
                BufferCopyRegion { dest: &a, dest_offset: 0, source: &src, source_offset: 100, size: 256 },
                BufferCopyRegion { dest: &b, dest_offset: 10, source: &src, source_offset: 0, size: 500 },
                BufferCopyRegion { dest: &a, dest_offset: 300, source: &src, source_offset: 700, size: 212 },
            ])
        });
        let (ra, rb) = (ctx.read_buffer(&a), ctx.read_buffer(&b));
        assert_eq!(&ra[..256], &data[100..356], "{name}");
        assert_eq!(&ra[256..300], &[0; 44], "{name}");
        assert_eq!(&ra[300..], &data[700..912], "{name}");
        assert_eq!(&rb[10..510], &data[..500], "{name}");
    }
}

/// A run of calls of one region each: the Vulkan device records it as one batch, so every
/// call's bytes must land, and a barrier after the run must see all of them (the batch is
/// recorded before it), as a second run that reads them shows.
#[test]
fn a_run_of_single_region_calls_lands_whole_and_before_the_barrier_after_it() {
    for (name, ctx) in async_contexts() {
        let data = pattern(64 * 256, 7);
        let src = ctx.default_buffer(&data);
        let (mid, out) = (ctx.default_buffer(&[0; 64 * 256]), ctx.default_buffer(&[0; 64 * 256]));
        ctx.run(CommandListType::Direct, |l| {
            // Chunk i of the source to chunk 63 - i of `mid`, one call each.
            for i in 0..64u64 {
                l.copy_buffer_regions(&[BufferCopyRegion {
                    dest: &mid,
                    dest_offset: (63 - i) * 256,
                    source: &src,
                    source_offset: i * 256,
                    size: 256,
                }]);
            }
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_SOURCE,
            }])]);
            for i in 0..64u64 {
                l.copy_buffer_regions(&[BufferCopyRegion {
                    dest: &out,
                    dest_offset: i * 256,
                    source: &mid,
                    source_offset: i * 256,
                    size: 256,
                }]);
            }
        });
        let (m, o) = (ctx.read_buffer(&mid), ctx.read_buffer(&out));
        for i in 0..64usize {
            assert!(m[(63 - i) * 256..][..256] == data[i * 256..][..256], "{name}: chunk {i} of the first run");
        }
        assert!(o == m, "{name}: the second run read the first one's bytes");
    }
}

#[test]
fn texture_resource_tile_and_resolve_copies_land_where_asked() {
    for (name, ctx) in async_contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 8);
        let data = pattern(256, 2);
        let t0 = ctx.texture(&desc, BarrierLayout::Common);
        let t1 = ctx.texture(&desc, BarrierLayout::Common);
        let t2 = ctx.texture(&desc, BarrierLayout::Common);
        let fp = ctx.device.copyable_footprints(&desc, 0, 1, 0).unwrap().layouts[0];
        let pitch = fp.footprint.row_pitch as usize;
        let upload = ctx.upload(&{
            let mut v = vec![0u8; pitch * 8];
            for y in 0..8 {
                v[y * pitch..y * pitch + 32].copy_from_slice(&data[y * 32..y * 32 + 32]);
            }
            v
        });
        ctx.run(CommandListType::Direct, |l| {
            l.copy_texture_regions(&[TextureCopyDesc {
                kind: TextureCopyKind::BufferToTexture { buffer: &upload, texture: &t0, subresource: 0, footprint: fp },
                regions: vec![TextureCopyRegion { dest_x: 0, dest_y: 0, dest_z: 0, source_box: None }],
            }]);
        });
        ctx.run(CommandListType::Compute, |l| {
            l.copy_resources(&[(&t1, &t0)]);
            l.copy_texture_regions(&[TextureCopyDesc {
                kind: TextureCopyKind::TextureToTexture {
                    dest: &t2,
                    dest_subresource: 0,
                    source: &t0,
                    source_subresource: 0,
                },
                regions: vec![
                    TextureCopyRegion {
                        dest_x: 4,
                        dest_y: 0,
                        dest_z: 0,
                        source_box: Some(Box3::new(0, 0, 0, 4, 2, 1)),
                    },
                    TextureCopyRegion {
                        dest_x: 0,
                        dest_y: 6,
                        dest_z: 0,
                        source_box: Some(Box3::new(4, 6, 0, 8, 8, 1)),
                    },
                ],
            }]);
        });
        assert_eq!(ctx.read_subresource(&t1, 0), data, "{name}: copy_resources");
        let out = ctx.read_subresource(&t2, 0);
        for y in 0..2 {
            assert_eq!(&out[y * 32 + 16..y * 32 + 32], &data[y * 32..y * 32 + 16], "{name}: region 0 row {y}");
        }
        for y in 6..8 {
            assert_eq!(&out[y * 32..y * 32 + 16], &data[y * 32 + 16..y * 32 + 32], "{name}: region 1 row {y}");
        }
        assert_eq!(&out[2 * 32..6 * 32], &[0; 128][..], "{name}: untouched rows");
    }
}

#[test]
fn resolve_and_query_resolve_async() {
    for (name, ctx) in async_contexts() {
        let desc = ResourceDesc::tex2d(Format::R8Unorm, 4, 4)
            .with_samples(4, 0)
            .with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let ms = ctx.texture(&desc, BarrierLayout::RenderTarget);
        let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
        ctx.device.create_render_target_view(&ms, None, &heap.handle(0)).unwrap();
        let dst = ctx.texture(&ResourceDesc::tex2d(Format::R8Unorm, 4, 4), BarrierLayout::ResolveDest);
        let ts = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 2 }).unwrap();
        let out = ctx.buffer(HeapType::Readback, 16);
        ctx.run(CommandListType::Direct, |l| {
            l.end_query(&ts, QueryType::Timestamp, 0);
            l.clear_render_target_view(&heap.handle(0), [0.6, 0.0, 0.0, 0.0], &[]);
            barrier(l, &ms, BarrierLayout::RenderTarget, BarrierLayout::ResolveSource);
            l.resolve_subresource_region_async(
                &dst,
                0,
                1,
                1,
                &ms,
                0,
                Some(&Rect::new(0, 0, 2, 2)),
                Format::R8Unorm,
                ResolveMode::Average,
            );
            l.end_query(&ts, QueryType::Timestamp, 1);
            l.resolve_query_data_async(&ts, QueryType::Timestamp, 0, 2, &out, 0);
        });
        let img = {
            ctx.run(CommandListType::Direct, |l| {
                barrier(l, &dst, BarrierLayout::ResolveDest, BarrierLayout::CopySource)
            });
            ctx.read_subresource(&dst, 0)
        };
        assert_eq!(img, vec![0, 0, 0, 0, 0, 153, 153, 0, 0, 153, 153, 0, 0, 0, 0, 0], "{name}");
        let b = out.read_vec(0, 16).unwrap();
        assert!(
            u64::from_le_bytes(b[8..].try_into().unwrap()) >= u64::from_le_bytes(b[..8].try_into().unwrap()),
            "{name}"
        );
    }
}

/// `ResolveQueryDataAsync` reads what the commands before it wrote, as `ResolveQueryData`
/// does beside it: a resolve that ran ahead of the writes would read the heap's older results
/// (each slot's value from its creation, or from the first list), or nothing. A Vulkan resolve
/// without `VK_QUERY_RESULT_WAIT_BIT` after a barrier, 400× faster on an H100, is not in the
/// tree: with it one test of this file failed on that GPU in every run, and the next test on
/// lavapipe (`docs/decisions.md`).
#[test]
fn query_resolves_async_read_what_the_commands_before_them_wrote() {
    for (name, ctx) in async_contexts() {
        let ts = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 4 }).unwrap();
        let occ = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 2 }).unwrap();
        let (native, legacy, first) =
            (ctx.default_buffer(&[7; 40]), ctx.default_buffer(&[9; 40]), ctx.default_buffer(&[5; 32]));
        let (src, sink) = (ctx.default_buffer(&pattern(4 << 20, 3)), ctx.default_buffer(&[0; 4 << 20]));
        ctx.run(CommandListType::Direct, |l| {
            (0..4).for_each(|i| l.end_query(&ts, QueryType::Timestamp, i));
            l.resolve_query_data_async(&ts, QueryType::Timestamp, 0, 4, &first, 0);
        });
        ctx.run(CommandListType::Direct, |l| {
            // Work for the GPU before the stamps, so that they land late.
            l.copy_buffer_region(&sink, 0, &src, 0, 4 << 20);
            l.end_query(&ts, QueryType::Timestamp, 1);
            l.end_query(&ts, QueryType::Timestamp, 2);
            // Written twice in one list: reset between the two writes, on Vulkan.
            l.end_query(&ts, QueryType::Timestamp, 2);
            l.begin_query(&occ, QueryType::BinaryOcclusion, 1);
            l.end_query(&occ, QueryType::BinaryOcclusion, 1);
            l.resolve_query_data_async(&ts, QueryType::Timestamp, 0, 4, &native, 0);
            l.resolve_query_data(&ts, QueryType::Timestamp, 0, 4, &legacy, 0);
            l.resolve_query_data_async(&occ, QueryType::BinaryOcclusion, 1, 1, &native, 32);
            l.resolve_query_data(&occ, QueryType::BinaryOcclusion, 1, 1, &legacy, 32);
        });
        let (n, l, f) = (ctx.read_buffer(&native), ctx.read_buffer(&legacy), ctx.read_buffer(&first));
        let stamp = |b: &[u8], i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!(n, l, "{name}: the async resolve reads what ResolveQueryData reads");
        assert_eq!(&n[..8], &f[..8], "{name}: slot 0, written by the first list only");
        assert_eq!(&n[24..32], &f[24..32], "{name}: slot 3, likewise");
        assert!(stamp(&f, 0) <= stamp(&f, 3), "{name}: the first list's stamps in order");
        assert!(stamp(&n, 1) > stamp(&f, 3), "{name}: slot 1 is this list's stamp, after the first list's");
        assert!(stamp(&n, 2) >= stamp(&n, 1), "{name}: slot 2 is the later of this list's two writes");
        assert_eq!(stamp(&n, 4), 0, "{name}: a binary occlusion query around no draw");
    }
}

/// A resolve reads the slots an earlier submission on its queue wrote, with no wait on the
/// host between them. On Vulkan a copy of query results that does not wait for them misses the
/// stamp here even after a full barrier (lavapipe), which is why every resolve waits.
#[test]
fn query_resolves_read_what_earlier_submissions_wrote() {
    for (name, ctx) in async_contexts() {
        let ts = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 3 }).unwrap();
        let (early, late, legacy) =
            (ctx.default_buffer(&[1; 24]), ctx.default_buffer(&[2; 24]), ctx.default_buffer(&[3; 24]));
        ctx.run(CommandListType::Direct, |l| {
            (0..3).for_each(|i| l.end_query(&ts, QueryType::Timestamp, i));
            l.resolve_query_data_async(&ts, QueryType::Timestamp, 0, 3, &early, 0);
        });
        let (src, sink) = (ctx.default_buffer(&pattern(8 << 20, 5)), ctx.default_buffer(&[0; 8 << 20]));
        let mut writes = ctx.list(CommandListType::Direct);
        // Work first, so that the stamp lands well after the submission starts.
        writes.copy_buffer_region(&sink, 0, &src, 0, 8 << 20);
        writes.end_query(&ts, QueryType::Timestamp, 1);
        writes.close().unwrap();
        let mut reads = ctx.list(CommandListType::Direct);
        reads.resolve_query_data_async(&ts, QueryType::Timestamp, 0, 3, &late, 0);
        reads.resolve_query_data(&ts, QueryType::Timestamp, 0, 3, &legacy, 0);
        reads.close().unwrap();
        let q = ctx.queue(CommandListType::Direct);
        q.execute_command_lists(&[&writes]).unwrap();
        q.execute_command_lists(&[&reads]).unwrap();
        q.wait_idle(std::time::Duration::from_secs(20)).unwrap();
        let (e, l, g) = (ctx.read_buffer(&early), ctx.read_buffer(&late), ctx.read_buffer(&legacy));
        let stamp = |b: &[u8], i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!(l, g, "{name}: the async resolve reads what ResolveQueryData reads");
        assert_eq!((stamp(&l, 0), stamp(&l, 2)), (stamp(&e, 0), stamp(&e, 2)), "{name}: slots 0 and 2 unchanged");
        assert!(stamp(&l, 1) > stamp(&e, 2), "{name}: slot 1 is the second submission's stamp");
    }
}

#[test]
fn copy_tiles_async_moves_tiles() {
    for (name, ctx) in async_contexts() {
        if ctx.device.capabilities().tiled_resources_tier < 2 {
            continue;
        }
        let (reserved, _heap) =
            mapped_reserved(&ctx, &ResourceDesc::buffer(2 * TILE_SIZE_IN_BYTES), BarrierLayout::Undefined, 2);
        let data = pattern(2 * TILE_SIZE_IN_BYTES as usize, 3);
        let src = ctx.default_buffer(&data);
        let back = ctx.buffer(HeapType::Default, 2 * TILE_SIZE_IN_BYTES);
        ctx.run(CommandListType::Copy, |l| {
            let size = TileRegionSize { num_tiles: 2, ..Default::default() };
            let flags = TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE | TileCopyFlags::NO_HAZARD;
            l.copy_tiles_async(&reserved, &TiledResourceCoordinate::default(), &size, &src, 0, flags);
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_SOURCE,
            }])]);
            let flags = TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER;
            l.copy_tiles_async(&reserved, &TiledResourceCoordinate::default(), &size, &back, 0, flags);
        });
        assert_eq!(ctx.read_buffer(&back), data, "{name}");
    }
}

fn spy_device(native: bool) -> (Device, asyncmd::ddi::spy::SpyLog) {
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(ReferenceConfig {
        native_async_commands: native,
        ..Default::default()
    }))));
    let log = spy.log();
    (opted_in(&Adapter::new(spy as Arc<dyn DeviceDdi>)), log)
}

#[test]
fn the_fallback_emits_loops_of_legacy_calls_and_native_one_call() {
    for native in [false, true] {
        let (device, log) = spy_device(native);
        let ctx = Ctx::new(device);
        let src = ctx.default_buffer(&[1; 64]);
        let dst = ctx.buffer(HeapType::Default, 64);
        let t = ctx.texture(&ResourceDesc::tex2d(Format::R8Unorm, 4, 4), BarrierLayout::Common);
        let u = ctx.texture(&ResourceDesc::tex2d(Format::R8Unorm, 4, 4), BarrierLayout::Common);
        log.clear();
        ctx.run(CommandListType::Direct, |l| {
            l.copy_buffer_regions(&[
                BufferCopyRegion { dest: &dst, dest_offset: 0, source: &src, source_offset: 0, size: 16 },
                BufferCopyRegion { dest: &dst, dest_offset: 16, source: &src, source_offset: 16, size: 16 },
                BufferCopyRegion { dest: &dst, dest_offset: 32, source: &src, source_offset: 32, size: 16 },
            ]);
            l.copy_resources(&[(&u, &t)]);
        });
        let names = log.names();
        if native {
            assert_eq!(names, vec!["CopyBufferRegions", "CopyResources"]);
        } else {
            assert_eq!(names, vec!["CopyBufferRegion", "CopyBufferRegion", "CopyBufferRegion", "CopyResource"]);
            match &log.commands()[1] {
                Command::CopyBufferRegion(r) => assert_eq!((r.dest_offset, r.source_offset, r.size), (16, 16, 16)),
                c => panic!("{c:?}"),
            }
        }
        assert_eq!(&ctx.read_buffer(&dst)[..48], &[1; 48]);
    }
}

#[test]
fn tile_copies_keep_their_flags_through_the_fallback() {
    let (device, log) = spy_device(false);
    let ctx = Ctx::new(device);
    let (reserved, _heap) =
        mapped_reserved(&ctx, &ResourceDesc::buffer(TILE_SIZE_IN_BYTES), BarrierLayout::Undefined, 1);
    let buf = ctx.buffer(HeapType::Default, TILE_SIZE_IN_BYTES);
    log.clear();
    let flags = TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER | TileCopyFlags::NO_HAZARD;
    ctx.run(CommandListType::Direct, |l| {
        l.copy_tiles_async(
            &reserved,
            &TiledResourceCoordinate::default(),
            &TileRegionSize { num_tiles: 1, ..Default::default() },
            &buf,
            0,
            flags,
        )
    });
    match log.commands().as_slice() {
        [Command::CopyTiles(t)] => assert_eq!(t.flags, flags),
        other => panic!("{other:?}"),
    }
}

#[test]
fn async_commands_on_a_device_without_them_fail() {
    let _g = ForceFallbackGuard::new(false);
    let ctx = Ctx::reference();
    assert_eq!(ctx.device.async_commands_impl(), AsyncCommandsImpl::NotSupported);
    let b = ctx.buffer(HeapType::Default, 16);
    let r = ctx.record(CommandListType::Direct, |l| {
        l.copy_buffer_regions(&[BufferCopyRegion { dest: &b, dest_offset: 0, source: &b, source_offset: 8, size: 8 }])
    });
    let e = assert_error(r, ErrorCode::Fail, MessageId::AsyncCommandsNotSupported);
    assert!(e.text.starts_with("CopyBufferRegions"), "{}", e.text);
}

#[test]
fn bad_async_inputs_get_their_errors() {
    for (name, ctx) in async_contexts() {
        let b = ctx.buffer(HeapType::Default, 256);
        let c = ctx.buffer(HeapType::Default, 256);
        let upload = ctx.buffer(HeapType::Upload, 256);
        // A region that reads what another writes.
        let r = ctx.record(CommandListType::Direct, |l| {
            l.copy_buffer_regions(&[
                BufferCopyRegion { dest: &b, dest_offset: 0, source: &c, source_offset: 0, size: 64 },
                BufferCopyRegion { dest: &c, dest_offset: 32, source: &b, source_offset: 0, size: 16 },
            ])
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::CopyBufferRegionsOverlappingRegions);
        // Out of range, and an UPLOAD destination.
        let r = ctx.record(CommandListType::Copy, |l| {
            l.copy_buffer_regions(&[BufferCopyRegion {
                dest: &b,
                dest_offset: 200,
                source: &c,
                source_offset: 0,
                size: 64,
            }])
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::CopyBufferRegionInvalidParameters);
        let r = ctx.record(CommandListType::Copy, |l| {
            l.copy_buffer_regions(&[BufferCopyRegion {
                dest: &upload,
                dest_offset: 0,
                source: &c,
                source_offset: 0,
                size: 64,
            }])
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::CopyBufferRegionInvalidParameters);
        // An UPLOAD destination of a query resolve, native and fallback alike.
        let q = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 1 }).unwrap();
        let r = ctx.record(CommandListType::Direct, |l| {
            l.resolve_query_data_async(&q, QueryType::Timestamp, 0, 1, &upload, 0)
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::ResolveQueryDataInvalidParameters);
        assert!(e.text.contains("UPLOAD"), "{name}: {}", e.text);
        let r =
            ctx.record(CommandListType::Direct, |l| l.resolve_query_data_async(&q, QueryType::Timestamp, 0, 1, &b, 4));
        assert_error(r, ErrorCode::InvalidArg, MessageId::ResolveQueryDataInvalidParameters);
        // Queue rules: resolves are direct-only; nothing async in bundles.
        let t = ctx.texture(&ResourceDesc::tex2d(Format::R8Unorm, 4, 4), BarrierLayout::Common);
        let r = ctx.record(CommandListType::Compute, |l| {
            l.resolve_subresource_region_async(&t, 0, 0, 0, &t, 0, None, Format::R8Unorm, ResolveMode::Decompress)
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::CommandListTypeMismatch);
        let r = ctx.record(CommandListType::Bundle, |l| l.copy_resources(&[(&b, &c)]));
        assert_error(r, ErrorCode::InvalidArg, MessageId::CommandListTypeMismatch);
        // Sampler-feedback modes are not supported.
        let r = ctx.record(CommandListType::Direct, |l| {
            l.resolve_subresource_region_async(
                &t,
                0,
                0,
                0,
                &t,
                0,
                None,
                Format::R8Unorm,
                ResolveMode::DecodeSamplerFeedback,
            )
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::ResolveSubresourceInvalidParameters);
        // Reserved-resource rules hold for the async tile copy too.
        let r = ctx.record(CommandListType::Direct, |l| {
            l.copy_tiles_async(
                &b,
                &TiledResourceCoordinate::default(),
                &TileRegionSize { num_tiles: 1, ..Default::default() },
                &c,
                0,
                TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE,
            )
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::CopyTilesInvalidParameters);
    }
}

#[test]
fn overlapping_destinations_are_legal_and_reported() {
    for (name, ctx) in async_contexts() {
        let src = ctx.default_buffer(&[7; 64]);
        let dst = ctx.buffer(HeapType::Default, 64);
        ctx.device.info_queue().clear();
        ctx.run(CommandListType::Direct, |l| {
            l.copy_buffer_regions(&[
                BufferCopyRegion { dest: &dst, dest_offset: 0, source: &src, source_offset: 0, size: 32 },
                BufferCopyRegion { dest: &dst, dest_offset: 16, source: &src, source_offset: 32, size: 32 },
            ])
        });
        assert!(ctx.device.info_queue().contains(MessageId::CopyBufferRegionsOverlappingRegions), "{name}");
        let mut want = vec![7; 48];
        want.extend([0; 16]);
        assert_eq!(ctx.read_buffer(&dst), want, "{name}");
    }
}

#[derive(Clone, Debug)]
struct Region {
    dst: usize,
    src: usize,
    doff: u64,
    soff: u64,
    size: u64,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Batches of non-conflicting regions give the same bytes natively and through the
    /// fallback, and match a CPU model.
    #[test]
    fn native_and_fallback_agree_with_the_model(
        regions in prop::collection::vec((0..3usize, 0..3usize, 0..512u64, 0..512u64, 1..256u64)
            .prop_map(|(dst, src, doff, soff, size)| Region { dst, src, doff, soff, size }), 1..8)
    ) {
        let regions: Vec<Region> = regions.into_iter().filter(|r| r.doff + r.size <= 512 && r.soff + r.size <= 512).collect();
        // Only batches where no region reads what another writes are valid.
        let conflict = regions.iter().enumerate().any(|(i, a)| regions.iter().enumerate().any(|(j, b)| {
            (i != j || a.dst == a.src) && a.src == b.dst && a.soff < b.doff + b.size && b.doff < a.soff + a.size
        }));
        let overlapping_dests = regions.iter().enumerate().any(|(i, a)| regions.iter().enumerate().any(|(j, b)| {
            i != j && a.dst == b.dst && a.doff < b.doff + b.size && b.doff < a.doff + a.size
        }));
        prop_assume!(!conflict && !overlapping_dests && !regions.is_empty());
        let initial: Vec<Vec<u8>> = (0..3).map(|i| pattern(512, 50 + i)).collect();
        let mut model = initial.clone();
        for r in &regions {
            let bytes = initial[r.src][r.soff as usize..(r.soff + r.size) as usize].to_vec();
            model[r.dst][r.doff as usize..(r.doff + r.size) as usize].copy_from_slice(&bytes);
        }
        for (name, ctx) in async_contexts() {
            let buffers: Vec<Resource> = initial.iter().map(|d| ctx.default_buffer(d)).collect();
            ctx.run(CommandListType::Direct, |l| {
                let batch: Vec<BufferCopyRegion<&Resource>> = regions
                    .iter()
                    .map(|r| BufferCopyRegion { dest: &buffers[r.dst], dest_offset: r.doff, source: &buffers[r.src], source_offset: r.soff, size: r.size })
                    .collect();
                l.copy_buffer_regions(&batch);
            });
            for (i, b) in buffers.iter().enumerate() {
                prop_assert_eq!(&ctx.read_buffer(b), &model[i], "{} buffer {}", name, i);
            }
        }
    }
}

/// Past 16 regions the overlap checks sort the regions instead of comparing every pair: the
/// same refusal of a region that reads what another writes, the same warning for overlapping
/// destinations, and disjoint regions copied whole.
#[test]
fn a_large_batch_gets_the_same_overlap_checks() {
    for (name, ctx) in async_contexts() {
        let data = pattern(4096, 3);
        let src = ctx.default_buffer(&data);
        let dst = ctx.buffer(HeapType::Default, 4096);
        let region = |dest, dest_offset, source, source_offset, size| BufferCopyRegion {
            dest,
            dest_offset,
            source,
            source_offset,
            size,
        };
        let disjoint: Vec<_> = (0..20).map(|i| region(&dst, i * 64, &src, i * 64, 64)).collect();
        let mut reads_a_write = disjoint.clone();
        reads_a_write.push(region(&src, 3000, &dst, 0, 16));
        let r = ctx.record(CommandListType::Direct, |l| l.copy_buffer_regions(&reads_a_write));
        assert_error(r, ErrorCode::InvalidArg, MessageId::CopyBufferRegionsOverlappingRegions);
        let mut dests_overlap = disjoint.clone();
        dests_overlap.push(region(&dst, 32, &src, 2048, 64));
        ctx.device.info_queue().clear();
        ctx.run(CommandListType::Direct, |l| l.copy_buffer_regions(&dests_overlap));
        assert!(ctx.device.info_queue().contains(MessageId::CopyBufferRegionsOverlappingRegions), "{name}");
        ctx.device.info_queue().clear();
        ctx.run(CommandListType::Direct, |l| l.copy_buffer_regions(&disjoint));
        assert!(!ctx.device.info_queue().contains(MessageId::CopyBufferRegionsOverlappingRegions), "{name}");
        assert_eq!(ctx.read_buffer(&dst)[..1280], data[..1280], "{name}");
    }
}

//! FillBuffers natively and through both fallback routes, on every device.

mod common;

use asyncmd::ddi::spy::SpyDevice;
use asyncmd::ddi::{Command, DeviceDdi};
use asyncmd::fallback::plan::UPLOAD_CHUNK;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use common::*;
use proptest::prelude::*;
use std::sync::Arc;

fn raw<'a>(buffer: &'a Resource, offset: u64, pattern: &[u8], repeat: u32) -> FillBufferDesc<&'a Resource> {
    let mut bytes = [0u8; 16];
    bytes[..pattern.len()].copy_from_slice(pattern);
    FillBufferDesc {
        buffer,
        offset,
        fill_value: ClearData { bytes },
        format: Format::Unknown,
        raw_pattern_size: pattern.len() as u32,
        repeat_count: repeat,
    }
}

/// What a fill does to `mem`, as a CPU model.
fn model(mem: &mut [u8], offset: u64, pattern: &[u8], repeat: u32) {
    let len = pattern.len();
    for i in 0..repeat as usize {
        let start = offset as usize + i * len;
        if start + len > mem.len() {
            break;
        }
        mem[start..start + len].copy_from_slice(pattern);
    }
}

fn uav_buffer(ctx: &Ctx, size: u64) -> Resource {
    let desc = ResourceDesc::buffer(size).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
    ctx.device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Undefined).unwrap()
}

#[test]
fn every_pattern_size_on_both_routes() {
    for (name, ctx) in async_contexts() {
        for uav in [true, false] {
            let size = 4096;
            let buf = if uav { uav_buffer(&ctx, size) } else { ctx.buffer(HeapType::Default, size) };
            let mut want = vec![0u8; size as usize];
            let fills: Vec<(u64, Vec<u8>, u32)> = vec![
                (0, vec![0xA1], 100),
                (200, vec![1, 2], 50),
                (400, vec![9, 8, 7, 6], 60),
                (1000, (1..=8).collect(), 30),
                (1500, (20..32).collect(), 40),
                (2100, (40..56).collect(), 50),
                // Only whole patterns that fit are written.
                (4088, vec![5, 5, 5, 5], 9),
            ];
            ctx.run(CommandListType::Direct, |l| {
                let descs: Vec<_> = fills.iter().map(|(o, p, n)| raw(&buf, *o, p, *n)).collect();
                l.fill_buffers(&descs);
            });
            for (o, p, n) in &fills {
                model(&mut want, *o, p, *n);
            }
            assert_eq!(ctx.read_buffer(&buf), want, "{name}, uav {uav}");
        }
    }
}

/// A run of calls of one fill each, of every pattern size: the Vulkan device records it as
/// one batch, so every call's bytes must land, and a copy after a barrier must read them all
/// (`async_copies::a_run_of_single_region_calls_…` pins that a barrier ends a run: a copy
/// batch left open across it fails there; lavapipe runs a fill batch and a copy in order
/// either way).
#[test]
fn a_run_of_single_fill_calls_lands_whole_and_before_the_barrier_after_it() {
    for (name, ctx) in async_contexts() {
        let size = 64 * 64;
        let buf = uav_buffer(&ctx, size);
        let out = ctx.buffer(HeapType::Default, size);
        let mut want = vec![0u8; size as usize];
        // Fill i: 64 bytes at 64·i of a pattern of 1, 2, 4, 8 or 16 bytes.
        let fills: Vec<(u64, Vec<u8>, u32)> = (0..64u64)
            .map(|i| {
                let len = [1usize, 2, 4, 8, 16][i as usize % 5];
                (64 * i, (0..len).map(|k| (i * 7 + k as u64 + 1) as u8).collect(), 64 / len as u32)
            })
            .collect();
        ctx.run(CommandListType::Direct, |l| {
            for (o, p, n) in &fills {
                l.fill_buffers(&[raw(&buf, *o, p, *n)]);
            }
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_SOURCE,
            }])]);
            l.copy_buffer_region(&out, 0, &buf, 0, size);
        });
        for (o, p, n) in &fills {
            model(&mut want, *o, p, *n);
        }
        assert!(ctx.read_buffer(&buf) == want, "{name}: the fills");
        assert!(ctx.read_buffer(&out) == want, "{name}: the copy after the barrier read them all");
    }
}

/// Fills of one pattern, small then large then smaller, another pattern between: where a device
/// writes a pattern's repeats once a list and copies them into each fill (the Vulkan device's
/// transfers), every fill still gets its own bytes, the phase from its own offset.
#[test]
fn fills_of_one_pattern_after_each_other_each_get_their_bytes() {
    for (name, ctx) in async_contexts() {
        let size = 512 << 10;
        let buf = ctx.buffer(HeapType::Default, size);
        let p: Vec<u8> = (1..=12).collect();
        let q: Vec<u8> = (100..116).collect();
        // (offset, pattern, repeats): offsets that are not multiples of the pattern included.
        let fills: Vec<(u64, &[u8], u32)> = vec![
            (0, &p, 4),
            (64, &p, (200 << 10) / 12),
            (300 << 10, &p, (100 << 10) / 12),
            ((400 << 10) + 4, &q, 64),
            ((410 << 10) + 8, &p, 4096 / 12),
        ];
        ctx.run(CommandListType::Direct, |l| {
            let descs: Vec<_> = fills.iter().map(|(o, p, n)| raw(&buf, *o, p, *n)).collect();
            l.fill_buffers(&descs);
            // And again, one call each, after a barrier (the same bytes are written twice).
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_DEST,
            }])]);
            for (o, p, n) in &fills {
                l.fill_buffers(&[raw(&buf, *o, p, *n)]);
            }
        });
        let mut want = vec![0u8; size as usize];
        for (o, p, n) in &fills {
            model(&mut want, *o, p, *n);
        }
        assert!(ctx.read_buffer(&buf) == want, "{name}");
    }
}

#[test]
fn formatted_fills_encode_the_value() {
    for (name, ctx) in async_contexts() {
        let buf = uav_buffer(&ctx, 64);
        let value = ClearData::from_floats([1.0, 0.5, -2.0, 0.0]);
        ctx.run(CommandListType::Compute, |l| {
            l.fill_buffers(&[FillBufferDesc {
                buffer: &buf,
                offset: 8,
                fill_value: value,
                format: Format::R16G16B16A16Float,
                raw_pattern_size: 0,
                repeat_count: 3,
            }]);
        });
        let out = ctx.read_buffer(&buf);
        let texel: Vec<u8> =
            [1.0f32, 0.5, -2.0, 0.0].iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect();
        assert_eq!(&out[..8], &[0; 8], "{name}");
        for i in 0..3 {
            assert_eq!(&out[8 + i * 8..16 + i * 8], &texel[..], "{name}");
        }
        assert_eq!(&out[32..], &[0; 32], "{name}");
    }
}

#[test]
fn a_large_fill_spans_several_chunks() {
    for (name, ctx) in async_contexts() {
        let size = 3 * UPLOAD_CHUNK + 100;
        let buf = ctx.buffer(HeapType::Default, size);
        let pattern: Vec<u8> = (0..12).collect();
        ctx.run(CommandListType::Direct, |l| l.fill_buffers(&[raw(&buf, 4, &pattern, u32::MAX)]));
        let mut want = vec![0u8; size as usize];
        model(&mut want, 4, &pattern, u32::MAX);
        assert!(ctx.read_buffer(&buf) == want, "{name}");
    }
}

fn spy_ctx(config: ReferenceConfig) -> (Ctx, asyncmd::ddi::spy::SpyLog) {
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(config))));
    let log = spy.log();
    (Ctx::new(opted_in(&Adapter::new(spy as Arc<dyn DeviceDdi>))), log)
}

#[test]
fn the_compute_route_transitions_dispatches_and_restores() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let buf = uav_buffer(&ctx, 1024);
    let (root, pso) = fill_pipeline(&ctx);
    log.clear();
    ctx.run(CommandListType::Compute, |l| {
        // App compute state that the fill must restore.
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        l.set_compute_root_32bit_constants(0, &[1, 2], 3);
        log.clear();
        l.fill_buffers(&[
            raw(&buf, 0, &[7, 7, 7, 7], 16),
            raw(&buf, 512, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 10),
        ]);
    });
    assert_eq!(
        log.names(),
        vec![
            "Barrier",
            "SetComputeRootSignature",
            "SetPipelineState",
            "SetComputeRoot32BitConstants",
            "SetComputeRootUnorderedAccessView",
            "Dispatch",
            "SetComputeRoot32BitConstants",
            "SetComputeRootUnorderedAccessView",
            "Dispatch",
            "Barrier",
            "SetComputeRootSignature",
            "SetComputeRoot32BitConstants",
            "SetPipelineState",
        ]
    );
    let commands = log.commands();
    match (&commands[0], &commands[9]) {
        (Command::Barrier(before), Command::Barrier(after)) => {
            let (BarrierGroup::Buffer(b), BarrierGroup::Buffer(a)) = (&before[0], &after[0]) else {
                panic!("{before:?}")
            };
            assert_eq!(b.len(), 1, "one barrier per buffer");
            assert_eq!((b[0].sync_before, b[0].access_before), (BarrierSync::COPY, BarrierAccess::COPY_DEST));
            assert_eq!(
                (b[0].sync_after, b[0].access_after),
                (BarrierSync::COMPUTE_SHADING, BarrierAccess::UNORDERED_ACCESS)
            );
            assert_eq!((a[0].sync_after, a[0].access_after), (BarrierSync::COPY, BarrierAccess::COPY_DEST));
        }
        other => panic!("{other:?}"),
    }
    match &commands[11] {
        Command::SetComputeRootConstants { parameter: 0, offset: 0, values } => {
            assert_eq!(values, &vec![0, 0, 0, 1, 2])
        }
        c => panic!("{c:?}"),
    }
    let mut want = vec![0u8; 1024];
    model(&mut want, 0, &[7; 4], 16);
    model(&mut want, 512, &(1..=12).collect::<Vec<u8>>(), 10);
    assert_eq!(ctx.read_buffer(&buf), want);
}

/// A barrier that leaves `buf` in the COMMON scope (from no access), as an app's might.
fn into_common(l: &mut CommandList, buf: &Resource) {
    l.barrier(&[BarrierGroup::Buffer(vec![BufferBarrier {
        sync_before: BarrierSync::NONE,
        sync_after: BarrierSync::ALL,
        access_before: BarrierAccess::NO_ACCESS,
        access_after: BarrierAccess::COMMON,
        resource: buf,
        offset: 0,
        size: u64::MAX,
    }])]);
}

#[test]
fn the_compute_route_starts_from_the_tracked_scope() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let buf = uav_buffer(&ctx, 256);
    ctx.run(CommandListType::Direct, |l| {
        into_common(l, &buf);
        log.clear();
        // Two fills: a call's only small fill takes copies.
        l.fill_buffers(&[raw(&buf, 0, &[1; 4], 4), raw(&buf, 128, &[1; 4], 4)]);
    });
    match &log.commands()[0] {
        Command::Barrier(g) => match &g[0] {
            BarrierGroup::Buffer(b) => {
                assert_eq!((b[0].sync_before, b[0].access_before), (BarrierSync::ALL, BarrierAccess::COMMON))
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// A call's only fill of at most 64 KiB takes copies from upload memory where compute fills
/// win, as its dispatch and barriers cost the GPU more (`fallback::plan::SMALL_FILL_ALONE`); a
/// larger one, or the same small fill beside another, takes the dispatch. The bytes are the
/// fill's either way.
#[test]
fn a_calls_only_small_fill_is_copied_and_a_large_one_dispatched() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let size = 2 << 16;
    let buf = uav_buffer(&ctx, size);
    let other = uav_buffer(&ctx, 256);
    // (the fills on `buf`: offset, pattern, repeats; one on `other` beside them; dispatched)
    let cases: [(u64, [u8; 4], u32, bool, bool); 4] = [
        (0, [1, 2, 3, 4], 16 << 10, false, false),
        (8, [5, 6, 7, 8], 1, false, false),
        (0, [9, 9, 9, 9], (16 << 10) + 1, false, true),
        (4, [3, 2, 1, 0], 4, true, true),
    ];
    let mut want = vec![0u8; size as usize];
    for (i, &(offset, pattern, repeat, beside, dispatched)) in cases.iter().enumerate() {
        log.clear();
        ctx.run(CommandListType::Direct, |l| {
            let mut fills = vec![raw(&buf, offset, &pattern, repeat)];
            if beside {
                fills.push(raw(&other, 0, &[1; 4], 1));
            }
            l.fill_buffers(&fills)
        });
        let names = log.names();
        assert_eq!(names.contains(&"Dispatch"), dispatched, "case {i}: {names:?}");
        assert_eq!(names.iter().any(|n| n.starts_with("Copy")), !dispatched, "case {i}: {names:?}");
        model(&mut want, offset, &pattern, repeat);
        assert!(ctx.read_buffer(&buf) == want, "case {i}: the bytes");
    }
}

/// A batch of many buffers moves them with one global barrier each way, not a barrier per
/// buffer, starting from the union of their tracked scopes; the bytes are the same.
#[test]
fn many_buffers_move_with_one_global_barrier() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let buffers: Vec<_> = (0..16).map(|_| uav_buffer(&ctx, 256)).collect();
    let globals = |log: &asyncmd::ddi::spy::SpyLog| -> Vec<GlobalBarrier> {
        log.commands()
            .into_iter()
            .filter_map(|c| match c {
                Command::Barrier(g) => match &g[..] {
                    [BarrierGroup::Global(b)] => Some(b[0]),
                    other => panic!("{other:?}"),
                },
                _ => None,
            })
            .collect()
    };
    let fills: Vec<_> = buffers.iter().map(|b| raw(b, 0, &[9, 8, 7, 6], 64)).collect();
    log.clear();
    ctx.run(CommandListType::Direct, |l| l.fill_buffers(&fills));
    let g = globals(&log);
    assert_eq!(g.len(), 2, "one barrier to compute, one back");
    assert_eq!((g[0].sync_before, g[0].access_before), (BarrierSync::COPY, BarrierAccess::COPY_DEST));
    assert_eq!((g[0].sync_after, g[0].access_after), (BarrierSync::COMPUTE_SHADING, BarrierAccess::UNORDERED_ACCESS));
    assert_eq!((g[1].sync_after, g[1].access_after), (BarrierSync::COPY, BarrierAccess::COPY_DEST));
    // Fills of one pattern and size set their constants once; each records its UAV and its
    // dispatch alone.
    let names: Vec<_> = log.commands().iter().map(|c| c.name()).collect();
    let count = |name: &str| names.iter().filter(|n| **n == name).count();
    assert_eq!(count("SetComputeRoot32BitConstants"), 1, "{names:?}");
    assert_eq!((count("SetComputeRootUnorderedAccessView"), count("Dispatch")), (16, 16), "{names:?}");
    let mut want = vec![0u8; 256];
    model(&mut want, 0, &[9, 8, 7, 6], 64);
    assert!(buffers.iter().all(|b| ctx.read_buffer(b) == want));
    // A batch that changes pattern or size between fills of one pattern gets each fill's own
    // constants, never the repeated ones.
    let mixed = [
        raw(&buffers[0], 0, &[1, 2, 3, 4], 64),
        raw(&buffers[1], 0, &[1, 2, 3, 4], 32),
        raw(&buffers[2], 0, &[5; 8], 32),
        raw(&buffers[3], 0, &[1, 2, 3, 4], 64),
        raw(&buffers[4], 0, &[1, 2, 3, 4], 64),
    ];
    log.clear();
    ctx.run(CommandListType::Direct, |l| l.fill_buffers(&mixed));
    let constants: Vec<Vec<u32>> = log
        .commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::SetComputeRootConstants { values, .. } => Some(values),
            _ => None,
        })
        .collect();
    let (p, q) = (0x0403_0201, 0x0505_0505);
    assert_eq!(
        constants,
        [vec![p, 0, 0, 0, 1, 64], vec![p, 0, 0, 0, 1, 32], vec![q, q, 0, 0, 2, 64], vec![p, 0, 0, 0, 1, 64]]
    );
    for (f, b) in mixed.iter().zip(&buffers) {
        let mut mixed_want = want.clone();
        model(&mut mixed_want, 0, &f.fill_value.bytes[..f.raw_pattern_size as usize], f.repeat_count);
        assert_eq!(ctx.read_buffer(b), mixed_want);
    }
    // One buffer last barriered into COMMON: the union waits for every access.
    ctx.run(CommandListType::Direct, |l| {
        into_common(l, &buffers[3]);
        log.clear();
        l.fill_buffers(&fills);
    });
    let g = globals(&log);
    assert_eq!((g[0].sync_before, g[0].access_before), (BarrierSync::COPY | BarrierSync::ALL, BarrierAccess::COMMON));
    // Every device writes the same bytes (and the Vulkan layer finds the fallback's
    // global barriers valid).
    for (name, ctx) in async_contexts() {
        let buffers: Vec<_> = (0..16).map(|_| uav_buffer(&ctx, 256)).collect();
        let fills: Vec<_> = buffers.iter().map(|b| raw(b, 0, &[9, 8, 7, 6], 64)).collect();
        ctx.run(CommandListType::Direct, |l| l.fill_buffers(&fills));
        assert!(buffers.iter().all(|b| ctx.read_buffer(b) == want), "{name}");
    }
}

#[test]
fn the_upload_route_reuses_its_chunk_and_stages_only_on_discrete_devices() {
    for uma in [false, true] {
        let (ctx, log) = spy_ctx(ReferenceConfig { uma, ..Default::default() });
        let small = ctx.buffer(HeapType::Default, 4096);
        let big = ctx.buffer(HeapType::Default, 2 * UPLOAD_CHUNK + 8);
        log.clear();
        ctx.run(CommandListType::Direct, |l| {
            l.fill_buffers(&[raw(&small, 0, &[3; 4], 100)]);
            // Same pattern: the chunk is reused.
            l.fill_buffers(&[raw(&small, 1024, &[3; 4], 100)]);
            // Larger than one chunk: staged on discrete devices.
            l.fill_buffers(&[raw(&big, 0, &[9, 8], u32::MAX)]);
        });
        let copies: Vec<_> = log
            .commands()
            .into_iter()
            .filter_map(|c| match c {
                Command::CopyBufferRegion(r) => Some(r),
                _ => None,
            })
            .collect();
        let sources: std::collections::HashSet<_> = copies.iter().take(2).map(|r| r.source).collect();
        assert_eq!(sources.len(), 1, "uma {uma}: the second fill reuses the first chunk");
        let big_copies = copies.iter().filter(|r| r.dest == big.id()).count();
        assert_eq!(big_copies, 3, "uma {uma}: 2 MiB + 8 bytes in 1 MiB chunks");
        let staging_copies = copies.iter().filter(|r| r.dest != big.id() && r.dest != small.id()).count();
        assert_eq!(staging_copies, if uma { 0 } else { 1 }, "uma {uma}: staging copy");
        let mut want = vec![0u8; (2 * UPLOAD_CHUNK + 8) as usize];
        model(&mut want, 0, &[9, 8], u32::MAX);
        assert!(ctx.read_buffer(&big) == want, "uma {uma}");
    }
}

/// A fill's upload chunk is written once on the CPU: a later recording on another allocator,
/// after the first allocator's reset, copies from the same chunk (the device keeps it, as it
/// keeps texture-clear tiles), and a new pattern makes a new one.
#[test]
fn upload_chunks_outlive_their_allocators_reset() {
    let (ctx, log) = spy_ctx(ReferenceConfig { uma: true, ..Default::default() });
    let buffer = ctx.buffer(HeapType::Default, 4096);
    let sources = |log: &asyncmd::ddi::spy::SpyLog| -> Vec<_> {
        log.commands()
            .into_iter()
            .filter_map(|c| match c {
                Command::CopyBufferRegion(r) => Some(r.source),
                _ => None,
            })
            .collect()
    };
    let alloc = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    let record = |pattern: &[u8], alloc: &CommandAllocator| {
        log.clear();
        let mut l = ctx.device.create_command_list(CommandListType::Direct, alloc).unwrap();
        l.fill_buffers(&[raw(&buffer, 0, pattern, (4096 / pattern.len()) as u32)]);
        l.close().unwrap();
        ctx.direct.execute_command_lists(&[&l]).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        sources(&log)
    };
    let first = record(&[5, 6, 7, 8], &alloc);
    alloc.reset().unwrap();
    // The chunk is kept as it is, not pooled for other bytes: another pattern gets another
    // buffer, and the first pattern still finds its chunk.
    let other = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    assert_ne!(record(&[1, 2, 3, 4], &other), first, "another pattern has its own chunk");
    let third = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    assert_eq!(record(&[5, 6, 7, 8], &third), first, "the kept chunk serves a later recording");
    record(&[1, 2, 3, 4], &third);
    let mut want = vec![0u8; 4096];
    model(&mut want, 0, &[1, 2, 3, 4], 1024);
    assert_eq!(ctx.read_buffer(&buffer), want);
}

/// On a discrete device a large upload-route fill copies its chunk into VRAM; once that list
/// has run and its allocator is reset, the device keeps the VRAM copy, and later recordings
/// copy from it without staging (and the bytes stay right).
#[test]
fn staged_chunks_are_kept_in_vram_after_the_reset() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let size = 3 * UPLOAD_CHUNK + 64;
    let buffer = ctx.buffer(HeapType::Default, size);
    let copies = |log: &asyncmd::ddi::spy::SpyLog| -> Vec<_> {
        log.commands()
            .into_iter()
            .filter_map(|c| match c {
                Command::CopyBufferRegion(r) => Some(r),
                _ => None,
            })
            .collect()
    };
    let pattern = [3u8, 1, 4, 1, 5, 9, 2, 6];
    let fill = || raw(&buffer, 0, &pattern, (size / 8) as u32);
    let alloc = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    log.clear();
    let mut l = ctx.device.create_command_list(CommandListType::Direct, &alloc).unwrap();
    l.fill_buffers(&[fill()]);
    l.close().unwrap();
    ctx.direct.execute_command_lists(&[&l]).unwrap();
    ctx.direct.wait_idle(TIMEOUT).unwrap();
    let first = copies(&log);
    let staging = first[0].dest;
    assert_ne!(staging, buffer.id(), "the first recording stages its chunk");
    assert!(first[1..].iter().all(|c| c.source == staging && c.dest == buffer.id()));
    drop(l);
    alloc.reset().unwrap();
    for _ in 0..2 {
        ctx.run(CommandListType::Direct, |l| l.fill_buffers(&[raw(&buffer, 0, &[0; 4], (size / 4) as u32)]));
        log.clear();
        ctx.run(CommandListType::Direct, |l| l.fill_buffers(&[fill()]));
        let later = copies(&log);
        assert!(later.iter().all(|c| c.source == staging && c.dest == buffer.id()), "{later:?}");
        assert_eq!(later.len(), first.len() - 1, "no staging copy");
        let mut want = vec![0u8; size as usize];
        model(&mut want, 0, &pattern, (size / 8) as u32);
        assert_eq!(ctx.read_buffer(&buffer), want);
    }
}

#[test]
fn pools_stay_within_their_budget() {
    let ctx = Ctx::new(opted_in(&reference_adapter(ReferenceConfig::default())));
    let buf = ctx.buffer(HeapType::Default, 8 * UPLOAD_CHUNK);
    let alloc = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    for round in 0..40u8 {
        let mut list = ctx.device.create_command_list(CommandListType::Direct, &alloc).unwrap();
        // Every fill a new pattern: a new chunk and a new staging block each time.
        for k in 0..4u8 {
            list.fill_buffers(&[raw(&buf, 0, &[round, k, 1, 2], u32::MAX)]);
        }
        list.close().unwrap();
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        drop(list);
        alloc.reset().unwrap();
        assert!(
            ctx.device.pooled_bytes() <= asyncmd::fallback::pools::POOL_BUDGET,
            "round {round}: {}",
            ctx.device.pooled_bytes()
        );
    }
    assert!(ctx.device.pooled_bytes() > 0, "buffers are kept for reuse");
}

#[test]
fn a_removed_device_recycles_nothing_and_refuses_work() {
    let ctx = Ctx::new(opted_in(&reference_adapter(ReferenceConfig::default())));
    let buf = ctx.buffer(HeapType::Default, 2 * UPLOAD_CHUNK);
    let alloc = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    let mut list = ctx.device.create_command_list(CommandListType::Direct, &alloc).unwrap();
    list.fill_buffers(&[raw(&buf, 0, &[9, 8, 7, 6], u32::MAX)]);
    list.close().unwrap();
    ctx.direct.execute_command_lists(&[&list]).unwrap();
    ctx.direct.wait_idle(TIMEOUT).unwrap();
    assert_eq!(ctx.device.device_removed_reason(), Ok(()));

    ctx.device.remove_device();
    let reason = ctx.device.device_removed_reason().unwrap_err();
    assert_eq!((reason.code, reason.id), (ErrorCode::DeviceRemoved, MessageId::DeviceRemoved));
    assert!(reason.text.contains("RemoveDevice"), "{}", reason.text);
    let e = alloc.reset().unwrap_err();
    assert_eq!(e.code, ErrorCode::DeviceRemoved, "{}", e.text);
    assert!(e.text.starts_with("CommandAllocator::Reset"), "{}", e.text);
    assert_eq!(ctx.device.pooled_bytes(), 0, "nothing is recycled on a removed device");
    let e = ctx.direct.execute_command_lists(&[&list]).unwrap_err();
    assert_eq!(e.code, ErrorCode::DeviceRemoved, "{}", e.text);
    assert!(e.text.starts_with("ExecuteCommandLists"), "{}", e.text);
}

#[test]
fn bad_fills_get_their_errors() {
    for (name, ctx) in async_contexts() {
        let buf = ctx.buffer(HeapType::Default, 256);
        let upload = ctx.buffer(HeapType::Upload, 256);
        let bad: Vec<(&str, FillBufferDesc<&Resource>)> = vec![
            ("pattern size 3", FillBufferDesc { raw_pattern_size: 3, ..raw(&buf, 0, &[1, 2, 3], 1) }),
            ("pattern size 0", FillBufferDesc { raw_pattern_size: 0, ..raw(&buf, 0, &[1], 1) }),
            ("offset alignment 2", raw(&buf, 1, &[1, 2], 1)),
            ("offset alignment 4", raw(&buf, 6, &[1; 8], 1)),
            ("offset past the end", raw(&buf, 300, &[1], 1)),
            ("upload destination", raw(&upload, 0, &[1], 1)),
            ("typeless", FillBufferDesc { format: Format::R32Typeless, raw_pattern_size: 0, ..raw(&buf, 0, &[1], 1) }),
            (
                "raw size with a format",
                FillBufferDesc { format: Format::R32Float, raw_pattern_size: 4, ..raw(&buf, 0, &[1], 1) },
            ),
            (
                "format without buffer support",
                FillBufferDesc { format: Format::Bc1Unorm, raw_pattern_size: 0, ..raw(&buf, 0, &[1], 1) },
            ),
        ];
        for (what, desc) in bad {
            let r = ctx.record(CommandListType::Direct, |l| l.fill_buffers(&[desc]));
            let e = assert_error(r, ErrorCode::InvalidArg, MessageId::FillBuffersInvalidParameters);
            assert!(e.text.starts_with("FillBuffers"), "{name}: {what}: {}", e.text);
        }
        // Not on copy lists.
        let r = ctx.record(CommandListType::Copy, |l| l.fill_buffers(&[raw(&buf, 0, &[1], 1)]));
        assert_error(r, ErrorCode::InvalidArg, MessageId::CommandListTypeMismatch);
    }
    // Reserved buffers: no 12-byte patterns (checked before a route is picked).
    let ctx = Ctx::new(opted_in(&reference_adapter(ReferenceConfig::default())));
    let reserved = ctx
        .device
        .create_reserved_resource(&ResourceDesc::buffer(TILE_SIZE_IN_BYTES), BarrierLayout::Undefined)
        .unwrap();
    let r = ctx.record(CommandListType::Direct, |l| l.fill_buffers(&[raw(&reserved, 0, &[1; 12], 1)]));
    assert_error(r, ErrorCode::InvalidArg, MessageId::FillBuffersInvalidParameters);
    let r = ctx.record(CommandListType::Direct, |l| {
        l.fill_buffers(&[FillBufferDesc {
            format: Format::R32G32B32Float,
            raw_pattern_size: 0,
            ..raw(&reserved, 0, &[1], 1)
        }])
    });
    assert_error(r, ErrorCode::InvalidArg, MessageId::FillBuffersInvalidParameters);
}

/// The destination must be a buffer of the list's device; the reserved-buffer element rules
/// apply to reserved buffers only.
#[test]
fn fill_destinations_and_the_reserved_only_rules() {
    for (name, ctx) in async_contexts() {
        let texture = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
        let other = Ctx::reference();
        let theirs = other.buffer(HeapType::Default, 256);
        for (what, dest) in [("a texture", &texture), ("another device's buffer", &theirs)] {
            let r = ctx.record(CommandListType::Direct, |l| l.fill_buffers(&[raw(dest, 0, &[1; 4], 1)]));
            let e = assert_error(r, ErrorCode::InvalidArg, MessageId::FillBuffersInvalidParameters);
            assert!(e.text.contains("must be a buffer of this device"), "{name}: {what}: {}", e.text);
        }
        // A committed buffer takes 12-byte patterns, raw or as R32G32B32 elements.
        let buf = ctx.buffer(HeapType::Default, 64);
        let pattern: Vec<u8> = (1..=12).collect();
        let three = ClearData::from_floats([1.0, -2.0, 0.5, 0.0]);
        ctx.run(CommandListType::Direct, |l| {
            l.fill_buffers(&[
                raw(&buf, 0, &pattern, 2),
                FillBufferDesc {
                    buffer: &buf,
                    offset: 24,
                    fill_value: three,
                    format: Format::R32G32B32Float,
                    raw_pattern_size: 0,
                    repeat_count: 1,
                },
            ])
        });
        let mut expected = [pattern.clone(), pattern.clone()].concat();
        for v in [1.0f32, -2.0, 0.5] {
            expected.extend(v.to_le_bytes());
        }
        assert_eq!(&ctx.read_buffer(&buf)[..36], &expected[..], "{name}");
        // Fills that fit no pattern are valid and write nothing: at the buffer's end, with no
        // repeats, or with a pattern longer than what is left.
        let before = ctx.read_buffer(&buf);
        ctx.run(CommandListType::Direct, |l| {
            l.fill_buffers(&[raw(&buf, 64, &[7], 1), raw(&buf, 0, &[7; 4], 0), raw(&buf, 56, &[7; 16], 1)])
        });
        assert_eq!(ctx.read_buffer(&buf), before, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random batches of non-overlapping fills give the CPU model's bytes natively and
    /// through the fallback, on every device.
    #[test]
    fn fills_match_the_model(
        fills in prop::collection::vec((0..2048u64, prop::sample::select(vec![1usize, 2, 4, 8, 12, 16]), 0..64u32, any::<[u8; 16]>()), 1..6),
        uav in any::<bool>(),
    ) {
        // Align each offset to its pattern and keep fills apart so that their order does not matter.
        let mut next = 0u64;
        let fills: Vec<(u64, Vec<u8>, u32)> = fills
            .into_iter()
            .map(|(o, len, n, bytes)| {
                let align = len.min(4) as u64;
                let start = (next + o % 256).div_ceil(align) * align;
                next = start + len as u64 * n as u64;
                (start, bytes[..len].to_vec(), n)
            })
            .collect();
        let size = 8192u64;
        let mut want = vec![0u8; size as usize];
        for (o, p, n) in &fills {
            model(&mut want, *o, p, *n);
        }
        for (name, ctx) in async_contexts() {
            let buf = if uav { uav_buffer(&ctx, size) } else { ctx.buffer(HeapType::Default, size) };
            ctx.run(CommandListType::Direct, |l| {
                let descs: Vec<_> = fills.iter().map(|(o, p, n)| raw(&buf, *o, p, *n)).collect();
                l.fill_buffers(&descs);
            });
            prop_assert!(ctx.read_buffer(&buf) == want, "{} uav {}", name, uav);
        }
    }
}

/// Found by the fuzzer: a predicated FillBuffers closed the native Vulkan list with
/// `DeviceUnsupported` (transfers are not predicated there) while the fallback's dispatch
/// was; the native fill now takes its compute kernel, which predication reaches.
#[test]
fn predication_skips_or_keeps_fills_on_both_routes() {
    for (name, ctx) in async_contexts() {
        let buf = uav_buffer(&ctx, 256);
        let predicate = ctx.default_buffer(&[0u8; 8]);
        ctx.run(CommandListType::Direct, |l| {
            // EQUAL_ZERO with a zero predicate: skipped.
            l.set_predication(Some((&predicate, 0)), PredicationOp::EqualZero);
            l.fill_buffers(&[raw(&buf, 0, &[1, 2, 3, 4], 16)]);
            l.set_predication(Some((&predicate, 0)), PredicationOp::NotEqualZero);
            l.fill_buffers(&[raw(&buf, 128, &[9, 9, 9, 9], 16), raw(&buf, 64, &[5, 5, 5, 5], 0)]);
            l.set_predication(None, PredicationOp::EqualZero);
        });
        let mut want = vec![0u8; 256];
        model(&mut want, 128, &[9, 9, 9, 9], 16);
        assert_eq!(ctx.read_buffer(&buf), want, "{name}");
    }
}

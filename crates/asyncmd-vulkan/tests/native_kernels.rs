//! The Vulkan device's batched compute kernels (copies and fills of buffers, texture copies,
//! the built-in fill shader), forced on where transfers are faster (lavapipe), byte for byte
//! against the legacy path over generated batches; and the capability switch that keeps
//! transfers where they win.

// The runtime's test helpers, shared with its own tests.
#[path = "../../asyncmd/tests/common/mod.rs"]
mod common;

use asyncmd::types::*;
use asyncmd::*;
use asyncmd_vulkan::{ComputeCopies, Validation, VulkanOptions};
use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The Vulkan device with the batched kernels forced on and the native DDI, where there is one.
fn kernel_ctx(native: bool) -> Option<Ctx> {
    ctx_with(ComputeCopies::Always, native)
}

/// The Vulkan device with `compute_copies`, natively or through the fallback.
fn ctx_with(compute_copies: ComputeCopies, native: bool) -> Option<Ctx> {
    let options = VulkanOptions {
        validation: Validation::IfAvailable,
        compute_copies,
        native_async_commands: native,
        ..Default::default()
    };
    let vk = vulkan_driver_with(options)?;
    let device = opted_in(&Adapter::new(vk.clone() as std::sync::Arc<dyn asyncmd::ddi::DeviceDdi>));
    let mut ctx = Ctx::new(device);
    ctx.vulkan = Some(vk);
    Some(ctx)
}

/// Runs `check` over `cases` generated values, panicking with the shrunk failure.
fn check<S: Strategy>(cases: u32, strategy: S, check: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    if let Err(e) = runner.run(&strategy, check) {
        panic!("{e}");
    }
}

/// One region of a buffer batch: source buffer, source offset, size; destinations are laid
/// out one after another (with `gap` bytes between), so they never overlap, while sources may.
#[derive(Clone, Debug)]
struct Region {
    source: usize,
    source_offset: u64,
    size: u64,
    gap: u64,
}

fn region(aligned: bool) -> impl Strategy<Value = Region> {
    let unit = if aligned { 16u64 } else { 1 };
    (0..3usize, 0..4096u64, prop_oneof![1..64u64, 1..6000u64], 0..4u64).prop_map(move |(source, o, n, gap)| Region {
        source,
        source_offset: o * unit,
        size: n * unit,
        gap: gap * unit * 16,
    })
}

const SOURCE_BYTES: u64 = 4096 * 16 + 6000 * 16;

#[test]
fn batched_buffer_copies_match_the_legacy_loop() {
    let Some(ctx) = kernel_ctx(true) else { return };
    let sources: Vec<Resource> =
        (0..3).map(|i| ctx.default_buffer(&pattern(SOURCE_BYTES as usize, 10 + i as u32))).collect();
    // Aligned batches take the kernel; a batch with one unaligned region takes transfers.
    let batch = prop_oneof![
        3 => prop::collection::vec(region(true), 1..40),
        1 => (prop::collection::vec(region(true), 1..8), region(false)).prop_map(|(mut v, r)| { v.push(r); v }),
    ];
    check(24, batch, |regions| {
        let total: u64 = regions.iter().map(|r| r.size + r.gap).sum::<u64>() + 16;
        let seed = pattern(total as usize, 3);
        let (native, legacy) = (ctx.default_buffer(&seed), ctx.default_buffer(&seed));
        let mut at = Vec::new();
        let mut cursor = 0;
        for r in &regions {
            cursor += r.gap;
            at.push(cursor);
            cursor += r.size;
        }
        ctx.run(CommandListType::Direct, |l| {
            let batch: Vec<_> = regions
                .iter()
                .zip(&at)
                .map(|(r, &d)| BufferCopyRegion {
                    dest: &native,
                    dest_offset: d,
                    source: &sources[r.source],
                    source_offset: r.source_offset,
                    size: r.size,
                })
                .collect();
            l.copy_buffer_regions(&batch);
        });
        ctx.run(CommandListType::Direct, |l| {
            for (r, &d) in regions.iter().zip(&at) {
                l.copy_buffer_region(&legacy, d, &sources[r.source], r.source_offset, r.size);
            }
        });
        let got = ctx.read_buffer(&native);
        prop_assert!(got == ctx.read_buffer(&legacy), "regions {regions:?}");
        prop_assert!(got != seed, "the batch wrote nothing");
        Ok(())
    });
}

/// One fill: a pattern of `pattern_len` bytes repeated `repeats` times, after `gap` bytes.
#[derive(Clone, Debug)]
struct Fill {
    pattern_len: u32,
    repeats: u32,
    gap: u64,
    seed: u32,
}

fn fill() -> impl Strategy<Value = Fill> {
    // Some fills span several of the kernel's 64 KiB chunks.
    let repeats = prop_oneof![3 => 1..3000u32, 1 => 3000..30000u32];
    (prop::sample::select(vec![4u32, 8, 12, 16]), repeats, 0..8u64, any::<u32>())
        .prop_map(|(pattern_len, repeats, gap, seed)| Fill { pattern_len, repeats, gap: gap * 4, seed })
}

/// Records `fills` into `buffer` and returns the bytes they should leave over `before`.
fn record_fills(l: &mut CommandList, buffer: &Resource, fills: &[Fill], before: &[u8]) -> Vec<u8> {
    let mut want = before.to_vec();
    let mut cursor = 0u64;
    let mut descs = Vec::new();
    for f in fills {
        cursor += f.gap;
        let bytes = pattern(16, f.seed);
        let value = ClearData::from_uints(std::array::from_fn(|i| {
            u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap())
        }));
        let len = (f.pattern_len * f.repeats) as usize;
        let start = cursor as usize;
        for i in 0..len {
            want[start + i] = bytes[i % f.pattern_len as usize];
        }
        descs.push(FillBufferDesc {
            buffer,
            offset: cursor,
            fill_value: value,
            format: Format::Unknown,
            raw_pattern_size: f.pattern_len,
            repeat_count: f.repeats,
        });
        cursor += len as u64;
    }
    l.fill_buffers(&descs);
    want
}

fn fills_bytes(fills: &[Fill]) -> u64 {
    fills.iter().map(|f| f.gap + (f.pattern_len * f.repeats) as u64).sum::<u64>() + 4
}

/// Runs of dword-pattern fills whose parts are all large take `vkCmdFillBuffer` (the fill
/// engine's own command outruns the batch kernel there); runs with a smaller part, or a pattern
/// of several dwords, keep the kernel. Under a GPU's size rules on any device (`From`), each
/// writes its pattern: runs of 1 to 3 parts of 1 to 3 MiB, some with a small part or a
/// 16-byte pattern among them, laid one after another in one buffer.
#[test]
fn runs_of_large_fills_write_their_patterns_on_the_fill_engine_and_the_kernel() {
    let Some(ctx) = ctx_with(ComputeCopies::From(64 << 10), true) else { return };
    let large = (1u32 << 18)..(3 << 18);
    let part = prop_oneof![
        3 => (large, any::<u32>()).prop_map(|(repeats, seed)| Fill { pattern_len: 4, repeats, gap: 4, seed }),
        1 => fill().prop_map(|f| Fill { repeats: f.repeats.min(4096), ..f }),
    ];
    check_fills(&ctx, 6, prop::collection::vec(part, 1..4));
}

#[test]
fn batched_fills_write_their_patterns() {
    let Some(ctx) = kernel_ctx(true) else { return };
    check_fills(&ctx, 24, prop::collection::vec(fill(), 1..40));
}

/// Runs `cases` generated runs of fills, each in one list over a buffer of seeded bytes, and
/// checks every byte against the patterns.
fn check_fills(ctx: &Ctx, cases: u32, fills: impl Strategy<Value = Vec<Fill>>) {
    check(cases, fills, |fills| {
        let seed = pattern(fills_bytes(&fills) as usize, 5);
        let buffer = ctx.default_buffer(&seed);
        let mut want = Vec::new();
        ctx.run(CommandListType::Direct, |l| want = record_fills(l, &buffer, &fills, &seed));
        prop_assert!(ctx.read_buffer(&buffer) == want, "fills {fills:?}");
        Ok(())
    });
}

/// The fallback's compute route runs the built-in fill shader: the shader itself where compute
/// copies are on, transfers where they win (lavapipe with `Auto`). Both write the same bytes.
#[test]
fn the_fill_shader_writes_every_dword_on_both_paths() {
    for copies in [ComputeCopies::Always, ComputeCopies::Auto] {
        let Some(ctx) = ctx_with(copies, false) else { return };
        assert_eq!(ctx.device.async_commands_impl(), AsyncCommandsImpl::Fallback);
        check(8, prop::collection::vec(fill(), 1..12), |fills| {
            let len = fills_bytes(&fills);
            let seed = pattern(len as usize, 6);
            let desc = ResourceDesc::buffer(len).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
            let buffer =
                ctx.device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Undefined).unwrap();
            let upload = ctx.upload(&seed);
            ctx.run(CommandListType::Direct, |l| l.copy_buffer_region(&buffer, 0, &upload, 0, len));
            let mut want = Vec::new();
            ctx.run(CommandListType::Compute, |l| want = record_fills(l, &buffer, &fills, &seed));
            prop_assert!(ctx.read_buffer(&buffer) == want, "{copies:?}: fills {fills:?}");
            Ok(())
        });
    }
}

#[test]
fn batched_resource_copies_match_the_legacy_loop() {
    let Some(ctx) = kernel_ctx(true) else { return };
    let sizes = prop::collection::vec(prop_oneof![1..200u64, 1..5000u64].prop_map(|n| n * 16), 1..12);
    let odd = prop::collection::vec(1..3000u64, 1..4);
    check(16, (sizes, odd), |(sizes, odd)| {
        let all: Vec<u64> = sizes.iter().chain(&odd).copied().collect();
        let pairs: Vec<(Resource, Resource, Resource)> = all
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let src = ctx.default_buffer(&pattern(n as usize, 20 + i as u32));
                (ctx.default_buffer(&vec![0; n as usize]), ctx.default_buffer(&vec![0; n as usize]), src)
            })
            .collect();
        ctx.run(CommandListType::Compute, |l| {
            let refs: Vec<(&Resource, &Resource)> = pairs.iter().map(|(n, _, s)| (n, s)).collect();
            l.copy_resources(&refs);
        });
        ctx.run(CommandListType::Compute, |l| pairs.iter().for_each(|(_, legacy, s)| l.copy_resource(legacy, s)));
        for (native, legacy, src) in &pairs {
            let got = ctx.read_buffer(native);
            prop_assert!(got == ctx.read_buffer(legacy));
            prop_assert!(got == ctx.read_buffer(src));
        }
        Ok(())
    });
}

/// A texture copy case: a format, a texture shape, and copies between two textures of it and
/// through placed footprints.
#[derive(Clone, Debug)]
struct TextureCase {
    format: Format,
    width: u32,
    height: u32,
    mips: u16,
    slices: u16,
    parts: Vec<Part>,
}

/// One part: which kind, which subresources, and a box as fractions of the subresource.
#[derive(Clone, Debug)]
struct Part {
    kind: u8,
    dest_sub: u32,
    source_sub: u32,
    frac: [u32; 6],
}

fn texture_case() -> impl Strategy<Value = TextureCase> {
    let formats = vec![
        Format::R8Uint,
        Format::R8G8Unorm,
        Format::R16Float,
        Format::R8G8B8A8Unorm,
        Format::B8G8R8A8Unorm,
        Format::R10G10B10A2Unorm,
        Format::R32Float,
        Format::R16G16B16A16Float,
        Format::R32G32Uint,
        Format::R32G32B32A32Float,
        // No raw view: the legacy copy.
        Format::Bc1Unorm,
    ];
    let part = (0..3u8, 0..9u32, 0..9u32, prop::array::uniform6(0..100u32))
        .prop_map(|(kind, dest_sub, source_sub, frac)| Part { kind, dest_sub, source_sub, frac });
    (prop::sample::select(formats), 1..300u32, 1..200u32, 1..3u16, 1..3u16, prop::collection::vec(part, 1..6)).prop_map(
        |(format, width, height, mips, slices, parts)| {
            let block = if format == Format::Bc1Unorm { 4 } else { 1 };
            TextureCase { format, width: width * block, height: height * block, mips, slices, parts }
        },
    )
}

/// A part as recorded: kind, destination and source subresources, source box, destination
/// point.
type Planned = (u8, u32, u32, Box3, (u32, u32));

#[test]
fn texture_copies_by_kernel_match_the_legacy_loop() {
    let Some(ctx) = kernel_ctx(true) else { return };
    check(20, texture_case(), |case| {
        let desc =
            ResourceDesc::tex2d(case.format, case.width, case.height).with_mips(case.mips).with_array(case.slices);
        let subs = desc.subresource_count();
        let make = || ctx.texture(&desc, BarrierLayout::Common);
        let (source, native, legacy) = (make(), make(), make());
        for s in 0..subs {
            let bytes = ctx.read_subresource(&source, s).len();
            ctx.upload_subresource(&source, s, &pattern(bytes, 40 + s));
        }
        // A buffer holding every subresource's footprint, read by buffer-to-texture parts and
        // written by texture-to-buffer parts (one buffer for each side).
        let fps = ctx.device.copyable_footprints(&desc, 0, subs, 0).unwrap();
        let packed = pattern(fps.total_bytes as usize, 7);
        let upload = ctx.upload(&packed);
        let (out_native, out_legacy) =
            (ctx.default_buffer(&vec![0; packed.len()]), ctx.default_buffer(&vec![0; packed.len()]));
        let mut writes = std::collections::HashSet::new();
        let mut descs: Vec<Planned> = Vec::new();
        for p in &case.parts {
            // A footprint has its subresource's extent: buffer-to-texture parts read the
            // destination's, texture-to-buffer parts write the source's.
            let (ds, ss) = match p.kind {
                0 => (p.dest_sub % subs, p.source_sub % subs),
                1 => (p.dest_sub % subs, p.dest_sub % subs),
                _ => (p.source_sub % subs, p.source_sub % subs),
            };
            // A buffer-to-texture part reads a footprint, whose extent is whole blocks: its
            // box may not stop at the subresource's edge inside a block.
            let (sw, sh) = match p.kind {
                1 => (fps.layouts[ss as usize].footprint.width, fps.layouts[ss as usize].footprint.height),
                _ => desc.subresource_extent(ss).map(|(w, h, _)| (w, h)).unwrap(),
            };
            let (dw, dh, _) = desc.subresource_extent(ds).unwrap();
            let block = if case.format == Format::Bc1Unorm { 4 } else { 1 };
            let at = |f: u32, n: u32| (f * n / 100) / block * block;
            let (left, top) = (at(p.frac[0], sw), at(p.frac[1], sh));
            let (w, h) = ((sw - left).min(dw) * p.frac[2].max(1) / 100, (sh - top).min(dh) * p.frac[3].max(1) / 100);
            let (w, h) = (w.div_ceil(block).max(1) * block, h.div_ceil(block).max(1) * block);
            let (w, h) = (w.min(sw - left).min(dw), h.min(sh - top).min(dh));
            if w == 0 || h == 0 || w % block != 0 && left + w != sw || h % block != 0 && top + h != sh {
                continue;
            }
            let (dx, dy) = (at(p.frac[4], dw - w + 1), at(p.frac[5], dh - h + 1));
            // Each subresource (and each footprint) is written by one part, as a batch whose
            // parts are unordered needs for a defined result.
            let target = if p.kind == 2 { (2, ss) } else { (0, ds) };
            if !writes.insert(target) {
                continue;
            }
            descs.push((p.kind, ds, ss, Box3::new(left, top, 0, left + w, top + h, 1), (dx, dy)));
        }
        let record = |l: &mut CommandList, dest: &Resource, out: &Resource, batch: bool| {
            let mut all = Vec::new();
            for &(kind, ds, ss, sbox, (dx, dy)) in &descs {
                let region = TextureCopyRegion { dest_x: dx, dest_y: dy, dest_z: 0, source_box: Some(sbox) };
                let kind = match kind {
                    0 => TextureCopyKind::TextureToTexture {
                        dest,
                        dest_subresource: ds,
                        source: &source,
                        source_subresource: ss,
                    },
                    1 => TextureCopyKind::BufferToTexture {
                        buffer: &upload,
                        texture: dest,
                        subresource: ds,
                        footprint: fps.layouts[ds as usize],
                    },
                    _ => TextureCopyKind::TextureToBuffer {
                        texture: &source,
                        subresource: ss,
                        buffer: out,
                        footprint: fps.layouts[ss as usize],
                    },
                };
                all.push(TextureCopyDesc { kind, regions: vec![region] });
            }
            if batch {
                l.copy_texture_regions(&all);
            } else {
                for d in &all {
                    let (to, from) = d.kind.locations();
                    for r in &d.regions {
                        l.copy_texture_region(&to, r.dest_x, r.dest_y, r.dest_z, &from, r.source_box.as_ref());
                    }
                }
            }
        };
        ctx.run(CommandListType::Direct, |l| record(l, &native, &out_native, true));
        ctx.run(CommandListType::Direct, |l| record(l, &legacy, &out_legacy, false));
        for s in 0..subs {
            prop_assert!(
                ctx.read_subresource(&native, s) == ctx.read_subresource(&legacy, s),
                "subresource {s} of {case:?}"
            );
        }
        prop_assert!(ctx.read_buffer(&out_native) == ctx.read_buffer(&out_legacy), "footprints of {case:?}");
        Ok(())
    });
}

#[test]
fn texture_resource_copies_by_kernel_match_the_sources() {
    let Some(ctx) = kernel_ctx(true) else { return };
    for (format, w, h, mips, slices) in [
        (Format::R8G8B8A8Unorm, 37, 19, 3, 2),
        (Format::R32G32B32A32Uint, 8, 300, 2, 1),
        (Format::R8Unorm, 513, 5, 4, 3),
    ] {
        let desc = ResourceDesc::tex2d(format, w, h).with_mips(mips).with_array(slices);
        let (a, b) = (ctx.texture(&desc, BarrierLayout::Common), ctx.texture(&desc, BarrierLayout::Common));
        for s in 0..desc.subresource_count() {
            let bytes = ctx.read_subresource(&a, s).len();
            ctx.upload_subresource(&a, s, &pattern(bytes, 60 + s));
        }
        ctx.run(CommandListType::Direct, |l| l.copy_resources(&[(&b, &a)]));
        for s in 0..desc.subresource_count() {
            assert_eq!(ctx.read_subresource(&b, s), ctx.read_subresource(&a, s), "{format} subresource {s}");
        }
    }
}

/// Transfers stay where they beat compute shaders: CPU devices measure no compute-copy size.
#[test]
fn cpu_devices_keep_transfer_commands() {
    let Some(vk) = vulkan_driver() else { return };
    if vk.info().cpu {
        assert_eq!(vk.compute_copy_threshold(), None, "{}", vk.info().name);
    }
    let options = VulkanOptions {
        validation: Validation::IfAvailable,
        compute_copies: ComputeCopies::Never,
        ..Default::default()
    };
    let never = vulkan_driver_with(options).expect("the same driver again");
    assert_eq!(never.compute_copy_threshold(), None);
}

/// Predication reaches dispatches (conditional rendering) but no transfer: native copies the
/// kernels make are predicated like the app's own work, on every device that has the kernels,
/// and a predicated call with nothing to copy records nothing to refuse.
#[test]
fn predicated_kernel_copies_run_or_are_skipped_as_the_predicate_says() {
    let Some(ctx) = async_contexts().into_iter().find(|(n, _)| *n == "vulkan native").map(|(_, c)| c) else { return };
    let predicate = ctx.default_buffer(&[0u8; 16]);
    let ones = ctx.default_buffer(&[1u8; 64]);
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4);
    let (source, skipped, copied) = (
        ctx.texture(&desc, BarrierLayout::Common),
        ctx.texture(&desc, BarrierLayout::Common),
        ctx.texture(&desc, BarrierLayout::Common),
    );
    ctx.upload_subresource(&source, 0, &pattern(64, 3));
    let target = ctx.default_buffer(&[0u8; 64]);
    let copy_to = |l: &mut CommandList, t: &Resource| {
        l.copy_texture_regions(&[TextureCopyDesc {
            kind: TextureCopyKind::TextureToTexture {
                dest: t,
                dest_subresource: 0,
                source: &source,
                source_subresource: 0,
            },
            regions: vec![TextureCopyRegion { dest_x: 0, dest_y: 0, dest_z: 0, source_box: None }],
        }]);
    };
    let region = |offset| BufferCopyRegion {
        dest: &target,
        dest_offset: offset,
        source: &ones,
        source_offset: offset,
        size: 16,
    };
    ctx.run(CommandListType::Direct, |l| {
        // EQUAL_ZERO with a zero predicate: skipped.
        l.set_predication(Some((&predicate, 0)), PredicationOp::EqualZero);
        l.copy_buffer_regions(&[region(0), region(32)]);
        copy_to(l, &skipped);
        l.copy_buffer_regions(&[]);
        // NOT_EQUAL_ZERO with a zero predicate: runs.
        l.set_predication(Some((&predicate, 8)), PredicationOp::NotEqualZero);
        l.copy_buffer_regions(&[region(16), region(48)]);
        copy_to(l, &copied);
        l.set_predication(None, PredicationOp::EqualZero);
    });
    let want: Vec<u8> = (0..64).map(|i| u8::from((16..32).contains(&i) || i >= 48)).collect();
    assert_eq!(ctx.read_buffer(&target), want);
    assert_eq!(ctx.read_subresource(&skipped, 0), vec![0; 64]);
    assert_eq!(ctx.read_subresource(&copied, 0), pattern(64, 3));
}

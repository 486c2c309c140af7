//! Differential test: random sequences of legacy commands leave the same bytes on the Vulkan
//! device as on the reference device.

mod common;

use asyncmd::types::*;
use asyncmd::*;
use asyncmd_vulkan::{ComputeCopies, Validation, VulkanOptions};
use common::*;
use proptest::prelude::*;

const BUF: u64 = 4096;
const W: u32 = 16;
const H: u32 = 8;

#[derive(Clone, Debug)]
enum Op {
    CopyBuffer { dst: usize, src: usize, doff: u64, soff: u64, len: u64 },
    BufferToTexture { tex: usize, buf: usize, rows: u32, x: u32, y: u32, w: u32, h: u32 },
    TextureToTexture { dst: usize, src: usize, sx: u32, sy: u32, w: u32, h: u32, dx: u32, dy: u32 },
    TextureToBuffer { buf: usize, tex: usize },
    Clear { tex: usize, rect: (i32, i32, i32, i32), color: [u8; 4] },
    Fill { buf: usize, dword: u64, count: u32, pattern: [u32; 3], len: u32 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..2usize, 0..2usize, 0..BUF, 0..BUF, 1..1024u64).prop_map(|(dst, src, doff, soff, len)| Op::CopyBuffer {
            dst,
            src,
            doff,
            soff,
            len
        }),
        (0..2usize, 0..2usize, 0..4u32, 0..W, 0..H, 1..=W, 1..=H)
            .prop_map(|(tex, buf, rows, x, y, w, h)| Op::BufferToTexture { tex, buf, rows, x, y, w, h }),
        (0..2usize, 0..2usize, 0..W, 0..H, 1..=W, 1..=H, 0..W, 0..H)
            .prop_map(|(dst, src, sx, sy, w, h, dx, dy)| Op::TextureToTexture { dst, src, sx, sy, w, h, dx, dy }),
        (0..2usize, 0..2usize).prop_map(|(buf, tex)| Op::TextureToBuffer { buf, tex }),
        (0..2usize, (-2i32..18, -2i32..10, -2i32..18, -2i32..10), any::<[u8; 4]>())
            .prop_map(|(tex, rect, color)| Op::Clear { tex, rect, color }),
        (0..2usize, 0..BUF / 4, 1..256u32, any::<[u32; 3]>(), 1..=3u32)
            .prop_map(|(buf, dword, count, pattern, len)| Op::Fill { buf, dword, count, pattern, len }),
    ]
}

struct Scene {
    buffers: Vec<Resource>,
    textures: Vec<Resource>,
    rtvs: DescriptorHeap,
    fill: (RootSignature, PipelineState),
}

fn scene(ctx: &Ctx) -> Scene {
    let buffers = (0..2).map(|i| ctx.default_buffer(&pattern(BUF as usize, 40 + i))).collect();
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, W, H).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let textures: Vec<Resource> = (0..2).map(|_| ctx.texture(&desc, BarrierLayout::Common)).collect();
    let rtvs = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 2).unwrap();
    for (i, t) in textures.iter().enumerate() {
        ctx.device.create_render_target_view(t, None, &rtvs.handle(i as u32)).unwrap();
    }
    Scene { buffers, textures, rtvs, fill: fill_pipeline(ctx) }
}

/// Records one op if it is valid (the runtime would reject the rest).
fn record(l: &mut CommandList, s: &Scene, op: &Op) {
    let footprint = |rows: u32, offset: u64| PlacedSubresourceFootprint {
        offset,
        footprint: SubresourceFootprint {
            format: Format::R8G8B8A8Unorm,
            width: W,
            height: H + rows,
            depth: 1,
            row_pitch: 256,
        },
    };
    match *op {
        Op::CopyBuffer { dst, src, doff, soff, len } => {
            let fits = doff + len <= BUF && soff + len <= BUF;
            let overlap = dst == src && doff < soff + len && soff < doff + len;
            if fits && !overlap {
                l.copy_buffer_region(&s.buffers[dst], doff, &s.buffers[src], soff, len);
            }
        }
        Op::BufferToTexture { tex, buf, rows, x, y, w, h } => {
            if x + w <= W && y + h <= H {
                let sbox = Box3::new(0, rows, 0, w, rows + h, 1);
                l.copy_texture_region(
                    &TextureCopyLocation::subresource(&s.textures[tex], 0),
                    x,
                    y,
                    0,
                    &TextureCopyLocation::footprint(&s.buffers[buf], footprint(rows, 0)),
                    Some(&sbox),
                );
            }
        }
        Op::TextureToTexture { dst, src, sx, sy, w, h, dx, dy } => {
            let ok = sx + w <= W && sy + h <= H && dx + w <= W && dy + h <= H;
            let same_overlap = dst == src && sx < dx + w && dx < sx + w && sy < dy + h && dy < sy + h;
            if ok && !same_overlap {
                let sbox = Box3::new(sx, sy, 0, sx + w, sy + h, 1);
                copy_region(l, &s.textures[dst], 0, (dx, dy, 0), &s.textures[src], 0, Some(&sbox));
            }
        }
        Op::TextureToBuffer { buf, tex } => {
            l.copy_texture_region(
                &TextureCopyLocation::footprint(&s.buffers[buf], footprint(0, 512)),
                0,
                0,
                0,
                &TextureCopyLocation::subresource(&s.textures[tex], 0),
                None,
            );
        }
        Op::Clear { tex, rect, color } => {
            let t = &s.textures[tex];
            barrier(l, t, BarrierLayout::Common, BarrierLayout::RenderTarget);
            let c = color.map(|v| v as f32 / 255.0);
            l.clear_render_target_view(
                &s.rtvs.handle(tex as u32),
                c,
                &[Rect::new(rect.0, rect.1, rect.2.max(rect.0), rect.3.max(rect.1))],
            );
            barrier(l, t, BarrierLayout::RenderTarget, BarrierLayout::Common);
        }
        Op::Fill { buf, dword, count, pattern, len } => {
            let count = count.min((BUF / 4 - dword) as u32);
            l.set_compute_root_signature(&s.fill.0);
            l.set_pipeline_state(&s.fill.1);
            l.set_compute_root_32bit_constants(0, &[pattern[0], pattern[1], pattern[2], 0, len, count], 0);
            l.set_compute_root_unordered_access_view(1, s.buffers[buf].gpu_address(dword * 4));
            l.dispatch(count.div_ceil(64), 1, 1);
        }
    }
    full_barrier(l);
}

fn run(ctx: &Ctx, ops: &[Op]) -> Vec<Vec<u8>> {
    let s = scene(ctx);
    ctx.run(CommandListType::Direct, |l| {
        for op in ops {
            record(l, &s, op);
        }
    });
    let mut out: Vec<Vec<u8>> = s.buffers.iter().map(|b| ctx.read_buffer(b)).collect();
    out.extend(s.textures.iter().map(|t| ctx.read_subresource(t, 0)));
    out
}

/// Runs random op sequences on `vulkan` and on the reference device and compares the bytes.
/// One Vulkan device serves every case: opening one per case is slow on real drivers.
fn compare_with_reference(vulkan: &Ctx) {
    let config = ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let reference = Ctx::reference();
    let log = vulkan.vulkan.as_ref().map(|v| v.validation_log());
    let result = runner.run(&prop::collection::vec(op(), 1..10), |ops| {
        let want = run(&reference, &ops);
        let got = run(vulkan, &ops);
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            prop_assert!(w == g, "resource {} differs after {:?}", i, ops);
        }
        if let Some(log) = &log {
            prop_assert!(log.messages().is_empty(), "validation errors after {:?}: {:?}", ops, log.messages());
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn vulkan_matches_the_reference_device() {
    let contexts = contexts();
    if let Some((_, vulkan)) = contexts.iter().find(|(n, _)| *n == "vulkan") {
        compare_with_reference(vulkan);
    }
}

#[test]
fn vulkan_compute_copies_match_the_reference_device() {
    let options = VulkanOptions {
        validation: Validation::IfAvailable,
        compute_copies: ComputeCopies::Always,
        ..Default::default()
    };
    if let Some(vulkan) = vulkan_ctx(options) {
        compare_with_reference(&vulkan);
    }
}

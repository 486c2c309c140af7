//! ClearTextureSubresources natively and through the fallback, on every device: bytes read
//! back against a CPU model for a table of cases and for random ones, native against the
//! forced fallback, video planes, typeless textures (the routes and rejections are in
//! `texture_clear_routes.rs`).

mod common;

use asyncmd::types::*;
use asyncmd::*;
use common::clears::*;
use common::*;

/// One clear of the differential test: the texture, which subresource and region, the value.
struct Case {
    name: &'static str,
    desc: ResourceDesc,
    subresource: u32,
    format: Format,
    value: ClearData,
    region: Option<Box3>,
    /// Move the texture to COPY_DEST in the clearing list first, so its layout is known there
    /// and in-place clears become possible.
    known_layout: bool,
}

fn case(name: &'static str, desc: ResourceDesc, subresource: u32, value: ClearData, region: Option<Box3>) -> Case {
    Case { name, desc, subresource, format: Format::Unknown, value, region, known_layout: false }
}

fn cases() -> Vec<Case> {
    let rgba = Format::R8G8B8A8Unorm;
    let rt = ResourceFlags::ALLOW_RENDER_TARGET;
    let ds = ResourceFlags::ALLOW_DEPTH_STENCIL;
    let floats = ClearData::from_floats;
    vec![
        case(
            "unorm, every mip",
            ResourceDesc::tex2d(rgba, 64, 32).with_mips(3),
            ALL_SUBRESOURCES,
            floats([0.2, 0.4, 0.6, 0.8]),
            None,
        ),
        case(
            "half floats, one slice, a region",
            ResourceDesc::tex2d(Format::R16G16B16A16Float, 32, 16).with_array(3),
            1,
            floats([1.5, -2.0, 0.25, 100.0]),
            Some(Box3::new(4, 2, 0, 20, 10, 1)),
        ),
        case(
            "uint above 2^24",
            ResourceDesc::tex2d(Format::R32Uint, 40, 20).with_flags(rt),
            0,
            ClearData::from_uints([0x0123_4567, 0, 0, 0]),
            None,
        ),
        case(
            "sint in a 3D box",
            ResourceDesc::tex3d(Format::R8Sint, 8, 8, 4),
            0,
            ClearData::from_sints([-5, 0, 0, 0]),
            Some(Box3::new(1, 1, 1, 7, 5, 3)),
        ),
        case(
            "10-bit unorm 1D array",
            ResourceDesc::tex1d(Format::R10G10B10A2Unorm, 64).with_array(2),
            ALL_SUBRESOURCES,
            floats([0.1, 0.3, 0.7, 0.4]),
            None,
        ),
        case(
            "small floats",
            ResourceDesc::tex2d(Format::R11G11B10Float, 16, 16),
            0,
            floats([0.75, 3.0, 0.125, 0.0]),
            None,
        ),
        case(
            "shared exponent",
            ResourceDesc::tex2d(Format::R9G9B9E5SharedExp, 16, 8),
            0,
            floats([0.5, 2.0, 1.0, 0.0]),
            None,
        ),
        case("BC1 whole", ResourceDesc::tex2d(Format::Bc1Unorm, 16, 16).with_mips(2), ALL_SUBRESOURCES, bytes(3), None),
        case(
            "BC3 region",
            ResourceDesc::tex2d(Format::Bc3Unorm, 16, 16),
            0,
            bytes(90),
            Some(Box3::new(4, 4, 0, 12, 12, 1)),
        ),
        case(
            "BC7 edge region",
            ResourceDesc::tex2d(Format::Bc7Unorm, 12, 8).with_mips(2),
            1,
            bytes(7),
            Some(Box3::new(4, 0, 0, 6, 4, 1)),
        ),
        case(
            "depth 32",
            ResourceDesc::tex2d(Format::D32Float, 16, 16),
            0,
            ClearData::from_depth_stencil(0.75, 0),
            None,
        ),
        case(
            "depth 16 clamped",
            ResourceDesc::tex2d(Format::D16Unorm, 16, 16).with_flags(ds),
            0,
            ClearData::from_depth_stencil(3.0, 0),
            None,
        ),
        case(
            "stencil plane",
            ResourceDesc::tex2d(Format::D24UnormS8Uint, 16, 8),
            1,
            ClearData::from_depth_stencil(0.0, 0x5A),
            None,
        ),
        case(
            "D32S8 depth plane",
            ResourceDesc::tex2d(Format::D32FloatS8X24Uint, 8, 8),
            0,
            ClearData::from_depth_stencil(0.25, 9),
            None,
        ),
        Case {
            format: Format::R8G8B8A8Uint,
            ..case(
                "typeless resource, typed clear",
                ResourceDesc::tex2d(Format::R8G8B8A8Typeless, 16, 16),
                0,
                ClearData::from_uints([1, 300, 3, 4]),
                None,
            )
        },
        // The in-place route where the fallback may take it.
        Case {
            known_layout: true,
            ..case(
                "render target, whole",
                ResourceDesc::tex2d(rgba, 64, 64).with_flags(rt),
                0,
                floats([0.11, 0.93, 0.27, 1.0]),
                None,
            )
        },
        Case {
            known_layout: true,
            ..case(
                "render target, a third",
                ResourceDesc::tex2d(rgba, 64, 64).with_flags(rt),
                0,
                floats([0.93, 0.11, 0.27, 0.0]),
                Some(Box3::new(0, 0, 0, 64, 22, 1)),
            )
        },
        Case {
            known_layout: true,
            ..case(
                "render target, a small region",
                ResourceDesc::tex2d(rgba, 64, 64).with_flags(rt),
                0,
                floats([0.27, 0.27, 0.72, 1.0]),
                Some(Box3::new(8, 8, 0, 16, 16, 1)),
            )
        },
        Case {
            known_layout: true,
            ..case(
                "3D render target slices",
                ResourceDesc::tex3d(rgba, 16, 16, 4).with_flags(rt),
                0,
                floats([0.6, 0.2, 0.4, 0.8]),
                Some(Box3::new(0, 0, 1, 16, 16, 3)),
            )
        },
        Case {
            known_layout: true,
            ..case(
                "depth target",
                ResourceDesc::tex2d(Format::D32Float, 32, 32).with_flags(ds),
                0,
                ClearData::from_depth_stencil(0.375, 0),
                None,
            )
        },
        Case {
            known_layout: true,
            ..case(
                "stencil target region",
                ResourceDesc::tex2d(Format::D24UnormS8Uint, 32, 32).with_flags(ds),
                1,
                ClearData::from_depth_stencil(0.0, 0xC3),
                Some(Box3::new(0, 0, 0, 32, 20, 1)),
            )
        },
        // 1D targets take views of their own dimension (a 2D view does not fit them).
        Case {
            known_layout: true,
            ..case(
                "1D render target, second slice",
                ResourceDesc::tex1d(rgba, 64).with_array(2).with_flags(rt),
                1,
                floats([0.6, 0.2, 0.4, 0.8]),
                None,
            )
        },
        Case {
            known_layout: true,
            ..case(
                "1D depth target, second slice",
                ResourceDesc::tex1d(Format::D32Float, 64).with_array(2).with_flags(ds),
                1,
                ClearData::from_depth_stencil(0.375, 0),
                None,
            )
        },
    ]
}

/// Initial bytes of a subresource: a pattern, with depth planes holding valid depths.
fn initial(tex: &Resource, sub: u32, len: usize) -> Vec<u8> {
    let plane = tex.desc().subresource(sub).unwrap().plane;
    match (tex.desc().format.info().layout, plane) {
        (Layout::D32 | Layout::D32S8, 0) => 0.5f32.to_le_bytes().iter().copied().cycle().take(len).collect(),
        (Layout::D24S8, 0) => 0x0080_0000u32.to_le_bytes().iter().copied().cycle().take(len).collect(),
        (Layout::D16, _) => 0x4000u16.to_le_bytes().iter().copied().cycle().take(len).collect(),
        _ => pattern(len, sub + 1),
    }
}

/// What a clear of `region` (`None`: whole) leaves in a tightly packed subresource.
fn model(tex: &Resource, sub: u32, before: &[u8], region: Option<Box3>, element: &[u8]) -> Vec<u8> {
    let desc = tex.desc();
    let plane = desc.format.plane(desc.subresource(sub).unwrap().plane).unwrap();
    let (w, h, d) = desc.subresource_extent(sub).unwrap();
    let r = region.unwrap_or(Box3::sized(w, h, d));
    let (bw, bh, n) = (plane.block_width, plane.block_height, plane.bytes_per_block as usize);
    let row = w.div_ceil(bw) as usize * n;
    let rows = h.div_ceil(bh) as usize;
    let mut out = before.to_vec();
    for z in r.front..r.back {
        for by in r.top / bh..r.bottom.div_ceil(bh) {
            for bx in r.left / bw..r.right.div_ceil(bw) {
                let o = z as usize * rows * row + by as usize * row + bx as usize * n;
                out[o..o + n].copy_from_slice(element);
            }
        }
    }
    out
}

fn run_case(ctx: &Ctx, ty: CommandListType, c: &Case) -> Vec<(u32, Vec<u8>, Vec<u8>)> {
    let tex = ctx.texture(&c.desc, BarrierLayout::Common);
    let subs: Vec<u32> =
        if c.subresource == ALL_SUBRESOURCES { (0..c.desc.subresource_count()).collect() } else { vec![c.subresource] };
    let mut before = Vec::new();
    for &s in &subs {
        let len = ctx.read_subresource(&tex, s).len();
        let data = initial(&tex, s, len);
        ctx.upload_subresource(&tex, s, &data);
        before.push(data);
    }
    ctx.run(ty, |l| {
        if c.known_layout {
            barrier(l, &tex, BarrierLayout::Common, BarrierLayout::CopyDest);
        }
        l.clear_texture_subresources(&[ClearTextureDesc {
            texture: &tex,
            subresource: c.subresource,
            clear_value: c.value,
            format: c.format,
            region: c.region,
        }]);
        if c.known_layout {
            barrier(l, &tex, BarrierLayout::CopyDest, BarrierLayout::Common);
        }
    });
    let format = if c.format == Format::Unknown { c.desc.format } else { c.format };
    subs.iter()
        .zip(before)
        .map(|(&s, b)| {
            let plane = c.desc.subresource(s).unwrap().plane;
            let element = encode_clear(format, plane, &c.value).unwrap();
            (s, ctx.read_subresource(&tex, s), model(&tex, s, &b, c.region, element.as_bytes()))
        })
        .collect()
}

#[test]
fn single_sample_clears_write_the_encoded_value_on_every_device() {
    for (name, ctx) in async_contexts() {
        for c in cases() {
            for (s, got, want) in run_case(&ctx, CommandListType::Direct, &c) {
                assert!(
                    got == want,
                    "{name}: {} (subresource {s}): got {:?}…, want {:?}…",
                    c.name,
                    &got[..16.min(got.len())],
                    &want[..16.min(want.len())]
                );
            }
        }
    }
}

#[test]
fn compute_lists_clear_through_copies() {
    for (name, ctx) in async_contexts() {
        for c in cases().into_iter().filter(|c| !c.known_layout) {
            for (s, got, want) in run_case(&ctx, CommandListType::Compute, &c) {
                assert!(got == want, "{name}: {} (subresource {s}) on a compute list", c.name);
            }
        }
    }
}

#[test]
fn the_drivers_view_clears_write_the_encoding_wherever_it_is_called_exact() {
    // Whole-view ClearRenderTargetView is vkCmdClearColorImage on the Vulkan device: this
    // compares the driver's own conversion with the encoder for every value the in-place route
    // and the native path trust it with (view_clear_exact), and names the ones they do not.
    let Some((_, ctx)) = contexts().into_iter().find(|(n, _)| *n == "vulkan") else { return };
    let floats = ClearData::from_floats;
    let vectors = [
        (Format::R8G8B8A8Unorm, floats([0.2, 0.4, 0.6, 0.8])),
        (Format::R8G8B8A8Unorm, floats([0.1, 0.3, 0.7, 0.9])),
        (Format::R8G8B8A8UnormSrgb, floats([0.0, 1.0, 1.0, 0.8])),
        (Format::R8G8B8A8UnormSrgb, floats([0.2, 0.4, 0.6, 0.8])),
        (Format::B8G8R8A8Unorm, floats([0.93, 0.11, 0.35, 0.72])),
        (Format::R8G8Snorm, floats([-0.3, 0.65, 0.0, 0.0])),
        (Format::R16Unorm, floats([0.123, 0.0, 0.0, 0.0])),
        (Format::R16G16Snorm, floats([-1.0, 0.77, 0.0, 0.0])),
        (Format::R16G16B16A16Float, floats([1.5, -2.0, 0.125, 65504.0])),
        (Format::R16G16B16A16Float, floats([0.675_686_3, 0.1, 1e-3, 3.3])),
        (Format::R32G32Float, floats([-0.0, 1e-3, 0.0, 0.0])),
        (Format::R10G10B10A2Unorm, floats([0.1, 0.3, 0.7, 0.4])),
        (Format::R11G11B10Float, floats([0.75, 3.0, 0.125, 0.0])),
        (Format::R11G11B10Float, floats([0.1, 0.3, 0.7, 0.0])),
    ];
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    let (mut wrong, mut checked) = (Vec::new(), 0);
    for (format, value) in vectors {
        let desc = ResourceDesc::tex2d(format, 8, 4).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&desc, BarrierLayout::RenderTarget);
        ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&heap.handle(0), view_clear_color(format, &value), &[]);
            barrier(l, &tex, BarrierLayout::RenderTarget, BarrierLayout::Common);
        });
        let got = ctx.read_subresource(&tex, 0);
        let want = encode_clear(format, 0, &value).unwrap();
        let n = want.as_bytes().len();
        if view_clear_exact(format, &value) {
            checked += 1;
            if got[..n] != *want.as_bytes() {
                wrong.push(format!(
                    "{format} {:?}: driver {:?}, encoder {:?}",
                    value.floats(),
                    &got[..n],
                    want.as_bytes()
                ));
            }
        } else if got[..n] != *want.as_bytes() {
            eprintln!(
                "not exact, and the driver differs: {format} {:?}: {:?} vs {:?}",
                value.floats(),
                &got[..n],
                want.as_bytes()
            );
        }
    }
    assert!(checked >= 9, "most vectors are exact");
    assert!(wrong.is_empty(), "the driver's view clear and the encoder differ:\n{}", wrong.join("\n"));
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }

    /// A normalized value that is never a rounding tie for 8-, 10- or 16-bit channels.
    fn unit(&mut self) -> f32 {
        (self.below(255) as f32 + 0.3) / 255.0
    }
}

fn random_case(rng: &mut Rng) -> Case {
    let formats = [
        (Format::R8G8B8A8Unorm, ResourceFlags::ALLOW_RENDER_TARGET),
        (Format::B8G8R8A8Unorm, ResourceFlags::empty()),
        (Format::R16G16Float, ResourceFlags::ALLOW_RENDER_TARGET),
        (Format::R32Uint, ResourceFlags::ALLOW_RENDER_TARGET),
        (Format::R8Sint, ResourceFlags::empty()),
        (Format::R10G10B10A2Unorm, ResourceFlags::ALLOW_RENDER_TARGET),
        (Format::Bc1Unorm, ResourceFlags::empty()),
        (Format::D32Float, ResourceFlags::ALLOW_DEPTH_STENCIL),
        (Format::D24UnormS8Uint, ResourceFlags::ALLOW_DEPTH_STENCIL),
    ];
    let (format, flag) = formats[rng.below(formats.len() as u32) as usize];
    let flags = if rng.below(2) == 0 { flag } else { ResourceFlags::empty() };
    let desc = ResourceDesc::tex2d(format, 32, 16).with_mips(2).with_array(2).with_flags(flags);
    let subresource = if rng.below(4) == 0 { ALL_SUBRESOURCES } else { rng.below(desc.subresource_count()) };
    let value = match format {
        Format::R32Uint => ClearData::from_uints([rng.next() >> rng.below(32), 0, 0, 0]),
        Format::R8Sint => ClearData::from_uints([rng.next(), 0, 0, 0]),
        Format::Bc1Unorm => ClearData { bytes: std::array::from_fn(|_| rng.next() as u8) },
        f if f.has_depth() => ClearData::from_depth_stencil(rng.unit(), rng.next() as u8),
        _ => ClearData::from_floats([rng.unit(), rng.unit(), rng.unit(), rng.unit()]),
    };
    // Regions inside the smallest selected subresource (16 x 8 at mip 1), block-aligned.
    let region = (subresource != ALL_SUBRESOURCES && rng.below(2) == 0).then(|| {
        let (l, t) = (rng.below(2) * 4, rng.below(2) * 4);
        Box3::new(l, t, 0, l + 4 + rng.below(2) * 4, t + 4, 1)
    });
    Case { name: "random", desc, subresource, format: Format::Unknown, value, region, known_layout: rng.below(2) == 0 }
}

#[test]
fn native_and_forced_fallback_write_identical_textures() {
    let ctxs = async_contexts();
    let find = |n: &str| ctxs.iter().find(|(name, _)| *name == n).map(|(_, c)| c);
    for (native, fallback) in [("reference native", "reference fallback"), ("vulkan native", "vulkan fallback")] {
        let (Some(n), Some(f)) = (find(native), find(fallback)) else { continue };
        let mut rng = Rng(0x2545_F491);
        for i in 0..40 {
            let c = random_case(&mut rng);
            for ty in [CommandListType::Direct, CommandListType::Compute] {
                let partial_depth = c.desc.format.has_depth() && c.region.is_some();
                if partial_depth && !f.device.capabilities().programmable_sample_positions {
                    continue; // the fallback may reject these there (tested elsewhere)
                }
                let a = run_case(n, ty, &c);
                let b = run_case(f, ty, &c);
                for ((s, got_n, want), (_, got_f, _)) in a.iter().zip(&b) {
                    assert!(
                        got_n == got_f,
                        "case {i} ({} {:?}, value {:?}) on a {ty:?} list, subresource {s}: {native} and {fallback} \
                         differ: {:?} and {:?}, the encoder says {:?}",
                        c.desc.format,
                        c.region,
                        c.value.floats(),
                        &got_n[..8],
                        &got_f[..8],
                        &want[..8]
                    );
                    assert!(
                        got_n == want,
                        "case {i} ({}) subresource {s}: both differ from the encoder",
                        c.desc.format
                    );
                }
            }
        }
    }
}

#[test]
fn video_planes_clear_from_raw_values_on_the_reference_device() {
    let yuv = ClearData::from_uints([0x10, 0x80, 0x90, 0]);
    for (name, ctx) in async_contexts().into_iter().filter(|(n, _)| n.starts_with("reference")) {
        for c in [
            case("NV12 luma", ResourceDesc::tex2d(Format::Nv12, 16, 8), 0, yuv, Some(Box3::new(2, 2, 0, 10, 6, 1))),
            case("NV12 chroma", ResourceDesc::tex2d(Format::Nv12, 16, 8), 1, yuv, None),
            case("P010 both planes", ResourceDesc::tex2d(Format::P010, 16, 8), ALL_SUBRESOURCES, yuv, None),
            case("YUY2 pairs", ResourceDesc::tex2d(Format::Yuy2, 16, 4), 0, yuv, Some(Box3::new(2, 0, 0, 8, 4, 1))),
        ] {
            for (s, got, want) in run_case(&ctx, CommandListType::Compute, &c) {
                assert!(got == want, "{name}: {} subresource {s}", c.name);
            }
        }
        // Luma regions of 4:2:0 formats align to 2 x 2.
        let t = ctx.texture(&ResourceDesc::tex2d(Format::Nv12, 16, 8), BarrierLayout::Common);
        let r = ctx.record(CommandListType::Direct, |l| {
            l.clear_texture_subresources(&[clear(&t, 0, yuv, Some(Box3::new(1, 0, 0, 4, 4, 1)))])
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::ClearTextureSubresourcesInvalidParameters);
    }
}

/// Found by the fuzzer: a predicated ClearTextureSubresources closed the native Vulkan list
/// with `DeviceUnsupported` while the fallback's view clear of an MSAA texture was predicated.
/// Found by the fuzzer: a depth-format clear of a typeless texture (R32_TYPELESS cleared as
/// D32_FLOAT) reached `vkCmdClearDepthStencilImage` on a colour image.
#[test]
fn a_depth_format_clear_of_a_typeless_texture_writes_the_depth_encoding() {
    for (name, ctx) in async_contexts() {
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R32Typeless, 4, 4), BarrierLayout::Common);
        let value = ClearData::from_floats([0.5, 0.0, 0.0, 0.0]);
        ctx.run(CommandListType::Direct, |l| {
            l.clear_texture_subresources(&[ClearTextureDesc {
                texture: &tex,
                subresource: 0,
                clear_value: value,
                format: Format::D32Float,
                region: None,
            }])
        });
        assert_eq!(ctx.read_subresource(&tex, 0), 0.5f32.to_le_bytes().repeat(16), "{name}");
    }
}

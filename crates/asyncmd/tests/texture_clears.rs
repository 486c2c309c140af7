//! ClearTextureSubresources natively and through the fallback's three routes, on every device:
//! bytes read back against the encoder, the routes each call takes, and every rejection.

mod common;

use asyncmd::ddi::spy::{SpyDevice, SpyLog};
use asyncmd::ddi::{Command, DeviceDdi};
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use common::*;
use std::sync::Arc;

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

fn bytes(seed: u8) -> ClearData {
    ClearData { bytes: std::array::from_fn(|i| seed.wrapping_add((i as u8).wrapping_mul(37))) }
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

/// A reference device behind a spy, opted in to the fallback.
fn spy_ctx(config: ReferenceConfig) -> (Ctx, SpyLog) {
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(config))));
    let log = spy.log();
    (Ctx::new(opted_in(&Adapter::new(spy as Arc<dyn DeviceDdi>))), log)
}

fn clear(tex: &Resource, sub: u32, value: ClearData, region: Option<Box3>) -> ClearTextureDesc<&Resource> {
    ClearTextureDesc { texture: tex, subresource: sub, clear_value: value, format: Format::Unknown, region }
}

fn copy_sources(log: &SpyLog) -> Vec<(asyncmd::ddi::ResourceId, PlacedSubresourceFootprint)> {
    log.commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::CopyTextureRegion { source, .. } => match source.kind {
                CopyLocationKind::PlacedFootprint(fp) => Some((source.resource, fp)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[test]
fn pattern_tiles_are_cached_per_allocator_until_it_is_reset() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 64, 64), BarrierLayout::Common);
    let other = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 64, 64), BarrierLayout::Common);
    let value = ClearData::from_floats([0.5, 0.25, 0.75, 1.0]);
    let alloc = ctx.device.create_command_allocator(CommandListType::Compute).unwrap();
    let mut sources = Vec::new();
    for t in [&tex, &other] {
        log.clear();
        let mut l = ctx.device.create_command_list(CommandListType::Compute, &alloc).unwrap();
        l.clear_texture_subresources(&[clear(t, 0, value, None)]);
        l.close().unwrap();
        assert_eq!(log.names(), vec!["CopyTextureRegion"], "a 64x64 tile covers the texture in one copy");
        sources.extend(copy_sources(&log));
        ctx.compute.execute_command_lists(&[&l]).unwrap();
        ctx.compute.wait_idle(TIMEOUT).unwrap();
    }
    assert_eq!(sources[0], sources[1], "the second list on the allocator reuses the first list's tile");
    let fp = sources[0].1.footprint;
    assert_eq!((fp.width, fp.height, fp.depth, fp.row_pitch), (64, 64, 1, 256));
    // Another value, or another allocator, makes its own tile.
    log.clear();
    ctx.run(CommandListType::Compute, |l| l.clear_texture_subresources(&[clear(&tex, 0, value, None)]));
    assert_ne!(copy_sources(&log)[0].0, sources[0].0, "a list on another allocator does not see the tile");
    alloc.reset().unwrap();
    log.clear();
    let mut l = ctx.device.create_command_list(CommandListType::Compute, &alloc).unwrap();
    l.clear_texture_subresources(&[clear(&tex, 0, ClearData::from_floats([0.0; 4]), None)]);
    l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
    l.close().unwrap();
    let after = copy_sources(&log);
    assert_ne!(after[0].0, after[1].0, "different values use different tiles");
    assert_eq!(ctx.read_subresource(&tex, 0).len(), 64 * 64 * 4);
}

#[test]
fn large_regions_stage_their_tile_in_vram_on_every_call() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 1024, 512), BarrierLayout::Common);
    let value = ClearData::from_floats([0.2, 0.4, 0.6, 0.8]);
    log.clear();
    ctx.run(CommandListType::Compute, |l| {
        l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
        l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
    });
    let names = log.names();
    let call = {
        let mut v = vec!["CopyBufferRegion", "Barrier"];
        // 1024 x 512 texels at 4 bytes: 1 MiB tiles of 256 rows, two copies.
        v.extend(["CopyTextureRegion"; 2]);
        v
    };
    assert_eq!(names, [call.clone(), call].concat(), "each call copies its tile into staging again");
    let stagings: Vec<_> = log
        .commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::CopyBufferRegion(r) => Some(r.dest),
            _ => None,
        })
        .collect();
    assert_ne!(stagings[0], stagings[1], "staging blocks belong to one call");
    let want = encode_clear(Format::R8G8B8A8Unorm, 0, &value).unwrap();
    assert!(ctx.read_subresource(&tex, 0).chunks(4).all(|t| t == want.as_bytes()));
    // UMA devices and protected textures copy straight from the upload tile.
    for (config, protected) in
        [(ReferenceConfig { uma: true, ..Default::default() }, false), (ReferenceConfig::default(), true)]
    {
        let (ctx, log) = spy_ctx(config);
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 1024, 512);
        let tex = if protected {
            ctx.device.create_protected_resource(&desc, BarrierLayout::Common).unwrap()
        } else {
            ctx.texture(&desc, BarrierLayout::Common)
        };
        log.clear();
        ctx.run(CommandListType::Compute, |l| l.clear_texture_subresources(&[clear(&tex, 0, value, None)]));
        assert_eq!(log.names(), vec!["CopyTextureRegion"; 2], "protected {protected}");
    }
}

fn texture_barriers(log: &SpyLog) -> Vec<TextureBarrier<asyncmd::ddi::ResourceId>> {
    log.commands()
        .into_iter()
        .flat_map(|c| match c {
            Command::Barrier(groups) => groups,
            _ => Vec::new(),
        })
        .flat_map(|g| match g {
            BarrierGroup::Texture(b) => b,
            _ => Vec::new(),
        })
        .collect()
}

#[test]
fn in_place_clears_transition_clear_and_return_to_the_layout_they_started_in() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let rt =
        ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 64, 64).with_flags(ResourceFlags::ALLOW_RENDER_TARGET).with_mips(2);
    let tex = ctx.texture(&rt, BarrierLayout::Common);
    let value = ClearData::from_floats([0.25, 0.0, 1.0, 1.0]);
    for layout in [
        BarrierLayout::Common,
        BarrierLayout::CopyDest,
        BarrierLayout::DirectQueueCommon,
        BarrierLayout::DirectQueueCopyDest,
    ] {
        log.clear();
        ctx.run(CommandListType::Direct, |l| {
            barrier(l, &tex, BarrierLayout::Common, layout);
            log.clear();
            l.clear_texture_subresources(&[clear(&tex, 1, value, None)]);
            let names = log.names();
            barrier(l, &tex, layout, BarrierLayout::Common);
            assert_eq!(names, vec!["Barrier", "ClearRenderTargetView", "Barrier"], "{layout:?}");
        });
        let b = texture_barriers(&log);
        let (to, back) = (&b[0], &b[1]);
        assert_eq!((to.layout_before, to.layout_after), (layout, BarrierLayout::RenderTarget));
        assert_eq!((to.sync_before, to.access_before), scope(layout), "from the scope the app's barrier left");
        assert_eq!((to.sync_after, to.access_after), (BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET));
        assert_eq!((back.layout_before, back.layout_after), (BarrierLayout::RenderTarget, layout));
        assert_eq!((back.sync_after, back.access_after), (BarrierSync::COPY, BarrierAccess::COPY_DEST));
        assert_eq!(to.subresources, BarrierSubresourceRange::index(1));
        match &log.commands()[1] {
            Command::ClearRenderTargetView { view, color, rects } => {
                assert_eq!(
                    view.desc.dimension,
                    RtvDimension::Texture2DArray { mip: 1, first_slice: 0, array_size: 1, plane: 0 }
                );
                assert_eq!((*color, rects.len()), ([0.25, 0.0, 1.0, 1.0], 0));
            }
            c => panic!("expected the view clear, got {c:?}"),
        }
    }
    // Without a barrier of its own the list does not know the layout: copies.
    log.clear();
    ctx.run(CommandListType::Direct, |l| l.clear_texture_subresources(&[clear(&tex, 0, value, None)]));
    assert_eq!(log.names(), vec!["CopyTextureRegion"]);
    // Depth: a DSV clear of the plane, in DEPTH_STENCIL_WRITE.
    let ds = ctx.texture(
        &ResourceDesc::tex2d(Format::D24UnormS8Uint, 32, 32).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
        BarrierLayout::Common,
    );
    log.clear();
    ctx.run(CommandListType::Direct, |l| {
        barrier(l, &ds, BarrierLayout::Common, BarrierLayout::CopyDest);
        log.clear();
        l.clear_texture_subresources(&[clear(&ds, 1, ClearData::from_depth_stencil(0.0, 7), None)]);
        barrier(l, &ds, BarrierLayout::CopyDest, BarrierLayout::Common);
    });
    match &log.commands()[1] {
        Command::ClearDepthStencilView { flags, stencil, .. } => {
            assert_eq!((*flags, *stencil), (ClearFlags::STENCIL, 7))
        }
        c => panic!("expected a DSV clear, got {c:?}"),
    }
    assert_eq!(texture_barriers(&log)[0].layout_after, BarrierLayout::DepthStencilWrite);
}

#[test]
fn the_quarter_threshold_picks_copies_or_the_view_clear_on_discrete_devices() {
    for (uma, below, above) in [
        (false, "CopyTextureRegion", "ClearRenderTargetView"),
        (true, "ClearRenderTargetView", "ClearRenderTargetView"),
    ] {
        let (ctx, log) = spy_ctx(ReferenceConfig { uma, ..Default::default() });
        let rt = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 64, 64).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&rt, BarrierLayout::Common);
        let value = ClearData::from_floats([1.0, 0.0, 0.0, 1.0]);
        for (region, want) in [(Box3::new(0, 0, 0, 32, 32, 1), below), (Box3::new(0, 0, 0, 33, 32, 1), above)] {
            log.clear();
            ctx.run(CommandListType::Direct, |l| {
                barrier(l, &tex, BarrierLayout::Common, BarrierLayout::CopyDest);
                log.clear();
                l.clear_texture_subresources(&[clear(&tex, 0, value, Some(region))]);
                assert!(log.names().contains(&want), "uma {uma}, {region:?}: {:?}", log.names());
                barrier(l, &tex, BarrierLayout::CopyDest, BarrierLayout::Common);
            });
        }
    }
}

#[test]
fn msaa_textures_clear_in_place_or_through_a_private_texture() {
    let (ctx, log) = spy_ctx(ReferenceConfig::default());
    let value = ClearData::from_floats([0.25, 0.5, 0.75, 1.0]);
    let msaa = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16).with_samples(4, 0);
    let plain = ctx.texture(&msaa, BarrierLayout::Common);
    log.clear();
    let alloc = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    let record = |f: &dyn Fn(&mut CommandList)| {
        let mut l = ctx.device.create_command_list(CommandListType::Direct, &alloc).unwrap();
        f(&mut l);
        l.close().unwrap();
        ctx.direct.execute_command_lists(&[&l]).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
    };
    record(&|l| {
        l.clear_texture_subresources(&[clear(&plain, 0, value, None)]);
        l.clear_texture_subresources(&[clear(&plain, 0, value, Some(Box3::new(0, 0, 0, 8, 8, 1)))]);
    });
    // The private texture waits in COPY_SOURCE: to render target, clear, back, copy; the
    // second call reuses it.
    let use_once = ["Barrier", "ClearRenderTargetView", "Barrier", "CopyTextureRegion"];
    assert_eq!(log.names(), [use_once, use_once].concat());
    // The private texture matches the target's samples; the copies read it whole or in part.
    let copies: Vec<_> = log
        .commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::CopyTextureRegion { source_box, .. } => Some(source_box),
            _ => None,
        })
        .collect();
    assert_eq!(copies, vec![None, Some(Box3::new(0, 0, 0, 8, 8, 1))]);
    // After the allocator's reset the private texture comes back from the device's pool.
    let private = |log: &SpyLog| {
        log.commands().into_iter().find_map(|c| match c {
            Command::CopyTextureRegion { source, .. } => Some(source.resource),
            _ => None,
        })
    };
    let first = private(&log);
    alloc.reset().unwrap();
    log.clear();
    record(&|l| l.clear_texture_subresources(&[clear(&plain, 0, value, None)]));
    assert_eq!(private(&log), first, "the pooled private texture is used again");
    assert_eq!(log.names(), use_once);
    let rt = ctx.texture(&msaa.with_flags(ResourceFlags::ALLOW_RENDER_TARGET), BarrierLayout::Common);
    log.clear();
    ctx.run(CommandListType::Direct, |l| {
        barrier(l, &rt, BarrierLayout::Common, BarrierLayout::CopyDest);
        log.clear();
        l.clear_texture_subresources(&[clear(&rt, 0, value, None)]);
        barrier(l, &rt, BarrierLayout::CopyDest, BarrierLayout::Common);
    });
    assert_eq!(log.names(), vec!["Barrier", "ClearRenderTargetView", "Barrier", "Barrier"]);
    // A multisampled depth target is cleared in place through a multisampled depth view.
    let ds = ResourceDesc::tex2d(Format::D32Float, 16, 16).with_samples(4, 0);
    let depth = ctx.texture(&ds.with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL), BarrierLayout::Common);
    log.clear();
    ctx.run(CommandListType::Direct, |l| {
        barrier(l, &depth, BarrierLayout::Common, BarrierLayout::CopyDest);
        l.clear_texture_subresources(&[clear(&depth, 0, ClearData::from_depth_stencil(0.5, 0), None)]);
        barrier(l, &depth, BarrierLayout::CopyDest, BarrierLayout::Common);
    });
    let views: Vec<_> = log
        .commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::ClearDepthStencilView { view, .. } => Some(view.desc.dimension),
            _ => None,
        })
        .collect();
    assert_eq!(views, [DsvDimension::Texture2DMsArray { first_slice: 0, array_size: 1 }]);
}

/// Resolves a 4-sample texture and reads the result.
fn resolved(ctx: &Ctx, tex: &Resource) -> Vec<u8> {
    let desc = ResourceDesc::tex2d(tex.desc().format, tex.desc().width as u32, tex.desc().height);
    let out = ctx.texture(&desc, BarrierLayout::Common);
    ctx.run(CommandListType::Direct, |l| {
        barrier(l, tex, BarrierLayout::Common, BarrierLayout::ResolveSource);
        barrier(l, &out, BarrierLayout::Common, BarrierLayout::ResolveDest);
        l.resolve_subresource_region(&out, 0, 0, 0, tex, 0, None, tex.desc().format, ResolveMode::Average);
        barrier(l, tex, BarrierLayout::ResolveSource, BarrierLayout::Common);
        barrier(l, &out, BarrierLayout::ResolveDest, BarrierLayout::Common);
    });
    ctx.read_subresource(&out, 0)
}

#[test]
fn msaa_clears_take_the_closest_value_a_view_clear_can() {
    // The rule: MSAA clears go through a legacy view clear, which takes a float colour; a
    // subnormal channel is flushed to zero (keeping its sign). Native clears keep the value.
    let value = ClearData::from_floats([1e-40, 0.5, -2.0, 0.0]);
    let closest = ClearData::from_floats(view_clear_color(Format::R32G32B32A32Float, &value));
    assert_eq!(closest.floats()[0].to_bits(), 0);
    for (name, ctx) in async_contexts() {
        for flags in [ResourceFlags::empty(), ResourceFlags::ALLOW_RENDER_TARGET] {
            let desc = ResourceDesc::tex2d(Format::R32G32B32A32Float, 8, 8).with_samples(4, 0).with_flags(flags);
            let tex = ctx.texture(&desc, BarrierLayout::Common);
            ctx.run(CommandListType::Direct, |l| {
                barrier(l, &tex, BarrierLayout::Common, BarrierLayout::CopyDest);
                l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
                barrier(l, &tex, BarrierLayout::CopyDest, BarrierLayout::Common);
            });
            let got = resolved(&ctx, &tex);
            let texel: [f32; 4] =
                std::array::from_fn(|i| f32::from_le_bytes(got[i * 4..i * 4 + 4].try_into().unwrap()));
            let fallback = ctx.device.async_commands_impl() == AsyncCommandsImpl::Fallback;
            let want = if fallback { closest } else { value };
            // The resolve averages equal samples; a device may flush a subnormal while doing so.
            let same = |a: f32, b: f32| a == b || a.abs() < f32::MIN_POSITIVE && b.abs() < f32::MIN_POSITIVE;
            assert!(
                texel.iter().zip(want.floats()).all(|(a, b)| same(*a, b)),
                "{name}, flags {flags:?}: {texel:?}, want {:?}",
                want.floats()
            );
        }
    }
}

/// Found by the cross-device fuzzer (seed 117770): a partial region of a multisampled texture
/// without `ALLOW_RENDER_TARGET` closed the native Vulkan list with `DeviceUnsupported` (copies
/// reach no sample; the clear is an attachment clear, which the image did not allow). Every
/// route clears it; the region's texels resolve to the value, the rest keeps the first one.
#[test]
fn a_partial_region_of_a_multisampled_texture_without_target_flags_clears_on_every_route() {
    for (name, ctx) in async_contexts() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 4).with_samples(4, 0);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let (white, red) = (ClearData::from_floats([1.0; 4]), ClearData::from_floats([1.0, 0.0, 0.0, 1.0]));
        let region = Some(Box3::new(2, 1, 0, 6, 3, 1));
        if ctx.device.async_commands_impl() == AsyncCommandsImpl::Fallback {
            // The spec's fallback copies a region into such a texture only with programmable
            // sample positions, and refuses it elsewhere.
            let r = ctx.record(CommandListType::Direct, |l| {
                barrier(l, &tex, BarrierLayout::Common, BarrierLayout::CopyDest);
                l.clear_texture_subresources(&[clear(&tex, 0, red, region)]);
                barrier(l, &tex, BarrierLayout::CopyDest, BarrierLayout::Common);
            });
            if let Err(e) = r {
                assert_eq!(e.id, MessageId::AsyncCommandsFallbackUnsupported, "{name}: {}", e.text);
                continue;
            }
        }
        ctx.run(CommandListType::Direct, |l| {
            barrier(l, &tex, BarrierLayout::Common, BarrierLayout::CopyDest);
            l.clear_texture_subresources(&[clear(&tex, 0, white, None)]);
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::ALL,
                sync_after: BarrierSync::ALL,
                access_before: BarrierAccess::COMMON,
                access_after: BarrierAccess::COMMON,
            }])]);
            l.clear_texture_subresources(&[clear(&tex, 0, red, region)]);
            barrier(l, &tex, BarrierLayout::CopyDest, BarrierLayout::Common);
        });
        let got = resolved(&ctx, &tex);
        for y in 0..4u32 {
            for x in 0..8u32 {
                let inside = (2..6).contains(&x) && (1..3).contains(&y);
                let want = if inside { [255, 0, 0, 255] } else { [255; 4] };
                let i = ((y * 8 + x) * 4) as usize;
                assert_eq!(got[i..i + 4], want, "{name}: texel ({x}, {y})");
            }
        }
    }
}

#[test]
fn bad_descriptions_are_invalid_arguments() {
    let ctx = Ctx::new(opted_in(&reference_adapter(ReferenceConfig::default())));
    let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16).with_mips(2), BarrierLayout::Common);
    let typeless = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Typeless, 16, 16), BarrierLayout::Common);
    let bc = ctx.texture(&ResourceDesc::tex2d(Format::Bc1Unorm, 16, 16), BarrierLayout::Common);
    let buffer = ctx.buffer(HeapType::Default, 256);
    let v = ClearData::from_floats([1.0; 4]);
    let id = MessageId::ClearTextureSubresourcesInvalidParameters;
    let bad: Vec<(&str, ClearTextureDesc<&Resource>, MessageId, &str)> = vec![
        ("buffer", clear(&buffer, 0, v, None), id, "must be a texture"),
        ("typeless", clear(&typeless, 0, v, None), id, "typeless"),
        (
            "typeless named",
            ClearTextureDesc { format: Format::R8G8B8A8Typeless, ..clear(&tex, 0, v, None) },
            id,
            "typeless",
        ),
        ("other family", ClearTextureDesc { format: Format::R16G16Float, ..clear(&tex, 0, v, None) }, id, "family"),
        (
            "typed, not castable",
            ClearTextureDesc { format: Format::R8G8B8A8Uint, ..clear(&tex, 0, v, None) },
            id,
            "family",
        ),
        ("subresource", clear(&tex, 2, v, None), MessageId::InvalidSubresourceIndex, "out of range"),
        ("outside", clear(&tex, 1, v, Some(Box3::new(0, 0, 0, 9, 8, 1))), id, "not inside"),
        ("array range", clear(&tex, 0, v, Some(Box3::new(0, 0, 0, 4, 4, 2))), id, "not inside"),
        ("all across mips", clear(&tex, ALL_SUBRESOURCES, v, Some(Box3::new(0, 0, 0, 4, 4, 1))), id, "one size"),
        ("inverted", clear(&tex, 0, v, Some(Box3::new(4, 0, 0, 2, 4, 1))), id, "not inside"),
        ("BC misaligned", clear(&bc, 0, v, Some(Box3::new(2, 0, 0, 8, 8, 1))), id, "aligned to 4x4"),
        ("BC short", clear(&bc, 0, v, Some(Box3::new(0, 0, 0, 6, 8, 1))), id, "aligned to 4x4"),
    ];
    for (what, desc, want, text) in bad {
        let r = ctx.record(CommandListType::Direct, |l| l.clear_texture_subresources(&[desc]));
        let e = assert_error(r, ErrorCode::InvalidArg, want);
        assert!(e.text.starts_with("ClearTextureSubresources: ") && e.text.contains(text), "{what}: {}", e.text);
    }
    // Not on copy lists, on a device without the Async Commands neither.
    let r = ctx.record(CommandListType::Copy, |l| l.clear_texture_subresources(&[clear(&tex, 0, v, None)]));
    assert_error(r, ErrorCode::InvalidArg, MessageId::CommandListTypeMismatch);
    let off = Ctx::new(reference_device(ReferenceConfig::default()));
    let t = off.texture(&ResourceDesc::tex2d(Format::R8Unorm, 4, 4), BarrierLayout::Common);
    let r = off.record(CommandListType::Direct, |l| l.clear_texture_subresources(&[clear(&t, 0, v, None)]));
    assert_error(r, ErrorCode::Fail, MessageId::AsyncCommandsNotSupported);
    // Empty regions write nothing and are fine.
    ctx.run(CommandListType::Direct, |l| {
        l.clear_texture_subresources(&[clear(&tex, 0, v, Some(Box3::new(3, 3, 0, 3, 8, 1)))])
    });
}

#[test]
fn what_the_fallback_cannot_lower_fails_the_list() {
    let v = ClearData::from_floats([0.5; 4]);
    let msaa = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16).with_samples(4, 0);
    let partial = Some(Box3::new(0, 0, 0, 8, 8, 1));
    let no_psp = ReferenceConfig { programmable_sample_positions: false, ..Default::default() };
    let reject = |config: ReferenceConfig,
                  ty: CommandListType,
                  desc: ResourceDesc,
                  region: Option<Box3>,
                  protected: bool,
                  why: &str| {
        let ctx = Ctx::new(opted_in(&reference_adapter(config)));
        let tex = if protected {
            ctx.device.create_protected_resource(&desc, BarrierLayout::Common).unwrap()
        } else {
            ctx.texture(&desc, BarrierLayout::Common)
        };
        let value = if desc.format.has_depth() { ClearData::from_depth_stencil(0.5, 1) } else { v };
        let r = ctx.record(ty, |l| l.clear_texture_subresources(&[clear(&tex, 0, value, region)]));
        let e = assert_error(r, ErrorCode::Fail, MessageId::AsyncCommandsFallbackUnsupported);
        assert!(
            e.text.starts_with("ClearTextureSubresources: clear 0, subresource 0: ") && e.text.contains(why),
            "{}",
            e.text
        );
    };
    reject(ReferenceConfig::default(), CommandListType::Compute, msaa, None, false, "direct lists");
    reject(ReferenceConfig::default(), CommandListType::Direct, msaa, None, true, "protected");
    reject(no_psp.clone(), CommandListType::Direct, msaa, partial, false, "programmable sample positions");
    let ds = ResourceDesc::tex2d(Format::D32Float, 16, 16);
    reject(no_psp.clone(), CommandListType::Compute, ds, partial, false, "programmable sample positions");
    // Whole depth subresources on compute lists, and partial ones with programmable sample
    // positions, are copies.
    for (config, region) in [(no_psp, None), (ReferenceConfig::default(), partial)] {
        let ctx = Ctx::new(opted_in(&reference_adapter(config)));
        let tex = ctx.texture(&ds, BarrierLayout::Common);
        ctx.run(CommandListType::Compute, |l| {
            l.clear_texture_subresources(&[clear(&tex, 0, ClearData::from_depth_stencil(0.25, 0), region)])
        });
        assert_eq!(&ctx.read_subresource(&tex, 0)[..4], 0.25f32.to_le_bytes());
    }
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
/// Render targets and depth-stencil targets are now cleared natively under predication too,
/// through views. The fallback's pattern copies stay unpredicated on Vulkan (predication
/// reaches no transfers there): its list is refused, as before.
#[test]
fn predication_skips_or_keeps_clears_of_attachments_on_both_routes() {
    for (name, ctx) in async_contexts() {
        let colour = ctx.texture(
            &ResourceDesc::tex2d(Format::R8G8B8A8Uint, 8, 4)
                .with_mips(1)
                .with_array(2)
                .with_flags(ResourceFlags::ALLOW_RENDER_TARGET),
            BarrierLayout::Common,
        );
        let depth = ctx.texture(
            &ResourceDesc::tex2d(Format::D32Float, 8, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
            BarrierLayout::Common,
        );
        let msaa = ctx.texture(
            &ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 4)
                .with_samples(4, 0)
                .with_flags(ResourceFlags::ALLOW_RENDER_TARGET),
            BarrierLayout::Common,
        );
        let predicate = ctx.default_buffer(&[0u8; 8]);
        let value = ClearData::from_uints([1, 2, 3, 4]);
        let red = ClearData::from_floats([1.0, 0.0, 0.0, 1.0]);
        let mut list = ctx.list(CommandListType::Direct);
        {
            let l = &mut list;
            // EQUAL_ZERO with a zero predicate: skipped.
            l.set_predication(Some((&predicate, 0)), PredicationOp::EqualZero);
            l.clear_texture_subresources(&[
                clear(&colour, 0, value, None),
                clear(&depth, 0, ClearData::from_floats([1.0; 4]), None),
            ]);
            l.set_predication(Some((&predicate, 0)), PredicationOp::NotEqualZero);
            l.clear_texture_subresources(&[
                clear(&colour, 1, value, Some(Box3::new(2, 1, 0, 6, 3, 1))),
                clear(&depth, 0, ClearData::from_floats([0.5; 4]), None),
            ]);
            l.set_predication(None, PredicationOp::EqualZero);
        }
        let r = list.close();
        if name == "vulkan fallback" {
            let e = assert_error(r, ErrorCode::Fail, MessageId::DeviceUnsupported);
            assert!(e.text.contains("predicated"), "{name}: {}", e.text);
        } else {
            r.unwrap_or_else(|e| panic!("{name}: {}", e.text));
            ctx.direct.execute_command_lists(&[&list]).unwrap();
            ctx.direct.wait_idle(TIMEOUT).unwrap();
            assert_eq!(ctx.read_subresource(&colour, 0), vec![0; 128], "{name}: slice 0 was predicated off");
            let mut want = vec![0u8; 128];
            for y in 1..3 {
                for x in 2..6 {
                    want[(y * 8 + x) * 4..][..4].copy_from_slice(&[1, 2, 3, 4]);
                }
            }
            assert_eq!(ctx.read_subresource(&colour, 1), want, "{name}: slice 1");
            assert_eq!(ctx.read_subresource(&depth, 0), 0.5f32.to_le_bytes().repeat(32), "{name}: depth");
        }
        // Every route predicates an MSAA clear: it is a view clear.
        let resolved = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 4), BarrierLayout::Common);
        for (op, want) in [(PredicationOp::EqualZero, [0, 0, 0, 0]), (PredicationOp::NotEqualZero, [255, 0, 0, 255])] {
            ctx.run(CommandListType::Direct, |l| {
                // A layout the list knows, which the in-place clear starts from.
                barrier(l, &msaa, BarrierLayout::Common, BarrierLayout::CopyDest);
                l.set_predication(Some((&predicate, 0)), op);
                l.clear_texture_subresources(&[clear(&msaa, 0, red, None)]);
                l.set_predication(None, PredicationOp::EqualZero);
                barrier(l, &msaa, BarrierLayout::CopyDest, BarrierLayout::ResolveSource);
                barrier(l, &resolved, BarrierLayout::Common, BarrierLayout::ResolveDest);
                l.resolve_subresource_region(
                    &resolved,
                    0,
                    0,
                    0,
                    &msaa,
                    0,
                    None,
                    Format::R8G8B8A8Unorm,
                    ResolveMode::Average,
                );
                barrier(l, &msaa, BarrierLayout::ResolveSource, BarrierLayout::Common);
                barrier(l, &resolved, BarrierLayout::ResolveDest, BarrierLayout::Common);
            });
            assert_eq!(ctx.read_subresource(&resolved, 0), want.repeat(32), "{name}: MSAA, {op:?}");
        }
    }
}

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

//! ClearTextureSubresources' fallback routes and rejections: what each route emits (seen on the
//! spy), the tile cache and VRAM staging, in-place transitions, the quarter-coverage
//! threshold, MSAA clears in place or through a private texture, bad descriptions, what the
//! fallback cannot lower, and predication, on every device where bytes are read back.

mod common;

use asyncmd::ddi::spy::SpyLog;
use asyncmd::ddi::Command;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::ReferenceConfig;
use common::clears::*;
use common::spy::*;
use common::*;

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
fn pattern_tiles_are_cached_per_allocator_then_kept_by_the_device() {
    let (ctx, log) = spied_with(ReferenceConfig::default());
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
    // After the reset the device keeps the tile: any allocator's lists take it, nothing is
    // encoded or uploaded again.
    log.clear();
    ctx.run(CommandListType::Compute, |l| l.clear_texture_subresources(&[clear(&other, 0, value, None)]));
    assert_eq!(copy_sources(&log)[0].0, sources[0].0, "a later recording reuses the kept tile");
    assert_eq!(ctx.read_subresource(&other, 0), ctx.read_subresource(&tex, 0), "the same bytes");
    log.clear();
    let mut l = ctx.device.create_command_list(CommandListType::Compute, &alloc).unwrap();
    l.clear_texture_subresources(&[clear(&tex, 0, ClearData::from_floats([0.0; 4]), None)]);
    l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
    l.close().unwrap();
    let after = copy_sources(&log);
    assert_ne!(after[0].0, after[1].0, "different values use different tiles");
    assert_eq!(ctx.read_subresource(&tex, 0).len(), 64 * 64 * 4);
}

/// A batch of clears of one format and value works its tile out once for a run of like
/// clears, and again for a clear of another size: each is one copy from a tile of its own
/// size, and the bytes are the value.
#[test]
fn a_batch_of_like_clears_takes_a_tile_for_each_size() {
    let (ctx, log) = spied_with(ReferenceConfig::default());
    let desc = |w, h| ResourceDesc::tex2d(Format::R8G8B8A8Unorm, w, h);
    let small = [ctx.texture(&desc(4, 4), BarrierLayout::Common), ctx.texture(&desc(4, 4), BarrierLayout::Common)];
    let large = ctx.texture(&desc(300, 200), BarrierLayout::Common);
    let value = ClearData::from_floats([0.5, 0.25, 0.75, 1.0]);
    log.clear();
    ctx.run(CommandListType::Compute, |l| {
        l.clear_texture_subresources(&[
            clear(&small[0], 0, value, None),
            clear(&small[1], 0, value, None),
            clear(&large, 0, value, None),
            clear(&small[0], 0, value, None),
        ])
    });
    let sizes: Vec<(u32, u32)> =
        copy_sources(&log).iter().map(|(_, fp)| (fp.footprint.width, fp.footprint.height)).collect();
    assert_eq!(sizes.len(), 4, "one copy a clear");
    assert_eq!(sizes, [(4, 4), (4, 4), (300, 200), (4, 4)], "each from a tile of its size");
    let texel = [128u8, 64, 191, 255];
    for t in [&small[0], &small[1], &large] {
        assert!(ctx.read_subresource(t, 0).chunks(4).all(|c| c == texel), "the value everywhere");
    }
}

#[test]
fn large_regions_stage_their_tile_in_vram_once_a_recording_then_copy_the_kept_copy() {
    let (ctx, log) = spied_with(ReferenceConfig::default());
    let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4096, 2048), BarrierLayout::Common);
    let value = ClearData::from_floats([0.2, 0.4, 0.6, 0.8]);
    let alloc = ctx.device.create_command_allocator(CommandListType::Compute).unwrap();
    log.clear();
    let mut l = ctx.device.create_command_list(CommandListType::Compute, &alloc).unwrap();
    l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
    l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
    l.close().unwrap();
    ctx.compute.execute_command_lists(&[&l]).unwrap();
    ctx.compute.wait_idle(TIMEOUT).unwrap();
    let names = log.names();
    let call = {
        let mut v = vec!["CopyBufferRegion", "Barrier"];
        // 4096 x 2048 texels at 4 bytes: 16 MiB tiles of 1024 rows, two copies.
        v.extend(["CopyTextureRegion"; 2]);
        v
    };
    assert_eq!(names, [call.clone(), call].concat(), "each call of an unrun recording fills its own block");
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
    // Before the allocator's reset another allocator's list stages again; once the list has
    // run and its allocator is reset, the device keeps the filled VRAM copy: later recordings
    // copy from it and stage nothing.
    log.clear();
    ctx.run(CommandListType::Compute, |l| l.clear_texture_subresources(&[clear(&tex, 0, value, None)]));
    assert_eq!(log.names()[0], "CopyBufferRegion", "the block is not kept before the reset");
    drop(l);
    alloc.reset().unwrap();
    let other = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4096, 2048), BarrierLayout::Common);
    log.clear();
    ctx.run(CommandListType::Compute, |l| l.clear_texture_subresources(&[clear(&other, 0, value, None)]));
    assert_eq!(log.names(), vec!["CopyTextureRegion"; 2], "no staging once a filled copy is kept");
    let sources = copy_sources(&log);
    assert!(stagings.contains(&sources[0].0), "the copies read a block an earlier call filled");
    assert!(ctx.read_subresource(&other, 0).chunks(4).all(|t| t == want.as_bytes()));
    // UMA devices and protected textures copy straight from the upload tile.
    for (config, protected) in
        [(ReferenceConfig { uma: true, ..Default::default() }, false), (ReferenceConfig::default(), true)]
    {
        let (ctx, log) = spied_with(config);
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4096, 2048);
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

#[test]
fn in_place_clears_transition_clear_and_return_to_the_layout_they_started_in() {
    let (ctx, log) = spied_with(ReferenceConfig::default());
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
        let (ctx, log) = spied_with(ReferenceConfig { uma, ..Default::default() });
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
    let (ctx, log) = spied_with(ReferenceConfig::default());
    // A value a view clear stores exactly (no channel at a rounding tie).
    let value = ClearData::from_floats([0.2, 0.4, 0.6, 1.0]);
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
    let pooled = ctx.device.pooled_bytes();
    assert!(pooled >= 16 * 16 * 4 * 4, "the private texture's samples count against the budget: {pooled}");
    log.clear();
    record(&|l| l.clear_texture_subresources(&[clear(&plain, 0, value, None)]));
    assert_eq!(private(&log), first, "the pooled private texture is used again");
    assert_eq!(log.names(), use_once);
    assert_eq!(ctx.device.pooled_bytes(), 0, "taken from the pool while its allocator holds it");
    alloc.reset().unwrap();
    assert_eq!(ctx.device.pooled_bytes(), pooled, "given back, and counted as before");
    let rt = ctx.texture(&msaa.with_flags(ResourceFlags::ALLOW_RENDER_TARGET), BarrierLayout::Common);
    log.clear();
    ctx.run(CommandListType::Direct, |l| {
        barrier(l, &rt, BarrierLayout::Common, BarrierLayout::CopyDest);
        log.clear();
        l.clear_texture_subresources(&[clear(&rt, 0, value, None)]);
        barrier(l, &rt, BarrierLayout::CopyDest, BarrierLayout::Common);
    });
    assert_eq!(log.names(), vec!["Barrier", "ClearRenderTargetView", "Barrier", "Barrier"]);
    // One it would round (0.5 of 255 is a tie) is drawn through a view bound alone, and the
    // app's targets are bound again (`exact_msaa_clears.rs` reads the samples).
    ctx.run(CommandListType::Direct, |l| {
        barrier(l, &rt, BarrierLayout::Common, BarrierLayout::CopyDest);
        log.clear();
        l.clear_texture_subresources(&[clear(&rt, 0, ClearData::from_floats([0.5; 4]), None)]);
    });
    let names = log.names();
    assert_eq!(names.first(), Some(&"Barrier"));
    assert_eq!(names[1], "OMSetRenderTargets");
    assert!(names.contains(&"DrawInstanced") && !names.contains(&"ClearRenderTargetView"), "{names:?}");
    assert_eq!(names[names.len() - 2..], ["OMSetRenderTargets", "Barrier"]);
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

/// A predicated clear of a packed 16-bit render target (a 3D one: found by the fuzzer, seed
/// 19300) runs where the predicate passes and is skipped where it fails, on every route: the
/// Vulkan device's native clear takes a view of such formats, whose channels Vulkan's packed
/// format names as D3D's does (it refused them before).
#[test]
fn predicated_clears_of_packed_render_targets_run_on_every_route() {
    for (name, ctx) in async_contexts() {
        let predicate = ctx.default_buffer(&[0u8; 8]);
        // Magenta: 1.0 and 0.0 are exact in 5 and 6 bits. B5G6R5 keeps blue in the low bits.
        let magenta = ClearData::from_floats([1.0, 0.0, 1.0, 1.0]);
        for (dimension, desc) in [
            ("2D", ResourceDesc::tex2d(Format::B5G6R5Unorm, 4, 2)),
            ("3D", ResourceDesc::tex3d(Format::B5G6R5Unorm, 4, 2, 2)),
        ] {
            for (op, want) in [(PredicationOp::EqualZero, 0u16), (PredicationOp::NotEqualZero, 0xF81F)] {
                let tex = ctx.texture(&desc.with_flags(ResourceFlags::ALLOW_RENDER_TARGET), BarrierLayout::Common);
                let mut list = ctx.list(CommandListType::Direct);
                // A layout the list knows: the fallback's view clear (predicated on Vulkan,
                // where its copy is not) starts from it.
                barrier(&mut list, &tex, BarrierLayout::Common, BarrierLayout::CopyDest);
                list.set_predication(Some((&predicate, 0)), op);
                list.clear_texture_subresources(&[clear(&tex, 0, magenta, None)]);
                list.set_predication(None, PredicationOp::EqualZero);
                barrier(&mut list, &tex, BarrierLayout::CopyDest, BarrierLayout::Common);
                list.close().unwrap_or_else(|e| panic!("{name}, {dimension}, {op:?}: {}", e.text));
                ctx.direct.execute_command_lists(&[&list]).unwrap();
                ctx.direct.wait_idle(TIMEOUT).unwrap();
                let texels = desc.width as usize * desc.height as usize * desc.depth_or_array_size as usize;
                let got = ctx.read_subresource(&tex, 0);
                assert_eq!(got, want.to_le_bytes().repeat(texels), "{name}, {dimension}, {op:?}");
            }
        }
    }
}

/// A private MSAA texture too large for the pools' budget stays with its allocator after the
/// reset, and the next recording there uses it again instead of making another.
#[test]
fn a_private_texture_past_the_pool_budget_stays_with_its_allocator() {
    let (ctx, log) = spied_with(ReferenceConfig::default());
    // 2900² × 4 samples × 4 bytes: just over the 128 MiB budget.
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 2900, 2900).with_samples(4, 0);
    let tex = ctx.texture(&desc, BarrierLayout::Common);
    let value = ClearData::from_floats([0.25, 0.5, 0.75, 1.0]);
    let alloc = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    let private = |log: &SpyLog| {
        log.commands().into_iter().find_map(|c| match c {
            Command::CopyTextureRegion { source, .. } => Some(source.resource),
            _ => None,
        })
    };
    let mut used = Vec::new();
    for _ in 0..2 {
        log.clear();
        let mut l = ctx.device.create_command_list(CommandListType::Direct, &alloc).unwrap();
        l.clear_texture_subresources(&[clear(&tex, 0, value, None)]);
        l.close().unwrap();
        ctx.direct.execute_command_lists(&[&l]).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        used.push(private(&log).expect("the clear-and-copy route"));
        let live = ctx.device.live_resource_count();
        alloc.reset().unwrap();
        assert_eq!(ctx.device.live_resource_count(), live, "the private texture outlives the reset");
        assert_eq!(ctx.device.pooled_bytes(), 0, "it is the allocator's, not the pools'");
    }
    assert_eq!(used[0], used[1], "the second recording reuses it");
}

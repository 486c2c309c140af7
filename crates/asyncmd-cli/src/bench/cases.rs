//! The work each Async Command is measured on, and its legacy equivalent.
//!
//! The defaults are the D3D12AsyncCommands sample's, so that ratios can be set beside its
//! published ones: 256 resources of 1 MiB for buffer copies and fills, 256 textures of 512²
//! RGBA8 for texture copies and clears, 256 tiles of 64 KiB, 64 resolves of 512² ×4.

use super::Params;
use asyncmd::types::*;
use asyncmd::{
    CommandList, CpuDescriptorHandle, DescriptorHeapType, Device, QueryHeap, Resource, Result, TileRangeMapping,
};

/// One Async Command's workload on one device.
pub struct Case {
    /// The work, in words.
    pub work: String,
    /// What an app records without the API.
    pub legacy: Box<dyn Fn(&mut CommandList)>,
    /// The API calls.
    pub batch: Box<dyn Fn(&mut CommandList)>,
    /// Timed runs instead of the default (the sample times resolves over fewer).
    pub runs: Option<usize>,
}

/// Builds a case on a device, or `None` where the device cannot run it (no tiled resources).
pub(super) type Build = fn(&Device, &Params) -> Result<Option<Case>>;

/// Every case by API name, in the spec's API order.
pub const ALL: [(&str, Build); 10] = [
    ("CopyBufferRegions", copy_buffer_regions),
    ("CopyTextureRegions", copy_texture_regions),
    ("CopyResources", copy_resources),
    ("CopyTilesAsync", copy_tiles_async),
    ("ResolveSubresourceRegionAsync", resolve_subresource_region_async),
    ("ResolveQueryDataAsync", resolve_query_data_async),
    ("FillBuffers", fill_buffers),
    ("ClearTextureSubresources", clear_texture_subresources),
    ("ClearBoundRenderTargetViews", clear_bound_render_target_views),
    ("ClearBoundDepthStencilView", clear_bound_depth_stencil_view),
];

pub(super) fn buffer(d: &Device, bytes: u64, flags: ResourceFlags) -> Result<Resource> {
    d.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(bytes).with_flags(flags),
        BarrierLayout::Undefined,
    )
}

pub(super) fn texture(d: &Device, desc: &ResourceDesc, layout: BarrierLayout) -> Result<Resource> {
    d.create_committed_resource(HeapType::Default, desc, layout)
}

/// `n` pairs of independent buffers of `len` bytes each.
fn buffer_pairs(d: &Device, n: u64, len: u64) -> Result<Vec<(Resource, Resource)>> {
    (0..n).map(|_| Ok((buffer(d, len, ResourceFlags::empty())?, buffer(d, len, ResourceFlags::empty())?))).collect()
}

fn copy_buffer_regions(d: &Device, p: &Params) -> Result<Option<Case>> {
    let (n, len) = (p.count(16, 256), p.bytes(64 << 10, 1 << 20));
    p.fits("CopyBufferRegions", n * 2, len)?;
    let pairs = buffer_pairs(d, n, len)?;
    let p2 = pairs.clone();
    Ok(Some(Case {
        work: format!("{n} buffers × {}", size_text(len)),
        legacy: Box::new(move |l| pairs.iter().for_each(|(dst, src)| l.copy_buffer_region(dst, 0, src, 0, len))),
        batch: Box::new(move |l| {
            let r: Vec<_> = p2
                .iter()
                .map(|(dest, source)| BufferCopyRegion { dest, dest_offset: 0, source, source_offset: 0, size: len })
                .collect();
            l.copy_buffer_regions(&r);
        }),
        runs: None,
    }))
}

/// `bytes` in KiB, or in MiB when whole.
pub(super) fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

fn copy_texture_regions(d: &Device, p: &Params) -> Result<Option<Case>> {
    let (n, side) = (p.count(4, 256), p.side(64, 512, 4));
    p.fits("CopyTextureRegions", n * 2, side as u64 * side as u64 * 4)?;
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side);
    let pairs: Vec<(Resource, Resource)> = (0..n)
        .map(|_| Ok((texture(d, &desc, BarrierLayout::Common)?, texture(d, &desc, BarrierLayout::Common)?)))
        .collect::<Result<_>>()?;
    let p2 = pairs.clone();
    Ok(Some(Case {
        work: format!("{n} × {side}² RGBA8"),
        legacy: Box::new(move |l| {
            for (dst, src) in &pairs {
                let (dl, sl) = (TextureCopyLocation::subresource(dst, 0), TextureCopyLocation::subresource(src, 0));
                l.copy_texture_region(&dl, 0, 0, 0, &sl, None);
            }
        }),
        batch: Box::new(move |l| {
            let descs: Vec<_> = p2
                .iter()
                .map(|(dst, src)| TextureCopyDesc {
                    kind: TextureCopyKind::TextureToTexture {
                        dest: dst,
                        dest_subresource: 0,
                        source: src,
                        source_subresource: 0,
                    },
                    regions: vec![TextureCopyRegion { dest_x: 0, dest_y: 0, dest_z: 0, source_box: None }],
                })
                .collect();
            l.copy_texture_regions(&descs);
        }),
        runs: None,
    }))
}

fn copy_resources(d: &Device, p: &Params) -> Result<Option<Case>> {
    let (n, len) = (p.count(4, 256), p.bytes(64 << 10, 1 << 20));
    p.fits("CopyResources", n * 2, len)?;
    let pairs = buffer_pairs(d, n, len)?;
    let p2 = pairs.clone();
    Ok(Some(Case {
        work: format!("{n} buffers × {}", size_text(len)),
        legacy: Box::new(move |l| pairs.iter().for_each(|(dst, src)| l.copy_resource(dst, src))),
        batch: Box::new(move |l| {
            let refs: Vec<(&Resource, &Resource)> = p2.iter().map(|(a, b)| (a, b)).collect();
            l.copy_resources(&refs);
        }),
        runs: None,
    }))
}

fn copy_tiles_async(d: &Device, p: &Params) -> Result<Option<Case>> {
    if d.capabilities().tiled_resources_tier < 2 {
        return Ok(None);
    }
    let tiles = p.count(4, 256);
    p.fits("CopyTilesAsync", tiles * 2, TILE_SIZE_IN_BYTES)?;
    let tiles = tiles as u32;
    let bytes = tiles as u64 * TILE_SIZE_IN_BYTES;
    let reserved = d.create_reserved_resource(&ResourceDesc::buffer(bytes), BarrierLayout::Undefined)?;
    let heap = d.create_heap(bytes)?;
    let queue = d.create_command_queue(CommandListType::Direct)?;
    let mapping = TileRangeMapping { coordinate: Default::default(), num_tiles: tiles, heap: Some((&heap, 0)) };
    queue.update_tile_mappings(&reserved, &[mapping])?;
    let src = buffer(d, bytes, ResourceFlags::empty())?;
    let (r2, s2, keep) = (reserved.clone(), src.clone(), heap);
    let region = TileRegionSize { num_tiles: tiles, ..Default::default() };
    let flags = TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE;
    let at = TiledResourceCoordinate::default();
    Ok(Some(Case {
        work: format!("{tiles} tiles of 64 KiB"),
        legacy: Box::new(move |l| l.copy_tiles(&reserved, &at, &region, &src, 0, flags)),
        batch: Box::new(move |l| {
            let _heap = &keep;
            l.copy_tiles_async(&r2, &at, &region, &s2, 0, flags)
        }),
        runs: None,
    }))
}

fn resolve_subresource_region_async(d: &Device, p: &Params) -> Result<Option<Case>> {
    let (n, side) = (p.count(2, 64), p.side(64, 512, 4));
    p.fits("ResolveSubresourceRegionAsync", n * 5, side as u64 * side as u64 * 4)?;
    let f = Format::R8G8B8A8Unorm;
    let ms = ResourceDesc::tex2d(f, side, side).with_samples(4, 0).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let pairs: Vec<(Resource, Resource)> = (0..n)
        .map(|_| {
            Ok((
                texture(d, &ResourceDesc::tex2d(f, side, side), BarrierLayout::ResolveDest)?,
                texture(d, &ms, BarrierLayout::ResolveSource)?,
            ))
        })
        .collect::<Result<_>>()?;
    let p2 = pairs.clone();
    Ok(Some(Case {
        work: format!("{n} × {side}² RGBA8 ×4 average"),
        legacy: Box::new(move |l| {
            for (dst, src) in &pairs {
                l.resolve_subresource_region(dst, 0, 0, 0, src, 0, None, f, ResolveMode::Average)
            }
        }),
        batch: Box::new(move |l| {
            for (dst, src) in &p2 {
                l.resolve_subresource_region_async(dst, 0, 0, 0, src, 0, None, f, ResolveMode::Average)
            }
        }),
        runs: Some(p.runs().min(8)),
    }))
}

fn resolve_query_data_async(d: &Device, p: &Params) -> Result<Option<Case>> {
    let n = p.count(64, 4096);
    p.fits("ResolveQueryDataAsync", n, 8)?;
    let n = n as u32;
    let heap = d.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: n })?;
    write_timestamps(d, &heap, n)?;
    let dst = buffer(d, n as u64 * 8, ResourceFlags::empty())?;
    let (h2, d2) = (heap.clone(), dst.clone());
    Ok(Some(Case {
        work: format!("{n} timestamps"),
        legacy: Box::new(move |l| l.resolve_query_data(&heap, QueryType::Timestamp, 0, n, &dst, 0)),
        batch: Box::new(move |l| l.resolve_query_data_async(&h2, QueryType::Timestamp, 0, n, &d2, 0)),
        runs: None,
    }))
}

/// Writes every slot of `heap` once and waits, as an app's frame does before it resolves its
/// timestamps: the resolves then read results the GPU wrote.
fn write_timestamps(d: &Device, heap: &QueryHeap, n: u32) -> Result<()> {
    let queue = d.create_command_queue(CommandListType::Direct)?;
    let alloc = d.create_command_allocator(CommandListType::Direct)?;
    let mut list = d.create_command_list(CommandListType::Direct, &alloc)?;
    for i in 0..n {
        list.end_query(heap, QueryType::Timestamp, i);
    }
    list.close()?;
    queue.execute_command_lists(&[&list])?;
    queue.wait_idle(std::time::Duration::from_secs(60))
}

fn fill_buffers(d: &Device, p: &Params) -> Result<Option<Case>> {
    let (n, len) = (p.count(16, 256), p.bytes(64 << 10, 1 << 20));
    p.fits("FillBuffers", n + 1, len)?;
    let buffers: Vec<Resource> =
        (0..n).map(|_| buffer(d, len, ResourceFlags::ALLOW_UNORDERED_ACCESS)).collect::<Result<_>>()?;
    // Without the API an app uploads the pattern once and copies it into each buffer.
    let pattern = buffer(d, len, ResourceFlags::empty())?;
    let b2 = buffers.clone();
    let value = ClearData::from_uints([1, 2, 3, 4]);
    Ok(Some(Case {
        work: format!("{n} buffers × {}, 16-byte pattern (legacy: copies of a pattern buffer)", size_text(len)),
        legacy: Box::new(move |l| buffers.iter().for_each(|b| l.copy_buffer_region(b, 0, &pattern, 0, len))),
        batch: Box::new(move |l| {
            let f: Vec<_> = b2
                .iter()
                .map(|buffer| FillBufferDesc {
                    buffer,
                    offset: 0,
                    fill_value: value,
                    format: Format::Unknown,
                    raw_pattern_size: 16,
                    repeat_count: (len / 16) as u32,
                })
                .collect();
            l.fill_buffers(&f);
        }),
        runs: None,
    }))
}

fn clear_texture_subresources(d: &Device, p: &Params) -> Result<Option<Case>> {
    let (n, side) = (p.count(4, 256), p.side(64, 512, 4));
    p.fits("ClearTextureSubresources", n, side as u64 * side as u64 * 4)?;
    // The API's main use: textures without render-target or UAV flags.
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side);
    let textures: Vec<Resource> = (0..n).map(|_| texture(d, &desc, BarrierLayout::Common)).collect::<Result<_>>()?;
    let value = ClearData::from_floats([0.2, 0.4, 0.6, 0.8]);
    // Without the API an app uploads the value once and copies it into each texture.
    let fp = d.copyable_footprints(&desc, 0, 1, 0)?;
    let upload =
        d.create_committed_resource(HeapType::Upload, &ResourceDesc::buffer(fp.total_bytes), BarrierLayout::Undefined)?;
    let texel = encode_clear(desc.format, 0, &value).map(|e| e.as_bytes().to_vec()).unwrap_or_default();
    upload.write(0, &repeat_bytes(&texel, fp.total_bytes as usize))?;
    let layout = fp.layouts[0];
    let t2 = textures.clone();
    Ok(Some(Case {
        work: format!("{n} × {side}² RGBA8, no RT flag (legacy: copies of an uploaded image)"),
        legacy: Box::new(move |l| {
            for t in &textures {
                let (dl, sl) =
                    (TextureCopyLocation::subresource(t, 0), TextureCopyLocation::footprint(&upload, layout));
                l.copy_texture_region(&dl, 0, 0, 0, &sl, None);
            }
        }),
        batch: Box::new(move |l| {
            let clears: Vec<_> = t2
                .iter()
                .map(|t| ClearTextureDesc {
                    texture: t,
                    subresource: 0,
                    clear_value: value,
                    format: Format::Unknown,
                    region: None,
                })
                .collect();
            l.clear_texture_subresources(&clears);
        }),
        runs: None,
    }))
}

/// `n` textures in their target layout, each with a view in one descriptor heap; the heap is
/// returned to keep the handles valid.
fn bound_targets(
    d: &Device,
    desc: &ResourceDesc,
    n: u32,
    depth: bool,
) -> Result<(Vec<Resource>, Vec<CpuDescriptorHandle>, asyncmd::DescriptorHeap)> {
    let (ty, layout) = if depth {
        (DescriptorHeapType::Dsv, BarrierLayout::DepthStencilWrite)
    } else {
        (DescriptorHeapType::Rtv, BarrierLayout::RenderTarget)
    };
    let heap = d.create_descriptor_heap(ty, n)?;
    let mut textures = Vec::new();
    let mut handles = Vec::new();
    for i in 0..n {
        let t = texture(d, desc, layout)?;
        let h = heap.handle(i);
        if depth {
            d.create_depth_stencil_view(&t, None, &h)?;
        } else {
            d.create_render_target_view(&t, None, &h)?;
        }
        textures.push(t);
        handles.push(h);
    }
    Ok((textures, handles, heap))
}

fn clear_bound_render_target_views(d: &Device, p: &Params) -> Result<Option<Case>> {
    let (n, side) = (p.count(8, 8).clamp(1, 8) as u32, p.side(64, 1024, 4));
    p.fits("ClearBoundRenderTargetViews", n as u64, side as u64 * side as u64 * 4)?;
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let (_textures, handles, heap) = bound_targets(d, &desc, n, false)?;
    let h2 = handles.clone();
    let color = [0.2, 0.4, 0.6, 0.8];
    let mask = (1u32 << n) - 1;
    Ok(Some(Case {
        work: format!("{n} bound {side}² RGBA8 targets (legacy: ClearRenderTargetView each)"),
        legacy: Box::new(move |l| {
            let _keep = (&heap, &_textures);
            handles.iter().for_each(|h| l.clear_render_target_view(h, color, &[]));
        }),
        batch: Box::new(move |l| {
            l.om_set_render_targets(&h2, None);
            l.clear_bound_render_target_views(mask, &[ClearData::from_floats(color); 8], None);
        }),
        runs: None,
    }))
}

fn clear_bound_depth_stencil_view(d: &Device, p: &Params) -> Result<Option<Case>> {
    let side = p.side(64, 2048, 4);
    let desc = ResourceDesc::tex2d(Format::D32Float, side, side).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL);
    let (_textures, handles, heap) = bound_targets(d, &desc, 1, true)?;
    let h2 = handles[0].clone();
    Ok(Some(Case {
        work: format!("{side}² D32 (legacy: ClearDepthStencilView)"),
        legacy: Box::new(move |l| {
            let _keep = (&heap, &_textures);
            l.clear_depth_stencil_view(&handles[0], ClearFlags::DEPTH, 0.5, 0, &[]);
        }),
        batch: Box::new(move |l| {
            l.om_set_render_targets(&[], Some(&h2));
            l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.5, 0, None);
        }),
        runs: None,
    }))
}

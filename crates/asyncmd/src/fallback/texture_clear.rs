//! The three `ClearTextureSubresources` routes and what they emit: legacy copies from a tile of
//! the encoded value, a legacy view clear in place between transitions, and a legacy view
//! clear of a private MSAA texture copied into the target. Multisampled colour values a view
//! clear cannot store exactly are drawn instead of view-cleared on the last two.

use super::bound_clear::ClearTarget;
use super::lowering::{ListFacts, Lowering};
use super::plan::{plan_texture_clear, TextureClearFacts, TextureClearRoute};
use super::pools::TileKey;
use crate::err;
use crate::resource::Resource;
use crate::track::Scope;
use asyncmd_ddi::{Command, DepthStencilView, FormatSupport, RenderTargetView};
use asyncmd_types::{
    align_up, stored_integers, view_clear_exact, BarrierAccess, BarrierGroup, BarrierLayout, BarrierSubresourceRange,
    BarrierSync, Box3, ClearData, ClearElement, ClearFlags, DepthStencilViewDesc, DsvDimension, DsvFlags, Error,
    Format, HeapType, MessageId, PlacedSubresourceFootprint, PlaneInfo, Rect, RenderTargetViewDesc, ResourceDesc,
    ResourceDimension, ResourceFlags, Result, RtvDimension, SubresourceClear, SubresourceFootprint, TextureBarrier,
    TextureBarrierFlags, TextureCopyLocation, TEXTURE_DATA_PITCH_ALIGNMENT,
};

/// Texels of the widest tile row: wide enough that a row copy is cheap, small enough that a
/// tile of a few rows fits in one upload chunk.
const TILE_MAX_WIDTH: u32 = 4096;

/// The most bytes a tile holds. Larger than a fill's upload chunk: a tile is kept by the device
/// across recordings (with its VRAM copy), and each copy of it is a command to record and a
/// copy for the GPU to start. On the H200 a 4096² RGBA8 clear in 1 MiB tiles was 64 copies,
/// 4.4 times the CPU of the legacy copy and 1.3 times its GPU time; in 4 MiB tiles 16 copies,
/// still 3.7-3.9 times the CPU. In 16 MiB tiles it is 4.
pub(crate) const TILE_MAX_BYTES: u64 = 16 << 20;

/// A subresource clear the fallback lowers: the resolved description, naming the list's
/// resources.
pub(crate) type SubClear<'r> = SubresourceClear<&'r Resource>;

/// The sources of one call's pattern copies: the VRAM blocks it filled by tile, and the last
/// clear's tile and source (a batch of like clears looks nothing up again).
#[derive(Default)]
pub(crate) struct PatternSources {
    /// A call names a handful of tiles at most: searched, not hashed.
    staging: smallvec::SmallVec<[(TileKey, Resource); 2]>,
    last: Option<(TileKey, bool, Resource)>,
    /// The last clear's shape, and its plane and tile footprint.
    shape: Option<(TileShape, PlaneInfo, SubresourceFootprint)>,
}

/// What a clear's tile footprint depends on: the texture's format, the plane and the region's
/// extent.
type TileShape = (Format, u32, (u32, u32, u32));

/// The footprint of a tile covering (a first part of) a `w × h × d` region in a plane: at
/// most [`TILE_MAX_WIDTH`] texels wide and [`TILE_MAX_BYTES`] in size.
pub(crate) fn tile_footprint(format: Format, plane: &PlaneInfo, (w, h, d): (u32, u32, u32)) -> SubresourceFootprint {
    let (bw, bh) = (plane.block_width, plane.block_height);
    let width = align_up(w.min(TILE_MAX_WIDTH) as u64, bw as u64) as u32;
    let row_bytes = (width / bw) as u64 * plane.bytes_per_block as u64;
    let row_pitch = align_up(row_bytes, TEXTURE_DATA_PITCH_ALIGNMENT as u64);
    let rows = (h.div_ceil(bh) as u64).min((TILE_MAX_BYTES / row_pitch).max(1)) as u32;
    let depth = (d as u64).min((TILE_MAX_BYTES / (row_pitch * rows as u64)).max(1)) as u32;
    SubresourceFootprint { format, width, height: rows * bh, depth, row_pitch: row_pitch as u32 }
}

/// The bytes of a tile: every row holds the element repeated, padding left zero.
pub(crate) fn tile_bytes(f: &SubresourceFootprint, plane: &PlaneInfo, element: &ClearElement) -> Vec<u8> {
    let rows = (f.height / plane.block_height) as usize * f.depth as usize;
    let row_bytes = (f.width / plane.block_width) as usize * plane.bytes_per_block as usize;
    let row = asyncmd_types::repeat_bytes(element.as_bytes(), row_bytes);
    let mut out = vec![0u8; rows * f.row_pitch as usize];
    for r in out.chunks_mut(f.row_pitch as usize) {
        r[..row_bytes].copy_from_slice(&row);
    }
    out
}

/// The pieces that tile `region` with tiles of `tile`: (destination x, y, z, source box).
pub(crate) fn tile_pieces(region: &Box3, tile: &SubresourceFootprint) -> impl Iterator<Item = (u32, u32, u32, Box3)> {
    let (w, h, d) = region.extent();
    let (left, top, front) = (region.left, region.top, region.front);
    let (tw, th, td) = (tile.width, tile.height, tile.depth);
    (0..d).step_by(td.max(1) as usize).flat_map(move |z| {
        (0..h).step_by(th.max(1) as usize).flat_map(move |y| {
            (0..w)
                .step_by(tw.max(1) as usize)
                .map(move |x| (left + x, top + y, front + z, Box3::sized(tw.min(w - x), th.min(h - y), td.min(d - z))))
        })
    })
}

const API: &str = "ClearTextureSubresources";

/// The format questions of one subresource clear and their answers.
#[derive(Clone, Copy)]
struct FactsMemo {
    /// View format, plane, sample count and value.
    asked: (Format, u32, u32, ClearData),
    renderable: bool,
    exact: bool,
}

/// `ClearTextureSubresources` under the fallback: every subresource is planned, then each
/// recorded on its route. A rejection records nothing.
pub(crate) fn lower(lw: &mut Lowering, parts: Vec<(usize, SubClear)>, list: &ListFacts) -> Result<()> {
    // Every subresource is planned before anything is recorded.
    let mut planned = Vec::with_capacity(parts.len());
    let mut memo = None;
    for (i, c) in parts {
        let facts = facts(lw, &c, list, &mut memo);
        let route = plan_texture_clear(&facts, &list.device);
        tracing::debug!(clear = i, subresource = c.subresource, ?route, "{API}: fallback route");
        match route {
            TextureClearRoute::Rejected(why) => {
                return Err(err::fail(
                    MessageId::AsyncCommandsFallbackUnsupported,
                    API,
                    format!("clear {i}, subresource {}: {}", c.subresource, why.reason()),
                ));
            }
            route => planned.push((route, c)),
        }
    }
    let mut sources = PatternSources::default();
    for (route, c) in planned {
        let r = match route {
            TextureClearRoute::PatternCopy { staged } => lw.clear_by_pattern(&c, staged, &mut sources),
            TextureClearRoute::InPlace { draw } => lw.clear_in_place(&c, draw),
            TextureClearRoute::MsaaCopy { draw } => lw.clear_through_msaa(&c, draw),
            // Rejections removed the list above.
            TextureClearRoute::Rejected(_) => Ok(()),
        };
        r?;
    }
    Ok(())
}

/// What the planner needs to know of one subresource clear; `memo` keeps the format
/// questions of the last clear, which a batch of like clears asks again.
fn facts(lw: &Lowering, c: &SubClear, list: &ListFacts, memo: &mut Option<FactsMemo>) -> TextureClearFacts {
    let desc = c.texture.desc();
    let samples = desc.sample_desc.count;
    let (flag, support) = if c.depth_stencil() {
        (ResourceFlags::ALLOW_DEPTH_STENCIL, FormatSupport::DEPTH_STENCIL)
    } else {
        (ResourceFlags::ALLOW_RENDER_TARGET, FormatSupport::RENDER_TARGET)
    };
    let asked = (c.format, c.plane, samples, c.value);
    // Only a view clear (a flagged target, or any MSAA texture's private one) asks whether
    // the format renders and the value clears exactly: a plain texture takes the copy.
    let viewable = samples > 1 || desc.flags.contains(flag);
    let (renderable_format, exact) = match *memo {
        _ if !viewable => (false, false),
        Some(m) if m.asked == asked => (m.renderable, m.exact),
        _ => {
            let renderable = c.view_format().is_some_and(|f| {
                let caps = lw.factory.format_caps(f);
                caps.support.contains(support)
                    && (samples == 1
                        || caps.support.contains(FormatSupport::MULTISAMPLE_RENDER_TARGET)
                            && caps.supports_samples(samples))
            });
            let exact = c.depth_stencil() || view_clear_exact(c.format, &c.value);
            *memo = Some(FactsMemo { asked, renderable, exact });
            (renderable, exact)
        }
    };
    let renderable = renderable_format && !(c.depth_stencil() && desc.dimension == ResourceDimension::Texture3D);
    let (w, h, d) = c.region.extent();
    let (sw, sh, sd) = desc.subresource_extent(c.subresource).unwrap_or((w, h, d));
    let plane = desc.format.plane(c.plane);
    let region_bytes = plane.map_or(0, |p| {
        (w.div_ceil(p.block_width) as u64) * (h.div_ceil(p.block_height) as u64) * d as u64 * p.bytes_per_block as u64
    });
    TextureClearFacts {
        list: list.list,
        samples,
        depth_stencil: c.depth_stencil(),
        view_target: desc.flags.contains(flag) && renderable,
        simultaneous_access: desc.flags.contains(ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS),
        known_layout: lw.tracker.layout(c.texture.id(), c.subresource),
        exact,
        copyable: samples == 1 && plane.is_some(),
        region_texels: w as u64 * h as u64 * d as u64,
        subresource_texels: sw as u64 * sh as u64 * sd as u64,
        region_bytes,
        protected: c.texture.is_protected(),
        msaa_renderable: renderable && desc.sample_desc.quality == 0,
        closest_values: list.closest_clear_values,
    }
}

fn internal(text: &str) -> Error {
    err::fail(MessageId::AsyncCommandsFallbackUnsupported, "ClearTextureSubresources", text)
}

/// Where a view clear writes: its sync, access and layout.
fn view_scope(depth_stencil: bool) -> (BarrierSync, BarrierAccess, BarrierLayout) {
    if depth_stencil {
        (BarrierSync::DEPTH_STENCIL, BarrierAccess::DEPTH_STENCIL_WRITE, BarrierLayout::DepthStencilWrite)
    } else {
        (BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET, BarrierLayout::RenderTarget)
    }
}

fn texture_barrier(
    resource: &Resource,
    subresource: u32,
    before: (BarrierSync, BarrierAccess, BarrierLayout),
    after: (BarrierSync, BarrierAccess, BarrierLayout),
) -> Command {
    Command::Barrier(vec![BarrierGroup::Texture(vec![TextureBarrier {
        sync_before: before.0,
        sync_after: after.0,
        access_before: before.1,
        access_after: after.1,
        layout_before: before.2,
        layout_after: after.2,
        resource: resource.id(),
        subresources: BarrierSubresourceRange::index(subresource),
        flags: TextureBarrierFlags::empty(),
    }])])
}

/// Private textures of one recording, by description.
pub(crate) type PrivateTextures = Vec<(ResourceDesc, Resource)>;

impl Lowering<'_> {
    /// The pattern-copy route: a tile of the encoded value (cached in the allocator by pattern
    /// and footprint) copied over the region. When `staged`, copied from VRAM: the tile's VRAM
    /// copy that the device kept from a list that has run, or a block this call fills
    /// (`sources` holds the call's blocks), which the device keeps after the allocator's reset.
    pub(crate) fn clear_by_pattern(&mut self, c: &SubClear, staged: bool, sources: &mut PatternSources) -> Result<()> {
        let element = c.element;
        let rf = c.texture.desc().format;
        let shape: TileShape = (rf, c.plane, c.region.extent());
        let (plane, footprint) = match sources.shape {
            // A batch of like clears: the tile of the one before.
            Some((s, plane, footprint)) if s == shape => (plane, footprint),
            _ => {
                let plane = rf.plane(c.plane).ok_or_else(|| internal("no such plane"))?;
                let format = if rf.plane_count() > 1 { plane.format } else { rf };
                let footprint = tile_footprint(format, &plane, shape.2);
                sources.shape = Some((shape, plane, footprint));
                (plane, footprint)
            }
        };
        let key: TileKey = (element, footprint);
        let source = match &sources.last {
            // A batch of like clears: the source of the one before.
            Some((k, s, r)) if *k == key && *s == staged => r.clone(),
            _ => {
                let tile = self.pattern_buffer(key, || tile_bytes(&footprint, &plane, &element))?;
                let source = if !staged {
                    tile
                } else if let Some((_, s)) = sources.staging.iter().find(|(k, _)| *k == key) {
                    s.clone()
                } else {
                    let len = footprint.required_bytes().ok_or_else(|| internal("tile size"))?;
                    let s = self.vram_tile(key, &tile, len)?;
                    sources.staging.push((key, s.clone()));
                    s
                };
                sources.last = Some((key, staged, source.clone()));
                source
            }
        };
        let placed = PlacedSubresourceFootprint { offset: 0, footprint };
        for (x, y, z, size) in tile_pieces(&c.region, &footprint) {
            self.record(Command::CopyTextureRegion {
                dest: TextureCopyLocation::subresource(c.texture.id(), c.subresource),
                dest_x: x,
                dest_y: y,
                dest_z: z,
                source: TextureCopyLocation::footprint(source.id(), placed),
                source_box: Some(size),
            });
        }
        Ok(())
    }

    /// The clear draw of `c`'s region of `resource` (subresource `c`'s, or the whole of a
    /// private texture when `private`), multisampled colour only: through a private RTV bound
    /// alone, every sample written with the value's exact bits.
    fn draw_clear(&mut self, c: &SubClear, resource: &Resource, private: bool) -> Result<()> {
        let format = c.view_format().ok_or_else(|| internal("no view format"))?;
        let slice = if private { 0 } else { c.slice };
        let dimension = RtvDimension::Texture2DMsArray { first_slice: slice, array_size: 1 };
        let view = RenderTargetView { resource: resource.id(), desc: RenderTargetViewDesc { format, dimension } };
        let region = if private {
            None
        } else {
            Some(Box3::new(c.region.left, c.region.top, 0, c.region.right, c.region.bottom, 1))
        };
        let mut target = ClearTarget::rtv(0, view, resource.desc()).ok_or_else(|| internal("no view"))?;
        target = target.with_regions(region.as_ref().map(std::slice::from_ref));
        target.value = stored_integers(format, &c.value);
        self.clear_targets_alone(vec![target])
    }

    /// The view clear of `c`'s region of `resource` (subresource `c`'s, or the whole of a
    /// private texture when `private`), or its clear draw with `draw`.
    fn view_clear(&mut self, c: &SubClear, resource: &Resource, private: bool, draw: bool) -> Result<()> {
        let desc = resource.desc();
        let msaa = desc.is_msaa();
        if draw && msaa && !c.depth_stencil() {
            return self.draw_clear(c, resource, private);
        }
        let (mip, slice) = if private { (0, 0) } else { (c.mip, c.slice) };
        let rects = if private
            || (c.region.left, c.region.top) == (0, 0) && {
                let (w, h, _) = desc.mip_extent(mip);
                (c.region.right, c.region.bottom) == (w, h)
            } {
            Vec::new()
        } else {
            let r = &c.region;
            vec![Rect::new(r.left as i32, r.top as i32, r.right as i32, r.bottom as i32)]
        };
        let format = c.view_format().ok_or_else(|| internal("no view format"))?;
        if c.depth_stencil() {
            let dimension = match desc.dimension {
                ResourceDimension::Texture1D => DsvDimension::Texture1DArray { mip, first_slice: slice, array_size: 1 },
                _ if msaa => DsvDimension::Texture2DMsArray { first_slice: slice, array_size: 1 },
                _ => DsvDimension::Texture2DArray { mip, first_slice: slice, array_size: 1 },
            };
            let flags = if c.plane == 0 { ClearFlags::DEPTH } else { ClearFlags::STENCIL };
            let view = DepthStencilView {
                resource: resource.id(),
                desc: DepthStencilViewDesc { format, flags: DsvFlags::empty(), dimension },
            };
            let value = c.view();
            let (depth, stencil) = (value.depth, value.stencil);
            self.record(Command::ClearDepthStencilView { view, flags, depth, stencil, rects });
        } else {
            let dimension = match desc.dimension {
                ResourceDimension::Texture1D => RtvDimension::Texture1DArray { mip, first_slice: slice, array_size: 1 },
                ResourceDimension::Texture3D => {
                    RtvDimension::Texture3D { mip, first_w: c.region.front, w_size: c.region.back - c.region.front }
                }
                _ if msaa => RtvDimension::Texture2DMsArray { first_slice: slice, array_size: 1 },
                _ => RtvDimension::Texture2DArray { mip, first_slice: slice, array_size: 1, plane: 0 },
            };
            let view = RenderTargetView { resource: resource.id(), desc: RenderTargetViewDesc { format, dimension } };
            self.record(Command::ClearRenderTargetView { view, color: c.view().color, rects });
        }
        Ok(())
    }

    /// The in-place route: the subresource moves from its tracked scope and layout to render
    /// target or depth-write, is cleared through a private view, and returns to COPY /
    /// COPY_DEST in the layout it started in.
    pub(crate) fn clear_in_place(&mut self, c: &SubClear, draw: bool) -> Result<()> {
        let id = c.texture.id();
        let layout = self.tracker.layout(id, c.subresource).ok_or_else(|| internal("unknown layout"))?;
        let scope = self.tracker.scope_or(id, Scope::COPY_DEST);
        let target = view_scope(c.depth_stencil());
        self.record(texture_barrier(c.texture, c.subresource, (scope.sync, scope.access, layout), target));
        self.view_clear(c, c.texture, false, draw)?;
        let back = (BarrierSync::COPY, BarrierAccess::COPY_DEST, layout);
        self.record(texture_barrier(c.texture, c.subresource, target, back));
        self.tracker.set_scope(id, Scope::COPY_DEST);
        Ok(())
    }

    /// The MSAA clear-and-copy route: a private texture of the subresource's size, format (the
    /// combined depth-stencil one for depth) and sample count, owned by the allocator, reused
    /// within the recording and pooled after the allocator's reset, is cleared whole and copied
    /// into the region.
    pub(crate) fn clear_through_msaa(&mut self, c: &SubClear, draw: bool) -> Result<()> {
        let desc = c.texture.desc();
        let (w, h, _) = desc.subresource_extent(c.subresource).ok_or_else(|| internal("subresource"))?;
        let format = c.view_format().ok_or_else(|| internal("no view format"))?;
        let flag =
            if c.depth_stencil() { ResourceFlags::ALLOW_DEPTH_STENCIL } else { ResourceFlags::ALLOW_RENDER_TARGET };
        let pdesc = ResourceDesc::tex2d(format, w, h)
            .with_samples(desc.sample_desc.count, desc.sample_desc.quality)
            .with_flags(flag);
        let target = view_scope(c.depth_stencil());
        let copy_source = (BarrierSync::COPY, BarrierAccess::COPY_SOURCE, BarrierLayout::CopySource);
        // Private textures wait in COPY_SOURCE between uses, in this list or (pooled after
        // their allocator's reset) in later ones, whether or not a list that used them ran.
        let private = match self.state.private_textures.iter().find(|(d, _)| *d == pdesc) {
            Some((_, r)) => r.clone(),
            None => {
                let kept = self.cache.take_large(&pdesc).or_else(|| self.resources.pools.take_texture(&pdesc));
                let r = match kept {
                    Some(r) => r,
                    None => {
                        self.factory.create_committed_resource(HeapType::Default, &pdesc, BarrierLayout::CopySource)?
                    }
                };
                self.cache.own(r.clone());
                self.state.private_textures.push((pdesc, r.clone()));
                r
            }
        };
        for plane in 0..format.plane_count() {
            self.record(texture_barrier(&private, pdesc.subresource_index(0, 0, plane), copy_source, target));
        }
        self.view_clear(c, &private, true, draw)?;
        let psub = pdesc.subresource_index(0, 0, c.plane);
        for plane in 0..format.plane_count() {
            self.record(texture_barrier(&private, pdesc.subresource_index(0, 0, plane), target, copy_source));
        }
        self.record(Command::CopyTextureRegion {
            dest: TextureCopyLocation::subresource(c.texture.id(), c.subresource),
            dest_x: c.region.left,
            dest_y: c.region.top,
            dest_z: 0,
            source: TextureCopyLocation::subresource(private.id(), psub),
            source_box: (!c.whole).then_some(Box3::new(
                c.region.left,
                c.region.top,
                0,
                c.region.right,
                c.region.bottom,
                1,
            )),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(format: Format) -> PlaneInfo {
        format.plane(0).unwrap()
    }

    #[test]
    fn tiles_fit_one_chunk_and_cover_the_region() {
        let p = plane(Format::R8G8B8A8Unorm);
        let t = tile_footprint(Format::R8G8B8A8Unorm, &p, (4096, 4096, 1));
        assert_eq!((t.width, t.row_pitch, t.height, t.depth), (4096, 16384, 1024, 1));
        let small = tile_footprint(Format::R8G8B8A8Unorm, &p, (10, 3, 1));
        assert_eq!((small.width, small.height, small.row_pitch), (10, 3, 256));
        // 3D: whole slices while they fit.
        let vol = tile_footprint(Format::R8Unorm, &plane(Format::R8Unorm), (16, 16, 64));
        assert_eq!((vol.height, vol.depth), (16, 64));
        // A deep region: 64 rows of 1 KiB a slice, 256 slices to the 16 MiB tile, not 600.
        let deep = tile_footprint(Format::R8G8B8A8Unorm, &p, (256, 64, 600));
        assert_eq!((deep.row_pitch, deep.height, deep.depth), (1024, 64, 256));
        let slice = deep.row_pitch as u64 * deep.height as u64;
        assert!(slice * deep.depth as u64 <= TILE_MAX_BYTES && slice * (deep.depth as u64 + 1) > TILE_MAX_BYTES);
        // Depth pieces start at the region's front and stop at its back.
        let deep_pieces: Vec<_> = tile_pieces(&Box3::new(0, 0, 2, 256, 64, 552), &deep).collect();
        assert_eq!(
            deep_pieces,
            [
                (0, 0, 2, Box3::sized(256, 64, 256)),
                (0, 0, 258, Box3::sized(256, 64, 256)),
                (0, 0, 514, Box3::sized(256, 64, 38))
            ]
        );
        let pieces: Vec<_> = tile_pieces(&Box3::new(2, 0, 0, 4098 + 100, 1100, 1), &t).collect();
        assert_eq!(pieces.len(), 2 * 2);
        let texels: u64 = pieces.iter().map(|(_, _, _, b)| b.extent().0 as u64 * b.extent().1 as u64).sum();
        assert_eq!(texels, 4196 * 1100);
        assert_eq!(pieces[1], (4098, 0, 0, Box3::sized(100, 1024, 1)));
    }

    #[test]
    fn block_compressed_tiles_count_blocks() {
        let p = plane(Format::Bc1Unorm);
        let t = tile_footprint(Format::Bc1Unorm, &p, (10, 6, 1));
        assert_eq!((t.width, t.height, t.row_pitch), (12, 8, 256));
        let v = asyncmd_types::ClearData { bytes: [7; 16] };
        let bytes = tile_bytes(&t, &p, &asyncmd_types::encode_clear(Format::Bc1Unorm, 0, &v).unwrap());
        assert_eq!(bytes.len(), 2 * 256);
        assert!(bytes[..24].iter().all(|&b| b == 7) && bytes[24..256].iter().all(|&b| b == 0));
    }
}

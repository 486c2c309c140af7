//! The native Async Commands of the reference device.
//!
//! The independent parts of a call run at once on the device's workers (`workers.rs`), and
//! one large part's rows or chunks too. Parts that touch one resource serialize on its lock,
//! which is one of the orders the API allows for overlapping destinations.

use super::surface::Surface;
use super::workers::{parallel, rows_mut};
use super::Exec;
use asyncmd_ddi::{Command, DepthStencilView, RenderTargetView, ResourceId};
use asyncmd_types::{
    clip_boxes, encode_texel, fill_repeating, Box3, ClearData, ClearFlags, CopyLocationKind, ResolvedFill,
    ResourceDimension, SubresourceClear, TextureCopyKind, TextureCopyLocation,
};

/// Writes `value` into every element (block, all samples) of `bbox` (in texels) of a surface,
/// the rows spread over the workers.
fn fill_box(data: &mut [u8], s: &Surface, bbox: &Box3, value: &[u8]) {
    let (bw, bh) = (s.block_w.max(1), s.block_h.max(1));
    let n = s.sample_bytes();
    if value.len() < n || n == 0 {
        return;
    }
    let (bx0, bx1) = (bbox.left / bw, bbox.right.min(s.width).div_ceil(bw));
    let len = bx1.saturating_sub(bx0) as usize * s.elem as usize;
    let x = s.offset(bx0, 0, 0).saturating_sub(s.base) as usize;
    for z in bbox.front..bbox.back.min(s.depth) {
        let rows = bbox.top / bh..bbox.bottom.min(s.height).div_ceil(bh);
        super::pixels::fill_rows(data, s, rows, z, (x, len), &value[..n], true);
    }
}

/// The bytes one worker fills at a time when a fill is large enough to share.
const FILL_CHUNK: usize = 64 << 10;

impl Exec<'_> {
    pub(crate) fn native(&self, c: &Command) {
        let this: &Self = self;
        match c {
            Command::CopyBufferRegions(regions) => {
                parallel(regions, |r| r.dest, |r| r.size, |r| this.copy_buffer_region(r))
            }
            Command::CopyTextureRegions(descs) => {
                let mut parts = Vec::new();
                for d in descs {
                    let (dest, source) = match d.kind {
                        TextureCopyKind::TextureToTexture { dest, dest_subresource, source, source_subresource } => (
                            TextureCopyLocation::subresource(dest, dest_subresource),
                            TextureCopyLocation::subresource(source, source_subresource),
                        ),
                        TextureCopyKind::BufferToTexture { buffer, texture, subresource, footprint } => (
                            TextureCopyLocation::subresource(texture, subresource),
                            TextureCopyLocation {
                                resource: buffer,
                                kind: CopyLocationKind::PlacedFootprint(footprint),
                            },
                        ),
                        TextureCopyKind::TextureToBuffer { buffer, texture, subresource, footprint } => (
                            TextureCopyLocation {
                                resource: buffer,
                                kind: CopyLocationKind::PlacedFootprint(footprint),
                            },
                            TextureCopyLocation::subresource(texture, subresource),
                        ),
                    };
                    for r in &d.regions {
                        parts.push((dest, source, *r));
                    }
                }
                parallel(
                    &parts,
                    |(d, _, _)| d.resource,
                    |(d, _, _)| this.bytes_of(d.resource),
                    |(dest, source, r)| {
                        this.copy_texture_region(dest, (r.dest_x, r.dest_y, r.dest_z), source, r.source_box)
                    },
                );
            }
            Command::CopyResources(pairs) => {
                parallel(pairs, |(d, _)| *d, |(d, _)| this.bytes_of(*d), |(d, s)| this.copy_resource(*d, *s))
            }
            Command::CopyTilesAsync(t) => crate::tiles::copy_tiles(self, t, true),
            Command::ResolveSubresourceRegionAsync(r) => self.resolve_on(r, true),
            Command::ResolveQueryDataAsync(q) => self.resolve_query_data(q),
            Command::FillBuffers(fills) => parallel(fills, |f| f.buffer, |f| f.bytes, |f| this.fill(f)),
            Command::ClearTextureSubresources(clears) => parallel(
                clears,
                |c| c.texture,
                |c| {
                    let (w, h, d) = c.region.extent();
                    w as u64 * h as u64 * d as u64 * c.element.as_bytes().len() as u64
                },
                |c| this.clear_texture(c),
            ),
            Command::ClearBoundRenderTargetViews { mask, values, regions } => {
                let selected: Vec<(usize, RenderTargetView)> =
                    self.state.rtvs.iter().copied().enumerate().filter(|(slot, _)| mask & (1 << slot) != 0).collect();
                parallel(
                    &selected,
                    |(_, v)| v.resource,
                    |(_, v)| this.bytes_of(v.resource),
                    |(slot, view)| this.clear_bound_rtv(view, &values[*slot], regions[*slot].as_deref()),
                );
            }
            Command::ClearBoundDepthStencilView { flags, depth, stencil, regions } => {
                if let Some(view) = self.state.dsv {
                    self.clear_bound_dsv(&view, *flags, *depth, *stencil, regions.as_deref());
                }
            }
            _ => {}
        }
    }

    fn fill(&self, f: &ResolvedFill<ResourceId>) {
        let Some(buffer) = self.resource(f.buffer) else { return };
        let mut data = buffer.write();
        let span = usize::try_from(f.offset).ok().zip(usize::try_from(f.bytes).ok()).and_then(|(start, n)| {
            let end = start.checked_add(n)?;
            data.get_mut(start..end)
        });
        let pattern = f.pattern.as_bytes();
        if let Some(span) = span.filter(|_| !pattern.is_empty()) {
            // Chunks of whole patterns keep each chunk's copies in phase with the span's.
            let chunk = FILL_CHUNK / pattern.len() * pattern.len();
            rows_mut(span, chunk, true, |_, c| fill_repeating(c, pattern));
        }
        buffer.scrub_unmapped(&mut data);
    }

    /// Bytes of a resource's memory (0 for an unknown id).
    fn bytes_of(&self, id: asyncmd_ddi::ResourceId) -> u64 {
        self.resource(id).map_or(0, |r| r.read().len() as u64)
    }

    fn clear_texture(&self, c: &SubresourceClear<ResourceId>) {
        let Some(res) = self.resource(c.texture) else { return };
        let Some(s) = Surface::subresource(&res, c.subresource) else { return };
        fill_box(&mut res.write(), &s, &c.region, c.element.as_bytes());
    }

    /// Inside a render pass, bound clears reach only the area every bound output covers (the
    /// smallest width, height and slice count), as a GPU's render area does; outside one,
    /// every region is cleared through its own target.
    fn in_pass_area(&self, boxes: Vec<(asyncmd_types::Rect, u32, u32)>) -> Vec<(asyncmd_types::Rect, u32, u32)> {
        if self.state.pass.is_none() {
            return boxes;
        }
        let extent =
            |id: asyncmd_ddi::ResourceId,
             range: &dyn Fn(&asyncmd_types::ResourceDesc) -> Option<asyncmd_types::ViewRange>| {
                let res = self.resource(id)?;
                let range = range(&res.desc)?;
                let (w, h, _) = res.desc.mip_extent(range.mip);
                Some((w, h, range.slices))
            };
        let rtvs = self.state.rtvs.iter().map(|v| extent(v.resource, &|d| v.desc.range(d)));
        let dsv = self.state.dsv.iter().map(|v| extent(v.resource, &|d| v.desc.range(d)));
        let (mut aw, mut ah, mut layers) = (u32::MAX, u32::MAX, u32::MAX);
        for (w, h, l) in rtvs.chain(dsv).flatten() {
            (aw, ah, layers) = (aw.min(w), ah.min(h), layers.min(l));
        }
        let area = asyncmd_types::Rect::new(0, 0, aw.min(i32::MAX as u32) as i32, ah.min(i32::MAX as u32) as i32);
        boxes
            .into_iter()
            .filter_map(|(r, first, count)| {
                let r = r.intersect(&area);
                let count = count.min(layers.saturating_sub(first));
                (!r.is_empty() && count > 0).then_some((r, first, count))
            })
            .collect()
    }

    fn clear_bound_rtv(&self, view: &RenderTargetView, value: &ClearData, regions: Option<&[Box3]>) {
        let Some(res) = self.resource(view.resource) else { return };
        let Some(range) = view.desc.range(&res.desc) else { return };
        let Some((bytes, n)) = encode_texel(view.desc.format, value) else { return };
        let three_d = res.desc.dimension == ResourceDimension::Texture3D;
        let mut data = res.write();
        let (w, h, _) = res.desc.mip_extent(range.mip);
        for (rect, first, count) in self.in_pass_area(clip_boxes(regions, w, h, range.slices)) {
            for slice in range.first_slice + first..range.first_slice + first + count {
                let (sub, z) = if three_d {
                    (res.desc.subresource_index(range.mip, 0, 0), slice)
                } else {
                    (res.desc.subresource_index(range.mip, slice, range.plane), 0)
                };
                let Some(s) = Surface::subresource(&res, sub) else { continue };
                for r in super::clear::clip_rects(&[rect], s.width, s.height) {
                    super::pixels::fill_rect(&mut data, &s, r, z, &bytes[..n], true);
                }
            }
        }
    }

    fn clear_bound_dsv(
        &self,
        view: &DepthStencilView,
        flags: ClearFlags,
        depth: f32,
        stencil: u8,
        regions: Option<&[Box3]>,
    ) {
        let Some(res) = self.resource(view.resource) else { return };
        let Some(range) = view.desc.range(&res.desc) else { return };
        let (w, h, _) = res.desc.mip_extent(range.mip);
        for (rect, first, count) in self.in_pass_area(clip_boxes(regions, w, h, range.slices)) {
            let sub_view = DepthStencilView {
                resource: view.resource,
                desc: asyncmd_types::DepthStencilViewDesc {
                    dimension: asyncmd_types::DsvDimension::Texture2DArray {
                        mip: range.mip,
                        first_slice: range.first_slice + first,
                        array_size: count,
                    },
                    ..view.desc
                },
            };
            if !res.desc.is_msaa() && res.desc.dimension == ResourceDimension::Texture2D {
                self.clear_dsv(&sub_view, flags, depth, stencil, &[rect], true);
            } else {
                self.clear_dsv(view, flags, depth, stencil, &[rect], true);
            }
        }
    }
}

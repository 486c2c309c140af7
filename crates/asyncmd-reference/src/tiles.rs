//! Reserved (tiled) resources: tile shapes, mappings, `CopyTiles`, and keeping unmapped tiles
//! reading as zero.
//!
//! Each resource tile maps to a heap tile or to nothing. The memory behind a mapped tile is the
//! resource's own: two resources mapping one heap tile do not alias on this device (recorded
//! in `docs/reference-device.md`). Writes to unmapped tiles are dropped and reads of them
//! return zero, as on Tier 2 hardware.

use crate::device::Shared;
use crate::exec::surface::Surface;
use crate::exec::Exec;
use crate::memory::RefResource;
use asyncmd_ddi::{ResourceId, TileCopy, TileMapping};
use asyncmd_types::{
    linear_tile, subresource_tiles as tiles_of, tile_coordinate, tile_count, tile_shape, Error, MessageId, Result,
    TileCopyFlags, TILE_SIZE_IN_BYTES,
};
use std::sync::PoisonError;

/// Applies tile mappings.
pub(crate) fn update_tile_mappings(shared: &Shared, resource: ResourceId, mappings: &[TileMapping]) -> Result<()> {
    let err = |t: String| Error::invalid_arg(MessageId::CopyTilesInvalidParameters, format!("UpdateTileMappings: {t}"));
    let res = shared.resources.get(resource.0).ok_or_else(|| err("unknown resource".into()))?;
    let Some(tiles) = &res.tiles else { return Err(err("the resource is not reserved".into())) };
    for m in mappings {
        let first =
            linear_tile(&res.desc, &m.coordinate).ok_or_else(|| err("start coordinate outside the resource".into()))?;
        let end = first + m.num_tiles as u64;
        if end > tile_count(&res.desc) {
            return Err(err(format!("{} tiles from tile {first} run past the resource", m.num_tiles)));
        }
        if let Some((heap, start)) = m.heap {
            let heap_tiles = shared.heaps.get(heap.0).ok_or_else(|| err("unknown heap".into()))?;
            if start as u64 + m.num_tiles as u64 > heap_tiles.tiles {
                return Err(err("heap range past the heap's end".into()));
            }
        }
        let mut t = tiles.lock().unwrap_or_else(PoisonError::into_inner);
        for (i, slot) in t[first as usize..end as usize].iter_mut().enumerate() {
            *slot = m.heap.map(|(h, start)| (h, start + i as u32));
        }
    }
    let mut data = res.write();
    res.scrub_unmapped(&mut data);
    Ok(())
}

/// The rows of one tile: (offset in the resource, bytes, offset in the tile's 64 KiB of linear
/// memory). Linear rows are a full tile row apart, also for tiles that the resource's edge cuts.
fn tile_rows(res: &RefResource, index: u64) -> Vec<(usize, usize, usize)> {
    if res.desc.is_buffer() {
        let start = index * TILE_SIZE_IN_BYTES;
        let end = (start + TILE_SIZE_IN_BYTES).min(res.desc.width);
        return vec![(start as usize, end.saturating_sub(start) as usize, 0)];
    }
    let Some(c) = tile_coordinate(&res.desc, index) else { return Vec::new() };
    let Some(s) = Surface::subresource(res, c.subresource) else { return Vec::new() };
    let (tw, th, td) = tile_shape(&res.desc);
    let (x0, y0, z0) = (c.x * tw, c.y * th, c.z * td);
    let x1 = (x0 + tw).min(s.width);
    let (bw, bh) = (s.block_w.max(1), s.block_h.max(1));
    let row_len = ((x1 - x0).div_ceil(bw) as u64 * s.elem) as usize;
    let full_row = (tw / bw) as usize * s.elem as usize;
    let rows_per_slice = (th / bh) as usize;
    let mut rows = Vec::new();
    for (zi, z) in (z0..(z0 + td).min(s.depth)).enumerate() {
        for (yi, by) in (y0 / bh..(y0 + th).min(s.height).div_ceil(bh)).enumerate() {
            rows.push((s.offset(x0 / bw, by, z) as usize, row_len, (zi * rows_per_slice + yi) * full_row));
        }
    }
    rows
}

impl RefResource {
    /// Zeroes every unmapped tile of a reserved resource so that reads of it return zero and
    /// writes to it are lost.
    pub(crate) fn scrub_unmapped(&self, data: &mut [u8]) {
        let Some(tiles) = &self.tiles else { return };
        let tiles = tiles.lock().unwrap_or_else(PoisonError::into_inner);
        for (i, t) in tiles.iter().enumerate() {
            if t.is_none() {
                for (o, n, _) in tile_rows(self, i as u64) {
                    if let Some(r) = data.get_mut(o..o + n) {
                        r.fill(0);
                    }
                }
            }
        }
    }
}

/// `CopyTiles`: tiles between a reserved resource and a linear buffer, 64 KiB per tile in the
/// buffer, rows of each tile packed one after another. A run of a reserved buffer's tiles is
/// one span of bytes on each side, copied by the workers if `workers` is set (a native copy).
pub(crate) fn copy_tiles(exec: &Exec<'_>, t: &TileCopy, workers: bool) {
    let (Some(res), Some(buffer)) = (exec.resource(t.resource), exec.resource(t.buffer)) else { return };
    let Some(first) = linear_tile(&res.desc, &t.start) else { return };
    let to_buffer = t.flags.contains(TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER);
    if res.desc.is_buffer() && !t.size.use_box {
        let start = first.saturating_mul(TILE_SIZE_IN_BYTES);
        let end = start.saturating_add(t.size.num_tiles as u64 * TILE_SIZE_IN_BYTES).min(res.desc.width);
        let (Ok(start), Ok(len), Ok(linear)) =
            (usize::try_from(start), usize::try_from(end.saturating_sub(start)), usize::try_from(t.buffer_offset))
        else {
            return;
        };
        let (src, dst, from, to) =
            if to_buffer { (&res, &buffer, start, linear) } else { (&buffer, &res, linear, start) };
        crate::memory::with_src_dst(src, dst, |s, d| {
            let (Some(a), Some(b)) = (s.get(from..from.saturating_add(len)), d.get_mut(to..to.saturating_add(len)))
            else {
                return;
            };
            crate::exec::workers::copy(b, a, workers);
        });
        return;
    }
    let mut indices = Vec::new();
    if t.size.use_box {
        let Some((tx, ty, _)) = tiles_of(&res.desc, t.start.subresource) else { return };
        for z in 0..t.size.depth as u32 {
            for y in 0..t.size.height as u32 {
                for x in 0..t.size.width {
                    if t.start.x + x < tx && t.start.y + y < ty {
                        indices.push(first + ((z as u64 * ty as u64 + y as u64) * tx as u64) + x as u64);
                    }
                }
            }
        }
    } else {
        indices.extend(first..first + t.size.num_tiles as u64);
    }
    let (src, dst) = if to_buffer { (&res, &buffer) } else { (&buffer, &res) };
    crate::memory::with_src_dst(src, dst, |s, d| {
        for (n, &index) in indices.iter().enumerate() {
            let base = (t.buffer_offset + n as u64 * TILE_SIZE_IN_BYTES) as usize;
            for (o, len, in_tile) in tile_rows(&res, index) {
                let linear = base + in_tile;
                let (from, to) = if to_buffer { (o, linear) } else { (linear, o) };
                if let (Some(a), Some(b)) = (s.get(from..from + len), d.get_mut(to..to + len)) {
                    b.copy_from_slice(a);
                }
            }
        }
    });
}

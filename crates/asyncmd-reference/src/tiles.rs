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
    Error, MessageId, ResourceDesc, ResourceDimension, Result, TileCopyFlags, TiledResourceCoordinate, TILE_SIZE_IN_BYTES,
};
use std::sync::PoisonError;

/// Texels per tile in x, y and z for a texture of this description (standard 64 KiB shapes).
pub(crate) fn tile_shape(desc: &ResourceDesc) -> (u32, u32, u32) {
    if desc.is_buffer() {
        return (TILE_SIZE_IN_BYTES as u32, 1, 1);
    }
    let info = desc.format.info();
    let bytes = info.bytes_per_block as u32;
    let (bw, bh) = (info.block_width as u32, info.block_height as u32);
    let blocks = match desc.dimension {
        ResourceDimension::Texture1D => (65536 / bytes.max(1), 1, 1),
        ResourceDimension::Texture3D => match bytes {
            1 => (64, 32, 32),
            2 => (32, 32, 32),
            4 => (32, 32, 16),
            8 => (32, 16, 16),
            _ => (16, 16, 16),
        },
        _ => match bytes {
            1 => (256, 256, 1),
            2 => (256, 128, 1),
            4 => (128, 128, 1),
            8 => (128, 64, 1),
            _ => (64, 64, 1),
        },
    };
    (blocks.0 * bw, blocks.1 * bh, blocks.2)
}

/// Tiles of one subresource in x, y and z.
fn tiles_of(desc: &ResourceDesc, sub: u32) -> Option<(u32, u32, u32)> {
    if desc.is_buffer() {
        return Some(((desc.width.div_ceil(TILE_SIZE_IN_BYTES)) as u32, 1, 1));
    }
    let (w, h, d) = desc.subresource_extent(sub)?;
    let (tw, th, td) = tile_shape(desc);
    Some((w.div_ceil(tw), h.div_ceil(th), d.div_ceil(td)))
}

/// Tiles of the whole resource.
pub(crate) fn tile_count(desc: &ResourceDesc) -> u64 {
    (0..desc.subresource_count()).filter_map(|s| tiles_of(desc, s)).map(|(x, y, z)| x as u64 * y as u64 * z as u64).sum()
}

/// The linear index of a tile coordinate, or `None` when it is outside the resource.
pub(crate) fn linear_tile(desc: &ResourceDesc, c: &TiledResourceCoordinate) -> Option<u64> {
    let (tx, ty, tz) = tiles_of(desc, c.subresource)?;
    if c.x >= tx || c.y >= ty || c.z >= tz {
        return None;
    }
    let before: u64 = (0..c.subresource).filter_map(|s| tiles_of(desc, s)).map(|(x, y, z)| x as u64 * y as u64 * z as u64).sum();
    Some(before + (c.z as u64 * ty as u64 + c.y as u64) * tx as u64 + c.x as u64)
}

/// The coordinate of a linear tile index.
fn tile_coordinate(desc: &ResourceDesc, mut index: u64) -> Option<TiledResourceCoordinate> {
    for sub in 0..desc.subresource_count() {
        let (tx, ty, tz) = tiles_of(desc, sub)?;
        let n = tx as u64 * ty as u64 * tz as u64;
        if index < n {
            let x = (index % tx as u64) as u32;
            let y = ((index / tx as u64) % ty as u64) as u32;
            let z = (index / (tx as u64 * ty as u64)) as u32;
            return Some(TiledResourceCoordinate { x, y, z, subresource: sub });
        }
        index -= n;
    }
    None
}

/// Applies tile mappings.
pub(crate) fn update_tile_mappings(shared: &Shared, resource: ResourceId, mappings: &[TileMapping]) -> Result<()> {
    let err = |t: String| Error::invalid_arg(MessageId::CopyTilesInvalidParameters, format!("UpdateTileMappings: {t}"));
    let res = shared.resources.get(resource.0).ok_or_else(|| err("unknown resource".into()))?;
    let Some(tiles) = &res.tiles else { return Err(err("the resource is not reserved".into())) };
    for m in mappings {
        let first = linear_tile(&res.desc, &m.coordinate).ok_or_else(|| err("start coordinate outside the resource".into()))?;
        let end = first + m.num_tiles as u64;
        if end > tile_count(&res.desc) {
            return Err(err(format!("{} tiles from tile {first} run past the resource", m.num_tiles)));
        }
        if let Some((heap, start)) = m.heap {
            let heap_tiles = shared.heaps.get(heap.0).ok_or_else(|| err("unknown heap".into()))?;
            if start as u64 + m.num_tiles as u64 > *heap_tiles {
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

/// The byte ranges of one tile in the resource's memory, row by row.
fn tile_rows(res: &RefResource, index: u64) -> Vec<(usize, usize)> {
    if res.desc.is_buffer() {
        let start = index * TILE_SIZE_IN_BYTES;
        let end = (start + TILE_SIZE_IN_BYTES).min(res.desc.width);
        return vec![(start as usize, end.saturating_sub(start) as usize)];
    }
    let Some(c) = tile_coordinate(&res.desc, index) else { return Vec::new() };
    let Some(s) = Surface::subresource(res, c.subresource) else { return Vec::new() };
    let (tw, th, td) = tile_shape(&res.desc);
    let (x0, y0, z0) = (c.x * tw, c.y * th, c.z * td);
    let x1 = (x0 + tw).min(s.width);
    let (bw, bh) = (s.block_w.max(1), s.block_h.max(1));
    let row_len = ((x1 - x0).div_ceil(bw) as u64 * s.elem) as usize;
    let mut rows = Vec::new();
    for z in z0..(z0 + td).min(s.depth) {
        for by in y0 / bh..(y0 + th).min(s.height).div_ceil(bh) {
            rows.push((s.offset(x0 / bw, by, z) as usize, row_len));
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
                for (o, n) in tile_rows(self, i as u64) {
                    if let Some(r) = data.get_mut(o..o + n) {
                        r.fill(0);
                    }
                }
            }
        }
    }
}

/// `CopyTiles`: tiles between a reserved resource and a linear buffer, 64 KiB per tile in the
/// buffer, rows of each tile packed one after another.
pub(crate) fn copy_tiles(exec: &Exec<'_>, t: &TileCopy) {
    let (Some(res), Some(buffer)) = (exec.resource(t.resource), exec.resource(t.buffer)) else { return };
    let Some(first) = linear_tile(&res.desc, &t.start) else { return };
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
    let to_buffer = t.flags.contains(TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER);
    let (src, dst) = if to_buffer { (&res, &buffer) } else { (&buffer, &res) };
    crate::memory::with_src_dst(src, dst, |s, d| {
        for (n, &index) in indices.iter().enumerate() {
            let mut linear = (t.buffer_offset + n as u64 * TILE_SIZE_IN_BYTES) as usize;
            for (o, len) in tile_rows(&res, index) {
                let (from, to) = if to_buffer { (o, linear) } else { (linear, o) };
                if let (Some(a), Some(b)) = (s.get(from..from + len), d.get_mut(to..to + len)) {
                    b.copy_from_slice(a);
                }
                linear += len;
            }
        }
    });
}

//! Standard 64 KiB tile shapes of reserved resources (`GetResourceTiling` with standard swizzle).

use crate::{ResourceDesc, ResourceDimension, TiledResourceCoordinate, TILE_SIZE_IN_BYTES};

/// Texels per tile in x, y and z (bytes per tile for buffers).
pub fn tile_shape(desc: &ResourceDesc) -> (u32, u32, u32) {
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
pub fn subresource_tiles(desc: &ResourceDesc, subresource: u32) -> Option<(u32, u32, u32)> {
    if desc.is_buffer() {
        return (subresource == 0).then(|| (desc.width.div_ceil(TILE_SIZE_IN_BYTES) as u32, 1, 1));
    }
    let (w, h, d) = desc.subresource_extent(subresource)?;
    let (tw, th, td) = tile_shape(desc);
    Some((w.div_ceil(tw), h.div_ceil(th), d.div_ceil(td)))
}

/// Tiles of the whole resource.
pub fn tile_count(desc: &ResourceDesc) -> u64 {
    (0..desc.subresource_count())
        .filter_map(|s| subresource_tiles(desc, s))
        .map(|(x, y, z)| x as u64 * y as u64 * z as u64)
        .sum()
}

/// The linear index of a tile (subresources in order, then z, y, x), or `None` outside.
pub fn linear_tile(desc: &ResourceDesc, c: &TiledResourceCoordinate) -> Option<u64> {
    let (tx, ty, tz) = subresource_tiles(desc, c.subresource)?;
    if c.x >= tx || c.y >= ty || c.z >= tz {
        return None;
    }
    let before: u64 = (0..c.subresource)
        .filter_map(|s| subresource_tiles(desc, s))
        .map(|(x, y, z)| x as u64 * y as u64 * z as u64)
        .sum();
    Some(before + (c.z as u64 * ty as u64 + c.y as u64) * tx as u64 + c.x as u64)
}

/// The coordinate of a linear tile index.
pub fn tile_coordinate(desc: &ResourceDesc, mut index: u64) -> Option<TiledResourceCoordinate> {
    for sub in 0..desc.subresource_count() {
        let (tx, ty, tz) = subresource_tiles(desc, sub)?;
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

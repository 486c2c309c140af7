//! A uniform view of "rows of blocks in a byte array": a texture subresource or a placed
//! footprint in a buffer. Copies, resolves and clears address memory through it.

use crate::memory::RefResource;
use asyncmd_types::{Box3, PlacedSubresourceFootprint};

/// Rows of blocks in a resource's bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Surface {
    pub(crate) base: u64,
    pub(crate) row_pitch: u64,
    pub(crate) slice_pitch: u64,
    /// Bytes per element: one block, times the sample count for textures.
    pub(crate) elem: u64,
    pub(crate) block_w: u32,
    pub(crate) block_h: u32,
    /// Size in texels.
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) depth: u32,
    pub(crate) samples: u32,
}

impl Surface {
    /// A texture subresource (all samples of each texel together).
    pub(crate) fn subresource(res: &RefResource, index: u32) -> Option<Surface> {
        let (base, layout) = res.subresource(index)?;
        let (width, height, depth) = res.desc.subresource_extent(index)?;
        let samples = res.samples as u64;
        let row_pitch = layout.row_bytes * samples;
        Some(Surface {
            base,
            row_pitch,
            slice_pitch: row_pitch * layout.rows as u64,
            elem: layout.block_bytes as u64 * samples,
            block_w: layout.block_width,
            block_h: layout.block_height,
            width,
            height,
            depth,
            samples: res.samples,
        })
    }

    /// A placed footprint in a buffer.
    pub(crate) fn footprint(fp: &PlacedSubresourceFootprint) -> Option<Surface> {
        let f = fp.footprint;
        let plane = f.format.plane(0)?;
        let rows = f.height.div_ceil(plane.block_height) as u64;
        Some(Surface {
            base: fp.offset,
            row_pitch: f.row_pitch as u64,
            slice_pitch: f.row_pitch as u64 * rows,
            elem: plane.bytes_per_block as u64,
            block_w: plane.block_width,
            block_h: plane.block_height,
            width: f.width,
            height: f.height,
            depth: f.depth,
            samples: 1,
        })
    }

    /// The whole surface as a box.
    pub(crate) fn full_box(&self) -> Box3 {
        Box3::sized(self.width, self.height, self.depth)
    }

    /// Byte offset of block (bx, by) in slice z.
    pub(crate) fn offset(&self, bx: u32, by: u32, z: u32) -> u64 {
        self.base + z as u64 * self.slice_pitch + by as u64 * self.row_pitch + bx as u64 * self.elem
    }

    /// Byte offset of sample `s` of texel (x, y, z) (single-texel blocks only).
    pub(crate) fn texel(&self, x: u32, y: u32, z: u32, s: u32) -> u64 {
        self.offset(x, y, z) + s as u64 * (self.elem / self.samples as u64)
    }

    /// Bytes of one sample of one element.
    pub(crate) fn sample_bytes(&self) -> usize {
        (self.elem / self.samples as u64) as usize
    }
}

/// Copies a box of texels from one surface to a position in another, block row by block row.
/// Rows that fall outside either byte array are skipped: invalid input never panics.
pub(crate) fn copy_box(src: &[u8], s: &Surface, sbox: &Box3, dst: &mut [u8], d: &Surface, at: (u32, u32, u32)) {
    let (bw, bh) = (s.block_w.max(1), s.block_h.max(1));
    let bx0 = sbox.left / bw;
    let by0 = sbox.top / bh;
    let blocks_w = sbox.right.div_ceil(bw).saturating_sub(bx0);
    let blocks_h = sbox.bottom.div_ceil(bh).saturating_sub(by0);
    let dx0 = at.0 / d.block_w.max(1);
    let dy0 = at.1 / d.block_h.max(1);
    let len = (blocks_w as u64 * s.elem.min(d.elem)) as usize;
    // Whole rows packed on both sides: a slice is one span, copied at once.
    let packed = s.row_pitch == len as u64 && d.row_pitch == len as u64;
    for z in 0..sbox.back.saturating_sub(sbox.front) {
        if packed {
            let so = s.offset(bx0, by0, sbox.front + z) as usize;
            let doff = d.offset(dx0, dy0, at.2 + z) as usize;
            let n = len.saturating_mul(blocks_h as usize);
            if let (Some(from), Some(to)) =
                (src.get(so..so.saturating_add(n)), dst.get_mut(doff..doff.saturating_add(n)))
            {
                super::workers::copy_bytes(to, from);
                continue;
            }
        }
        for y in 0..blocks_h {
            let so = s.offset(bx0, by0 + y, sbox.front + z) as usize;
            let doff = d.offset(dx0, dy0 + y, at.2 + z) as usize;
            if let (Some(from), Some(to)) = (src.get(so..so + len), dst.get_mut(doff..doff + len)) {
                super::workers::copy_bytes(to, from);
            }
        }
    }
}

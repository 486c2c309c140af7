//! Subresource indexing and copyable footprints (`GetCopyableFootprints`).

use crate::{Format, ResourceDesc};

/// `D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT`: a placed footprint's offset is a multiple of this.
pub const TEXTURE_DATA_PLACEMENT_ALIGNMENT: u64 = 512;
/// `D3D12_TEXTURE_DATA_PITCH_ALIGNMENT`: a placed footprint's row pitch is a multiple of this.
pub const TEXTURE_DATA_PITCH_ALIGNMENT: u32 = 256;

/// One subresource's coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Subresource {
    /// Mip level.
    pub mip: u32,
    /// Array slice.
    pub slice: u32,
    /// Plane.
    pub plane: u32,
}

/// A buffer-side description of one subresource's data (`D3D12_SUBRESOURCE_FOOTPRINT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SubresourceFootprint {
    /// Format of the data (the plane's format for planar resources).
    pub format: Format,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Depth in texels.
    pub depth: u32,
    /// Bytes from one row of blocks to the next.
    pub row_pitch: u32,
}

/// A footprint at an offset in a buffer (`D3D12_PLACED_SUBRESOURCE_FOOTPRINT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlacedSubresourceFootprint {
    /// Byte offset of the first row in the buffer.
    pub offset: u64,
    /// The footprint.
    pub footprint: SubresourceFootprint,
}

/// What `GetCopyableFootprints` returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyableFootprints {
    /// One placed footprint per requested subresource.
    pub layouts: Vec<PlacedSubresourceFootprint>,
    /// Rows (of blocks) per subresource slice.
    pub num_rows: Vec<u32>,
    /// Bytes of data in one row (without pitch padding).
    pub row_sizes: Vec<u64>,
    /// Bytes from the first footprint's start to the end of the last one's data.
    pub total_bytes: u64,
}

/// Rounds `v` up to a multiple of `a` (a power of two or any non-zero value). Callers pass
/// values that were validated to leave room; [`checked_align_up`] is for everything else.
pub fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// [`align_up`], or `None` when `a` is zero or the result does not fit in 64 bits.
pub fn checked_align_up(v: u64, a: u64) -> Option<u64> {
    v.checked_next_multiple_of(a)
}

impl ResourceDesc {
    /// The index of (mip, slice, plane): `mip + mips · (slice + slices · plane)`.
    pub fn subresource_index(&self, mip: u32, slice: u32, plane: u32) -> u32 {
        mip + self.mip_count() * (slice + self.array_size() * plane)
    }

    /// Splits a subresource index into mip, slice and plane; `None` if out of range.
    pub fn subresource(&self, index: u32) -> Option<Subresource> {
        if index >= self.subresource_count() {
            return None;
        }
        let mips = self.mip_count();
        let slices = self.array_size();
        Some(Subresource { mip: index % mips, slice: (index / mips) % slices, plane: index / (mips * slices) })
    }

    /// Size in texels of a mip level of plane 0 (width, height, depth), at least 1 each.
    pub fn mip_extent(&self, mip: u32) -> (u32, u32, u32) {
        if self.is_buffer() {
            return (self.width as u32, 1, 1);
        }
        (((self.width >> mip) as u32).max(1), (self.height >> mip).max(1), (self.depth() >> mip).max(1))
    }

    /// Size in texels of one subresource, accounting for plane subsampling.
    pub fn subresource_extent(&self, index: u32) -> Option<(u32, u32, u32)> {
        let sub = self.subresource(index)?;
        let (w, h, d) = self.mip_extent(sub.mip);
        if self.is_buffer() {
            return Some((w, h, d));
        }
        let plane = self.format.plane(sub.plane)?;
        Some((w.div_ceil(plane.subsample_x), h.div_ceil(plane.subsample_y), d))
    }

    /// The tightly packed footprint (row pitch without alignment) of one subresource, in bytes
    /// per block row, rows, and slices.
    pub fn packed_layout(&self, index: u32) -> Option<PackedLayout> {
        if self.is_buffer() {
            return Some(PackedLayout {
                row_bytes: self.width,
                rows: 1,
                depth: 1,
                block_bytes: 1,
                block_width: 1,
                block_height: 1,
            });
        }
        let sub = self.subresource(index)?;
        let plane = self.format.plane(sub.plane)?;
        let (w, h, d) = self.subresource_extent(index)?;
        let blocks_x = w.div_ceil(plane.block_width) as u64;
        Some(PackedLayout {
            row_bytes: blocks_x * plane.bytes_per_block as u64,
            rows: h.div_ceil(plane.block_height),
            depth: d,
            block_bytes: plane.bytes_per_block,
            block_width: plane.block_width,
            block_height: plane.block_height,
        })
    }

    /// `GetCopyableFootprints` for `num` subresources starting at `first`, placed from
    /// `base_offset`. Offsets are aligned to 512 bytes and row pitches to 256 bytes.
    /// Returns `None` when the range is out of bounds or a placement does not fit in 64 bits.
    pub fn copyable_footprints(&self, first: u32, num: u32, base_offset: u64) -> Option<CopyableFootprints> {
        let end = first.checked_add(num)?;
        if end > self.subresource_count() {
            return None;
        }
        let mut out = CopyableFootprints::default();
        let mut offset = base_offset;
        let mut last_end = base_offset;
        for index in first..end {
            if self.is_buffer() {
                let row_pitch = u32::try_from(checked_align_up(self.width, TEXTURE_DATA_PITCH_ALIGNMENT as u64)?).ok();
                out.layouts.push(PlacedSubresourceFootprint {
                    offset,
                    footprint: SubresourceFootprint {
                        format: Format::Unknown,
                        width: u32::try_from(self.width).unwrap_or(u32::MAX),
                        height: 1,
                        depth: 1,
                        // A buffer wider than a footprint can describe has no pitch of its own.
                        row_pitch: row_pitch.unwrap_or(0),
                    },
                });
                out.num_rows.push(1);
                out.row_sizes.push(self.width);
                last_end = offset.checked_add(self.width)?;
                offset = last_end;
                continue;
            }
            offset = checked_align_up(offset, TEXTURE_DATA_PLACEMENT_ALIGNMENT)?;
            let sub = self.subresource(index)?;
            let plane = self.format.plane(sub.plane)?;
            let layout = self.packed_layout(index)?;
            let (w, h, d) = self.subresource_extent(index)?;
            let pitch = checked_align_up(layout.row_bytes, TEXTURE_DATA_PITCH_ALIGNMENT as u64)?;
            out.layouts.push(PlacedSubresourceFootprint {
                offset,
                footprint: SubresourceFootprint {
                    format: plane.format,
                    width: u32::try_from(checked_align_up(w as u64, plane.block_width as u64)?).ok()?,
                    height: u32::try_from(checked_align_up(h as u64, plane.block_height as u64)?).ok()?,
                    depth: d,
                    row_pitch: u32::try_from(pitch).ok()?,
                },
            });
            out.num_rows.push(layout.rows);
            out.row_sizes.push(layout.row_bytes);
            let rows_total = layout.rows as u64 * d as u64;
            let data = pitch.checked_mul(rows_total.checked_sub(1)?)?.checked_add(layout.row_bytes)?;
            last_end = offset.checked_add(data)?;
            offset = offset.checked_add(pitch.checked_mul(rows_total)?)?;
        }
        out.total_bytes = last_end - out.layouts.first().map_or(base_offset, |l| l.offset);
        Some(out)
    }
}

/// The tightly packed shape of one subresource, as devices store it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedLayout {
    /// Bytes of one row of blocks.
    pub row_bytes: u64,
    /// Rows of blocks per slice.
    pub rows: u32,
    /// Slices (depth).
    pub depth: u32,
    /// Bytes per block.
    pub block_bytes: u32,
    /// Texels per block horizontally.
    pub block_width: u32,
    /// Texels per block vertically.
    pub block_height: u32,
}

impl PackedLayout {
    /// Bytes of the whole subresource (one sample per texel). For layouts of created
    /// resources, whose size [`PackedLayout::checked_size`] showed to fit.
    pub fn size(&self) -> u64 {
        self.row_bytes * self.rows as u64 * self.depth as u64
    }

    /// [`PackedLayout::size`], or `None` when it does not fit in 64 bits.
    pub fn checked_size(&self) -> Option<u64> {
        self.row_bytes.checked_mul(self.rows as u64)?.checked_mul(self.depth as u64)
    }
}

impl SubresourceFootprint {
    /// Bytes a buffer must hold from the footprint's offset to hold its data, or `None` when
    /// the footprint's format has no footprint shape or the size does not fit in 64 bits.
    pub fn required_bytes(&self) -> Option<u64> {
        let info = self.format.plane(0)?;
        let rows = self.height.div_ceil(info.block_height) as u64;
        let row_bytes = self.width.div_ceil(info.block_width) as u64 * info.bytes_per_block as u64;
        if rows == 0 || self.depth == 0 {
            return Some(0);
        }
        // Every factor is at most 32 bits wide, so the product of two fits; the sum may not.
        let last_row = (self.row_pitch as u64).checked_mul(rows * self.depth as u64 - 1)?;
        last_row.checked_add(row_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footprint_sizes_that_overflow_are_none() {
        let huge = SubresourceFootprint {
            format: Format::R8G8B8A8Unorm,
            width: 1,
            height: u32::MAX,
            depth: u32::MAX,
            row_pitch: !255,
        };
        assert_eq!(huge.required_bytes(), None);
        let fits =
            SubresourceFootprint { format: Format::R8G8B8A8Unorm, width: 4, height: 2, depth: 3, row_pitch: 256 };
        assert_eq!(fits.required_bytes(), Some(256 * 5 + 16));
    }

    #[test]
    fn footprints_placed_past_64_bits_are_none() {
        let tex = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 64, 64);
        assert!(tex.copyable_footprints(0, 1, u64::MAX - 600).is_none());
        let buffer = ResourceDesc::buffer(u64::MAX - 10);
        assert!(buffer.copyable_footprints(0, 1, 100).is_none());
        let placed = tex.copyable_footprints(0, 1, 1).expect("fits");
        assert_eq!(placed.layouts[0].offset, 512);
        assert_eq!(placed.total_bytes, 256 * 63 + 256);
    }
}

//! What one upload writes and how it goes in chunks: the checked destination, the chunk that
//! fits the ring and the frame's budget next, and the chunk's bytes in the ring.

use crate::device::Device;
use crate::err;
use crate::resource::Resource;
use asyncmd_types::{BarrierLayout, Error, HeapType, MessageId, PlacedSubresourceFootprint, ResourceUsage, Result};
use std::sync::Arc;

/// The smallest and largest rings.
pub(crate) const MIN_RING: u64 = 64 << 10;
pub(crate) const MAX_RING: u64 = 16 << 30;
/// Where chunks start in the ring: D3D12's texture data placement alignment.
pub(crate) const ALIGN: u64 = 512;

fn invalid(api: &str, text: String) -> Error {
    err::invalid(MessageId::StreamingUploadInvalid, api, text)
}

/// A checked destination.
pub(crate) enum Target {
    Buffer {
        dest: Resource,
        offset: u64,
        len: u64,
    },
    Texture {
        dest: Resource,
        subresource: u32,
        /// The subresource's footprint: format, width, the ring's row pitch.
        layout: PlacedSubresourceFootprint,
        shape: TextureShape,
    },
}

impl Target {
    /// The resource the upload writes.
    pub(crate) fn dest(&self) -> &Resource {
        match self {
            Target::Buffer { dest, .. } | Target::Texture { dest, .. } => dest,
        }
    }
}

/// How a subresource's data goes in rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TextureShape {
    /// Rows (of blocks) per slice, and slices.
    pub(crate) rows: u32,
    pub(crate) depth: u32,
    /// Bytes of one row's data, the data's pitch between rows, the ring's.
    pub(crate) row_bytes: u64,
    pub(crate) pitch: u64,
    pub(crate) ring_pitch: u64,
    /// Texels per row of blocks, and the subresource's height in texels.
    pub(crate) block_height: u32,
    pub(crate) height: u32,
}

/// One chunk: data bytes `start..end`; for textures, its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Bytes of data the chunk copies (what the budget counts).
    pub(crate) data_bytes: u64,
    /// Bytes it takes in the ring.
    pub(crate) ring_bytes: u64,
    /// Texture chunks: slice, first row of blocks, rows of blocks, first texel row, texel rows.
    pub(crate) slice: u32,
    pub(crate) first_row: u32,
    pub(crate) rows: u32,
    pub(crate) texel_y: u32,
    pub(crate) texel_rows: u32,
}

fn check_dest(api: &str, device: &Device, dest: &Resource) -> Result<()> {
    if !Arc::ptr_eq(&dest.shared.device, &device.shared) {
        return Err(invalid(api, "the destination belongs to another device".into()));
    }
    if dest.heap_type() != HeapType::Default || dest.is_reserved() {
        return Err(invalid(api, "the destination must be a committed resource in a DEFAULT heap".into()));
    }
    if !dest.desc().usage.contains(ResourceUsage::TRANSFER_DESTINATION) {
        return Err(err::invalid(
            MessageId::TransferUsageInvalid,
            api,
            "the destination was created without ResourceUsage::TRANSFER_DESTINATION",
        ));
    }
    Ok(())
}

/// The destination of `StreamingUploader::upload_buffer`, checked.
pub(crate) fn buffer_target(device: &Device, dest: &Resource, offset: u64, len: usize) -> Result<Target> {
    const API: &str = "StreamingUploader::upload_buffer";
    check_dest(API, device, dest)?;
    if !dest.desc().is_buffer() {
        return Err(invalid(API, "the destination is a texture (upload_texture takes those)".into()));
    }
    let len = len as u64;
    let width = dest.desc().width;
    if len == 0 || offset.checked_add(len).is_none_or(|end| end > width) {
        return Err(invalid(
            API,
            format!("{len} bytes at offset {offset} do not fit a buffer of {width} (or no data)"),
        ));
    }
    Ok(Target::Buffer { dest: dest.clone(), offset, len })
}

/// The destination of `StreamingUploader::upload_texture`, checked against `len` bytes of data
/// `pitch` apart.
pub(crate) fn texture_target(
    device: &Device,
    dest: &Resource,
    subresource: u32,
    len: usize,
    pitch: u64,
) -> Result<Target> {
    const API: &str = "StreamingUploader::upload_texture";
    check_dest(API, device, dest)?;
    let desc = dest.desc();
    if desc.is_buffer() {
        return Err(invalid(API, "the destination is a buffer (upload_buffer takes those)".into()));
    }
    if desc.is_msaa() || desc.format.plane_count() > 1 {
        return Err(invalid(
            API,
            format!("{} with {} samples cannot be uploaded", desc.format, desc.sample_desc.count),
        ));
    }
    if subresource >= desc.subresource_count() {
        return Err(invalid(API, format!("subresource {subresource} is out of range ({})", desc.subresource_count())));
    }
    match dest.layout(subresource) {
        Some(BarrierLayout::Common | BarrierLayout::CopyDest) | None => {}
        Some(l) => {
            return Err(invalid(API, format!("subresource {subresource} is in {l:?}; the copy queue needs COMMON")));
        }
    }
    let fp = device.copyable_footprints(desc, subresource, 1, 0)?;
    let (layout, rows, row_bytes) = (fp.layouts[0], fp.num_rows[0], fp.row_sizes[0]);
    let depth = layout.footprint.depth;
    if pitch < row_bytes {
        return Err(invalid(API, format!("a row pitch of {pitch} is below the row's {row_bytes} bytes")));
    }
    let expected = pitch.checked_mul(rows as u64).and_then(|b| b.checked_mul(depth as u64));
    if expected != Some(len as u64) {
        return Err(invalid(
            API,
            format!("{len} bytes of data; subresource {subresource} takes {rows} rows × {depth} slices at a pitch of {pitch}"),
        ));
    }
    let (_, height, _) = desc.subresource_extent(subresource).unwrap_or((0, 0, 0));
    let block_height = desc.format.plane(0).map_or(1, |p| p.block_height);
    let ring_pitch = layout.footprint.row_pitch as u64;
    let shape = TextureShape { rows, depth, row_bytes, pitch, ring_pitch, block_height, height };
    Ok(Target::Texture { dest: dest.clone(), subresource, layout, shape })
}

/// A quarter of the ring: the CPU fills one chunk while the GPU copies the others.
fn most(capacity: u64) -> u64 {
    (capacity / 4).max(ALIGN)
}

impl Target {
    /// Bytes of data the upload takes.
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Target::Buffer { len, .. } => *len,
            Target::Texture { shape, .. } => shape.bytes(),
        }
    }

    /// The next chunk from data byte `done`, in a ring of `capacity` bytes, with `left` bytes of
    /// the frame's budget (`None`: no budget); `first`: nothing was copied in this frame yet,
    /// so one texture row may pass a budget smaller than it. `None`: the budget is spent.
    pub(crate) fn chunk(&self, done: u64, capacity: u64, left: Option<u64>, first: bool) -> Option<Chunk> {
        match self {
            Target::Buffer { len, .. } => buffer_chunk(*len, done, capacity, left),
            Target::Texture { shape, .. } => shape.chunk(done, capacity, left, first),
        }
    }
}

/// The next chunk of a buffer upload of `len` bytes (see [`Target::chunk`]).
fn buffer_chunk(len: u64, done: u64, capacity: u64, left: Option<u64>) -> Option<Chunk> {
    let size = (len - done).min(most(capacity)).min(left.unwrap_or(u64::MAX));
    (size > 0).then_some(Chunk {
        start: done,
        end: done + size,
        data_bytes: size,
        ring_bytes: size,
        slice: 0,
        first_row: 0,
        rows: 0,
        texel_y: 0,
        texel_rows: 0,
    })
}

impl TextureShape {
    fn bytes(&self) -> u64 {
        self.pitch * self.rows as u64 * self.depth as u64
    }

    /// The next chunk: whole rows of one slice (see [`Target::chunk`]).
    fn chunk(&self, done: u64, capacity: u64, left: Option<u64>, first: bool) -> Option<Chunk> {
        if left == Some(0) || done >= self.bytes() {
            return None;
        }
        let row = done / self.pitch;
        let (slice, first_row) = ((row / self.rows as u64) as u32, (row % self.rows as u64) as u32);
        let by_ring = (most(capacity) / self.ring_pitch).max(1);
        let by_budget = left.map_or(u64::MAX, |l| l / self.row_bytes.max(1));
        let by_budget = if by_budget == 0 && first { 1 } else { by_budget };
        let n = ((self.rows - first_row) as u64).min(by_ring).min(by_budget) as u32;
        if n == 0 {
            return None;
        }
        let texel_y = first_row * self.block_height;
        Some(Chunk {
            start: done,
            end: done + n as u64 * self.pitch,
            data_bytes: n as u64 * self.row_bytes,
            ring_bytes: n as u64 * self.ring_pitch,
            slice,
            first_row,
            rows: n,
            texel_y,
            texel_rows: (n * self.block_height).min(self.height.saturating_sub(texel_y)),
        })
    }
}

/// Writes chunk `c` into the ring's memory at `at` (texture rows at the ring's pitch); `data`
/// holds the upload's bytes from `base` on.
pub(crate) fn write(
    memory: &Resource,
    at: u64,
    target: &Target,
    c: &Chunk,
    data: &[u8],
    base: u64,
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let range = c.start.checked_sub(base).zip(c.end.checked_sub(base));
    let part = range
        .and_then(|(s, e)| data.get(s as usize..e as usize))
        .ok_or_else(|| err::fail(MessageId::StreamingUploadInvalid, "StreamingUploader", "a chunk outside the data"))?;
    match target {
        Target::Buffer { .. } => memory.write(at, part),
        Target::Texture { shape, .. } => {
            let (pitch, row_bytes, ring_pitch) = (&shape.pitch, &shape.row_bytes, shape.ring_pitch);
            if *pitch == ring_pitch {
                return memory.write(at, part);
            }
            scratch.clear();
            scratch
                .try_reserve(c.ring_bytes as usize)
                .map_err(|_| err::out_of_memory("StreamingUploader", format!("cannot stage {} bytes", c.ring_bytes)))?;
            for r in part.chunks(*pitch as usize) {
                let row = r.get(..*row_bytes as usize).unwrap_or(r);
                scratch.extend_from_slice(row);
                scratch.resize(scratch.len() + (ring_pitch - row.len() as u64) as usize, 0);
            }
            memory.write(at, scratch)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_chunks_go_by_whole_rows_within_a_slice() {
        let t = TextureShape {
            rows: 10,
            depth: 2,
            pitch: 400,
            row_bytes: 400,
            ring_pitch: 512,
            block_height: 1,
            height: 10,
        };
        // A ring of 8 KiB: chunks of 2 KiB, 4 rows of 512.
        let c = t.chunk(0, 8192, None, true).unwrap();
        assert_eq!((c.slice, c.first_row, c.rows, c.ring_bytes, c.data_bytes), (0, 0, 4, 2048, 1600));
        let c = t.chunk(8 * 400, 8192, None, true).unwrap();
        assert_eq!((c.slice, c.first_row, c.rows), (0, 8, 2), "the slice's last rows");
        let c = t.chunk(10 * 400, 8192, None, true).unwrap();
        assert_eq!((c.slice, c.first_row, c.texel_y), (1, 0, 0));
        assert_eq!(t.chunk(20 * 400, 8192, None, true), None, "done");
        assert_eq!(t.chunk(0, 8192, Some(399), false), None, "less than a row of budget");
        assert_eq!(t.chunk(0, 8192, Some(399), true).unwrap().rows, 1, "a frame's first row passes");
        assert_eq!(t.chunk(0, 8192, Some(0), true), None);
    }

    #[test]
    fn block_rows_cover_the_texels_to_the_edge() {
        let bc =
            TextureShape { rows: 2, depth: 1, pitch: 64, row_bytes: 64, ring_pitch: 256, block_height: 4, height: 6 };
        let c = bc.chunk(64, 1 << 20, None, true).unwrap();
        assert_eq!((c.texel_y, c.texel_rows), (4, 2));
    }

    #[test]
    fn buffer_chunks_take_a_quarter_of_the_ring_or_the_budget() {
        assert_eq!(buffer_chunk(10_000, 0, 8192, None).map(|c| c.end), Some(2048));
        assert_eq!(buffer_chunk(10_000, 9_000, 8192, None).map(|c| c.end), Some(10_000));
        assert_eq!(buffer_chunk(10_000, 0, 8192, Some(100)).map(|c| c.data_bytes), Some(100));
        assert_eq!(buffer_chunk(10_000, 0, 8192, Some(0)), None);
    }
}

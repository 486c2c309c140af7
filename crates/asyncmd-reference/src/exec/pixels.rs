//! Writing texels: whole-value writes for clears, masked writes for draws, and the formats the
//! codec reads each plane with.

use super::surface::Surface;
use asyncmd_ddi::ColorWriteMask;
use asyncmd_types::{decode_texel, encode_texel, ClearData, Format, Layout};

/// The format the codec reads plane `plane` of a resource in `format` with: depth planes as
/// their depth format, stencil planes as `R8_UINT`.
pub(crate) fn plane_codec_format(format: Format, plane: u32) -> Format {
    match (format.info().layout, plane) {
        (Layout::D24S8, 0) => Format::D24UnormS8Uint,
        (Layout::D32S8, 0) => Format::D32Float,
        (Layout::D24S8 | Layout::D32S8, _) => Format::R8Uint,
        _ => format,
    }
}

/// Encodes the depth plane element of a depth format (4 bytes for the combined formats, with
/// the stencil byte left zero).
pub(crate) fn encode_depth(format: Format, depth: f32) -> Vec<u8> {
    let codec = plane_codec_format(format, 0);
    match encode_texel(codec, &ClearData::from_depth_stencil(depth, 0)) {
        Some((bytes, _)) if codec == Format::D24UnormS8Uint => bytes[..4].to_vec(),
        Some((bytes, n)) => bytes[..n].to_vec(),
        None => Vec::new(),
    }
}

/// Writes `value` to every sample of the texels of `[x0, x1) × [y0, y1)` in slice `z`: one row
/// of elements is built once and copied into each row.
pub(crate) fn fill_rect(
    data: &mut [u8],
    s: &Surface,
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    z: u32,
    value: &[u8],
    workers: bool,
) {
    let n = s.sample_bytes();
    let (x1, y1) = (x1.min(s.width), y1.min(s.height));
    if value.len() < n || n == 0 || x1 <= x0 || y1 <= y0 {
        return;
    }
    let len = (x1 - x0) as usize * s.elem as usize;
    let x = s.texel(x0, 0, 0, 0).saturating_sub(s.base) as usize;
    fill_rows(data, s, y0..y1, z, (x, len), &value[..n], workers);
}

/// Writes `value` repeated over `len` bytes from byte `x` of rows `ys` of slice `z`, the rows
/// spread over the workers if `workers` is set. Rows that fall outside `data` are skipped.
pub(crate) fn fill_rows(
    data: &mut [u8],
    s: &Surface,
    ys: std::ops::Range<u32>,
    z: u32,
    (x, len): (usize, usize),
    value: &[u8],
    workers: bool,
) {
    let pitch = s.row_pitch as usize;
    let start = s.offset(0, ys.start, z) as usize;
    let end = start.saturating_add(ys.len().saturating_mul(pitch)).min(data.len());
    let Some(rows) = data.get_mut(start..end) else { return };
    // Rows start on an element, so each starts the pattern afresh.
    super::workers::rows_mut(rows, pitch, workers, |_, r| {
        if let Some(t) = r.get_mut(x..x.saturating_add(len)) {
            asyncmd_types::fill_repeating(t, value);
        }
    });
}

/// Per-byte write mask of the channels `mask` enables, for formats whose channels are whole
/// bytes; `None` when channels do not align to bytes.
pub(crate) fn byte_mask(format: Format, mask: ColorWriteMask) -> Option<[bool; 16]> {
    let Layout::Channels { count, bits, swizzle } = format.info().layout else { return None };
    let width = (bits / 8) as usize;
    let mut out = [false; 16];
    for slot in 0..count as usize {
        let channel = match swizzle {
            asyncmd_types::Swizzle::Rgba => slot,
            asyncmd_types::Swizzle::Bgra | asyncmd_types::Swizzle::Bgrx => [2, 1, 0, 3][slot],
            asyncmd_types::Swizzle::A => 3,
        };
        let on = mask.contains(ColorWriteMask::from_bits_truncate(1 << channel));
        for b in &mut out[slot * width..slot * width + width] {
            *b = on;
        }
    }
    Some(out)
}

/// Writes `value` (a texel of `format`) over `old` with only the channels in `mask`.
pub(crate) fn masked_write(format: Format, old: &mut [u8], value: &[u8], mask: ColorWriteMask) {
    if mask.contains(ColorWriteMask::ALL) {
        old.copy_from_slice(value);
        return;
    }
    if mask.is_empty() {
        return;
    }
    if let Some(bytes) = byte_mask(format, mask) {
        for (i, (o, v)) in old.iter_mut().zip(value).enumerate() {
            if bytes[i] {
                *o = *v;
            }
        }
        return;
    }
    // Packed channels: merge the decoded values.
    let (Some(cur), Some(new)) = (decode_texel(format, old), decode_texel(format, value)) else { return };
    let (mut c, n) = (cur.uints(), new.uints());
    for (ch, (cv, nv)) in c.iter_mut().zip(n).enumerate() {
        if mask.contains(ColorWriteMask::from_bits_truncate(1 << ch)) {
            *cv = nv;
        }
    }
    if let Some((bytes, len)) = encode_texel(format, &ClearData::from_uints(c)) {
        old.copy_from_slice(&bytes[..len.min(old.len())]);
    }
}

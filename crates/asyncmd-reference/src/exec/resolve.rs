//! `ResolveSubresourceRegion`: average, min, max and decompress.

use super::pixels::plane_codec_format;
use super::surface::Surface;
use super::Exec;
use crate::memory::with_src_dst;
use asyncmd_ddi::Resolve;
use asyncmd_types::{decode_texel, encode_texel, ClearData, ComponentClass, Format, Layout, ResolveMode, Swizzle};

/// The channels of an 8-bit UNORM format whose average resolve may take the byte path (RGBA
/// or BGRA order, one byte a channel), or `None`.
fn unorm8_channels(format: Format) -> Option<usize> {
    let info = format.info();
    match info.layout {
        Layout::Channels { count, bits: 8, swizzle: Swizzle::Rgba | Swizzle::Bgra }
            if info.class == ComponentClass::Unorm =>
        {
            Some(count as usize)
        }
        _ => None,
    }
}

/// What `decode_texel` makes of one UNORM8 channel, widened as `combine` sums it.
fn unorm8_table() -> [f64; 256] {
    std::array::from_fn(|i| (i as f32 / 255.0) as f64)
}

/// `encode_texel`'s UNORM8 rounding of one averaged channel.
fn unorm8(v: f32) -> u8 {
    let v = if v.is_nan() { 0.0 } else { (v as f64).clamp(0.0, 1.0) };
    (v * 255.0 + 0.5).floor() as u8
}

/// One pixel's average over `samples` byte slices of `channels` UNORM8 channels: the bytes
/// `decode_texel`, `combine` and `encode_texel` make, without their per-sample generality.
fn average_unorm8<'a>(table: &[f64; 256], channels: usize, samples: impl Iterator<Item = &'a [u8]>) -> [u8; 4] {
    let (mut sum, mut n) = ([0f64; 4], 0u32);
    for b in samples {
        for (a, &v) in sum.iter_mut().zip(&b[..channels]) {
            *a += table[v as usize];
        }
        n += 1;
    }
    let n = n.max(1);
    let mut out = [0u8; 4];
    for (o, a) in out.iter_mut().zip(sum).take(channels) {
        // D3D12 sample counts are powers of two, whose reciprocals are exact.
        let avg = if n.is_power_of_two() { a * (1.0 / n as f64) } else { a / n as f64 };
        *o = unorm8(avg as f32);
    }
    out
}

/// Combines decoded samples of `format` by `mode`.
pub(crate) fn combine(format: Format, samples: &[ClearData], mode: ResolveMode) -> ClearData {
    let class = format.info().class;
    let integer = matches!(class, ComponentClass::Uint | ComponentClass::Sint);
    match mode {
        ResolveMode::Average if !integer => {
            let mut sum = [0f64; 4];
            for s in samples {
                for (a, v) in sum.iter_mut().zip(s.floats()) {
                    *a += v as f64;
                }
            }
            ClearData::from_floats(sum.map(|a| (a / samples.len().max(1) as f64) as f32))
        }
        ResolveMode::Min | ResolveMode::Max => {
            let max = mode == ResolveMode::Max;
            let mut acc = samples.first().copied().unwrap_or_default();
            for s in &samples[1.min(samples.len())..] {
                let mut out = acc.uints();
                for (c, slot) in out.iter_mut().enumerate() {
                    let better = match class {
                        ComponentClass::Uint => (s.uints()[c] > acc.uints()[c]) == max,
                        ComponentClass::Sint => (s.sints()[c] > acc.sints()[c]) == max,
                        _ => (s.floats()[c] > acc.floats()[c]) == max,
                    };
                    if better && s.uints()[c] != acc.uints()[c] {
                        *slot = s.uints()[c];
                    }
                }
                acc = ClearData::from_uints(out);
            }
            acc
        }
        // Integer formats cannot be averaged: one sample represents the pixel.
        _ => samples.first().copied().unwrap_or_default(),
    }
}

impl Exec<'_> {
    pub(crate) fn resolve(&self, r: &Resolve) {
        let (Some(dst), Some(src)) = (self.resource(r.dest), self.resource(r.source)) else { return };
        let (Some(ss), Some(ds)) =
            (Surface::subresource(&src, r.source_subresource), Surface::subresource(&dst, r.dest_subresource))
        else {
            return;
        };
        let plane = src.desc.subresource(r.source_subresource).map_or(0, |s| s.plane);
        let format = plane_codec_format(if r.format == Format::Unknown { src.desc.format } else { r.format }, plane);
        let (x0, y0, x1, y1) = match r.source_rect {
            None => (0, 0, ss.width, ss.height),
            Some(rect) => (
                rect.left.max(0) as u32,
                rect.top.max(0) as u32,
                (rect.right.max(0) as u32).min(ss.width),
                (rect.bottom.max(0) as u32).min(ss.height),
            ),
        };
        if r.mode == ResolveMode::Decompress {
            // Compression is invisible on this device: decompressing is a copy (a no-op in place).
            if src.id == dst.id && r.source_subresource == r.dest_subresource {
                return;
            }
            let sbox = asyncmd_types::Box3::new(x0, y0, 0, x1, y1, 1);
            with_src_dst(&src, &dst, |s, d| super::surface::copy_box(s, &ss, &sbox, d, &ds, (r.dest_x, r.dest_y, 0)));
            return;
        }
        let n = ss.sample_bytes();
        if let (ResolveMode::Average, Some(channels)) = (r.mode, unorm8_channels(format)) {
            // The common case, byte by byte: about 20 times faster than decoding each sample.
            // A texel's samples lie side by side, and a row's texels: whole rows at a time.
            let table = unorm8_table();
            let (elem, out_elem) = (n * ss.samples as usize, ds.sample_bytes());
            let width = (x1.saturating_sub(x0)) as usize;
            let keep = channels.min(out_elem);
            with_src_dst(&src, &dst, |s, d| {
                for y in y0..y1 {
                    let from = ss.texel(x0, y, 0, 0) as usize;
                    let to = ds.texel(r.dest_x, r.dest_y + (y - y0), 0, 0) as usize;
                    let Some(row) = s.get(from..from + width * elem) else { continue };
                    let Some(out_row) = d.get_mut(to..to + width * out_elem) else { continue };
                    for (texel, out) in row.chunks_exact(elem).zip(out_row.chunks_exact_mut(out_elem)) {
                        let px = average_unorm8(&table, channels, texel.chunks_exact(n));
                        out[..keep].copy_from_slice(&px[..keep]);
                    }
                }
            });
            return;
        }
        with_src_dst(&src, &dst, |s, d| {
            let mut samples = Vec::with_capacity(ss.samples as usize);
            for y in y0..y1 {
                for x in x0..x1 {
                    samples.clear();
                    for k in 0..ss.samples {
                        let o = ss.texel(x, y, 0, k) as usize;
                        if let Some(t) = s.get(o..o + n).and_then(|b| decode_texel(format, b)) {
                            samples.push(t);
                        }
                    }
                    let Some((bytes, len)) = encode_texel(format, &combine(format, &samples, r.mode)) else { return };
                    let len = if format == Format::D24UnormS8Uint { 4 } else { len };
                    let o = ds.texel(r.dest_x + (x - x0), r.dest_y + (y - y0), 0, 0) as usize;
                    if let Some(t) = d.get_mut(o..o + len.min(ds.sample_bytes())) {
                        let m = t.len();
                        t.copy_from_slice(&bytes[..m]);
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte path makes the bytes the generic path does, for every UNORM8 format it takes.
    #[test]
    fn the_unorm8_average_is_the_generic_one_bit_for_bit() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng as u8
        };
        let table = unorm8_table();
        for format in [Format::R8G8B8A8Unorm, Format::B8G8R8A8Unorm, Format::R8Unorm, Format::R8G8Unorm] {
            let channels = unorm8_channels(format).expect("a byte-path format");
            let size = format.info().bytes_per_block as usize;
            for samples in [2usize, 4, 8, 16] {
                for _ in 0..2000 {
                    let bytes: Vec<u8> = (0..samples * size).map(|_| next()).collect();
                    let fast = average_unorm8(&table, channels, bytes.chunks(size));
                    let decoded: Vec<ClearData> = bytes.chunks(size).filter_map(|b| decode_texel(format, b)).collect();
                    let (generic, len) =
                        encode_texel(format, &combine(format, &decoded, ResolveMode::Average)).unwrap();
                    assert_eq!(fast[..len], generic[..len], "{format} ×{samples}: {bytes:?}");
                }
            }
        }
        assert_eq!(unorm8_channels(Format::R8G8B8A8UnormSrgb), None);
        assert_eq!(unorm8_channels(Format::B8G8R8X8Unorm), None);
        assert_eq!(unorm8_channels(Format::R8G8B8A8Uint), None);
    }
}

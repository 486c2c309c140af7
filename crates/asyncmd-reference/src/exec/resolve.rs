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

/// The average of `S` samples of `T`-byte UNORM8 texels, byte by byte: the exact mean of
/// the samples' levels rounded half up, as hardware resolves in fixed point. (Decoding each
/// sample to a float and back rounds the ties either way, by the floats' own rounding.)
fn average_unorm8_row<const T: usize, const S: usize>(row: &[u8], out: &mut [u8]) {
    let shift = S.trailing_zeros();
    for (texel, o) in row.chunks_exact(T * S).zip(out.chunks_exact_mut(T)) {
        // At most 16 samples of 255: the sums fit 16 bits.
        let mut sum = [(S / 2) as u16; T];
        for sample in texel.chunks_exact(T) {
            for (a, &v) in sum.iter_mut().zip(sample) {
                *a = a.wrapping_add(v as u16);
            }
        }
        for (o, a) in o.iter_mut().zip(sum) {
            *o = (a >> shift) as u8;
        }
    }
}

/// [`average_unorm8_row`] for 4-byte texels (RGBA8, BGRA8), two channels at a time in 16-bit
/// lanes of a `u32`: the compiler runs this over several pixels in each vector register.
fn average_rgba8_row<const S: usize>(row: &[u8], out: &mut [u8]) {
    const LANES: u32 = 0x00ff_00ff;
    let half = (S / 2) as u32 * 0x0001_0001;
    let shift = S.trailing_zeros();
    for (texel, o) in row.chunks_exact(4 * S).zip(out.chunks_exact_mut(4)) {
        let (mut even, mut odd) = (half, half);
        for sample in texel.chunks_exact(4) {
            // At most 16 samples of 255 and the half: each 16-bit lane stays below 4096.
            let mut b = [0u8; 4];
            b.copy_from_slice(sample);
            let v = u32::from_le_bytes(b);
            even = even.wrapping_add(v & LANES);
            odd = odd.wrapping_add((v >> 8) & LANES);
        }
        let px = ((even >> shift) & LANES) | (((odd >> shift) & LANES) << 8);
        o.copy_from_slice(&px.to_le_bytes());
    }
}

/// [`average_unorm8_row`] for a texel size and sample count known only at run time; `false`
/// for a pair it does not take (the caller takes the generic path).
fn average_unorm8(samples: u32, row: &[u8], texel: usize, out: &mut [u8]) -> bool {
    macro_rules! by_samples {
        ($t:literal) => {
            match samples {
                2 => average_unorm8_row::<$t, 2>(row, out),
                4 => average_unorm8_row::<$t, 4>(row, out),
                8 => average_unorm8_row::<$t, 8>(row, out),
                16 => average_unorm8_row::<$t, 16>(row, out),
                _ => return false,
            }
        };
    }
    match (texel, samples) {
        (4, 2) => average_rgba8_row::<2>(row, out),
        (4, 4) => average_rgba8_row::<4>(row, out),
        (4, 8) => average_rgba8_row::<8>(row, out),
        (4, 16) => average_rgba8_row::<16>(row, out),
        (1, _) => by_samples!(1),
        (2, _) => by_samples!(2),
        (4, _) => by_samples!(4),
        _ => return false,
    }
    true
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
    /// `ResolveSubresourceRegion` on the queue's thread.
    pub(crate) fn resolve(&self, r: &Resolve) {
        self.resolve_on(r, false)
    }

    /// Resolves `r`, its rows spread over the workers if `workers` is set (a native resolve).
    pub(crate) fn resolve_on(&self, r: &Resolve, workers: bool) {
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
        let width = x1.saturating_sub(x0) as usize;
        let out_elem = ds.sample_bytes();
        let fast = r.mode == ResolveMode::Average
            && unorm8_channels(format) == Some(n)
            && out_elem == n
            && matches!(ss.samples, 2 | 4 | 8 | 16)
            && matches!(n, 1 | 2 | 4)
            && y1 > y0;
        if fast {
            // The common case, a row at a time: texels' samples lie side by side, and a
            // row's texels. Rows are independent, so a native resolve spreads them over the
            // workers.
            let row_in = width * n * ss.samples as usize;
            let first = ds.texel(0, r.dest_y, 0, 0) as usize;
            let rows = (y1 - y0) as usize;
            let pitch = ds.row_pitch as usize;
            let dest_x = ds.texel(r.dest_x, 0, 0, 0).saturating_sub(ds.base) as usize;
            with_src_dst(&src, &dst, |s, d| {
                let end = first.saturating_add(rows.saturating_mul(pitch)).min(d.len());
                let Some(out) = d.get_mut(first..end) else { return };
                super::workers::rows_mut(out, pitch, workers, |i, out_row| {
                    let from = ss.texel(x0, y0 + i as u32, 0, 0) as usize;
                    let (Some(row), Some(out)) =
                        (s.get(from..from + row_in), out_row.get_mut(dest_x..dest_x + width * out_elem))
                    else {
                        return;
                    };
                    average_unorm8(ss.samples, row, n, out);
                });
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

    /// The byte path rounds the exact mean half up, and agrees with decoding, combining and
    /// encoding each sample to within the one level that the floats' rounding of a tie moves.
    #[test]
    fn the_unorm8_average_is_the_exact_mean_rounded_half_up() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng as u8
        };
        for format in [Format::R8G8B8A8Unorm, Format::B8G8R8A8Unorm, Format::R8Unorm, Format::R8G8Unorm] {
            let size = format.info().bytes_per_block as usize;
            assert_eq!(unorm8_channels(format), Some(size));
            for samples in [2usize, 4, 8, 16] {
                for _ in 0..2000 {
                    let bytes: Vec<u8> = (0..samples * size).map(|_| next()).collect();
                    let mut fast = vec![0u8; size];
                    assert!(average_unorm8(samples as u32, &bytes, size, &mut fast));
                    let decoded: Vec<ClearData> = bytes.chunks(size).filter_map(|b| decode_texel(format, b)).collect();
                    let (generic, _) = encode_texel(format, &combine(format, &decoded, ResolveMode::Average)).unwrap();
                    for c in 0..size {
                        let sum: u32 = bytes.chunks(size).map(|t| t[c] as u32).sum();
                        let exact = (sum + samples as u32 / 2) / samples as u32;
                        assert_eq!(fast[c] as u32, exact, "{format} ×{samples}: {bytes:?}");
                        let tie = sum % samples as u32 == samples as u32 / 2;
                        let near = (generic[c] as i32 - exact as i32).abs() <= i32::from(tie);
                        assert!(near, "{format} ×{samples} channel {c}: {} against {exact}", generic[c]);
                    }
                }
            }
        }
        assert!(!average_unorm8(3, &[0; 12], 4, &mut [0; 4]));
        assert!(!average_unorm8(4, &[0; 48], 3, &mut [0; 3]));
        assert_eq!(unorm8_channels(Format::R8G8B8A8UnormSrgb), None);
        assert_eq!(unorm8_channels(Format::B8G8R8X8Unorm), None);
        assert_eq!(unorm8_channels(Format::R8G8B8A8Uint), None);
    }
}

//! `ResolveSubresourceRegion`: average, min, max and decompress.

use super::pixels::plane_codec_format;
use super::surface::Surface;
use super::Exec;
use crate::memory::with_src_dst;
use asyncmd_ddi::Resolve;
use asyncmd_types::{decode_texel, encode_texel, ClearData, ComponentClass, Format, ResolveMode};

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

//! Conversion of one texel between [`ClearData`] and a format's bytes.
//!
//! Float, UNORM, SNORM, sRGB and shared-exponent formats read `floats`; UINT formats read
//! `uints`, keeping each channel's low bits; SINT formats read `sints`, likewise. Depth reads
//! `floats[0]` and stencil `uints[1]`, as `D3D12_CLEAR_DATA` specifies. Conversions follow the
//! D3D rules: UNORM rounds to nearest after clamping to [0, 1], SNORM clamps to [-1, 1] and
//! rounds half away from zero, NaN becomes 0 for normalized formats, and floats narrow to 16-,
//! 11- and 10-bit floats with round-to-zero (D3D's rule for conversions between float formats:
//! a finite value never becomes infinite).

use super::{ComponentClass, Format, Layout, Swizzle};
use crate::ClearData;

/// A decoded texel: the same union view as [`ClearData`].
pub type Texel = ClearData;

/// Encodes one texel (or, for depth-stencil formats, one combined element) of `format`.
///
/// Returns the bytes and their count, or `None` for formats without a texel encoding
/// (unknown, typeless, block-compressed, video).
pub fn encode_texel(format: Format, value: &ClearData) -> Option<([u8; 16], usize)> {
    let info = format.info();
    let mut out = [0u8; 16];
    let n = info.bytes_per_block as usize;
    let f = value.floats();
    let u = value.uints();
    let class = info.class;
    match info.layout {
        Layout::None | Layout::Block | Layout::Packed422 { .. } | Layout::Planar420 { .. } => return None,
        _ if class == ComponentClass::Typeless => return None,
        Layout::Channels { count, bits, swizzle } => {
            let order: [usize; 4] = match swizzle {
                Swizzle::Rgba => [0, 1, 2, 3],
                Swizzle::Bgra | Swizzle::Bgrx => [2, 1, 0, 3],
                Swizzle::A => [3, 0, 0, 0],
            };
            for (slot, &src) in order.iter().enumerate().take(count as usize) {
                if swizzle == Swizzle::Bgrx && slot == 3 {
                    continue;
                }
                let bits = bits as u32;
                let raw: u32 = match class {
                    ComponentClass::Float => match bits {
                        32 => f[src].to_bits(),
                        16 => half_rtz(f[src]) as u32,
                        _ => return None,
                    },
                    ComponentClass::Unorm => unorm(f[src], bits),
                    ComponentClass::Srgb if src < 3 => unorm(linear_to_srgb(f[src]), bits),
                    ComponentClass::Srgb => unorm(f[src], bits),
                    ComponentClass::Snorm => snorm(f[src], bits),
                    ComponentClass::Uint | ComponentClass::Sint => u[src] & mask(bits),
                    _ => return None,
                };
                let width = (bits / 8) as usize;
                out[slot * width..slot * width + width].copy_from_slice(&raw.to_le_bytes()[..width]);
            }
        }
        Layout::R10G10B10A2 => {
            let word = if class == ComponentClass::Uint {
                (u[0] & 0x3ff) | (u[1] & 0x3ff) << 10 | (u[2] & 0x3ff) << 20 | (u[3] & 3) << 30
            } else {
                unorm(f[0], 10) | unorm(f[1], 10) << 10 | unorm(f[2], 10) << 20 | unorm(f[3], 2) << 30
            };
            out[..4].copy_from_slice(&word.to_le_bytes());
        }
        Layout::R11G11B10 => {
            let word = small_float(f[0], 6) | small_float(f[1], 6) << 11 | small_float(f[2], 5) << 22;
            out[..4].copy_from_slice(&word.to_le_bytes());
        }
        Layout::R9G9B9E5 => out[..4].copy_from_slice(&rgb9e5([f[0], f[1], f[2]]).to_le_bytes()),
        Layout::B5G6R5 => {
            let w = unorm(f[2], 5) | unorm(f[1], 6) << 5 | unorm(f[0], 5) << 11;
            out[..2].copy_from_slice(&(w as u16).to_le_bytes());
        }
        Layout::B5G5R5A1 => {
            let w = unorm(f[2], 5) | unorm(f[1], 5) << 5 | unorm(f[0], 5) << 10 | unorm(f[3], 1) << 15;
            out[..2].copy_from_slice(&(w as u16).to_le_bytes());
        }
        Layout::B4G4R4A4 => {
            let w = unorm(f[2], 4) | unorm(f[1], 4) << 4 | unorm(f[0], 4) << 8 | unorm(f[3], 4) << 12;
            out[..2].copy_from_slice(&(w as u16).to_le_bytes());
        }
        Layout::A4B4G4R4 => {
            let w = unorm(f[3], 4) | unorm(f[2], 4) << 4 | unorm(f[1], 4) << 8 | unorm(f[0], 4) << 12;
            out[..2].copy_from_slice(&(w as u16).to_le_bytes());
        }
        Layout::D16 => out[..2].copy_from_slice(&(unorm(depth(f[0]), 16) as u16).to_le_bytes()),
        Layout::D32 => out[..4].copy_from_slice(&depth(f[0]).to_bits().to_le_bytes()),
        Layout::D24S8 => {
            let w = unorm(depth(f[0]), 24) | (u[1] & 0xff) << 24;
            out[..4].copy_from_slice(&w.to_le_bytes());
        }
        Layout::D32S8 => {
            out[..4].copy_from_slice(&depth(f[0]).to_bits().to_le_bytes());
            out[4] = (u[1] & 0xff) as u8;
        }
    }
    Some((out, n))
}

/// Decodes one texel of `format` from `bytes` (at least one element long).
///
/// Float-like formats fill `floats` (alpha is 1 where the format has none, other missing
/// channels 0); integer formats fill `uints`/`sints` (sign-extended). Depth-stencil formats give
/// depth in `floats[0]` and stencil in `uints[1]`.
pub fn decode_texel(format: Format, bytes: &[u8]) -> Option<Texel> {
    let info = format.info();
    if bytes.len() < info.bytes_per_block as usize {
        return None;
    }
    let class = info.class;
    let word = |i: usize| {
        let mut b = [0u8; 4];
        let end = (i + 4).min(bytes.len());
        b[..end - i].copy_from_slice(&bytes[i..end]);
        u32::from_le_bytes(b)
    };
    let mut f = [0.0f32, 0.0, 0.0, 1.0];
    let mut u = [0u32, 0, 0, 1];
    let floats = |v: [f32; 4]| Some(ClearData::from_floats(v));
    match info.layout {
        Layout::None | Layout::Block | Layout::Packed422 { .. } | Layout::Planar420 { .. } => None,
        _ if class == ComponentClass::Typeless => None,
        Layout::Channels { count, bits, swizzle } => {
            let order: [usize; 4] = match swizzle {
                Swizzle::Rgba => [0, 1, 2, 3],
                Swizzle::Bgra | Swizzle::Bgrx => [2, 1, 0, 3],
                Swizzle::A => [3, 0, 0, 0],
            };
            let width = (bits / 8) as usize;
            let bits = bits as u32;
            for (slot, &dst) in order.iter().enumerate().take(count as usize) {
                if swizzle == Swizzle::Bgrx && slot == 3 {
                    continue;
                }
                let raw = word(slot * width) & mask(bits);
                match class {
                    ComponentClass::Float if bits == 32 => f[dst] = f32::from_bits(raw),
                    ComponentClass::Float => f[dst] = half::f16::from_bits(raw as u16).to_f32(),
                    ComponentClass::Unorm => f[dst] = raw as f32 / mask(bits) as f32,
                    ComponentClass::Srgb if dst < 3 => f[dst] = srgb_to_linear(raw as f32 / mask(bits) as f32),
                    ComponentClass::Srgb => f[dst] = raw as f32 / mask(bits) as f32,
                    ComponentClass::Snorm => f[dst] = snorm_to_float(raw, bits),
                    ComponentClass::Uint => u[dst] = raw,
                    ComponentClass::Sint => u[dst] = sign_extend(raw, bits),
                    _ => return None,
                }
            }
            if swizzle == Swizzle::A {
                f[0] = 0.0;
            }
            match class {
                ComponentClass::Uint | ComponentClass::Sint => Some(ClearData::from_uints(u)),
                _ => floats(f),
            }
        }
        Layout::R10G10B10A2 => {
            let w = word(0);
            let c = [w & 0x3ff, (w >> 10) & 0x3ff, (w >> 20) & 0x3ff, w >> 30];
            if class == ComponentClass::Uint {
                Some(ClearData::from_uints(c))
            } else {
                floats([c[0] as f32 / 1023.0, c[1] as f32 / 1023.0, c[2] as f32 / 1023.0, c[3] as f32 / 3.0])
            }
        }
        Layout::R11G11B10 => {
            let w = word(0);
            floats([
                small_float_to_f32(w & 0x7ff, 6),
                small_float_to_f32((w >> 11) & 0x7ff, 6),
                small_float_to_f32(w >> 22, 5),
                1.0,
            ])
        }
        Layout::R9G9B9E5 => {
            let w = word(0);
            let exp = (w >> 27) as i32 - 15 - 9;
            let scale = 2f32.powi(exp);
            floats([
                (w & 0x1ff) as f32 * scale,
                ((w >> 9) & 0x1ff) as f32 * scale,
                ((w >> 18) & 0x1ff) as f32 * scale,
                1.0,
            ])
        }
        Layout::B5G6R5 => {
            let w = word(0);
            floats([((w >> 11) & 31) as f32 / 31.0, ((w >> 5) & 63) as f32 / 63.0, (w & 31) as f32 / 31.0, 1.0])
        }
        Layout::B5G5R5A1 => {
            let w = word(0);
            floats([
                ((w >> 10) & 31) as f32 / 31.0,
                ((w >> 5) & 31) as f32 / 31.0,
                (w & 31) as f32 / 31.0,
                ((w >> 15) & 1) as f32,
            ])
        }
        Layout::B4G4R4A4 => {
            let w = word(0);
            let c = |s: u32| ((w >> s) & 15) as f32 / 15.0;
            floats([c(8), c(4), c(0), c(12)])
        }
        Layout::A4B4G4R4 => {
            let w = word(0);
            let c = |s: u32| ((w >> s) & 15) as f32 / 15.0;
            floats([c(12), c(8), c(4), c(0)])
        }
        Layout::D16 => {
            f[0] = (word(0) & 0xffff) as f32 / 65535.0;
            Some(ClearData::from_depth_stencil(f[0], 0))
        }
        Layout::D32 => Some(ClearData::from_depth_stencil(f32::from_bits(word(0)), 0)),
        Layout::D24S8 => {
            let w = word(0);
            Some(ClearData::from_depth_stencil((w & 0xff_ffff) as f32 / 16_777_215.0, (w >> 24) as u8))
        }
        Layout::D32S8 => Some(ClearData::from_depth_stencil(f32::from_bits(word(0)), bytes[4])),
    }
}

fn mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

fn sign_extend(raw: u32, bits: u32) -> u32 {
    if bits >= 32 {
        raw
    } else {
        let shift = 32 - bits;
        (((raw << shift) as i32) >> shift) as u32
    }
}

/// D3D float → UNORM: NaN → 0, clamp to [0, 1], scale, round to nearest.
fn unorm(v: f32, bits: u32) -> u32 {
    let max = mask(bits) as f64;
    let v = if v.is_nan() { 0.0 } else { (v as f64).clamp(0.0, 1.0) };
    (v * max + 0.5).floor() as u32
}

/// D3D float → SNORM: NaN → 0, clamp to [-1, 1], scale, round half away from zero.
fn snorm(v: f32, bits: u32) -> u32 {
    let max = mask(bits - 1) as f64;
    let v = if v.is_nan() { 0.0 } else { (v as f64).clamp(-1.0, 1.0) };
    ((v * max).round() as i32 as u32) & mask(bits)
}

fn snorm_to_float(raw: u32, bits: u32) -> f32 {
    let v = sign_extend(raw, bits) as i32 as f32 / mask(bits - 1) as f32;
    v.max(-1.0)
}

fn depth(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0) + 0.0
    }
}

fn linear_to_srgb(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else if v <= 0.003_130_8 {
        v.max(0.0) * 12.92
    } else {
        1.055 * v.min(1.0).powf(1.0 / 2.4) - 0.055
    }
}

fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.040_45 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// Narrows to a 16-bit float, rounding toward zero.
fn half_rtz(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let a = v.abs();
    if v.is_nan() {
        return sign | 0x7E00;
    }
    if a.is_infinite() {
        return sign | 0x7C00;
    }
    if a >= 65504.0 {
        return sign | 0x7BFF;
    }
    let e = ((bits >> 23) & 0xff) as i32 - 127;
    if e < -14 {
        // Subnormal: multiples of 2^-24, truncated (an exact power-of-two scaling).
        return sign | (a * 2f32.powi(24)) as u16;
    }
    sign | (((e + 15) as u16) << 10) | ((bits >> 13) & 0x3ff) as u16
}

/// Narrows to an unsigned float with a 5-bit exponent and `mantissa` bits (11- and 10-bit
/// floats), rounding toward zero; negatives become 0.
fn small_float(v: f32, mantissa: u32) -> u32 {
    let exp_mask = 31u32 << mantissa;
    if v.is_nan() {
        return exp_mask | 1;
    }
    if v <= 0.0 {
        return 0;
    }
    if v.is_infinite() {
        return exp_mask;
    }
    let max = (2.0 - 2f32.powi(-(mantissa as i32))) * 2f32.powi(15);
    if v >= max {
        return (30 << mantissa) | mask(mantissa);
    }
    // Scale into an integer of `mantissa + 1` significant bits, then round to even.
    let e = v.log2().floor() as i32;
    let e = e.max(-14);
    let scaled = v as f64 / 2f64.powi(e - mantissa as i32);
    let mut m = scaled.floor() as u32;
    let mut e = e;
    if m >= 2 << mantissa {
        m >>= 1;
        e += 1;
    }
    if m < (1 << mantissa) {
        // Subnormal.
        return m;
    }
    (((e + 15) as u32) << mantissa) | (m & mask(mantissa))
}

fn small_float_to_f32(bits: u32, mantissa: u32) -> f32 {
    let e = bits >> mantissa;
    let m = bits & mask(mantissa);
    match e {
        0 => m as f32 * 2f32.powi(-14 - mantissa as i32),
        31 if m == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m as f32 / (1u32 << mantissa) as f32) * 2f32.powi(e as i32 - 15),
    }
}

/// FLOAT → RGBE per the D3D specification of `R9G9B9E5_SHAREDEXP`.
fn rgb9e5(rgb: [f32; 3]) -> u32 {
    const MAX: f32 = 65408.0; // (2^9 - 1) / 2^9 * 2^16
    let c = rgb.map(|v| if v.is_nan() { 0.0 } else { v.clamp(0.0, MAX) });
    let max = c[0].max(c[1]).max(c[2]);
    let mut exp = (max.log2().floor() as i32).max(-16) + 1 + 15;
    if max == 0.0 {
        exp = 0;
    }
    let denom = |e: i32| 2f64.powi(e - 15 - 9);
    let mut d = denom(exp);
    if (max as f64 / d).round() as u32 == 512 {
        exp += 1;
        d = denom(exp);
    }
    let m = c.map(|v| ((v as f64 / d).round() as u32).min(511));
    m[0] | m[1] << 9 | m[2] << 18 | (exp as u32) << 27
}

//! Texture clear values as bytes: what one element of one plane holds after a
//! `ClearTextureSubresources`, and whether a legacy view clear can write exactly that.
//!
//! Planes follow D3D12's subresource planes: depth-stencil formats clear depth in plane 0
//! (`floats[0]`, clamped to [0, 1], NaN and -0 to +0) and stencil in plane 1 (`uints[1]`); the
//! 4:2:0 video formats clear luma in plane 0 (`uints[0]`) and interleaved chroma in plane 1
//! (`uints[1]`, `uints[2]`); packed 4:2:2 formats repeat luma (or green) for both texels of an
//! element; block-compressed formats take the low bytes of `bytes`, one block.

use super::{decode_texel, encode_texel, ComponentClass, Format, Layout, Swizzle};
use crate::ClearData;

/// The bytes of one element (texel, block or packed pair) of a cleared plane, or of one
/// `FillBuffers` pattern: 1 to 16 bytes written over and over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClearElement {
    bytes: [u8; 16],
    len: u8,
}

impl ClearElement {
    fn new(bytes: &[u8]) -> Self {
        let mut b = [0u8; 16];
        b[..bytes.len()].copy_from_slice(bytes);
        ClearElement { bytes: b, len: bytes.len() as u8 }
    }

    /// An element of `bytes`; `None` unless 1 to 16 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        (1..=16).contains(&bytes.len()).then(|| ClearElement::new(bytes))
    }

    /// The element's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// The element as whole little-endian dwords and their count, as a shader that writes
    /// dwords repeats it: a 1- or 2-byte element is repeated to fill one dword (written from a
    /// dword-aligned offset, that keeps its phase). `None` for a length that is neither 1, 2
    /// nor a multiple of 4.
    pub fn dwords(&self) -> Option<([u32; 4], u32)> {
        let len = self.len as usize;
        let bytes: [u8; 16] = match len {
            1 | 2 => std::array::from_fn(|i| if i < 4 { self.bytes[i % len] } else { 0 }),
            _ if len.is_multiple_of(4) => self.bytes,
            _ => return None,
        };
        let count = len.div_ceil(4) as u32;
        let dword = |i: usize| u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]);
        Some((std::array::from_fn(dword), count))
    }
}

/// Encodes `value` into one element of plane `plane` of `format`.
///
/// Returns `None` where there is nothing to write: unknown or typeless formats, and planes the
/// format does not have.
pub fn encode_clear(format: Format, plane: u32, value: &ClearData) -> Option<ClearElement> {
    let info = format.info();
    if plane >= format.plane_count() || info.class == ComponentClass::Typeless {
        return None;
    }
    let u = value.uints();
    let le16 = |v: u32| (v as u16).to_le_bytes();
    match info.layout {
        Layout::None => None,
        Layout::Block => Some(ClearElement::new(&value.bytes[..info.bytes_per_block as usize])),
        Layout::D24S8 | Layout::D32S8 if plane == 1 => Some(ClearElement::new(&[u[1] as u8])),
        Layout::D24S8 => {
            // Plane 0 of D24S8 is a 32-bit element with depth in the low 24 bits.
            let (b, _) = encode_texel(Format::D24UnormS8Uint, &ClearData::from_depth_stencil(value.floats()[0], 0))?;
            Some(ClearElement::new(&b[..4]))
        }
        Layout::D32S8 => {
            let (b, _) = encode_texel(Format::D32Float, value)?;
            Some(ClearElement::new(&b[..4]))
        }
        Layout::Planar420 { bytes: 1 } if plane == 0 => Some(ClearElement::new(&[u[0] as u8])),
        Layout::Planar420 { bytes: 1 } => Some(ClearElement::new(&[u[1] as u8, u[2] as u8])),
        Layout::Planar420 { .. } if plane == 0 => Some(ClearElement::new(&le16(u[0]))),
        Layout::Planar420 { .. } => Some(ClearElement::new(&[le16(u[1]), le16(u[2])].concat())),
        Layout::Packed422 { bits } => {
            let order: [u32; 4] = match format {
                // Y0 U Y1 V.
                Format::Yuy2 | Format::Y210 | Format::Y216 => [u[0], u[1], u[0], u[2]],
                // R G0 B G1 and G0 R G1 B, from UNORM floats.
                _ => {
                    let (r, _) = encode_texel(Format::R8G8B8A8Unorm, value)?;
                    let [r, g, b] = [r[0] as u32, r[1] as u32, r[2] as u32];
                    if format == Format::G8R8G8B8Unorm {
                        [g, r, g, b]
                    } else {
                        [r, g, b, g]
                    }
                }
            };
            if bits == 8 {
                Some(ClearElement::new(&order.map(|v| v as u8)))
            } else {
                Some(ClearElement::new(&order.map(le16).concat()))
            }
        }
        _ => encode_texel(format, value).map(|(b, n)| ClearElement::new(&b[..n])),
    }
}

/// The `ClearData` channels a format stores (indices into `floats`/`uints`).
fn stored_channels(format: Format) -> &'static [usize] {
    match format.info().layout {
        Layout::Channels { swizzle: Swizzle::A, .. } => &[3],
        Layout::Channels { swizzle: Swizzle::Bgrx, .. } => &[0, 1, 2],
        Layout::Channels { count, .. } => &[0, 1, 2, 3][..count as usize],
        Layout::R11G11B10 | Layout::R9G9B9E5 | Layout::B5G6R5 => &[0, 1, 2],
        Layout::D16 | Layout::D32 | Layout::D24S8 | Layout::D32S8 => &[0],
        _ => &[0, 1, 2, 3],
    }
}

/// Bits of each stored channel of an integer format.
fn channel_bits(format: Format, channel: usize) -> u32 {
    match format.info().layout {
        Layout::Channels { bits, .. } => bits as u32,
        Layout::R10G10B10A2 if channel == 3 => 2,
        Layout::R10G10B10A2 => 10,
        _ => 32,
    }
}

/// The integer a channel of an integer format stores, as a signed 64-bit value.
fn stored_integer(format: Format, value: &ClearData, channel: usize) -> i64 {
    let bits = channel_bits(format, channel);
    let raw = value.uints()[channel] as u64 & ((1u64 << bits) - 1);
    if format.info().class == ComponentClass::Sint && raw >> (bits - 1) & 1 == 1 {
        raw as i64 - (1i64 << bits)
    } else {
        raw as i64
    }
}

/// Integers up to this magnitude pass through a float view clear unchanged.
const EXACT_INTEGER: i64 = 1 << 24;

/// Bits of each channel of a normalized format, in `ClearData` channel order.
fn normalized_bits(format: Format) -> [u32; 4] {
    match format.info().layout {
        Layout::Channels { bits, .. } => [bits as u32; 4],
        Layout::R10G10B10A2 => [10, 10, 10, 2],
        Layout::B5G6R5 => [5, 6, 5, 0],
        Layout::B5G5R5A1 => [5, 5, 5, 1],
        _ => [4; 4],
    }
}

/// Whether a normalized value lands near a rounding tie, where devices may round either way.
fn near_tie(v: f32, bits: u32, signed: bool) -> bool {
    let max = ((1u64 << (bits - signed as u32)) - 1) as f64;
    let x = (v as f64).clamp(if signed { -1.0 } else { 0.0 }, 1.0).abs() * max;
    (x.fract() - 0.5).abs() < 1e-3
}

/// The value an integer `format` stores for `value`: each channel's low bits, sign-extended
/// for SINT, as a clear writes them (a driver's clear or integer render-target write
/// saturates values out of a channel's range instead, so the routes hand it stored values).
/// Other formats, and values the format cannot encode, come back as they are.
pub fn stored_integers(format: Format, value: &ClearData) -> ClearData {
    if !matches!(format.info().class, ComponentClass::Uint | ComponentClass::Sint) {
        return *value;
    }
    encode_texel(format, value).and_then(|(bytes, _)| decode_texel(format, &bytes)).unwrap_or(*value)
}

/// Whether a legacy view clear (`ClearRenderTargetView` with [`view_clear_color`], or
/// `ClearDepthStencilView` with [`view_clear_depth`]) writes exactly [`encode_clear`]'s bytes
/// into every plane of `format`, whatever rounding the device's conversion uses within D3D's
/// rules:
/// - integer channels up to 2^24 in magnitude (larger ones may round through the float);
/// - 32-bit float channels that are zero or normal (NaN payloads are not kept, subnormals
///   are flushed, infinities are left to the copy), and 16-, 11- and 10-bit float channels
///   whose value the format holds exactly;
/// - normalized channels away from rounding ties, and sRGB colour channels at 0 or 1 (the
///   curve may differ by a unit between devices);
/// - depth and stencil always: the encoder clamps depth as the view clear does.
///
/// Formats a view cannot render (block-compressed, video, shared-exponent) are never exact.
pub fn view_clear_exact(format: Format, value: &ClearData) -> bool {
    let info = format.info();
    let f = value.floats();
    let channels = stored_channels(format);
    match (info.class, info.layout) {
        (ComponentClass::DepthStencil, _) => true,
        (_, Layout::Block | Layout::Packed422 { .. } | Layout::Planar420 { .. }) => false,
        (ComponentClass::Uint | ComponentClass::Sint, _) => {
            channels.iter().all(|&c| stored_integer(format, value, c).abs() <= EXACT_INTEGER)
        }
        (ComponentClass::Float, Layout::Channels { bits: 32, .. }) => {
            channels.iter().all(|&c| f[c].is_normal() || f[c] == 0.0)
        }
        (ComponentClass::Float, _) => {
            // Narrow floats: exact only where no rounding happens at all.
            let Some((bytes, _)) = encode_texel(format, value) else { return false };
            let Some(back) = super::decode_texel(format, &bytes) else { return false };
            channels.iter().all(|&c| (f[c].is_normal() || f[c] == 0.0) && back.floats()[c] == f[c])
        }
        (ComponentClass::Unorm | ComponentClass::Snorm, _) => {
            let bits = normalized_bits(format);
            let signed = info.class == ComponentClass::Snorm;
            channels.iter().all(|&c| !f[c].is_nan() && !near_tie(f[c], bits[c], signed))
        }
        (ComponentClass::Srgb, _) => channels.iter().all(|&c| {
            if c == 3 {
                !f[c].is_nan() && !near_tie(f[c], 8, false)
            } else {
                f[c] <= 0.0 || f[c] >= 1.0
            }
        }),
        _ => false,
    }
}

/// The float colour a legacy view clear takes for `value`: the stored integers of integer
/// formats, normalized channels clamped to their range (NaN to 0, as D3D converts them: the
/// device then only rounds), and the floats with subnormals flushed to zero (keeping the sign)
/// otherwise. The closest a view clear can come where [`view_clear_exact`]
/// is false.
pub fn view_clear_color(format: Format, value: &ClearData) -> [f32; 4] {
    let class = format.info().class;
    let mut out = value.floats();
    for (c, v) in out.iter_mut().enumerate() {
        *v = match class {
            ComponentClass::Uint | ComponentClass::Sint if stored_channels(format).contains(&c) => {
                stored_integer(format, value, c) as f32
            }
            ComponentClass::Uint | ComponentClass::Sint => 0.0,
            ComponentClass::Unorm | ComponentClass::Snorm | ComponentClass::Srgb if v.is_nan() => 0.0,
            ComponentClass::Unorm | ComponentClass::Srgb => v.clamp(0.0, 1.0),
            ComponentClass::Snorm => v.clamp(-1.0, 1.0),
            _ if v.is_subnormal() => 0.0f32.copysign(*v),
            _ => *v,
        };
    }
    out
}

/// The stored integer of each channel of a UINT or SINT `format` for `value`, as its 32 bits
/// (sign-extended for SINT; channels the format lacks 0); zeros for other formats.
pub(crate) fn stored_integer_bits(format: Format, value: &ClearData) -> [u32; 4] {
    let mut out = [0u32; 4];
    if matches!(format.info().class, ComponentClass::Uint | ComponentClass::Sint) {
        for &c in stored_channels(format) {
            out[c] = stored_integer(format, value, c) as u32;
        }
    }
    out
}

/// The depth a legacy `ClearDepthStencilView` takes for `value`: clamped to [0, 1], NaN and
/// -0 to +0 (what [`encode_clear`] stores).
pub fn view_clear_depth(value: &ClearData) -> f32 {
    let d = value.floats()[0];
    if d.is_nan() {
        0.0
    } else {
        d.clamp(0.0, 1.0) + 0.0
    }
}

/// The colour the bound clears' draws output for `value` on `format`. A draw's float reaches a
/// normalized target through the device's conversion, which Vulkan lets round to either of the
/// two nearest values, and lavapipe (Mesa 22.3) takes channels narrower than 8 bits through an
/// 8-bit value whose high bits it keeps. For UNORM and SNORM formats each stored channel
/// becomes `(k ± ε) / max`, where `k` is the integer [`encode_clear`] stores: rounding,
/// truncation and that 8-bit path all take it to `k`, and so does the 16-bit path lavapipe
/// takes 10-bit channels through (ε is 1/32 for channels of up to 8 bits; for 9 to 15 bits
/// (max − k) / (2 (max + 1)), at most 1/4; 1/4 for 16 bits; ±1 exactly at the ends of the
/// range, never past them). Float channels
/// narrower than 32 bits become the value they store (D3D narrows toward zero, lavapipe rounds
/// to nearest: a value the channel holds exactly stores as itself either way); 32-bit float
/// channels keep every bit. Other formats: `value` as it is.
pub fn draw_clear_color(format: Format, value: &ClearData) -> ClearData {
    let info = format.info();
    if info.class == ComponentClass::Float {
        return narrow_floats_stored(format, value);
    }
    let signed = match (info.class, info.layout) {
        (
            ComponentClass::Unorm | ComponentClass::Snorm,
            Layout::Channels { .. }
            | Layout::R10G10B10A2
            | Layout::B5G6R5
            | Layout::B5G5R5A1
            | Layout::B4G4R4A4
            | Layout::A4B4G4R4,
        ) => info.class == ComponentClass::Snorm,
        _ => return *value,
    };
    let Some(stored) = encode_texel(format, value).and_then(|(bytes, _)| decode_texel(format, &bytes)) else {
        return *value;
    };
    let bits = normalized_bits(format);
    let (mut out, stored) = (value.floats(), stored.floats());
    for &c in stored_channels(format) {
        let max = ((1u64 << (bits[c] - signed as u32)) - 1) as f64;
        let k = (stored[c] as f64 * max).round();
        // The ends exactly: past them lavapipe's conversion of one channel of a packed
        // format disturbs another.
        let nudge = match bits[c] {
            0..=8 => 1.0 / 32.0,
            // Lavapipe's draws take 10-bit channels through 16 bits and keep the high ones, which
            // a quarter step above `k` carries to `k + 1` from k = 772 up (seed 9100286): the
            // nudge shrinks toward the top of the range, staying clear of float error.
            9..=15 => ((max - k.abs()) / (2.0 * (max + 1.0))).min(0.25),
            _ => 0.25,
        };
        out[c] = if k.abs() == max { k.signum() as f32 } else { ((k + nudge * k.signum()) / max) as f32 };
    }
    ClearData::from_floats(out)
}

/// `value` with each float channel narrower than 32 bits replaced by the value it stores.
fn narrow_floats_stored(format: Format, value: &ClearData) -> ClearData {
    let narrow = match format.info().layout {
        Layout::Channels { bits, .. } => bits < 32,
        Layout::R11G11B10 | Layout::R9G9B9E5 => true,
        _ => false,
    };
    let stored = narrow.then(|| encode_texel(format, value).and_then(|(bytes, _)| decode_texel(format, &bytes)));
    let Some(Some(stored)) = stored else { return *value };
    let (mut out, stored) = (value.floats(), stored.floats());
    for &c in stored_channels(format) {
        out[c] = stored[c];
    }
    ClearData::from_floats(out)
}

/// The depth the bound clears' draws output for `depth` on a target of depth `format`. For
/// D16 the stored value `k` as `(k + 1/4) / 65535`, which rounding and truncation both store
/// as `k` (0 and 1 exactly at the ends); other formats: `depth` as it is. D24 has no such
/// float (an `f32` holds half a unit of 2^-24 at best, and a device converting in `f32` rounds
/// it again), so there the device's conversion decides.
pub fn draw_clear_depth(format: Format, depth: f32) -> f32 {
    if format.info().layout != Layout::D16 {
        return depth;
    }
    let Some((bytes, _)) = encode_texel(Format::D16Unorm, &ClearData::from_depth_stencil(depth, 0)) else {
        return depth;
    };
    match u16::from_le_bytes([bytes[0], bytes[1]]) {
        0 => 0.0,
        u16::MAX => 1.0,
        k => ((f64::from(k) + 0.25) / 65535.0) as f32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(format: Format, plane: u32, value: ClearData) -> Vec<u8> {
        encode_clear(format, plane, &value).expect("encodable").as_bytes().to_vec()
    }

    fn f(v: [f32; 4]) -> ClearData {
        ClearData::from_floats(v)
    }

    #[test]
    fn normalized_and_srgb_round_as_d3d_specifies() {
        assert_eq!(enc(Format::R8G8B8A8Unorm, 0, f([0.0, 1.0, 0.5, 2.0])), [0, 255, 128, 255]);
        assert_eq!(enc(Format::B8G8R8A8Unorm, 0, f([1.0, 0.0, 0.25, 1.0])), [64, 0, 255, 255]);
        assert_eq!(enc(Format::R8G8Snorm, 0, f([-1.0, 0.5, 0.0, 0.0])), [0x81, 64]);
        assert_eq!(enc(Format::R8G8B8A8UnormSrgb, 0, f([0.5, 0.0, 1.0, 0.5])), [188, 0, 255, 128]);
        assert_eq!(enc(Format::R16Unorm, 0, f([f32::NAN; 4])), [0, 0]);
        assert_eq!(enc(Format::A8Unorm, 0, f([0.0, 0.0, 0.0, 1.0])), [255]);
        assert_eq!(enc(Format::B5G6R5Unorm, 0, f([1.0, 0.0, 1.0, 1.0])), 0xF81Fu16.to_le_bytes());
    }

    #[test]
    fn floats_narrow_to_half_and_small_floats() {
        assert_eq!(enc(Format::R16Float, 0, f([1.0; 4])), 0x3C00u16.to_le_bytes());
        assert_eq!(enc(Format::R16G16Float, 0, f([-2.0, 0.5, 0.0, 0.0])), [0x00, 0xC0, 0x00, 0x38]);
        // R11G11B10: 1.0 is exponent 15 in both 11-bit channels and the 10-bit one.
        let one = (15 << 6) | (15 << 17) | (15 << 27);
        assert_eq!(enc(Format::R11G11B10Float, 0, f([1.0, 1.0, 1.0, 0.0])), (one as u32).to_le_bytes());
        assert_eq!(enc(Format::R9G9B9E5SharedExp, 0, f([1.0, 0.0, 0.0, 0.0])), (0x8000_0100u32).to_le_bytes());
        assert_eq!(enc(Format::R32Float, 0, f([-0.0; 4])), (-0.0f32).to_bits().to_le_bytes());
    }

    #[test]
    fn integers_keep_their_low_bits() {
        let v = ClearData::from_uints([0x1234_5678, 0x1FF, 7, 3]);
        assert_eq!(enc(Format::R32Uint, 0, v), 0x1234_5678u32.to_le_bytes());
        assert_eq!(enc(Format::R8G8Uint, 0, v), [0x78, 0xFF]);
        assert_eq!(enc(Format::R10G10B10A2Uint, 0, v), (0x278u32 | 0x1FF << 10 | 7 << 20 | 3 << 30).to_le_bytes());
        assert_eq!(enc(Format::R16Sint, 0, ClearData::from_sints([-2, 0, 0, 0])), [0xFE, 0xFF]);
    }

    #[test]
    fn depth_and_stencil_planes() {
        let v = ClearData::from_depth_stencil(1.0, 0xA5);
        assert_eq!(enc(Format::D24UnormS8Uint, 0, v), [0xFF, 0xFF, 0xFF, 0]);
        assert_eq!(enc(Format::D24UnormS8Uint, 1, v), [0xA5]);
        assert_eq!(enc(Format::D32FloatS8X24Uint, 0, v), 1.0f32.to_bits().to_le_bytes());
        assert_eq!(enc(Format::D32FloatS8X24Uint, 1, v), [0xA5]);
        assert_eq!(enc(Format::D16Unorm, 0, ClearData::from_depth_stencil(0.5, 0)), 32768u16.to_le_bytes());
        // Depth clamps; NaN and -0 store +0.
        assert_eq!(enc(Format::D32Float, 0, ClearData::from_depth_stencil(2.0, 0)), 1.0f32.to_bits().to_le_bytes());
        assert_eq!(enc(Format::D32Float, 0, ClearData::from_depth_stencil(-0.0, 0)), [0; 4]);
        assert_eq!(enc(Format::D32Float, 0, ClearData::from_depth_stencil(f32::NAN, 0)), [0; 4]);
        assert!(encode_clear(Format::D32Float, 1, &v).is_none());
        // The one-plane views of the depth family clear their own plane.
        assert_eq!(enc(Format::X24TypelessG8Uint, 1, v), [0xA5]);
    }

    #[test]
    fn block_compressed_and_video() {
        let v = ClearData { bytes: std::array::from_fn(|i| i as u8 + 1) };
        assert_eq!(enc(Format::Bc1Unorm, 0, v), (1..=8).collect::<Vec<u8>>());
        assert_eq!(enc(Format::Bc7Unorm, 0, v), (1..=16).collect::<Vec<u8>>());
        let yuv = ClearData::from_uints([0x10, 0x80, 0x90, 0]);
        assert_eq!(enc(Format::Nv12, 0, yuv), [0x10]);
        assert_eq!(enc(Format::Nv12, 1, yuv), [0x80, 0x90]);
        assert_eq!(enc(Format::P010, 1, ClearData::from_uints([0, 0x200, 0x300, 0])), [0, 2, 0, 3]);
        assert_eq!(enc(Format::P010, 0, ClearData::from_uints([0x1234, 0x200, 0x300, 0])), [0x34, 0x12]);
        assert_eq!(enc(Format::Yuy2, 0, yuv), [0x10, 0x80, 0x10, 0x90]);
        assert_eq!(enc(Format::Y216, 0, yuv), [0x10, 0, 0x80, 0, 0x10, 0, 0x90, 0]);
        assert_eq!(enc(Format::R8G8B8G8Unorm, 0, f([1.0, 0.0, 1.0, 1.0])), [255, 0, 255, 0]);
        assert_eq!(enc(Format::G8R8G8B8Unorm, 0, f([1.0, 0.0, 1.0, 1.0])), [0, 255, 0, 255]);
        assert!(encode_clear(Format::R8G8B8A8Typeless, 0, &yuv).is_none());
        assert!(encode_clear(Format::Unknown, 0, &yuv).is_none());
        assert!(encode_clear(Format::R8G8B8A8Unorm, 1, &yuv).is_none());
    }

    #[test]
    fn view_clears_are_exact_only_where_every_device_writes_the_encoding() {
        assert!(view_clear_exact(Format::R8G8B8A8Unorm, &f([0.25, 1.0, -3.0, 0.0])));
        // 0.1 * 255 = 25.5: a tie devices break differently.
        assert!(!view_clear_exact(Format::R8G8B8A8Unorm, &f([0.1, 1.0, 0.0, 0.0])));
        assert!(!view_clear_exact(Format::R10G10B10A2Unorm, &f([0.0, 0.0, 0.0, 0.5])));
        assert!(view_clear_exact(Format::R10G10B10A2Unorm, &f([0.0, 0.0, 0.0, 1.0 / 3.0])));
        assert!(!view_clear_exact(Format::R32Float, &f([f32::NAN, 0.0, 0.0, 0.0])));
        assert!(!view_clear_exact(Format::R32Float, &f([f32::INFINITY, 0.0, 0.0, 0.0])));
        assert!(!view_clear_exact(Format::R16G16Float, &f([0.0, 1e-40, 0.0, 0.0])));
        assert!(view_clear_exact(Format::R16G16Float, &f([0.5, -2.25, 0.0, 0.0])));
        assert!(!view_clear_exact(Format::R16G16Float, &f([0.1, 0.0, 0.0, 0.0])), "0.1 rounds in 16 bits");
        assert!(view_clear_exact(Format::R8G8B8A8UnormSrgb, &f([0.0, 1.0, 1.0, 0.25])));
        assert!(!view_clear_exact(Format::R8G8B8A8UnormSrgb, &f([0.2, 1.0, 1.0, 0.25])));
        // Channels the format does not store do not matter.
        assert!(view_clear_exact(Format::R32Float, &f([1.0, f32::NAN, 0.0, 0.0])));
        assert!(view_clear_exact(Format::R32Uint, &ClearData::from_uints([1 << 24, 0, 0, 0])));
        assert!(!view_clear_exact(Format::R32Uint, &ClearData::from_uints([(1 << 24) + 1, 0, 0, 0])));
        assert!(view_clear_exact(Format::R32Sint, &ClearData::from_sints([-(1 << 24), 0, 0, 0])));
        assert!(!view_clear_exact(Format::R32Sint, &ClearData::from_sints([i32::MIN, 0, 0, 0])));
        // R8_UINT stores the low byte, which is always exact.
        assert!(view_clear_exact(Format::R8Uint, &ClearData::from_uints([u32::MAX, 0, 0, 0])));
        assert!(view_clear_exact(Format::D24UnormS8Uint, &ClearData::from_depth_stencil(7.0, 3)));
        assert!(!view_clear_exact(Format::Bc1Unorm, &ClearData::default()));
        assert!(!view_clear_exact(Format::R9G9B9E5SharedExp, &ClearData::default()));
    }

    #[test]
    fn narrow_floats_round_toward_zero() {
        assert_eq!(enc(Format::R16Float, 0, f([0.675_686_3, 0.0, 0.0, 0.0])), 0x3967u16.to_le_bytes());
        assert_eq!(enc(Format::R16Float, 0, f([-0.675_686_3, 0.0, 0.0, 0.0])), 0xB967u16.to_le_bytes());
        assert_eq!(enc(Format::R16Float, 0, f([65519.0, 0.0, 0.0, 0.0])), 0x7BFFu16.to_le_bytes());
        assert_eq!(enc(Format::R16Float, 0, f([f32::INFINITY, 0.0, 0.0, 0.0])), 0x7C00u16.to_le_bytes());
        assert_eq!(enc(Format::R16Float, 0, f([1e-5, 0.0, 0.0, 0.0])), 167u16.to_le_bytes());
        assert_eq!(enc(Format::R16Float, 0, f([1e-8, 0.0, 0.0, 0.0])), [0, 0]);
        // 0.1 in R11G11B10's 6-bit mantissa: 1.6 x 2^-4, 0.6 x 64 = 38.4, truncated.
        let r = (11u32 << 6) | 38;
        assert_eq!(enc(Format::R11G11B10Float, 0, f([0.1, 0.0, 0.0, 0.0])), r.to_le_bytes());
    }

    #[test]
    fn closest_view_clear_values() {
        assert_eq!(view_clear_color(Format::R8Uint, &ClearData::from_uints([0x1FF, 5, 0, 0])), [255.0, 0.0, 0.0, 0.0]);
        assert_eq!(view_clear_color(Format::R16Sint, &ClearData::from_sints([-2, 0, 0, 0]))[0], -2.0);
        let c = view_clear_color(Format::R32Float, &f([-1e-40, 1.0, 0.0, 0.0]));
        assert!(c[0] == 0.0 && c[0].is_sign_negative());
        assert_eq!(c[1..], [1.0, 0.0, 0.0], "only subnormals flush");
        assert_eq!(view_clear_depth(&ClearData::from_depth_stencil(-0.0, 0)).to_bits(), 0);
        assert_eq!(view_clear_depth(&ClearData::from_depth_stencil(3.0, 0)), 1.0);
    }

    /// Each rule of `view_clear_exact`, pinned with values worked out by hand from the format
    /// definitions: a tie is a value whose scaled form `v * (2^bits - 1)` ends in exactly .5.
    #[test]
    fn view_clear_exactness_follows_each_formats_own_widths() {
        let exact = |format, v: [f32; 4]| view_clear_exact(format, &f(v));
        // A8 stores alpha alone: 0.1 * 255 = 25.5 is a tie there, red is not stored.
        assert!(!exact(Format::A8Unorm, [0.0, 0.0, 0.0, 0.1]));
        assert!(exact(Format::A8Unorm, [0.1, 0.0, 0.0, 0.25]));
        // 16-bit channels: 1000.5 / 65535 is a tie at 16 bits, not at 8 (3.89).
        let tie16 = 1000.5 / 65535.0;
        assert!(!exact(Format::R16Unorm, [tie16, 0.0, 0.0, 0.0]));
        assert!(exact(Format::R8Unorm, [tie16, 0.0, 0.0, 0.0]));
        // 8-bit: 2.5 / 255 is a tie at 8 bits; at 4 bits it is 0.147.
        assert!(!exact(Format::R8Unorm, [2.5 / 255.0, 0.0, 0.0, 0.0]));
        // R10G10B10A2: 10-bit colour, 2-bit alpha. 0.5 / 15 is a 4-bit tie, 34.1 at 10 bits.
        assert!(exact(Format::R10G10B10A2Unorm, [0.5 / 15.0, 0.5 / 15.0, 0.5 / 15.0, 1.0]));
        assert!(!exact(Format::R10G10B10A2Unorm, [0.5 / 1023.0, 0.0, 0.0, 1.0]));
        assert!(!exact(Format::R10G10B10A2Unorm, [0.0, 0.0, 0.5 / 1023.0, 1.0]));
        // B5G6R5: red and blue 5 bits, green 6; alpha is not stored.
        assert!(!exact(Format::B5G6R5Unorm, [0.5 / 31.0, 0.0, 0.0, 0.0]));
        assert!(!exact(Format::B5G6R5Unorm, [0.0, 0.5 / 63.0, 0.0, 0.0]));
        assert!(exact(Format::B5G6R5Unorm, [0.0, 0.5 / 15.0, 0.0, 0.1]));
        // B5G5R5A1: alpha is one bit (1/30 is a 4-bit tie, 0.03 at one bit; 0.5 is a tie).
        assert!(exact(Format::B5G5R5A1Unorm, [0.0, 0.0, 0.0, 1.0 / 30.0]));
        assert!(!exact(Format::B5G5R5A1Unorm, [0.0, 0.0, 0.0, 0.5]));
        assert!(!exact(Format::B5G5R5A1Unorm, [0.0, 0.5 / 31.0, 0.0, 1.0]));
        // SNORM scales by 2^(bits-1) - 1 and ties on both signs.
        assert!(!exact(Format::R8Snorm, [0.5 / 127.0, 0.0, 0.0, 0.0]));
        assert!(!exact(Format::R8Snorm, [-0.5 / 127.0, 0.0, 0.0, 0.0]));
        assert!(exact(Format::R8Snorm, [1.0 / 127.0, 0.0, 0.0, 0.0]));
        assert!(exact(Format::R8Snorm, [-1.0, 0.0, 0.0, 0.0]));
        // sRGB: colour only at 0 or 1, alpha linear 8 bits, NaN never.
        assert!(!exact(Format::R8G8B8A8UnormSrgb, [0.0, 1.0, 1.0, 0.1]));
        assert!(!exact(Format::R8G8B8A8UnormSrgb, [0.0, 1.0, 1.0, f32::NAN]));
        assert!(!exact(Format::R8G8B8A8UnormSrgb, [f32::NAN, 1.0, 1.0, 1.0]));
        assert!(exact(Format::R8G8B8A8UnormSrgb, [-3.0, 7.0, 0.0, 0.75]));
        // Values a narrow float holds exactly stay exact, zero included.
        assert!(exact(Format::R16G16B16A16Float, [0.0; 4]));
        assert!(exact(Format::R16G16B16A16Float, [-0.0, 1.0, -2.0, 0.5]));
        assert!(exact(Format::R11G11B10Float, [0.0, 1.0, 0.5, f32::NAN]), "alpha is not stored");
        // X channels and unused channels do not matter.
        assert!(exact(Format::B8G8R8X8Unorm, [0.0, 1.0, 0.25, 0.1]));
        assert!(exact(Format::B8G8R8X8Unorm, [0.0, 1.0, 0.25, f32::NAN]));
        assert!(!exact(Format::B8G8R8X8Unorm, [0.1, 1.0, 0.25, 0.0]));
    }

    /// The integers a view clear takes for packed and signed integer formats.
    #[test]
    fn view_clear_integers_keep_each_channels_width_and_sign() {
        let v = ClearData::from_uints([0x7FF, 5, 0x3FF, 7]);
        assert_eq!(view_clear_color(Format::R10G10B10A2Uint, &v), [1023.0, 5.0, 1023.0, 3.0]);
        assert_eq!(view_clear_color(Format::R16Sint, &ClearData::from_sints([5, 0, 0, 0]))[0], 5.0);
        assert_eq!(view_clear_color(Format::R16Sint, &ClearData::from_sints([-5, 0, 0, 0]))[0], -5.0);
        // 0x8000 is the 16-bit pattern of -32768.
        assert_eq!(view_clear_color(Format::R16Sint, &ClearData::from_uints([0x8000, 0, 0, 0]))[0], -32768.0);
        // Channels the format does not store are 0, whatever their bits read as a float (1.0).
        let one = 1.0f32.to_bits();
        assert_eq!(
            view_clear_color(Format::R8G8Uint, &ClearData::from_uints([0x1FF, 0x100, one, one])),
            [255.0, 0.0, 0.0, 0.0]
        );
        assert!(view_clear_exact(Format::R10G10B10A2Uint, &v));
        assert!(view_clear_exact(Format::R32Sint, &ClearData::from_sints([-5, 0, 0, 0])));
        assert!(!view_clear_exact(Format::R32Sint, &ClearData::from_sints([-(1 << 24) - 1, 0, 0, 0])));
        // 2-bit alpha of R10G10B10A2_UINT: 7 stores 3, which is exact.
        assert!(view_clear_exact(Format::R10G10B10A2Uint, &ClearData::from_uints([u32::MAX; 4])));
    }

    #[test]
    fn stored_integers_keep_each_channels_low_bits() {
        let u = |v: [u32; 4]| ClearData::from_uints(v);
        // R16_SINT: the low 16 bits, sign-extended.
        assert_eq!(stored_integers(Format::R16Sint, &u([0x4B80_0000, 0, 0, 0])).uints()[0], 0);
        assert_eq!(stored_integers(Format::R16Sint, &u([0x0001_8000, 0, 0, 0])).uints()[0], 0xFFFF_8000);
        assert_eq!(stored_integers(Format::R16Sint, &u([0x7FFF, 0, 0, 0])).uints()[0], 0x7FFF);
        // R8G8_UINT: two 8-bit channels; the missing ones read 0 (and alpha 1).
        assert_eq!(stored_integers(Format::R8G8Uint, &u([0x1FF, 0x234, 7, 9])).uints(), [0xFF, 0x34, 0, 1]);
        // R10G10B10A2_UINT: 10, 10, 10 and 2 bits.
        assert_eq!(
            stored_integers(Format::R10G10B10A2Uint, &u([0x7FF, 0x400, 0x3FF, 7])).uints(),
            [0x3FF, 0, 0x3FF, 3]
        );
        // Other classes come back as they are.
        let f = ClearData::from_floats([2.5, -1.0, 0.5, 7.0]);
        assert_eq!(stored_integers(Format::R8G8B8A8Unorm, &f), f);
    }

    /// Each stored integer `k` of a normalized format, through a device that rounds to
    /// nearest and one that truncates toward zero, from the draw's colour: both land on `k`.
    #[test]
    fn draw_colours_land_on_the_stored_value_whether_a_device_rounds_or_truncates() {
        let formats = [
            (Format::R8G8B8A8Unorm, [8, 8, 8, 8], false),
            (Format::R10G10B10A2Unorm, [10, 10, 10, 2], false),
            (Format::B5G6R5Unorm, [5, 6, 5, 0], false),
            (Format::B5G5R5A1Unorm, [5, 5, 5, 1], false),
            (Format::B4G4R4A4Unorm, [4, 4, 4, 4], false),
            (Format::R16Unorm, [16, 0, 0, 0], false),
            (Format::R8G8Snorm, [8, 8, 0, 0], true),
            (Format::R16G16B16A16Snorm, [16, 16, 16, 16], true),
        ];
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for (format, bits, signed) in formats {
            for n in 0..4000 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                // Values across and past the range, ties among them (k + 0.5) / max.
                let v: [f32; 4] = std::array::from_fn(|c| {
                    let r = ((rng >> (c * 16)) & 0xFFFF) as f32 / 65535.0;
                    let max = ((1u32 << bits[c].max(1)) - 1) as f32;
                    match n % 3 {
                        0 => r * 1.2 - if signed { 1.1 } else { 0.1 },
                        1 => ((r * max).floor() + 0.5) / max * if signed && c % 2 == 1 { -1.0 } else { 1.0 },
                        _ => r,
                    }
                });
                let value = ClearData::from_floats(v);
                let (bytes, _) = encode_texel(format, &value).unwrap();
                let want = decode_texel(format, &bytes).unwrap().floats();
                let drawn = draw_clear_color(format, &value).floats();
                for c in stored_channels(format).iter().copied().filter(|&c| bits[c] > 0) {
                    let max = ((1u64 << (bits[c] - signed as u32)) - 1) as f64;
                    let k = (want[c] as f64 * max).round();
                    let x = (drawn[c] as f64).clamp(if signed { -1.0 } else { 0.0 }, 1.0) * max;
                    assert_eq!(x.round(), k, "{format} {v:?} channel {c}: rounded");
                    assert_eq!(x.trunc(), k, "{format} {v:?} channel {c}: truncated");
                    if bits[c] < 8 && !signed {
                        // Through 8 bits, keeping the high bits.
                        let v8 = ((drawn[c] as f64).clamp(0.0, 1.0) * 255.0).round() as u32;
                        assert_eq!(f64::from(v8 >> (8 - bits[c])), k, "{format} {v:?} channel {c}: through 8 bits");
                    }
                    if (9..16).contains(&bits[c]) && !signed {
                        // Through 16 bits, keeping the high bits (lavapipe's 10-bit draws).
                        let v16 = ((drawn[c] as f64).clamp(0.0, 1.0) * 65535.0).round() as u32;
                        assert_eq!(f64::from(v16 >> (16 - bits[c])), k, "{format} {v:?} channel {c}: through 16 bits");
                    }
                }
            }
        }
        // 32-bit floats and sRGB keep the value, every bit.
        let v = ClearData::from_floats([0.3, 1.7, -2.0, 0.5]);
        assert_eq!(draw_clear_color(Format::R8G8B8A8UnormSrgb, &v), v);
        let bits = ClearData::from_uints([0x0001_16c2, 0x7fc0_1234, 0x8000_0001, 0xffc0_0abc]);
        assert_eq!(draw_clear_color(Format::R32G32B32A32Float, &bits), bits);
    }

    /// A draw's float reaches a 16-, 11- or 10-bit float target through the device's
    /// conversion, whose rounding Vulkan leaves to the implementation, where D3D narrows
    /// toward zero. The draw outputs the stored value itself, which every conversion keeps.
    #[test]
    fn narrow_float_draws_output_the_value_the_channel_stores() {
        for format in [Format::R16G16B16A16Float, Format::R16Float, Format::R11G11B10Float] {
            for seed in 0..2000u32 {
                let f = f32::from_bits(seed.wrapping_mul(0x9E37_79B9) & 0x477F_FFFF)
                    * if seed % 2 == 0 { 1.0 } else { -1.0 };
                let value = ClearData::from_floats([f, f * 0.5, f * 3.0, 0.25]);
                let (bytes, _) = encode_texel(format, &value).unwrap();
                let stored = decode_texel(format, &bytes).unwrap().floats();
                let drawn = draw_clear_color(format, &value).floats();
                for &c in stored_channels(format) {
                    assert_eq!(drawn[c].to_bits(), stored[c].to_bits(), "{format} {f}: channel {c}");
                }
                // The stored value encodes to the same bytes (any rounding keeps it).
                let again = encode_texel(format, &ClearData::from_floats(drawn)).unwrap().0;
                assert_eq!(again, bytes, "{format} {f}");
            }
        }
    }

    #[test]
    fn d16_draw_depths_land_on_the_stored_value_whether_a_device_rounds_or_truncates() {
        for i in 0..=20000u32 {
            let d = i as f32 / 20000.0;
            let (bytes, _) = encode_texel(Format::D16Unorm, &ClearData::from_depth_stencil(d, 0)).unwrap();
            let k = f64::from(u16::from_le_bytes([bytes[0], bytes[1]]));
            let x = f64::from(draw_clear_depth(Format::D16Unorm, d)) * 65535.0;
            assert_eq!((x.round(), x.trunc()), (k, k), "depth {d}");
        }
        assert_eq!(draw_clear_depth(Format::D32Float, 0.3), 0.3);
        assert_eq!(draw_clear_depth(Format::D24UnormS8Uint, 0.3), 0.3);
    }
}

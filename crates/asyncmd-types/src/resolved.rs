//! The resolved descriptions validation produces from an Async Command: fill patterns as bytes
//! and a byte count, texture clears as encoded elements per subresource with their regions.
//! The native DDI and the fallback both consume them, so no device re-encodes a clear value
//! or re-resolves a pattern.

use crate::{view_clear_color, view_clear_depth, view_clear_exact, Box3, ClearData, ClearElement, Format};

/// One `FillBuffers` fill that writes something: `bytes` bytes of `pattern` repeated from
/// `offset`, whole patterns only (a pattern that does not fit was dropped by validation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResolvedFill<R> {
    /// The buffer.
    pub buffer: R,
    /// Byte offset of the first pattern.
    pub offset: u64,
    /// The pattern: the raw bytes, or the fill value encoded in the fill's format.
    pub pattern: ClearElement,
    /// Bytes written: a non-zero multiple of the pattern's length, inside the buffer.
    pub bytes: u64,
}

impl<R> ResolvedFill<R> {
    /// The same fill naming its buffer by `f(buffer)`.
    pub fn map<S>(&self, f: impl FnOnce(&R) -> S) -> ResolvedFill<S> {
        ResolvedFill { buffer: f(&self.buffer), offset: self.offset, pattern: self.pattern, bytes: self.bytes }
    }
}

/// What a legacy view clear (`ClearRenderTargetView`, `ClearDepthStencilView`, or a device's
/// attachment clear) takes to write a texture clear's value, and whether it writes exactly
/// the encoded element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewClearValue {
    /// The colour a D3D12 view clear takes: normalized channels clamped, integers as the
    /// stored integer (see [`view_clear_color`]).
    pub color: [f32; 4],
    /// For UINT and SINT formats, the stored integer of each channel as its 32 bits
    /// (sign-extended for SINT): what an API with integer clear values takes. Zero otherwise.
    pub integers: [u32; 4],
    /// The depth a depth view clear takes (clamped to [0, 1], NaN as 0).
    pub depth: f32,
    /// The stencil a depth view clear takes (the low 8 bits of `uints[1]`).
    pub stencil: u8,
    /// Whether a view clear of `color` (or of depth and stencil) writes exactly the encoded
    /// element with every D3D-conforming conversion (see [`view_clear_exact`]).
    pub exact: bool,
}

impl ViewClearValue {
    /// The view clear of `value` in `format`.
    pub fn of(format: Format, value: &ClearData) -> Self {
        ViewClearValue {
            color: view_clear_color(format, value),
            integers: crate::format::stored_integer_bits(format, value),
            depth: view_clear_depth(value),
            stencil: value.uints()[1] as u8,
            exact: view_clear_exact(format, value),
        }
    }
}

/// One subresource of a `ClearTextureSubresources` clear that writes something.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubresourceClear<R> {
    /// The texture.
    pub texture: R,
    /// The subresource index.
    pub subresource: u32,
    /// Its mip level.
    pub mip: u32,
    /// Its array slice (0 for 3D textures).
    pub slice: u32,
    /// Its plane.
    pub plane: u32,
    /// The clear format: the call's, or the texture's own where the call named none.
    pub format: Format,
    /// The value encoded for `format` and `plane`: what every element of the region holds after.
    pub element: ClearElement,
    /// The value as the call gave it, for the view clears of routes that take one
    /// ([`SubresourceClear::view`]).
    pub value: ClearData,
    /// The region in the subresource's texels: inside it, aligned to its blocks, not empty.
    pub region: Box3,
    /// The region covers the whole subresource.
    pub whole: bool,
}

impl<R> SubresourceClear<R> {
    /// The same clear naming its texture by `f(texture)`.
    pub fn map<S>(&self, f: impl FnOnce(&R) -> S) -> SubresourceClear<S> {
        SubresourceClear {
            texture: f(&self.texture),
            subresource: self.subresource,
            mip: self.mip,
            slice: self.slice,
            plane: self.plane,
            format: self.format,
            element: self.element,
            value: self.value,
            region: self.region,
            whole: self.whole,
        }
    }

    /// The value as a legacy view clear takes it (computed: most routes copy the element).
    pub fn view(&self) -> ViewClearValue {
        ViewClearValue::of(self.format, &self.value)
    }

    /// A plane of a depth or depth-stencil format.
    pub fn depth_stencil(&self) -> bool {
        self.format.has_depth()
    }

    /// The format of the views that clear this plane: the depth-stencil format of a depth
    /// plane, the clear format otherwise.
    pub fn view_format(&self) -> Option<Format> {
        if self.depth_stencil() {
            self.format.depth_stencil_member()
        } else {
            Some(self.format)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_view_values_keep_every_bit() {
        let v = ViewClearValue::of(Format::R32G32B32A32Uint, &ClearData::from_uints([u32::MAX, 1 << 25, 3, 0]));
        assert_eq!(v.integers, [u32::MAX, 1 << 25, 3, 0]);
        assert!(!v.exact, "2^32 - 1 is no f32");
        let v = ViewClearValue::of(Format::R8G8Sint, &ClearData::from_sints([-1, 300, 0, 0]));
        assert_eq!(v.integers[0], u32::MAX, "sign-extended");
        assert_eq!(v.integers[1], 300 & 0xff, "the stored low bits");
        let v = ViewClearValue::of(Format::R8G8B8A8Unorm, &ClearData::from_floats([2.0, 0.5, f32::NAN, 0.0]));
        assert_eq!(v.integers, [0; 4]);
        assert_eq!(v.color[0], 1.0);
        assert_eq!(v.color[2], 0.0);
    }

    #[test]
    fn depth_and_stencil_views_take_the_clamped_depth_and_low_stencil_bits() {
        let v = ViewClearValue::of(Format::D24UnormS8Uint, &ClearData::from_depth_stencil(1.5, 7));
        assert_eq!((v.depth, v.stencil, v.exact), (1.0, 7, true));
    }

    /// Validation refuses a clear whose plane has no encoding; no castable typed format that
    /// encodes plane 0 lacks a plane of the texture's format, so that refusal stays a guard.
    #[test]
    fn every_castable_clear_format_encodes_every_plane_of_its_texture() {
        let value = ClearData::default();
        for &texture in Format::ALL {
            for &format in Format::ALL {
                if format.is_typeless()
                    || !format.castable_from(texture)
                    || crate::encode_clear(format, 0, &value).is_none()
                {
                    continue;
                }
                for plane in 0..texture.plane_count() {
                    assert!(
                        crate::encode_clear(format, plane, &value).is_some(),
                        "{texture} as {format}, plane {plane}"
                    );
                }
            }
        }
    }

    #[test]
    fn elements_as_dwords_repeat_short_patterns() {
        let e = |b: &[u8]| ClearElement::from_bytes(b).expect("1 to 16 bytes");
        assert_eq!(e(&[0xab]).dwords(), Some(([0xabab_abab, 0, 0, 0], 1)));
        assert_eq!(e(&[1, 2]).dwords(), Some(([0x0201_0201, 0, 0, 0], 1)));
        assert_eq!(e(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).dwords().map(|d| d.1), Some(3));
        assert_eq!(e(&[1, 2, 3]).dwords(), None);
        assert!(ClearElement::from_bytes(&[]).is_none() && ClearElement::from_bytes(&[0; 17]).is_none());
    }
}

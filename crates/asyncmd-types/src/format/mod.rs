//! DXGI formats and the format table.

mod clear_encode;
pub(crate) use clear_encode::stored_integer_bits;
mod codec;
mod table;

pub use clear_encode::{
    draw_clear_color, draw_clear_depth, encode_clear, stored_integers, view_clear_color, view_clear_depth,
    view_clear_exact, ClearElement,
};
pub use codec::{decode_texel, encode_texel, Texel};
pub use table::Format;

/// How a format's components are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComponentClass {
    /// Bits without a type: usable only through a typed format of the same group.
    Typeless,
    /// IEEE floats (32, 16, 11 or 10 bits) or a block-compressed float format.
    Float,
    /// Unsigned normalized integers.
    Unorm,
    /// Signed normalized integers.
    Snorm,
    /// Unsigned integers.
    Uint,
    /// Signed integers.
    Sint,
    /// Unsigned normalized integers with the sRGB transfer curve on color channels.
    Srgb,
    /// Three 9-bit mantissas sharing one 5-bit exponent.
    SharedExp,
    /// A depth, or depth and stencil, format.
    DepthStencil,
    /// A video (YUV) format.
    Video,
}

/// Channel order of formats with uniform channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// R, G, B, A in memory order (only the first `count` exist).
    Rgba,
    /// B, G, R, A in memory order.
    Bgra,
    /// B, G, R and an unused byte.
    Bgrx,
    /// A single alpha channel.
    A,
}

/// How the bits of one element are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// No layout (`Format::Unknown`).
    None,
    /// `count` channels of `bits` bits each, in `swizzle` order.
    Channels {
        /// Number of channels stored.
        count: u8,
        /// Bits per channel: 8, 16 or 32.
        bits: u8,
        /// Memory order of the channels.
        swizzle: Swizzle,
    },
    /// 10-bit R, G, B and 2-bit A in one 32-bit word, R in the low bits.
    R10G10B10A2,
    /// 11-bit R and G and 10-bit B unsigned floats, R in the low bits.
    R11G11B10,
    /// 9-bit mantissas with a shared 5-bit exponent in the high bits.
    R9G9B9E5,
    /// 5-bit B, 6-bit G, 5-bit R, B in the low bits.
    B5G6R5,
    /// 5-bit B, G, R and a 1-bit A, B in the low bits.
    B5G5R5A1,
    /// 4-bit B, G, R, A, B in the low bits.
    B4G4R4A4,
    /// 4-bit A, B, G, R, A in the low bits.
    A4B4G4R4,
    /// 16-bit unorm depth.
    D16,
    /// 32-bit float depth.
    D32,
    /// 24-bit unorm depth and 8-bit stencil in one 32-bit word (stencil in the high byte).
    D24S8,
    /// 32-bit float depth, 8-bit stencil and 24 unused bits.
    D32S8,
    /// A 4x4 block-compressed format.
    Block,
    /// Two texels share one element (4:2:2 video or the RGBG formats).
    Packed422 {
        /// Bits per channel value.
        bits: u8,
    },
    /// Two planes: full-size luma, half-size (both directions) interleaved chroma.
    Planar420 {
        /// Bytes per luma value.
        bytes: u8,
    },
}

/// One row of the format table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatInfo {
    /// Bytes per element (one texel, or one block for block-compressed and packed formats).
    /// For planar formats: bytes per element of plane 0.
    pub bytes_per_block: u8,
    /// Texels per block horizontally (4 for BC, 2 for 4:2:2 packed formats, else 1).
    pub block_width: u8,
    /// Texels per block vertically.
    pub block_height: u8,
    /// How the components are interpreted.
    pub class: ComponentClass,
    /// How an element's bits are laid out.
    pub layout: Layout,
    /// The typeless format of the group this format belongs to (itself if it has no group).
    pub typeless: Format,
}

/// The memory shape of one plane of a format, as used for copies and footprints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneInfo {
    /// The format a footprint of this plane is described with.
    pub format: Format,
    /// Bytes per element of this plane.
    pub bytes_per_block: u32,
    /// Texels per element horizontally.
    pub block_width: u32,
    /// Texels per element vertically.
    pub block_height: u32,
    /// Horizontal subsampling divisor of the plane against the resource size.
    pub subsample_x: u32,
    /// Vertical subsampling divisor of the plane against the resource size.
    pub subsample_y: u32,
}

impl Format {
    /// The format's DXGI value.
    pub const fn dxgi(self) -> u32 {
        self as u32
    }

    /// Whether the format is a typeless format.
    pub fn is_typeless(self) -> bool {
        self.info().class == ComponentClass::Typeless
    }

    /// Whether the format is one of the depth or depth-stencil formats (not their typeless
    /// families or the SRV formats that read one plane).
    pub fn is_depth_stencil(self) -> bool {
        self.info().class == ComponentClass::DepthStencil
    }

    /// Whether a resource of this format has a depth plane (typeless families included).
    pub fn has_depth(self) -> bool {
        matches!(self.info().layout, Layout::D16 | Layout::D32 | Layout::D24S8 | Layout::D32S8)
    }

    /// Whether a resource of this format has a stencil plane.
    pub fn has_stencil(self) -> bool {
        matches!(self.info().layout, Layout::D24S8 | Layout::D32S8)
    }

    /// Whether the format is block-compressed (BC1–BC7).
    pub fn is_block_compressed(self) -> bool {
        self.info().layout == Layout::Block
    }

    /// Number of planes a resource of this format has.
    pub fn plane_count(self) -> u32 {
        match self.info().layout {
            Layout::D24S8 | Layout::D32S8 | Layout::Planar420 { .. } => 2,
            Layout::None => 0,
            _ => 1,
        }
    }

    /// The shape of one plane; `None` if the format has no such plane.
    pub fn plane(self, plane: u32) -> Option<PlaneInfo> {
        let info = self.info();
        let simple = |format: Format, bytes: u32| PlaneInfo {
            format,
            bytes_per_block: bytes,
            block_width: 1,
            block_height: 1,
            subsample_x: 1,
            subsample_y: 1,
        };
        match (info.layout, plane) {
            (Layout::None, _) => None,
            (Layout::D24S8 | Layout::D32S8, 0) => Some(simple(Format::R32Typeless, 4)),
            (Layout::D24S8 | Layout::D32S8, 1) => Some(simple(Format::R8Typeless, 1)),
            (Layout::Planar420 { bytes }, 0) => {
                Some(simple(if bytes == 1 { Format::R8Typeless } else { Format::R16Typeless }, bytes as u32))
            }
            (Layout::Planar420 { bytes }, 1) => Some(PlaneInfo {
                subsample_x: 2,
                subsample_y: 2,
                ..simple(if bytes == 1 { Format::R8G8Typeless } else { Format::R16G16Typeless }, 2 * bytes as u32)
            }),
            (_, 0) => Some(PlaneInfo {
                format: self,
                bytes_per_block: info.bytes_per_block as u32,
                block_width: info.block_width as u32,
                block_height: info.block_height as u32,
                subsample_x: 1,
                subsample_y: 1,
            }),
            _ => None,
        }
    }

    /// Whether two formats may be copied between: equal, or members of one typeless group.
    pub fn copy_compatible(self, other: Format) -> bool {
        self == other || self.info().typeless == other.info().typeless
    }

    /// Whether this format can be the view format of a resource created with `resource`:
    /// the same format, or a typed member of the resource's typeless group.
    pub fn castable_from(self, resource: Format) -> bool {
        self == resource || (resource.is_typeless() && self.info().typeless == resource.info().typeless)
    }

    /// Bytes of one element of plane 0 (texel, or block).
    pub fn bytes_per_block(self) -> u32 {
        self.info().bytes_per_block as u32
    }

    /// The number of stored channels (used by encoders and readback helpers).
    pub fn channel_count(self) -> u32 {
        match self.info().layout {
            Layout::None | Layout::Block => 0,
            Layout::Channels { count, .. } => count as u32,
            Layout::R10G10B10A2 | Layout::B5G5R5A1 | Layout::B4G4R4A4 | Layout::A4B4G4R4 => 4,
            Layout::R11G11B10 | Layout::R9G9B9E5 | Layout::B5G6R5 => 3,
            Layout::D16 | Layout::D32 => 1,
            Layout::D24S8 | Layout::D32S8 => 2,
            Layout::Packed422 { .. } | Layout::Planar420 { .. } => 3,
        }
    }

    /// The matching depth-stencil format for a format of a depth family (`R24G8_TYPELESS`
    /// gives `D24_UNORM_S8_UINT`, `R32_TYPELESS` gives `D32_FLOAT`), or `None`.
    pub fn depth_stencil_member(self) -> Option<Format> {
        match self {
            Format::D16Unorm | Format::R16Typeless => Some(Format::D16Unorm),
            Format::D32Float | Format::R32Typeless => Some(Format::D32Float),
            f if f.info().layout == Layout::D24S8 => Some(Format::D24UnormS8Uint),
            f if f.info().layout == Layout::D32S8 => Some(Format::D32FloatS8X24Uint),
            _ => None,
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.dxgi_name())
    }
}

#[cfg(test)]
mod tests;

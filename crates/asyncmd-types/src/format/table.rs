//! The format table: one row per [`Format`], with the DXGI value, block size and channel layout.

use super::{ComponentClass as C, FormatInfo, Layout as L, Swizzle as S};

macro_rules! format_table {
    ($( $(#[$doc:meta])* $name:ident = $value:literal, $bytes:literal, $bw:literal x $bh:literal, $class:ident, $layout:expr, $group:ident; )*) => {
        /// A DXGI format, with its DXGI numeric value.
        ///
        /// `DXGI_FORMAT_R8G8B8A8_UNORM` is [`Format::R8G8B8A8Unorm`]. [`Format::info`] gives the
        /// format table's row.
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub enum Format {
            $( $(#[$doc])* #[doc = concat!("`DXGI_FORMAT` value ", stringify!($value), ".")] $name = $value, )*
        }

        impl Format {
            /// Every format of the table, in DXGI order.
            pub const ALL: &'static [Format] = &[$(Format::$name),*];

            /// The format's row of the format table.
            pub const fn info(self) -> FormatInfo {
                match self {
                    $(Format::$name => FormatInfo {
                        bytes_per_block: $bytes,
                        block_width: $bw,
                        block_height: $bh,
                        class: C::$class,
                        layout: $layout,
                        typeless: Format::$group,
                    },)*
                }
            }

            /// The format with this DXGI value, if the table has it.
            pub fn from_dxgi(value: u32) -> Option<Format> {
                match value {
                    $($value => Some(Format::$name),)*
                    _ => None,
                }
            }

            /// The format's name in this crate, e.g. `R8G8B8A8Unorm` (`docs/d3d12-names.md` maps it).
            pub fn dxgi_name(self) -> &'static str {
                match self {
                    $(Format::$name => stringify!($name),)*
                }
            }
        }
    };
}

const fn ch(count: u8, bits: u8, swizzle: S) -> L {
    L::Channels { count, bits, swizzle }
}

format_table! {
    /// No format: a buffer, or "the resource's format" where an API allows it.
    #[default]
    Unknown = 0, 0, 1 x 1, Typeless, L::None, Unknown;
    R32G32B32A32Typeless = 1, 16, 1 x 1, Typeless, ch(4, 32, S::Rgba), R32G32B32A32Typeless;
    R32G32B32A32Float = 2, 16, 1 x 1, Float, ch(4, 32, S::Rgba), R32G32B32A32Typeless;
    R32G32B32A32Uint = 3, 16, 1 x 1, Uint, ch(4, 32, S::Rgba), R32G32B32A32Typeless;
    R32G32B32A32Sint = 4, 16, 1 x 1, Sint, ch(4, 32, S::Rgba), R32G32B32A32Typeless;
    R32G32B32Typeless = 5, 12, 1 x 1, Typeless, ch(3, 32, S::Rgba), R32G32B32Typeless;
    R32G32B32Float = 6, 12, 1 x 1, Float, ch(3, 32, S::Rgba), R32G32B32Typeless;
    R32G32B32Uint = 7, 12, 1 x 1, Uint, ch(3, 32, S::Rgba), R32G32B32Typeless;
    R32G32B32Sint = 8, 12, 1 x 1, Sint, ch(3, 32, S::Rgba), R32G32B32Typeless;
    R16G16B16A16Typeless = 9, 8, 1 x 1, Typeless, ch(4, 16, S::Rgba), R16G16B16A16Typeless;
    R16G16B16A16Float = 10, 8, 1 x 1, Float, ch(4, 16, S::Rgba), R16G16B16A16Typeless;
    R16G16B16A16Unorm = 11, 8, 1 x 1, Unorm, ch(4, 16, S::Rgba), R16G16B16A16Typeless;
    R16G16B16A16Uint = 12, 8, 1 x 1, Uint, ch(4, 16, S::Rgba), R16G16B16A16Typeless;
    R16G16B16A16Snorm = 13, 8, 1 x 1, Snorm, ch(4, 16, S::Rgba), R16G16B16A16Typeless;
    R16G16B16A16Sint = 14, 8, 1 x 1, Sint, ch(4, 16, S::Rgba), R16G16B16A16Typeless;
    R32G32Typeless = 15, 8, 1 x 1, Typeless, ch(2, 32, S::Rgba), R32G32Typeless;
    R32G32Float = 16, 8, 1 x 1, Float, ch(2, 32, S::Rgba), R32G32Typeless;
    R32G32Uint = 17, 8, 1 x 1, Uint, ch(2, 32, S::Rgba), R32G32Typeless;
    R32G32Sint = 18, 8, 1 x 1, Sint, ch(2, 32, S::Rgba), R32G32Typeless;
    R32G8X24Typeless = 19, 8, 1 x 1, Typeless, L::D32S8, R32G8X24Typeless;
    D32FloatS8X24Uint = 20, 8, 1 x 1, DepthStencil, L::D32S8, R32G8X24Typeless;
    R32FloatX8X24Typeless = 21, 8, 1 x 1, Float, L::D32S8, R32G8X24Typeless;
    X32TypelessG8X24Uint = 22, 8, 1 x 1, Uint, L::D32S8, R32G8X24Typeless;
    R10G10B10A2Typeless = 23, 4, 1 x 1, Typeless, L::R10G10B10A2, R10G10B10A2Typeless;
    R10G10B10A2Unorm = 24, 4, 1 x 1, Unorm, L::R10G10B10A2, R10G10B10A2Typeless;
    R10G10B10A2Uint = 25, 4, 1 x 1, Uint, L::R10G10B10A2, R10G10B10A2Typeless;
    R11G11B10Float = 26, 4, 1 x 1, Float, L::R11G11B10, R11G11B10Float;
    R8G8B8A8Typeless = 27, 4, 1 x 1, Typeless, ch(4, 8, S::Rgba), R8G8B8A8Typeless;
    R8G8B8A8Unorm = 28, 4, 1 x 1, Unorm, ch(4, 8, S::Rgba), R8G8B8A8Typeless;
    R8G8B8A8UnormSrgb = 29, 4, 1 x 1, Srgb, ch(4, 8, S::Rgba), R8G8B8A8Typeless;
    R8G8B8A8Uint = 30, 4, 1 x 1, Uint, ch(4, 8, S::Rgba), R8G8B8A8Typeless;
    R8G8B8A8Snorm = 31, 4, 1 x 1, Snorm, ch(4, 8, S::Rgba), R8G8B8A8Typeless;
    R8G8B8A8Sint = 32, 4, 1 x 1, Sint, ch(4, 8, S::Rgba), R8G8B8A8Typeless;
    R16G16Typeless = 33, 4, 1 x 1, Typeless, ch(2, 16, S::Rgba), R16G16Typeless;
    R16G16Float = 34, 4, 1 x 1, Float, ch(2, 16, S::Rgba), R16G16Typeless;
    R16G16Unorm = 35, 4, 1 x 1, Unorm, ch(2, 16, S::Rgba), R16G16Typeless;
    R16G16Uint = 36, 4, 1 x 1, Uint, ch(2, 16, S::Rgba), R16G16Typeless;
    R16G16Snorm = 37, 4, 1 x 1, Snorm, ch(2, 16, S::Rgba), R16G16Typeless;
    R16G16Sint = 38, 4, 1 x 1, Sint, ch(2, 16, S::Rgba), R16G16Typeless;
    R32Typeless = 39, 4, 1 x 1, Typeless, ch(1, 32, S::Rgba), R32Typeless;
    D32Float = 40, 4, 1 x 1, DepthStencil, L::D32, R32Typeless;
    R32Float = 41, 4, 1 x 1, Float, ch(1, 32, S::Rgba), R32Typeless;
    R32Uint = 42, 4, 1 x 1, Uint, ch(1, 32, S::Rgba), R32Typeless;
    R32Sint = 43, 4, 1 x 1, Sint, ch(1, 32, S::Rgba), R32Typeless;
    R24G8Typeless = 44, 4, 1 x 1, Typeless, L::D24S8, R24G8Typeless;
    D24UnormS8Uint = 45, 4, 1 x 1, DepthStencil, L::D24S8, R24G8Typeless;
    R24UnormX8Typeless = 46, 4, 1 x 1, Unorm, L::D24S8, R24G8Typeless;
    X24TypelessG8Uint = 47, 4, 1 x 1, Uint, L::D24S8, R24G8Typeless;
    R8G8Typeless = 48, 2, 1 x 1, Typeless, ch(2, 8, S::Rgba), R8G8Typeless;
    R8G8Unorm = 49, 2, 1 x 1, Unorm, ch(2, 8, S::Rgba), R8G8Typeless;
    R8G8Uint = 50, 2, 1 x 1, Uint, ch(2, 8, S::Rgba), R8G8Typeless;
    R8G8Snorm = 51, 2, 1 x 1, Snorm, ch(2, 8, S::Rgba), R8G8Typeless;
    R8G8Sint = 52, 2, 1 x 1, Sint, ch(2, 8, S::Rgba), R8G8Typeless;
    R16Typeless = 53, 2, 1 x 1, Typeless, ch(1, 16, S::Rgba), R16Typeless;
    R16Float = 54, 2, 1 x 1, Float, ch(1, 16, S::Rgba), R16Typeless;
    D16Unorm = 55, 2, 1 x 1, DepthStencil, L::D16, R16Typeless;
    R16Unorm = 56, 2, 1 x 1, Unorm, ch(1, 16, S::Rgba), R16Typeless;
    R16Uint = 57, 2, 1 x 1, Uint, ch(1, 16, S::Rgba), R16Typeless;
    R16Snorm = 58, 2, 1 x 1, Snorm, ch(1, 16, S::Rgba), R16Typeless;
    R16Sint = 59, 2, 1 x 1, Sint, ch(1, 16, S::Rgba), R16Typeless;
    R8Typeless = 60, 1, 1 x 1, Typeless, ch(1, 8, S::Rgba), R8Typeless;
    R8Unorm = 61, 1, 1 x 1, Unorm, ch(1, 8, S::Rgba), R8Typeless;
    R8Uint = 62, 1, 1 x 1, Uint, ch(1, 8, S::Rgba), R8Typeless;
    R8Snorm = 63, 1, 1 x 1, Snorm, ch(1, 8, S::Rgba), R8Typeless;
    R8Sint = 64, 1, 1 x 1, Sint, ch(1, 8, S::Rgba), R8Typeless;
    A8Unorm = 65, 1, 1 x 1, Unorm, ch(1, 8, S::A), A8Unorm;
    R9G9B9E5SharedExp = 67, 4, 1 x 1, SharedExp, L::R9G9B9E5, R9G9B9E5SharedExp;
    R8G8B8G8Unorm = 68, 4, 2 x 1, Unorm, L::Packed422 { bits: 8 }, R8G8B8G8Unorm;
    G8R8G8B8Unorm = 69, 4, 2 x 1, Unorm, L::Packed422 { bits: 8 }, G8R8G8B8Unorm;
    Bc1Typeless = 70, 8, 4 x 4, Typeless, L::Block, Bc1Typeless;
    Bc1Unorm = 71, 8, 4 x 4, Unorm, L::Block, Bc1Typeless;
    Bc1UnormSrgb = 72, 8, 4 x 4, Srgb, L::Block, Bc1Typeless;
    Bc2Typeless = 73, 16, 4 x 4, Typeless, L::Block, Bc2Typeless;
    Bc2Unorm = 74, 16, 4 x 4, Unorm, L::Block, Bc2Typeless;
    Bc2UnormSrgb = 75, 16, 4 x 4, Srgb, L::Block, Bc2Typeless;
    Bc3Typeless = 76, 16, 4 x 4, Typeless, L::Block, Bc3Typeless;
    Bc3Unorm = 77, 16, 4 x 4, Unorm, L::Block, Bc3Typeless;
    Bc3UnormSrgb = 78, 16, 4 x 4, Srgb, L::Block, Bc3Typeless;
    Bc4Typeless = 79, 8, 4 x 4, Typeless, L::Block, Bc4Typeless;
    Bc4Unorm = 80, 8, 4 x 4, Unorm, L::Block, Bc4Typeless;
    Bc4Snorm = 81, 8, 4 x 4, Snorm, L::Block, Bc4Typeless;
    Bc5Typeless = 82, 16, 4 x 4, Typeless, L::Block, Bc5Typeless;
    Bc5Unorm = 83, 16, 4 x 4, Unorm, L::Block, Bc5Typeless;
    Bc5Snorm = 84, 16, 4 x 4, Snorm, L::Block, Bc5Typeless;
    B5G6R5Unorm = 85, 2, 1 x 1, Unorm, L::B5G6R5, B5G6R5Unorm;
    B5G5R5A1Unorm = 86, 2, 1 x 1, Unorm, L::B5G5R5A1, B5G5R5A1Unorm;
    B8G8R8A8Unorm = 87, 4, 1 x 1, Unorm, ch(4, 8, S::Bgra), B8G8R8A8Typeless;
    B8G8R8X8Unorm = 88, 4, 1 x 1, Unorm, ch(4, 8, S::Bgrx), B8G8R8X8Typeless;
    B8G8R8A8Typeless = 90, 4, 1 x 1, Typeless, ch(4, 8, S::Bgra), B8G8R8A8Typeless;
    B8G8R8A8UnormSrgb = 91, 4, 1 x 1, Srgb, ch(4, 8, S::Bgra), B8G8R8A8Typeless;
    B8G8R8X8Typeless = 92, 4, 1 x 1, Typeless, ch(4, 8, S::Bgrx), B8G8R8X8Typeless;
    B8G8R8X8UnormSrgb = 93, 4, 1 x 1, Srgb, ch(4, 8, S::Bgrx), B8G8R8X8Typeless;
    Bc6hTypeless = 94, 16, 4 x 4, Typeless, L::Block, Bc6hTypeless;
    Bc6hUf16 = 95, 16, 4 x 4, Float, L::Block, Bc6hTypeless;
    Bc6hSf16 = 96, 16, 4 x 4, Float, L::Block, Bc6hTypeless;
    Bc7Typeless = 97, 16, 4 x 4, Typeless, L::Block, Bc7Typeless;
    Bc7Unorm = 98, 16, 4 x 4, Unorm, L::Block, Bc7Typeless;
    Bc7UnormSrgb = 99, 16, 4 x 4, Srgb, L::Block, Bc7Typeless;
    /// Two planes: 8-bit luma, then half-size interleaved 8-bit chroma.
    Nv12 = 103, 1, 1 x 1, Video, L::Planar420 { bytes: 1 }, Nv12;
    /// Two planes: 16-bit luma (10 bits used), then half-size interleaved 16-bit chroma.
    P010 = 104, 2, 1 x 1, Video, L::Planar420 { bytes: 2 }, P010;
    /// Two planes: 16-bit luma, then half-size interleaved 16-bit chroma.
    P016 = 105, 2, 1 x 1, Video, L::Planar420 { bytes: 2 }, P016;
    Yuy2 = 107, 4, 2 x 1, Video, L::Packed422 { bits: 8 }, Yuy2;
    Y210 = 108, 8, 2 x 1, Video, L::Packed422 { bits: 16 }, Y210;
    Y216 = 109, 8, 2 x 1, Video, L::Packed422 { bits: 16 }, Y216;
    B4G4R4A4Unorm = 115, 2, 1 x 1, Unorm, L::B4G4R4A4, B4G4R4A4Unorm;
    A4B4G4R4Unorm = 191, 2, 1 x 1, Unorm, L::A4B4G4R4, A4B4G4R4Unorm;
}

//! What each format supports on the reference device.

use asyncmd_ddi::{FormatCaps, FormatSupport};
use asyncmd_types::{encode_texel, ClearData, ComponentClass, Format, Layout};

/// Sample counts 1, 2, 4, 8 and 16.
const MSAA_COUNTS: u32 = 0b1_1111;

/// The reference device's support for `format`.
pub(crate) fn format_caps(format: Format) -> FormatCaps {
    let info = format.info();
    if format == Format::Unknown {
        return FormatCaps { support: FormatSupport::BUFFER, sample_counts: 1 };
    }
    let mut support = FormatSupport::TEXTURE;
    let mut sample_counts = 1;
    let encodable = encode_texel(format, &ClearData::default()).is_some();
    match info.class {
        ComponentClass::DepthStencil => {
            support |= FormatSupport::DEPTH_STENCIL | FormatSupport::MULTISAMPLE_RENDER_TARGET;
            sample_counts = MSAA_COUNTS;
        }
        ComponentClass::Float
        | ComponentClass::Unorm
        | ComponentClass::Snorm
        | ComponentClass::Srgb
        | ComponentClass::Uint
        | ComponentClass::Sint
            if encodable && !matches!(info.layout, Layout::D24S8 | Layout::D32S8) =>
        {
            support |= FormatSupport::BUFFER | FormatSupport::RENDER_TARGET | FormatSupport::MULTISAMPLE_RENDER_TARGET;
            sample_counts = MSAA_COUNTS;
            if !matches!(info.class, ComponentClass::Uint | ComponentClass::Sint) {
                support |= FormatSupport::MULTISAMPLE_RESOLVE;
            }
            if info.class != ComponentClass::Srgb {
                support |= FormatSupport::UNORDERED_ACCESS;
            }
        }
        ComponentClass::SharedExp => support |= FormatSupport::BUFFER,
        _ => {}
    }
    FormatCaps { support, sample_counts }
}

//! Conversions from D3D12's values to Vulkan's, in one place (wgpu-hal's `conv.rs` shape):
//! formats and their aspects, raw texel formats, image usage, layouts, pipeline state and
//! render-pass accesses.

use ash::vk;
use asyncmd_ddi::{ComparisonFunc, StencilFace, StencilOp};
use asyncmd_types::{BarrierLayout, BeginningAccess, EndingAccess, Format, Layout, ResourceDesc, ResourceFlags};

/// The Vulkan format of a DXGI format. Typeless formats map to a typed member of their group
/// (images of typeless formats are created mutable, so views may use any member).
pub(crate) fn vk_format(format: Format) -> Option<vk::Format> {
    use vk::Format as V;
    use Format as F;
    Some(match format {
        F::R32G32B32A32Typeless | F::R32G32B32A32Uint => V::R32G32B32A32_UINT,
        F::R32G32B32A32Float => V::R32G32B32A32_SFLOAT,
        F::R32G32B32A32Sint => V::R32G32B32A32_SINT,
        F::R32G32B32Typeless | F::R32G32B32Uint => V::R32G32B32_UINT,
        F::R32G32B32Float => V::R32G32B32_SFLOAT,
        F::R32G32B32Sint => V::R32G32B32_SINT,
        F::R16G16B16A16Typeless | F::R16G16B16A16Uint => V::R16G16B16A16_UINT,
        F::R16G16B16A16Float => V::R16G16B16A16_SFLOAT,
        F::R16G16B16A16Unorm => V::R16G16B16A16_UNORM,
        F::R16G16B16A16Snorm => V::R16G16B16A16_SNORM,
        F::R16G16B16A16Sint => V::R16G16B16A16_SINT,
        F::R32G32Typeless | F::R32G32Uint => V::R32G32_UINT,
        F::R32G32Float => V::R32G32_SFLOAT,
        F::R32G32Sint => V::R32G32_SINT,
        F::R32G8X24Typeless | F::D32FloatS8X24Uint | F::R32FloatX8X24Typeless | F::X32TypelessG8X24Uint => {
            V::D32_SFLOAT_S8_UINT
        }
        F::R10G10B10A2Typeless | F::R10G10B10A2Uint => V::A2B10G10R10_UINT_PACK32,
        F::R10G10B10A2Unorm => V::A2B10G10R10_UNORM_PACK32,
        F::R11G11B10Float => V::B10G11R11_UFLOAT_PACK32,
        F::R8G8B8A8Typeless | F::R8G8B8A8Uint => V::R8G8B8A8_UINT,
        F::R8G8B8A8Unorm => V::R8G8B8A8_UNORM,
        F::R8G8B8A8UnormSrgb => V::R8G8B8A8_SRGB,
        F::R8G8B8A8Snorm => V::R8G8B8A8_SNORM,
        F::R8G8B8A8Sint => V::R8G8B8A8_SINT,
        F::R16G16Typeless | F::R16G16Uint => V::R16G16_UINT,
        F::R16G16Float => V::R16G16_SFLOAT,
        F::R16G16Unorm => V::R16G16_UNORM,
        F::R16G16Snorm => V::R16G16_SNORM,
        F::R16G16Sint => V::R16G16_SINT,
        F::R32Typeless | F::R32Uint => V::R32_UINT,
        F::D32Float => V::D32_SFLOAT,
        F::R32Float => V::R32_SFLOAT,
        F::R32Sint => V::R32_SINT,
        F::R24G8Typeless | F::D24UnormS8Uint | F::R24UnormX8Typeless | F::X24TypelessG8Uint => V::D24_UNORM_S8_UINT,
        F::R8G8Typeless | F::R8G8Uint => V::R8G8_UINT,
        F::R8G8Unorm => V::R8G8_UNORM,
        F::R8G8Snorm => V::R8G8_SNORM,
        F::R8G8Sint => V::R8G8_SINT,
        F::R16Typeless | F::R16Uint => V::R16_UINT,
        F::R16Float => V::R16_SFLOAT,
        F::D16Unorm => V::D16_UNORM,
        F::R16Unorm => V::R16_UNORM,
        F::R16Snorm => V::R16_SNORM,
        F::R16Sint => V::R16_SINT,
        F::R8Typeless | F::R8Uint => V::R8_UINT,
        F::R8Unorm => V::R8_UNORM,
        F::R8Snorm => V::R8_SNORM,
        F::R8Sint => V::R8_SINT,
        F::A8Unorm => V::R8_UNORM,
        F::R9G9B9E5SharedExp => V::E5B9G9R9_UFLOAT_PACK32,
        F::R8G8B8G8Unorm => V::G8B8G8R8_422_UNORM,
        F::G8R8G8B8Unorm => V::B8G8R8G8_422_UNORM,
        F::Bc1Typeless | F::Bc1Unorm => V::BC1_RGBA_UNORM_BLOCK,
        F::Bc1UnormSrgb => V::BC1_RGBA_SRGB_BLOCK,
        F::Bc2Typeless | F::Bc2Unorm => V::BC2_UNORM_BLOCK,
        F::Bc2UnormSrgb => V::BC2_SRGB_BLOCK,
        F::Bc3Typeless | F::Bc3Unorm => V::BC3_UNORM_BLOCK,
        F::Bc3UnormSrgb => V::BC3_SRGB_BLOCK,
        F::Bc4Typeless | F::Bc4Unorm => V::BC4_UNORM_BLOCK,
        F::Bc4Snorm => V::BC4_SNORM_BLOCK,
        F::Bc5Typeless | F::Bc5Unorm => V::BC5_UNORM_BLOCK,
        F::Bc5Snorm => V::BC5_SNORM_BLOCK,
        F::B5G6R5Unorm => V::R5G6B5_UNORM_PACK16,
        F::B5G5R5A1Unorm => V::A1R5G5B5_UNORM_PACK16,
        F::B8G8R8A8Typeless | F::B8G8R8A8Unorm => V::B8G8R8A8_UNORM,
        F::B8G8R8A8UnormSrgb => V::B8G8R8A8_SRGB,
        F::B8G8R8X8Typeless | F::B8G8R8X8Unorm => V::B8G8R8A8_UNORM,
        F::B8G8R8X8UnormSrgb => V::B8G8R8A8_SRGB,
        F::Bc6hTypeless | F::Bc6hUf16 => V::BC6H_UFLOAT_BLOCK,
        F::Bc6hSf16 => V::BC6H_SFLOAT_BLOCK,
        F::Bc7Typeless | F::Bc7Unorm => V::BC7_UNORM_BLOCK,
        F::Bc7UnormSrgb => V::BC7_SRGB_BLOCK,
        F::Nv12 => V::G8_B8R8_2PLANE_420_UNORM,
        F::P010 => V::G10X6_B10X6R10X6_2PLANE_420_UNORM_3PACK16,
        F::P016 => V::G16_B16R16_2PLANE_420_UNORM,
        F::Yuy2 => V::G8B8G8R8_422_UNORM,
        F::Y210 => V::G10X6B10X6G10X6R10X6_422_UNORM_4PACK16,
        F::Y216 => V::G16B16G16R16_422_UNORM,
        F::B4G4R4A4Unorm => V::A4R4G4B4_UNORM_PACK16,
        F::A4B4G4R4Unorm => V::R4G4B4A4_UNORM_PACK16,
        F::Unknown => return None,
    })
}

/// The aspect of one plane of a format.
pub(crate) fn plane_aspect(format: Format, plane: u32) -> vk::ImageAspectFlags {
    match (format.info().layout, plane) {
        (Layout::D16 | Layout::D32, _) => vk::ImageAspectFlags::DEPTH,
        (Layout::D24S8 | Layout::D32S8, 0) => vk::ImageAspectFlags::DEPTH,
        (Layout::D24S8 | Layout::D32S8, _) => vk::ImageAspectFlags::STENCIL,
        (Layout::Planar420 { .. }, 0) => vk::ImageAspectFlags::PLANE_0,
        (Layout::Planar420 { .. }, _) => vk::ImageAspectFlags::PLANE_1,
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// Every aspect of a format.
pub(crate) fn all_aspects(format: Format) -> vk::ImageAspectFlags {
    (0..format.plane_count().max(1)).fold(vk::ImageAspectFlags::empty(), |a, p| a | plane_aspect(format, p))
}

/// Aspects used for barriers: planar colour formats are transitioned as COLOR.
pub(crate) fn barrier_aspects(format: Format) -> vk::ImageAspectFlags {
    match format.info().layout {
        Layout::Planar420 { .. } => vk::ImageAspectFlags::COLOR,
        _ => all_aspects(format),
    }
}

/// The aspects a depth-stencil clear of `flags` writes in an image of `format` (stencil only
/// where the format has it).
pub(crate) fn clear_aspects(format: Format, flags: asyncmd_types::ClearFlags) -> vk::ImageAspectFlags {
    let mut aspect = vk::ImageAspectFlags::empty();
    if flags.contains(asyncmd_types::ClearFlags::DEPTH) {
        aspect |= vk::ImageAspectFlags::DEPTH;
    }
    if flags.contains(asyncmd_types::ClearFlags::STENCIL) && format.has_stencil() {
        aspect |= vk::ImageAspectFlags::STENCIL;
    }
    aspect
}

/// A comparison function.
pub(crate) fn compare(f: ComparisonFunc) -> vk::CompareOp {
    match f {
        ComparisonFunc::Never => vk::CompareOp::NEVER,
        ComparisonFunc::Less => vk::CompareOp::LESS,
        ComparisonFunc::Equal => vk::CompareOp::EQUAL,
        ComparisonFunc::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
        ComparisonFunc::Greater => vk::CompareOp::GREATER,
        ComparisonFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
        ComparisonFunc::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
        ComparisonFunc::Always => vk::CompareOp::ALWAYS,
    }
}

/// A stencil operation.
pub(crate) fn stencil_op(op: StencilOp) -> vk::StencilOp {
    match op {
        StencilOp::Keep => vk::StencilOp::KEEP,
        StencilOp::Zero => vk::StencilOp::ZERO,
        StencilOp::Replace => vk::StencilOp::REPLACE,
        StencilOp::IncrSat => vk::StencilOp::INCREMENT_AND_CLAMP,
        StencilOp::DecrSat => vk::StencilOp::DECREMENT_AND_CLAMP,
        StencilOp::Invert => vk::StencilOp::INVERT,
        StencilOp::Incr => vk::StencilOp::INCREMENT_AND_WRAP,
        StencilOp::Decr => vk::StencilOp::DECREMENT_AND_WRAP,
    }
}

/// One face's stencil state, with the pipeline's read and write masks.
pub(crate) fn stencil_face(f: &StencilFace, read: u8, write: u8) -> vk::StencilOpState {
    vk::StencilOpState {
        fail_op: stencil_op(f.fail),
        pass_op: stencil_op(f.pass),
        depth_fail_op: stencil_op(f.depth_fail),
        compare_op: compare(f.func),
        compare_mask: read as u32,
        write_mask: write as u32,
        reference: 0,
    }
}

/// The primitive topology drawn for a pipeline's topology type (lists; D3D12's strips and
/// adjacency are given at the draw, which the runtime's shaders do not use).
pub(crate) fn topology(t: asyncmd_ddi::PrimitiveTopologyType) -> vk::PrimitiveTopology {
    match t {
        asyncmd_ddi::PrimitiveTopologyType::Point => vk::PrimitiveTopology::POINT_LIST,
        asyncmd_ddi::PrimitiveTopologyType::Line => vk::PrimitiveTopology::LINE_LIST,
        asyncmd_ddi::PrimitiveTopologyType::Triangle => vk::PrimitiveTopology::TRIANGLE_LIST,
    }
}

/// The load operation of a render pass's beginning access.
pub(crate) fn load_op(b: &BeginningAccess) -> vk::AttachmentLoadOp {
    match b {
        BeginningAccess::Discard => vk::AttachmentLoadOp::DONT_CARE,
        BeginningAccess::Clear(_) => vk::AttachmentLoadOp::CLEAR,
        _ => vk::AttachmentLoadOp::LOAD,
    }
}

/// The store operation of a render pass's ending access (resolves store, then resolve).
pub(crate) fn store_op<R>(e: &EndingAccess<R>) -> vk::AttachmentStoreOp {
    match e {
        EndingAccess::Discard => vk::AttachmentStoreOp::DONT_CARE,
        EndingAccess::NoAccess => vk::AttachmentStoreOp::NONE,
        _ => vk::AttachmentStoreOp::STORE,
    }
}

/// The usage a texture's flags give its image.
pub(crate) fn image_usage(desc: &ResourceDesc) -> vk::ImageUsageFlags {
    let mut usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    if desc.flags.contains(ResourceFlags::ALLOW_RENDER_TARGET) {
        usage |= vk::ImageUsageFlags::COLOR_ATTACHMENT;
    }
    if desc.flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL) {
        usage |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
    }
    if desc.flags.contains(ResourceFlags::ALLOW_UNORDERED_ACCESS) {
        usage |= vk::ImageUsageFlags::STORAGE;
    }
    usage
}

/// The unsigned-integer format of a texel size, for raw texel writes.
pub(crate) fn raw_uint_format(bytes: u32) -> Option<vk::Format> {
    RAW_UINT.iter().find(|r| r.0 == bytes).map(|r| r.1)
}

/// The unsigned-integer formats raw texels are read, written and drawn through: bytes per
/// texel, the Vulkan format, the D3D format.
const RAW_UINT: [(u32, vk::Format, Format); 5] = [
    (1, vk::Format::R8_UINT, Format::R8Uint),
    (2, vk::Format::R16_UINT, Format::R16Uint),
    (4, vk::Format::R32_UINT, Format::R32Uint),
    (8, vk::Format::R32G32_UINT, Format::R32G32Uint),
    (16, vk::Format::R32G32B32A32_UINT, Format::R32G32B32A32Uint),
];

/// Bytes of a texel of a raw view format.
pub(crate) fn raw_uint_bytes(raw: vk::Format) -> Option<u32> {
    RAW_UINT.iter().find(|r| r.1 == raw).map(|r| r.0)
}

/// The D3D format of a raw view format.
pub(crate) fn raw_uint_d3d(raw: vk::Format) -> Option<Format> {
    RAW_UINT.iter().find(|r| r.1 == raw).map(|r| r.2)
}

/// The Vulkan layout of a D3D12 layout. Every image lives in `GENERAL` (valid for every use,
/// and what vkd3d-proton does where layouts are unified); only `UNDEFINED` differs, and means
/// the contents may be discarded.
pub(crate) fn layout(l: BarrierLayout) -> vk::ImageLayout {
    match l {
        BarrierLayout::Undefined => vk::ImageLayout::UNDEFINED,
        _ => vk::ImageLayout::GENERAL,
    }
}

//! Resource descriptions and heap types.

use crate::Format;

/// The kind of resource (`D3D12_RESOURCE_DIMENSION`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceDimension {
    /// A linear buffer.
    Buffer = 1,
    /// A 1D texture (array).
    Texture1D = 2,
    /// A 2D texture (array), possibly multisampled.
    Texture2D = 3,
    /// A 3D texture.
    Texture3D = 4,
}

/// Texture memory layout (`D3D12_TEXTURE_LAYOUT`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureLayout {
    /// The driver's choice (textures).
    #[default]
    Unknown = 0,
    /// Row-major (buffers).
    RowMajor = 1,
    /// Undefined swizzle with 64 KiB tiles (reserved textures).
    UndefinedSwizzle64Kb = 2,
    /// Standard swizzle with 64 KiB tiles.
    StandardSwizzle64Kb = 3,
}

bitflags::bitflags! {
    /// What a resource may be used for (`D3D12_RESOURCE_FLAGS`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct ResourceFlags: u32 {
        /// `D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET`.
        const ALLOW_RENDER_TARGET = 0x1;
        /// `D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL`.
        const ALLOW_DEPTH_STENCIL = 0x2;
        /// `D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS`.
        const ALLOW_UNORDERED_ACCESS = 0x4;
        /// `D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE`.
        const DENY_SHADER_RESOURCE = 0x8;
        /// `D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER`.
        const ALLOW_CROSS_ADAPTER = 0x10;
        /// `D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS`.
        const ALLOW_SIMULTANEOUS_ACCESS = 0x20;
    }
}

bitflags::bitflags! {
    /// What a command buffer's `transfer` may do with a resource.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct ResourceUsage: u32 {
        /// The resource may be a transfer's source.
        const TRANSFER_SOURCE = 0x1;
        /// The resource may be a transfer's destination.
        const TRANSFER_DESTINATION = 0x2;
        /// Both: what a resource has unless its description says otherwise.
        const DEFAULT = Self::TRANSFER_SOURCE.bits() | Self::TRANSFER_DESTINATION.bits();
    }
}

impl Default for ResourceUsage {
    fn default() -> Self {
        ResourceUsage::DEFAULT
    }
}

/// Multisampling of a texture (`DXGI_SAMPLE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SampleDesc {
    /// Samples per pixel (1 for single-sampled).
    pub count: u32,
    /// Quality level (0 for the standard pattern).
    pub quality: u32,
}

impl Default for SampleDesc {
    fn default() -> Self {
        Self { count: 1, quality: 0 }
    }
}

/// Where a committed resource's memory lives (`D3D12_HEAP_TYPE`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HeapType {
    /// GPU memory, not CPU-visible.
    #[default]
    Default = 1,
    /// CPU-writable memory the GPU reads.
    Upload = 2,
    /// CPU-readable memory the GPU writes.
    Readback = 3,
}

/// A resource description (`D3D12_RESOURCE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResourceDesc {
    /// Buffer or texture dimension.
    pub dimension: ResourceDimension,
    /// Placement alignment (0 = default).
    pub alignment: u64,
    /// Bytes for buffers, texels for textures.
    pub width: u64,
    /// Texels (1 for buffers and 1D textures).
    pub height: u32,
    /// Depth of a 3D texture, or array size of 1D/2D textures.
    pub depth_or_array_size: u16,
    /// Mip levels (0 = the full chain).
    pub mip_levels: u16,
    /// Texel format (`Unknown` for buffers).
    pub format: Format,
    /// Multisampling.
    pub sample_desc: SampleDesc,
    /// Memory layout.
    pub layout: TextureLayout,
    /// Usage flags.
    pub flags: ResourceFlags,
    /// What command buffers' `transfer` may do with the resource (not a D3D12 field: the
    /// command-buffer layer checks it on every device, as Vulkan needs it). Ignored by the
    /// D3D12-shaped core.
    pub usage: ResourceUsage,
}

impl ResourceDesc {
    /// A buffer of `size` bytes.
    pub fn buffer(size: u64) -> Self {
        Self {
            dimension: ResourceDimension::Buffer,
            alignment: 0,
            width: size,
            height: 1,
            depth_or_array_size: 1,
            mip_levels: 1,
            format: Format::Unknown,
            sample_desc: SampleDesc::default(),
            layout: TextureLayout::RowMajor,
            flags: ResourceFlags::empty(),
            usage: ResourceUsage::DEFAULT,
        }
    }

    /// A single-mip, single-slice 2D texture.
    pub fn tex2d(format: Format, width: u32, height: u32) -> Self {
        Self {
            dimension: ResourceDimension::Texture2D,
            alignment: 0,
            width: width as u64,
            height,
            depth_or_array_size: 1,
            mip_levels: 1,
            format,
            sample_desc: SampleDesc::default(),
            layout: TextureLayout::Unknown,
            flags: ResourceFlags::empty(),
            usage: ResourceUsage::DEFAULT,
        }
    }

    /// A single-mip 1D texture.
    pub fn tex1d(format: Format, width: u32) -> Self {
        Self { dimension: ResourceDimension::Texture1D, ..Self::tex2d(format, width, 1) }
    }

    /// A single-mip 3D texture.
    pub fn tex3d(format: Format, width: u32, height: u32, depth: u16) -> Self {
        Self {
            dimension: ResourceDimension::Texture3D,
            depth_or_array_size: depth,
            ..Self::tex2d(format, width, height)
        }
    }

    /// This description with `mips` mip levels.
    pub fn with_mips(mut self, mips: u16) -> Self {
        self.mip_levels = mips;
        self
    }

    /// This description with `size` array slices (or depth for 3D).
    pub fn with_array(mut self, size: u16) -> Self {
        self.depth_or_array_size = size;
        self
    }

    /// This description with `count` samples per pixel.
    pub fn with_samples(mut self, count: u32, quality: u32) -> Self {
        self.sample_desc = SampleDesc { count, quality };
        self
    }

    /// This description with `flags` added.
    pub fn with_flags(mut self, flags: ResourceFlags) -> Self {
        self.flags |= flags;
        self
    }

    /// This description with transfer usage `usage` (in place of the default, both).
    pub fn with_usage(mut self, usage: ResourceUsage) -> Self {
        self.usage = usage;
        self
    }

    /// Whether this describes a buffer.
    pub fn is_buffer(&self) -> bool {
        self.dimension == ResourceDimension::Buffer
    }

    /// Whether this describes a multisampled texture.
    pub fn is_msaa(&self) -> bool {
        self.sample_desc.count > 1
    }

    /// Mip levels, with 0 resolved to the full chain.
    pub fn mip_count(&self) -> u32 {
        if self.mip_levels == 0 {
            full_mip_chain(self.width, self.height, self.depth())
        } else {
            self.mip_levels as u32
        }
    }

    /// Array slices (1 for 3D textures and buffers).
    pub fn array_size(&self) -> u32 {
        match self.dimension {
            ResourceDimension::Texture3D | ResourceDimension::Buffer => 1,
            _ => self.depth_or_array_size as u32,
        }
    }

    /// Depth of mip 0 (1 unless 3D).
    pub fn depth(&self) -> u32 {
        if self.dimension == ResourceDimension::Texture3D {
            self.depth_or_array_size as u32
        } else {
            1
        }
    }

    /// Planes of the format (1 for buffers).
    pub fn plane_count(&self) -> u32 {
        if self.is_buffer() {
            1
        } else {
            self.format.plane_count().max(1)
        }
    }

    /// Number of subresources: mips × slices × planes.
    pub fn subresource_count(&self) -> u32 {
        if self.is_buffer() {
            1
        } else {
            self.mip_count() * self.array_size() * self.plane_count()
        }
    }

    /// Checks the description the way resource creation does; the error names the rule.
    pub fn validate(&self) -> Result<(), &'static str> {
        if self.width == 0 || self.height == 0 || self.depth_or_array_size == 0 {
            return Err("width, height and depth or array size must be non-zero");
        }
        match self.dimension {
            ResourceDimension::Buffer => {
                if self.format != Format::Unknown {
                    return Err("a buffer's format must be UNKNOWN");
                }
                if self.height != 1 || self.depth_or_array_size != 1 || self.mip_levels != 1 {
                    return Err("a buffer has height 1, depth or array size 1 and 1 mip level");
                }
                if self.sample_desc.count != 1 {
                    return Err("a buffer cannot be multisampled");
                }
                if self.flags.intersects(ResourceFlags::ALLOW_RENDER_TARGET | ResourceFlags::ALLOW_DEPTH_STENCIL) {
                    return Err("a buffer cannot allow render target or depth stencil");
                }
                return Ok(());
            }
            ResourceDimension::Texture1D if self.height != 1 => return Err("a 1D texture has height 1"),
            _ => {}
        }
        if self.format == Format::Unknown {
            return Err("a texture needs a format");
        }
        if self.width > u32::MAX as u64 {
            return Err("texture width exceeds 32 bits");
        }
        if self.width > 16384 || self.height > 16384 {
            return Err("texture width and height are limited to 16384");
        }
        // D3D12_REQ_TEXTURE3D_U_V_OR_W_DIMENSION and D3D12_REQ_TEXTURE2D_ARRAY_AXIS_DIMENSION.
        if self.dimension == ResourceDimension::Texture3D
            && (self.width > 2048 || self.height > 2048 || self.depth() > 2048)
        {
            return Err("3D texture width, height and depth are limited to 2048");
        }
        if self.array_size() > 2048 {
            return Err("texture arrays are limited to 2048 slices");
        }
        if self.mip_count() > full_mip_chain(self.width, self.height, self.depth()) {
            return Err("more mip levels than the size allows");
        }
        let info = self.format.info();
        if (info.block_width > 1 || info.block_height > 1)
            && (!self.width.is_multiple_of(info.block_width as u64)
                || !self.height.is_multiple_of(info.block_height as u32))
        {
            return Err("width and height of a block format must be multiples of the block size");
        }
        if let crate::Layout::Planar420 { .. } = info.layout {
            if self.dimension != ResourceDimension::Texture2D {
                return Err("a 4:2:0 format makes 2D textures only");
            }
            if !self.width.is_multiple_of(2) || !self.height.is_multiple_of(2) {
                return Err("a 4:2:0 format needs even width and height");
            }
            if self.mip_count() != 1 {
                return Err("a 4:2:0 format has a single mip level");
            }
        }
        let samples = self.sample_desc.count;
        if samples == 0 || samples > 32 || !samples.is_power_of_two() {
            return Err("sample count must be 1, 2, 4, 8, 16 or 32");
        }
        if samples > 1 {
            if self.dimension != ResourceDimension::Texture2D {
                return Err("only 2D textures can be multisampled");
            }
            if self.mip_count() != 1 {
                return Err("a multisampled texture has a single mip level");
            }
            if self.format.is_block_compressed() {
                return Err("block-compressed formats cannot be multisampled");
            }
        }
        if self.sample_desc.count == 1 && self.sample_desc.quality != 0 {
            return Err("sample quality must be 0 for single-sampled textures");
        }
        let depth_family = self.format.has_depth();
        if self.flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL) {
            if !depth_family && self.format.depth_stencil_member().is_none() {
                return Err("ALLOW_DEPTH_STENCIL needs a depth format");
            }
            if self.dimension == ResourceDimension::Texture3D {
                return Err("a 3D texture cannot allow depth stencil");
            }
            if self.flags.intersects(ResourceFlags::ALLOW_RENDER_TARGET | ResourceFlags::ALLOW_UNORDERED_ACCESS) {
                return Err("ALLOW_DEPTH_STENCIL excludes render target and unordered access");
            }
            if self.flags.contains(ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS) {
                return Err("ALLOW_DEPTH_STENCIL excludes simultaneous access");
            }
        }
        if self.flags.contains(ResourceFlags::ALLOW_RENDER_TARGET)
            && (depth_family || self.format.is_block_compressed())
        {
            return Err("ALLOW_RENDER_TARGET needs a renderable colour format");
        }
        if self.flags.contains(ResourceFlags::ALLOW_UNORDERED_ACCESS) && samples > 1 {
            return Err("a multisampled texture cannot allow unordered access");
        }
        if self.subresource_count() > crate::REQ_SUBRESOURCES {
            return Err("more than 30720 subresources");
        }
        Ok(())
    }
}

/// Levels of a full mip chain for the given mip-0 size.
pub fn full_mip_chain(width: u64, height: u32, depth: u32) -> u32 {
    let max = width.max(height as u64).max(depth as u64).max(1);
    64 - max.leading_zeros()
}

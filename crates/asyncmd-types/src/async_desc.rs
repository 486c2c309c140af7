//! Descriptions used by the ten Async Commands, generic over the resource handle `R`
//! (`&Resource` in the public API, an id at the DDI).

use crate::{Box3, ClearData, Format, PlacedSubresourceFootprint};

/// One side of a texture copy (`D3D12_TEXTURE_COPY_LOCATION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureCopyLocation<R> {
    /// The texture, or the buffer of a placed footprint.
    pub resource: R,
    /// Which part of it.
    pub kind: CopyLocationKind,
}

/// How a [`TextureCopyLocation`] selects its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyLocationKind {
    /// A texture subresource.
    Subresource(u32),
    /// A footprint in a buffer.
    PlacedFootprint(PlacedSubresourceFootprint),
}

impl<R> TextureCopyLocation<R> {
    /// A texture subresource.
    pub fn subresource(resource: R, index: u32) -> Self {
        Self { resource, kind: CopyLocationKind::Subresource(index) }
    }

    /// A placed footprint in a buffer.
    pub fn footprint(resource: R, footprint: PlacedSubresourceFootprint) -> Self {
        Self { resource, kind: CopyLocationKind::PlacedFootprint(footprint) }
    }

    /// The same location with the resource handle mapped through `f`.
    pub fn map<S>(&self, f: impl FnOnce(&R) -> S) -> TextureCopyLocation<S> {
        TextureCopyLocation { resource: f(&self.resource), kind: self.kind }
    }
}

/// One region of a texture copy (`D3D12_TEXTURE_COPY_REGION`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TextureCopyRegion {
    /// Destination x (texels, or bytes for a buffer destination through its footprint).
    pub dest_x: u32,
    /// Destination y.
    pub dest_y: u32,
    /// Destination z.
    pub dest_z: u32,
    /// Source box; `None` copies the whole source.
    pub source_box: Option<Box3>,
}

/// Direction and endpoints of one texture copy description (`D3D12_TEXTURE_COPY_DESC`'s union).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureCopyKind<R> {
    /// `TEXTURE_TO_TEXTURE`.
    TextureToTexture {
        /// Destination texture.
        dest: R,
        /// Destination subresource.
        dest_subresource: u32,
        /// Source texture.
        source: R,
        /// Source subresource.
        source_subresource: u32,
    },
    /// `BUFFER_TO_TEXTURE`.
    BufferToTexture {
        /// Source buffer.
        buffer: R,
        /// Destination texture.
        texture: R,
        /// Destination subresource.
        subresource: u32,
        /// Where the data sits in the buffer.
        footprint: PlacedSubresourceFootprint,
    },
    /// `TEXTURE_TO_BUFFER`.
    TextureToBuffer {
        /// Destination buffer.
        buffer: R,
        /// Source texture.
        texture: R,
        /// Source subresource.
        subresource: u32,
        /// Where the data goes in the buffer.
        footprint: PlacedSubresourceFootprint,
    },
}

impl<R> TextureCopyKind<R> {
    /// The same description over other handles.
    pub fn map<S>(&self, f: impl Fn(&R) -> S) -> TextureCopyKind<S> {
        match self {
            TextureCopyKind::TextureToTexture { dest, dest_subresource, source, source_subresource } => {
                TextureCopyKind::TextureToTexture {
                    dest: f(dest),
                    dest_subresource: *dest_subresource,
                    source: f(source),
                    source_subresource: *source_subresource,
                }
            }
            TextureCopyKind::BufferToTexture { buffer, texture, subresource, footprint } => {
                TextureCopyKind::BufferToTexture {
                    buffer: f(buffer),
                    texture: f(texture),
                    subresource: *subresource,
                    footprint: *footprint,
                }
            }
            TextureCopyKind::TextureToBuffer { buffer, texture, subresource, footprint } => {
                TextureCopyKind::TextureToBuffer {
                    buffer: f(buffer),
                    texture: f(texture),
                    subresource: *subresource,
                    footprint: *footprint,
                }
            }
        }
    }
}

impl<R: Copy> TextureCopyKind<R> {
    /// The destination and source locations this description stands for.
    pub fn locations(&self) -> (TextureCopyLocation<R>, TextureCopyLocation<R>) {
        match *self {
            TextureCopyKind::TextureToTexture { dest, dest_subresource, source, source_subresource } => (
                TextureCopyLocation::subresource(dest, dest_subresource),
                TextureCopyLocation::subresource(source, source_subresource),
            ),
            TextureCopyKind::BufferToTexture { buffer, texture, subresource, footprint } => (
                TextureCopyLocation::subresource(texture, subresource),
                TextureCopyLocation::footprint(buffer, footprint),
            ),
            TextureCopyKind::TextureToBuffer { buffer, texture, subresource, footprint } => (
                TextureCopyLocation::footprint(buffer, footprint),
                TextureCopyLocation::subresource(texture, subresource),
            ),
        }
    }
}

/// One description of `copy_texture_regions` (`D3D12_TEXTURE_COPY_DESC`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextureCopyDesc<R> {
    /// Endpoints.
    pub kind: TextureCopyKind<R>,
    /// Regions to copy.
    pub regions: Vec<TextureCopyRegion>,
}

/// One texture clear of `clear_texture_subresources` (`D3D12_CLEAR_TEXTURE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClearTextureDesc<R> {
    /// The texture.
    pub texture: R,
    /// Subresource, or [`ALL_SUBRESOURCES`] for all.
    pub subresource: u32,
    /// The value, interpreted by the format's class.
    pub clear_value: ClearData,
    /// `Unknown` for the resource's format.
    pub format: Format,
    /// Region; `None` for the whole subresource.
    pub region: Option<Box3>,
}

/// `0xFFFFFFFF`: every subresource.
pub const ALL_SUBRESOURCES: u32 = 0xFFFF_FFFF;

/// One fill of `fill_buffers` (`D3D12_FILL_BUFFER_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FillBufferDesc<R> {
    /// The buffer.
    pub buffer: R,
    /// Byte offset of the first pattern.
    pub offset: u64,
    /// The value (raw bytes, or a formatted value).
    pub fill_value: ClearData,
    /// `Unknown` for a raw pattern.
    pub format: Format,
    /// Raw pattern size (1, 2, 4, 8, 12, 16), 0 with a format.
    pub raw_pattern_size: u32,
    /// Patterns written back to back.
    pub repeat_count: u32,
}

/// One buffer copy of `copy_buffer_regions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferCopyRegion<R> {
    /// Destination buffer.
    pub dest: R,
    /// Destination offset.
    pub dest_offset: u64,
    /// Source buffer.
    pub source: R,
    /// Source offset.
    pub source_offset: u64,
    /// Bytes.
    pub size: u64,
}

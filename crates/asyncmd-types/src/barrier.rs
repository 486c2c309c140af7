//! Enhanced barriers: sync, access and layout values with their real numbers, the three barrier
//! kinds, and the compatibility rules between them.

use crate::CommandListType;

bitflags::bitflags! {
    /// Pipeline scopes a barrier waits for or blocks (`D3D12_BARRIER_SYNC`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct BarrierSync: u32 {
        /// `ALL`: every scope.
        const ALL = 0x1;
        /// `DRAW`: every draw stage.
        const DRAW = 0x2;
        /// `INDEX_INPUT`.
        const INDEX_INPUT = 0x4;
        /// `VERTEX_SHADING`.
        const VERTEX_SHADING = 0x8;
        /// `PIXEL_SHADING`.
        const PIXEL_SHADING = 0x10;
        /// `DEPTH_STENCIL`.
        const DEPTH_STENCIL = 0x20;
        /// `RENDER_TARGET`.
        const RENDER_TARGET = 0x40;
        /// `COMPUTE_SHADING`.
        const COMPUTE_SHADING = 0x80;
        /// `RAYTRACING`.
        const RAYTRACING = 0x100;
        /// `COPY`.
        const COPY = 0x200;
        /// `RESOLVE`.
        const RESOLVE = 0x400;
        /// `EXECUTE_INDIRECT` (also `PREDICATION`).
        const EXECUTE_INDIRECT = 0x800;
        /// `PREDICATION` (same bit as `EXECUTE_INDIRECT`).
        const PREDICATION = 0x800;
        /// `ALL_SHADING`.
        const ALL_SHADING = 0x1000;
        /// `NON_PIXEL_SHADING`.
        const NON_PIXEL_SHADING = 0x2000;
        /// `EMIT_RAYTRACING_ACCELERATION_STRUCTURE_POSTBUILD_INFO`.
        const EMIT_RAYTRACING_ACCELERATION_STRUCTURE_POSTBUILD_INFO = 0x4000;
        /// `CLEAR_UNORDERED_ACCESS_VIEW`.
        const CLEAR_UNORDERED_ACCESS_VIEW = 0x8000;
        /// `VIDEO_DECODE`.
        const VIDEO_DECODE = 0x10_0000;
        /// `VIDEO_PROCESS`.
        const VIDEO_PROCESS = 0x20_0000;
        /// `VIDEO_ENCODE`.
        const VIDEO_ENCODE = 0x40_0000;
        /// `BUILD_RAYTRACING_ACCELERATION_STRUCTURE`.
        const BUILD_RAYTRACING_ACCELERATION_STRUCTURE = 0x80_0000;
        /// `COPY_RAYTRACING_ACCELERATION_STRUCTURE`.
        const COPY_RAYTRACING_ACCELERATION_STRUCTURE = 0x100_0000;
        /// `SPLIT`: one half of a split barrier.
        const SPLIT = 0x8000_0000;
    }
}

impl BarrierSync {
    /// `D3D12_BARRIER_SYNC_NONE`.
    pub const NONE: BarrierSync = BarrierSync::empty();

    /// Whether the value covers `scope` directly or through an aggregate (ALL, DRAW,
    /// ALL_SHADING, NON_PIXEL_SHADING).
    pub fn covers(self, scope: BarrierSync) -> bool {
        self.expand().contains(scope.expand())
    }

    /// The value with its aggregates expanded into the scopes they stand for.
    pub fn expand(self) -> BarrierSync {
        if self.contains(BarrierSync::ALL) {
            return BarrierSync::all() & !BarrierSync::SPLIT;
        }
        let mut s = self;
        if s.contains(BarrierSync::DRAW) {
            s |= BarrierSync::INDEX_INPUT
                | BarrierSync::VERTEX_SHADING
                | BarrierSync::PIXEL_SHADING
                | BarrierSync::DEPTH_STENCIL
                | BarrierSync::RENDER_TARGET;
        }
        if s.contains(BarrierSync::ALL_SHADING) {
            s |= BarrierSync::VERTEX_SHADING | BarrierSync::PIXEL_SHADING | BarrierSync::COMPUTE_SHADING;
        }
        if s.contains(BarrierSync::NON_PIXEL_SHADING) {
            s |= BarrierSync::VERTEX_SHADING | BarrierSync::COMPUTE_SHADING;
        }
        s
    }
}

bitflags::bitflags! {
    /// Kinds of memory access a barrier orders (`D3D12_BARRIER_ACCESS`).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct BarrierAccess: u32 {
        /// `VERTEX_BUFFER`.
        const VERTEX_BUFFER = 0x1;
        /// `CONSTANT_BUFFER`.
        const CONSTANT_BUFFER = 0x2;
        /// `INDEX_BUFFER`.
        const INDEX_BUFFER = 0x4;
        /// `RENDER_TARGET`.
        const RENDER_TARGET = 0x8;
        /// `UNORDERED_ACCESS`.
        const UNORDERED_ACCESS = 0x10;
        /// `DEPTH_STENCIL_WRITE`.
        const DEPTH_STENCIL_WRITE = 0x20;
        /// `DEPTH_STENCIL_READ`.
        const DEPTH_STENCIL_READ = 0x40;
        /// `SHADER_RESOURCE`.
        const SHADER_RESOURCE = 0x80;
        /// `STREAM_OUTPUT`.
        const STREAM_OUTPUT = 0x100;
        /// `INDIRECT_ARGUMENT` (also `PREDICATION`).
        const INDIRECT_ARGUMENT = 0x200;
        /// `PREDICATION` (same bit as `INDIRECT_ARGUMENT`).
        const PREDICATION = 0x200;
        /// `COPY_DEST`.
        const COPY_DEST = 0x400;
        /// `COPY_SOURCE`.
        const COPY_SOURCE = 0x800;
        /// `RESOLVE_DEST`.
        const RESOLVE_DEST = 0x1000;
        /// `RESOLVE_SOURCE`.
        const RESOLVE_SOURCE = 0x2000;
        /// `RAYTRACING_ACCELERATION_STRUCTURE_READ`.
        const RAYTRACING_ACCELERATION_STRUCTURE_READ = 0x4000;
        /// `RAYTRACING_ACCELERATION_STRUCTURE_WRITE`.
        const RAYTRACING_ACCELERATION_STRUCTURE_WRITE = 0x8000;
        /// `SHADING_RATE_SOURCE`.
        const SHADING_RATE_SOURCE = 0x1_0000;
        /// `VIDEO_DECODE_READ`.
        const VIDEO_DECODE_READ = 0x2_0000;
        /// `VIDEO_DECODE_WRITE`.
        const VIDEO_DECODE_WRITE = 0x4_0000;
        /// `VIDEO_PROCESS_READ`.
        const VIDEO_PROCESS_READ = 0x8_0000;
        /// `VIDEO_PROCESS_WRITE`.
        const VIDEO_PROCESS_WRITE = 0x10_0000;
        /// `VIDEO_ENCODE_READ`.
        const VIDEO_ENCODE_READ = 0x20_0000;
        /// `VIDEO_ENCODE_WRITE`.
        const VIDEO_ENCODE_WRITE = 0x40_0000;
        /// `NO_ACCESS`: the resource is not accessed in this scope.
        const NO_ACCESS = 0x8000_0000;
    }
}

impl BarrierAccess {
    /// `D3D12_BARRIER_ACCESS_COMMON`: any access the layout allows.
    pub const COMMON: BarrierAccess = BarrierAccess::empty();

    /// The sync scopes an access bit is legal with (ALL is always legal). `None` means the
    /// access needs no particular scope.
    fn required_scope(bit: BarrierAccess) -> Option<BarrierSync> {
        Some(match bit {
            b if b == BarrierAccess::COPY_DEST || b == BarrierAccess::COPY_SOURCE => BarrierSync::COPY,
            b if b == BarrierAccess::RESOLVE_DEST || b == BarrierAccess::RESOLVE_SOURCE => BarrierSync::RESOLVE,
            b if b == BarrierAccess::RENDER_TARGET => BarrierSync::RENDER_TARGET,
            b if b == BarrierAccess::DEPTH_STENCIL_WRITE || b == BarrierAccess::DEPTH_STENCIL_READ => {
                BarrierSync::DEPTH_STENCIL
            }
            _ => return None,
        })
    }

    /// Whether every access bit has a matching sync scope in `sync` (the "access needs
    /// matching sync" rule). `NO_ACCESS` and `COMMON` match anything.
    pub fn compatible_with_sync(self, sync: BarrierSync) -> bool {
        if self.contains(BarrierAccess::NO_ACCESS) || self.is_empty() {
            return true;
        }
        let expanded = sync.expand();
        self.iter().all(|bit| match Self::required_scope(bit) {
            Some(scope) => expanded.contains(scope),
            None => true,
        })
    }
}

/// Texture memory layouts (`D3D12_BARRIER_LAYOUT`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BarrierLayout {
    /// Contents are undefined (`0xFFFFFFFF`).
    Undefined = 0xFFFF_FFFF,
    /// `COMMON` (also `PRESENT`).
    Common = 0,
    GenericRead = 1,
    RenderTarget = 2,
    UnorderedAccess = 3,
    DepthStencilWrite = 4,
    DepthStencilRead = 5,
    ShaderResource = 6,
    CopySource = 7,
    CopyDest = 8,
    ResolveSource = 9,
    ResolveDest = 10,
    ShadingRateSource = 11,
    VideoDecodeRead = 12,
    VideoDecodeWrite = 13,
    VideoProcessRead = 14,
    VideoProcessWrite = 15,
    VideoEncodeRead = 16,
    VideoEncodeWrite = 17,
    DirectQueueCommon = 18,
    DirectQueueGenericRead = 19,
    DirectQueueUnorderedAccess = 20,
    DirectQueueShaderResource = 21,
    DirectQueueCopySource = 22,
    DirectQueueCopyDest = 23,
    ComputeQueueCommon = 24,
    ComputeQueueGenericRead = 25,
    ComputeQueueUnorderedAccess = 26,
    ComputeQueueShaderResource = 27,
    ComputeQueueCopySource = 28,
    ComputeQueueCopyDest = 29,
    DirectQueueGenericReadComputeQueueAccessible = 31,
}

impl BarrierLayout {
    /// `PRESENT`, the same value as `COMMON`.
    pub const PRESENT: BarrierLayout = BarrierLayout::Common;

    /// The access bits a subresource in this layout may be accessed with.
    pub fn allowed_access(self) -> BarrierAccess {
        use BarrierAccess as A;
        use BarrierLayout as L;
        let common = A::SHADER_RESOURCE | A::COPY_SOURCE | A::COPY_DEST;
        let generic_read = A::SHADER_RESOURCE | A::COPY_SOURCE;
        match self {
            L::Undefined => A::NO_ACCESS,
            L::Common => common,
            L::DirectQueueCommon | L::ComputeQueueCommon => common | A::UNORDERED_ACCESS,
            L::GenericRead | L::ComputeQueueGenericRead => generic_read,
            L::DirectQueueGenericRead | L::DirectQueueGenericReadComputeQueueAccessible => {
                generic_read | A::DEPTH_STENCIL_READ | A::SHADING_RATE_SOURCE | A::RESOLVE_SOURCE
            }
            L::RenderTarget => A::RENDER_TARGET,
            L::UnorderedAccess | L::DirectQueueUnorderedAccess | L::ComputeQueueUnorderedAccess => A::UNORDERED_ACCESS,
            L::DepthStencilWrite => A::DEPTH_STENCIL_READ | A::DEPTH_STENCIL_WRITE,
            L::DepthStencilRead => A::DEPTH_STENCIL_READ,
            L::ShaderResource | L::DirectQueueShaderResource | L::ComputeQueueShaderResource => A::SHADER_RESOURCE,
            L::CopySource | L::DirectQueueCopySource | L::ComputeQueueCopySource => A::COPY_SOURCE,
            L::CopyDest | L::DirectQueueCopyDest | L::ComputeQueueCopyDest => A::COPY_DEST,
            L::ResolveSource => A::RESOLVE_SOURCE,
            L::ResolveDest => A::RESOLVE_DEST,
            L::ShadingRateSource => A::SHADING_RATE_SOURCE,
            L::VideoDecodeRead => A::VIDEO_DECODE_READ,
            L::VideoDecodeWrite => A::VIDEO_DECODE_WRITE,
            L::VideoProcessRead => A::VIDEO_PROCESS_READ,
            L::VideoProcessWrite => A::VIDEO_PROCESS_WRITE,
            L::VideoEncodeRead => A::VIDEO_ENCODE_READ,
            L::VideoEncodeWrite => A::VIDEO_ENCODE_WRITE,
        }
    }

    /// Whether `access` is allowed in this layout (`COMMON` access always is, `NO_ACCESS` too).
    pub fn allows(self, access: BarrierAccess) -> bool {
        access.is_empty() || access.contains(BarrierAccess::NO_ACCESS) || self.allowed_access().contains(access)
    }

    /// Whether a command list of type `list` may use this layout in a barrier.
    pub fn legal_on(self, list: CommandListType) -> bool {
        use BarrierLayout as L;
        match list {
            CommandListType::Copy => matches!(self, L::Common | L::CopySource | L::CopyDest | L::Undefined),
            CommandListType::Compute => !matches!(
                self,
                L::RenderTarget
                    | L::DepthStencilWrite
                    | L::DepthStencilRead
                    | L::ResolveSource
                    | L::ResolveDest
                    | L::ShadingRateSource
                    | L::DirectQueueCommon
                    | L::DirectQueueGenericRead
                    | L::DirectQueueUnorderedAccess
                    | L::DirectQueueShaderResource
                    | L::DirectQueueCopySource
                    | L::DirectQueueCopyDest
            ),
            CommandListType::Direct | CommandListType::Bundle => !matches!(
                self,
                L::ComputeQueueCommon
                    | L::ComputeQueueGenericRead
                    | L::ComputeQueueUnorderedAccess
                    | L::ComputeQueueShaderResource
                    | L::ComputeQueueCopySource
                    | L::ComputeQueueCopyDest
            ),
        }
    }

    /// Whether this is one of the common layouts (barrier-free copy access).
    pub fn is_common(self) -> bool {
        matches!(self, BarrierLayout::Common | BarrierLayout::DirectQueueCommon | BarrierLayout::ComputeQueueCommon)
    }

    /// The layout with this numeric value, if one exists.
    pub fn from_raw(value: u32) -> Option<BarrierLayout> {
        use BarrierLayout as L;
        Some(match value {
            0xFFFF_FFFF => L::Undefined,
            0 => L::Common,
            1 => L::GenericRead,
            2 => L::RenderTarget,
            3 => L::UnorderedAccess,
            4 => L::DepthStencilWrite,
            5 => L::DepthStencilRead,
            6 => L::ShaderResource,
            7 => L::CopySource,
            8 => L::CopyDest,
            9 => L::ResolveSource,
            10 => L::ResolveDest,
            11 => L::ShadingRateSource,
            12 => L::VideoDecodeRead,
            13 => L::VideoDecodeWrite,
            14 => L::VideoProcessRead,
            15 => L::VideoProcessWrite,
            16 => L::VideoEncodeRead,
            17 => L::VideoEncodeWrite,
            18 => L::DirectQueueCommon,
            19 => L::DirectQueueGenericRead,
            20 => L::DirectQueueUnorderedAccess,
            21 => L::DirectQueueShaderResource,
            22 => L::DirectQueueCopySource,
            23 => L::DirectQueueCopyDest,
            24 => L::ComputeQueueCommon,
            25 => L::ComputeQueueGenericRead,
            26 => L::ComputeQueueUnorderedAccess,
            27 => L::ComputeQueueShaderResource,
            28 => L::ComputeQueueCopySource,
            29 => L::ComputeQueueCopyDest,
            31 => L::DirectQueueGenericReadComputeQueueAccessible,
            _ => return None,
        })
    }
}

/// Which sync scopes a command list type may name in a barrier.
pub fn sync_legal_on(sync: BarrierSync, list: CommandListType) -> bool {
    match list {
        CommandListType::Copy => (sync & !(BarrierSync::ALL | BarrierSync::COPY | BarrierSync::SPLIT)).is_empty(),
        CommandListType::Compute => !sync.intersects(
            BarrierSync::DRAW
                | BarrierSync::INDEX_INPUT
                | BarrierSync::VERTEX_SHADING
                | BarrierSync::PIXEL_SHADING
                | BarrierSync::DEPTH_STENCIL
                | BarrierSync::RENDER_TARGET
                | BarrierSync::RESOLVE,
        ),
        CommandListType::Direct | CommandListType::Bundle => true,
    }
}

/// Which access bits a command list type may name in a barrier.
pub fn access_legal_on(access: BarrierAccess, list: CommandListType) -> bool {
    if access.contains(BarrierAccess::NO_ACCESS) {
        return true;
    }
    match list {
        CommandListType::Copy => (access & !(BarrierAccess::COPY_DEST | BarrierAccess::COPY_SOURCE)).is_empty(),
        CommandListType::Compute => !access.intersects(
            BarrierAccess::RENDER_TARGET
                | BarrierAccess::DEPTH_STENCIL_WRITE
                | BarrierAccess::DEPTH_STENCIL_READ
                | BarrierAccess::RESOLVE_DEST
                | BarrierAccess::RESOLVE_SOURCE
                | BarrierAccess::SHADING_RATE_SOURCE,
        ),
        CommandListType::Direct | CommandListType::Bundle => true,
    }
}

/// A range of subresources (`D3D12_BARRIER_SUBRESOURCE_RANGE`). `index_or_first_mip ==
/// 0xFFFFFFFF` selects all subresources; with `num_mip_levels == 0` the first field is a
/// subresource index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarrierSubresourceRange {
    /// First mip, a subresource index, or `0xFFFFFFFF` for all.
    pub index_or_first_mip: u32,
    /// Mip count (0: `index_or_first_mip` is an index).
    pub num_mip_levels: u32,
    /// First array slice.
    pub first_array_slice: u32,
    /// Slice count.
    pub num_array_slices: u32,
    /// First plane.
    pub first_plane: u32,
    /// Plane count.
    pub num_planes: u32,
}

impl BarrierSubresourceRange {
    /// Every subresource.
    pub const ALL: BarrierSubresourceRange = BarrierSubresourceRange {
        index_or_first_mip: 0xFFFF_FFFF,
        num_mip_levels: 0,
        first_array_slice: 0,
        num_array_slices: 0,
        first_plane: 0,
        num_planes: 0,
    };

    /// One subresource by index.
    pub const fn index(index: u32) -> Self {
        BarrierSubresourceRange {
            index_or_first_mip: index,
            num_mip_levels: 0,
            first_array_slice: 0,
            num_array_slices: 0,
            first_plane: 0,
            num_planes: 0,
        }
    }
}

bitflags::bitflags! {
    /// `D3D12_TEXTURE_BARRIER_FLAGS`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct TextureBarrierFlags: u32 {
        /// `DISCARD`: the contents may be discarded (initialises metadata).
        const DISCARD = 0x1;
    }
}

/// A barrier on all memory (`D3D12_GLOBAL_BARRIER`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalBarrier {
    /// Scopes to wait for.
    pub sync_before: BarrierSync,
    /// Scopes blocked until the barrier completes.
    pub sync_after: BarrierSync,
    /// Accesses to flush.
    pub access_before: BarrierAccess,
    /// Accesses to make visible.
    pub access_after: BarrierAccess,
}

/// A barrier on a buffer (`D3D12_BUFFER_BARRIER`), over resource handle `R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferBarrier<R> {
    /// Scopes to wait for.
    pub sync_before: BarrierSync,
    /// Scopes blocked until the barrier completes.
    pub sync_after: BarrierSync,
    /// Accesses to flush.
    pub access_before: BarrierAccess,
    /// Accesses to make visible.
    pub access_after: BarrierAccess,
    /// The buffer.
    pub resource: R,
    /// Must be 0.
    pub offset: u64,
    /// The buffer's size or `u64::MAX`.
    pub size: u64,
}

/// A barrier on texture subresources (`D3D12_TEXTURE_BARRIER`), over resource handle `R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureBarrier<R> {
    /// Scopes to wait for.
    pub sync_before: BarrierSync,
    /// Scopes blocked until the barrier completes.
    pub sync_after: BarrierSync,
    /// Accesses to flush.
    pub access_before: BarrierAccess,
    /// Accesses to make visible.
    pub access_after: BarrierAccess,
    /// Layout the subresources are in.
    pub layout_before: BarrierLayout,
    /// Layout they move to.
    pub layout_after: BarrierLayout,
    /// The texture.
    pub resource: R,
    /// Which subresources.
    pub subresources: BarrierSubresourceRange,
    /// Barrier flags.
    pub flags: TextureBarrierFlags,
}

/// One group of barriers of one kind (`D3D12_BARRIER_GROUP`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BarrierGroup<R> {
    /// Global barriers.
    Global(Vec<GlobalBarrier>),
    /// Texture barriers.
    Texture(Vec<TextureBarrier<R>>),
    /// Buffer barriers.
    Buffer(Vec<BufferBarrier<R>>),
}

impl<R> BarrierGroup<R> {
    /// Calls `f` with each barrier's resource handle, in order.
    pub fn for_each_resource(&self, mut f: impl FnMut(&R)) {
        match self {
            BarrierGroup::Global(_) => {}
            BarrierGroup::Texture(t) => t.iter().for_each(|b| f(&b.resource)),
            BarrierGroup::Buffer(b) => b.iter().for_each(|b| f(&b.resource)),
        }
    }

    /// The same group with each resource handle mapped through `f`.
    pub fn map<S>(&self, mut f: impl FnMut(&R) -> S) -> BarrierGroup<S> {
        match self {
            BarrierGroup::Global(g) => BarrierGroup::Global(g.clone()),
            BarrierGroup::Texture(t) => BarrierGroup::Texture(
                t.iter()
                    .map(|b| TextureBarrier {
                        sync_before: b.sync_before,
                        sync_after: b.sync_after,
                        access_before: b.access_before,
                        access_after: b.access_after,
                        layout_before: b.layout_before,
                        layout_after: b.layout_after,
                        resource: f(&b.resource),
                        subresources: b.subresources,
                        flags: b.flags,
                    })
                    .collect(),
            ),
            BarrierGroup::Buffer(bs) => BarrierGroup::Buffer(
                bs.iter()
                    .map(|b| BufferBarrier {
                        sync_before: b.sync_before,
                        sync_after: b.sync_after,
                        access_before: b.access_before,
                        access_after: b.access_after,
                        resource: f(&b.resource),
                        offset: b.offset,
                        size: b.size,
                    })
                    .collect(),
            ),
        }
    }
}

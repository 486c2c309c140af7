//! Queries, query heaps, predication and resolve modes.

/// What a query measures (`D3D12_QUERY_TYPE`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryType {
    /// Samples that passed depth and stencil tests.
    Occlusion = 0,
    /// 1 if any sample passed, else 0.
    BinaryOcclusion = 1,
    /// A GPU timestamp.
    Timestamp = 2,
    /// Pipeline statistics ([`PipelineStatistics`]).
    PipelineStatistics = 3,
}

impl QueryType {
    /// Bytes one resolved query of this type occupies.
    pub fn result_size(self) -> u64 {
        match self {
            QueryType::PipelineStatistics => std::mem::size_of::<PipelineStatistics>() as u64,
            _ => 8,
        }
    }

    /// The heap type that holds queries of this type.
    pub fn heap_type(self) -> QueryHeapType {
        match self {
            QueryType::Occlusion | QueryType::BinaryOcclusion => QueryHeapType::Occlusion,
            QueryType::Timestamp => QueryHeapType::Timestamp,
            QueryType::PipelineStatistics => QueryHeapType::PipelineStatistics,
        }
    }
}

/// Kind of query heap (`D3D12_QUERY_HEAP_TYPE`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryHeapType {
    /// Occlusion and binary occlusion queries.
    Occlusion = 0,
    /// Timestamps on direct and compute queues.
    Timestamp = 1,
    /// Pipeline statistics.
    PipelineStatistics = 2,
    /// Timestamps on copy queues.
    CopyQueueTimestamp = 5,
}

/// A query heap description (`D3D12_QUERY_HEAP_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueryHeapDesc {
    /// Heap type.
    pub ty: QueryHeapType,
    /// Number of queries.
    pub count: u32,
}

/// Resolved pipeline statistics (`D3D12_QUERY_DATA_PIPELINE_STATISTICS`), field order as in D3D12.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PipelineStatistics {
    /// Vertices read by input assembly.
    pub ia_vertices: u64,
    /// Primitives read by input assembly.
    pub ia_primitives: u64,
    /// Vertex shader invocations.
    pub vs_invocations: u64,
    /// Geometry shader invocations.
    pub gs_invocations: u64,
    /// Geometry shader output primitives.
    pub gs_primitives: u64,
    /// Primitives sent to the rasterizer.
    pub c_invocations: u64,
    /// Primitives rendered.
    pub c_primitives: u64,
    /// Pixel shader invocations.
    pub ps_invocations: u64,
    /// Hull shader invocations.
    pub hs_invocations: u64,
    /// Domain shader invocations.
    pub ds_invocations: u64,
    /// Compute shader invocations.
    pub cs_invocations: u64,
}

/// How predication compares the predicate (`D3D12_PREDICATION_OP`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PredicationOp {
    /// Skip work when the 64-bit value equals zero.
    EqualZero = 0,
    /// Skip work when the 64-bit value is not zero.
    NotEqualZero = 1,
}

/// How a resolve combines samples (`D3D12_RESOLVE_MODE`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResolveMode {
    /// Decompress in place (equal sample counts).
    Decompress = 0,
    /// Per-channel minimum of the samples.
    Min = 1,
    /// Per-channel maximum of the samples.
    Max = 2,
    /// Average of the samples.
    Average = 3,
    /// Sampler feedback encode (not supported by the async API).
    EncodeSamplerFeedback = 4,
    /// Sampler feedback decode (not supported by the async API).
    DecodeSamplerFeedback = 5,
}

bitflags::bitflags! {
    /// `D3D12_TILE_COPY_FLAGS`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct TileCopyFlags: u32 {
        /// Deprecated and ignored.
        const NO_HAZARD = 0x1;
        /// Copy from a linear buffer into the tiled resource.
        const LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE = 0x2;
        /// Copy from the tiled resource into a linear buffer.
        const SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER = 0x4;
    }
}

/// A tile position in a reserved resource (`D3D12_TILED_RESOURCE_COORDINATE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TiledResourceCoordinate {
    /// Tile column.
    pub x: u32,
    /// Tile row.
    pub y: u32,
    /// Tile depth.
    pub z: u32,
    /// Subresource.
    pub subresource: u32,
}

/// A region of tiles (`D3D12_TILE_REGION_SIZE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TileRegionSize {
    /// Total tiles.
    pub num_tiles: u32,
    /// Whether `width × height × depth` describes a box.
    pub use_box: bool,
    /// Box width in tiles.
    pub width: u32,
    /// Box height in tiles.
    pub height: u16,
    /// Box depth in tiles.
    pub depth: u16,
}

/// `D3D12_TILED_RESOURCE_TILE_SIZE_IN_BYTES`.
pub const TILE_SIZE_IN_BYTES: u64 = 65536;

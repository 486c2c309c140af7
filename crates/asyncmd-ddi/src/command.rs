//! Every command a command list records, as one enum: the legacy DDIs and the native async
//! DDIs. Devices consume them; the spy logs them.

use crate::{Executable, GpuAddress, PipelineId, PrimitiveTopology, QueryHeapId, ResourceId, RootSignatureId};
use asyncmd_types::{
    BarrierGroup, Box3, BufferCopyRegion, ClearData, ClearFlags, DepthStencilViewDesc, Format, PredicationOp,
    QueryType, Rect, RenderPassDepthStencil, RenderPassFlags, RenderPassRenderTarget, RenderTargetViewDesc,
    ResolveMode, ResolvedFill, SubresourceClear, TextureCopyDesc, TextureCopyLocation, TileCopyFlags, TileRegionSize,
    TiledResourceCoordinate, Viewport,
};

/// A render-target view as the device sees it: the resource and the view description,
/// captured when the view was bound or used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderTargetView {
    /// The texture.
    pub resource: ResourceId,
    /// The view.
    pub desc: RenderTargetViewDesc,
}

/// A depth-stencil view as the device sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthStencilView {
    /// The texture.
    pub resource: ResourceId,
    /// The view.
    pub desc: DepthStencilViewDesc,
}

/// A tile copy (`CopyTiles` and `CopyTilesAsync` share it), over resource handle `R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileCopy<R = ResourceId> {
    /// The reserved resource.
    pub resource: R,
    /// First tile.
    pub start: TiledResourceCoordinate,
    /// Tiles to copy.
    pub size: TileRegionSize,
    /// The linear buffer.
    pub buffer: R,
    /// Byte offset in the buffer.
    pub buffer_offset: u64,
    /// Direction.
    pub flags: TileCopyFlags,
}

/// A subresource resolve (`ResolveSubresourceRegion` and its async form), over resource
/// handle `R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resolve<R = ResourceId> {
    /// Single-sample (or, for decompress, same-count) destination.
    pub dest: R,
    /// Destination subresource.
    pub dest_subresource: u32,
    /// Destination x.
    pub dest_x: u32,
    /// Destination y.
    pub dest_y: u32,
    /// Multisampled source.
    pub source: R,
    /// Source subresource.
    pub source_subresource: u32,
    /// Source rectangle; `None` for the whole subresource.
    pub source_rect: Option<Rect>,
    /// Format the samples are combined in.
    pub format: Format,
    /// How samples are combined.
    pub mode: ResolveMode,
}

/// A query resolve (`ResolveQueryData` and its async form), over query-heap handle `H` and
/// resource handle `R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueryResolve<H = QueryHeapId, R = ResourceId> {
    /// The heap.
    pub heap: H,
    /// Query type.
    pub ty: QueryType,
    /// First query.
    pub start: u32,
    /// Number of queries.
    pub count: u32,
    /// Destination buffer.
    pub dest: R,
    /// Destination offset (a multiple of 8).
    pub dest_offset: u64,
}

impl<R> TileCopy<R> {
    /// The same copy over other handles.
    pub fn map<S>(&self, f: impl Fn(&R) -> S) -> TileCopy<S> {
        TileCopy {
            resource: f(&self.resource),
            start: self.start,
            size: self.size,
            buffer: f(&self.buffer),
            buffer_offset: self.buffer_offset,
            flags: self.flags,
        }
    }
}

impl<R> Resolve<R> {
    /// The same resolve over other handles.
    pub fn map<S>(&self, f: impl Fn(&R) -> S) -> Resolve<S> {
        Resolve {
            dest: f(&self.dest),
            dest_subresource: self.dest_subresource,
            dest_x: self.dest_x,
            dest_y: self.dest_y,
            source: f(&self.source),
            source_subresource: self.source_subresource,
            source_rect: self.source_rect,
            format: self.format,
            mode: self.mode,
        }
    }
}

impl<H, R> QueryResolve<H, R> {
    /// The same resolve over other handles.
    pub fn map<I, S>(&self, heap: impl Fn(&H) -> I, dest: impl Fn(&R) -> S) -> QueryResolve<I, S> {
        QueryResolve {
            heap: heap(&self.heap),
            ty: self.ty,
            start: self.start,
            count: self.count,
            dest: dest(&self.dest),
            dest_offset: self.dest_offset,
        }
    }
}

/// One command of a command list.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `CopyBufferRegion`.
    CopyBufferRegion(BufferCopyRegion<ResourceId>),
    /// `CopyTextureRegion`.
    CopyTextureRegion {
        /// Destination.
        dest: TextureCopyLocation<ResourceId>,
        /// Destination x.
        dest_x: u32,
        /// Destination y.
        dest_y: u32,
        /// Destination z.
        dest_z: u32,
        /// Source.
        source: TextureCopyLocation<ResourceId>,
        /// Source box; `None` for the whole source.
        source_box: Option<Box3>,
    },
    /// `CopyResource`.
    CopyResource {
        /// Destination.
        dest: ResourceId,
        /// Source.
        source: ResourceId,
    },
    /// `CopyTiles`.
    CopyTiles(TileCopy),
    /// `ResolveSubresourceRegion`.
    ResolveSubresourceRegion(Resolve),
    /// `ResolveQueryData`.
    ResolveQueryData(QueryResolve),
    /// `BeginQuery`.
    BeginQuery {
        /// The heap.
        heap: QueryHeapId,
        /// Query type.
        ty: QueryType,
        /// Query index.
        index: u32,
    },
    /// `EndQuery` (timestamps are written by `EndQuery` alone).
    EndQuery {
        /// The heap.
        heap: QueryHeapId,
        /// Query type.
        ty: QueryType,
        /// Query index.
        index: u32,
    },
    /// `Barrier` with enhanced barrier groups.
    Barrier(Vec<BarrierGroup<ResourceId>>),
    /// `ClearRenderTargetView`.
    ClearRenderTargetView {
        /// The view.
        view: RenderTargetView,
        /// RGBA value.
        color: [f32; 4],
        /// Rectangles in view space; empty for the whole view.
        rects: Vec<Rect>,
    },
    /// `ClearDepthStencilView`.
    ClearDepthStencilView {
        /// The view.
        view: DepthStencilView,
        /// Planes to clear.
        flags: ClearFlags,
        /// Depth value.
        depth: f32,
        /// Stencil value.
        stencil: u8,
        /// Rectangles; empty for the whole view.
        rects: Vec<Rect>,
    },
    /// `SetPipelineState`.
    SetPipelineState(PipelineId),
    /// `SetGraphicsRootSignature`.
    SetGraphicsRootSignature(RootSignatureId),
    /// `SetComputeRootSignature`.
    SetComputeRootSignature(RootSignatureId),
    /// `SetGraphicsRoot32BitConstants`.
    SetGraphicsRootConstants {
        /// Root parameter.
        parameter: u32,
        /// First dword within the parameter.
        offset: u32,
        /// Values.
        values: Vec<u32>,
    },
    /// `SetComputeRoot32BitConstants`.
    SetComputeRootConstants {
        /// Root parameter.
        parameter: u32,
        /// First dword within the parameter.
        offset: u32,
        /// Values.
        values: Vec<u32>,
    },
    /// `SetGraphicsRootUnorderedAccessView`.
    SetGraphicsRootUav {
        /// Root parameter.
        parameter: u32,
        /// Buffer address.
        address: GpuAddress,
    },
    /// `SetComputeRootUnorderedAccessView`.
    SetComputeRootUav {
        /// Root parameter.
        parameter: u32,
        /// Buffer address.
        address: GpuAddress,
    },
    /// `SetGraphicsRootConstantBufferView` and `SetGraphicsRootShaderResourceView`: a root
    /// descriptor of the parameter's class (CBV or SRV).
    SetGraphicsRootView {
        /// Root parameter.
        parameter: u32,
        /// Buffer address.
        address: GpuAddress,
    },
    /// `SetComputeRootConstantBufferView` and `SetComputeRootShaderResourceView`.
    SetComputeRootView {
        /// Root parameter.
        parameter: u32,
        /// Buffer address.
        address: GpuAddress,
    },
    /// The views the bound pipeline reads through descriptor tables, read by the runtime from
    /// the app's descriptor heap when the draw or dispatch was recorded; recorded just before it,
    /// replacing the previous set.
    SetTableViews {
        /// For compute (`true`) or graphics.
        compute: bool,
        /// Every descriptor the pipeline's tables give it.
        views: Vec<TableView>,
    },
    /// `RSSetViewports`.
    SetViewports(Vec<Viewport>),
    /// `RSSetScissorRects`.
    SetScissorRects(Vec<Rect>),
    /// `IASetPrimitiveTopology`.
    SetPrimitiveTopology(PrimitiveTopology),
    /// `OMSetBlendFactor`.
    SetBlendFactor([f32; 4]),
    /// `OMSetStencilRef`.
    SetStencilRef(u32),
    /// `OMSetRenderTargets`, with views captured at bind time.
    SetRenderTargets {
        /// Render targets in slot order.
        rtvs: Vec<RenderTargetView>,
        /// Depth-stencil view.
        dsv: Option<DepthStencilView>,
    },
    /// `BeginRenderPass`.
    BeginRenderPass {
        /// Render targets.
        render_targets: Vec<RenderPassRenderTarget<RenderTargetView, ResourceId>>,
        /// Depth-stencil target.
        depth_stencil: Option<Box<RenderPassDepthStencil<DepthStencilView, ResourceId>>>,
        /// Flags.
        flags: RenderPassFlags,
    },
    /// `EndRenderPass`.
    EndRenderPass,
    /// `DrawInstanced`.
    DrawInstanced {
        /// Vertices per instance.
        vertex_count: u32,
        /// Instances.
        instance_count: u32,
        /// First vertex.
        start_vertex: u32,
        /// First instance.
        start_instance: u32,
    },
    /// `Dispatch`.
    Dispatch {
        /// Groups in x.
        x: u32,
        /// Groups in y.
        y: u32,
        /// Groups in z.
        z: u32,
    },
    /// `ExecuteIndirect` of dispatches: up to `max_count` commands of `signature` from
    /// `arguments` (validated by the runtime to lie in its buffer), as many as the `u32` at
    /// `count` says where one is given. A command whose group count passes 65535 in a dimension
    /// dispatches nothing (D3D12 leaves it undefined).
    ExecuteIndirect {
        /// What each command holds.
        signature: std::sync::Arc<asyncmd_types::CommandSignatureDesc>,
        /// Commands at most.
        max_count: u32,
        /// The first command.
        arguments: GpuAddress,
        /// The command count, if any.
        count: Option<GpuAddress>,
    },
    /// `SetPredication`; `None` turns predication off.
    SetPredication(Option<(GpuAddress, PredicationOp)>),
    /// `ExecuteBundle`.
    ExecuteBundle(Executable),
    /// Native `CopyBufferRegions`.
    CopyBufferRegions(Vec<BufferCopyRegion<ResourceId>>),
    /// Native `CopyTextureRegions`.
    CopyTextureRegions(Vec<TextureCopyDesc<ResourceId>>),
    /// Native `CopyResources`: (destination, source) pairs.
    CopyResources(Vec<(ResourceId, ResourceId)>),
    /// Native `CopyTilesAsync`.
    CopyTilesAsync(TileCopy),
    /// Native `ResolveSubresourceRegionAsync`.
    ResolveSubresourceRegionAsync(Resolve),
    /// Native `ResolveQueryDataAsync`.
    ResolveQueryDataAsync(QueryResolve),
    /// Native `FillBuffers`, resolved: each fill's pattern bytes and the bytes it covers
    /// (fills that write nothing are left out).
    FillBuffers(Vec<ResolvedFill<ResourceId>>),
    /// Native `ClearTextureSubresources`, resolved: one part per subresource written, with
    /// its encoded element, view-clear value and region.
    ClearTextureSubresources(Vec<SubresourceClear<ResourceId>>),
    /// Native `ClearBoundRenderTargetViews`.
    ClearBoundRenderTargetViews {
        /// Selected slots.
        mask: u8,
        /// Values per slot (read for selected slots); boxed, as every command is as large as
        /// the largest, and lists move commands by value.
        values: Box<[ClearData; 8]>,
        /// Regions per slot; `None` for the whole view.
        regions: Box<[Option<Vec<Box3>>; 8]>,
    },
    /// Native `ClearBoundDepthStencilView`.
    ClearBoundDepthStencilView {
        /// Planes.
        flags: ClearFlags,
        /// Depth value.
        depth: f32,
        /// Stencil value.
        stencil: u8,
        /// Regions; `None` for the whole view.
        regions: Option<Vec<Box3>>,
    },
}

impl Resolve<ResourceId> {
    /// The resolve a render pass's `Resolve` ending access performs when the pass ends: the
    /// whole subresource the view selects into the destination subresource. `None` for other
    /// endings or a view that does not fit its resource.
    pub fn for_pass_end(
        view: &RenderTargetView,
        resource: &asyncmd_types::ResourceDesc,
        ending: &asyncmd_types::EndingAccess<ResourceId>,
    ) -> Option<Resolve> {
        let asyncmd_types::EndingAccess::Resolve { dest, dest_subresource, format, mode, .. } = *ending else {
            return None;
        };
        let range = view.desc.range(resource)?;
        Some(Resolve {
            dest,
            dest_subresource,
            dest_x: 0,
            dest_y: 0,
            source: view.resource,
            source_subresource: resource.subresource_index(range.mip, range.first_slice, range.plane),
            source_rect: None,
            format,
            mode,
        })
    }
}

impl Command {
    /// The legacy `CopyTextureRegion`s a `CopyTextureRegions` call consists of, in order: one
    /// per region of each description.
    pub fn texture_copies(descs: &[TextureCopyDesc<ResourceId>]) -> impl Iterator<Item = Command> + '_ {
        descs.iter().flat_map(|d| {
            let (dest, source) = d.kind.locations();
            d.regions.iter().map(move |r| Command::texture_copy(dest, source, r))
        })
    }

    /// The legacy `CopyTextureRegion` of one region between two locations.
    pub fn texture_copy(
        dest: TextureCopyLocation<ResourceId>,
        source: TextureCopyLocation<ResourceId>,
        r: &asyncmd_types::TextureCopyRegion,
    ) -> Command {
        Command::CopyTextureRegion {
            dest,
            dest_x: r.dest_x,
            dest_y: r.dest_y,
            dest_z: r.dest_z,
            source,
            source_box: r.source_box,
        }
    }

    /// Whether this is one of the native async commands.
    pub fn is_async(&self) -> bool {
        matches!(
            self,
            Command::CopyBufferRegions(_)
                | Command::CopyTextureRegions(_)
                | Command::CopyResources(_)
                | Command::CopyTilesAsync(_)
                | Command::ResolveSubresourceRegionAsync(_)
                | Command::ResolveQueryDataAsync(_)
                | Command::FillBuffers(_)
                | Command::ClearTextureSubresources(_)
                | Command::ClearBoundRenderTargetViews { .. }
                | Command::ClearBoundDepthStencilView { .. }
        )
    }

    /// The command's name as in D3D12, for messages and logs.
    pub fn name(&self) -> &'static str {
        match self {
            Command::CopyBufferRegion(_) => "CopyBufferRegion",
            Command::CopyTextureRegion { .. } => "CopyTextureRegion",
            Command::CopyResource { .. } => "CopyResource",
            Command::CopyTiles(_) => "CopyTiles",
            Command::ResolveSubresourceRegion(_) => "ResolveSubresourceRegion",
            Command::ResolveQueryData(_) => "ResolveQueryData",
            Command::BeginQuery { .. } => "BeginQuery",
            Command::EndQuery { .. } => "EndQuery",
            Command::Barrier(_) => "Barrier",
            Command::ClearRenderTargetView { .. } => "ClearRenderTargetView",
            Command::ClearDepthStencilView { .. } => "ClearDepthStencilView",
            Command::SetPipelineState(_) => "SetPipelineState",
            Command::SetGraphicsRootSignature(_) => "SetGraphicsRootSignature",
            Command::SetComputeRootSignature(_) => "SetComputeRootSignature",
            Command::SetGraphicsRootConstants { .. } => "SetGraphicsRoot32BitConstants",
            Command::SetComputeRootConstants { .. } => "SetComputeRoot32BitConstants",
            Command::SetGraphicsRootUav { .. } => "SetGraphicsRootUnorderedAccessView",
            Command::SetComputeRootUav { .. } => "SetComputeRootUnorderedAccessView",
            Command::SetGraphicsRootView { .. } => "SetGraphicsRootView",
            Command::SetComputeRootView { .. } => "SetComputeRootView",
            Command::SetTableViews { .. } => "SetTableViews",
            Command::SetViewports(_) => "RSSetViewports",
            Command::SetScissorRects(_) => "RSSetScissorRects",
            Command::SetPrimitiveTopology(_) => "IASetPrimitiveTopology",
            Command::SetBlendFactor(_) => "OMSetBlendFactor",
            Command::SetStencilRef(_) => "OMSetStencilRef",
            Command::SetRenderTargets { .. } => "OMSetRenderTargets",
            Command::BeginRenderPass { .. } => "BeginRenderPass",
            Command::EndRenderPass => "EndRenderPass",
            Command::DrawInstanced { .. } => "DrawInstanced",
            Command::Dispatch { .. } => "Dispatch",
            Command::ExecuteIndirect { .. } => "ExecuteIndirect",
            Command::SetPredication(_) => "SetPredication",
            Command::ExecuteBundle(_) => "ExecuteBundle",
            Command::CopyBufferRegions(_) => "CopyBufferRegions",
            Command::CopyTextureRegions(_) => "CopyTextureRegions",
            Command::CopyResources(_) => "CopyResources",
            Command::CopyTilesAsync(_) => "CopyTilesAsync",
            Command::ResolveSubresourceRegionAsync(_) => "ResolveSubresourceRegionAsync",
            Command::ResolveQueryDataAsync(_) => "ResolveQueryDataAsync",
            Command::FillBuffers(_) => "FillBuffers",
            Command::ClearTextureSubresources(_) => "ClearTextureSubresources",
            Command::ClearBoundRenderTargetViews { .. } => "ClearBoundRenderTargetViews",
            Command::ClearBoundDepthStencilView { .. } => "ClearBoundDepthStencilView",
        }
    }

    /// Calls `f` with every resource the command names (bundles excluded: they hold their own).
    pub fn for_each_resource(&self, mut f: impl FnMut(ResourceId)) {
        match self {
            Command::CopyBufferRegion(r) => {
                f(r.dest);
                f(r.source);
            }
            Command::CopyTextureRegion { dest, source, .. } => {
                f(dest.resource);
                f(source.resource);
            }
            Command::CopyResource { dest, source } => {
                f(*dest);
                f(*source);
            }
            Command::CopyTiles(t) | Command::CopyTilesAsync(t) => {
                f(t.resource);
                f(t.buffer);
            }
            Command::ResolveSubresourceRegion(r) | Command::ResolveSubresourceRegionAsync(r) => {
                f(r.dest);
                f(r.source);
            }
            Command::ResolveQueryData(q) | Command::ResolveQueryDataAsync(q) => f(q.dest),
            Command::Barrier(groups) => {
                for g in groups {
                    g.for_each_resource(|r| f(*r));
                }
            }
            Command::ClearRenderTargetView { view, .. } => f(view.resource),
            Command::ClearDepthStencilView { view, .. } => f(view.resource),
            Command::SetGraphicsRootUav { address, .. }
            | Command::SetComputeRootUav { address, .. }
            | Command::SetGraphicsRootView { address, .. }
            | Command::SetComputeRootView { address, .. } => f(address.resource),
            Command::SetTableViews { views, .. } => views.iter().filter_map(|v| v.view.resource()).for_each(f),
            Command::ExecuteIndirect { arguments, count, .. } => {
                f(arguments.resource);
                if let Some(c) = count {
                    f(c.resource);
                }
            }
            Command::SetRenderTargets { rtvs, dsv } => {
                rtvs.iter().for_each(|v| f(v.resource));
                if let Some(d) = dsv {
                    f(d.resource);
                }
            }
            Command::BeginRenderPass { render_targets, depth_stencil, .. } => {
                for rt in render_targets {
                    f(rt.view.resource);
                    if let asyncmd_types::EndingAccess::Resolve { dest, .. } = rt.ending {
                        f(dest);
                    }
                }
                if let Some(ds) = depth_stencil {
                    f(ds.view.resource);
                    for e in [ds.depth_ending, ds.stencil_ending] {
                        if let asyncmd_types::EndingAccess::Resolve { dest, .. } = e {
                            f(dest);
                        }
                    }
                }
            }
            Command::SetPredication(Some((address, _))) => f(address.resource),
            Command::CopyBufferRegions(regions) => regions.iter().for_each(|r| {
                f(r.dest);
                f(r.source);
            }),
            Command::CopyTextureRegions(descs) => {
                for d in descs {
                    match d.kind {
                        asyncmd_types::TextureCopyKind::TextureToTexture { dest, source, .. } => {
                            f(dest);
                            f(source);
                        }
                        asyncmd_types::TextureCopyKind::BufferToTexture { buffer, texture, .. }
                        | asyncmd_types::TextureCopyKind::TextureToBuffer { buffer, texture, .. } => {
                            f(buffer);
                            f(texture);
                        }
                    }
                }
            }
            Command::CopyResources(pairs) => pairs.iter().for_each(|(d, s)| {
                f(*d);
                f(*s);
            }),
            Command::FillBuffers(fills) => fills.iter().for_each(|d| f(d.buffer)),
            Command::ClearTextureSubresources(clears) => clears.iter().for_each(|d| f(d.texture)),
            _ => {}
        }
    }
}

/// One descriptor of a descriptor table the bound pipeline reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableView {
    /// The table's root parameter.
    pub parameter: u32,
    /// Descriptors from the table's start.
    pub offset: u64,
    /// What the descriptor views.
    pub view: BoundView,
}

/// What a descriptor of a table views.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BoundView {
    /// A CBV, or a raw or structured SRV or UAV: `size` bytes from `address`.
    Buffer {
        /// Where the view starts.
        address: GpuAddress,
        /// Bytes the view spans.
        size: u64,
    },
    /// A texture SRV or UAV: its subresources and format.
    Texture {
        /// The texture.
        resource: ResourceId,
        /// The mips, slices and format it selects.
        view: asyncmd_types::TextureView,
    },
    /// A sampler of a sampler heap.
    Sampler(asyncmd_types::SamplerDesc),
}

impl BoundView {
    /// The resource viewed (a sampler views none).
    pub fn resource(&self) -> Option<ResourceId> {
        match *self {
            BoundView::Buffer { address, .. } => Some(address.resource),
            BoundView::Texture { resource, .. } => Some(resource),
            BoundView::Sampler(_) => None,
        }
    }
}

//! Random API sequences from a seed: objects of every kind, every recording call with
//! arguments that are mostly plausible and sometimes wild, submissions, fences and resets.
//!
//! A sequence is plain data (`Vec<Step>`), so a failing seed prints what it ran. Objects are
//! named by index; the executor takes an index modulo what exists, so every step is runnable.

use asyncmd::types::*;

/// A seeded generator. `wild` is the chance of an argument drawn from edge values instead of
/// its plausible range; 0 gives the valid sequences the differential modes compare.
pub struct Gen {
    rng: fastrand::Rng,
    wild: f64,
}

/// Formats the sequences use: every layout family the runtime encodes, copies and clears.
pub const FORMATS: &[Format] = &[
    Format::R8G8B8A8Unorm,
    Format::R8G8B8A8UnormSrgb,
    Format::B8G8R8A8Unorm,
    Format::R8Unorm,
    Format::R8Uint,
    Format::R16Sint,
    Format::R16G16B16A16Float,
    Format::R32Float,
    Format::R32Uint,
    Format::R32G32B32A32Float,
    Format::R32G32B32A32Uint,
    Format::R10G10B10A2Unorm,
    Format::R10G10B10A2Uint,
    Format::R11G11B10Float,
    Format::R9G9B9E5SharedExp,
    Format::B5G6R5Unorm,
    Format::A8Unorm,
    Format::Bc1Unorm,
    Format::Bc7Unorm,
    Format::D32Float,
    Format::D16Unorm,
    Format::D24UnormS8Uint,
    Format::D32FloatS8X24Uint,
    Format::R32Typeless,
    Format::Nv12,
];

/// Float values that sit on the edges: signed zeros, NaN payloads, infinities, subnormals,
/// values next to rounding ties and integers past 2^24.
pub const EDGE_FLOATS: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MIN_POSITIVE,
    1.0e-40,
    -1.0e-40,
    0.1,
    0.5 / 255.0,
    1.5 / 255.0,
    1.5 / 255.0 + 1.0e-7,
    16_777_217.0,
    65504.0,
    65520.0,
];

/// One object or host step.
#[derive(Clone, Debug)]
pub enum Step {
    Buffer {
        heap: HeapType,
        size: u64,
        uav: bool,
    },
    Texture {
        desc: ResourceDesc,
        layout: BarrierLayout,
    },
    Reserved {
        desc: ResourceDesc,
        tiles: u32,
    },
    QueryHeap {
        ty: QueryHeapType,
        count: u32,
    },
    Fence {
        initial: u64,
    },
    Upload {
        buffer: usize,
        offset: u64,
        len: u32,
        seed: u32,
    },
    /// A new list of this type (on a new allocator or on `reuse`'s).
    Open {
        ty: CommandListType,
        reuse: Option<usize>,
    },
    Record {
        list: usize,
        cmd: Cmd,
    },
    Close {
        list: usize,
    },
    Execute {
        lists: Vec<usize>,
    },
    ResetAllocator {
        list: usize,
    },
    ResetList {
        list: usize,
    },
    QueueSignal {
        queue: usize,
        fence: usize,
        value: u64,
    },
    QueueWait {
        queue: usize,
        fence: usize,
        value: u64,
    },
    CpuSignal {
        fence: usize,
        value: u64,
    },
    CpuWait {
        fence: usize,
        value: u64,
    },
    DropResource {
        index: usize,
    },
    WaitIdle,
}

/// A location of a texture copy.
#[derive(Clone, Debug)]
pub enum Loc {
    Sub { texture: usize, sub: u32 },
    Footprint { buffer: usize, placed: PlacedSubresourceFootprint },
}

/// One fill of `FillBuffers`: buffer, offset, value, format, raw pattern size, repeat count.
pub type FillPart = (usize, u64, [u8; 16], Format, u32, u32);
/// One clear of `ClearTextureSubresources`: texture, subresource, value, format, region.
pub type ClearPart = (usize, u32, [u8; 16], Format, Option<Box3>);

/// One recording call.
#[derive(Clone, Debug)]
pub enum Cmd {
    CopyBuffer {
        dst: usize,
        dst_offset: u64,
        src: usize,
        src_offset: u64,
        size: u64,
        many: bool,
    },
    CopyTexture {
        copies: Vec<(Loc, Loc, Vec<TextureCopyRegion>)>,
        many: bool,
    },
    CopyResource {
        pairs: Vec<(usize, usize)>,
        many: bool,
    },
    CopyTiles {
        resource: usize,
        start: TiledResourceCoordinate,
        size: TileRegionSize,
        buffer: usize,
        offset: u64,
        flags: u32,
        many: bool,
    },
    Resolve {
        dst: usize,
        dst_sub: u32,
        at: (u32, u32),
        src: usize,
        src_sub: u32,
        rect: Option<Rect>,
        format: Format,
        mode: ResolveMode,
        many: bool,
    },
    ResolveQuery {
        heap: usize,
        ty: QueryType,
        start: u32,
        count: u32,
        dst: usize,
        offset: u64,
        many: bool,
    },
    Fill {
        fills: Vec<FillPart>,
    },
    ClearTexture {
        clears: Vec<ClearPart>,
    },
    ClearRtv {
        texture: usize,
        color: [f32; 4],
        rects: Vec<Rect>,
    },
    ClearDsv {
        texture: usize,
        flags: u32,
        depth: f32,
        stencil: u8,
        rects: Vec<Rect>,
    },
    SetTargets {
        rtvs: Vec<usize>,
        dsv: Option<usize>,
    },
    BeginPass {
        rtvs: Vec<(usize, u8)>,
        dsv: Option<(usize, u8, u8)>,
        flags: u32,
    },
    EndPass,
    ClearBoundRtv {
        mask: u32,
        values: Vec<[u8; 16]>,
        regions: Option<Vec<Option<Vec<Box3>>>>,
    },
    ClearBoundDsv {
        flags: u32,
        depth: f32,
        stencil: u8,
        regions: Option<Vec<Box3>>,
    },
    /// Every texture named by `textures` from `from` to `to` (whole resource).
    Transition {
        textures: Vec<usize>,
        from: BarrierLayout,
        to: BarrierLayout,
    },
    /// A barrier of arbitrary values.
    WildBarrier {
        kind: u8,
        target: usize,
        sync: (u32, u32),
        access: (u32, u32),
        layout: (u32, u32),
        range: (u32, u32, u32, u32, u32, u32),
        flags: u32,
    },
    /// Orders everything before against everything after (valid sequences put one between
    /// commands, whose relative order the Async Commands leave open).
    FullBarrier,
    BeginQuery {
        heap: usize,
        ty: QueryType,
        index: u32,
    },
    EndQuery {
        heap: usize,
        ty: QueryType,
        index: u32,
    },
    Predicate {
        buffer: Option<(usize, u64)>,
        not_equal: bool,
    },
    /// The built-in fill shader, dispatched by the app: root constants, a root UAV, a grid.
    Dispatch {
        buffer: usize,
        constants: Vec<u32>,
        groups: (u32, u32, u32),
    },
    ExecuteBundle {
        bundle: usize,
    },
}

impl Gen {
    pub fn new(seed: u64, wild: f64) -> Self {
        Self { rng: fastrand::Rng::with_seed(seed), wild }
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.f64() < p
    }

    fn is_wild(&mut self) -> bool {
        self.wild > 0.0 && self.chance(self.wild)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.rng.usize(..items.len())]
    }

    /// A u32 in `range`, or an edge value.
    fn u32(&mut self, range: std::ops::Range<u32>) -> u32 {
        if self.is_wild() {
            return self.pick(&[
                0,
                1,
                2,
                3,
                7,
                255,
                256,
                4095,
                65535,
                1 << 16,
                1 << 24,
                i32::MAX as u32,
                u32::MAX - 1,
                u32::MAX,
            ]);
        }
        self.rng.u32(range)
    }

    /// A u64 in `range`, or an edge value.
    fn u64(&mut self, range: std::ops::Range<u64>) -> u64 {
        if self.is_wild() {
            return self.pick(&[0, 1, 3, 4, 255, 256, 4096, 1 << 20, 1 << 32, 1 << 62, u64::MAX - 3, u64::MAX]);
        }
        self.rng.u64(range)
    }

    fn index(&mut self) -> usize {
        self.rng.usize(..64)
    }

    fn float(&mut self) -> f32 {
        if self.chance(0.4) {
            self.pick(EDGE_FLOATS)
        } else {
            self.rng.f32() * 2.0 - 0.5
        }
    }

    /// 16 bytes of a clear value: floats, integers (past 2^24 too) or raw bytes.
    fn clear_bytes(&mut self) -> [u8; 16] {
        let mut b = [0u8; 16];
        match self.rng.u8(..3) {
            0 => {
                for c in 0..4 {
                    b[c * 4..c * 4 + 4].copy_from_slice(&self.float().to_le_bytes());
                }
            }
            1 => {
                for c in 0..4 {
                    let v = self.pick(&[0u32, 1, 5, 255, 256, 1023, 65535, 16_777_217, u32::MAX, (-5i32) as u32]);
                    b[c * 4..c * 4 + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
            _ => self.rng.fill(&mut b),
        }
        b
    }

    fn rect(&mut self, w: i32, h: i32) -> Rect {
        if self.is_wild() {
            let e = [i32::MIN, -5, -1, 0, 1, 3, 17, 100_000, i32::MAX];
            return Rect::new(self.pick(&e), self.pick(&e), self.pick(&e), self.pick(&e));
        }
        let l = self.rng.i32(0..w);
        let t = self.rng.i32(0..h);
        Rect::new(l, t, self.rng.i32(l + 1..=w), self.rng.i32(t + 1..=h))
    }

    fn box3(&mut self, w: u32, h: u32, d: u32) -> Box3 {
        if self.is_wild() {
            let e = [0, 1, 2, 5, 16, 64, 1 << 20, u32::MAX];
            return Box3::new(self.pick(&e), self.pick(&e), self.pick(&e), self.pick(&e), self.pick(&e), self.pick(&e));
        }
        let (l, t, f) = (self.rng.u32(0..w), self.rng.u32(0..h), self.rng.u32(0..d));
        Box3::new(l, t, f, self.rng.u32(l + 1..=w), self.rng.u32(t + 1..=h), self.rng.u32(f + 1..=d))
    }

    fn texture_desc(&mut self) -> ResourceDesc {
        let format = self.pick(FORMATS);
        let info = format.info();
        let (bw, bh) = (info.block_width.max(2) as u32, info.block_height.max(2) as u32);
        let w = self.rng.u32(1..=8) * bw;
        let h = self.rng.u32(1..=6) * bh;
        let mut desc = match self.rng.u8(..6) {
            0 => ResourceDesc { dimension: ResourceDimension::Texture1D, ..ResourceDesc::tex2d(format, w, 1) },
            1 => ResourceDesc::tex3d(format, w, h, self.rng.u16(1..=5)),
            2 => ResourceDesc { depth_or_array_size: self.rng.u16(2..=4), ..ResourceDesc::tex2d(format, w, h) },
            _ => ResourceDesc::tex2d(format, w, h),
        };
        desc.mip_levels = self.rng.u16(1..=3);
        if self.chance(0.15) && desc.dimension == ResourceDimension::Texture2D {
            desc.sample_desc.count = self.pick(&[2, 4]);
            desc.mip_levels = 1;
        }
        let mut flags = ResourceFlags::empty();
        if format.has_depth() || format.has_stencil() {
            if self.chance(0.8) {
                flags |= ResourceFlags::ALLOW_DEPTH_STENCIL;
            }
        } else if self.chance(0.6) {
            flags |= ResourceFlags::ALLOW_RENDER_TARGET;
        }
        if self.chance(0.1) {
            flags |= ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS;
        }
        desc.flags = flags;
        if self.is_wild() {
            match self.rng.u8(..5) {
                0 => desc.width = self.u64(1..20),
                1 => desc.mip_levels = self.rng.u16(..),
                2 => desc.depth_or_array_size = self.rng.u16(..),
                3 => desc.sample_desc.count = self.u32(0..64),
                _ => desc.flags = ResourceFlags::from_bits_truncate(self.rng.u32(..)),
            }
        }
        desc
    }

    /// An object or host step.
    fn object(&mut self) -> Step {
        match self.rng.u8(..10) {
            0..=2 => Step::Buffer {
                heap: self.pick(&[HeapType::Default, HeapType::Default, HeapType::Upload, HeapType::Readback]),
                // Valid sequences keep buffers larger than the offsets and sizes they copy.
                size: if self.wild == 0.0 { self.u64(12_288..20_000) } else { self.u64(1..20_000) },
                uav: self.chance(0.5),
            },
            3..=5 => {
                let layout = if self.is_wild() {
                    self.pick(&[BarrierLayout::Undefined, BarrierLayout::CopyDest, BarrierLayout::RenderTarget])
                } else {
                    BarrierLayout::Common
                };
                Step::Texture { desc: self.texture_desc(), layout }
            }
            6 => {
                let desc = if self.chance(0.5) {
                    ResourceDesc::buffer(self.rng.u64(1..4) * TILE_SIZE_IN_BYTES)
                } else {
                    ResourceDesc::tex2d(
                        self.pick(&[Format::R8G8B8A8Unorm, Format::R32Float]),
                        256,
                        self.rng.u32(64..300),
                    )
                };
                Step::Reserved { desc, tiles: self.u32(0..4) }
            }
            7 => Step::QueryHeap {
                ty: self.pick(&[QueryHeapType::Occlusion, QueryHeapType::Timestamp, QueryHeapType::PipelineStatistics]),
                count: self.u32(1..9),
            },
            8 => Step::Fence { initial: self.u64(0..3) },
            _ => Step::Upload {
                buffer: self.index(),
                offset: self.u64(0..4096),
                len: self.u32(1..4096),
                seed: self.rng.u32(..),
            },
        }
    }

    fn loc(&mut self) -> Loc {
        if self.chance(0.6) {
            return Loc::Sub { texture: self.index(), sub: self.u32(0..4) };
        }
        let format = self.pick(FORMATS);
        let (w, h, d) = (self.u32(1..17), self.u32(1..13), self.u32(1..3));
        let row = (format.info().bytes_per_block as u32).wrapping_mul(w.div_ceil(format.info().block_width as u32));
        let pitch = if self.is_wild() { self.u32(0..1024) } else { row.checked_next_multiple_of(256).unwrap_or(row) };
        let offset = if self.is_wild() { self.u64(0..8192) } else { self.rng.u64(0..4) * 512 };
        let footprint = SubresourceFootprint { format, width: w, height: h, depth: d, row_pitch: pitch };
        Loc::Footprint { buffer: self.index(), placed: PlacedSubresourceFootprint { offset, footprint } }
    }

    fn copy_region(&mut self) -> TextureCopyRegion {
        let source_box = self.chance(0.6).then(|| self.box3(16, 12, 3));
        TextureCopyRegion { dest_x: self.u32(0..8), dest_y: self.u32(0..6), dest_z: self.u32(0..2), source_box }
    }

    /// A recording call. `bundle` lists get what bundles may hold.
    pub fn cmd(&mut self) -> Cmd {
        let many = self.chance(0.6);
        match self.rng.u8(..26) {
            0..=2 => Cmd::CopyBuffer {
                dst: self.index(),
                dst_offset: self.u64(0..8192),
                src: self.index(),
                src_offset: self.u64(0..8192),
                size: self.u64(1..4096),
                many,
            },
            3..=5 => {
                let n = if many { self.rng.usize(0..4) } else { 1 };
                let copies = (0..n)
                    .map(|_| {
                        let regions =
                            (0..self.rng.usize(if many { 0..3 } else { 1..2 })).map(|_| self.copy_region()).collect();
                        (self.loc(), self.loc(), regions)
                    })
                    .collect();
                Cmd::CopyTexture { copies, many }
            }
            6 => {
                let n = if many { self.rng.usize(0..3) } else { 1 };
                Cmd::CopyResource { pairs: (0..n).map(|_| (self.index(), self.index())).collect(), many }
            }
            7 => Cmd::CopyTiles {
                resource: self.index(),
                start: TiledResourceCoordinate {
                    x: self.u32(0..3),
                    y: self.u32(0..3),
                    z: 0,
                    subresource: self.u32(0..2),
                },
                size: TileRegionSize {
                    num_tiles: self.u32(1..4),
                    use_box: self.chance(0.3),
                    width: self.u32(1..3),
                    height: self.rng.u16(1..3),
                    depth: 1,
                },
                buffer: self.index(),
                offset: self.u64(0..3).wrapping_mul(if self.is_wild() { 1 } else { TILE_SIZE_IN_BYTES }),
                flags: self.pick(&[2, 4, 3, 5, 0, 6]),
                many,
            },
            8 => Cmd::Resolve {
                dst: self.index(),
                dst_sub: self.u32(0..2),
                at: (self.u32(0..4), self.u32(0..4)),
                src: self.index(),
                src_sub: self.u32(0..2),
                rect: self.chance(0.4).then(|| self.rect(8, 8)),
                format: self.pick(FORMATS),
                mode: self.pick(&[
                    ResolveMode::Average,
                    ResolveMode::Decompress,
                    ResolveMode::Min,
                    ResolveMode::Max,
                    ResolveMode::EncodeSamplerFeedback,
                ]),
                many,
            },
            9 => Cmd::ResolveQuery {
                heap: self.index(),
                ty: self.pick(&[
                    QueryType::Occlusion,
                    QueryType::BinaryOcclusion,
                    QueryType::Timestamp,
                    QueryType::PipelineStatistics,
                ]),
                start: self.u32(0..8),
                count: self.u32(0..4),
                dst: self.index(),
                offset: self.u64(0..64).wrapping_mul(8),
                many,
            },
            10..=12 => {
                let n = self.rng.usize(0..4);
                let fills = (0..n)
                    .map(|_| {
                        let format = if self.chance(0.7) { Format::Unknown } else { self.pick(FORMATS) };
                        let raw =
                            if format == Format::Unknown { self.pick(&[1, 2, 3, 4, 8, 12, 16, 0, 17]) } else { 0 };
                        let raw = if self.is_wild() { self.u32(0..40) } else { raw };
                        (self.index(), self.u64(0..4096), self.clear_bytes(), format, raw, self.u32(1..300))
                    })
                    .collect();
                Cmd::Fill { fills }
            }
            13..=15 => {
                let n = self.rng.usize(0..4);
                let clears = (0..n)
                    .map(|_| {
                        let format = if self.chance(0.8) { Format::Unknown } else { self.pick(FORMATS) };
                        let region = self.chance(0.5).then(|| self.box3(16, 12, 3));
                        (self.index(), self.u32(0..4), self.clear_bytes(), format, region)
                    })
                    .collect();
                Cmd::ClearTexture { clears }
            }
            16 => {
                let color = [self.float(), self.float(), self.float(), self.float()];
                let rects = (0..self.rng.usize(0..3)).map(|_| self.rect(16, 12)).collect();
                Cmd::ClearRtv { texture: self.index(), color, rects }
            }
            17 => {
                let rects = (0..self.rng.usize(0..3)).map(|_| self.rect(16, 12)).collect();
                Cmd::ClearDsv {
                    texture: self.index(),
                    flags: self.pick(&[1, 2, 3, 0, 4]),
                    depth: self.float(),
                    stencil: self.rng.u8(..),
                    rects,
                }
            }
            18 => Cmd::ClearBoundRtv {
                mask: if self.is_wild() { self.rng.u32(..) } else { self.rng.u32(0..16) },
                values: (0..if self.wild == 0.0 { 8 } else { self.rng.usize(0..5) })
                    .map(|_| self.clear_bytes())
                    .collect(),
                regions: self.chance(0.5).then(|| {
                    (0..if self.wild == 0.0 { 8 } else { self.rng.usize(0..5) })
                        .map(|_| {
                            self.chance(0.7).then(|| (0..self.rng.usize(0..3)).map(|_| self.box3(16, 12, 3)).collect())
                        })
                        .collect()
                }),
            },
            19 => Cmd::ClearBoundDsv {
                flags: self.pick(&[1, 2, 3, 0, 8]),
                depth: self.float(),
                stencil: self.rng.u8(..),
                regions: self.chance(0.5).then(|| (0..self.rng.usize(0..3)).map(|_| self.box3(16, 12, 2)).collect()),
            },
            20 => Cmd::BeginQuery {
                heap: self.index(),
                ty: self.pick(&[QueryType::Occlusion, QueryType::PipelineStatistics, QueryType::Timestamp]),
                index: self.u32(0..8),
            },
            21 => Cmd::EndQuery {
                heap: self.index(),
                ty: self.pick(&[QueryType::Occlusion, QueryType::PipelineStatistics, QueryType::Timestamp]),
                index: self.u32(0..8),
            },
            22 => Cmd::Predicate {
                buffer: self.chance(0.6).then(|| (self.index(), self.u64(0..32).wrapping_mul(8))),
                not_equal: self.chance(0.5),
            },
            23 => Cmd::Dispatch {
                buffer: self.index(),
                constants: (0..self.rng.usize(0..8)).map(|_| self.u32(0..64)).collect(),
                groups: (self.u32(0..4), self.u32(0..2), self.u32(0..2)),
            },
            24 => Cmd::WildBarrier {
                kind: self.rng.u8(..3),
                target: self.index(),
                sync: (self.rng.u32(..) & 0x8000_0FFF, self.rng.u32(..) & 0x8000_0FFF),
                access: (self.rng.u32(..) & 0x8000_FFFF, self.rng.u32(..) & 0x8000_FFFF),
                layout: (self.rng.u32(0..24), self.rng.u32(0..24)),
                range: (self.u32(0..3), self.u32(0..3), self.u32(0..3), self.u32(0..3), self.u32(0..2), self.u32(0..2)),
                flags: self.rng.u32(0..2),
            },
            _ => Cmd::ExecuteBundle { bundle: self.index() },
        }
    }

    /// Render-target or depth-stencil work with its bindings and transitions: targets moved to
    /// their layouts, bound (a pass or `OMSetRenderTargets`), cleared, unbound, moved back.
    fn target_work(&mut self, list: usize, out: &mut Vec<Step>) {
        let rtvs: Vec<usize> = (0..self.rng.usize(0..4)).map(|_| self.index()).collect();
        let dsv = self.chance(0.5).then(|| self.index());
        let pass = self.chance(0.5);
        let rec = |cmd| Step::Record { list, cmd };
        out.push(rec(Cmd::Transition {
            textures: rtvs.clone(),
            from: BarrierLayout::Common,
            to: BarrierLayout::RenderTarget,
        }));
        out.extend(dsv.map(|d| {
            rec(Cmd::Transition {
                textures: vec![d],
                from: BarrierLayout::Common,
                to: BarrierLayout::DepthStencilWrite,
            })
        }));
        if pass {
            let flags = if self.chance(0.2) { self.pick(&[0x8, 0x10, 0x2]) } else { 0 };
            let beginnings = rtvs.iter().map(|&t| (t, self.pick(&[0, 0, 0, 1, 2]))).collect();
            let dsv = dsv.map(|d| (d, self.pick(&[0, 0, 1]), self.pick(&[0, 1])));
            out.push(rec(Cmd::BeginPass { rtvs: beginnings, dsv, flags }));
        } else {
            out.push(rec(Cmd::SetTargets { rtvs: rtvs.clone(), dsv }));
        }
        // Valid sequences wrap the clears in one matched query; wild ones scatter queries.
        let query = (self.wild == 0.0 && self.chance(0.3)).then(|| {
            (self.index(), self.pick(&[QueryType::Occlusion, QueryType::PipelineStatistics]), self.rng.u32(0..4))
        });
        if let Some((heap, ty, index)) = query {
            out.push(rec(Cmd::BeginQuery { heap, ty, index }));
        }
        for _ in 0..self.rng.usize(1..4) {
            let cmd = loop {
                let c = self.cmd();
                let query = matches!(c, Cmd::BeginQuery { .. } | Cmd::EndQuery { .. });
                if matches!(c, Cmd::ClearBoundRtv { .. } | Cmd::ClearBoundDsv { .. }) || query && self.wild > 0.0 {
                    break c;
                }
            };
            out.push(rec(cmd));
        }
        if let Some((heap, ty, index)) = query {
            out.push(rec(Cmd::EndQuery { heap, ty, index }));
        }
        if pass {
            out.push(rec(Cmd::EndPass));
        }
        out.push(rec(Cmd::Transition { textures: rtvs, from: BarrierLayout::RenderTarget, to: BarrierLayout::Common }));
        out.extend(dsv.map(|d| {
            rec(Cmd::Transition {
                textures: vec![d],
                from: BarrierLayout::DepthStencilWrite,
                to: BarrierLayout::Common,
            })
        }));
    }

    /// A whole sequence of about `len` steps: wild sequences interleave every step at random;
    /// valid ones run lists through their lives (open, record, close, execute, signal, reset),
    /// so that most of their work reaches the device.
    pub fn sequence(&mut self, len: usize) -> Vec<Step> {
        let mut out = Vec::with_capacity(len + 16);
        for _ in 0..self.rng.usize(4..10) {
            out.push(self.object());
        }
        if self.wild == 0.0 {
            while out.len() < len {
                self.episode(&mut out);
            }
            return out;
        }
        let ty = |g: &mut Gen| {
            g.pick(&[
                CommandListType::Direct,
                CommandListType::Direct,
                CommandListType::Compute,
                CommandListType::Copy,
                CommandListType::Bundle,
            ])
        };
        let first = ty(self);
        out.push(Step::Open { ty: first, reuse: None });
        while out.len() < len {
            let list = self.index();
            let step = match self.rng.u8(..40) {
                0..=3 => self.object(),
                4..=5 => Step::Open { ty: ty(self), reuse: self.chance(0.3).then(|| self.index()) },
                6..=8 => Step::Close { list },
                9..=11 => Step::Execute { lists: (0..self.rng.usize(1..3)).map(|_| self.index()).collect() },
                12 => Step::ResetAllocator { list },
                13 => Step::ResetList { list },
                14 => Step::QueueSignal { queue: self.rng.usize(..3), fence: self.index(), value: self.u64(0..12) },
                15 => Step::QueueWait { queue: self.rng.usize(..3), fence: self.index(), value: self.u64(0..12) },
                16 => Step::CpuSignal { fence: self.index(), value: self.u64(0..12) },
                17 => Step::CpuWait { fence: self.index(), value: self.u64(0..12) },
                18 => Step::DropResource { index: self.index() },
                19 => Step::WaitIdle,
                20..=23 => {
                    self.target_work(list, &mut out);
                    continue;
                }
                _ => {
                    out.push(Step::Record { list, cmd: self.cmd() });
                    continue;
                }
            };
            out.push(step);
        }
        out
    }

    /// One list's life in a valid sequence: a new list (the executor numbers lists in the
    /// order they open, so this one is `LAST`), a few commands with barriers between them,
    /// close, execute, and sometimes a fence signal and wait or an allocator reset.
    fn episode(&mut self, out: &mut Vec<Step>) {
        let ty = self.pick(&[
            CommandListType::Direct,
            CommandListType::Direct,
            CommandListType::Direct,
            CommandListType::Compute,
            CommandListType::Copy,
        ]);
        if self.chance(0.2) {
            out.push(self.object());
        }
        out.push(Step::Open { ty, reuse: None });
        for _ in 0..self.rng.usize(1..6) {
            if ty == CommandListType::Direct && self.chance(0.25) {
                self.target_work(LAST, out);
                continue;
            }
            let cmd = loop {
                let c = self.cmd();
                if legal_on(&c, ty) {
                    break c;
                }
            };
            out.push(Step::Record { list: LAST, cmd });
            out.push(Step::Record { list: LAST, cmd: Cmd::FullBarrier });
        }
        out.push(Step::Close { list: LAST });
        out.push(Step::Execute { lists: vec![LAST] });
        let queue = match ty {
            CommandListType::Compute => 1,
            CommandListType::Copy => 2,
            _ => 0,
        };
        if self.chance(0.3) {
            let fence = self.index();
            let value = self.rng.u64(1..1000);
            out.push(Step::QueueSignal { queue, fence, value });
            out.push(Step::QueueWait { queue: self.rng.usize(..3), fence, value });
        }
        if self.chance(0.2) {
            out.push(Step::ResetAllocator { list: LAST });
        }
    }
}

/// The list opened last (an index the executor resolves to its newest list).
pub const LAST: usize = usize::MAX;

/// Whether a valid sequence records `cmd` on a list of `ty` (the queue rules of each call).
fn legal_on(cmd: &Cmd, ty: CommandListType) -> bool {
    let copy = matches!(
        cmd,
        Cmd::CopyBuffer { .. }
            | Cmd::CopyTexture { .. }
            | Cmd::CopyResource { .. }
            | Cmd::CopyTiles { .. }
            | Cmd::ResolveQuery { .. }
    );
    let compute = copy
        || matches!(cmd, Cmd::Fill { .. } | Cmd::ClearTexture { .. } | Cmd::Dispatch { .. } | Cmd::Predicate { .. });
    match ty {
        CommandListType::Copy => copy,
        CommandListType::Compute => compute,
        _ => !matches!(cmd, Cmd::BeginQuery { .. } | Cmd::EndQuery { .. } | Cmd::ExecuteBundle { .. }),
    }
}

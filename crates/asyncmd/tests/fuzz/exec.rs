//! Runs a generated sequence through the public API and says what came of it: the result of
//! every step that has one, and the bytes every resource holds at the end.
//!
//! For the differential modes a resource whose bytes the specification leaves open is
//! *tainted* and not compared: query results (the fallback's draws count, timestamps differ),
//! destinations written twice by one call (parts are unordered), clears whose value a legacy
//! view clear may round, and whatever is copied out of a tainted resource.

use crate::gen::{Cmd, Loc, Step};
use asyncmd::types::*;
use asyncmd::*;
use std::collections::HashMap;
use std::time::Duration;

const LAYOUTS: &[BarrierLayout] = &[
    BarrierLayout::Undefined,
    BarrierLayout::Common,
    BarrierLayout::GenericRead,
    BarrierLayout::RenderTarget,
    BarrierLayout::UnorderedAccess,
    BarrierLayout::DepthStencilWrite,
    BarrierLayout::DepthStencilRead,
    BarrierLayout::ShaderResource,
    BarrierLayout::CopySource,
    BarrierLayout::CopyDest,
    BarrierLayout::ResolveSource,
    BarrierLayout::ResolveDest,
    BarrierLayout::DirectQueueCommon,
    BarrierLayout::DirectQueueCopyDest,
    BarrierLayout::ComputeQueueCommon,
    BarrierLayout::ComputeQueueCopySource,
    BarrierLayout::VideoDecodeRead,
];

/// How long a step may wait for the GPU. Short: a sequence may wait on what never comes.
const STEP_WAIT: Duration = Duration::from_millis(5);
/// How long the end of a sequence waits for all work, once every fence has been released.
const FINAL_WAIT: Duration = Duration::from_secs(20);

struct Res {
    resource: Resource,
    rtv: Option<(CpuDescriptorHandle, DescriptorHeap)>,
    dsv: Option<(CpuDescriptorHandle, DescriptorHeap)>,
    _tile_heap: Option<Heap>,
    tainted: bool,
}

struct List {
    list: CommandList,
    allocator: CommandAllocator,
    /// Predicated by a tainted buffer: whatever the list writes from then on is tainted.
    tainted_predicate: bool,
    /// Targets bound by `OMSetRenderTargets` or the open pass, and whether a pass is open.
    targets: (Vec<usize>, Option<usize>, bool),
}

/// What a run of one sequence came to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// One line per step with a result: its index and the error code and message id, or "ok".
    pub results: Vec<String>,
    /// Bytes of every untainted resource at the end, by creation index.
    pub contents: Vec<(usize, Vec<u8>)>,
    /// The fallback could not lower a call the native path took: outcomes differ by design.
    pub fallback_refused: bool,
    /// For each result: the device refused the call as beyond it (`Unsupported`,
    /// `DeviceUnsupported`, out of memory, or a text saying it does not support it). Another
    /// device may take that call, so two devices' outcomes may differ from there on.
    pub beyond: Vec<bool>,
}

/// A device under test and the objects one sequence made on it.
pub struct World {
    device: Device,
    queues: [CommandQueue; 3],
    valid: bool,
    resources: Vec<Res>,
    query_heaps: Vec<(QueryHeap, bool)>,
    /// Each fence, the highest value signalled or waited for, and the highest signalled.
    fences: Vec<(Fence, u64, u64)>,
    lists: Vec<List>,
    fill: Option<(RootSignature, PipelineState)>,
    /// Valid sequences only: the fence that orders executions across queues, its last value,
    /// and the queue that executed last.
    order: Option<(Fence, u64, usize)>,
    out: Outcome,
}

fn code(r: &Result<()>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => format!("{:?} {:?}", e.code, e.id),
    }
}

impl World {
    /// A world on `device`. `valid`: the sequence is meant to be correct, so steps whose
    /// outcome depends on timing (resets, host writes) wait for the GPU first, as an app would.
    pub fn new(device: Device, valid: bool) -> Result<Self> {
        let queues = [
            device.create_command_queue(CommandListType::Direct)?,
            device.create_command_queue(CommandListType::Compute)?,
            device.create_command_queue(CommandListType::Copy)?,
        ];
        let fill = crate::common::fill_pipeline_on(&device).ok();
        let order = if valid { Some((device.create_fence(0)?, 0, 0)) } else { None };
        Ok(Self {
            order,
            device,
            queues,
            valid,
            resources: Vec::new(),
            query_heaps: Vec::new(),
            fences: Vec::new(),
            lists: Vec::new(),
            fill,
            out: Outcome::default(),
        })
    }

    fn log(&mut self, step: usize, what: &str, r: &Result<()>) {
        self.out.beyond.push(r.as_ref().is_err_and(|e| {
            matches!(e.code, ErrorCode::Unsupported | ErrorCode::OutOfMemory)
                || e.id == MessageId::DeviceUnsupported
                || e.text.contains("not support")
        }));
        if let Err(e) = r {
            if e.id == MessageId::AsyncCommandsFallbackUnsupported {
                self.out.fallback_refused = true;
            }
            if std::env::var("ASYNCMD_FUZZ_PRINT").is_ok_and(|v| v == "errors") {
                eprintln!("step {step}, {what}: {}", e.text);
            }
        }
        self.out.results.push(format!("{step} {what}: {}", code(r)));
    }

    /// Runs every step, then releases every fence, waits for the GPU and reads everything back.
    pub fn run(mut self, steps: &[Step]) -> std::result::Result<Outcome, String> {
        for (i, step) in steps.iter().enumerate() {
            self.step(i, step);
        }
        self.finish()?;
        Ok(self.out)
    }

    /// Which queues are busy, and each fence's value against the highest waited for and
    /// signalled: what a stall report needs.
    fn stuck(&self) -> String {
        let busy: Vec<_> = self
            .queues
            .iter()
            .filter(|q| q.wait_idle(Duration::ZERO).is_err())
            .map(|q| format!("{:?}", q.ty()))
            .collect();
        let fences: Vec<_> = self
            .fences
            .iter()
            .map(|(f, highest, signalled)| format!("{}/{highest}/{signalled}", f.completed_value()))
            .collect();
        format!("busy queues {busy:?}; fences (value/highest waited/highest signalled) {fences:?}")
    }

    fn idle(&self, timeout: Duration) -> bool {
        self.queues.iter().all(|q| q.wait_idle(timeout).is_ok())
    }

    fn buffer(&self, i: usize) -> Option<usize> {
        let buffers: Vec<usize> =
            (0..self.resources.len()).filter(|&r| self.resources[r].resource.desc().is_buffer()).collect();
        (!buffers.is_empty()).then(|| buffers[i % buffers.len()])
    }

    fn texture(&self, i: usize) -> Option<usize> {
        let textures: Vec<usize> =
            (0..self.resources.len()).filter(|&r| !self.resources[r].resource.desc().is_buffer()).collect();
        (!textures.is_empty()).then(|| textures[i % textures.len()])
    }

    fn step(&mut self, i: usize, step: &Step) {
        match step {
            Step::Buffer { heap, size, uav } => {
                let mut desc = ResourceDesc::buffer(*size);
                if *uav {
                    desc.flags = ResourceFlags::ALLOW_UNORDERED_ACCESS;
                }
                let r = self.device.create_committed_resource(*heap, &desc, BarrierLayout::Undefined);
                self.created(i, "buffer", r, None);
            }
            Step::Texture { desc, layout } => {
                let r = self.device.create_committed_resource(HeapType::Default, desc, *layout);
                self.created(i, "texture", r, None);
            }
            Step::Reserved { desc, tiles } => {
                let r = self.device.create_reserved_resource(desc, BarrierLayout::Common);
                let mut heap = None;
                if let Ok(res) = &r {
                    if let Ok(h) = self.device.create_heap((*tiles).clamp(1, 64) as u64 * TILE_SIZE_IN_BYTES) {
                        let mapping =
                            TileRangeMapping { coordinate: Default::default(), num_tiles: *tiles, heap: Some((&h, 0)) };
                        let m = self.queues[0].update_tile_mappings(res, &[mapping]);
                        self.log(i, "map tiles", &m);
                        heap = Some(h);
                    }
                }
                self.created(i, "reserved", r, heap);
            }
            Step::QueryHeap { ty, count } => {
                let r = self.device.create_query_heap(&QueryHeapDesc { ty: *ty, count: *count });
                self.log(i, "query heap", &r.as_ref().map(|_| ()).map_err(Clone::clone));
                if let Ok(h) = r {
                    self.query_heaps.push((h, false));
                }
            }
            Step::Fence { initial } => {
                let r = self.device.create_fence(*initial);
                self.log(i, "fence", &r.as_ref().map(|_| ()).map_err(Clone::clone));
                if let Ok(f) = r {
                    self.fences.push((f, *initial, *initial));
                }
            }
            Step::Upload { buffer, offset, len, seed } => {
                let Some(b) = self.buffer(*buffer) else { return };
                if self.valid && !self.idle(FINAL_WAIT) {
                    return;
                }
                // Just past the buffer at most: still out of range where the length is.
                let width = self.resources[b].resource.desc().width;
                let len = (*len as u64).min(width.saturating_add(64)) as u32;
                let data: Vec<u8> = (0..len).map(|k| (k.wrapping_mul(31) ^ seed) as u8).collect();
                let r = self.resources[b].resource.write(*offset, &data);
                self.log(i, "upload", &r);
            }
            Step::Open { ty, reuse } => {
                let reused = reuse
                    .and_then(|r| (!self.lists.is_empty()).then(|| self.lists[r % self.lists.len()].allocator.clone()))
                    .filter(|a| a.command_list_type() == *ty);
                let allocator = match reused {
                    Some(a) => a,
                    None => match self.device.create_command_allocator(*ty) {
                        Ok(a) => a,
                        Err(e) => return self.log(i, "allocator", &Err(e)),
                    },
                };
                let r = self.device.create_command_list(*ty, &allocator);
                self.log(i, "open", &r.as_ref().map(|_| ()).map_err(Clone::clone));
                if let Ok(list) = r {
                    self.lists.push(List {
                        list,
                        allocator,
                        tainted_predicate: false,
                        targets: (Vec::new(), None, false),
                    });
                }
            }
            Step::Record { list, cmd } => {
                if let Some(l) = self.pick_list(*list) {
                    self.record(l, cmd);
                }
            }
            Step::Close { list } => {
                if let Some(l) = self.pick_list(*list) {
                    let r = self.lists[l].list.close();
                    self.log(i, "close", &r);
                }
            }
            Step::Execute { lists } => {
                let picked: Vec<usize> = lists.iter().filter_map(|&l| self.pick_list(l)).collect();
                let Some(&first) = picked.first() else { return };
                let q = match self.lists[first].list.ty() {
                    CommandListType::Compute => 1,
                    CommandListType::Copy => 2,
                    _ => 0,
                };
                // Valid sequences order work across queues, as an app must: queues run
                // concurrently, so an execution on another queue than the last one waits for
                // the last one's work with a fence.
                if let Some((fence, value, last)) = &mut self.order {
                    if *last != q {
                        *value += 1;
                        let ordered =
                            self.queues[*last].signal(fence, *value).and_then(|()| self.queues[q].wait(fence, *value));
                        if let Err(e) = ordered {
                            self.out.results.push(format!("{i} order: {:?} {:?}", e.code, e.id));
                        }
                        *last = q;
                    }
                }
                let refs: Vec<&CommandList> = picked.iter().map(|&l| &self.lists[l].list).collect();
                let r = self.queues[q].execute_command_lists(&refs);
                self.log(i, "execute", &r);
            }
            Step::ResetAllocator { list } => {
                if let Some(l) = self.pick_list(*list) {
                    if self.valid && !self.idle(FINAL_WAIT) {
                        return;
                    }
                    let r = self.lists[l].allocator.reset();
                    if !self.valid {
                        return;
                    }
                    self.log(i, "reset allocator", &r);
                }
            }
            Step::ResetList { list } => {
                if let Some(l) = self.pick_list(*list) {
                    if self.valid && !self.idle(FINAL_WAIT) {
                        return;
                    }
                    let allocator = self.lists[l].allocator.clone();
                    let r = self.lists[l].list.reset(&allocator);
                    self.lists[l].targets = (Vec::new(), None, false);
                    self.lists[l].tainted_predicate = false;
                    self.log(i, "reset list", &r);
                }
            }
            Step::QueueSignal { queue, fence, value } => {
                if let Some(f) = self.pick_fence(*fence) {
                    let r = self.queues[*queue % 3].signal(&self.fences[f].0, *value);
                    if r.is_ok() {
                        self.fences[f].1 = self.fences[f].1.max(*value);
                        self.fences[f].2 = self.fences[f].2.max(*value);
                    }
                    self.log(i, "queue signal", &r);
                }
            }
            Step::QueueWait { queue, fence, value } => {
                if let Some(f) = self.pick_fence(*fence) {
                    // Valid sequences wait only for what has been signalled (or will be).
                    let value = if self.valid { (*value).min(self.fences[f].1) } else { *value };
                    let r = self.queues[*queue % 3].wait(&self.fences[f].0, value);
                    if r.is_ok() {
                        self.fences[f].1 = self.fences[f].1.max(value);
                    }
                    self.log(i, "queue wait", &r);
                }
            }
            Step::CpuSignal { fence, value } => {
                if let Some(f) = self.pick_fence(*fence) {
                    let r = self.fences[f].0.signal(*value);
                    if r.is_ok() {
                        self.fences[f].1 = self.fences[f].1.max(*value);
                        self.fences[f].2 = self.fences[f].2.max(*value);
                    }
                    self.log(i, "cpu signal", &r);
                }
            }
            Step::CpuWait { fence, value } => {
                if let Some(f) = self.pick_fence(*fence) {
                    // Whether it is reached in time depends on timing: not an outcome.
                    let _ = self.fences[f].0.wait(*value, STEP_WAIT);
                }
            }
            Step::DropResource { index } => {
                if !self.resources.is_empty() {
                    let n = index % self.resources.len();
                    self.resources.remove(n);
                    // Bindings name resources by index; the app's views stay valid regardless.
                    for l in &mut self.lists {
                        l.targets = (Vec::new(), None, l.targets.2);
                    }
                }
            }
            Step::WaitIdle => {
                let _ = self.idle(STEP_WAIT);
            }
        }
    }

    fn created(&mut self, i: usize, what: &str, r: Result<Resource>, tile_heap: Option<Heap>) {
        self.log(i, what, &r.as_ref().map(|_| ()).map_err(Clone::clone));
        let Ok(resource) = r else { return };
        let flags = resource.desc().flags;
        let view = |ty: DescriptorHeapType, make: &dyn Fn(&CpuDescriptorHandle) -> Result<()>| {
            let heap = self.device.create_descriptor_heap(ty, 1).ok()?;
            make(&heap.handle(0)).ok()?;
            Some((heap.handle(0), heap))
        };
        let rtv = flags
            .contains(ResourceFlags::ALLOW_RENDER_TARGET)
            .then(|| view(DescriptorHeapType::Rtv, &|h| self.device.create_render_target_view(&resource, None, h)))
            .flatten();
        let dsv = flags
            .contains(ResourceFlags::ALLOW_DEPTH_STENCIL)
            .then(|| view(DescriptorHeapType::Dsv, &|h| self.device.create_depth_stencil_view(&resource, None, h)))
            .flatten();
        // Reserved resources and multisampled textures are not compared (tiles and samples).
        let tainted = tile_heap.is_some() || resource.is_reserved() || resource.desc().is_msaa();
        self.resources.push(Res { resource, rtv, dsv, _tile_heap: tile_heap, tainted });
    }

    fn pick_list(&self, i: usize) -> Option<usize> {
        match i {
            crate::gen::LAST => self.lists.len().checked_sub(1),
            _ => (!self.lists.is_empty()).then(|| i % self.lists.len()),
        }
    }

    fn pick_fence(&self, i: usize) -> Option<usize> {
        (!self.fences.is_empty()).then(|| i % self.fences.len())
    }

    /// Marks `dst` written by list `l`, from `sources`.
    fn wrote(&mut self, l: usize, dst: usize, sources: &[usize]) {
        let t = self.lists[l].tainted_predicate || sources.iter().any(|&s| self.resources[s].tainted);
        if t {
            self.resources[dst].tainted = true;
        }
    }

    /// Which parts of one call a valid sequence keeps: those that neither write a resource an
    /// earlier kept part wrote or read, nor read one it wrote. The parts of one call are
    /// unordered, so any other part would be the sequence's own race (and synchronization
    /// validation would report it). A wild sequence keeps every part.
    fn unordered_parts(&self, parts: &[(usize, Option<usize>)]) -> Vec<bool> {
        let (mut written, mut read) = (Vec::new(), Vec::new());
        parts
            .iter()
            .map(|&(d, s)| {
                let keep = !self.valid
                    || !written.contains(&d) && !read.contains(&d) && s.is_none_or(|s| !written.contains(&s) && s != d);
                if keep {
                    written.push(d);
                    read.extend(s);
                }
                keep
            })
            .collect()
    }

    /// Taints destinations that one call names more than once (its parts are unordered).
    fn taint_repeats(&mut self, dsts: &[usize]) {
        let mut seen = HashMap::new();
        for &d in dsts {
            if seen.insert(d, ()).is_some() {
                self.resources[d].tainted = true;
            }
        }
    }

    fn loc(&self, loc: &Loc) -> Option<(usize, CopyLocationKind)> {
        Some(match loc {
            Loc::Sub { texture, sub } => (self.texture(*texture)?, CopyLocationKind::Subresource(*sub)),
            Loc::Footprint { buffer, placed } => (self.buffer(*buffer)?, CopyLocationKind::PlacedFootprint(*placed)),
        })
    }

    fn record(&mut self, l: usize, cmd: &Cmd) {
        let res = |w: &World, i: usize| w.resources[i].resource.clone();
        match cmd {
            Cmd::CopyBuffer { dst, dst_offset, src, src_offset, size, many } => {
                let (Some(d), Some(s)) = (self.buffer(*dst), self.buffer(*src)) else { return };
                let (dr, sr) = (res(self, d), res(self, s));
                if *many {
                    let region = BufferCopyRegion {
                        dest: &dr,
                        dest_offset: *dst_offset,
                        source: &sr,
                        source_offset: *src_offset,
                        size: *size,
                    };
                    let half = BufferCopyRegion { size: size / 2, ..region };
                    // Two writes of one range race: only wild sequences make them.
                    let regions = if self.valid { vec![region] } else { vec![region, half] };
                    self.lists[l].list.copy_buffer_regions(&regions);
                    self.resources[d].tainted |= !self.valid && size / 2 > 0;
                } else {
                    self.lists[l].list.copy_buffer_region(&dr, *dst_offset, &sr, *src_offset, *size);
                }
                self.wrote(l, d, &[s]);
            }
            Cmd::CopyTexture { copies, many } => {
                let mut resolved: Vec<_> =
                    copies.iter().filter_map(|(d, s, r)| Some((self.loc(d)?, self.loc(s)?, r.clone()))).collect();
                let parts: Vec<(usize, Option<usize>)> =
                    resolved.iter().map(|((d, _), (s, _), _)| (*d, Some(*s))).collect();
                let mut keep = self.unordered_parts(&parts).into_iter();
                resolved.retain(|_| keep.next().unwrap_or(true));
                if self.valid {
                    // Regions of one entry are unordered too, and may overlap.
                    for (_, _, regions) in &mut resolved {
                        regions.truncate(1);
                    }
                }
                let owned: Vec<(Resource, CopyLocationKind, Resource, CopyLocationKind, Vec<TextureCopyRegion>)> =
                    resolved
                        .iter()
                        .map(|((d, dk), (s, sk), r)| (res(self, *d), *dk, res(self, *s), *sk, r.clone()))
                        .collect();
                if *many {
                    let descs: Vec<TextureCopyDesc<&Resource>> = owned
                        .iter()
                        .filter_map(|(d, dk, s, sk, regions)| {
                            let kind = match (dk, sk) {
                                (CopyLocationKind::Subresource(a), CopyLocationKind::Subresource(b)) => {
                                    TextureCopyKind::TextureToTexture {
                                        dest: d,
                                        dest_subresource: *a,
                                        source: s,
                                        source_subresource: *b,
                                    }
                                }
                                (CopyLocationKind::Subresource(a), CopyLocationKind::PlacedFootprint(f)) => {
                                    TextureCopyKind::BufferToTexture {
                                        buffer: s,
                                        texture: d,
                                        subresource: *a,
                                        footprint: *f,
                                    }
                                }
                                (CopyLocationKind::PlacedFootprint(f), CopyLocationKind::Subresource(b)) => {
                                    TextureCopyKind::TextureToBuffer {
                                        buffer: d,
                                        texture: s,
                                        subresource: *b,
                                        footprint: *f,
                                    }
                                }
                                _ => return None,
                            };
                            Some(TextureCopyDesc { kind, regions: regions.clone() })
                        })
                        .collect();
                    self.lists[l].list.copy_texture_regions(&descs);
                    let dsts: Vec<usize> = resolved.iter().map(|((d, _), _, _)| *d).collect();
                    self.taint_repeats(&dsts);
                    for ((d, _), _, r) in &resolved {
                        if r.len() > 1 {
                            self.resources[*d].tainted = true;
                        }
                    }
                } else if let Some((d, dk, s, sk, regions)) = owned.first() {
                    let region = regions.first().cloned().unwrap_or(TextureCopyRegion {
                        dest_x: 0,
                        dest_y: 0,
                        dest_z: 0,
                        source_box: None,
                    });
                    let (dl, sl) = (
                        TextureCopyLocation { resource: d, kind: *dk },
                        TextureCopyLocation { resource: s, kind: *sk },
                    );
                    self.lists[l].list.copy_texture_region(
                        &dl,
                        region.dest_x,
                        region.dest_y,
                        region.dest_z,
                        &sl,
                        region.source_box.as_ref(),
                    );
                }
                for ((d, _), (s, _), _) in &resolved {
                    self.wrote(l, *d, &[*s]);
                }
            }
            Cmd::CopyResource { pairs, many } => {
                let mut idx: Vec<(usize, usize)> = pairs
                    .iter()
                    .filter_map(|&(d, s)| {
                        let pick = |i| if d % 2 == 0 { self.buffer(i) } else { self.texture(i) };
                        Some((pick(d)?, pick(s)?))
                    })
                    .collect();
                let parts: Vec<(usize, Option<usize>)> = idx.iter().map(|&(d, s)| (d, Some(s))).collect();
                let mut keep = self.unordered_parts(&parts).into_iter();
                idx.retain(|_| keep.next().unwrap_or(true));
                let owned: Vec<(Resource, Resource)> = idx.iter().map(|&(d, s)| (res(self, d), res(self, s))).collect();
                if *many {
                    let refs: Vec<(&Resource, &Resource)> = owned.iter().map(|(d, s)| (d, s)).collect();
                    self.lists[l].list.copy_resources(&refs);
                    self.taint_repeats(&idx.iter().map(|p| p.0).collect::<Vec<_>>());
                } else if let Some((d, s)) = owned.first() {
                    self.lists[l].list.copy_resource(d, s);
                }
                for &(d, s) in &idx {
                    self.wrote(l, d, &[s]);
                }
            }
            Cmd::CopyTiles { resource, start, size, buffer, offset, flags, many } => {
                let (Some(r), Some(b)) = (self.texture(*resource).or(self.buffer(*resource)), self.buffer(*buffer))
                else {
                    return;
                };
                let (rr, br) = (res(self, r), res(self, b));
                let flags = TileCopyFlags::from_bits_truncate(*flags);
                if *many {
                    self.lists[l].list.copy_tiles_async(&rr, start, size, &br, *offset, flags);
                } else {
                    self.lists[l].list.copy_tiles(&rr, start, size, &br, *offset, flags);
                }
                self.resources[b].tainted = true;
            }
            Cmd::Resolve { dst, dst_sub, at, src, src_sub, rect, format, mode, many } => {
                let (Some(d), Some(s)) = (self.texture(*dst), self.texture(*src)) else { return };
                let (dr, sr) = (res(self, d), res(self, s));
                let list = &mut self.lists[l].list;
                if *many {
                    list.resolve_subresource_region_async(
                        &dr,
                        *dst_sub,
                        at.0,
                        at.1,
                        &sr,
                        *src_sub,
                        rect.as_ref(),
                        *format,
                        *mode,
                    );
                } else {
                    list.resolve_subresource_region(
                        &dr,
                        *dst_sub,
                        at.0,
                        at.1,
                        &sr,
                        *src_sub,
                        rect.as_ref(),
                        *format,
                        *mode,
                    );
                }
                self.wrote(l, d, &[s]);
            }
            Cmd::ResolveQuery { heap, ty, start, count, dst, offset, many } => {
                let (Some(d), false) = (self.buffer(*dst), self.query_heaps.is_empty()) else { return };
                let h = self.query_heaps[heap % self.query_heaps.len()].0.clone();
                let dr = res(self, d);
                if *many {
                    self.lists[l].list.resolve_query_data_async(&h, *ty, *start, *count, &dr, *offset);
                } else {
                    self.lists[l].list.resolve_query_data(&h, *ty, *start, *count, &dr, *offset);
                }
                self.resources[d].tainted = true;
            }
            Cmd::Fill { fills } => {
                let idx: Vec<usize> = fills.iter().filter_map(|f| self.buffer(f.0)).collect();
                if idx.len() != fills.len() {
                    return;
                }
                let keep = self.unordered_parts(&idx.iter().map(|&b| (b, None)).collect::<Vec<_>>());
                let (fills, idx): (Vec<&crate::gen::FillPart>, Vec<usize>) =
                    fills.iter().zip(idx).zip(&keep).filter(|(_, k)| **k).map(|(p, _)| p).unzip();
                let owned: Vec<Resource> = idx.iter().map(|&b| res(self, b)).collect();
                let descs: Vec<FillBufferDesc<&Resource>> = fills
                    .iter()
                    .zip(&owned)
                    .map(|(f, b)| FillBufferDesc {
                        buffer: b,
                        offset: f.1,
                        fill_value: ClearData { bytes: f.2 },
                        format: f.3,
                        raw_pattern_size: f.4,
                        repeat_count: f.5,
                    })
                    .collect();
                self.lists[l].list.fill_buffers(&descs);
                self.taint_repeats(&idx);
                for &b in &idx {
                    self.wrote(l, b, &[]);
                }
            }
            Cmd::ClearTexture { clears } => {
                let idx: Vec<usize> = clears.iter().filter_map(|c| self.texture(c.0)).collect();
                if idx.len() != clears.len() {
                    return;
                }
                let keep = self.unordered_parts(&idx.iter().map(|&t| (t, None)).collect::<Vec<_>>());
                let (clears, idx): (Vec<&crate::gen::ClearPart>, Vec<usize>) =
                    clears.iter().zip(idx).zip(&keep).filter(|(_, k)| **k).map(|(p, _)| p).unzip();
                let owned: Vec<Resource> = idx.iter().map(|&t| res(self, t)).collect();
                let descs: Vec<ClearTextureDesc<&Resource>> = clears
                    .iter()
                    .zip(&owned)
                    .map(|(c, t)| ClearTextureDesc {
                        texture: t,
                        subresource: c.1,
                        clear_value: ClearData { bytes: c.2 },
                        format: c.3,
                        region: c.4,
                    })
                    .collect();
                self.lists[l].list.clear_texture_subresources(&descs);
                self.taint_repeats(&idx);
                for &t in &idx {
                    self.wrote(l, t, &[]);
                }
            }
            Cmd::ClearRtv { texture, color, rects } => {
                let Some(t) = self.texture(*texture) else { return };
                let Some((h, _)) = self.resources[t].rtv.clone() else { return };
                self.lists[l].list.clear_render_target_view(&h, *color, rects);
                // A legacy view clear of a float value may round differently per device.
                self.resources[t].tainted = true;
            }
            Cmd::ClearDsv { texture, flags, depth, stencil, rects } => {
                let Some(t) = self.texture(*texture) else { return };
                let Some((h, _)) = self.resources[t].dsv.clone() else { return };
                self.lists[l].list.clear_depth_stencil_view(
                    &h,
                    ClearFlags::from_bits_truncate(*flags),
                    *depth,
                    *stencil,
                    rects,
                );
                self.wrote(l, t, &[]);
            }
            Cmd::SetTargets { rtvs, dsv } => {
                let rt: Vec<usize> =
                    rtvs.iter().filter_map(|&i| self.texture(i)).filter(|&t| self.resources[t].rtv.is_some()).collect();
                let ds = dsv.and_then(|i| self.texture(i)).filter(|&t| self.resources[t].dsv.is_some());
                let handles: Vec<CpuDescriptorHandle> =
                    rt.iter().filter_map(|&t| self.resources[t].rtv.as_ref().map(|v| v.0.clone())).collect();
                let dh = ds.and_then(|t| self.resources[t].dsv.as_ref().map(|v| v.0.clone()));
                self.lists[l].list.om_set_render_targets(&handles, dh.as_ref());
                self.lists[l].targets = (rt, ds, false);
            }
            Cmd::BeginPass { rtvs, dsv, flags } => {
                let access = |b: u8| match b {
                    1 => BeginningAccess::NoAccess,
                    2 => BeginningAccess::Discard,
                    _ => BeginningAccess::Preserve,
                };
                let rt: Vec<(usize, u8)> = rtvs
                    .iter()
                    .filter_map(|&(i, b)| Some((self.texture(i)?, b)))
                    .filter(|(t, _)| self.resources[*t].rtv.is_some())
                    .collect();
                let ds = dsv
                    .and_then(|(i, a, b)| Some((self.texture(i)?, a, b)))
                    .filter(|(t, _, _)| self.resources[*t].dsv.is_some());
                let targets: Vec<RenderPassRenderTarget<CpuDescriptorHandle, &Resource>> = rt
                    .iter()
                    .map(|&(t, b)| RenderPassRenderTarget {
                        view: self.resources[t].rtv.as_ref().map(|v| v.0.clone()).unwrap_or_else(|| unreachable!()),
                        beginning: access(b),
                        ending: if b == 1 { EndingAccess::NoAccess } else { EndingAccess::Preserve },
                    })
                    .collect();
                let depth = ds.map(|(t, a, b)| RenderPassDepthStencil {
                    view: self.resources[t].dsv.as_ref().map(|v| v.0.clone()).unwrap_or_else(|| unreachable!()),
                    depth_beginning: access(a),
                    stencil_beginning: access(b),
                    depth_ending: if a == 1 { EndingAccess::NoAccess } else { EndingAccess::Preserve },
                    stencil_ending: if b == 1 { EndingAccess::NoAccess } else { EndingAccess::Preserve },
                });
                self.lists[l].list.begin_render_pass(
                    &targets,
                    depth.as_ref(),
                    RenderPassFlags::from_bits_truncate(*flags),
                );
                for &(t, b) in &rt {
                    if b == 2 {
                        self.resources[t].tainted = true;
                    }
                }
                if let Some((t, a, b)) = ds {
                    if a == 2 || b == 2 {
                        self.resources[t].tainted = true;
                    }
                }
                let bound = rt.iter().filter(|(_, b)| *b != 1).map(|(t, _)| *t).collect();
                self.lists[l].targets = (bound, ds.map(|d| d.0), true);
            }
            Cmd::EndPass => {
                self.lists[l].list.end_render_pass();
                self.lists[l].targets = (Vec::new(), None, false);
            }
            Cmd::ClearBoundRtv { mask, values, regions } => {
                let values: Vec<ClearData> = values.iter().map(|b| ClearData { bytes: *b }).collect();
                let owned: Option<Vec<Option<&[Box3]>>> =
                    regions.as_ref().map(|r| r.iter().map(|o| o.as_deref()).collect());
                self.lists[l].list.clear_bound_render_target_views(*mask, &values, owned.as_deref());
                let bound = self.lists[l].targets.0.clone();
                for (slot, &t) in bound.iter().enumerate() {
                    if mask & (1 << slot) == 0 {
                        continue;
                    }
                    let format = self.resources[t].resource.desc().format;
                    match values.get(slot) {
                        // The outside-pass shortcut and mixed cases use a legacy view clear,
                        // which may round where the value is not exact.
                        Some(v) if view_clear_exact(format, v) => self.wrote(l, t, &[]),
                        _ => self.resources[t].tainted = true,
                    }
                }
            }
            Cmd::ClearBoundDsv { flags, depth, stencil, regions } => {
                self.lists[l].list.clear_bound_depth_stencil_view(
                    ClearFlags::from_bits_truncate(*flags),
                    *depth,
                    *stencil,
                    regions.as_deref(),
                );
                if let Some(t) = self.lists[l].targets.1 {
                    self.wrote(l, t, &[]);
                }
            }
            Cmd::Transition { textures, from, to } => {
                let idx: Vec<usize> = textures.iter().filter_map(|&t| self.texture(t)).collect();
                let mut unique = idx.clone();
                unique.sort_unstable();
                unique.dedup();
                let owned: Vec<Resource> = unique.iter().map(|&t| res(self, t)).collect();
                let barriers: Vec<TextureBarrier<&Resource>> = owned
                    .iter()
                    .filter(|t| !t.desc().flags.contains(ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS))
                    .filter(|t| match to {
                        BarrierLayout::RenderTarget => t.desc().flags.contains(ResourceFlags::ALLOW_RENDER_TARGET),
                        BarrierLayout::DepthStencilWrite => t.desc().flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL),
                        _ => match from {
                            BarrierLayout::RenderTarget => t.desc().flags.contains(ResourceFlags::ALLOW_RENDER_TARGET),
                            BarrierLayout::DepthStencilWrite => {
                                t.desc().flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL)
                            }
                            _ => true,
                        },
                    })
                    .map(|t| crate::common::transition(t, *from, *to))
                    .collect();
                if !barriers.is_empty() {
                    self.lists[l].list.barrier(&[BarrierGroup::Texture(barriers)]);
                }
            }
            Cmd::WildBarrier { kind, target, sync, access, layout, range, flags } => {
                let sync = (BarrierSync::from_bits_retain(sync.0), BarrierSync::from_bits_retain(sync.1));
                let access = (BarrierAccess::from_bits_retain(access.0), BarrierAccess::from_bits_retain(access.1));
                let group = match kind {
                    0 => BarrierGroup::Global(vec![GlobalBarrier {
                        sync_before: sync.0,
                        sync_after: sync.1,
                        access_before: access.0,
                        access_after: access.1,
                    }]),
                    1 => {
                        let Some(b) = self.buffer(*target) else { return };
                        let r = res(self, b);
                        let barrier = BufferBarrier {
                            sync_before: sync.0,
                            sync_after: sync.1,
                            access_before: access.0,
                            access_after: access.1,
                            resource: &r,
                            offset: range.0 as u64,
                            size: if range.1 == 0 { u64::MAX } else { range.1 as u64 },
                        };
                        return self.lists[l].list.barrier(&[BarrierGroup::Buffer(vec![barrier])]);
                    }
                    _ => {
                        let Some(t) = self.texture(*target) else { return };
                        let r = res(self, t);
                        self.resources[t].tainted = true;
                        let barrier = TextureBarrier {
                            sync_before: sync.0,
                            sync_after: sync.1,
                            access_before: access.0,
                            access_after: access.1,
                            layout_before: LAYOUTS[layout.0 as usize % LAYOUTS.len()],
                            layout_after: LAYOUTS[layout.1 as usize % LAYOUTS.len()],
                            resource: &r,
                            subresources: BarrierSubresourceRange {
                                index_or_first_mip: if range.0 == 2 { u32::MAX } else { range.0 },
                                num_mip_levels: range.1,
                                first_array_slice: range.2,
                                num_array_slices: range.3,
                                first_plane: range.4,
                                num_planes: range.5,
                            },
                            flags: TextureBarrierFlags::from_bits_truncate(*flags),
                        };
                        return self.lists[l].list.barrier(&[BarrierGroup::Texture(vec![barrier])]);
                    }
                };
                self.lists[l].list.barrier(&[group]);
            }
            Cmd::FullBarrier => {
                let in_pass = self.lists[l].targets.2;
                let list = &mut self.lists[l].list;
                if list.ty() == CommandListType::Bundle || in_pass {
                    return;
                }
                let (sync, access) = if list.ty() == CommandListType::Copy {
                    (
                        BarrierSync::COPY,
                        (BarrierAccess::COPY_DEST, BarrierAccess::COPY_SOURCE | BarrierAccess::COPY_DEST),
                    )
                } else {
                    (BarrierSync::ALL, (BarrierAccess::COMMON, BarrierAccess::COMMON))
                };
                list.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                    sync_before: sync,
                    sync_after: sync,
                    access_before: access.0,
                    access_after: access.1,
                }])]);
            }
            Cmd::BeginQuery { heap, ty, index } | Cmd::EndQuery { heap, ty, index } => {
                // Valid sequences use a heap of the query's type.
                let heap_type = match ty {
                    QueryType::Timestamp => QueryHeapType::Timestamp,
                    QueryType::PipelineStatistics => QueryHeapType::PipelineStatistics,
                    _ => QueryHeapType::Occlusion,
                };
                let heaps: Vec<&QueryHeap> =
                    self.query_heaps.iter().map(|h| &h.0).filter(|h| !self.valid || h.desc().ty == heap_type).collect();
                if heaps.is_empty() {
                    return;
                }
                let h = heaps[heap % heaps.len()].clone();
                if matches!(cmd, Cmd::BeginQuery { .. }) {
                    self.lists[l].list.begin_query(&h, *ty, *index);
                } else {
                    self.lists[l].list.end_query(&h, *ty, *index);
                }
            }
            Cmd::Predicate { buffer, not_equal } => {
                let op = if *not_equal { PredicationOp::NotEqualZero } else { PredicationOp::EqualZero };
                match buffer.and_then(|(b, o)| Some((self.buffer(b)?, o))) {
                    Some((b, offset)) => {
                        let r = res(self, b);
                        self.lists[l].list.set_predication(Some((&r, offset)), op);
                        self.lists[l].tainted_predicate |= self.resources[b].tainted;
                    }
                    None => self.lists[l].list.set_predication(None, op),
                }
            }
            Cmd::Dispatch { buffer, constants, groups } => {
                let (Some(b), Some((root, pso))) = (self.buffer(*buffer), self.fill.clone()) else { return };
                let r = res(self, b);
                let list = &mut self.lists[l].list;
                list.set_pipeline_state(&pso);
                list.set_compute_root_signature(&root);
                list.set_compute_root_32bit_constants(0, constants, 0);
                list.set_compute_root_unordered_access_view(1, r.gpu_address(0));
                list.dispatch(groups.0, groups.1, groups.2);
                self.resources[b].tainted = true;
            }
            Cmd::ExecuteBundle { bundle } => {
                let Some(b) = self.pick_list(*bundle) else { return };
                if b == l {
                    return;
                }
                let (parent, bundle) = if l < b {
                    let (head, tail) = self.lists.split_at_mut(b);
                    (&mut head[l].list, &tail[0].list)
                } else {
                    let (head, tail) = self.lists.split_at_mut(l);
                    (&mut tail[0].list, &head[b].list)
                };
                parent.execute_bundle(bundle);
                // What the bundle writes is not followed: taint every texture bound here.
                for t in self.lists[l].targets.0.clone().into_iter().chain(self.lists[l].targets.1) {
                    self.resources[t].tainted = true;
                }
            }
        }
    }

    /// Releases every fence, waits for all work, and reads back what is compared: every
    /// untainted resource through one list of copies into readback buffers.
    fn finish(&mut self) -> std::result::Result<(), String> {
        // As an app releases a fence: up to the highest value waited for where no signal
        // reached it. Wild sequences may also have a queue wait before its own queue's signal
        // of the same value; just past it releases that.
        for (f, highest, signalled) in &self.fences {
            if highest > signalled {
                let _ = f.signal(*highest);
            } else if !self.valid && f.completed_value() < *highest {
                let _ = f.signal(highest.saturating_add(1));
            }
        }
        if !self.idle(FINAL_WAIT) {
            return Err(format!(
                "the queues did not go idle within {FINAL_WAIT:?} after every fence was released; {}",
                self.stuck()
            ));
        }
        let Ok(allocator) = self.device.create_command_allocator(CommandListType::Direct) else { return Ok(()) };
        let Ok(mut list) = self.device.create_command_list(CommandListType::Direct, &allocator) else { return Ok(()) };
        let mut reads = Vec::new();
        for (i, res) in self.resources.iter().enumerate() {
            let r = &res.resource;
            if res.tainted
                || (!r.desc().is_buffer()
                    && (0..r.desc().subresource_count())
                        .any(|s| r.layout(s).is_some_and(|l| l != BarrierLayout::Common)))
            {
                continue;
            }
            // Readback buffers are read in place. Upload buffers go through a copy like the
            // rest: on a GPU their memory can be write-combined device memory, where the CPU
            // reads a 4 GiB buffer for minutes (seed 6167 on the H200).
            if r.desc().is_buffer() && r.heap_type() == HeapType::Readback {
                reads.push((i, None));
                continue;
            }
            let subs = if r.desc().is_buffer() { 1 } else { r.desc().subresource_count() };
            let Ok(fp) = self.device.copyable_footprints(r.desc(), 0, subs, 0) else { continue };
            let Ok(rb) = self.device.create_committed_resource(
                HeapType::Readback,
                &ResourceDesc::buffer(fp.total_bytes.max(1)),
                BarrierLayout::Undefined,
            ) else {
                continue;
            };
            if r.desc().is_buffer() {
                list.copy_buffer_region(&rb, 0, r, 0, r.desc().width);
            } else {
                for sub in 0..subs {
                    let dst = TextureCopyLocation::footprint(&rb, fp.layouts[sub as usize]);
                    list.copy_texture_region(&dst, 0, 0, 0, &TextureCopyLocation::subresource(r, sub), None);
                }
            }
            reads.push((i, Some((rb, fp))));
        }
        if list.close().is_err() || self.queues[0].execute_command_lists(&[&list]).is_err() {
            return Ok(());
        }
        if self.queues[0].wait_idle(FINAL_WAIT).is_err() {
            return Err("the readback did not finish".into());
        }
        for (i, read) in reads {
            let r = &self.resources[i].resource;
            let bytes = match read {
                None => r.read_vec(0, r.desc().width as usize).ok(),
                Some((rb, fp)) if r.desc().is_buffer() => rb.read_vec(0, fp.total_bytes as usize).ok(),
                Some((rb, fp)) => packed(&rb, &fp),
            };
            if let Some(b) = bytes {
                self.out.contents.push((i, b));
            }
        }
        Ok(())
    }
}

/// The rows of every footprint in `rb`, without pitch padding (which is not the texture's).
fn packed(rb: &Resource, fp: &CopyableFootprints) -> Option<Vec<u8>> {
    let raw = rb.read_vec(0, fp.total_bytes as usize).ok()?;
    let mut out = Vec::new();
    for (k, placed) in fp.layouts.iter().enumerate() {
        let (rows, row, pitch) =
            (fp.num_rows[k] as usize, fp.row_sizes[k] as usize, placed.footprint.row_pitch as usize);
        let base = (placed.offset - fp.layouts[0].offset) as usize;
        for z in 0..placed.footprint.depth as usize {
            for y in 0..rows {
                let s = base + (z * rows + y) * pitch;
                out.extend_from_slice(raw.get(s..s + row)?);
            }
        }
    }
    Some(out)
}

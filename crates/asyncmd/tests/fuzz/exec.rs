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

mod finish;
mod record;

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
}

//! Runs recorded command lists: one command after another, as legacy D3D12 requires.

mod clear;
mod copy;
mod draw;
mod fill;
mod indirect;
mod kernel;
mod native;
mod pixels;
mod query;
mod resolve;
pub(crate) mod surface;
pub(crate) mod workers;

use crate::device::{RefQueryHeap, Shared};
use crate::memory::RefResource;
use crate::recorder::{Objects, RecordedList};
use asyncmd_ddi::{
    Command, DepthStencilView, GpuAddress, PrimitiveTopology, RenderTargetView, ResourceId, RootSignatureDesc,
};
use asyncmd_types::{EndingAccess, PipelineStatistics, PredicationOp, Rect, RenderPassFlags, Viewport};
use std::sync::Arc;

/// Root arguments of one pipeline kind (graphics or compute).
#[derive(Clone, Default)]
pub(crate) struct RootArgs {
    pub(crate) signature: Option<Arc<RootSignatureDesc>>,
    pub(crate) constants: Vec<Vec<u32>>,
    /// Root CBV, SRV and UAV addresses, by parameter.
    pub(crate) views: Vec<Option<GpuAddress>>,
    /// The buffers the pipeline's descriptor tables give it (`SetTableViews`).
    pub(crate) tables: Vec<asyncmd_ddi::TableView>,
}

impl RootArgs {
    fn set_signature(&mut self, sig: Option<Arc<RootSignatureDesc>>) {
        // The one already set (a bundle setting its executing list's): the arguments stay, as
        // D3D12 keeps them.
        if let (Some(new), Some(old)) = (&sig, &self.signature) {
            if Arc::ptr_eq(new, old) {
                return;
            }
        }
        let n = sig.as_ref().map_or(0, |s| s.parameters.len());
        self.signature = sig;
        self.constants = vec![Vec::new(); n];
        self.views = vec![None; n];
    }

    fn set_constants(&mut self, parameter: u32, offset: u32, values: &[u32]) {
        if let Some(c) = self.constants.get_mut(parameter as usize) {
            let end = offset as usize + values.len();
            if c.len() < end {
                c.resize(end, 0);
            }
            c[offset as usize..end].copy_from_slice(values);
        }
    }

    /// Constant `index` of root parameter `parameter` (0 when unset).
    pub(crate) fn constant(&self, parameter: usize, index: usize) -> u32 {
        self.constants.get(parameter).and_then(|c| c.get(index)).copied().unwrap_or(0)
    }
}

/// Ending accesses to carry out when the open render pass ends.
#[derive(Clone, Default)]
pub(crate) struct PassEnd {
    pub(crate) flags: RenderPassFlags,
    pub(crate) resolves: Vec<(RenderTargetView, EndingAccess<ResourceId>)>,
}

/// Graphics and compute state while a list runs.
#[derive(Clone, Default)]
pub(crate) struct State {
    pub(crate) pipeline: Option<Arc<crate::device::RefPipeline>>,
    pub(crate) graphics: RootArgs,
    pub(crate) compute: RootArgs,
    pub(crate) viewports: Vec<Viewport>,
    pub(crate) scissors: Vec<Rect>,
    pub(crate) topology: PrimitiveTopology,
    pub(crate) blend_factor: [f32; 4],
    pub(crate) stencil_ref: u32,
    pub(crate) rtvs: Vec<RenderTargetView>,
    pub(crate) dsv: Option<DepthStencilView>,
    pub(crate) pass: Option<PassEnd>,
    /// Predication evaluated to "skip".
    pub(crate) predicated_off: bool,
}

/// An occlusion or statistics query between its begin and end.
pub(crate) struct ActiveQuery {
    pub(crate) heap: Arc<RefQueryHeap>,
    pub(crate) index: u32,
    pub(crate) binary: bool,
    pub(crate) samples: u64,
    pub(crate) stats: Option<PipelineStatistics>,
}

/// The executor of one list (and the bundles it calls).
pub(crate) struct Exec<'a> {
    pub(crate) shared: &'a Shared,
    /// The running list's objects, then those of the bundles it is inside.
    objects: Vec<&'a Objects>,
    pub(crate) state: State,
    pub(crate) queries: Vec<ActiveQuery>,
}

/// How many commands from the start of `commands` are native Async Commands that touch no
/// resource another of them touches (0 or 1: none to run together). No barrier orders such
/// commands, so the device may run them at once, as a GPU overlaps them; disjoint resources
/// make every order give the same bytes. Bound clears take the bound targets of the moment,
/// so they stay in order.
fn independent_async(commands: &[Command]) -> usize {
    /// Commands run together at most: enough for any frame's batch of single resolves.
    const MOST: usize = 1024;
    let groupable = |c: &Command| {
        c.is_async()
            && !matches!(c, Command::ClearBoundRenderTargetViews { .. } | Command::ClearBoundDepthStencilView { .. })
    };
    if commands.len() < 2 || !groupable(&commands[0]) || !groupable(&commands[1]) {
        return 0;
    }
    let mut seen = rustc_hash::FxHashSet::default();
    let mut n = 0;
    for c in commands.iter().take(MOST).take_while(|c| groupable(c)) {
        let mut mine = smallvec::SmallVec::<[ResourceId; 4]>::new();
        c.for_each_resource(|id| mine.push(id));
        mine.sort_unstable_by_key(|id| id.0);
        mine.dedup();
        if mine.iter().any(|id| seen.contains(id)) {
            break;
        }
        seen.extend(mine);
        n += 1;
    }
    n
}

/// A command's first resource: commands of a group touch disjoint resources, so this keeps
/// each alone in its own worker's queue.
fn first_resource(c: &Command) -> ResourceId {
    let mut first = None;
    c.for_each_resource(|id| {
        first.get_or_insert(id);
    });
    first.unwrap_or(ResourceId(0))
}

/// Runs one recorded list to completion.
pub(crate) fn run_list(shared: &Shared, list: &RecordedList) {
    let mut exec = Exec { shared, objects: vec![&list.objects], state: State::default(), queries: Vec::new() };
    exec.run(&list.commands);
}

impl<'a> Exec<'a> {
    /// Looks an object up in the innermost bundle first, then outwards: a bundle uses the
    /// targets its caller bound.
    fn find<T: Clone + 'a>(&self, get: impl Fn(&'a Objects) -> Option<&'a T>) -> Option<T> {
        self.objects.iter().rev().find_map(|o| get(o)).cloned()
    }

    pub(crate) fn resource(&self, id: ResourceId) -> Option<Arc<RefResource>> {
        self.find(|o| o.resources.get(&id.0))
    }

    pub(crate) fn query_heap(&self, id: u64) -> Option<Arc<RefQueryHeap>> {
        self.find(|o| o.query_heaps.get(&id))
    }

    fn run(&mut self, commands: &[Command]) {
        let mut i = 0;
        while let Some(c) = commands.get(i) {
            let together = if self.state.predicated_off { 0 } else { independent_async(&commands[i..]) };
            if together > 1 {
                let group = &commands[i..i + together];
                let this: &Self = self;
                workers::parallel(group, first_resource, |c| this.bytes_touched(c), |c| this.native(c));
                i += together;
            } else {
                self.command(c);
                i += 1;
            }
        }
    }

    /// Bytes of the resources a command touches, to weigh it among others.
    fn bytes_touched(&self, c: &Command) -> u64 {
        let mut bytes = 0u64;
        c.for_each_resource(|id| bytes = bytes.saturating_add(self.resource(id).map_or(0, |r| r.read().len() as u64)));
        bytes
    }

    fn command(&mut self, c: &Command) {
        let skip = self.state.predicated_off;
        match c {
            Command::CopyBufferRegion(r) if !skip => self.copy_buffer_region(r),
            Command::CopyTextureRegion { dest, dest_x, dest_y, dest_z, source, source_box } if !skip => {
                self.copy_texture_region(dest, (*dest_x, *dest_y, *dest_z), source, *source_box)
            }
            Command::CopyResource { dest, source } if !skip => self.copy_resource(*dest, *source),
            Command::CopyTiles(t) if !skip => crate::tiles::copy_tiles(self, t, false),
            Command::ResolveSubresourceRegion(r) if !skip => self.resolve(r),
            Command::ResolveQueryData(q) => self.resolve_query_data(q),
            Command::BeginQuery { heap, ty, index } => self.begin_query(heap.0, *ty, *index),
            Command::EndQuery { heap, ty, index } => self.end_query(heap.0, *ty, *index),
            // Barriers order work; a reference queue runs every command to completion in order.
            Command::Barrier(_) => {}
            Command::ClearRenderTargetView { view, color, rects } if !skip => self.clear_rtv(view, color, rects),
            Command::ClearDepthStencilView { view, flags, depth, stencil, rects } if !skip => {
                self.clear_dsv(view, *flags, *depth, *stencil, rects, false)
            }
            Command::SetPipelineState(id) => self.state.pipeline = self.find(|o| o.pipelines.get(&id.0)),
            Command::SetGraphicsRootSignature(id) => {
                self.state.graphics.set_signature(self.find(|o| o.root_signatures.get(&id.0)))
            }
            Command::SetComputeRootSignature(id) => {
                self.state.compute.set_signature(self.find(|o| o.root_signatures.get(&id.0)))
            }
            Command::SetGraphicsRootConstants { parameter, offset, values } => {
                self.state.graphics.set_constants(*parameter, *offset, values)
            }
            Command::SetComputeRootConstants { parameter, offset, values } => {
                self.state.compute.set_constants(*parameter, *offset, values)
            }
            Command::SetGraphicsRootUav { parameter, address }
            | Command::SetGraphicsRootView { parameter, address } => {
                if let Some(u) = self.state.graphics.views.get_mut(*parameter as usize) {
                    *u = Some(*address);
                }
            }
            Command::SetComputeRootUav { parameter, address } | Command::SetComputeRootView { parameter, address } => {
                if let Some(u) = self.state.compute.views.get_mut(*parameter as usize) {
                    *u = Some(*address);
                }
            }
            Command::SetTableViews { compute: true, views } => self.state.compute.tables = views.clone(),
            Command::SetTableViews { compute: false, views } => self.state.graphics.tables = views.clone(),
            Command::SetViewports(v) => self.state.viewports = v.clone(),
            Command::SetScissorRects(r) => self.state.scissors = r.clone(),
            Command::SetPrimitiveTopology(t) => self.state.topology = *t,
            Command::SetBlendFactor(f) => self.state.blend_factor = *f,
            Command::SetStencilRef(s) => self.state.stencil_ref = *s,
            Command::SetRenderTargets { rtvs, dsv } => {
                self.state.rtvs = rtvs.clone();
                self.state.dsv = *dsv;
            }
            Command::BeginRenderPass { render_targets, depth_stencil, flags } => {
                self.begin_render_pass(render_targets, depth_stencil.as_deref(), *flags)
            }
            Command::EndRenderPass => self.end_render_pass(),
            Command::DrawInstanced { vertex_count, instance_count, start_vertex, start_instance } if !skip => {
                self.draw(*vertex_count, *instance_count, *start_vertex, *start_instance)
            }
            Command::Dispatch { x, y, z } if !skip => self.dispatch(*x, *y, *z),
            Command::ExecuteIndirect { signature, max_count, arguments, count } if !skip => {
                self.execute_indirect(signature, *max_count, *arguments, *count)
            }
            Command::SetPredication(p) => self.set_predication(*p),
            Command::ExecuteBundle(exe) => {
                let stack: Vec<&'a Objects> = self.objects.clone();
                let bundle = stack.iter().rev().find_map(|o| {
                    let o: &'a Objects = o;
                    o.bundles
                        .iter()
                        .find(|b| std::ptr::eq(Arc::as_ptr(b) as *const u8, Arc::as_ptr(&exe.0) as *const u8))
                });
                if let Some(bundle) = bundle {
                    self.objects.push(&bundle.objects);
                    // A bundle starts with no pipeline and an undefined topology; the rest of
                    // the state is inherited and its changes persist.
                    let pipeline = self.state.pipeline.take();
                    self.run(&bundle.commands);
                    if self.state.pipeline.is_none() {
                        self.state.pipeline = pipeline;
                    }
                    self.objects.pop();
                }
            }
            c if c.is_async() && !skip => self.native(c),
            _ => {}
        }
    }

    fn set_predication(&mut self, p: Option<(GpuAddress, PredicationOp)>) {
        self.state.predicated_off = match p {
            None => false,
            Some((address, op)) => {
                let Some(buffer) = self.resource(address.resource) else {
                    return;
                };
                let data = buffer.read();
                let value = usize::try_from(address.offset)
                    .ok()
                    .and_then(|o| data.get(o..o + 8))
                    .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
                match op {
                    PredicationOp::EqualZero => value == 0,
                    PredicationOp::NotEqualZero => value != 0,
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asyncmd_ddi::Command;

    fn copy(dest: u64, source: u64) -> Command {
        Command::CopyResources(vec![(ResourceId(dest), ResourceId(source))])
    }

    /// Runs of native calls go together only while no resource repeats: a call that reads
    /// what an earlier one of the run writes (or writes what it reads) starts a new run.
    #[test]
    fn only_calls_on_disjoint_resources_run_together() {
        assert_eq!(independent_async(&[copy(1, 2), copy(3, 4), copy(5, 6)]), 3);
        assert_eq!(independent_async(&[copy(1, 2), copy(3, 4), copy(5, 1)]), 2, "reads an earlier destination");
        assert_eq!(independent_async(&[copy(1, 2), copy(2, 3)]), 1, "writes an earlier source");
        assert_eq!(independent_async(&[copy(1, 2), copy(1, 4)]), 1, "writes an earlier destination");
        assert_eq!(independent_async(&[copy(1, 2)]), 0);
        let barrier = Command::Barrier(Vec::new());
        assert_eq!(independent_async(&[copy(1, 2), barrier.clone(), copy(3, 4)]), 0, "a barrier orders them");
        assert_eq!(independent_async(&[copy(1, 2), copy(3, 4), barrier, copy(5, 6)]), 2);
        let bound = Command::ClearBoundDepthStencilView {
            flags: asyncmd_types::ClearFlags::DEPTH,
            depth: 0.0,
            stencil: 0,
            regions: None,
        };
        assert_eq!(independent_async(&[copy(1, 2), bound]), 0, "bound clears keep their place");
    }
}

//! `Dispatch` of the app's kernels: their bindings resolved from the root arguments, then the
//! shader engine.

use super::Exec;
use crate::memory::RefResource;
use crate::shader::{Memory, Program, Sub, Texture, View};
use asyncmd_ddi::BoundView;
use asyncmd_shader::BindingSource;
use asyncmd_types::PipelineStatistics;
use asyncmd_types::{TextureView, TextureViewDimension};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Which of a dispatch's buffers a binding reads.
#[derive(Clone, Copy)]
enum Slot {
    Resource(usize),
    Owned(usize),
}

impl Exec<'_> {
    pub(crate) fn run_kernel(&mut self, program: &Program, groups: [u32; 3]) {
        if self.shared.hung.load(Ordering::Acquire) {
            return;
        }
        let root = &self.state.compute;
        // Root constants as bytes: the push-constant block, and constant buffers made of them.
        let constant_bytes = |parameter: usize| -> Vec<u8> {
            root.constants.get(parameter).map(|c| c.iter().flat_map(|v| v.to_le_bytes()).collect()).unwrap_or_default()
        };
        let immediates = program.bindings.immediates.map(constant_bytes).unwrap_or_default();
        // Each binding: a dispatch buffer (a resource, locked once however many views it has,
        // or constants), where its view starts, and its size (`None`: to the buffer's end).
        let mut owned: Vec<Vec<u8>> = Vec::new();
        let mut resources: Vec<(u64, std::sync::Arc<crate::memory::RefResource>)> = Vec::new();
        let mut slot_of = |id: asyncmd_ddi::ResourceId, buffer: bool| {
            // A texture has no address: nothing is bound through one.
            let r = self.resource(id).filter(|r| r.desc.is_buffer() == buffer)?;
            let at = resources.iter().position(|(i, _)| *i == id.0).unwrap_or_else(|| {
                resources.push((id.0, r.clone()));
                resources.len() - 1
            });
            Some((at, r))
        };
        let mut textures = vec![None; program.slots];
        let mut samplers = vec![None; program.slots];
        let mut views = vec![None; program.slots];
        let buffer_view = |at: Option<(usize, _)>, address: asyncmd_ddi::GpuAddress, size| {
            at.map(|(at, _): (usize, std::sync::Arc<RefResource>)| (Slot::Resource(at), address.offset, size))
        };
        for ((b, source), &first) in
            program.info.bindings.iter().zip(&program.bindings.sources).zip(&program.first_slot)
        {
            match *source {
                BindingSource::RootConstants { parameter } => {
                    owned.push(constant_bytes(parameter));
                    views[first] = Some((Slot::Owned(owned.len() - 1), 0, None));
                }
                BindingSource::RootDescriptor { parameter } => {
                    views[first] = root
                        .views
                        .get(parameter)
                        .copied()
                        .flatten()
                        .and_then(|a| buffer_view(slot_of(a.resource, true), a, None));
                }
                BindingSource::Table { parameter, offset, .. } => {
                    // An array's elements are the table's next descriptors.
                    for (e, slot) in (first..first + b.count as usize).enumerate() {
                        let at = offset + e as u64;
                        let found = root.tables.iter().find(|t| t.parameter as usize == parameter && t.offset == at);
                        match found.map(|t| t.view) {
                            Some(BoundView::Buffer { address, size }) => {
                                views[slot] = buffer_view(slot_of(address.resource, true), address, Some(size))
                            }
                            Some(BoundView::Sampler(desc)) => samplers[slot] = Some(desc),
                            Some(BoundView::Texture { resource, view }) => {
                                textures[slot] = slot_of(resource, false).and_then(|(at, r)| texture_of(&r, &view, at));
                            }
                            None => {}
                        }
                    }
                }
                BindingSource::StaticSampler { index } => samplers[first] = program.static_samplers.get(index).copied(),
            }
        }
        let mut guards: Vec<_> = resources.iter().map(|(_, r)| r.write()).collect();
        let mut buffers: Vec<&mut [u8]> = guards.iter_mut().map(|g| g.as_mut_slice()).collect();
        let first_owned = buffers.len();
        buffers.extend(owned.iter_mut().map(|v| v.as_mut_slice()));
        let bindings = views
            .into_iter()
            .map(|v| {
                let (slot, offset, size) = v?;
                let buffer = match slot {
                    Slot::Resource(i) => i,
                    Slot::Owned(i) => first_owned + i,
                };
                let total = buffers.get(buffer)?.len();
                let start = usize::try_from(offset).ok()?.min(total);
                let len = size.map_or(total - start, |s| usize::try_from(s).unwrap_or(usize::MAX).min(total - start));
                Some(View { buffer, start, len })
            })
            .collect();
        // Buffers a word at a time where their bytes are word-aligned, textures (and constants)
        // a byte at a time: each resource at one size for the whole dispatch.
        let word_sized: Vec<bool> = resources
            .iter()
            .map(|(_, r)| r.desc.is_buffer())
            .chain(std::iter::repeat(false))
            .take(buffers.len())
            .collect();
        let buffers = buffers.into_iter().zip(word_sized).map(|(b, words)| crate::shader::share(b, words)).collect();
        let memory = Memory { buffers, bindings, textures, samplers, immediates: &immediates };
        let deadline = Instant::now() + self.shared.shader_time_budget;
        let spread = |batches, run: &(dyn Fn(u64) + Sync)| super::workers::spread(batches, run);
        if program.dispatch(groups, &memory, deadline, spread).is_err() {
            tracing::error!(
                "a kernel ran past the device's {:?} budget: the device is removed",
                self.shared.shader_time_budget
            );
            self.shared.hung.store(true, Ordering::Release);
        }
        drop(memory);
        drop(guards);
        let threads = groups.iter().map(|&g| u64::from(g)).product::<u64>()
            * program.info.workgroup_size.iter().map(|&g| u64::from(g)).product::<u64>();
        self.count_draw(0, &PipelineStatistics { cs_invocations: threads, ..Default::default() });
    }
}

/// The texels `view` selects of texture `r`, which is dispatch buffer `buffer`: each mip of
/// each slice with its place and size (`None` if the texture has no such subresources).
fn texture_of(r: &RefResource, view: &TextureView, buffer: usize) -> Option<Texture> {
    let bytes = view.format.info().bytes_per_block as usize;
    if bytes == 0 || bytes > 16 {
        return None;
    }
    // A 3D view spans the whole depth of each mip (the runtime refuses part of it).
    let three_d = view.dimension == TextureViewDimension::Texture3D;
    let slices = if three_d { 0..1 } else { view.first_slice..view.first_slice.checked_add(view.slice_count)? };
    let mut subs = Vec::with_capacity((view.mip_count as usize).saturating_mul(slices.len()));
    for m in view.first_mip..view.first_mip.checked_add(view.mip_count)? {
        for s in slices.clone() {
            let (start, layout) = r.subresource(r.desc.subresource_index(m, s, 0))?;
            let width = (r.desc.width >> m).max(1) as u32;
            let height = (r.desc.height >> m).max(1);
            let depth = if three_d { (r.desc.depth() >> m).max(1) } else { 1 };
            let row = layout.row_bytes as usize;
            let plane = row.checked_mul(layout.rows as usize)?;
            subs.push(Sub { start: usize::try_from(start).ok()?, size: [width, height, depth], row, plane });
        }
    }
    let cube = view.dimension.is_cube();
    Some(Texture { buffer, format: view.format, bytes, mips: view.mip_count, slices: slices.len() as u32, cube, subs })
}

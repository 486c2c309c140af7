//! `Dispatch` of the app's kernels: their bindings resolved from the root arguments, then the
//! shader engine.

use super::Exec;
use crate::shader::{Memory, Program, View};
use asyncmd_shader::BindingSource;
use asyncmd_types::PipelineStatistics;
use std::sync::atomic::Ordering;
use std::time::Instant;

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
        let mut owned: Vec<Vec<u8>> = Vec::new();
        let mut resources = Vec::new();
        let mut views = Vec::with_capacity(program.bindings.sources.len());
        for source in &program.bindings.sources {
            let view = match *source {
                BindingSource::RootConstants { parameter } => {
                    owned.push(constant_bytes(parameter));
                    Some((None, owned.len() - 1, 0u64))
                }
                BindingSource::RootDescriptor { parameter } => {
                    root.views.get(parameter).copied().flatten().and_then(|a| {
                        // A texture has no address: nothing is bound through one.
                        let r = self.resource(a.resource).filter(|r| r.desc.is_buffer())?;
                        let at = resources.iter().position(|(id, _)| *id == a.resource.0).unwrap_or_else(|| {
                            resources.push((a.resource.0, r));
                            resources.len() - 1
                        });
                        Some((Some(()), at, a.offset))
                    })
                }
                // Descriptor tables and static samplers come with descriptor heaps.
                BindingSource::Table { .. } | BindingSource::StaticSampler { .. } => None,
            };
            views.push(view);
        }
        let mut guards: Vec<_> = resources.iter().map(|(_, r)| r.write()).collect();
        let mut buffers: Vec<&mut [u8]> = guards.iter_mut().map(|g| g.as_mut_slice()).collect();
        let first_owned = buffers.len();
        buffers.extend(owned.iter_mut().map(|v| v.as_mut_slice()));
        let bindings = views
            .into_iter()
            .map(|v| {
                let (resource, index, offset) = v?;
                let buffer = if resource.is_some() { index } else { first_owned + index };
                let total = buffers.get(buffer)?.len();
                let start = usize::try_from(offset).ok()?.min(total);
                Some(View { buffer, start, len: total - start })
            })
            .collect();
        let mut memory = Memory { buffers, bindings, immediates: &immediates };
        let deadline = Instant::now() + self.shared.shader_time_budget;
        if program.dispatch(groups, &mut memory, deadline).is_err() {
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

//! `Dispatch` of the built-in fill shader.

use super::Exec;
use asyncmd_ddi::{PipelineDesc, ShaderId, FILL_THREADS_PER_GROUP};
use asyncmd_types::PipelineStatistics;

impl Exec<'_> {
    pub(crate) fn dispatch(&mut self, x: u32, y: u32, z: u32) {
        let Some(pipeline) = self.state.pipeline.clone() else { return };
        let PipelineDesc::Compute(cs) = &*pipeline else { return };
        let threads = x as u64 * y as u64 * z as u64 * FILL_THREADS_PER_GROUP as u64;
        if cs.cs == ShaderId::FillCs {
            let root = &self.state.compute;
            let pattern: [u32; 4] = std::array::from_fn(|i| root.constant(0, i));
            let length = root.constant(0, 4).clamp(1, 4) as usize;
            let count = (root.constant(0, 5) as u64).min(threads);
            if let Some(Some(address)) = root.uavs.get(1).copied() {
                if let Some(buffer) = self.resource(address.resource) {
                    let mut data = buffer.write();
                    for i in 0..count {
                        let o = address.offset + i * 4;
                        let Ok(o) = usize::try_from(o) else { break };
                        match data.get_mut(o..o + 4) {
                            Some(t) => t.copy_from_slice(&pattern[i as usize % length].to_le_bytes()),
                            None => break,
                        }
                    }
                    buffer.scrub_unmapped(&mut data);
                }
            }
        }
        self.count_draw(0, &PipelineStatistics { cs_invocations: threads, ..Default::default() });
    }
}

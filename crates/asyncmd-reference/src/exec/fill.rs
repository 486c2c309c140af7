//! `Dispatch`: the built-in fill shader here, the app's kernels in `kernel.rs`.

use super::Exec;
use asyncmd_ddi::{PipelineDesc, ShaderId, FILL_THREADS_PER_GROUP};
use asyncmd_types::PipelineStatistics;

impl Exec<'_> {
    pub(crate) fn dispatch(&mut self, x: u32, y: u32, z: u32) {
        let Some(pipeline) = self.state.pipeline.clone() else { return };
        let PipelineDesc::Compute(cs) = &pipeline.desc else { return };
        if let Some(program) = &pipeline.program {
            return self.run_kernel(program, [x, y, z]);
        }
        let threads = x as u64 * y as u64 * z as u64 * FILL_THREADS_PER_GROUP as u64;
        if cs.cs.builtin() == Some(ShaderId::FillCs) {
            let root = &self.state.compute;
            let pattern: [u32; 4] = std::array::from_fn(|i| root.constant(0, i));
            let length = root.constant(0, 4).clamp(1, 4) as usize;
            // The grid's threads take every dword, whatever its size (`asyncmd_ddi::shader`);
            // an empty grid runs nothing.
            let count = if threads == 0 { 0 } else { root.constant(0, 5) as u64 };
            if let Some(Some(address)) = root.views.get(1).copied() {
                // A texture has no address: the shader writes nothing through one.
                if let Some(buffer) = self.resource(address.resource).filter(|r| r.desc.is_buffer()) {
                    let mut data = buffer.write();
                    // Dword i takes pattern dword i mod length: the pattern's bytes repeated,
                    // over the whole dwords that fit in the buffer.
                    let start = usize::try_from(address.offset).unwrap_or(usize::MAX).min(data.len());
                    let dwords = usize::try_from(count).unwrap_or(usize::MAX).min((data.len() - start) / 4);
                    let bytes: Vec<u8> = pattern[..length].iter().flat_map(|d| d.to_le_bytes()).collect();
                    asyncmd_types::fill_repeating(&mut data[start..start + dwords * 4], &bytes);
                    buffer.scrub_unmapped(&mut data);
                }
            }
        }
        self.count_draw(0, &PipelineStatistics { cs_invocations: threads, ..Default::default() });
    }
}

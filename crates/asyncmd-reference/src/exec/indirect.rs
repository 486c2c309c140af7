//! `ExecuteIndirect` of dispatches: the commands are read from the argument buffer when the
//! list executes (earlier work in the list may have written them), each setting its root
//! constants and then dispatching.

use super::Exec;
use asyncmd_ddi::GpuAddress;
use asyncmd_types::{CommandSignatureDesc, IndirectArgument};

/// The most groups a dispatch has in a dimension (`D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION`).
const MAX_GROUPS: u32 = 65535;

impl Exec<'_> {
    /// The `u32`s of `bytes` bytes at `at` (fewer where the buffer ends first).
    fn words_at(&self, at: GpuAddress, bytes: u64) -> Vec<u32> {
        let Some(r) = self.resource(at.resource).filter(|r| r.desc.is_buffer()) else { return Vec::new() };
        let data = r.read();
        let start = usize::try_from(at.offset).unwrap_or(usize::MAX).min(data.len());
        let end = usize::try_from(at.offset.saturating_add(bytes)).unwrap_or(usize::MAX).min(data.len());
        data[start..end].chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    pub(crate) fn execute_indirect(
        &mut self,
        signature: &CommandSignatureDesc,
        max_count: u32,
        arguments: GpuAddress,
        count: Option<GpuAddress>,
    ) {
        let n = match count {
            Some(c) => self.words_at(c, 4).first().copied().unwrap_or(0).min(max_count),
            None => max_count,
        };
        let stride = u64::from(signature.byte_stride);
        for i in 0..u64::from(n) {
            let command = GpuAddress { resource: arguments.resource, offset: arguments.offset + i * stride };
            let words = self.words_at(command, signature.command_bytes());
            let mut at = 0usize;
            for argument in &signature.arguments {
                let len = argument.bytes() as usize / 4;
                let values = words.get(at..at + len).unwrap_or_default();
                at += len;
                match *argument {
                    IndirectArgument::Constant { root_parameter, dest_offset, .. } => {
                        self.state.compute.set_constants(root_parameter, dest_offset, values)
                    }
                    IndirectArgument::Dispatch => {
                        if let [x, y, z] = *values {
                            if x.max(y).max(z) <= MAX_GROUPS && x.min(y).min(z) > 0 {
                                self.dispatch(x, y, z);
                            }
                        }
                    }
                }
            }
        }
    }
}

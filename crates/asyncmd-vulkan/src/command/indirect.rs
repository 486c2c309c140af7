//! `ExecuteIndirect` of dispatches.
//!
//! A device kernel writes each command slot's group counts (zeros past the count) to a buffer
//! of this list, then one indirect dispatch per slot. Commands that set root constants run the
//! kernel's form that reads every root constant from memory (`VkPipeline::constants_in_memory`):
//! each slot gets its own copy of the constants the signature changes, the list's values with
//! the command's dwords copied over them from the argument buffer, and its dispatch is pushed
//! that copy's offset.

use super::{fail, VkCommandList};
use crate::shader::Source;
use ash::vk;
use asyncmd_ddi::{GpuAddress, RootParameter};
use asyncmd_types::{CommandSignatureDesc, IndirectArgument, Result};
use std::sync::Arc;

const API: &str = "ExecuteIndirect";

/// One root-constants parameter in the buffer of an indirect call's constants.
#[derive(Debug, PartialEq, Eq)]
struct Slots {
    parameter: usize,
    /// Where slot 0's copy starts.
    base: u64,
    /// Bytes from one slot's copy to the next: 0 for a parameter no command changes (one copy).
    stride: u64,
    /// Bytes of one copy.
    bytes: u64,
}

/// Lays out one copy per slot of each root-constants parameter in `parameters` that `changed`
/// names, one copy of the others, each starting at a multiple of `align`; the buffer's size.
fn lay_out(parameters: &[(usize, u32)], changed: &[u32], slots: u32, align: u64) -> Option<(Vec<Slots>, u64)> {
    let mut at = 0u64;
    let mut out = Vec::with_capacity(parameters.len());
    for &(parameter, count) in parameters {
        let bytes = 4 * u64::from(count.max(1));
        // A changed parameter has a stride even for one slot: the copies go where it is not 0.
        let changes = changed.contains(&(parameter as u32));
        let copies = if changes { u64::from(slots.max(1)) } else { 1 };
        let stride = if changes { bytes.checked_next_multiple_of(align)? } else { 0 };
        out.push(Slots { parameter, base: at, stride, bytes });
        let end = at.checked_add(stride.checked_mul(copies - 1)?)?.checked_add(bytes)?;
        at = end.checked_next_multiple_of(align)?;
    }
    Some((out, at.max(4)))
}

/// For each dword of root parameter `parameter`, where a command's bytes hold it (the last
/// argument that sets it wins, as D3D12 applies them in order), merged into runs:
/// (byte offset in the command, byte offset in the parameter, bytes).
fn sources(signature: &CommandSignatureDesc, parameter: u32, count: u32) -> Vec<(u64, u64, u64)> {
    let mut from: Vec<Option<u64>> = vec![None; count as usize];
    for (at, a) in signature.offsets() {
        let IndirectArgument::Constant { root_parameter, dest_offset, count: n } = *a else { continue };
        if root_parameter != parameter {
            continue;
        }
        for k in 0..n {
            if let Some(slot) = from.get_mut(dest_offset.saturating_add(k) as usize) {
                *slot = Some(u64::from(at) + 4 * u64::from(k));
            }
        }
    }
    let mut runs: Vec<(u64, u64, u64)> = Vec::new();
    for (dword, src) in from.iter().enumerate() {
        let Some(src) = *src else { continue };
        let dst = 4 * dword as u64;
        match runs.last_mut() {
            Some((s, d, len)) if *s + *len == src && *d + *len == dst => *len += 4,
            _ => runs.push((src, dst, 4)),
        }
    }
    runs
}

/// What the dispatches of an indirect call that sets constants bind: the kernel's form that
/// reads its constants from memory, the buffer of every slot's copies and their layout, and
/// the list's root arguments.
struct SlotConstants {
    kernel: Arc<crate::pipeline::ConstantsInMemory>,
    buffer: vk::Buffer,
    layout: Vec<Slots>,
    base: Vec<u8>,
}

impl VkCommandList {
    pub(crate) fn execute_indirect(
        &mut self,
        signature: &CommandSignatureDesc,
        max_count: u32,
        arguments: GpuAddress,
        count: Option<GpuAddress>,
    ) -> Result<()> {
        // The kernel's grid is one-dimensional.
        if max_count == 0 || max_count > 65535 * 64 {
            return if max_count == 0 { Ok(()) } else { Err(fail(format!("{API}: {max_count} commands"))) };
        }
        self.end_lazy_rendering();
        let dispatch_at = signature.offsets().last().map_or(0, |(o, _)| u64::from(o));
        let argument_buffer = self.resource(arguments.resource)?;
        let commands = argument_buffer.address() + arguments.offset + dispatch_at;
        let slots = u64::from(max_count) * 12;
        // The group counts of every slot, then the count where the call gives none.
        let (groups_buffer, groups_offset, groups_address) = self.device_scratch(slots + 4, 16)?;
        let count_address = match count {
            Some(c) => self.resource(c.resource)?.address() + c.offset,
            None => {
                // SAFETY: a dword inside the list's own scratch, outside any rendering instance.
                unsafe {
                    self.core.device.cmd_fill_buffer(self.cb, groups_buffer, groups_offset + slots, 4, max_count)
                };
                groups_address + slots
            }
        };
        let constants = signature.changes_root_arguments();
        self.memory_barrier(
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::AccessFlags2::MEMORY_WRITE,
            vk::PipelineStageFlags2::COMPUTE_SHADER | vk::PipelineStageFlags2::ALL_TRANSFER,
            vk::AccessFlags2::SHADER_STORAGE_READ
                | vk::AccessFlags2::SHADER_STORAGE_WRITE
                | vk::AccessFlags2::TRANSFER_READ,
        );
        let per_slot = if constants {
            let source = argument_buffer.buffer().ok_or_else(|| fail(format!("{API}: the arguments are no buffer")))?;
            Some(self.slot_constants(signature, max_count, source, arguments.offset)?)
        } else {
            None
        };
        let split = |a: u64| [a as u32, (a >> 32) as u32];
        let [c0, c1] = split(commands);
        let [g0, g1] = split(groups_address);
        let [n0, n1] = split(count_address);
        let words = [c0, c1, g0, g1, n0, n1, max_count, signature.byte_stride / 4];
        self.core.meta()?.indirect_dispatch.dispatch_words(self.cb, &words, (max_count.div_ceil(64), 1));
        self.memory_barrier(
            vk::PipelineStageFlags2::COMPUTE_SHADER | vk::PipelineStageFlags2::ALL_TRANSFER,
            vk::AccessFlags2::SHADER_STORAGE_WRITE | vk::AccessFlags2::TRANSFER_WRITE,
            vk::PipelineStageFlags2::DRAW_INDIRECT | vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::INDIRECT_COMMAND_READ | vk::AccessFlags2::SHADER_STORAGE_READ,
        );
        match per_slot {
            None => {
                self.bind_compute(API)?;
                for i in 0..u64::from(max_count) {
                    // SAFETY: slot i of the list's scratch (which it keeps), made with indirect usage.
                    unsafe { self.core.device.cmd_dispatch_indirect(self.cb, groups_buffer, groups_offset + i * 12) };
                }
            }
            Some(SlotConstants { kernel, buffer, layout, base }) => {
                // SAFETY: a live compute pipeline outside any rendering instance.
                unsafe { self.core.device.cmd_bind_pipeline(self.cb, vk::PipelineBindPoint::COMPUTE, kernel.pipeline) };
                let mut spilled = Vec::with_capacity(layout.len());
                for i in 0..u64::from(max_count) {
                    spilled.clear();
                    spilled.extend(layout.iter().map(|s| (s.parameter, (buffer, s.base + i * s.stride, s.bytes))));
                    self.push_app(&kernel.layout, &base, &spilled)?;
                    // SAFETY: as above; the constants' buffer is kept by this list.
                    unsafe { self.core.device.cmd_dispatch_indirect(self.cb, groups_buffer, groups_offset + i * 12) };
                }
                // The bound pipeline, which the list keeps, owns `kernel`.
            }
        }
        Ok(())
    }

    /// The constants of each command slot: a buffer of this list holding, per slot, the list's
    /// root constants with the command's dwords copied over them (the copies are recorded
    /// here, before the barrier that precedes the dispatches).
    fn slot_constants(
        &mut self,
        signature: &CommandSignatureDesc,
        max_count: u32,
        source: vk::Buffer,
        source_offset: u64,
    ) -> Result<SlotConstants> {
        let pipeline = self.gfx.pipeline.clone().ok_or_else(|| fail(format!("{API}: no pipeline")))?;
        if !pipeline.compute {
            return Err(fail(format!("{API}: a graphics pipeline is bound")));
        }
        let kernel = pipeline.constants_in_memory()?;
        let base = self.gfx.compute.arguments(&pipeline, API)?.into_owned();
        let sig = self.gfx.compute.signature.clone().ok_or_else(|| fail(format!("{API}: no root signature")))?;
        let parameters: Vec<(usize, u32)> = kernel
            .layout
            .descriptors
            .iter()
            .filter_map(|(s, _)| match *s {
                Source::Constants(p) => match sig.parameters.get(p) {
                    Some(RootParameter::Constants { count, .. }) => Some((p, *count)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let changed: Vec<u32> = signature
            .arguments
            .iter()
            .filter_map(|a| match *a {
                IndirectArgument::Constant { root_parameter, .. } => Some(root_parameter),
                IndirectArgument::Dispatch => None,
            })
            .collect();
        let align = self.core.props.limits.min_storage_buffer_offset_alignment.max(4);
        let (mut layout, size) = lay_out(&parameters, &changed, max_count, align)
            .ok_or_else(|| fail(format!("{API}: {max_count} commands' constants overflow a buffer")))?;
        let (handle, at) = self.upload(size, align, |b| {
            for s in &layout {
                let start = sig.offsets.get(s.parameter).copied().unwrap_or(0) as usize;
                let n = s.bytes as usize;
                let values = base.get(start..start + n);
                let copies = if s.stride == 0 { 1 } else { u64::from(max_count) };
                for i in 0..copies {
                    let at = (s.base + i * s.stride) as usize;
                    if let (Some(dst), Some(v)) = (b.get_mut(at..at + n), values) {
                        dst.copy_from_slice(v);
                    }
                }
            }
        })?;
        // The layout was laid out from 0; the upload sits at `at` (aligned as the layout).
        for s in &mut layout {
            s.base += at;
        }
        let stride = u64::from(signature.byte_stride);
        let mut regions = Vec::new();
        for s in layout.iter().filter(|s| s.stride > 0) {
            let count = (s.bytes / 4) as u32;
            for (from, to, bytes) in sources(signature, s.parameter as u32, count) {
                regions.extend((0..u64::from(max_count)).map(|i| vk::BufferCopy {
                    src_offset: source_offset + i * stride + from,
                    dst_offset: s.base + i * s.stride + to,
                    size: bytes,
                }));
            }
        }
        if !regions.is_empty() {
            // SAFETY: the runtime checked that `max_count` commands fit in the argument buffer;
            // every region lies in a slot's copy of the list's own buffer; outside rendering.
            unsafe { self.core.device.cmd_copy_buffer(self.cb, source, handle, &regions) };
        }
        Ok(SlotConstants { kernel, buffer: handle, layout, base })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_parameters_get_a_copy_per_slot_on_the_alignment() {
        // Parameter 0 (3 dwords) changes: 3 slots of 12 bytes, 16 apart; parameter 2 (1 dword)
        // does not: one copy after them, at 48 (the next multiple of 16 past 44).
        let (slots, size) = lay_out(&[(0, 3), (2, 1)], &[0], 3, 16).unwrap();
        assert_eq!(
            slots,
            vec![
                Slots { parameter: 0, base: 0, stride: 16, bytes: 12 },
                Slots { parameter: 2, base: 48, stride: 0, bytes: 4 },
            ]
        );
        assert_eq!(size, 64);
        // One slot of a changed parameter still has its stride, so that its copies are made.
        let (slots, size) = lay_out(&[(0, 2)], &[0], 1, 16).unwrap();
        assert_eq!(slots, vec![Slots { parameter: 0, base: 0, stride: 16, bytes: 8 }]);
        assert_eq!(size, 16);
        assert!(lay_out(&[(0, 64)], &[0], u32::MAX, 1 << 62).is_none(), "overflow is refused");
    }

    #[test]
    fn later_arguments_win_and_runs_merge() {
        let sig = CommandSignatureDesc {
            byte_stride: 32,
            arguments: vec![
                // Bytes 0..12 set dwords 1..4 of parameter 0; bytes 12..16 set dword 2 again.
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 1, count: 3 },
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 2, count: 1 },
                IndirectArgument::Dispatch,
            ],
        };
        assert_eq!(sources(&sig, 0, 4), vec![(0, 4, 4), (12, 8, 4), (8, 12, 4)]);
        assert_eq!(sources(&sig, 1, 4), vec![]);
    }
}

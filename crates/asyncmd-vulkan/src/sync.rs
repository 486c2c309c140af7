//! Enhanced-barrier values as Vulkan synchronization2 stages, accesses and layouts.
//! `docs/vulkan-barriers.md` gives the table.

use ash::vk;
use asyncmd_types::{BarrierAccess, BarrierSync};

type S = vk::PipelineStageFlags2;
type A = vk::AccessFlags2;

/// The stages a D3D12 sync scope stands for. With `compute_copies`, legacy copies may run as
/// compute shaders, so the copy scope covers the compute stage too.
pub(crate) fn stages(sync: BarrierSync, compute_copies: bool) -> S {
    if sync.is_empty() {
        return S::NONE;
    }
    if sync.contains(BarrierSync::ALL) {
        return S::ALL_COMMANDS;
    }
    let mut s = S::NONE;
    let map = [
        (BarrierSync::DRAW, S::ALL_GRAPHICS),
        (BarrierSync::INDEX_INPUT, S::INDEX_INPUT),
        (BarrierSync::VERTEX_SHADING, S::VERTEX_SHADER),
        (BarrierSync::PIXEL_SHADING, S::FRAGMENT_SHADER),
        // Whole-view legacy clears run as vkCmdClear*Image in the CLEAR stage.
        (BarrierSync::DEPTH_STENCIL, S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS | S::CLEAR),
        (BarrierSync::RENDER_TARGET, S::COLOR_ATTACHMENT_OUTPUT | S::CLEAR),
        (BarrierSync::COMPUTE_SHADING, S::COMPUTE_SHADER),
        // Legacy copies run as transfer commands (copies, and the clears that seed resources).
        (BarrierSync::COPY, S::ALL_TRANSFER),
        // Resolves are resolve commands or, for MIN/MAX and where compute wins, dispatches.
        (BarrierSync::RESOLVE, S::RESOLVE | S::COLOR_ATTACHMENT_OUTPUT | S::COMPUTE_SHADER),
        (BarrierSync::EXECUTE_INDIRECT, S::DRAW_INDIRECT | S::CONDITIONAL_RENDERING_EXT),
        (BarrierSync::ALL_SHADING, S::VERTEX_SHADER | S::FRAGMENT_SHADER | S::COMPUTE_SHADER),
        (BarrierSync::NON_PIXEL_SHADING, S::VERTEX_SHADER | S::COMPUTE_SHADER),
        (BarrierSync::CLEAR_UNORDERED_ACCESS_VIEW, S::CLEAR | S::COMPUTE_SHADER),
    ];
    for (bit, stage) in map {
        if sync.contains(bit) {
            s |= stage;
        }
    }
    if compute_copies && sync.contains(BarrierSync::COPY) {
        s |= S::COMPUTE_SHADER;
    }
    if s == S::NONE {
        // Raytracing and video scopes have no counterpart here.
        S::ALL_COMMANDS
    } else {
        s
    }
}

/// `stages` limited to what a queue family of `graphics`/`compute` ability may name: a
/// transfer-only family runs copies only, and validation rejects other stages in its barriers.
pub(crate) fn limit_to_family(stages: S, graphics: bool, compute: bool) -> S {
    if graphics || stages == S::NONE || stages.contains(S::ALL_COMMANDS) {
        return stages;
    }
    let mut allowed = S::ALL_TRANSFER | S::TOP_OF_PIPE | S::BOTTOM_OF_PIPE | S::HOST;
    if compute {
        allowed |= S::COMPUTE_SHADER | S::DRAW_INDIRECT;
    }
    let kept = stages & allowed;
    if kept == S::NONE {
        S::ALL_COMMANDS
    } else {
        kept
    }
}

/// The accesses a D3D12 access value stands for, limited to what `stages` can perform.
pub(crate) fn accesses(access: BarrierAccess, stages: S) -> A {
    if access.contains(BarrierAccess::NO_ACCESS) || stages == S::NONE {
        return A::NONE;
    }
    if access.is_empty() {
        // COMMON: whatever the layout allows.
        return A::MEMORY_READ | A::MEMORY_WRITE;
    }
    let map = [
        (BarrierAccess::VERTEX_BUFFER, A::VERTEX_ATTRIBUTE_READ),
        (BarrierAccess::CONSTANT_BUFFER, A::UNIFORM_READ),
        (BarrierAccess::INDEX_BUFFER, A::INDEX_READ),
        (BarrierAccess::RENDER_TARGET, A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE | A::TRANSFER_WRITE),
        (BarrierAccess::UNORDERED_ACCESS, A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE),
        (
            BarrierAccess::DEPTH_STENCIL_WRITE,
            A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE | A::TRANSFER_WRITE,
        ),
        (BarrierAccess::DEPTH_STENCIL_READ, A::DEPTH_STENCIL_ATTACHMENT_READ),
        (BarrierAccess::SHADER_RESOURCE, A::SHADER_SAMPLED_READ | A::SHADER_STORAGE_READ),
        (BarrierAccess::INDIRECT_ARGUMENT, A::INDIRECT_COMMAND_READ | A::CONDITIONAL_RENDERING_READ_EXT),
        (BarrierAccess::COPY_DEST, A::TRANSFER_WRITE | A::SHADER_STORAGE_WRITE),
        // Compute copies read buffers as storage and images as sampled views.
        (BarrierAccess::COPY_SOURCE, A::TRANSFER_READ | A::SHADER_STORAGE_READ | A::SHADER_SAMPLED_READ),
        (BarrierAccess::RESOLVE_DEST, A::TRANSFER_WRITE | A::COLOR_ATTACHMENT_WRITE | A::SHADER_STORAGE_WRITE),
        (BarrierAccess::RESOLVE_SOURCE, A::TRANSFER_READ | A::SHADER_SAMPLED_READ),
    ];
    let mut a = A::NONE;
    for (bit, acc) in map {
        if access.contains(bit) {
            a |= acc;
        }
    }
    if a == A::NONE {
        a = A::MEMORY_READ | A::MEMORY_WRITE;
    }
    supported_by(a, stages)
}

/// Drops access bits that none of `stages` can perform (validation requires it).
fn supported_by(a: A, stages: S) -> A {
    if stages.contains(S::ALL_COMMANDS) {
        return a;
    }
    let mut ok = A::MEMORY_READ | A::MEMORY_WRITE;
    let graphics = stages.contains(S::ALL_GRAPHICS);
    let shader = S::VERTEX_SHADER | S::FRAGMENT_SHADER | S::COMPUTE_SHADER;
    if graphics || stages.intersects(shader) {
        ok |= A::UNIFORM_READ
            | A::SHADER_SAMPLED_READ
            | A::SHADER_STORAGE_READ
            | A::SHADER_STORAGE_WRITE
            | A::SHADER_READ
            | A::SHADER_WRITE;
    }
    if graphics || stages.intersects(S::VERTEX_ATTRIBUTE_INPUT | S::VERTEX_INPUT) {
        ok |= A::VERTEX_ATTRIBUTE_READ;
    }
    if graphics || stages.intersects(S::INDEX_INPUT | S::VERTEX_INPUT) {
        ok |= A::INDEX_READ;
    }
    if graphics || stages.intersects(S::COLOR_ATTACHMENT_OUTPUT) {
        ok |= A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE;
    }
    if graphics || stages.intersects(S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS) {
        ok |= A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE;
    }
    if graphics || stages.intersects(S::DRAW_INDIRECT) {
        ok |= A::INDIRECT_COMMAND_READ;
    }
    if stages.intersects(S::CONDITIONAL_RENDERING_EXT) {
        ok |= A::CONDITIONAL_RENDERING_READ_EXT;
    }
    if stages.intersects(S::ALL_TRANSFER | S::COPY | S::RESOLVE | S::CLEAR | S::BLIT) {
        ok |= A::TRANSFER_READ | A::TRANSFER_WRITE;
    }
    a & ok
}

/// The barrier that orders one legacy transfer operation before the next (the legacy
/// serialization contract), including compute copies where the device uses them.
pub(crate) fn serialize_transfers(compute_copies: bool) -> vk::MemoryBarrier2<'static> {
    let (stages, write, read) = if compute_copies {
        (
            S::ALL_TRANSFER | S::COMPUTE_SHADER,
            A::TRANSFER_WRITE | A::SHADER_STORAGE_WRITE,
            A::TRANSFER_READ | A::SHADER_STORAGE_READ,
        )
    } else {
        (S::ALL_TRANSFER, A::TRANSFER_WRITE, A::TRANSFER_READ)
    };
    vk::MemoryBarrier2::default()
        .src_stage_mask(stages)
        .src_access_mask(write)
        .dst_stage_mask(stages)
        .dst_access_mask(read | write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_scope_covers_compute_only_where_copies_may_be_dispatches() {
        assert_eq!(stages(BarrierSync::COPY, false), S::ALL_TRANSFER);
        assert_eq!(stages(BarrierSync::COPY, true), S::ALL_TRANSFER | S::COMPUTE_SHADER);
    }

    #[test]
    fn transfer_only_families_keep_transfer_stages() {
        let copy_and_compute = S::ALL_TRANSFER | S::COMPUTE_SHADER;
        assert_eq!(limit_to_family(copy_and_compute, false, false), S::ALL_TRANSFER);
        assert_eq!(limit_to_family(copy_and_compute, false, true), copy_and_compute);
        assert_eq!(limit_to_family(S::COLOR_ATTACHMENT_OUTPUT, false, true), S::ALL_COMMANDS);
        assert_eq!(limit_to_family(S::COLOR_ATTACHMENT_OUTPUT, true, true), S::COLOR_ATTACHMENT_OUTPUT);
        assert_eq!(limit_to_family(S::NONE, false, false), S::NONE);
    }
}

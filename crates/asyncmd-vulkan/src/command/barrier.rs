//! Barriers: D3D12's enhanced barriers as synchronization2 barriers.

use super::VkCommandList;
use crate::conv::barrier_aspects;
use crate::memory::VkResource;
use crate::sync;
use ash::vk;
use asyncmd_ddi::ResourceId;
use asyncmd_types::{BarrierGroup, BarrierLayout, BarrierSubresourceRange, BarrierSync, ResourceDimension, Result};

impl VkCommandList {
    pub(super) fn range(res: &VkResource, r: &BarrierSubresourceRange) -> Vec<vk::ImageSubresourceRange> {
        let desc = &res.desc;
        let all = vk::ImageSubresourceRange {
            aspect_mask: barrier_aspects(desc.format),
            base_mip_level: 0,
            level_count: vk::REMAINING_MIP_LEVELS,
            base_array_layer: 0,
            layer_count: vk::REMAINING_ARRAY_LAYERS,
        };
        if r.index_or_first_mip == u32::MAX {
            return vec![all];
        }
        if r.num_mip_levels == 0 {
            let Some(s) = desc.subresource(r.index_or_first_mip) else { return vec![all] };
            let three_d = desc.dimension == ResourceDimension::Texture3D;
            return vec![vk::ImageSubresourceRange {
                aspect_mask: barrier_aspects(desc.format),
                base_mip_level: s.mip,
                level_count: 1,
                base_array_layer: if three_d { 0 } else { s.slice },
                layer_count: 1,
            }];
        }
        vec![vk::ImageSubresourceRange {
            aspect_mask: barrier_aspects(desc.format),
            base_mip_level: r.index_or_first_mip,
            level_count: r.num_mip_levels,
            base_array_layer: r.first_array_slice,
            layer_count: r.num_array_slices.max(1),
        }]
    }

    /// The Vulkan stages of a D3D12 sync scope, as this list's queue family may name them.
    pub(super) fn stages(&self, scope: BarrierSync) -> vk::PipelineStageFlags2 {
        let f = self.family();
        let graphics = f == self.core.families.direct;
        sync::limit_to_family(sync::stages(scope, self.copies_in_compute()), graphics, self.family_has_compute())
    }

    pub(super) fn barrier(&mut self, groups: &[BarrierGroup<ResourceId>]) -> Result<()> {
        let mut memory = Vec::new();
        let mut buffers = Vec::new();
        let mut images = Vec::new();
        for g in groups {
            match g {
                BarrierGroup::Global(bs) => {
                    for b in bs {
                        let (ss, ds) = (self.stages(b.sync_before), self.stages(b.sync_after));
                        memory.push(
                            vk::MemoryBarrier2::default()
                                .src_stage_mask(ss)
                                .src_access_mask(sync::accesses(b.access_before, ss))
                                .dst_stage_mask(ds)
                                .dst_access_mask(sync::accesses(b.access_after, ds)),
                        );
                    }
                }
                BarrierGroup::Buffer(bs) => {
                    for b in bs {
                        let buffer = self.buffer_of(b.resource)?;
                        let (ss, ds) = (self.stages(b.sync_before), self.stages(b.sync_after));
                        buffers.push(
                            vk::BufferMemoryBarrier2::default()
                                .src_stage_mask(ss)
                                .src_access_mask(sync::accesses(b.access_before, ss))
                                .dst_stage_mask(ds)
                                .dst_access_mask(sync::accesses(b.access_after, ds))
                                .buffer(buffer)
                                .offset(0)
                                .size(vk::WHOLE_SIZE),
                        );
                    }
                }
                BarrierGroup::Texture(bs) => {
                    for b in bs {
                        let (res, image) = self.image_of(b.resource)?;
                        let (ss, ds) = (self.stages(b.sync_before), self.stages(b.sync_after));
                        // Barriers name every aspect of a depth-stencil image (separate
                        // depth and stencil layouts are not enabled); a discard of one plane
                        // must then keep the other, so it transitions from GENERAL.
                        let one_plane = res.desc.format.plane_count() > 1
                            && b.subresources.index_or_first_mip != u32::MAX
                            && (b.subresources.num_mip_levels == 0 || b.subresources.num_planes < 2);
                        let discard = b.layout_before == BarrierLayout::Undefined && !one_plane;
                        for range in Self::range(&res, &b.subresources) {
                            images.push(
                                vk::ImageMemoryBarrier2::default()
                                    .src_stage_mask(ss)
                                    .src_access_mask(sync::accesses(b.access_before, ss))
                                    .dst_stage_mask(if ds == vk::PipelineStageFlags2::NONE {
                                        vk::PipelineStageFlags2::ALL_COMMANDS
                                    } else {
                                        ds
                                    })
                                    .dst_access_mask(sync::accesses(b.access_after, ds))
                                    .old_layout(if discard {
                                        vk::ImageLayout::UNDEFINED
                                    } else {
                                        crate::conv::layout(b.layout_before)
                                    })
                                    .new_layout(vk::ImageLayout::GENERAL)
                                    .image(image)
                                    .subresource_range(range),
                            );
                        }
                    }
                }
            }
        }
        let info = vk::DependencyInfo::default()
            .memory_barriers(&memory)
            .buffer_memory_barriers(&buffers)
            .image_memory_barriers(&images);
        // SAFETY: every handle is live and kept by this list.
        unsafe { self.core.device.cmd_pipeline_barrier2(self.cb, &info) };
        // The app's barrier names its own scopes (often one unrelated resource): the legacy
        // serialization of the copies around it still needs its own barrier, so the pending
        // transfer stays pending.
        Ok(())
    }

    /// Records one global memory barrier.
    pub(crate) fn memory_barrier(
        &self,
        src: vk::PipelineStageFlags2,
        src_access: vk::AccessFlags2,
        dst: vk::PipelineStageFlags2,
        dst_access: vk::AccessFlags2,
    ) {
        let b = [vk::MemoryBarrier2::default()
            .src_stage_mask(src)
            .src_access_mask(src_access)
            .dst_stage_mask(dst)
            .dst_access_mask(dst_access)];
        // SAFETY: recording outside any rendering instance into this list's command buffer.
        unsafe { self.core.device.cmd_pipeline_barrier2(self.cb, &vk::DependencyInfo::default().memory_barriers(&b)) };
    }
}

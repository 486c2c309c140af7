//! Descriptor sets of app kernels that bind more descriptors than the device pushes (32 on
//! lavapipe and NVIDIA) or run where nothing is pushed: allocated from pools the list keeps
//! until its work is done, written at the dispatch and bound in place of a push.

use crate::core::Core;
use ash::vk;
use asyncmd_types::{Error, Result};
use std::sync::Arc;

/// Sets of one layout a new pool holds.
const SETS_PER_POOL: u32 = 16;

/// The pools of one recording; destroyed with it (on a driver thread, as every list object).
pub(crate) struct SetPools {
    core: Arc<Core>,
    pools: Vec<vk::DescriptorPool>,
}

impl SetPools {
    pub(crate) fn new(core: &Arc<Core>) -> Self {
        Self { core: core.clone(), pools: Vec::new() }
    }

    /// A set of `layout`, whose descriptors `sizes` counts by type: from the newest pool, or
    /// from a new one where that pool has no room.
    pub(crate) fn allocate(
        &mut self,
        layout: vk::DescriptorSetLayout,
        sizes: &[vk::DescriptorPoolSize],
    ) -> Result<vk::DescriptorSet> {
        let d = &self.core.device;
        let layouts = [layout];
        if let Some(&pool) = self.pools.last() {
            let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
            // SAFETY: a live pool of this list and a live layout of a pipeline the list keeps.
            match unsafe { d.allocate_descriptor_sets(&info) } {
                Ok(sets) => return Ok(sets[0]),
                Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY | vk::Result::ERROR_FRAGMENTED_POOL) => {}
                Err(e) => return Err(oom(e)),
            }
        }
        let sizes: Vec<vk::DescriptorPoolSize> = sizes
            .iter()
            .map(|s| vk::DescriptorPoolSize {
                ty: s.ty,
                descriptor_count: s.descriptor_count.saturating_mul(SETS_PER_POOL),
            })
            .collect();
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_POOL).pool_sizes(&sizes);
        // SAFETY: valid create info; the pool is this list's until it is destroyed below.
        let pool = unsafe { d.create_descriptor_pool(&info, None) }.map_err(oom)?;
        self.pools.push(pool);
        let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
        // SAFETY: as above, from a pool made with room for this layout.
        let sets = unsafe { d.allocate_descriptor_sets(&info) }.map_err(oom)?;
        Ok(sets[0])
    }
}

impl Drop for SetPools {
    fn drop(&mut self) {
        for pool in self.pools.drain(..) {
            // SAFETY: the recording that used the pool's sets is done on the GPU (lists keep their
            // pools until then) or was never submitted.
            unsafe { self.core.device.destroy_descriptor_pool(pool, None) };
        }
    }
}

fn oom(e: vk::Result) -> Error {
    Error::out_of_memory(format!("Dispatch: descriptor sets: {e}"))
}

//! The one-time measurement behind [`ComputeCopies::Auto`](crate::ComputeCopies::Auto): times
//! `vkCmdCopyBuffer` against the compute copy at a few sizes with timestamp queries, and returns
//! the smallest size from which the compute copy wins at every larger size measured.

use crate::core::Core;
use crate::memory::VkResource;
use ash::vk;
use asyncmd_types::{HeapType, ResourceDesc, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

const SIZES: [u64; 3] = [256 << 10, 4 << 20, 64 << 20];

/// Measured thresholds by (vendor id, device id).
type Thresholds = Mutex<HashMap<(u32, u32), Option<u64>>>;

/// Cached per process.
fn cache() -> &'static Thresholds {
    static CACHE: OnceLock<Thresholds> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

pub(crate) fn threshold(core: &Arc<Core>, props: &vk::PhysicalDeviceProperties) -> Result<Option<u64>> {
    // On CPU devices (lavapipe) compute copies are far slower than transfers.
    if props.device_type == vk::PhysicalDeviceType::CPU || props.limits.timestamp_compute_and_graphics == 0 {
        return Ok(None);
    }
    let key = (props.vendor_id, props.device_id);
    if let Some(t) = cache().lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return Ok(*t);
    }
    let mut wins = Vec::new();
    for size in SIZES {
        let (transfer, compute) = measure(core, size)?;
        tracing::info!("copy of {size} bytes: vkCmdCopyBuffer {transfer} ns, compute {compute} ns");
        wins.push(compute < transfer);
    }
    let first = (0..SIZES.len()).find(|&i| wins[i..].iter().all(|w| *w)).map(|i| SIZES[i]);
    cache().lock().unwrap_or_else(PoisonError::into_inner).insert(key, first);
    Ok(first)
}

/// GPU nanoseconds of one `vkCmdCopyBuffer` and one compute copy of `size` bytes (best of 3).
pub(crate) fn measure(core: &Arc<Core>, size: u64) -> Result<(u64, u64)> {
    let d = &core.device;
    let src = VkResource::new(core, &ResourceDesc::buffer(size), HeapType::Default)?;
    let dst = VkResource::new(core, &ResourceDesc::buffer(size), HeapType::Default)?;
    let info = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(9);
    // SAFETY: valid create info; the pool is destroyed below.
    let pool = unsafe { d.create_query_pool(&info, None) }
        .map_err(|e| asyncmd_types::Error::out_of_memory(format!("Vulkan: {e}")))?;
    let meta = core.meta.get();
    let (sb, db) = (src.buffer().unwrap_or_default(), dst.buffer().unwrap_or_default());
    // Each measured copy completes before the next starts, and writes are ordered.
    let all = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
    let result = core.one_time(|cb| {
        // SAFETY: recording into the one-time buffer with live buffers and pool.
        unsafe {
            d.cmd_reset_query_pool(cb, pool, 0, 9);
            for run in 0..3u32 {
                let q = run * 3;
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, pool, q);
                d.cmd_copy_buffer(cb, sb, db, &[vk::BufferCopy { src_offset: 0, dst_offset: 0, size }]);
                d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&all));
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, pool, q + 1);
                if let Some(m) = meta {
                    m.copy_buffer.dispatch(cb, [src.address(), dst.address(), size / 16], groups(size / 16));
                }
                d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&all));
                d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, pool, q + 2);
            }
        }
    });
    let mut stamps = [0u64; 9];
    // SAFETY: the submission that wrote the queries has completed.
    let read = unsafe {
        d.get_query_pool_results(pool, 0, &mut stamps, vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT)
    };
    // SAFETY: no pending use of the pool.
    unsafe { d.destroy_query_pool(pool, None) };
    result?;
    read.map_err(|e| asyncmd_types::Error::out_of_memory(format!("Vulkan: {e}")))?;
    let period = core.props.limits.timestamp_period as f64;
    let ns = |a: u64, b: u64| (b.saturating_sub(a) as f64 * period) as u64;
    let transfer = (0..3).map(|r| ns(stamps[r * 3], stamps[r * 3 + 1])).min().unwrap_or(u64::MAX);
    let compute = (0..3).map(|r| ns(stamps[r * 3 + 1], stamps[r * 3 + 2])).min().unwrap_or(u64::MAX);
    Ok((transfer, compute))
}

/// Workgroups for a compute copy of `count` 16-byte elements (grid-stride beyond the cap).
pub(crate) fn groups(count: u64) -> u32 {
    count.div_ceil(256).clamp(1, 65535) as u32
}

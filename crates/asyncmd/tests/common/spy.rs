//! A device behind a spy, and the barriers it received: what tests of the runtime's own
//! barriers (legacy semantics, the fallback's routes) read.

use super::{opted_in, Ctx};
use asyncmd::ddi::spy::{SpyDevice, SpyLog};
use asyncmd::ddi::{Command, DeviceDdi, ResourceId};
use asyncmd::types::*;
use asyncmd::Adapter;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use std::sync::Arc;

/// A device whose commands a spy logs: the reference device behind the runtime, the Async
/// Commands native.
pub fn spied() -> (Ctx, SpyLog) {
    spied_with(ReferenceConfig::default())
}

/// The same with the reference device made with `config`.
pub fn spied_with(config: ReferenceConfig) -> (Ctx, SpyLog) {
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(config))));
    let log = spy.log();
    (Ctx::new(opted_in(&Adapter::new(spy as Arc<dyn DeviceDdi>))), log)
}

/// The barrier groups the device received, in order.
pub fn barrier_groups(log: &SpyLog) -> Vec<BarrierGroup<ResourceId>> {
    log.commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::Barrier(groups) => Some(groups),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The buffer barriers the device received, in order.
pub fn buffer_barriers(log: &SpyLog) -> Vec<BufferBarrier<ResourceId>> {
    barrier_groups(log)
        .into_iter()
        .filter_map(|g| match g {
            BarrierGroup::Buffer(b) => Some(b),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The texture barriers the device received, in order.
pub fn texture_barriers(log: &SpyLog) -> Vec<TextureBarrier<ResourceId>> {
    barrier_groups(log)
        .into_iter()
        .filter_map(|g| match g {
            BarrierGroup::Texture(t) => Some(t),
            _ => None,
        })
        .flatten()
        .collect()
}

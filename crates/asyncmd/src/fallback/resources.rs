//! What a device keeps for its fallback: the pools of its buffers, private textures and
//! pattern tiles, the fill shader's root signature and pipeline, and the bound clears' root
//! signature and pipeline cache. Made on first use, shared by every list of the device.

use super::factory::Factory;
use super::pools::BufferPools;
use super::pso_cache::{ClearPsoKey, PsoCache};
use crate::objects::{PipelineState, RootSignature};
use asyncmd_ddi::{ComputePipelineDesc, PipelineDesc, RootParameter, RootSignatureDesc, ShaderId};
use asyncmd_ddi::{CLEAR_CONSTANT_COUNT, FILL_CONSTANT_COUNT};
use asyncmd_types::Result;
use std::sync::{Mutex, OnceLock, PoisonError};

/// The device's fallback objects.
#[derive(Default)]
pub(crate) struct Resources {
    /// The buffer, texture and tile pools.
    pub(crate) pools: BufferPools,
    fill_pipeline: OnceLock<(RootSignature, PipelineState)>,
    clear_root: OnceLock<RootSignature>,
    clear_psos: Mutex<PsoCache>,
}

impl Resources {
    /// The fill root signature and pipeline, made on first use.
    pub(crate) fn fill_pipeline(&self, factory: &dyn Factory) -> Result<(RootSignature, PipelineState)> {
        if let Some(p) = self.fill_pipeline.get() {
            return Ok(p.clone());
        }
        let root = factory.create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, FILL_CONSTANT_COUNT),
            RootParameter::uav(0),
        ]))?;
        let pso = factory.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
            root_signature: root.id(),
            cs: ShaderId::FillCs.into(),
        }))?;
        Ok(self.fill_pipeline.get_or_init(|| (root, pso)).clone())
    }

    /// The bound-clear root signature (the clear constants in parameter 0), made on first use.
    pub(crate) fn clear_root(&self, factory: &dyn Factory) -> Result<RootSignature> {
        if let Some(r) = self.clear_root.get() {
            return Ok(r.clone());
        }
        let root = factory
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, CLEAR_CONSTANT_COUNT)]))?;
        Ok(self.clear_root.get_or_init(|| root).clone())
    }

    /// The clear pipeline of `key` from the cache, made on a miss.
    pub(crate) fn clear_pso(
        &self,
        factory: &dyn Factory,
        root: &RootSignature,
        key: &ClearPsoKey,
    ) -> Result<PipelineState> {
        let mut cache = self.clear_psos.lock().unwrap_or_else(PoisonError::into_inner);
        cache.get_or_make(key, || factory.create_pipeline_state(&key.desc(root.id())))
    }

    /// Clear pipelines kept now.
    pub(crate) fn cached_clear_pipelines(&self) -> usize {
        self.clear_psos.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

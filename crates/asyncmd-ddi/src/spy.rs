//! The spy: a device wrapper that records every command-list DDI call, for route tests.

use crate::*;
use asyncmd_types::{CommandListType, Format, QueryHeapDesc, ResourceDesc, Result};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The calls the spy saw, shared between the spy device and its command lists.
#[derive(Clone, Default)]
pub struct SpyLog(Arc<Mutex<Vec<Command>>>);

impl SpyLog {
    /// Every command recorded so far, in order.
    pub fn commands(&self) -> Vec<Command> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The names of the commands recorded so far.
    pub fn names(&self) -> Vec<&'static str> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).iter().map(Command::name).collect()
    }

    /// Forgets what was recorded.
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    fn push(&self, command: &Command) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(command.clone());
    }
}

/// The pipelines a spied device destroyed.
#[derive(Clone)]
pub struct DestroyedPipelines(Arc<Mutex<Vec<PipelineId>>>);

impl DestroyedPipelines {
    /// Whether `id` was destroyed.
    pub fn contains(&self, id: PipelineId) -> bool {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).contains(&id)
    }
}

/// Wraps a device and logs every command its command lists record, and the pipelines it
/// destroys.
pub struct SpyDevice {
    inner: Arc<dyn DeviceDdi>,
    log: SpyLog,
    destroyed: Arc<Mutex<Vec<PipelineId>>>,
    /// A device whose format support bounds this one's.
    limit: Option<Arc<dyn DeviceDdi>>,
}

impl SpyDevice {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn DeviceDdi>) -> Self {
        Self { inner, log: SpyLog::default(), destroyed: Default::default(), limit: None }
    }

    /// Reports only the format support (and sample counts) that `other` has too: the wrapped
    /// device then refuses what `other` would, as when two devices are compared.
    pub fn limited_to(mut self, other: Arc<dyn DeviceDdi>) -> Self {
        self.limit = Some(other);
        self
    }

    /// A handle on the pipelines destroyed so far, in order.
    pub fn destroyed_pipelines(&self) -> DestroyedPipelines {
        DestroyedPipelines(self.destroyed.clone())
    }

    /// The log shared by all command lists of this device.
    pub fn log(&self) -> SpyLog {
        self.log.clone()
    }
}

struct SpyCommandList {
    inner: Box<dyn CommandListDdi>,
    log: SpyLog,
}

impl CommandListDdi for SpyCommandList {
    fn record(&mut self, command: Command) {
        self.log.push(&command);
        self.inner.record(command);
    }

    fn close(&mut self) -> Result<Executable> {
        self.inner.close()
    }

    fn reset(&mut self) {
        self.inner.reset();
    }
}

impl FormatQuery for SpyDevice {
    fn format_caps(&self, format: Format) -> FormatCaps {
        let caps = self.inner.format_caps(format);
        match &self.limit {
            Some(other) => {
                let o = other.format_caps(format);
                FormatCaps { support: caps.support & o.support, sample_counts: caps.sample_counts & o.sample_counts }
            }
            None => caps,
        }
    }
}

impl DeviceDdi for SpyDevice {
    fn capabilities(&self) -> &Capabilities {
        self.inner.capabilities()
    }
    fn is_lost(&self) -> bool {
        self.inner.is_lost()
    }
    fn lost_reason(&self) -> &'static str {
        self.inner.lost_reason()
    }
    fn create_resource(&self, desc: &ResourceDesc, info: &ResourceCreateInfo) -> Result<ResourceId> {
        self.inner.create_resource(desc, info)
    }
    fn destroy_resource(&self, id: ResourceId) {
        self.inner.destroy_resource(id)
    }
    fn write_buffer(&self, id: ResourceId, offset: u64, data: &[u8]) -> Result<()> {
        self.inner.write_buffer(id, offset, data)
    }
    fn read_buffer(&self, id: ResourceId, offset: u64, out: &mut [u8]) -> Result<()> {
        self.inner.read_buffer(id, offset, out)
    }
    fn read_samples(&self, id: ResourceId, subresource: u32) -> Result<Vec<u8>> {
        self.inner.read_samples(id, subresource)
    }
    fn create_heap(&self, size: u64) -> Result<HeapId> {
        self.inner.create_heap(size)
    }
    fn destroy_heap(&self, id: HeapId) {
        self.inner.destroy_heap(id)
    }
    fn update_tile_mappings(&self, resource: ResourceId, mappings: &[TileMapping]) -> Result<()> {
        self.inner.update_tile_mappings(resource, mappings)
    }
    fn create_query_heap(&self, desc: &QueryHeapDesc) -> Result<QueryHeapId> {
        self.inner.create_query_heap(desc)
    }
    fn destroy_query_heap(&self, id: QueryHeapId) {
        self.inner.destroy_query_heap(id)
    }
    fn create_root_signature(&self, desc: &RootSignatureDesc) -> Result<RootSignatureId> {
        self.inner.create_root_signature(desc)
    }
    fn destroy_root_signature(&self, id: RootSignatureId) {
        self.inner.destroy_root_signature(id)
    }
    fn create_pipeline(&self, desc: &PipelineDesc) -> Result<PipelineId> {
        self.inner.create_pipeline(desc)
    }
    fn destroy_pipeline(&self, id: PipelineId) {
        self.destroyed.lock().unwrap_or_else(PoisonError::into_inner).push(id);
        self.inner.destroy_pipeline(id)
    }
    fn create_fence(&self, initial: u64) -> Result<FenceId> {
        self.inner.create_fence(initial)
    }
    fn destroy_fence(&self, id: FenceId) {
        self.inner.destroy_fence(id)
    }
    fn fence_value(&self, id: FenceId) -> u64 {
        self.inner.fence_value(id)
    }
    fn signal_fence(&self, id: FenceId, value: u64) -> Result<()> {
        self.inner.signal_fence(id, value)
    }
    fn wait_fence(&self, id: FenceId, value: u64, timeout: Duration) -> bool {
        self.inner.wait_fence(id, value, timeout)
    }
    fn create_queue(&self, ty: CommandListType) -> Result<Box<dyn QueueDdi>> {
        self.inner.create_queue(ty)
    }
    fn create_command_list(&self, ty: CommandListType) -> Result<Box<dyn CommandListDdi>> {
        Ok(Box::new(SpyCommandList { inner: self.inner.create_command_list(ty)?, log: self.log.clone() }))
    }
}

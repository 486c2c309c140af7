//! The device, queue and command-list traits.

use crate::{
    Capabilities, Command, FenceId, FormatQuery, HeapId, PipelineDesc, PipelineId, QueryHeapId, ResourceId,
    RootSignatureDesc, RootSignatureId,
};
use asyncmd_types::{
    BarrierLayout, CommandListType, HeapType, QueryHeapDesc, ResourceDesc, Result, TiledResourceCoordinate,
};
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

/// A closed command list in the device's own executable form. Queues run it; direct lists
/// execute bundles of it. Cloning shares it.
#[derive(Clone)]
pub struct Executable(pub Arc<dyn Any + Send + Sync>);

impl std::fmt::Debug for Executable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Executable({:p})", Arc::as_ptr(&self.0))
    }
}

impl PartialEq for Executable {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// How a resource is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceCreateInfo {
    /// Heap type (committed resources) — ignored for reserved resources.
    pub heap: HeapType,
    /// Layout every subresource of a texture starts in.
    pub initial_layout: BarrierLayout,
    /// A reserved (tiled) resource: no memory until tiles are mapped.
    pub reserved: bool,
    /// Created in a protected session.
    pub protected: bool,
}

/// One tile-mapping update (`UpdateTileMappings` with one range).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileMapping {
    /// First tile of the resource (linear tile index for buffers, or a coordinate).
    pub coordinate: TiledResourceCoordinate,
    /// Number of tiles.
    pub num_tiles: u32,
    /// Heap and first heap tile, or `None` to unmap.
    pub heap: Option<(HeapId, u32)>,
}

/// A device: creates objects and queues, and records command lists.
///
/// Implementations are thread-safe. Objects are referred to by the ids they return; destroying
/// an object the GPU still uses is the caller's responsibility, but must never corrupt memory.
pub trait DeviceDdi: FormatQuery + Send + Sync {
    /// The device's capabilities.
    fn capabilities(&self) -> &Capabilities;

    /// Whether the driver has reported the device lost (a GPU fault or reset). A lost device
    /// never comes back; the runtime then reports it removed.
    fn is_lost(&self) -> bool {
        false
    }

    /// Why the device was lost, for `GetDeviceRemovedReason`'s text.
    fn lost_reason(&self) -> &'static str {
        "a GPU fault or reset"
    }

    /// Creates a buffer or texture.
    fn create_resource(&self, desc: &ResourceDesc, info: &ResourceCreateInfo) -> Result<ResourceId>;

    /// Destroys a resource.
    fn destroy_resource(&self, id: ResourceId);

    /// Writes bytes into a CPU-visible buffer at `offset` (the map-write-unmap of upload heaps).
    fn write_buffer(&self, id: ResourceId, offset: u64, data: &[u8]) -> Result<()>;

    /// Reads bytes from a CPU-visible buffer at `offset` (readback heaps).
    fn read_buffer(&self, id: ResourceId, offset: u64, out: &mut [u8]) -> Result<()>;

    /// Reads every sample of an idle subresource of a multisampled texture: texel by texel in
    /// rows, the samples of a texel next to each other, each as many bytes as the format's
    /// element. No copy reaches samples; this is how tools and tests see them. The caller
    /// makes sure no GPU work uses the texture. Devices that cannot return `Unsupported`.
    fn read_samples(&self, id: ResourceId, subresource: u32) -> Result<Vec<u8>> {
        let _ = (id, subresource);
        Err(asyncmd_types::Error::unsupported("ReadSamples: the device cannot read samples"))
    }

    /// Creates a heap of `size` bytes for tile mappings.
    fn create_heap(&self, size: u64) -> Result<HeapId>;

    /// Destroys a heap.
    fn destroy_heap(&self, id: HeapId);

    /// Maps or unmaps tiles of a reserved resource.
    fn update_tile_mappings(&self, resource: ResourceId, mappings: &[TileMapping]) -> Result<()>;

    /// Creates a query heap.
    fn create_query_heap(&self, desc: &QueryHeapDesc) -> Result<QueryHeapId>;

    /// Destroys a query heap.
    fn destroy_query_heap(&self, id: QueryHeapId);

    /// Creates a root signature.
    fn create_root_signature(&self, desc: &RootSignatureDesc) -> Result<RootSignatureId>;

    /// Destroys a root signature: what was recorded with it, and pipelines made with it, keep
    /// what they need of it.
    fn destroy_root_signature(&self, id: RootSignatureId);

    /// Creates a pipeline of built-in shaders.
    fn create_pipeline(&self, desc: &PipelineDesc) -> Result<PipelineId>;

    /// Destroys a pipeline.
    fn destroy_pipeline(&self, id: PipelineId);

    /// Creates a fence with an initial value.
    fn create_fence(&self, initial: u64) -> Result<FenceId>;

    /// Destroys a fence.
    fn destroy_fence(&self, id: FenceId);

    /// The fence's completed value.
    fn fence_value(&self, id: FenceId) -> u64;

    /// Sets the fence's value from the CPU.
    fn signal_fence(&self, id: FenceId, value: u64) -> Result<()>;

    /// Blocks until the fence reaches `value` or `timeout` passes; returns whether it reached it.
    fn wait_fence(&self, id: FenceId, value: u64, timeout: Duration) -> bool;

    /// Creates a queue of a type (direct, compute or copy).
    fn create_queue(&self, ty: CommandListType) -> Result<Box<dyn QueueDdi>>;

    /// Creates a command list of a type, open for recording.
    fn create_command_list(&self, ty: CommandListType) -> Result<Box<dyn CommandListDdi>>;
}

/// A queue: runs executables in submission order and signals and waits on fences.
pub trait QueueDdi: Send + Sync {
    /// Submits closed command lists, run one after another.
    fn execute(&self, lists: &[Executable]) -> Result<()>;

    /// Sets `fence` to `value` once everything submitted before has completed.
    fn signal(&self, fence: FenceId, value: u64) -> Result<()>;

    /// [`QueueDdi::execute`], then [`QueueDdi::signal`] of `fence` to `value`, as one call: a
    /// device may submit both as one batch. Nothing is submitted where it fails.
    fn execute_and_signal(&self, lists: &[Executable], fence: FenceId, value: u64) -> Result<()> {
        self.execute(lists)?;
        self.signal(fence, value)
    }

    /// Makes later submissions wait until `fence` reaches `value`.
    fn wait(&self, fence: FenceId, value: u64) -> Result<()>;
}

/// A command list being recorded.
///
/// The runtime validates every command before recording it; devices may assume valid input,
/// but must never panic or corrupt memory on any input.
pub trait CommandListDdi: Send {
    /// Records one command.
    fn record(&mut self, command: Command);

    /// Ends recording and returns the executable form.
    fn close(&mut self) -> Result<Executable>;

    /// Starts a new recording, dropping what was recorded.
    fn reset(&mut self);
}

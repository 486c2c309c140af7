//! asyncmd: a runtime for explicit GPU command submission in the shape of Direct3D 12.
//!
//! Devices, queues (direct, compute, copy), timeline fences, command allocators, command lists,
//! bundles and enhanced barriers, on any device that implements the [`asyncmd_ddi`] driver
//! interface. The Async Commands and their fallback build on this core.
//!
//! ```
//! # fn main() -> asyncmd::Result<()> {
//! use asyncmd::{Adapter, DeviceFactory};
//! # let driver: std::sync::Arc<dyn asyncmd::ddi::DeviceDdi> =
//! #     std::sync::Arc::new(asyncmd_reference::ReferenceDevice::new(Default::default()));
//! let factory = DeviceFactory::new();
//! factory.async_commands_fallback().set_fallback_layer_enabled(true);
//! let device = factory.create_device(&Adapter::new(driver))?;
//! assert_eq!(device.async_commands_impl(), asyncmd::AsyncCommandsImpl::Fallback);
//! # Ok(())
//! # }
//! ```

mod allocator;
pub mod command_buffer;
mod command_list;
pub mod config;
mod debug;
mod descriptor;
mod device;
mod err;
mod factory;
pub mod fallback;
mod fence;
mod objects;
mod pending_work;
mod queue;
mod resource;
mod shadow;
pub mod streaming;
mod track;
mod tracked;

pub use allocator::CommandAllocator;
pub use command_buffer::{CommandBuffer, Level, Semantics, Tracked};
pub use command_list::{BundleClearFootprint, CommandList, CommandRecorder, CommandSignature};
pub use config::{DeveloperConfig, ForceFallbackGuard};
pub use debug::{InfoQueue, Message};
pub use descriptor::{
    CpuDescriptorHandle, DescriptorHeap, DescriptorHeapType, GpuDescriptorHandle, MAX_SHADER_VISIBLE_DESCRIPTORS,
    MAX_SHADER_VISIBLE_SAMPLERS,
};
pub use device::{Device, DeviceConfiguration};
pub use factory::{select_impl, Adapter, AsyncCommandsFallback, DeviceFactory, DeviceFactoryFlags, StartupOptions};
pub use fence::{Fence, MAX_FENCE_STEP};
pub use objects::{Heap, PipelineState, QueryHeap, RootSignature};
pub use queue::{CommandQueue, TileRangeMapping};
pub use resource::Resource;
pub use streaming::{StreamingUploader, UploadTicket};

/// The driver interface, re-exported for device implementers and pipeline descriptions.
pub use asyncmd_ddi as ddi;
/// The app's shader modules (WGSL, SPIR-V, GLSL through naga) and their bindings.
pub use asyncmd_shader as shader;
/// The plain data types, re-exported.
pub use asyncmd_types as types;
pub use asyncmd_types::{AsyncCommandsImpl, Error, ErrorCode, MessageId, Result};

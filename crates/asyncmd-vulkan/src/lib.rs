//! The asyncmd Vulkan device: the DDIs on any conformant Vulkan 1.3 driver, through `ash` with
//! run-time loading of libvulkan (no SDK needed to build) and `gpu-allocator` for memory.
//!
//! Vulkan 1.3 with synchronization2, dynamic rendering and timeline semaphores. Every image
//! lives in the `GENERAL` layout; enhanced barriers become `vkCmdPipelineBarrier2` memory
//! dependencies (`docs/vulkan-barriers.md`).
#![allow(unsafe_code)] // Vulkan is an unsafe FFI; each block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]

mod command;
mod conv;
mod copy_speed;
mod core;
mod deferred;
mod device;
mod drops;
pub mod floor;
mod gate;
mod instance;
mod memory;
mod meta;
mod physical;
mod pipeline;
mod queue;
mod sampler;
mod shader;
mod sparse;
mod sync;
mod threads;
mod watchdog;

pub use device::{ComputeCopies, DriverThreads, VulkanDevice, VulkanOptions};
pub use instance::{Validation, ValidationLog};
pub use physical::AdapterInfo;
pub use threads::POLLING_ENV;

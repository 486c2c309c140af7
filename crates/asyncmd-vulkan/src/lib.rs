//! The asyncmd Vulkan device: the legacy and native DDIs on any conformant Vulkan 1.3 driver,
//! through `ash` with run-time loading of libvulkan.
//!
//! This crate is part of the workspace layout; the device itself is the next step of the
//! project (see `docs/roadmap.md`). Until it lands, `asyncmd info` lists the reference device
//! only.

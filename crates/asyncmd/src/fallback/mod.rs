//! The Async Commands fallback: lowering each async call onto legacy DDIs.
//!
//! Routes only emit DDI commands; which route a call takes is decided by pure planners
//! (`plan.rs`). Each API's entry point is a free function of its file (`fill::lower`,
//! `texture_clear::lower`, `bound_clear::lower`, the copies in `copy.rs`) over a `Lowering`:
//! the list's parts, the device's [`Resources`] and [`Factory`], and the allocator's `Cache`.
//! The fallback imports nothing from the device, the allocator, the queue or the command list.

pub(crate) mod bound_clear;
pub(crate) mod cache;
pub(crate) mod copy;
pub(crate) mod factory;
pub(crate) mod fill;
pub(crate) mod lowering;
pub mod plan;
pub mod pools;
pub mod pso_cache;
pub(crate) mod resources;
pub(crate) mod restore;
pub(crate) mod texture_clear;

pub(crate) use factory::Factory;
pub(crate) use resources::Resources;

//! The Async Commands fallback: lowering each async call onto legacy DDIs.
//!
//! Routes only emit DDI commands; which route a call takes is decided by pure planners.

pub(crate) mod bound_clear;
pub(crate) mod copy;
pub(crate) mod fill;
pub(crate) mod lowering;
pub mod plan;
pub mod pools;
pub mod pso_cache;
pub(crate) mod state;
pub(crate) mod texture_clear;

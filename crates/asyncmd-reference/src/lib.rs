//! The asyncmd reference device: every DDI on host memory, in pure Rust.
//!
//! Memory is host memory; each queue is a worker thread; fences are timeline values the
//! workers signal, and a queue waiting on another queue's fence blocks its worker. Legacy
//! operations run in order, one after another. Capabilities are settable through
//! [`ReferenceConfig`], so that every route and rejection of the specification can be reached.

mod budget;
mod device;
mod exec;
mod fence;
mod formats;
mod memory;
mod queue;
mod recorder;
mod shader;
mod tiles;

pub use device::{ReferenceConfig, ReferenceDevice, DEFAULT_MEMORY_BUDGET, DEFAULT_SHADER_TIME_BUDGET};

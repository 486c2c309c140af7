//! Plain data shared by every asyncmd layer: [`Format`] and its format table, resource, heap and
//! view descriptions, [`Box3`], [`ClearData`], enhanced-barrier values, queries, the async-command
//! descriptions, error codes and message ids.
//!
//! Names follow D3D12 in Rust style: `DXGI_FORMAT_R8G8B8A8_UNORM` is [`Format::R8G8B8A8Unorm`],
//! `D3D12_BARRIER_LAYOUT_COPY_DEST` is [`BarrierLayout::CopyDest`].

mod async_desc;
mod barrier;
mod clear;
mod error;
mod format;
mod geometry;
mod indirect;
mod pattern;
mod query;
mod render_pass;
mod resolved;
mod resource;
mod root_signature;
mod sampler;
mod shader_view;
mod subresource;
mod texture_view;
mod tiling;
mod view;

pub use async_desc::*;
pub use barrier::*;
pub use clear::*;
pub use error::*;
pub use format::*;
pub use geometry::*;
pub use indirect::*;
pub use pattern::{fill_repeating, repeat_bytes};
pub use query::*;
pub use render_pass::*;
pub use resolved::*;
pub use resource::*;
pub use root_signature::*;
pub use sampler::*;
pub use shader_view::*;
pub use subresource::*;
pub use texture_view::*;
pub use tiling::*;
pub use view::*;

/// `D3D12_REQ_SUBRESOURCES`: the most subresources a resource may have.
pub const REQ_SUBRESOURCES: u32 = 30720;
/// `D3D12_SIMULTANEOUS_RENDER_TARGET_COUNT`.
pub const SIMULTANEOUS_RENDER_TARGET_COUNT: usize = 8;

/// The kind of a command list and of the queue that runs it (`D3D12_COMMAND_LIST_TYPE`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommandListType {
    /// Graphics, compute and copy.
    Direct = 0,
    /// A bundle: recorded once, executed from direct lists.
    Bundle = 1,
    /// Compute and copy.
    Compute = 2,
    /// Copy only (the DMA engines).
    Copy = 3,
}

impl CommandListType {
    /// The lower-case name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            CommandListType::Direct => "direct",
            CommandListType::Bundle => "bundle",
            CommandListType::Compute => "compute",
            CommandListType::Copy => "copy",
        }
    }
}

/// Which implementation of the Async Commands a device has (`D3D12_ASYNC_COMMANDS_IMPL`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsyncCommandsImpl {
    /// The APIs cannot be called.
    NotSupported = 0,
    /// The runtime lowers them onto legacy operations.
    Fallback = 1,
    /// The device implements them.
    Native = 2,
}

#[cfg(test)]
mod subresource_tests;

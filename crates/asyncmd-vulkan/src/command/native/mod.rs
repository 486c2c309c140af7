//! The native Async Commands on Vulkan, one file per family: buffer copies, fills and tiles
//! (`buffer`, with the buffer kernels' tables in `batch`), texture copies (`texture_copy`),
//! texture clears (`texture_clear`) and bound clears (`bound_clear`); resolves are
//! `super::resolve`'s, query resolves the legacy recording.
//!
//! On devices where compute copies win (measured at open), `CopyBufferRegions`, `FillBuffers`,
//! the buffers of `CopyResources` and the tiles of reserved buffers become **one dispatch** over
//! a table of all their parts in device memory (`batch`), which is where the GPU overlaps them
//! (transfer commands run one after another on the H200). Elsewhere (lavapipe) they are transfer
//! commands with no barriers between parts, except where a part writes bytes an earlier part of
//! the call wrote (the result is then one of the allowed orders, and synchronization validation
//! stays clean). Query resolves and the tiles of reserved textures use the legacy recordings,
//! one of the orders the API allows.

mod batch;
mod bound_clear;
mod buffer;
mod texture_clear;
mod texture_copy;

pub(crate) use batch::CopyPart;
pub(crate) use buffer::{PendingCopy, PendingFill, Written};

use super::VkCommandList;
use crate::memory::VkResource;
use ash::vk;
use asyncmd_ddi::Command;
use asyncmd_types::{Error, HeapType, MessageId, ResourceDesc, Result};
use std::sync::Arc;

fn fail(text: String) -> Error {
    Error::fail(MessageId::DeviceUnsupported, text)
}

impl VkCommandList {
    /// A host-visible table buffer holding `bytes`, kept with the list.
    pub(crate) fn table(&mut self, bytes: &[u8]) -> Result<Arc<VkResource>> {
        let t =
            Arc::new(VkResource::new(&self.core, &ResourceDesc::buffer(bytes.len().max(16) as u64), HeapType::Upload)?);
        t.host_access(0, bytes.len(), |m| m.copy_from_slice(bytes))?;
        self.scratch.push(t.clone());
        Ok(t)
    }

    pub(crate) fn transfer_barrier(&self) {
        self.memory_barrier(
            vk::PipelineStageFlags2::ALL_TRANSFER,
            vk::AccessFlags2::TRANSFER_WRITE,
            vk::PipelineStageFlags2::ALL_TRANSFER,
            vk::AccessFlags2::TRANSFER_WRITE | vk::AccessFlags2::TRANSFER_READ,
        );
    }

    pub(crate) fn native(&mut self, c: Command) -> Result<()> {
        match c {
            Command::CopyBufferRegions(regions) => self.copy_buffer_regions(&regions),
            Command::FillBuffers(fills) => self.fill_buffers(&fills),
            Command::ClearTextureSubresources(clears) => self.clear_texture_subresources(&clears),
            Command::ClearBoundRenderTargetViews { mask, values, regions } => {
                self.clear_bound_rtvs(mask, &values, &regions)
            }
            Command::ClearBoundDepthStencilView { flags, depth, stencil, regions } => {
                self.clear_bound_dsv_native(flags, depth, stencil, regions.as_deref())
            }
            Command::CopyTextureRegions(descs) => self.copy_texture_regions(&descs),
            Command::CopyResources(pairs) => self.copy_resources(&pairs),
            Command::CopyTilesAsync(t) => self.copy_tiles_async(t),
            Command::ResolveSubresourceRegionAsync(r) => self.resolve_async(&r),
            Command::ResolveQueryDataAsync(q) => self.record_command(Command::ResolveQueryData(q)),
            other => Err(fail(format!("{}: not an Async Command", other.name()))),
        }
    }

    /// Whether this list's buffer batches run as the batch kernels: where compute wins, and
    /// under predication, which reaches dispatches (conditional rendering) but no transfer
    /// (predicated lists are direct or compute lists, whose families run compute).
    fn buffer_kernels_on(&self) -> bool {
        self.copies_in_compute() || self.is_predicated()
    }
}

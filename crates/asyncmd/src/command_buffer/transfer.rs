//! `transfer`: copies between buffers and textures that check the resources' transfer usage on
//! every device and keep what they copy between alive with the buffer. The transfers from host
//! memory, which may go through the queue's streaming uploader, build on these in
//! `streaming/transfer.rs`.

use super::CommandBuffer;
use crate::err;
use crate::resource::Resource;
use asyncmd_types::{Error, MessageId, PlacedSubresourceFootprint, ResourceUsage, Result, TextureCopyLocation};

fn usage_error(api: &str, role: &str, needs: &str) -> Error {
    err::invalid(MessageId::TransferUsageInvalid, api, format!("the {role} was created without ResourceUsage::{needs}"))
}

pub(crate) fn check_usage(api: &str, source: Option<&Resource>, dest: &Resource) -> Result<()> {
    if source.is_some_and(|s| !s.desc().usage.contains(ResourceUsage::TRANSFER_SOURCE)) {
        return Err(usage_error(api, "source", "TRANSFER_SOURCE"));
    }
    if !dest.desc().usage.contains(ResourceUsage::TRANSFER_DESTINATION) {
        return Err(usage_error(api, "destination", "TRANSFER_DESTINATION"));
    }
    Ok(())
}

pub(crate) fn invalid(api: &str, text: String) -> Error {
    err::invalid(MessageId::CopyTextureRegionInvalidParameters, api, text)
}

impl CommandBuffer {
    /// Copies `size` bytes from `source` at `source_offset` to `dest` at `dest_offset`, and
    /// keeps both buffers alive until the copy has executed. `InvalidArg` when the source lacks
    /// [`ResourceUsage::TRANSFER_SOURCE`] or the destination
    /// [`ResourceUsage::TRANSFER_DESTINATION`]; other errors remove the list, as
    /// `CopyBufferRegion`'s do, and surface at submit.
    pub fn transfer_buffer(
        &mut self,
        source: &Resource,
        source_offset: u64,
        dest: &Resource,
        dest_offset: u64,
        size: u64,
    ) -> Result<()> {
        check_usage("CommandBuffer::transfer (buffer to buffer)", Some(source), dest)?;
        self.copy_buffer_region(dest, dest_offset, source, source_offset, size);
        self.track_all(&[source, dest]);
        Ok(())
    }

    /// Copies the placed footprint `footprint` of buffer `source` into subresource
    /// `subresource` of texture `dest` (in a layout copies write), tracking both.
    pub fn transfer_buffer_to_texture(
        &mut self,
        source: &Resource,
        footprint: PlacedSubresourceFootprint,
        dest: &Resource,
        subresource: u32,
    ) -> Result<()> {
        let (to, from) =
            (TextureCopyLocation::subresource(dest, subresource), TextureCopyLocation::footprint(source, footprint));
        self.transfer_texture_region("CommandBuffer::transfer (buffer to texture)", &to, &from)
    }

    /// Copies subresource `subresource` of texture `source` into the placed footprint
    /// `footprint` of buffer `dest`, tracking both.
    pub fn transfer_texture_to_buffer(
        &mut self,
        source: &Resource,
        subresource: u32,
        dest: &Resource,
        footprint: PlacedSubresourceFootprint,
    ) -> Result<()> {
        let (to, from) =
            (TextureCopyLocation::footprint(dest, footprint), TextureCopyLocation::subresource(source, subresource));
        self.transfer_texture_region("CommandBuffer::transfer (texture to buffer)", &to, &from)
    }

    /// A whole-subresource `CopyTextureRegion` from `from` to `to` after the usage check,
    /// tracking both resources.
    fn transfer_texture_region(
        &mut self,
        api: &str,
        to: &TextureCopyLocation<&Resource>,
        from: &TextureCopyLocation<&Resource>,
    ) -> Result<()> {
        check_usage(api, Some(from.resource), to.resource)?;
        self.copy_texture_region(to, 0, 0, 0, from, None);
        self.track_all(&[from.resource, to.resource]);
        Ok(())
    }
}

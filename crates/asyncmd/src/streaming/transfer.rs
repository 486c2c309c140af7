//! `transfer` from host memory: into buffers and textures, through the queue's streaming
//! uploader where the copy may go ahead of the buffer, or through an upload buffer the command
//! buffer makes and keeps alive.

use super::UploadTicket;
use crate::command_buffer::transfer::{check_usage, invalid};
use crate::command_buffer::{CommandBuffer, Level};
use crate::err;
use crate::resource::Resource;
use asyncmd_types::{
    align_up, BarrierLayout, HeapType, ResourceDesc, Result, TextureCopyLocation, TEXTURE_DATA_PITCH_ALIGNMENT,
};

impl CommandBuffer {
    /// Copies `data` from host memory into buffer `dest` at `dest_offset`. Where no earlier
    /// command of this buffer touches `dest` (legacy semantics knows; a fast buffer cannot
    /// tell) and `dest` is a committed buffer of a DEFAULT heap, the queue's streaming uploader
    /// ([`CommandQueue::streaming_uploader`](crate::CommandQueue::streaming_uploader)) copies
    /// it on the copy queue and the buffer's submission waits for it on the GPU; otherwise the
    /// copy keeps its place in the buffer, through an upload buffer this command buffer makes
    /// and keeps alive until the copy has executed.
    pub fn transfer_host_to_buffer(&mut self, data: &[u8], dest: &Resource, dest_offset: u64) -> Result<()> {
        const API: &str = "CommandBuffer::transfer (host to buffer)";
        check_usage(API, None, dest)?;
        if data.is_empty() {
            return Ok(());
        }
        if self.may_stream(dest) {
            let ticket = self.queue().streaming_uploader()?.upload_buffer(dest, dest_offset, data)?;
            return self.after_upload(dest, ticket);
        }
        let staging = self.staging(data.len() as u64)?;
        staging.write(0, data)?;
        self.copy_buffer_region(dest, dest_offset, &staging, 0, data.len() as u64);
        self.track_all(&[&staging, dest]);
        Ok(())
    }

    /// Copies `data` from host memory into subresource `subresource` of texture `dest`: its
    /// rows (of blocks) `row_pitch` bytes apart, slice after slice, each at least the
    /// subresource's row size; `InvalidArg` when `data` is shorter than the subresource. Goes
    /// through an upload buffer this command buffer makes and keeps alive.
    pub fn transfer_host_to_texture(
        &mut self,
        data: &[u8],
        row_pitch: u64,
        dest: &Resource,
        subresource: u32,
    ) -> Result<()> {
        const API: &str = "CommandBuffer::transfer (host to texture)";
        check_usage(API, None, dest)?;
        if dest.desc().is_buffer() {
            return Err(invalid(API, "the destination is a buffer; transfer_host_to_buffer writes buffers".into()));
        }

        let fp = dest.desc().copyable_footprints(subresource, 1, 0).ok_or_else(|| {
            invalid(API, format!("subresource {subresource} is out of range or has no copyable footprint"))
        })?;
        let (placed, rows, row) = (fp.layouts[0], fp.num_rows[0] as u64, fp.row_sizes[0]);
        let slices = placed.footprint.depth as u64;
        if row_pitch < row {
            return Err(invalid(API, format!("row pitch {row_pitch} is less than the {row}-byte rows")));
        }
        let needed = rows
            .checked_mul(slices)
            .and_then(|n| n.checked_sub(1))
            .and_then(|n| n.checked_mul(row_pitch))
            .and_then(|n| n.checked_add(row))
            .ok_or_else(|| invalid(API, "the subresource's size overflows".into()))?;
        if (data.len() as u64) < needed {
            return Err(invalid(
                API,
                format!(
                    "{} bytes of data; subresource {subresource} needs {needed} at a {row_pitch}-byte pitch",
                    data.len()
                ),
            ));
        }
        let single = !dest.desc().is_msaa() && dest.desc().format.plane_count() == 1;
        let exact = rows.checked_mul(slices).and_then(|n| n.checked_mul(row_pitch)) == Some(data.len() as u64);
        if single && exact && self.may_stream(dest) {
            let ticket = self.queue().streaming_uploader()?.upload_texture(dest, subresource, data, row_pitch)?;
            return self.after_upload(dest, ticket);
        }
        // Rows move to the pitch copies need (256-byte aligned).
        let pitch = align_up(row, TEXTURE_DATA_PITCH_ALIGNMENT as u64);
        let size = rows
            .checked_mul(slices)
            .and_then(|n| n.checked_mul(pitch))
            .ok_or_else(|| invalid(API, "the staging buffer's size overflows".into()))?;
        let staging = self.staging(size)?;
        let mut packed = Vec::new();
        packed
            .try_reserve_exact(size as usize)
            .map_err(|_| err::out_of_memory(API, format!("{size} bytes of staging memory cannot be reserved")))?;
        packed.resize(size as usize, 0);
        for (r, chunk) in packed.chunks_exact_mut(pitch as usize).enumerate() {
            let from = r as u64 * row_pitch;
            chunk[..row as usize].copy_from_slice(&data[from as usize..(from + row) as usize]);
        }
        staging.write(0, &packed)?;
        let mut placed = placed;
        placed.offset = 0;
        placed.footprint.row_pitch = pitch as u32;
        let to = TextureCopyLocation::subresource(dest, subresource);
        self.copy_texture_region(&to, 0, 0, 0, &TextureCopyLocation::footprint(&staging, placed), None);
        self.track_all(&[&staging, dest]);
        Ok(())
    }

    /// Whether a host transfer into `dest` may go through the queue's uploader, ahead of this
    /// buffer: a primary legacy buffer none of whose earlier commands touches `dest`, a
    /// committed destination in a DEFAULT heap, in a layout the copy queue uses.
    fn may_stream(&self, dest: &Resource) -> bool {
        let layout_ok = dest.desc().is_buffer()
            || (0..dest.desc().subresource_count())
                .all(|s| matches!(dest.layout(s), Some(BarrierLayout::Common | BarrierLayout::CopyDest) | None));
        let untouched = self.parts.as_ref().is_some_and(|p| p.list.semantics.untouched(dest.id()));
        self.level() == Level::Primary
            && untouched
            && dest.heap_type() == HeapType::Default
            && !dest.is_reserved()
            && layout_ok
    }

    /// The buffer's submission waits for `ticket`; `dest` lives until the buffer has run.
    fn after_upload(&mut self, dest: &Resource, ticket: UploadTicket) -> Result<()> {
        self.wait_first = Some((ticket.fence().clone(), ticket.value()));
        self.track(dest);
        Ok(())
    }

    /// An upload buffer of `size` bytes for one host transfer.
    fn staging(&self, size: u64) -> Result<Resource> {
        self.queue().device().create_committed_resource(
            HeapType::Upload,
            &ResourceDesc::buffer(size),
            asyncmd_types::BarrierLayout::Undefined,
        )
    }
}

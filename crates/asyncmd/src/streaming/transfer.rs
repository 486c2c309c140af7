//! `transfer` from host memory: into buffers and textures, through the queue's streaming
//! uploader into device memory ahead of the buffer, or through an upload buffer the command
//! buffer makes and keeps alive. Either way the write into the destination is a copy at the
//! transfer's place in the buffer: a transfer never overtakes earlier work that uses its
//! destination, whoever recorded it (an earlier buffer of the submission, an earlier
//! submission still running, a shader reading it through a descriptor).

use crate::command_buffer::transfer::{check_usage, invalid};
use crate::command_buffer::{CommandBuffer, Level};
use crate::err;
use crate::resource::Resource;
use asyncmd_types::{
    align_up, BarrierLayout, HeapType, ResourceDesc, Result, TextureCopyLocation, TEXTURE_DATA_PITCH_ALIGNMENT,
};

impl CommandBuffer {
    /// Copies `data` from host memory into buffer `dest` at `dest_offset`, as a copy at this
    /// point of the buffer. Where `dest` is in a DEFAULT heap and the buffer is primary, the
    /// queue's streaming uploader
    /// ([`CommandQueue::streaming_uploader`](crate::CommandQueue::streaming_uploader)) takes the
    /// data into device memory ahead, on the copy queue, and the buffer's submission waits for
    /// it on the GPU; otherwise the copy reads an upload buffer. The buffer keeps what it made
    /// alive until the copy has executed.
    pub fn transfer_host_to_buffer(&mut self, data: &[u8], dest: &Resource, dest_offset: u64) -> Result<()> {
        const API: &str = "CommandBuffer::transfer (host to buffer)";
        check_usage(API, None, dest)?;
        if data.is_empty() {
            return Ok(());
        }
        let staging = self.staged(data, dest)?;
        self.copy_buffer_region(dest, dest_offset, &staging, 0, data.len() as u64);
        self.track_all(&[&staging, dest]);
        Ok(())
    }

    /// Copies `data` from host memory into subresource `subresource` of texture `dest`: its
    /// rows (of blocks) `row_pitch` bytes apart, slice after slice, each at least the
    /// subresource's row size; `InvalidArg` when `data` is shorter than the subresource. A copy
    /// at this point of the buffer, from device memory the uploader filled ahead or from an
    /// upload buffer, as [`CommandBuffer::transfer_host_to_buffer`] says.
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
        // Rows move to the pitch copies need (256-byte aligned).
        let pitch = align_up(row, TEXTURE_DATA_PITCH_ALIGNMENT as u64);
        let size = rows
            .checked_mul(slices)
            .and_then(|n| n.checked_mul(pitch))
            .ok_or_else(|| invalid(API, "the staging buffer's size overflows".into()))?;
        let staging = if row_pitch == pitch && data.len() as u64 == size {
            self.staged(data, dest)?
        } else {
            let mut packed = Vec::new();
            packed
                .try_reserve_exact(size as usize)
                .map_err(|_| err::out_of_memory(API, format!("{size} bytes of staging memory cannot be reserved")))?;
            packed.resize(size as usize, 0);
            for (r, chunk) in packed.chunks_exact_mut(pitch as usize).enumerate() {
                let from = r as u64 * row_pitch;
                chunk[..row as usize].copy_from_slice(&data[from as usize..(from + row) as usize]);
            }
            self.staged(&packed, dest)?
        };
        let mut placed = placed;
        placed.offset = 0;
        placed.footprint.row_pitch = pitch as u32;
        let to = TextureCopyLocation::subresource(dest, subresource);
        self.copy_texture_region(&to, 0, 0, 0, &TextureCopyLocation::footprint(&staging, placed), None);
        self.track_all(&[&staging, dest]);
        Ok(())
    }

    /// A buffer holding `data` for the copy into `dest`: device memory the queue's uploader
    /// fills on the copy queue (the buffer's submission waits for it), for a primary buffer and a
    /// destination in a DEFAULT heap; otherwise an upload buffer written now. Either is this
    /// transfer's alone, so the uploader's copy, ahead of the buffer, races with nothing.
    fn staged(&mut self, data: &[u8], dest: &Resource) -> Result<Resource> {
        let size = data.len() as u64;
        if self.level() == Level::Primary && dest.heap_type() == HeapType::Default {
            let staging = self.queue().device().create_committed_resource(
                HeapType::Default,
                &ResourceDesc::buffer(size),
                BarrierLayout::Undefined,
            )?;
            let ticket = self.queue().streaming_uploader()?.upload_buffer(&staging, 0, data)?;
            self.wait_first = Some((ticket.fence().clone(), ticket.value()));
            return Ok(staging);
        }
        let staging = self.staging(size)?;
        staging.write(0, data)?;
        Ok(staging)
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

//! Streaming uploads (spec 004): host memory to buffers and textures through a ring of upload
//! memory, copied on the copy queue (the DMA engines) while direct and compute queues render.
//!
//! [`StreamingUploader::upload_buffer`] and [`StreamingUploader::upload_texture`] write the
//! data into the ring, record copies on the uploader's copy queue and return an
//! [`UploadTicket`]: a fence and the value it reaches once the data is in place. A direct or
//! compute queue waits for it on the GPU with [`CommandQueue::wait_ticket`] before reading; the
//! CPU with [`UploadTicket::wait`]. Large uploads go in chunks; when the ring is full the next
//! chunk waits for the oldest one the GPU still reads (the ring never grows). With a frame
//! budget ([`StreamingUploader::begin_frame`]), at most that many bytes are copied per frame and
//! the rest waits for the next frames, instead of one frame paying for a large upload.
//!
//! On a device with one queue for everything ([`Capabilities::dedicated_copy_queue`] false, as
//! lavapipe), the uploader copies on a direct queue of its own, with the same API.
//!
//! [`Capabilities::dedicated_copy_queue`]: crate::ddi::Capabilities::dedicated_copy_queue

use crate::err;
mod plan;
mod ring;
mod transfer;

use crate::command_buffer::{Level, Semantics};
use crate::device::Device;
use crate::fence::Fence;
use crate::queue::CommandQueue;
use crate::resource::Resource;
use asyncmd_types::{
    BarrierLayout, CommandListType, HeapType, MessageId, PlacedSubresourceFootprint, ResourceDesc, Result,
    SubresourceFootprint, TextureCopyLocation,
};
use plan::{Chunk, Target};
use ring::Ring;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The ring of the uploader a queue's command buffers transfer host memory through.
pub const TRANSFER_RING: u64 = 32 << 20;

/// How long a full ring waits for the GPU to free its oldest chunk before `Fail`.
const RING_WAIT: Duration = Duration::from_secs(60);

/// Where an upload stands: the fence and the value it reaches once the data is in place.
#[derive(Clone)]
pub struct UploadTicket {
    fence: Fence,
    value: u64,
}

impl std::fmt::Debug for UploadTicket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UploadTicket").field("value", &self.value).field("done", &self.is_done()).finish()
    }
}

impl UploadTicket {
    /// The uploader's fence.
    pub fn fence(&self) -> &Fence {
        &self.fence
    }

    /// The value the fence reaches once the upload is done.
    pub fn value(&self) -> u64 {
        self.value
    }

    /// Whether the upload is done.
    pub fn is_done(&self) -> bool {
        self.fence.completed_value() >= self.value
    }

    /// Blocks until the upload is done (`Fail` after `timeout`). An upload a frame budget holds
    /// back is done only once later frames have copied it.
    pub fn wait(&self, timeout: Duration) -> Result<()> {
        self.fence.wait(self.value, timeout)
    }
}

impl CommandQueue {
    /// The uploader this queue's command buffers send host memory through
    /// ([`crate::CommandBuffer::transfer_host_to_buffer`]): its own copy queue and a ring of
    /// [`TRANSFER_RING`] bytes, made on first use.
    pub fn streaming_uploader(&self) -> Result<Arc<StreamingUploader>> {
        let mut u = self.0.uploader.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(up) = u.as_ref() {
            return Ok(up.clone());
        }
        // A handle of the runtime's own: the app's last handle still frees the device's pools.
        let device = Device::from_shared(self.0.device.clone());
        let up = Arc::new(StreamingUploader::new(&device, TRANSFER_RING)?);
        *u = Some(up.clone());
        Ok(up)
    }

    /// Work submitted to this queue after this call waits on the GPU until the upload of
    /// `ticket` is done (`Wait` on its fence).
    pub fn wait_ticket(&self, ticket: &UploadTicket) -> Result<()> {
        self.wait(&ticket.fence, ticket.value)
    }
}

/// An upload the frame budget held back: the data from byte `base` on, and how far it got.
struct Held {
    target: Target,
    data: Vec<u8>,
    base: u64,
    done: u64,
    ticket: u64,
}

/// An upload's data: the app's to copy from now, or given over (held without a copy).
enum Data<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Data<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Data::Borrowed(b) => b,
            Data::Owned(v) => v,
        }
    }
}

/// Frees an upload's data once it is copied: large buffers on a thread of their own, since
/// giving a GiB back to the system takes tens of milliseconds (a frame's worth).
fn release(data: Vec<u8>) {
    const OFF_THREAD: usize = 16 << 20;
    if data.capacity() >= OFF_THREAD {
        let freed = std::thread::Builder::new().name("asyncmd-free".into()).spawn(move || drop(data));
        if let Err(e) = freed {
            tracing::debug!("StreamingUploader: freeing on this thread: {e}");
        }
    }
}

/// One lane of the ring: its own upload memory, so that threads fill lanes side by side.
struct Lane {
    ring: Ring,
    memory: Resource,
    /// Texture rows re-pitched for the ring.
    scratch: Vec<u8>,
}

struct State {
    lanes: Vec<Lane>,
    /// The last ticket value handed out.
    tickets: u64,
    /// The frame's byte budget and what the frame copied so far.
    budget: Option<u64>,
    used: u64,
    /// Uploads waiting for later frames, in order.
    held: VecDeque<Held>,
    /// Bytes copied since the uploader was made.
    uploaded: u64,
}

/// Uploads host memory to GPU resources on the copy queue (see the [module](self)). Shared by
/// threads: uploads from several threads take the ring in turn.
pub struct StreamingUploader {
    device: Device,
    queue: CommandQueue,
    fence: Fence,
    state: Mutex<State>,
}

impl std::fmt::Debug for StreamingUploader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamingUploader").field("queue", &self.queue.ty()).finish()
    }
}

impl StreamingUploader {
    /// An uploader with a ring of `ring_bytes` of upload memory (64 KiB to 16 GiB), on a copy
    /// queue of its own (a direct queue where the device has one queue for everything). Large
    /// rings are split in lanes that threads fill side by side (one lane per four cores, at
    /// most four: on a 16-core H200 host four threads write upload memory at 32 GB/s, one at 9).
    pub fn new(device: &Device, ring_bytes: u64) -> Result<StreamingUploader> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        Self::with_lanes(device, ring_bytes, (cores / 4).clamp(1, 4))
    }

    /// [`StreamingUploader::new`] with the ring split in `lanes` lanes (1 to 16; fewer where
    /// a lane would be smaller than 64 KiB).
    pub fn with_lanes(device: &Device, ring_bytes: u64, lanes: u32) -> Result<StreamingUploader> {
        if !(plan::MIN_RING..=plan::MAX_RING).contains(&ring_bytes) || !(1..=16).contains(&lanes) {
            return Err(err::invalid(
                MessageId::StreamingUploadInvalid,
                "StreamingUploader::new",
                format!(
                    "a ring of {ring_bytes} bytes in {lanes} lanes (64 KiB to 16 GiB, 1 to 16 \
                 lanes allowed)"
                ),
            ));
        }
        let lanes = (lanes as u64).min(ring_bytes / plan::MIN_RING);
        let lane_bytes = (ring_bytes / lanes).next_multiple_of(plan::ALIGN);
        let ty =
            if device.capabilities().dedicated_copy_queue { CommandListType::Copy } else { CommandListType::Direct };
        let queue = device.create_command_queue(ty)?;
        let fence = device.create_fence(0)?;
        let lanes = (0..lanes)
            .map(|_| {
                let memory = device.create_committed_resource(
                    HeapType::Upload,
                    &ResourceDesc::buffer(lane_bytes),
                    BarrierLayout::Undefined,
                )?;
                Ok(Lane { ring: Ring::new(lane_bytes), memory, scratch: Vec::new() })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(StreamingUploader {
            device: device.clone(),
            queue,
            fence,
            state: Mutex::new(State { lanes, tickets: 0, budget: None, used: 0, held: VecDeque::new(), uploaded: 0 }),
        })
    }

    /// The queue the uploader copies on.
    pub fn queue(&self) -> &CommandQueue {
        &self.queue
    }

    /// Bytes of data copied so far (held-back uploads count as they are copied).
    pub fn uploaded_bytes(&self) -> u64 {
        self.lock().uploaded
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Uploads `data` into `dest` (a buffer in a DEFAULT heap with
    /// `ResourceUsage::TRANSFER_DESTINATION`) at `offset`. Errors (`InvalidArg`, nothing is
    /// uploaded): another device's buffer, a texture, the wrong heap or usage, a range past the
    /// end, no data.
    pub fn upload_buffer(&self, dest: &Resource, offset: u64, data: &[u8]) -> Result<UploadTicket> {
        let target = plan::buffer_target(&self.device, dest, offset, data.len())?;
        self.upload(target, Data::Borrowed(data))
    }

    /// [`StreamingUploader::upload_buffer`] of data given over: where a frame budget holds part
    /// of it back, that part is kept as it is instead of copied.
    pub fn upload_buffer_owned(&self, dest: &Resource, offset: u64, data: Vec<u8>) -> Result<UploadTicket> {
        let target = plan::buffer_target(&self.device, dest, offset, data.len())?;
        self.upload(target, Data::Owned(data))
    }

    /// Uploads one subresource of `dest` (a texture in `COMMON` with
    /// `ResourceUsage::TRANSFER_DESTINATION`): `data` holds its rows (of blocks) `row_pitch`
    /// bytes apart, slice after slice, exactly `row_pitch × rows × depth` bytes. Errors
    /// (`InvalidArg`, nothing is uploaded): another device's texture, a buffer, a multisampled
    /// or depth-stencil texture, a subresource out of range, a layout other than `COMMON`, a
    /// pitch below the row's bytes, data of another size.
    pub fn upload_texture(
        &self,
        dest: &Resource,
        subresource: u32,
        data: &[u8],
        row_pitch: u64,
    ) -> Result<UploadTicket> {
        let target = plan::texture_target(&self.device, dest, subresource, data.len(), row_pitch)?;
        self.upload(target, Data::Borrowed(data))
    }

    /// [`StreamingUploader::upload_texture`] of data given over (see
    /// [`StreamingUploader::upload_buffer_owned`]).
    pub fn upload_texture_owned(
        &self,
        dest: &Resource,
        subresource: u32,
        data: Vec<u8>,
        row_pitch: u64,
    ) -> Result<UploadTicket> {
        let target = plan::texture_target(&self.device, dest, subresource, data.len(), row_pitch)?;
        self.upload(target, Data::Owned(data))
    }

    /// Starts a frame: from now until [`StreamingUploader::end_frame`], at most `budget` bytes
    /// are copied (`None`: no limit). Uploads held back by earlier frames go first.
    pub fn begin_frame(&self, budget: Option<u64>) -> Result<()> {
        let mut st = self.lock();
        st.budget = budget;
        st.used = 0;
        self.pump(&mut st)
    }

    /// Ends the frame. With a budget, uploads made until the next `begin_frame` wait for it
    /// (they count to the next frame); without one, nothing changes.
    pub fn end_frame(&self) {
        let mut st = self.lock();
        if st.budget.is_some() {
            st.budget = Some(0);
        }
        st.used = 0;
    }

    /// Copies every held-back upload now, whatever the budget.
    pub fn flush(&self) -> Result<()> {
        let mut st = self.lock();
        let budget = st.budget.take();
        let r = self.pump(&mut st);
        st.budget = budget;
        r
    }

    /// Bytes held back for later frames.
    pub fn held_bytes(&self) -> u64 {
        self.lock().held.iter().map(|h| h.target.bytes() - h.done).sum()
    }

    fn upload(&self, target: Target, data: Data<'_>) -> Result<UploadTicket> {
        let mut st = self.lock();
        st.tickets += 1;
        let ticket = st.tickets;
        let done = if st.held.is_empty() { self.copy(&mut st, &target, data.bytes(), 0, 0, ticket)? } else { 0 };
        if done < target.bytes() {
            // The frame's budget ran out: the rest waits, in order, behind what already does.
            let (data, base) = match data {
                Data::Owned(v) => (v, 0),
                Data::Borrowed(b) => {
                    let rest = &b[done as usize..];
                    let mut owned = Vec::new();
                    owned.try_reserve_exact(rest.len()).map_err(|_| {
                        err::out_of_memory(
                            "StreamingUploader",
                            format!("cannot hold {} bytes for later frames", rest.len()),
                        )
                    })?;
                    owned.extend_from_slice(rest);
                    (owned, done)
                }
            };
            st.held.push_back(Held { target, data, base, done, ticket });
        } else if let Data::Owned(v) = data {
            release(v);
        }
        Ok(UploadTicket { fence: self.fence.clone(), value: ticket })
    }

    /// Copies held-back uploads, oldest first, while the budget lasts.
    fn pump(&self, st: &mut State) -> Result<()> {
        while let Some(mut h) = st.held.pop_front() {
            h.done = self.copy(st, &h.target, &h.data, h.base, h.done, h.ticket)?;
            if h.done < h.target.bytes() {
                st.held.push_front(h);
                break;
            }
            release(h.data);
        }
        Ok(())
    }

    /// Copies the upload from byte `from` in chunks while the budget allows (`data` holds its
    /// bytes from `base` on); signals `ticket` once the last is submitted. Returns how far it got.
    fn copy(&self, st: &mut State, target: &Target, data: &[u8], base: u64, from: u64, ticket: u64) -> Result<u64> {
        let mut done = from;
        let mut buffer = None;
        let result = (|| {
            while done < target.bytes() {
                // One chunk per lane, filled side by side, then one copy each.
                let mut parts: smallvec::SmallVec<[(usize, Chunk, u64); 4]> = smallvec::SmallVec::new();
                for lane in 0..st.lanes.len() {
                    let left = st.budget.map(|b| b.saturating_sub(st.used));
                    let capacity = st.lanes[lane].ring.capacity();
                    let Some(chunk) = target.chunk(done, capacity, left, st.used == 0) else { break };
                    let at = match st.lanes[lane].ring.alloc(chunk.ring_bytes, plan::ALIGN) {
                        Some(at) => at,
                        None => {
                            // Full: what is filled goes first, then the oldest chunk is waited for.
                            if !parts.is_empty() {
                                break;
                            }
                            self.submit(st, &mut buffer)?;
                            self.make_room(st, lane, chunk.ring_bytes)?
                        }
                    };
                    done = chunk.end;
                    st.used += chunk.data_bytes;
                    parts.push((lane, chunk, at));
                }
                if parts.is_empty() {
                    break;
                }
                fill(&mut st.lanes, target, &parts, data, base)?;
                let b = match &mut buffer {
                    Some(b) => b,
                    None => buffer.insert(self.queue.create_command_buffer(Semantics::Fast, Level::Primary)?),
                };
                for (lane, chunk, at) in &parts {
                    record(b, &st.lanes[*lane].memory, *at, target, chunk);
                    st.uploaded += chunk.data_bytes;
                }
                // The destination lives until the copies into it have run, whoever holds it
                // (a command buffer's host transfer drops its own at once when the buffer is
                // dropped unsubmitted).
                b.track(target.dest());
                // Each step goes at once: the GPU copies it while the CPU fills the next, and
                // a full ring waits for one step, not for everything filled before.
                self.submit(st, &mut buffer)?;
            }
            self.submit(st, &mut buffer)
        })();
        if result.is_err() || done >= target.bytes() {
            // Also on failure: a queue waiting for the ticket must not wait for ever.
            self.queue.signal(&self.fence, ticket)?;
        }
        result.map(|()| done)
    }

    fn submit(&self, st: &mut State, buffer: &mut Option<crate::command_buffer::CommandBuffer>) -> Result<()> {
        if let Some(b) = buffer.take() {
            let value = b.submit()?;
            st.lanes.iter_mut().for_each(|l| l.ring.submitted(value));
        }
        Ok(())
    }

    /// Waits for the oldest chunks the GPU reads from `lane` until `bytes` fit there.
    fn make_room(&self, st: &mut State, lane: usize, bytes: u64) -> Result<u64> {
        loop {
            let completed = self.queue.fence().completed_value();
            st.lanes.iter_mut().for_each(|l| l.ring.retire(completed));
            let ring = &mut st.lanes[lane].ring;
            if let Some(at) = ring.alloc(bytes, plan::ALIGN) {
                return Ok(at);
            }
            let Some(oldest) = ring.oldest() else {
                return Err(err::fail(
                    MessageId::StreamingUploadInvalid,
                    "StreamingUploader",
                    format!("a chunk of {bytes} bytes does not fit the ring"),
                ));
            };
            debug_assert!(!ring.has_unsubmitted());
            self.queue.wait_for(oldest, RING_WAIT)?;
        }
    }
}

/// Fills the lanes' chunks: on threads of their own where there are several and they are
/// large enough to pay for them.
fn fill(lanes: &mut [Lane], target: &Target, parts: &[(usize, Chunk, u64)], data: &[u8], base: u64) -> Result<()> {
    const THREADED: u64 = 1 << 20;
    let bytes: u64 = parts.iter().map(|p| p.1.ring_bytes).sum();
    let mut jobs: smallvec::SmallVec<[(&mut Lane, &Chunk, u64); 4]> = smallvec::SmallVec::new();
    for (lane, l) in lanes.iter_mut().enumerate() {
        if let Some((_, c, at)) = parts.iter().find(|p| p.0 == lane) {
            jobs.push((l, c, *at));
        }
    }
    let one = |(l, c, at): (&mut Lane, &Chunk, u64)| plan::write(&l.memory, at, target, c, data, base, &mut l.scratch);
    if jobs.len() < 2 || bytes < THREADED {
        return jobs.into_iter().try_for_each(one);
    }
    std::thread::scope(|s| {
        let mut jobs = jobs.into_iter();
        let first = jobs.next();
        let others: Vec<_> = jobs.map(|j| s.spawn(move || one(j))).collect();
        let r = first.map_or(Ok(()), one);
        others.into_iter().fold(r, |r, h| {
            let joined = h.join().unwrap_or_else(|_| {
                Err(err::fail(MessageId::StreamingUploadInvalid, "StreamingUploader", "a filling thread panicked"))
            });
            r.and(joined)
        })
    })
}

/// Records one chunk's copy from the ring at `at`.
fn record(b: &mut crate::CommandRecorder, ring: &Resource, at: u64, target: &Target, c: &Chunk) {
    match target {
        Target::Buffer { dest, offset, .. } => b.copy_buffer_region(dest, offset + c.start, ring, at, c.data_bytes),
        Target::Texture { dest, subresource, layout, .. } => {
            let footprint = PlacedSubresourceFootprint {
                offset: at,
                footprint: SubresourceFootprint {
                    format: layout.footprint.format,
                    width: layout.footprint.width,
                    height: c.texel_rows,
                    depth: 1,
                    row_pitch: layout.footprint.row_pitch,
                },
            };
            b.copy_texture_region(
                &TextureCopyLocation::subresource(dest, *subresource),
                0,
                c.texel_y,
                c.slice,
                &TextureCopyLocation::footprint(ring, footprint),
                None,
            );
        }
    }
}

impl Drop for StreamingUploader {
    fn drop(&mut self) {
        // Held uploads are copied now: a queue may wait for their tickets.
        if let Err(e) = self.flush() {
            tracing::warn!("StreamingUploader: held uploads failed as it was dropped: {}", e.text);
        }
    }
}

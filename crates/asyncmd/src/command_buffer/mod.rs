//! Command buffers: one-time recordings made by a queue and consumed by submission, with the
//! objects they use kept alive until the GPU has executed them.
//!
//! A command buffer is recording as soon as [`CommandQueue::create_command_buffer`] returns
//! it, records every command a command list of the queue's type has (it dereferences to a
//! [`CommandRecorder`], which has no `Close` or `Reset`: there is no way back into recording),
//! and ends with [`CommandBuffer::submit`], which hands it to the queue and
//! returns the value [`CommandQueue::fence`] reaches once the GPU has executed it. The queue
//! owns it from then on, and recycles its memory for later buffers once that value has passed:
//! creating a command buffer every frame is cheap, and no fence needs checking before recording.
//!
//! Inside one submission (one buffer, or the buffers of one [`CommandQueue::submit_all`]),
//! commands start in order and may overlap: a command that depends on an earlier one needs a
//! barrier. Between two submissions on one queue no barrier is needed.
//!
//! Submitting twice, or recording after submitting, cannot be written: `submit` takes the
//! buffer by value.
//!
//! ```compile_fail,E0382
//! # fn f(queue: &asyncmd::CommandQueue) -> asyncmd::Result<()> {
//! use asyncmd::command_buffer::{Level, Semantics};
//! let buffer = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
//! buffer.submit()?;
//! buffer.submit()?; // error[E0382]: use of moved value: `buffer`
//! # Ok(())
//! # }
//! ```
//!
//! Nor can a buffer record again once it ended: it has no `Close` or `Reset` (002: "there is
//! no way back into the recording state").
//!
//! ```compile_fail,E0624
//! # fn f(queue: &asyncmd::CommandQueue) -> asyncmd::Result<()> {
//! use asyncmd::command_buffer::{Level, Semantics};
//! let mut buffer = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
//! buffer.close()?; // error[E0624]: method `close` is private
//! # Ok(())
//! # }
//! ```
//!
//! ```compile_fail,E0624
//! # fn f(queue: &asyncmd::CommandQueue, allocator: &asyncmd::CommandAllocator) -> asyncmd::Result<()> {
//! use asyncmd::command_buffer::{Level, Semantics};
//! let mut secondary = queue.create_command_buffer(Semantics::Legacy, Level::Secondary)?;
//! secondary.reset(allocator)?; // error[E0624]: method `reset` is private
//! # Ok(())
//! # }
//! ```
//!
//! # Memory the CPU writes and reads
//!
//! An upload buffer written with [`Resource::write`] is seen by every submission made after the
//! write, with no barrier. The danger is the other direction: overwriting data a submission
//! still in flight reads. With several frames in flight, give each frame its own part of the
//! buffer (frame `i` writes part `i % frames`) and, before reusing a part, wait for the fence
//! value of the frame that last used it. A readback buffer is read after a CPU wait
//! ([`CommandQueue::wait_for`]) on the value of the submission that copied into it.

use crate::err;
mod recycler;
mod state;
pub(crate) mod transfer;

pub use crate::command_list::semantics::TrackingCosts;
pub use crate::tracked::Tracked;
pub(crate) use recycler::Recycler;
pub use state::BoundTargets;

use crate::command_list::semantics::Mode;
use crate::command_list::{CommandList, CommandRecorder};
use crate::fence::Fence;
use crate::queue::CommandQueue;
use crate::resource::Resource;
use crate::track::prefix::Prefix;
use asyncmd_types::{
    BarrierAccess, BarrierGroup, BarrierLayout, BarrierSubresourceRange, BarrierSync, TextureBarrier,
    TextureBarrierFlags,
};
use asyncmd_types::{CommandListType, MessageId, Result};
use recycler::Parts;
use std::marker::PhantomData;
use std::sync::PoisonError;
use std::time::Duration;

/// How a command buffer treats hazards, lifetimes and state (spec 001): the runtime tracks
/// them (`Legacy`), or leaves them to the app (`Fast`). Chosen per buffer at creation; the
/// buffers of one submission share one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// The runtime tracks hazards, lifetimes and state.
    Legacy,
    /// The app does: its own barriers, fences and references.
    Fast,
}

/// Whether a command buffer is submitted to its queue or executed by other buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// Submitted to the queue that made it.
    Primary,
    /// A bundle: executed by primary buffers of a direct queue, any number of times.
    Secondary,
}

/// A command buffer (see the [module](self)). `Send`: one thread records it at a time, and
/// many threads may record their own buffers and submit them to one queue at once.
pub struct CommandBuffer {
    queue: CommandQueue,
    pub(crate) parts: Option<Parts>,
    semantics: Semantics,
    level: Level,
    /// A primary executed this secondary buffer: its recording has ended.
    ended: bool,
    /// A point of another queue's work this buffer's submission waits for on the GPU first (the
    /// last upload its host transfers sent ahead of it).
    pub(crate) wait_first: Option<(Fence, u64)>,
    /// Recorded by one thread at a time: not `Sync`.
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

impl std::fmt::Debug for CommandBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandBuffer")
            .field("semantics", &self.semantics)
            .field("level", &self.level)
            .field("recording", &self.is_recording())
            .field("tracked", &self.tracked_resources().len())
            .finish()
    }
}

impl std::ops::Deref for CommandBuffer {
    type Target = CommandRecorder;

    fn deref(&self) -> &CommandRecorder {
        match &self.parts {
            Some(p) => &p.list,
            None => unreachable!("only submit takes a command buffer's parts, and it consumes the buffer"),
        }
    }
}

impl std::ops::DerefMut for CommandBuffer {
    fn deref_mut(&mut self) -> &mut CommandRecorder {
        match &mut self.parts {
            Some(p) => &mut p.list,
            None => unreachable!("only submit takes a command buffer's parts, and it consumes the buffer"),
        }
    }
}

impl CommandBuffer {
    /// Whether the buffer records: until it is submitted, or for a secondary buffer until a
    /// primary executes it. Commands recorded after that are ignored and make the next use of
    /// the buffer fail with `InvalidArg`.
    pub fn is_recording(&self) -> bool {
        !self.ended && self.parts.as_ref().is_some_and(|p| p.list.is_recording())
    }

    /// The buffer's semantics.
    pub fn semantics(&self) -> Semantics {
        self.semantics
    }

    /// What legacy tracking cost this buffer so far: barriers the runtime inserted, objects it
    /// keeps alive for the commands, time spent. Zero for fast buffers, with the debug layer
    /// on or off; objects handed to [`CommandBuffer::track`] are not counted.
    pub fn tracking_costs(&self) -> TrackingCosts {
        self.parts.as_ref().map(|p| p.list.tracking_costs()).unwrap_or_default()
    }

    /// Whether the buffer is primary or secondary.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The queue that made the buffer.
    pub fn queue(&self) -> &CommandQueue {
        &self.queue
    }

    /// Keeps `object` alive until the queue has executed this buffer (for a secondary buffer:
    /// every submission of a primary that executes it). Tracking orders no work: another
    /// queue that uses the object still waits for the fence.
    pub fn track(&mut self, object: impl Into<Tracked>) {
        if let Some(p) = self.parts.as_mut() {
            p.list.keep_tracked(object.into());
        }
    }

    /// What this buffer keeps alive so far.
    pub fn tracked_resources(&self) -> &[Tracked] {
        self.parts.as_ref().map_or(&[], |p| p.list.semantics.kept())
    }

    /// Ends recording and hands the buffer to its queue; returns the value the queue's fence
    /// reaches once the GPU has executed it. Errors: the list was removed by an earlier
    /// command (its error), a secondary buffer (`InvalidArg`).
    pub fn submit(mut self) -> Result<u64> {
        let queue = self.queue.clone();
        queue.submit_buffers(std::slice::from_mut(&mut self))
    }

    /// Executes a secondary buffer here, as if its commands were recorded at this point (no
    /// synchronization of its own). The first execution ends its recording; it can be executed
    /// again, by this or other primary buffers of a direct queue. Errors (`InvalidArg`): not a
    /// secondary buffer, one of another device, one recorded into after it ended, or one whose
    /// recording failed (its error).
    pub fn execute(&mut self, secondary: &mut CommandBuffer) -> Result<()> {
        if self.level != Level::Primary || secondary.level != Level::Secondary {
            return Err(err::invalid(
                MessageId::CommandBufferInvalid,
                "CommandBuffer::execute",
                "a primary buffer executes secondary buffers",
            ));
        }
        if !self.queue.device().same(&secondary.queue.device()) {
            return Err(err::invalid(
                MessageId::CommandBufferInvalid,
                "CommandBuffer::execute",
                "the secondary buffer belongs to another device",
            ));
        }
        if self.semantics != secondary.semantics {
            return Err(err::invalid(
                MessageId::CommandBufferInvalid,
                "CommandBuffer::execute",
                format!(
                    "a {:?} secondary buffer in a {:?} primary (a secondary buffer inherits \
                 its primary's semantics)",
                    secondary.semantics, self.semantics
                ),
            ));
        }
        let Some(sp) = secondary.parts.as_mut() else {
            return Err(err::invalid(
                MessageId::CommandBufferInvalid,
                "CommandBuffer::execute",
                "the secondary buffer has no recording",
            ));
        };
        if sp.list.late_records() > 0 {
            return Err(err::invalid(
                MessageId::CommandBufferInvalid,
                "CommandBuffer::execute",
                format!("{} command(s) were recorded into the secondary buffer after it ended", sp.list.late_records()),
            ));
        }
        if !secondary.ended {
            secondary.ended = true;
            sp.list.close()?;
        }
        let allocator = sp.allocator.clone();
        let Some(parts) = self.parts.as_mut() else {
            return Err(err::invalid(
                MessageId::CommandBufferInvalid,
                "CommandBuffer::execute",
                "the primary buffer has no recording",
            ));
        };
        parts.list.execute_bundle(&sp.list);
        parts.list.keep_tracked(Tracked::Secondary(allocator));
        sp.list.semantics.kept().iter().for_each(|t| parts.list.keep_tracked(t.clone()));
        Ok(())
    }

    /// Keeps `resources` alive with this buffer.
    pub(crate) fn track_all(&mut self, resources: &[&Resource]) {
        for r in resources {
            self.track(*r);
        }
    }
}

impl Drop for CommandBuffer {
    fn drop(&mut self) {
        // A primary dropped unsubmitted: the GPU never saw it, so its parts are free at once.
        let Some(parts) = self.parts.take() else { return };
        if self.level == Level::Primary {
            self.queue.recycle(parts);
        }
    }
}

/// Resets `parts` for reuse; `false` (they are to be dropped) where that fails, as on a
/// removed device.
fn reset(parts: &mut Parts) -> bool {
    parts.recycle().map_err(|e| tracing::debug!(%e, "a command buffer's parts are dropped, not recycled")).is_ok()
}

impl CommandQueue {
    /// A command buffer recording at once: primary buffers are submitted to this queue,
    /// secondary ones executed by primaries (secondary buffers only on direct queues:
    /// `InvalidArg` elsewhere). Reuses the memory of executed buffers.
    pub fn create_command_buffer(&self, semantics: Semantics, level: Level) -> Result<CommandBuffer> {
        let device = self.device();
        let parts = match level {
            Level::Secondary => {
                if self.ty() != CommandListType::Direct {
                    return Err(err::invalid(
                        MessageId::CommandBufferInvalid,
                        "CreateCommandBuffer",
                        format!("secondary buffers are made by direct queues, not a {} queue", self.ty().name()),
                    ));
                }
                let allocator = device.create_command_allocator(CommandListType::Bundle)?;
                let list = device.create_command_list(CommandListType::Bundle, &allocator)?;
                Parts { allocator, list }
            }
            Level::Primary => {
                let free = self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner).take_free();
                match free {
                    Some(p) => p,
                    None => {
                        let allocator = device.create_command_allocator(self.ty())?;
                        let list = device.create_command_list(self.ty(), &allocator)?;
                        Parts { allocator, list }
                    }
                }
            }
        };
        let mut parts = parts;
        parts.list.set_semantics(match semantics {
            Semantics::Legacy => Mode::Legacy,
            Semantics::Fast => Mode::Fast { warn: device.shared.debug_layer() },
        });
        Ok(CommandBuffer {
            queue: self.clone(),
            parts: Some(parts),
            semantics,
            level,
            ended: false,
            wait_first: None,
            _not_sync: PhantomData,
        })
    }

    /// Submits primary buffers in order, as one submission; returns the value the queue's
    /// fence reaches once the GPU has executed them all. Releases what earlier submissions
    /// tracked, where the GPU is done with it. Errors (nothing runs): no buffer, a buffer of
    /// another queue, a secondary buffer, mixed semantics (`InvalidArg`), or a buffer whose
    /// list an earlier command removed (its error).
    pub fn submit_all(&self, mut buffers: Vec<CommandBuffer>) -> Result<u64> {
        self.submit_buffers(&mut buffers)
    }

    /// [`CommandQueue::submit_all`] over buffers it takes the parts of (what is left of them
    /// drops as nothing).
    fn submit_buffers(&self, buffers: &mut [CommandBuffer]) -> Result<u64> {
        const API: &str = "CommandQueue::SubmitAll";
        let d = &self.0.device;
        let Some(first) = buffers.first() else {
            return d.fail(err::invalid(MessageId::CommandBufferInvalid, API, "no command buffers"));
        };
        let semantics = first.semantics;
        for (i, b) in buffers.iter().enumerate() {
            let why = if !b.queue.same(self) {
                "was made by another queue"
            } else if b.level != Level::Primary {
                "is a secondary buffer (a primary executes it)"
            } else if b.semantics != semantics {
                "has other semantics than the first (legacy and fast buffers are not mixed)"
            } else {
                continue;
            };
            return d.fail(err::invalid(MessageId::CommandBufferInvalid, API, format!("buffer {i} {why}")));
        }
        // Vectors of retired submissions, reused: a steady state allocates nothing.
        let (mut parts, mut tracked) = self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner).spare_vecs();
        for b in buffers.iter_mut() {
            if let Some(mut p) = b.parts.take() {
                let costs = p.list.tracking_costs();
                if costs != TrackingCosts::default() {
                    tracing::debug!(?costs, "{API}: legacy tracking of a command buffer");
                }
                p.list.semantics.take_kept(&mut tracked);
                parts.push(p);
            }
        }
        // Every part is closed, past a failing one too: parts go back to the recycler closed,
        // whatever happens to the submission.
        let mut closed = Ok(());
        for (i, p) in parts.iter_mut().enumerate() {
            if let Err(e) = p.list.close() {
                if closed.is_ok() {
                    closed = Err(err::within(format_args!("{API}: buffer {i}"), e));
                }
            }
        }
        // From the prefixes' planning to the layouts' update, one submission at a time.
        let turn = self.0.submitting.lock().unwrap_or_else(PoisonError::into_inner);
        let closed = closed.and_then(|()| match semantics {
            Semantics::Legacy => self.add_prefixes(&mut parts),
            Semantics::Fast => Ok(()),
        });
        // Work the buffers wait for (uploads their transfers made on the copy queue) comes first.
        let closed = closed.and_then(|()| {
            buffers
                .iter_mut()
                .filter_map(|b| b.wait_first.take())
                .try_for_each(|(fence, value)| self.wait(&fence, value))
        });
        let submitted = closed.and_then(|()| {
            let lists: smallvec::SmallVec<[&CommandList; 4]> = parts.iter().map(|p| &p.list).collect();
            self.execute(&lists)
        });
        drop(turn);
        let mut recycler = self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut released, mut retired) = recycler.released_vecs();
        let completed = recycler.oldest().map_or(0, |oldest| self.0.progress.reached_for(oldest));
        recycler.retire(completed, &mut released, &mut retired);
        let result = match submitted {
            Ok(value) => {
                parts.iter().for_each(|p| p.list.semantics.mark_submitted(&self.0.progress, value));
                recycler.submitted(value, parts, tracked);
                Ok(value)
            }
            Err(e) => {
                // Nothing ran: the parts are recycled, and what the buffers tracked goes.
                retired.append(&mut parts);
                released.append(&mut tracked);
                recycler.keep_vecs(parts, tracked);
                Err(e)
            }
        };
        drop(recycler);
        self.release(released, retired);
        result
    }

    /// Legacy semantics: puts before each list the layout changes and barrier its first uses
    /// need after the queue's earlier work and the earlier lists of the submission.
    fn add_prefixes(&self, parts: &mut Vec<Parts>) -> Result<()> {
        let prefixes = {
            let lists: smallvec::SmallVec<[_; 4]> =
                parts.iter().map(|p| (p.list.tracker.layouts(), p.list.semantics.hazards())).collect();
            crate::track::prefix::plan(&lists)
        };
        if prefixes.iter().all(|p| p.is_empty()) {
            return Ok(());
        }
        self.check_prefix_layouts(&prefixes)?;
        let mut with = Vec::with_capacity(parts.len() * 2);
        let mut result = Ok(());
        for (p, prefix) in parts.drain(..).zip(prefixes) {
            if !prefix.is_empty() && result.is_ok() {
                match self.prefix_parts(&prefix) {
                    Ok(pp) => with.push(pp),
                    Err(e) => result = Err(e),
                }
            }
            with.push(p);
        }
        *parts = with;
        result
    }

    /// Refuses a prefix this queue cannot record: a texture that another queue's work left in a
    /// layout this queue's lists cannot leave (a render target, for a compute or copy queue).
    /// The error names the texture and what the app can do.
    fn check_prefix_layouts(&self, prefixes: &[Prefix<Resource>]) -> Result<()> {
        let ty = self.ty();
        let stuck = prefixes.iter().flat_map(|p| &p.layouts).find(|(_, _, from, _)| !from.legal_on(ty));
        let Some((res, sub, from, to)) = stuck else { return Ok(()) };
        let d = res.desc();
        self.0.device.fail(err::invalid(
            MessageId::IncompatibleBarrierLayout,
            "CommandQueue::SubmitAll",
            format!(
                "subresource {sub} of texture {:?} ({:?}, {}x{}) is in layout {from:?}, where work of another \
                 queue left it, and a {} queue cannot move it out of that layout (to {to:?}): end that \
                 work with a barrier to Common, or use the texture on a direct queue",
                res.id(),
                d.format,
                d.width,
                d.height,
                ty.name()
            ),
        ))
    }

    /// A closed list of one prefix's barriers.
    fn prefix_parts(&self, prefix: &Prefix<Resource>) -> Result<Parts> {
        let free = self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner).take_free();
        let mut p = match free {
            Some(p) => p,
            None => {
                let device = self.device();
                let allocator = device.create_command_allocator(self.ty())?;
                let list = device.create_command_list(self.ty(), &allocator)?;
                Parts { allocator, list }
            }
        };
        let textures: Vec<TextureBarrier<&Resource>> = prefix
            .layouts
            .iter()
            .map(|(res, sub, from, to)| {
                let discard = *from == BarrierLayout::Undefined;
                TextureBarrier {
                    sync_before: BarrierSync::ALL,
                    sync_after: BarrierSync::ALL,
                    access_before: if discard { BarrierAccess::NO_ACCESS } else { BarrierAccess::empty() },
                    access_after: BarrierAccess::empty(),
                    layout_before: *from,
                    layout_after: *to,
                    resource: res,
                    subresources: BarrierSubresourceRange::index(*sub),
                    flags: TextureBarrierFlags::empty(),
                }
            })
            .collect();
        let mut groups = Vec::with_capacity(2);
        if let Some(g) = prefix.global {
            groups.push(BarrierGroup::Global(vec![g]));
        }
        if !textures.is_empty() {
            groups.push(BarrierGroup::Texture(textures));
        }
        p.list.barrier(&groups);
        match p.list.close() {
            Ok(()) => Ok(p),
            Err(e) => {
                self.recycle(p);
                Err(err::within("CommandQueue::SubmitAll: the barriers before a buffer", e))
            }
        }
    }

    /// The fence every submission to this queue signals: [`CommandBuffer::submit`] returns the
    /// value it reaches once that submission has executed. Only the queue signals it: waits on
    /// it are the app's, signals of it are refused (`InvalidArg`).
    pub fn fence(&self) -> &Fence {
        &self.0.progress
    }

    /// Blocks until the queue's fence reaches `value` (`Fail` after `timeout`), then releases
    /// what the executed submissions tracked.
    pub fn wait_for(&self, value: u64, timeout: Duration) -> Result<()> {
        let r = self.0.progress.wait(value, timeout);
        let mut recycler = self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner);
        let (mut released, mut retired) = recycler.released_vecs();
        let completed = recycler.oldest().map_or(0, |oldest| self.0.progress.reached_for(oldest));
        recycler.retire(completed, &mut released, &mut retired);
        drop(recycler);
        self.release(released, retired);
        r
    }

    /// Drops released objects and recycles retired parts outside the recycler's lock (both
    /// call the driver), then keeps the emptied vectors for the next release.
    fn release(&self, mut released: Vec<Tracked>, retired: Vec<Parts>) {
        released.clear();
        let retired = self.recycled(retired);
        let mut recycler = self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner);
        recycler.keep_released_vec(released);
        recycler.put_free(retired);
    }

    /// Parts the GPU never saw (a buffer dropped unsubmitted, a submission refused), recycled
    /// for a later buffer; no vector is made for them (dropping a buffer allocates nothing).
    fn recycle(&self, mut parts: Parts) {
        if reset(&mut parts) {
            self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner).put_free_one(parts);
        }
    }

    /// `parts`, reset; those whose reset fails (a removed device) are dropped.
    fn recycled(&self, mut parts: Vec<Parts>) -> Vec<Parts> {
        parts.retain_mut(reset);
        parts
    }

    /// How many tracked objects submissions in flight on this queue keep alive (released
    /// lazily: at the next submit or CPU wait after the GPU is done with them).
    pub fn tracked_in_flight(&self) -> usize {
        self.0.buffers.lock().unwrap_or_else(PoisonError::into_inner).in_flight()
    }
}

//! Command lists: recording with validation, the removed state, close and reset.
//!
//! Recording methods return nothing, as in D3D12. A call that breaks a rule **removes** the
//! list: later calls are ignored and [`CommandList::close`] returns the error, which also goes
//! to the device's info queue.

use crate::err;
mod async_cmd;
mod async_copy;
mod barrier;
mod bound_clear;
mod bundle_clear;
mod compute;
pub use bundle_clear::BundleClearFootprint;
mod copy;
pub(crate) mod descriptor_reads;
mod dispatch;
mod fill;
mod graphics;
mod indirect;
pub use indirect::CommandSignature;
mod query;
mod ranges;
mod resolve;
pub(crate) mod semantics;
mod texture_clear;
mod tracked_texture;

use crate::allocator::CommandAllocator;
use crate::device::{Device, DeviceShared};
use crate::fallback::lowering::{FallbackState, ListFacts, Lowering};
use crate::fallback::plan::DeviceFacts;
use crate::resource::Resource;
use crate::track::Tracker;
use asyncmd_ddi::{Command, CommandListDdi, Executable, QueryHeapId};
use asyncmd_types::{ClearFlags, CommandListType, Error, MessageId, MessageSeverity, QueryType, Result};
use std::sync::atomic::Ordering;
use std::sync::Arc;

bitflags::bitflags! {
    /// Which list types a command is legal on.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Lists: u8 {
        const DIRECT = 1;
        const COMPUTE = 2;
        const COPY = 4;
        const BUNDLE = 8;
    }
}

impl Lists {
    fn allows(self, ty: CommandListType) -> bool {
        self.contains(match ty {
            CommandListType::Direct => Lists::DIRECT,
            CommandListType::Compute => Lists::COMPUTE,
            CommandListType::Copy => Lists::COPY,
            CommandListType::Bundle => Lists::BUNDLE,
        })
    }
}

/// Direct, compute and copy lists (copies, barriers).
pub(crate) const ALL_QUEUES: Lists = Lists::DIRECT.union(Lists::COMPUTE).union(Lists::COPY);
/// Direct and compute lists.
pub(crate) const DIRECT_COMPUTE: Lists = Lists::DIRECT.union(Lists::COMPUTE);

/// Where a render pass stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// No pass.
    None,
    /// Between `BeginRenderPass` and `EndRenderPass`: whether its end suspends, and which
    /// planes of its depth-stencil view it binds read-only (`BIND_READ_ONLY_DEPTH`/`_STENCIL`).
    Open { suspending: bool, read_only: ClearFlags },
    /// After a suspending `EndRenderPass`, before the resuming begin.
    Suspended,
}

enum Status {
    Recording,
    Closed(Executable),
    /// Closed after an error: not executable.
    Failed(Error),
}

/// A command list (`ID3D12GraphicsCommandList`): direct, compute, copy or bundle. It records
/// through the [`CommandRecorder`] it dereferences to, and adds the list's lifecycle: `Close`
/// and `Reset`.
pub struct CommandList(CommandRecorder);

impl std::ops::Deref for CommandList {
    type Target = CommandRecorder;

    fn deref(&self) -> &CommandRecorder {
        &self.0
    }
}

impl std::ops::DerefMut for CommandList {
    fn deref_mut(&mut self) -> &mut CommandRecorder {
        &mut self.0
    }
}

impl CommandList {
    pub(crate) fn create(device: &Device, ty: CommandListType, allocator: &CommandAllocator) -> Result<CommandList> {
        CommandRecorder::create(device, ty, allocator).map(CommandList)
    }

    /// `Close`: ends recording. Returns the error that removed the list, if one did.
    pub fn close(&mut self) -> Result<()> {
        self.0.close()
    }

    /// `Reset`: reopens a closed list on `allocator`, dropping what was recorded and the error.
    pub fn reset(&mut self, allocator: &CommandAllocator) -> Result<()> {
        self.0.reset(allocator)
    }
}

/// What a command list and a command buffer record through: every command of
/// `ID3D12GraphicsCommandList`, and what the recording knows (its type, device, error). The
/// lifecycle is its owner's: a [`CommandList`] closes and resets; a
/// [`CommandBuffer`](crate::command_buffer::CommandBuffer) ends when it is submitted (or, a
/// secondary one, executed) and never records again.
pub struct CommandRecorder {
    pub(crate) device: Arc<DeviceShared>,
    ty: CommandListType,
    ddi: Box<dyn CommandListDdi>,
    pub(crate) allocator: CommandAllocator,
    status: Status,
    error: Option<Error>,
    pub(crate) tracker: Tracker<Resource>,
    pass: Pass,
    queries: Vec<(QueryHeapId, QueryType, u32)>,
    pub(crate) shadow: crate::shadow::Shadow,
    /// The fallback's state of this recording.
    fallback: FallbackState,
    /// Commands recorded while the list was closed (ignored, and reported).
    late_records: u32,
    /// Legacy or fast semantics, for the lists of command buffers.
    pub(crate) semantics: semantics::SemanticsState,
    /// A bundle's pieces before its bound clears, under the fallback (`bundle_clear`).
    bundle_pieces: Vec<bundle_clear::BundlePiece>,
    /// What a bundle's native bound clears select (`bundle_clear`).
    bundle_selected: Vec<bundle_clear::Selected>,
    /// Descriptors the dispatches read, checked again at execution (`descriptor_reads`).
    pub(crate) descriptor_reads: descriptor_reads::DescriptorReads,
}

impl CommandRecorder {
    fn create(device: &Device, ty: CommandListType, allocator: &CommandAllocator) -> Result<CommandRecorder> {
        let d = &device.shared;
        Self::check_allocator(d, ty, allocator)?;
        let ddi = d.ddi.create_command_list(ty).or_else(|e| d.fail(e))?;
        allocator.0.recording.store(true, Ordering::Release);
        Ok(CommandRecorder {
            device: d.clone(),
            ty,
            ddi,
            allocator: allocator.clone(),
            status: Status::Recording,
            error: None,
            tracker: Tracker::default(),
            pass: Pass::None,
            queries: Vec::new(),
            shadow: Default::default(),
            fallback: FallbackState::default(),
            late_records: 0,
            semantics: semantics::SemanticsState::watching(d.debug_layer()),
            bundle_pieces: Vec::new(),
            bundle_selected: Vec::new(),
            descriptor_reads: Default::default(),
        })
    }

    fn check_allocator(d: &DeviceShared, ty: CommandListType, allocator: &CommandAllocator) -> Result<()> {
        if !std::ptr::eq(&*allocator.0.device, d) {
            return d.fail(err::invalid(
                MessageId::CommandAllocatorInUse,
                "CreateCommandList",
                "the allocator belongs to another device",
            ));
        }
        if allocator.command_list_type() != ty {
            return d.fail(err::invalid(
                MessageId::CommandListTypeMismatch,
                "CreateCommandList",
                format!("a {} list needs a {} allocator", ty.name(), ty.name()),
            ));
        }
        if allocator.0.recording.load(Ordering::Acquire) {
            return d.fail(err::invalid(
                MessageId::CommandAllocatorInUse,
                "CreateCommandList",
                "another command list is recording on this allocator",
            ));
        }
        Ok(())
    }

    /// The list's type.
    pub fn ty(&self) -> CommandListType {
        self.ty
    }

    /// The device that made it.
    pub fn device(&self) -> Device {
        Device::from_shared(self.device.clone())
    }

    /// The error that removed the list, if any.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref().or(match &self.status {
            Status::Failed(e) => Some(e),
            _ => None,
        })
    }

    /// Whether the list is open for recording and not removed.
    pub fn is_recording(&self) -> bool {
        matches!(self.status, Status::Recording) && self.error.is_none()
    }

    /// Whether the list is open (recording, or removed and not closed yet).
    pub(crate) fn is_open(&self) -> bool {
        matches!(self.status, Status::Recording)
    }

    /// Commands recorded while the list was closed since its last reset.
    pub(crate) fn late_records(&self) -> u32 {
        self.late_records
    }

    /// `Close`: ends recording. Returns the error that removed the list, if one did.
    pub(crate) fn close(&mut self) -> Result<()> {
        match &self.status {
            Status::Recording => {}
            _ => {
                return self.device.fail(err::invalid(
                    MessageId::CommandListClosed,
                    "Close",
                    "the command list is already closed",
                ));
            }
        }
        if self.error.is_none() {
            if matches!(self.pass, Pass::Open { .. }) {
                self.set_error(err::invalid(MessageId::RenderPassInvalid, "Close", "a render pass is still open"));
            } else if let Some((_, ty, index)) = self.queries.first() {
                self.set_error(err::invalid(
                    MessageId::QueryInvalidParameters,
                    "Close",
                    format!("{ty:?} query {index} was begun but not ended"),
                ));
            }
        }
        self.allocator.0.recording.store(false, Ordering::Release);
        if let Some(e) = self.error.take() {
            self.status = Status::Failed(e.clone());
            self.ddi.reset();
            return Err(e);
        }
        match self.ddi.close() {
            Ok(exe) => {
                self.status = Status::Closed(exe);
                Ok(())
            }
            Err(e) => {
                self.status = Status::Failed(e.clone());
                self.device.fail(e)
            }
        }
    }

    /// `Reset`: reopens a closed list on `allocator`, dropping what was recorded and the error.
    fn reset(&mut self, allocator: &CommandAllocator) -> Result<()> {
        if matches!(self.status, Status::Recording) {
            return self.device.fail(err::invalid(
                MessageId::CommandListNotClosed,
                "Reset",
                "the command list is still recording; close it first",
            ));
        }
        Self::check_allocator(&self.device, self.ty, allocator)?;
        allocator.0.recording.store(true, Ordering::Release);
        self.allocator = allocator.clone();
        // The recording goes first, so that the driver may take its storage back.
        self.status = Status::Recording;
        self.ddi.reset();
        self.error = None;
        self.tracker.clear();
        self.pass = Pass::None;
        self.queries.clear();
        self.shadow = Default::default();
        self.fallback.reset();
        self.bundle_pieces.clear();
        self.bundle_selected.clear();
        self.late_records = 0;
        self.semantics.reset();
        self.semantics.watch = self.device.debug_layer();
        self.descriptor_reads.clear();
        Ok(())
    }

    pub(crate) fn executable(&self) -> Result<Executable> {
        match &self.status {
            Status::Closed(exe) => Ok(exe.clone()),
            Status::Recording => {
                Err(Error::invalid_arg(MessageId::CommandListNotClosed, "the command list is still recording"))
            }
            Status::Failed(e) => Err(Error::invalid_arg(e.id, format!("the command list was removed: {}", e.text))),
        }
    }

    pub(crate) fn allocator(&self) -> &CommandAllocator {
        &self.allocator
    }

    /// Whether the list was made with the given allocator.
    pub fn uses_allocator(&self, allocator: &CommandAllocator) -> bool {
        self.allocator.same(allocator)
    }

    fn set_error(&mut self, e: Error) {
        self.device.info_queue.report(&e);
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Removes the list with `e` (the first error wins).
    pub(crate) fn remove(&mut self, e: Error) {
        self.set_error(e);
    }

    /// Whether `api` may be recorded now: the list is recording and healthy, the list type
    /// allows it, and the render-pass state allows it. Otherwise removes the list (or, on a
    /// closed list, reports the misuse) and returns false.
    pub(crate) fn begin(&mut self, api: &str, lists: Lists, in_pass: bool) -> bool {
        if !matches!(self.status, Status::Recording) {
            self.late_records = self.late_records.saturating_add(1);
            self.device.info_queue.push(
                MessageSeverity::Error,
                MessageId::CommandListClosed,
                format!("{api}: recorded on a closed command list; ignored"),
            );
            return false;
        }
        if self.error.is_some() {
            return false;
        }
        if !lists.allows(self.ty) {
            self.remove(err::invalid(
                MessageId::CommandListTypeMismatch,
                api,
                format!("not allowed on a {} command list", self.ty.name()),
            ));
            return false;
        }
        match self.pass {
            Pass::Open { .. } if !in_pass => {
                self.remove(err::invalid(MessageId::RenderPassInvalid, api, "not allowed inside a render pass"));
                return false;
            }
            Pass::Suspended if !in_pass => {
                self.remove(err::fail(
                    MessageId::RenderPassInvalid,
                    api,
                    "GPU work between a suspending EndRenderPass and the resuming BeginRenderPass",
                ));
                return false;
            }
            _ => {}
        }
        true
    }

    /// Checks a validation result; on error removes the list and returns false.
    pub(crate) fn check(&mut self, r: Result<()>) -> bool {
        match r {
            Ok(()) => true,
            Err(e) => {
                self.remove(e);
                false
            }
        }
    }

    /// The list's parts, lent to the fallback for one lowering.
    pub(crate) fn lowering(&mut self) -> Lowering<'_> {
        Lowering {
            ddi: &mut *self.ddi,
            tracker: &mut self.tracker,
            shadow: &mut self.shadow,
            factory: &self.device,
            resources: &self.device.fallback,
            cache: &self.allocator.0.cache,
            state: &mut self.fallback,
        }
    }

    /// What the fallback's planners know of this list and its device.
    pub(crate) fn list_facts(&self) -> ListFacts {
        ListFacts {
            list: self.ty,
            device: DeviceFacts::of(self.device.ddi.capabilities()),
            closest_clear_values: self.device.options.async_commands_closest_clear_values,
        }
    }

    /// Hands a validated command to the driver.
    pub(crate) fn record(&mut self, command: Command) {
        self.ddi.record(command);
    }

    /// Whether a resource belongs to this list's device.
    pub(crate) fn owns(&self, res: &Resource) -> bool {
        Arc::ptr_eq(&res.shared.device, &self.device)
    }

    /// Whether all `resources` belong to this list's device; if not, removes the list with
    /// `InvalidArg` and message `id`.
    pub(crate) fn owns_all(&mut self, id: MessageId, api: &str, resources: &[&Resource]) -> bool {
        if resources.iter().all(|r| self.owns(r)) {
            return true;
        }
        self.remove(err::invalid(id, api, "a resource belongs to another device"));
        false
    }
}

impl Drop for CommandRecorder {
    fn drop(&mut self) {
        if matches!(self.status, Status::Recording) {
            self.allocator.0.recording.store(false, Ordering::Release);
        }
    }
}

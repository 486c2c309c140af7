//! Command queues: submission, queue-side fence signals and waits, tile mappings.

use crate::command_list::CommandList;
use crate::device::{Device, DeviceShared};
use crate::err;
use crate::fence::Fence;
use crate::objects::Heap;
use crate::resource::Resource;
use asyncmd_ddi::{QueueDdi, TileMapping};
use asyncmd_types::{CommandListType, Error, ErrorCode, MessageId, Result, TiledResourceCoordinate};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// A queue's shared state. Dropping it drops the driver queue, which finishes the work already
/// handed to the GPU and abandons waits that nothing can satisfy any more (a fence whose signal
/// was never submitted): dropping a queue never blocks on work that cannot complete.
pub(crate) struct QueueShared {
    pub(crate) device: Arc<DeviceShared>,
    ty: CommandListType,
    ddi: Box<dyn QueueDdi>,
    /// Signalled after every submission; tells allocators when the GPU is done.
    pub(crate) progress: Fence,
    last: Mutex<u64>,
    /// Held from a submission's layout planning (legacy prefixes) and check until its layouts
    /// are applied, so that submissions from several threads to one queue each see the layouts
    /// the ones before them left (002: submitting is thread-safe).
    pub(crate) submitting: Mutex<()>,
    /// Command buffers in flight and the parts of executed ones.
    pub(crate) buffers: Mutex<crate::command_buffer::Recycler>,
    /// Fence waits made, for the debug layer.
    waits: crate::debug::cross_queue::WaitLog,
    /// The uploader host-memory transfers of this queue's command buffers go through, made on
    /// first use (`streaming/`, the layer above, fills this slot).
    pub(crate) uploader: Mutex<Option<Arc<crate::streaming::StreamingUploader>>>,
}

/// A command queue (`ID3D12CommandQueue`). Cloning shares it.
#[derive(Clone)]
pub struct CommandQueue(pub(crate) Arc<QueueShared>);

/// One range of `UpdateTileMappings`.
#[derive(Clone)]
pub struct TileRangeMapping<'a> {
    /// First tile.
    pub coordinate: TiledResourceCoordinate,
    /// Number of tiles.
    pub num_tiles: u32,
    /// Heap and first heap tile, or `None` to unmap.
    pub heap: Option<(&'a Heap, u32)>,
}

impl CommandQueue {
    pub(crate) fn create(device: &Device, ty: CommandListType) -> Result<CommandQueue> {
        let d = &device.shared;
        if ty == CommandListType::Bundle {
            return d.fail(err::invalid(
                MessageId::ExecuteCommandListsInvalid,
                "CreateCommandQueue",
                "there are no bundle queues",
            ));
        }
        let ddi = d.ddi.create_queue(ty).or_else(|e| d.fail(e))?;
        let progress = Fence::create(device, 0)?;
        Ok(CommandQueue(Arc::new(QueueShared {
            device: d.clone(),
            ty,
            ddi,
            progress,
            last: Mutex::new(0),
            submitting: Mutex::new(()),
            buffers: Mutex::default(),
            waits: Default::default(),
            uploader: Mutex::new(None),
        }))
        .registered())
    }

    /// Marks the progress fence as this queue's.
    fn registered(self) -> CommandQueue {
        let _ = self.0.progress.0.owner.set(self.key());
        self
    }

    /// What identifies the queue to the debug layer.
    pub(crate) fn key(&self) -> crate::debug::cross_queue::QueueKey {
        Arc::as_ptr(&self.0) as usize
    }

    /// The queue's type.
    pub fn ty(&self) -> CommandListType {
        self.0.ty
    }

    /// The device the queue belongs to.
    pub fn device(&self) -> Device {
        Device::from_shared(self.0.device.clone())
    }

    pub(crate) fn same(&self, other: &CommandQueue) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// `ExecuteCommandLists`: runs closed lists in order. Every list must be closed without
    /// error, match the queue's type, and find its textures in the layouts its barriers expect;
    /// otherwise nothing runs and the error says why.
    pub fn execute_command_lists(&self, lists: &[&CommandList]) -> Result<()> {
        let _turn = self.0.submitting.lock().unwrap_or_else(PoisonError::into_inner);
        self.execute(lists).map(|_| ())
    }

    /// [`CommandQueue::execute_command_lists`], returning the value [`CommandQueue::fence`]
    /// reaches when the GPU has executed the lists. The caller holds `submitting`.
    pub(crate) fn execute(&self, lists: &[&CommandList]) -> Result<u64> {
        let q = &self.0;
        if let Err(e) = q.device.removed_reason("ExecuteCommandLists") {
            return q.device.fail(e);
        }
        let mut executables: smallvec::SmallVec<[asyncmd_ddi::Executable; 4]> =
            smallvec::SmallVec::with_capacity(lists.len());
        for (i, list) in lists.iter().enumerate() {
            let exe = list.executable().map_err(|e| err::within(format_args!("ExecuteCommandLists: list {i}"), e));
            let exe = match exe {
                Ok(exe) => exe,
                Err(e) => return q.device.fail(e),
            };
            if list.ty() != q.ty {
                return q.device.fail(err::invalid(
                    MessageId::ExecuteCommandListsInvalid,
                    "ExecuteCommandLists",
                    format!("list {i} is a {} list, the queue is a {} queue", list.ty().name(), q.ty.name()),
                ));
            }
            executables.push(exe);
        }
        let debug = q.device.debug_layer();
        if let Err(e) = self.check_descriptors(lists, debug) {
            return q.device.fail(e);
        }
        let checked =
            crate::track::layouts::check_submission(lists.iter().map(|l| (l.ty(), l.tracker.layouts())), q.ty);
        let updates = match checked {
            Ok(u) => u,
            Err(e) => return q.device.fail(e),
        };
        if debug {
            self.report_unawaited_writes(lists);
        }
        let mut last = q.last.lock().unwrap_or_else(PoisonError::into_inner);
        let value = last.checked_add(1).ok_or_else(|| {
            err::fail(
                MessageId::ExecuteCommandListsInvalid,
                "ExecuteCommandLists",
                "the queue's progress fence is at its last value",
            )
        })?;
        // The progress signal goes with the lists: a device may submit them as one batch.
        q.ddi.execute_and_signal(&executables, q.progress.id(), value).or_else(|e| q.device.fail(e))?;
        crate::track::layouts::apply(updates);
        *last = value;
        if debug {
            for list in lists {
                for (res, wrote) in list.semantics.used_resources() {
                    if wrote {
                        res.last_write.wrote(self.key(), &q.progress, *last);
                    }
                }
            }
        }
        for list in lists {
            list.allocator().submitted(&q.progress, *last);
        }
        Ok(*last)
    }

    /// Descriptors the lists' dispatches read when recorded and the app has changed since: one
    /// of a `DESCRIPTORS_VOLATILE` range refuses the execution (asyncmd ran the view it read,
    /// where D3D12 runs the new one); a static one is reported under the debug layer (D3D12:
    /// undefined). See `command_list/descriptor_reads.rs`.
    fn check_descriptors(&self, lists: &[&CommandList], debug: bool) -> Result<()> {
        for (i, list) in lists.iter().enumerate() {
            for read in list.descriptor_reads.changed() {
                let place = read.place();
                if read.volatile {
                    return Err(Error::new(
                        ErrorCode::Unsupported,
                        MessageId::ExecuteCommandListsInvalid,
                        format!(
                            "ExecuteCommandLists: list {i}: descriptor {place} of a DESCRIPTORS_VOLATILE range changed \
                             after a dispatch that reads it was recorded; asyncmd reads a table's descriptors when \
                             the dispatch is recorded: write them before, or record the list again"
                        ),
                    ));
                }
                if debug {
                    self.0.device.warn(
                        MessageId::DescriptorChangedAfterRecord,
                        format!(
                            "ExecuteCommandLists: list {i}: descriptor {place}, which a dispatch read from its table \
                             when it was recorded, changed before the list executed (static descriptors may not \
                             change until the list is done; the dispatch runs with the view it read)"
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// The debug layer: each resource the lists use that another queue wrote, where that write
    /// is not done and this queue never waited for it.
    fn report_unawaited_writes(&self, lists: &[&CommandList]) {
        for (i, list) in lists.iter().enumerate() {
            for (res, _) in list.semantics.used_resources() {
                if let Some(value) = res.last_write.races(self.key(), &self.0.waits) {
                    self.0.device.warn(
                        MessageId::CrossQueueWriteNotAwaited,
                        format!(
                            "ExecuteCommandLists: list {i} on a {} queue uses {:?}, which another queue writes in work \
                             not done yet (its fence passes {value} then) and this queue never waited for",
                            self.0.ty.name(),
                            res.id
                        ),
                    );
                }
            }
        }
    }

    /// `Signal`: sets `fence` to `value` once the work submitted so far has completed. As with
    /// [`Fence::signal`], the value must be greater than every value signalled on the fence before,
    /// and a queue's progress fence ([`CommandQueue::fence`]) is refused (`InvalidArg`).
    pub fn signal(&self, fence: &Fence, value: u64) -> Result<()> {
        self.check_fence(fence, "Signal")?;
        fence.check_not_progress("CommandQueue::Signal")?;
        fence.claim_signal(value, "CommandQueue::Signal")?;
        let last = self.0.last.lock().unwrap_or_else(PoisonError::into_inner);
        self.0.ddi.signal(fence.id(), value)?;
        // The app's usual wait is for its own fence: reaching `value` says the queue's work
        // before it is done, which the allocators' resets then need not ask the device.
        fence.queue_signalled(value, &self.0.progress, *last);
        if self.0.device.debug_layer() {
            fence.0.signals.signalled(value, self.key(), *last, &self.0.waits);
        }
        Ok(())
    }

    /// `Wait`: work submitted after this waits until `fence` reaches `value`, which may be at most
    /// [`crate::MAX_FENCE_STEP`] past the value the fence has reached (`InvalidArg`).
    pub fn wait(&self, fence: &Fence, value: u64) -> Result<()> {
        self.check_fence(fence, "Wait")?;
        fence.check_wait(value, "CommandQueue::Wait")?;
        self.0.ddi.wait(fence.id(), value)?;
        if self.0.device.debug_layer() {
            self.0.waits.waited(fence, value);
        }
        Ok(())
    }

    fn check_fence(&self, fence: &Fence, api: &str) -> Result<()> {
        if !Arc::ptr_eq(fence.device(), &self.0.device) {
            return self.0.device.fail(err::invalid(
                MessageId::FenceInvalidOperation,
                api,
                "the fence belongs to another device",
            ));
        }
        Ok(())
    }

    /// Blocks until everything submitted so far has completed, or `timeout` passes (`Fail`).
    pub fn wait_idle(&self, timeout: Duration) -> Result<()> {
        let last = *self.0.last.lock().unwrap_or_else(PoisonError::into_inner);
        self.0.progress.wait(last, timeout)
    }

    /// `UpdateTileMappings`: maps tiles of a reserved resource to heap tiles (or unmaps them).
    /// Applied at once: work in flight that reads these tiles must be waited for first.
    pub fn update_tile_mappings(&self, resource: &Resource, ranges: &[TileRangeMapping<'_>]) -> Result<()> {
        let d = &self.0.device;
        if !resource.is_reserved() {
            return d.fail(err::invalid(
                MessageId::CopyTilesInvalidParameters,
                "UpdateTileMappings",
                "the resource is not reserved",
            ));
        }
        let mappings: Vec<TileMapping> = ranges
            .iter()
            .map(|r| TileMapping {
                coordinate: r.coordinate,
                num_tiles: r.num_tiles,
                heap: r.heap.map(|(h, t)| (h.id(), t)),
            })
            .collect();
        d.ddi.update_tile_mappings(resource.id(), &mappings).or_else(|e| d.fail(e))
    }

    /// Timestamp ticks per second (`GetTimestampFrequency`).
    pub fn timestamp_frequency(&self) -> u64 {
        self.0.device.ddi.capabilities().timestamp_frequency
    }
}

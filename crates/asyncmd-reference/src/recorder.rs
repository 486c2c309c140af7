//! Command lists: commands recorded as they come, with the objects they name kept alive until
//! the list is reset or dropped.

use crate::device::{RefQueryHeap, Shared};
use crate::memory::RefResource;
use asyncmd_ddi::{Command, CommandListDdi, Executable, RootSignatureDesc};
use asyncmd_types::{CommandListType, Result};
use rustc_hash::FxHashMap as HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// A closed list: what a queue runs.
pub(crate) struct RecordedList {
    pub(crate) ty: CommandListType,
    pub(crate) commands: Vec<Command>,
    pub(crate) objects: Objects,
    /// Where its storage goes when the last holder lets it go.
    spare: Arc<Spare>,
}

impl Drop for RecordedList {
    fn drop(&mut self) {
        self.spare.give(std::mem::take(&mut self.commands), std::mem::take(&mut self.objects));
    }
}

/// The storage of lists the queue is done with, for lists made later to record into: an app
/// that makes a list a frame (as D3D12 apps do, from a reset allocator) then grows no vectors.
#[derive(Default)]
pub(crate) struct Spare(Mutex<Vec<(Vec<Command>, Objects)>>);

impl Spare {
    /// Storage kept at most: one per list a frame typically records on each queue.
    const KEEP: usize = 16;

    fn take(&self) -> (Vec<Command>, Objects) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).pop().unwrap_or_default()
    }

    fn give(&self, mut commands: Vec<Command>, mut objects: Objects) {
        if commands.capacity() == 0 {
            return;
        }
        commands.clear();
        objects.clear();
        let mut spare = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if spare.len() < Self::KEEP {
            spare.push((commands, objects));
        }
    }
}

/// The objects a list names, resolved at record time.
#[derive(Default)]
pub(crate) struct Objects {
    pub(crate) resources: HashMap<u64, Arc<RefResource>>,
    pub(crate) query_heaps: HashMap<u64, Arc<RefQueryHeap>>,
    pub(crate) pipelines: HashMap<u64, Arc<crate::device::RefPipeline>>,
    pub(crate) root_signatures: HashMap<u64, Arc<RootSignatureDesc>>,
    pub(crate) bundles: Vec<Arc<RecordedList>>,
}

impl Objects {
    /// Forgets every object, keeping the maps' storage.
    fn clear(&mut self) {
        self.resources.clear();
        self.query_heaps.clear();
        self.pipelines.clear();
        self.root_signatures.clear();
        self.bundles.clear();
    }
}

/// A command list of the reference device.
pub(crate) struct RefCommandList {
    shared: Arc<Shared>,
    ty: CommandListType,
    commands: Vec<Command>,
    objects: Objects,
    /// The last recording closed, kept to take its storage back at the next reset once
    /// nothing else holds it (the queue has run it): a list recorded again and again then
    /// allocates nothing.
    last: Option<Arc<RecordedList>>,
}

impl RefCommandList {
    pub(crate) fn new(shared: Arc<Shared>, ty: CommandListType) -> Self {
        let (commands, objects) = shared.spare.take();
        Self { shared, ty, commands, objects, last: None }
    }

    /// Holds what `command` names: one table lookup per object the list does not hold yet
    /// (the tables are locked maps; most commands name objects the list already holds).
    fn keep_alive(&mut self, command: &Command) {
        let shared = &self.shared;
        let objects = &mut self.objects;
        command.for_each_resource(|id| shared.resources.hold_in(&mut objects.resources, id.0));
        match command {
            Command::SetPipelineState(id) => shared.pipelines.hold_in(&mut objects.pipelines, id.0),
            Command::SetGraphicsRootSignature(id) | Command::SetComputeRootSignature(id) => {
                shared.root_signatures.hold_in(&mut objects.root_signatures, id.0)
            }
            Command::BeginQuery { heap, .. } | Command::EndQuery { heap, .. } => {
                shared.query_heaps.hold_in(&mut objects.query_heaps, heap.0)
            }
            Command::ResolveQueryData(q) | Command::ResolveQueryDataAsync(q) => {
                shared.query_heaps.hold_in(&mut objects.query_heaps, q.heap.0)
            }
            Command::ExecuteBundle(exe) => {
                if let Ok(bundle) = exe.0.clone().downcast::<RecordedList>() {
                    objects.bundles.push(bundle);
                }
            }
            _ => {}
        }
    }
}

impl RefCommandList {
    fn recorded(&self, commands: Vec<Command>, objects: Objects) -> Arc<RecordedList> {
        Arc::new(RecordedList { ty: self.ty, commands, objects, spare: self.shared.spare.clone() })
    }
}

impl Drop for RefCommandList {
    fn drop(&mut self) {
        self.shared.spare.give(std::mem::take(&mut self.commands), std::mem::take(&mut self.objects));
    }
}

impl CommandListDdi for RefCommandList {
    fn record(&mut self, command: Command) {
        self.keep_alive(&command);
        self.commands.push(command);
    }

    fn close(&mut self) -> Result<Executable> {
        let (commands, objects) = (std::mem::take(&mut self.commands), std::mem::take(&mut self.objects));
        // The last recording's allocation, where reset took its storage back and no one else
        // holds it; otherwise a new one.
        let list = match self.last.take() {
            // Unique: no weak references are ever made, so the count alone says so.
            Some(mut arc) if Arc::strong_count(&arc) == 1 => match Arc::get_mut(&mut arc) {
                Some(l) => {
                    (l.ty, l.commands, l.objects) = (self.ty, commands, objects);
                    arc
                }
                None => self.recorded(commands, objects),
            },
            _ => self.recorded(commands, objects),
        };
        self.last = Some(list.clone());
        Ok(Executable(list))
    }

    fn reset(&mut self) {
        self.commands.clear();
        self.objects.clear();
        // Take the last recording's storage back where the queue is done with it.
        if let Some(l) = self.last.as_mut().and_then(Arc::get_mut) {
            l.commands.clear();
            l.objects.clear();
            std::mem::swap(&mut self.commands, &mut l.commands);
            std::mem::swap(&mut self.objects, &mut l.objects);
        }
    }
}

//! Command lists: commands recorded as they come, with the objects they name kept alive until
//! the list is reset or dropped.

use crate::device::{RefQueryHeap, Shared};
use crate::memory::RefResource;
use asyncmd_ddi::{Command, CommandListDdi, Executable, PipelineDesc, RootSignatureDesc};
use asyncmd_types::{CommandListType, Result};
use std::collections::HashMap;
use std::sync::Arc;

/// A closed list: what a queue runs.
pub(crate) struct RecordedList {
    pub(crate) ty: CommandListType,
    pub(crate) commands: Vec<Command>,
    pub(crate) objects: Objects,
}

/// The objects a list names, resolved at record time.
#[derive(Default)]
pub(crate) struct Objects {
    pub(crate) resources: HashMap<u64, Arc<RefResource>>,
    pub(crate) query_heaps: HashMap<u64, Arc<RefQueryHeap>>,
    pub(crate) pipelines: HashMap<u64, Arc<PipelineDesc>>,
    pub(crate) root_signatures: HashMap<u64, Arc<RootSignatureDesc>>,
    pub(crate) bundles: Vec<Arc<RecordedList>>,
}

/// A command list of the reference device.
pub(crate) struct RefCommandList {
    shared: Arc<Shared>,
    ty: CommandListType,
    commands: Vec<Command>,
    objects: Objects,
}

impl RefCommandList {
    pub(crate) fn new(shared: Arc<Shared>, ty: CommandListType) -> Self {
        Self { shared, ty, commands: Vec::new(), objects: Objects::default() }
    }

    fn keep_alive(&mut self, command: &Command) {
        let shared = &self.shared;
        let objects = &mut self.objects;
        command.for_each_resource(|id| {
            if let Some(r) = shared.resources.get(id.0) {
                objects.resources.entry(id.0).or_insert(r);
            }
        });
        match command {
            Command::SetPipelineState(id) => {
                if let Some(p) = shared.pipelines.get(id.0) {
                    objects.pipelines.entry(id.0).or_insert(p);
                }
            }
            Command::SetGraphicsRootSignature(id) | Command::SetComputeRootSignature(id) => {
                if let Some(r) = shared.root_signatures.get(id.0) {
                    objects.root_signatures.entry(id.0).or_insert(r);
                }
            }
            Command::BeginQuery { heap, .. } | Command::EndQuery { heap, .. } => {
                if let Some(h) = shared.query_heaps.get(heap.0) {
                    objects.query_heaps.entry(heap.0).or_insert(h);
                }
            }
            Command::ResolveQueryData(q) | Command::ResolveQueryDataAsync(q) => {
                if let Some(h) = shared.query_heaps.get(q.heap.0) {
                    objects.query_heaps.entry(q.heap.0).or_insert(h);
                }
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

impl CommandListDdi for RefCommandList {
    fn record(&mut self, command: Command) {
        self.keep_alive(&command);
        self.commands.push(command);
    }

    fn close(&mut self) -> Result<Executable> {
        let list = RecordedList {
            ty: self.ty,
            commands: std::mem::take(&mut self.commands),
            objects: std::mem::take(&mut self.objects),
        };
        Ok(Executable(Arc::new(list)))
    }

    fn reset(&mut self) {
        self.commands.clear();
        self.objects = Objects::default();
    }
}

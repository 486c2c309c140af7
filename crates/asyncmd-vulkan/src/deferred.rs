//! The commands a list keeps until `Close`, when they are recorded into Vulkan on a driver
//! thread (`threads.rs`), and the objects they name, held from the moment they are recorded.
//! Where the device calls its driver on the app's threads, lists record each command at once
//! and keep none (`VkCommandList::record`); bundles, replayed into the lists that execute
//! them, keep theirs everywhere.

use crate::device::{Tables, VkQueryHeap};
use crate::memory::VkResource;
use crate::pipeline::{VkPipeline, VkRootSignature};
use asyncmd_ddi::Command;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// A list's commands since its last `Close` or `Reset`, and the pipelines and root signatures
/// they name (resources and query heaps go to the list's own keep maps, which its `Recorded`
/// takes over).
#[derive(Default)]
pub(crate) struct Deferred {
    commands: Vec<Command>,
    pipelines: HashMap<u64, Arc<VkPipeline>>,
    roots: HashMap<u64, Arc<VkRootSignature>>,
}

impl Deferred {
    /// Keeps `c` and holds what it names, whatever the app lets go of before `Close`; `false`
    /// where there is no memory for it.
    pub(crate) fn push(
        &mut self,
        tables: &Tables,
        resources: &mut HashMap<u64, Arc<VkResource>>,
        queries: &mut HashMap<u64, Arc<VkQueryHeap>>,
        c: Command,
    ) -> bool {
        if self.commands.try_reserve(1).is_err() {
            return false;
        }
        hold_named(tables, resources, queries, &c);
        match &c {
            Command::SetPipelineState(id) => tables.pipelines.hold_in(&mut self.pipelines, id.0),
            Command::SetGraphicsRootSignature(id) | Command::SetComputeRootSignature(id) => {
                tables.root_signatures.hold_in(&mut self.roots, id.0)
            }
            _ => {}
        }
        self.commands.push(c);
        true
    }

    /// Whether no command is kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// The commands, to record; the vector is handed back with [`Deferred::recorded`].
    pub(crate) fn take_commands(&mut self) -> Vec<Command> {
        std::mem::take(&mut self.commands)
    }

    /// Takes back the emptied vector (its room serves the next recording) and lets go of the
    /// pins: what was recorded holds its objects itself.
    pub(crate) fn recorded(&mut self, mut emptied: Vec<Command>) {
        emptied.clear();
        self.commands = emptied;
        self.pipelines.clear();
        self.roots.clear();
    }

    /// Drops everything kept.
    pub(crate) fn clear(&mut self) {
        self.commands.clear();
        self.pipelines.clear();
        self.roots.clear();
    }

    /// Pipeline `id`: the one pinned when a command named it, or the device's now.
    pub(crate) fn pipeline(&self, tables: &Tables, id: u64) -> Option<Arc<VkPipeline>> {
        self.pipelines.get(&id).cloned().or_else(|| tables.pipelines.get(id))
    }

    /// Root signature `id`, likewise.
    pub(crate) fn root(&self, tables: &Tables, id: u64) -> Option<Arc<VkRootSignature>> {
        self.roots.get(&id).cloned().or_else(|| tables.root_signatures.get(id))
    }
}

/// Holds the resources and query heaps `c` names in the list's keep maps: what a command
/// names lives as long as the recording that uses it, whether it is kept until `Close` or
/// recorded at once (`VkCommandList::record`).
pub(crate) fn hold_named(
    tables: &Tables,
    resources: &mut HashMap<u64, Arc<VkResource>>,
    queries: &mut HashMap<u64, Arc<VkQueryHeap>>,
    c: &Command,
) {
    c.for_each_resource(|id| tables.resources.hold_in(resources, id.0));
    match c {
        Command::BeginQuery { heap, .. } | Command::EndQuery { heap, .. } => {
            tables.query_heaps.hold_in(queries, heap.0)
        }
        Command::ResolveQueryData(q) | Command::ResolveQueryDataAsync(q) => {
            tables.query_heaps.hold_in(queries, q.heap.0)
        }
        _ => {}
    }
}

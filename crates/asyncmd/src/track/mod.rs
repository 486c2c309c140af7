//! One tracker per command list: the layout of every subresource the list touches, as its
//! barriers set it and as the list first needs it (`layouts.rs`), and the sync and access each
//! touched resource was last left in by the list's barriers and the fallback's own work.
//! Barrier recording updates it once; the debug checks and the fallback read it. Lists of
//! command buffers add the hazard state of each subresource (`hazards.rs`), what legacy
//! semantics inserts barriers from, and the barriers a submission of them needs first
//! (`prefix.rs`).

pub(crate) mod cross_queue;
pub(crate) mod hazards;
pub(crate) mod layouts;
pub(crate) mod pending;
pub(crate) mod prefix;
pub(crate) mod ptr_table;
pub(crate) mod tracked;

use crate::resource::Resource;
use asyncmd_ddi::ResourceId;
use asyncmd_types::{BarrierAccess, BarrierLayout, BarrierSync, Result};
use layouts::Layouts;
use ptr_table::PtrTable;

/// Where a resource stands for later barriers: the sync and access its last barrier named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scope {
    pub(crate) sync: BarrierSync,
    pub(crate) access: BarrierAccess,
}

impl Scope {
    /// The scope the copy-like Async Commands work in: `COPY` / `COPY_DEST`.
    pub(crate) const COPY_DEST: Scope = Scope { sync: BarrierSync::COPY, access: BarrierAccess::COPY_DEST };
}

/// What one command list knows of the resources it touches.
#[derive(Default)]
pub(crate) struct Tracker {
    layouts: Layouts,
    scopes: PtrTable<Scope>,
}

impl Tracker {
    /// A texture barrier from `before` to `after` on subresources `subs`, ending in `scope`.
    pub(crate) fn texture_barrier(
        &mut self,
        res: &Resource,
        subs: &[u32],
        (before, after): (BarrierLayout, BarrierLayout),
        scope: Scope,
    ) -> Result<()> {
        self.scopes.insert(res.id().0, scope);
        self.layouts.transition(res, subs, before, after)
    }

    /// A buffer barrier ending in `scope` (buffers have no layout).
    pub(crate) fn buffer_barrier(&mut self, buffer: ResourceId, scope: Scope) {
        self.scopes.insert(buffer.0, scope);
    }

    /// The layout the list's own barriers left a subresource in, if they set one.
    pub(crate) fn layout(&self, res: ResourceId, sub: u32) -> Option<BarrierLayout> {
        self.layouts.known(res, sub)
    }

    /// The scope the list left `resource` in, or `default` (what the API guarantees) where it
    /// has not touched it.
    pub(crate) fn scope_or(&self, resource: ResourceId, default: Scope) -> Scope {
        self.scopes.get(resource.0).copied().unwrap_or(default)
    }

    /// Whether the list's barriers and the fallback's work have left any resource in a scope
    /// of their own yet; until then every one is in what the API guarantees (`scope_or`'s
    /// default), and a batch needs no lookup per resource.
    pub(crate) fn has_scopes(&self) -> bool {
        !self.scopes.is_empty()
    }

    /// Records the scope the fallback's own work left `resource` in.
    pub(crate) fn set_scope(&mut self, resource: ResourceId, scope: Scope) {
        self.scopes.insert(resource.0, scope);
    }

    /// The layouts, for the submission's check.
    pub(crate) fn layouts(&self) -> &Layouts {
        &self.layouts
    }

    /// Forgets everything (list reset).
    pub(crate) fn clear(&mut self) {
        self.layouts.clear();
        self.scopes.clear();
    }
}

//! One tracker per command list: the layout of every subresource the list touches, as its
//! barriers set it and as the list first needs it (`layouts.rs`), and the sync and access each
//! touched resource was last left in by the list's barriers and the fallback's own work.
//! Barrier recording updates it once; the debug checks and the fallback read it. Lists of
//! command buffers add the hazard state of each subresource (`hazards.rs`), what legacy
//! semantics inserts barriers from, and the barriers a submission of them needs first
//! (`prefix.rs`, from those two sub-states of each list).
//!
//! The tracker knows no resource type: it keys state by [`ResourceId`] and keeps, of each
//! texture it tracks layouts for, what the [`Texture`] the runtime hands it downgrades to.

pub(crate) mod hazards;
pub(crate) mod layouts;
pub(crate) mod prefix;
pub(crate) mod ptr_table;

use asyncmd_ddi::ResourceId;
use asyncmd_types::{BarrierAccess, BarrierLayout, BarrierSync, Result};
use layouts::Layouts;
use ptr_table::PtrTable;
use std::sync::MutexGuard;

/// A texture as the tracker sees it. The runtime's resource implements it, so that the tracker
/// needs no resource type of its own: a list keeps a weak handle of each texture it tracks
/// layouts for (lists keep nothing alive), and a submission reads the layouts the queue's
/// earlier work left through it.
pub(crate) trait Texture: Sized {
    /// What a list keeps of a texture it touched.
    type Weak;
    /// The driver's id of the resource.
    fn id(&self) -> ResourceId;
    /// How many subresources have tracked layouts: 0 for buffers and simultaneous-access
    /// textures, which have none.
    fn tracked_subresources(&self) -> usize;
    /// The handle a list keeps.
    fn downgrade(&self) -> Self::Weak;
    /// The texture again, unless it was destroyed.
    fn upgrade(weak: &Self::Weak) -> Option<Self>;
    /// The layout of each subresource as of the last submission, locked.
    fn current_layouts(&self) -> MutexGuard<'_, Vec<BarrierLayout>>;
}

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

/// What one command list knows of the resources it touches, textures named as `T`.
pub(crate) struct Tracker<T: Texture> {
    layouts: Layouts<T>,
    scopes: PtrTable<Scope>,
}

impl<T: Texture> Default for Tracker<T> {
    fn default() -> Self {
        Self { layouts: Layouts::default(), scopes: PtrTable::default() }
    }
}

impl<T: Texture> Tracker<T> {
    /// A texture barrier from `before` to `after` on subresources `subs`, ending in `scope`.
    pub(crate) fn texture_barrier(
        &mut self,
        res: &T,
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
    pub(crate) fn layouts(&self) -> &Layouts<T> {
        &self.layouts
    }

    /// Forgets everything (list reset).
    pub(crate) fn clear(&mut self) {
        self.layouts.clear();
        self.scopes.clear();
    }
}

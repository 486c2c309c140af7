//! Resource scope tracking: the sync and access each touched resource was last left in by the
//! list's barriers and the fallback's own work. The compute fill route reads it to know the
//! scope it transitions from.

use super::ptr_table::PtrTable;
use asyncmd_ddi::ResourceId;
use asyncmd_types::{BarrierAccess, BarrierSync};

/// Where a resource stands for later barriers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scope {
    pub(crate) sync: BarrierSync,
    pub(crate) access: BarrierAccess,
}

impl Scope {
    /// The scope the copy-like Async Commands work in: `COPY` / `COPY_DEST`.
    pub(crate) const COPY_DEST: Scope = Scope { sync: BarrierSync::COPY, access: BarrierAccess::COPY_DEST };
}

/// Scopes of the resources a list touched.
#[derive(Default)]
pub(crate) struct Ledger {
    scopes: PtrTable<Scope>,
}

impl Ledger {
    /// Records the scope a barrier or the fallback left `resource` in.
    pub(crate) fn set(&mut self, resource: ResourceId, scope: Scope) {
        self.scopes.insert(resource.0, scope);
    }

    /// The tracked scope, or the one the API guarantees when the list has not touched it.
    pub(crate) fn scope_or(&self, resource: ResourceId, default: Scope) -> Scope {
        self.scopes.get(resource.0).copied().unwrap_or(default)
    }

    /// Forgets everything (list reset).
    pub(crate) fn clear(&mut self) {
        self.scopes.clear();
    }
}

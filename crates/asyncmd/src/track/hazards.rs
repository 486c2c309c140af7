//! Hazards: how each subresource a list touches was last written and read, and what a new
//! access needs before it. Legacy semantics turns each need into a barrier; fast semantics,
//! with the debug layer on, reports it. The state machine is per subresource (buffers have
//! one) and knows nothing of devices.
//!
//! A write must be made visible before a later access (read-after-write, write-after-write),
//! and earlier reads must finish before a later write (write-after-read). Accesses of one
//! [`Order`] class are ordered among themselves without barriers (the legacy copies, clears
//! and resolves are serialized; draws write their targets in rasterization order), so only a
//! change of class, or an unordered access (Async Commands, shader UAVs), needs one.

use super::ptr_table::PtrTable;
use asyncmd_ddi::ResourceId;
use asyncmd_types::{BarrierAccess, BarrierSync};
use smallvec::SmallVec;

/// Commands whose accesses are ordered among themselves without barriers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Ordered by nothing: Async Commands, shader reads and writes.
    Unordered,
    /// The legacy copies, clears and resolves (serialized by the DDI contract).
    Transfers,
    /// Draws and bound clears writing their targets (rasterization order).
    Raster,
}

/// One access a command makes to a subresource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    pub(crate) sync: BarrierSync,
    pub(crate) access: BarrierAccess,
    pub(crate) write: bool,
    pub(crate) order: Order,
}

impl Access {
    const fn new(sync: BarrierSync, access: BarrierAccess, write: bool, order: Order) -> Access {
        Access { sync, access, write, order }
    }

    /// A legacy copy's source.
    pub(crate) const COPY_READ: Access =
        Access::new(BarrierSync::COPY, BarrierAccess::COPY_SOURCE, false, Order::Transfers);
    /// A legacy copy's destination (also a query resolve's).
    pub(crate) const COPY_WRITE: Access =
        Access::new(BarrierSync::COPY, BarrierAccess::COPY_DEST, true, Order::Transfers);
    /// A legacy resolve's source.
    pub(crate) const RESOLVE_READ: Access =
        Access::new(BarrierSync::RESOLVE, BarrierAccess::RESOLVE_SOURCE, false, Order::Transfers);
    /// A legacy resolve's destination.
    pub(crate) const RESOLVE_WRITE: Access =
        Access::new(BarrierSync::RESOLVE, BarrierAccess::RESOLVE_DEST, true, Order::Transfers);
    /// A legacy view clear of a render target.
    pub(crate) const CLEAR_RENDER_TARGET: Access =
        Access::new(BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET, true, Order::Transfers);
    /// A legacy view clear of a depth-stencil target.
    pub(crate) const CLEAR_DEPTH_STENCIL: Access =
        Access::new(BarrierSync::DEPTH_STENCIL, BarrierAccess::DEPTH_STENCIL_WRITE, true, Order::Transfers);
    /// Draws (and bound clears) writing a render target.
    pub(crate) const DRAW_RENDER_TARGET: Access =
        Access::new(BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET, true, Order::Raster);
    /// Draws (and bound clears) writing a depth-stencil target.
    pub(crate) const DRAW_DEPTH_STENCIL: Access =
        Access::new(BarrierSync::DEPTH_STENCIL, BarrierAccess::DEPTH_STENCIL_WRITE, true, Order::Raster);
    /// Draws reading a depth-stencil target bound read-only.
    pub(crate) const DRAW_DEPTH_READ: Access =
        Access::new(BarrierSync::DEPTH_STENCIL, BarrierAccess::DEPTH_STENCIL_READ, false, Order::Raster);
    /// A dispatch's UAV.
    pub(crate) const COMPUTE_UAV: Access =
        Access::new(BarrierSync::COMPUTE_SHADING, BarrierAccess::UNORDERED_ACCESS, true, Order::Unordered);
    /// A dispatch's shader resource view of a buffer.
    pub(crate) const COMPUTE_SRV: Access =
        Access::new(BarrierSync::COMPUTE_SHADING, BarrierAccess::SHADER_RESOURCE, false, Order::Unordered);
    /// A dispatch's constant buffer.
    pub(crate) const COMPUTE_CBV: Access =
        Access::new(BarrierSync::COMPUTE_SHADING, BarrierAccess::CONSTANT_BUFFER, false, Order::Unordered);
    /// `ExecuteIndirect`'s argument and count buffers.
    pub(crate) const INDIRECT_ARGUMENT: Access =
        Access::new(BarrierSync::EXECUTE_INDIRECT, BarrierAccess::INDIRECT_ARGUMENT, false, Order::Unordered);
    /// A draw's shader resource view of a buffer.
    pub(crate) const DRAW_SRV: Access =
        Access::new(BarrierSync::ALL_SHADING, BarrierAccess::SHADER_RESOURCE, false, Order::Unordered);
    /// A draw's constant buffer.
    pub(crate) const DRAW_CBV: Access =
        Access::new(BarrierSync::ALL_SHADING, BarrierAccess::CONSTANT_BUFFER, false, Order::Unordered);
    /// A draw's UAV.
    pub(crate) const DRAW_UAV: Access =
        Access::new(BarrierSync::ALL_SHADING, BarrierAccess::UNORDERED_ACCESS, true, Order::Unordered);

    /// The same access by an Async Command: ordered by nothing.
    pub(crate) const fn unordered(self) -> Access {
        Access { order: Order::Unordered, ..self }
    }

    /// One command's two accesses to one subresource as one: both scopes, a write if either
    /// writes, and ordered only where both are ordered alike.
    pub(crate) fn merged(self, other: Access) -> Access {
        Access {
            sync: self.sync | other.sync,
            access: self.access | other.access,
            write: self.write || other.write,
            order: if self.order == other.order { self.order } else { Order::Unordered },
        }
    }
}

/// Accesses merged since a point: their scopes, and the class they share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Merged {
    sync: BarrierSync,
    access: BarrierAccess,
    /// `None` where the accesses differ in class (ordered by nothing as a whole).
    order: Option<Order>,
}

impl Merged {
    fn of(a: Access) -> Merged {
        Merged { sync: a.sync, access: a.access, order: Some(a.order) }
    }

    fn add(this: &mut Option<Merged>, a: Access) {
        *this = Some(match *this {
            None => Merged::of(a),
            Some(m) => Merged {
                sync: m.sync | a.sync,
                access: m.access | a.access,
                order: if m.order == Some(a.order) { m.order } else { None },
            },
        });
    }

    /// Whether `a` is ordered after these accesses without a barrier.
    fn orders(&self, a: Access) -> bool {
        a.order != Order::Unordered && self.order == Some(a.order)
    }
}

/// A barrier an access needs: the scope it waits for (and flushes, for writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Need {
    pub(crate) sync_before: BarrierSync,
    pub(crate) access_before: BarrierAccess,
    /// The kinds of hazard, for reports.
    pub(crate) kind: HazardKind,
}

/// What an access races with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HazardKind {
    /// A read of an earlier write.
    ReadAfterWrite,
    /// A write over an earlier write.
    WriteAfterWrite,
    /// A write over data an earlier access reads.
    WriteAfterRead,
}

impl HazardKind {
    /// How a report names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            HazardKind::ReadAfterWrite => "read-after-write",
            HazardKind::WriteAfterWrite => "write-after-write",
            HazardKind::WriteAfterRead => "write-after-read",
        }
    }
}

/// One subresource's state in a list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SubState {
    /// The last writes (since the last write-ordering barrier).
    write: Option<Merged>,
    /// The scopes barriers have made those writes visible to.
    visible: (BarrierSync, BarrierAccess),
    /// Reads since the last write, not yet ordered before a later write.
    reads: Option<Merged>,
    /// Accesses before the list's first barrier on it: what the list needs of the state an
    /// earlier list of its submission leaves.
    first: Option<Merged>,
    /// Whether one of those first accesses writes.
    first_write: bool,
    /// Whether a barrier has been placed on it (inserted or the app's).
    fenced: bool,
    /// Whether the list writes it.
    wrote: bool,
}

impl SubState {
    /// Records access `a`; returns the barrier it needs first (the state after is as if that
    /// barrier had been placed).
    pub(crate) fn access(&mut self, a: Access) -> Option<Need> {
        if !self.fenced {
            Merged::add(&mut self.first, a);
            self.first_write |= a.write;
        }
        let visible = self.visible.0.contains(a.sync) && self.visible.1.contains(a.access);
        let need = if a.write {
            // Reads the write was made visible to chain it: waiting for them waits for it.
            let chained = self.reads.is_some() && !self.visible.0.is_empty();
            let after_write = self.write.filter(|w| !w.orders(a) && !visible && !chained);
            let after_read = self.reads.filter(|r| !r.orders(a));
            match (after_write, after_read) {
                (None, None) => None,
                (w, r) => Some(Need {
                    sync_before: w.map_or(BarrierSync::empty(), |w| w.sync)
                        | r.map_or(BarrierSync::empty(), |r| r.sync),
                    access_before: w.map_or(BarrierAccess::NO_ACCESS, |w| w.access),
                    kind: if w.is_some() { HazardKind::WriteAfterWrite } else { HazardKind::WriteAfterRead },
                }),
            }
        } else {
            self.write.filter(|w| !w.orders(a) && !visible).map(|w| Need {
                sync_before: w.sync,
                access_before: w.access,
                kind: HazardKind::ReadAfterWrite,
            })
        };
        if need.is_some() {
            self.fenced = true;
        }
        if a.write {
            self.wrote = true;
            self.write = Some(Merged::of(a));
            self.visible = (BarrierSync::empty(), BarrierAccess::empty());
            self.reads = None;
        } else {
            if need.is_some() {
                self.visible = (self.visible.0 | a.sync, self.visible.1 | a.access);
            }
            Merged::add(&mut self.reads, a);
        }
        need
    }

    /// A barrier the app placed (or the runtime, for a layout change), whose after-scope is
    /// `sync` / `access`: earlier writes become visible to it and earlier reads are done.
    pub(crate) fn barrier(&mut self, sync: BarrierSync, access: BarrierAccess) {
        self.fenced = true;
        let all = sync.contains(BarrierSync::ALL);
        let (sync, access) = if all { (BarrierSync::all(), BarrierAccess::all()) } else { (sync, access) };
        self.visible = (self.visible.0 | sync, self.visible.1 | access);
        self.reads = None;
        if all {
            self.write = None;
        }
    }

    /// The scope of the accesses a barrier placed now waits for: the last writes and the reads
    /// since (`NONE` / `NO_ACCESS` when there are none). A write an earlier barrier already made
    /// available is not flushed again: the access named is then the reads' since (the layout
    /// they ran in allowed them; D3D12 asks `AccessBefore` to suit `LayoutBefore`), and the
    /// write's stage stays, which chains the new barrier after the earlier one.
    pub(crate) fn pending_scope(&self) -> (BarrierSync, BarrierAccess) {
        let sync =
            self.write.map_or(BarrierSync::empty(), |w| w.sync) | self.reads.map_or(BarrierSync::empty(), |r| r.sync);
        let flushed = !self.visible.0.is_empty();
        let access = match self.write {
            Some(w) if !flushed => w.access,
            _ => self.reads.map_or(BarrierAccess::NO_ACCESS, |r| r.access),
        };
        if sync.is_empty() {
            (BarrierSync::empty(), BarrierAccess::NO_ACCESS)
        } else {
            (sync, access)
        }
    }

    /// The list's first accesses (before its first barrier) as one, if it made any: what an
    /// earlier list's state must be ready for. Ordered by nothing, as a whole.
    pub(crate) fn first_access(&self) -> Option<Access> {
        self.first.map(|f| Access { sync: f.sync, access: f.access, write: self.first_write, order: Order::Unordered })
    }

    /// The scope of the list's first accesses (before its first barrier), if it made any.
    pub(crate) fn first_scope(&self) -> Option<(BarrierSync, BarrierAccess)> {
        self.first.map(|f| (f.sync, f.access))
    }

    #[cfg(test)]
    /// Whether the sub has pending accesses an access by a later list must wait for.
    pub(crate) fn pending(&self) -> bool {
        self.write.is_some() || self.reads.is_some()
    }

    /// The barrier the list's first accesses need after `earlier` (the state an earlier list of
    /// the same submission left), and the state the two leave together.
    pub(crate) fn after(&self, earlier: &SubState) -> (Option<Need>, SubState) {
        let mut joined = *earlier;
        let mut need: Option<Need> = None;
        if let Some(f) = self.first {
            let order = f.order.unwrap_or(Order::Unordered);
            let as_access = Access { sync: f.sync, access: f.access, write: self.first_write, order };
            need = joined.access(as_access);
        }
        let state = if self.fenced || self.write.is_some() {
            SubState { first: joined.first, ..*self }
        } else {
            SubState { reads: merge(joined.reads, self.reads), ..joined }
        };
        (need, state)
    }
}

/// The state of every subresource one list touches.
#[derive(Default)]
pub(crate) struct Hazards {
    table: PtrTable<SmallVec<[SubState; 1]>>,
}

impl Hazards {
    /// The state of subresource `sub` of `resource`.
    pub(crate) fn sub(&mut self, resource: ResourceId, sub: u32) -> &mut SubState {
        let i = sub as usize;
        if self.table.get(resource.0).is_none() {
            self.table.insert(resource.0, SmallVec::new());
        }
        let subs = match self.table.get_mut(resource.0) {
            Some(s) => s,
            None => unreachable!("inserted above"),
        };
        if subs.len() <= i {
            subs.resize(i + 1, SubState::default());
        }
        &mut subs[i]
    }

    /// A global barrier: every subresource the list touched.
    pub(crate) fn barrier_all(&mut self, sync: BarrierSync, access: BarrierAccess) {
        for (_, subs) in self.table.iter_mut() {
            subs.iter_mut().for_each(|s| s.barrier(sync, access));
        }
    }

    /// Whether the list writes any subresource of `resource`.
    pub(crate) fn wrote(&self, resource: ResourceId) -> bool {
        self.table.get(resource.0).is_some_and(|subs| subs.iter().any(|s| s.wrote))
    }

    /// Every resource the list touched, with its subresources' states.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (ResourceId, &[SubState])> {
        self.table.iter().map(|(k, v)| (ResourceId(k), v.as_slice()))
    }

    /// Forgets everything (list reset), keeping the table's memory.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }
}

fn merge(a: Option<Merged>, b: Option<Merged>) -> Option<Merged> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Merged {
            sync: a.sync | b.sync,
            access: a.access | b.access,
            order: if a.order == b.order { a.order } else { None },
        }),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn async_write() -> Access {
        Access::COPY_WRITE.unordered()
    }

    /// One command's read and write of a subresource as one access: both scopes and both
    /// access bits, a write, and the order they share (or none where they differ).
    #[test]
    fn a_commands_two_accesses_merge_into_both_scopes() {
        let resolve_then_copy = Access::RESOLVE_READ.merged(Access::COPY_WRITE);
        assert_eq!(resolve_then_copy.sync, BarrierSync::RESOLVE | BarrierSync::COPY);
        assert_eq!(resolve_then_copy.access, BarrierAccess::RESOLVE_SOURCE | BarrierAccess::COPY_DEST);
        assert!(resolve_then_copy.write);
        assert_eq!(resolve_then_copy.order, Order::Transfers, "both are ordered transfers");
        let read_read = Access::COPY_READ.merged(Access::RESOLVE_READ);
        assert!(!read_read.write, "two reads stay a read");
        assert_eq!(Access::COPY_READ.merged(Access::DRAW_DEPTH_READ).order, Order::Unordered, "different orders");
        // Scopes both name stay named.
        let rt = Access::CLEAR_RENDER_TARGET.merged(Access::DRAW_RENDER_TARGET);
        assert_eq!((rt.sync, rt.access), (BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET));
    }

    #[test]
    fn reads_after_reads_and_ordered_transfers_need_nothing() {
        let mut s = SubState::default();
        assert_eq!(s.access(Access::COPY_READ), None);
        assert_eq!(s.access(Access::COPY_READ), None);
        assert_eq!(s.access(Access::COPY_WRITE), None, "legacy copies are serialized");
        assert_eq!(s.access(Access::COPY_READ), None);
    }

    #[test]
    fn each_hazard_kind_needs_a_barrier_once() {
        let mut s = SubState::default();
        assert_eq!(s.access(async_write()), None, "the first access is the list's first use");
        let raw = s.access(Access::COPY_READ).expect("read after an unordered write");
        assert_eq!(raw.kind, HazardKind::ReadAfterWrite);
        assert_eq!((raw.sync_before, raw.access_before), (BarrierSync::COPY, BarrierAccess::COPY_DEST));
        assert_eq!(s.access(Access::COPY_READ), None, "the write is visible to copies now");
        let war = s.access(Access::COMPUTE_UAV).expect("a write after reads");
        assert_eq!(war.kind, HazardKind::WriteAfterRead);
        assert_eq!(war.access_before, BarrierAccess::NO_ACCESS);
        let waw = s.access(Access::COMPUTE_UAV).expect("UAV writes are unordered");
        assert_eq!(waw.kind, HazardKind::WriteAfterWrite);
    }

    #[test]
    fn a_visible_write_is_still_read_by_another_scope_only_after_a_barrier() {
        let mut s = SubState::default();
        s.access(async_write());
        assert!(s.access(Access::COPY_READ).is_some());
        let shader_read = Access {
            sync: BarrierSync::COMPUTE_SHADING,
            access: BarrierAccess::SHADER_RESOURCE,
            write: false,
            order: Order::Unordered,
        };
        assert!(s.access(shader_read).is_some(), "visible to copies is not visible to shaders");
    }

    #[test]
    fn the_apps_barrier_covers_what_it_names() {
        let mut s = SubState::default();
        s.access(async_write());
        s.barrier(BarrierSync::COPY, BarrierAccess::COPY_SOURCE);
        assert_eq!(s.access(Access::COPY_READ), None);
        let mut t = SubState::default();
        t.access(Access::COMPUTE_UAV);
        t.barrier(BarrierSync::ALL, BarrierAccess::empty());
        assert_eq!(t.access(Access::COMPUTE_UAV), None);
    }

    #[test]
    fn a_later_lists_first_use_waits_for_an_earlier_lists_write() {
        let mut earlier = SubState::default();
        earlier.access(Access::COMPUTE_UAV);
        let mut later = SubState::default();
        later.access(Access::COPY_READ);
        let (need, joined) = later.after(&earlier);
        assert_eq!(need.map(|n| n.kind), Some(HazardKind::ReadAfterWrite));
        assert!(joined.pending());
        let mut reader = SubState::default();
        reader.access(Access::COPY_READ);
        assert_eq!(reader.after(&SubState::default()).0, None, "nothing earlier: nothing to wait for");
    }

    /// A write after several reads waits for every read's stage (D3D12: a barrier's
    /// `SyncBefore` must cover each earlier access), and the list's first scope names them all.
    #[test]
    fn a_write_after_reads_waits_for_every_reads_stage() {
        let mut s = SubState::default();
        s.access(Access::COPY_READ);
        s.access(Access::COPY_READ);
        s.access(Access::RESOLVE_READ);
        assert_eq!(
            s.first_scope(),
            Some((
                BarrierSync::COPY | BarrierSync::RESOLVE,
                BarrierAccess::COPY_SOURCE | BarrierAccess::RESOLVE_SOURCE
            ))
        );
        assert_eq!(s.first_access().map(|a| a.write), Some(false));
        let war = s.access(Access::COMPUTE_UAV).expect("an unordered write after reads");
        assert_eq!(war.kind, HazardKind::WriteAfterRead);
        assert_eq!(
            (war.sync_before, war.access_before),
            (BarrierSync::COPY | BarrierSync::RESOLVE, BarrierAccess::NO_ACCESS)
        );
        let first = s.first_access().expect("the list used it");
        assert!(first.write, "one of the accesses before the first barrier writes");
        assert_eq!(first.order, Order::Unordered);
        assert!(first.sync.contains(BarrierSync::COPY | BarrierSync::RESOLVE | BarrierSync::COMPUTE_SHADING));
    }

    /// Ordered writes and reads stay pending together; an unordered write then waits for the
    /// writes' and the reads' stages and flushes the writes.
    #[test]
    fn an_unordered_write_waits_for_ordered_writes_and_reads_alike() {
        for (read, sync) in
            [(Access::RESOLVE_READ, BarrierSync::COPY | BarrierSync::RESOLVE), (Access::COPY_READ, BarrierSync::COPY)]
        {
            let mut s = SubState::default();
            assert_eq!(s.access(Access::COPY_WRITE), None);
            assert_eq!(s.access(read), None, "transfers are serialized");
            assert_eq!(s.pending_scope(), (sync, BarrierAccess::COPY_DEST));
            let waw = s.access(Access::COMPUTE_UAV).expect("an unordered write");
            assert_eq!(waw.kind, HazardKind::WriteAfterWrite);
            assert_eq!((waw.sync_before, waw.access_before), (sync, BarrierAccess::COPY_DEST));
            assert_eq!(s.pending_scope(), (BarrierSync::COMPUTE_SHADING, BarrierAccess::UNORDERED_ACCESS));
        }
        let mut s = SubState::default();
        assert_eq!(s.pending_scope(), (BarrierSync::empty(), BarrierAccess::NO_ACCESS), "nothing to wait for");
        s.access(Access::COPY_WRITE);
        assert_eq!(s.access(Access::COPY_WRITE), None, "ordered writes");
        assert_eq!(s.access(Access::RESOLVE_WRITE), None, "ordered writes of another transfer");
    }

    /// A barrier makes earlier writes visible to the stages and accesses it names, both of
    /// them, and successive barriers add up.
    #[test]
    fn barriers_make_a_write_visible_to_exactly_what_they_name() {
        let mut s = SubState::default();
        s.access(Access::COMPUTE_UAV);
        s.barrier(BarrierSync::COMPUTE_SHADING, BarrierAccess::SHADER_RESOURCE);
        assert!(s.access(Access::COMPUTE_UAV).is_some(), "the stage, not the access");
        let mut s = SubState::default();
        s.access(Access::COMPUTE_UAV);
        s.barrier(BarrierSync::COMPUTE_SHADING, BarrierAccess::UNORDERED_ACCESS);
        assert_eq!(s.access(Access::COMPUTE_UAV), None, "the stage and the access");
        let mut s = SubState::default();
        s.access(async_write());
        s.barrier(BarrierSync::COPY, BarrierAccess::COPY_SOURCE);
        s.barrier(BarrierSync::COPY, BarrierAccess::COPY_SOURCE);
        s.barrier(BarrierSync::RESOLVE, BarrierAccess::RESOLVE_SOURCE);
        assert_eq!(s.access(Access::COPY_READ.unordered()), None);
        assert_eq!(s.access(Access::RESOLVE_READ.unordered()), None);
    }

    /// A read that needed a barrier leaves the write visible to its whole scope.
    #[test]
    fn a_read_barrier_makes_the_write_visible_to_everything_the_read_named() {
        let mut s = SubState::default();
        s.access(async_write());
        assert!(s.access(Access::COPY_READ.unordered()).is_some());
        let both = Access::COPY_READ.merged(Access::RESOLVE_READ).unordered();
        assert!(s.access(both).is_some(), "resolves had not seen it");
        assert_eq!(s.access(Access::COPY_READ.unordered()), None);
        assert_eq!(s.access(Access::RESOLVE_READ.unordered()), None);
    }

    /// The state two lists of one submission leave: the later list's where it wrote or
    /// placed a barrier, else the earlier's with both lists' reads; the first accesses are the
    /// submission's.
    #[test]
    fn two_lists_join_into_one_state() {
        // The later list writes without a barrier: its writes and reads are what is pending.
        let mut later = SubState::default();
        later.access(Access::COPY_WRITE);
        later.access(Access::RESOLVE_READ);
        let (need, joined) = later.after(&SubState::default());
        assert_eq!(need, None);
        assert_eq!(joined.pending_scope(), (BarrierSync::COPY | BarrierSync::RESOLVE, BarrierAccess::COPY_DEST));
        // The later list read, then placed a barrier: the submission's first accesses are
        // both lists' reads.
        let mut earlier = SubState::default();
        earlier.access(Access::RESOLVE_READ);
        let mut later = SubState::default();
        later.access(Access::COPY_READ);
        later.barrier(BarrierSync::COPY, BarrierAccess::COPY_SOURCE);
        let (need, joined) = later.after(&earlier);
        assert_eq!(need, None);
        assert_eq!(
            joined.first_scope(),
            Some((
                BarrierSync::COPY | BarrierSync::RESOLVE,
                BarrierAccess::COPY_SOURCE | BarrierAccess::RESOLVE_SOURCE
            ))
        );
        // Both lists only read: the reads of both stay pending, ordered as they were, and a
        // barrier now names their stages and accesses.
        let mut later = SubState::default();
        later.access(Access::COPY_READ);
        let (_, joined) = later.after(&earlier);
        assert_eq!(
            joined.pending_scope(),
            (BarrierSync::COPY | BarrierSync::RESOLVE, BarrierAccess::COPY_SOURCE | BarrierAccess::RESOLVE_SOURCE)
        );
        let (mut copy, mut uav) = (joined, joined);
        assert_eq!(copy.access(Access::COPY_WRITE), None, "transfers after transfers");
        let war = uav.access(Access::COMPUTE_UAV).expect("an unordered write after reads");
        assert_eq!(war.sync_before, BarrierSync::COPY | BarrierSync::RESOLVE);
    }

    /// The table of a list: subresources apart, a global barrier reaching every one, and
    /// which resources the list wrote.
    #[test]
    fn the_table_keeps_each_subresource_and_a_global_barrier_reaches_them_all() {
        let (a, b, untouched) = (ResourceId(7), ResourceId(9), ResourceId(11));
        let mut h = Hazards::default();
        h.sub(a, 2).access(async_write());
        h.sub(b, 0).access(Access::COPY_READ);
        assert!(h.wrote(a));
        assert!(!h.wrote(b), "read only");
        assert!(!h.wrote(untouched));
        assert_eq!(
            h.sub(a, 0).pending_scope(),
            (BarrierSync::empty(), BarrierAccess::NO_ACCESS),
            "another subresource"
        );
        let mut seen: Vec<_> = h.iter().map(|(r, subs)| (r, subs.len())).collect();
        seen.sort_by_key(|(r, _)| r.0);
        assert_eq!(seen, [(a, 3), (b, 1)]);
        h.barrier_all(BarrierSync::COPY, BarrierAccess::COPY_SOURCE);
        assert_eq!(h.sub(a, 2).access(Access::COPY_READ.unordered()), None, "the global barrier made it visible");
        assert_eq!(h.sub(b, 0).access(async_write()), None, "and ended the read");
        h.clear();
        assert_eq!(h.iter().count(), 0);
        assert!(!h.wrote(a));
    }
}

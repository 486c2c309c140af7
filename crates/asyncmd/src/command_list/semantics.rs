//! Legacy and fast semantics inside a list (spec 001). A plain command list leaves hazards,
//! lifetimes and layouts to the app, as D3D12 does. A command buffer's list records with one
//! of two rules:
//! - **legacy**: every command declares what it reads and writes ([`Use`]); the list keeps
//!   those objects alive, moves textures into layouts the command allows, and inserts the
//!   barriers its hazards need, merged into one barrier call before the command;
//! - **fast**: nothing of that; with the debug layer on, each hazard legacy semantics would
//!   have fixed is reported as a warning.

use super::CommandRecorder;
use crate::fence::Fence;
use crate::pending_work::Rule;
use crate::resource::{has_layouts, Resource, ResourceShared};
use crate::track::hazards::{Access, Hazards, Need};
use crate::track::layouts::layout_permits;
use crate::track::ptr_table::PtrTable;
use crate::track::Scope;
use crate::tracked::Tracked;
use asyncmd_ddi::{Command, ResourceId};
use asyncmd_types::{
    BarrierAccess, BarrierGroup, BarrierLayout, BarrierSubresourceRange, BarrierSync, BufferBarrier, CommandListType,
    MessageId, Result, TextureBarrier, TextureBarrierFlags,
};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// The rule a list records with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A plain command list: the app's barriers, references and layouts.
    #[default]
    Plain,
    /// A command buffer with legacy semantics.
    Legacy,
    /// A command buffer with fast semantics; `warn` when the debug layer was on at its start.
    Fast { warn: bool },
}

/// What legacy semantics cost one command buffer so far: zero for a fast buffer, whether the
/// debug layer reports its hazards or not. Objects the app hands to `track` are not a cost of
/// tracking (a fast buffer keeps them too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrackingCosts {
    /// Barriers the runtime inserted (each buffer or subresource transition counts once).
    pub barriers_inserted: u64,
    /// Barrier calls those were merged into (one before each command that needed any).
    pub barrier_groups: u64,
    /// Objects legacy tracking keeps alive for the buffer's commands (each counted once).
    pub objects_tracked: u64,
    /// Time spent tracking.
    pub tracking_time: Duration,
}

/// Which subresources a command touches.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Subs<'a> {
    /// All of them.
    All,
    /// One.
    One(u32),
    /// These.
    List(&'a [u32]),
}

/// One resource a command reads or writes, and how.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Use<'a> {
    pub(crate) resource: &'a Resource,
    pub(crate) subs: Subs<'a>,
    pub(crate) access: Access,
}

impl<'a> Use<'a> {
    /// `access` to subresource `sub` of `resource` (buffers: 0).
    pub(crate) fn one(resource: &'a Resource, sub: u32, access: Access) -> Self {
        Use { resource, subs: Subs::One(sub), access }
    }

    /// `access` to every subresource of `resource`.
    pub(crate) fn all(resource: &'a Resource, access: Access) -> Self {
        Use { resource, subs: Subs::All, access }
    }
}

/// `uses` with each buffer named once: a command that reads and writes one buffer makes one
/// access of both scopes, so that neither is taken for a hazard of the other, and a barrier
/// before the command covers both (a copy within a buffer: COPY_SOURCE and COPY_DEST). `None`
/// where no buffer is named twice (the common case, left as it is).
fn merge_buffer_uses<'a>(uses: &[Use<'a>]) -> Option<smallvec::SmallVec<[Use<'a>; 4]>> {
    let named_twice =
        |i: usize, u: &Use| u.resource.desc().is_buffer() && uses[..i].iter().any(|e| e.resource.same(u.resource));
    if !uses.iter().enumerate().any(|(i, u)| named_twice(i, u)) {
        return None;
    }
    let mut merged: smallvec::SmallVec<[Use<'a>; 4]> = smallvec::SmallVec::new();
    for u in uses {
        match merged.iter_mut().find(|m| u.resource.desc().is_buffer() && m.resource.same(u.resource)) {
            Some(m) => m.access = m.access.merged(u.access),
            None => merged.push(*u),
        }
    }
    Some(merged)
}

/// An output target draws write: the resource, the subresources, the access.
pub(crate) type BoundTarget = (Resource, smallvec::SmallVec<[u32; 1]>, Access);

/// A list's semantics and what it tracks for them.
#[derive(Default)]
pub(crate) struct SemanticsState {
    pub(crate) mode: Mode,
    hazards: Hazards,
    /// What a legacy list keeps alive, once each.
    kept: Vec<Tracked>,
    kept_ids: PtrTable<()>,
    /// Every resource a command names (legacy and warning fast lists), once each: what the
    /// submission marks pending.
    watched: Vec<Weak<ResourceShared>>,
    watched_ids: PtrTable<()>,
    /// The debug layer was on when the recording began: every list names what it uses, for
    /// the checks across queues; `written` holds what a list without hazard tracking writes.
    pub(crate) watch: bool,
    written: PtrTable<()>,
    /// The bound output targets draws write (legacy and warning fast lists).
    targets: Vec<BoundTarget>,
    /// No access since the last draw touched anything: draws need no new check.
    targets_clean: bool,
    costs: TrackingCosts,
    textures: Vec<TextureBarrier<ResourceId>>,
    buffers: Vec<BufferBarrier<ResourceId>>,
}

impl SemanticsState {
    /// A plain list's state; `watch`: the debug layer is on.
    pub(crate) fn watching(watch: bool) -> Self {
        SemanticsState { watch, ..Default::default() }
    }

    /// Forgets the recording (list reset), keeping the memory; the mode goes back to plain.
    pub(crate) fn reset(&mut self) {
        self.mode = Mode::Plain;
        self.hazards.clear();
        self.kept.clear();
        self.kept_ids.clear();
        self.watched.clear();
        self.watched_ids.clear();
        self.written.clear();
        self.targets.clear();
        self.targets_clean = false;
        self.costs = TrackingCosts::default();
    }

    /// The hazard state, for the submission's prefix.
    pub(crate) fn hazards(&self) -> &Hazards {
        &self.hazards
    }

    /// Keeps the object `key` names, made by `tracked`, unless it is kept already; `cost`:
    /// legacy tracking keeps it (counted in the costs), not the app's `track`.
    fn keep(&mut self, key: u64, tracked: impl FnOnce() -> Tracked, cost: bool) {
        if self.kept_ids.get(key).is_none() {
            self.kept_ids.insert(key, ());
            self.kept.push(tracked());
            self.costs.objects_tracked += u64::from(cost);
        }
    }

    /// What the list keeps alive so far.
    pub(crate) fn kept(&self) -> &[Tracked] {
        &self.kept
    }

    /// The submission that runs this list passes `value` on `fence`: the resources it names
    /// wait for it (legacy CPU reads) or report it (fast drops and reads).
    pub(crate) fn mark_submitted(&self, fence: &Fence, value: u64) {
        let rule = match self.mode {
            Mode::Legacy => Rule::Wait,
            Mode::Fast { warn: true } => Rule::Warn,
            _ => return,
        };
        for r in self.watched.iter().filter_map(Weak::upgrade) {
            r.pending.submitted(fence, value, self.hazards.wrote(r.id), rule);
        }
    }

    /// Every resource the list names (while the debug layer or a command buffer's semantics
    /// watches), and whether it writes it.
    pub(crate) fn used_resources(&self) -> impl Iterator<Item = (Arc<ResourceShared>, bool)> + '_ {
        self.watched.iter().filter_map(Weak::upgrade).map(|r| {
            let wrote = self.hazards.wrote(r.id) || self.written.get(r.id.0).is_some();
            (r, wrote)
        })
    }

    /// Hands over what the list kept alive.
    pub(crate) fn take_kept(&mut self, into: &mut Vec<Tracked>) {
        into.append(&mut self.kept);
        self.kept_ids.clear();
    }

    /// The costs so far.
    pub(crate) fn costs(&self) -> TrackingCosts {
        self.costs
    }
}

/// The layout an access is made in when its texture must move: the one named after it.
fn layout_for(access: BarrierAccess, ty: CommandListType) -> BarrierLayout {
    use BarrierAccess as A;
    use BarrierLayout as L;
    if ty == CommandListType::Copy {
        return L::Common;
    }
    let by_access = [
        (A::COPY_DEST, L::CopyDest),
        (A::COPY_SOURCE, L::CopySource),
        (A::RESOLVE_DEST, L::ResolveDest),
        (A::RESOLVE_SOURCE, L::ResolveSource),
        (A::RENDER_TARGET, L::RenderTarget),
        (A::DEPTH_STENCIL_WRITE, L::DepthStencilWrite),
        (A::DEPTH_STENCIL_READ, L::DepthStencilRead),
        (A::UNORDERED_ACCESS, L::UnorderedAccess),
        (A::SHADER_RESOURCE, L::ShaderResource),
    ];
    by_access.iter().find(|(a, _)| access.contains(*a)).map_or(L::Common, |&(_, l)| l)
}

impl CommandRecorder {
    /// Sets the rule this list records with (command buffers, at the start of a recording).
    pub(crate) fn set_semantics(&mut self, mode: Mode) {
        self.semantics.mode = mode;
        // Recycled parts were reset when their submission retired: the debug layer is read now.
        self.semantics.watch = self.device.debug_layer();
    }

    /// Whether commands must declare their uses: legacy lists, fast lists that warn, and any
    /// list while the debug layer watches across queues.
    pub(crate) fn tracks_uses(&self) -> bool {
        self.tracks_hazards() || self.semantics.watch
    }

    /// Whether the list keeps the hazard state: legacy lists and fast lists that warn.
    fn tracks_hazards(&self) -> bool {
        matches!(self.semantics.mode, Mode::Legacy | Mode::Fast { warn: true })
    }

    /// Keeps an object a command uses alive with a legacy list (each once): `object` is the
    /// shared state behind its handle, the address [`Tracked::key`] names it by.
    pub(crate) fn keep_object<T>(&mut self, object: &T, tracked: impl FnOnce() -> Tracked) {
        if self.semantics.mode == Mode::Legacy {
            self.semantics.keep(object as *const T as *const () as u64, tracked, true);
        }
    }

    /// Keeps `object` alive until the list's submission has executed, whatever the semantics
    /// (`CommandBuffer::track`); each object once.
    pub(crate) fn keep_tracked(&mut self, object: Tracked) {
        self.semantics.keep(object.key(), || object, false);
    }

    /// What command `api` reads and writes. Legacy lists keep the resources alive and insert
    /// the layout changes and barriers the uses need before the command; fast lists that warn
    /// report each hazard. Errors: a subresource out of range (callers validate first).
    pub(crate) fn uses(&mut self, api: &str, uses: &[Use<'_>]) -> Result<()> {
        if !self.tracks_uses() {
            return Ok(());
        }
        let legacy = self.semantics.mode == Mode::Legacy;
        let hazards = self.tracks_hazards();
        let start = Instant::now();
        let merged = merge_buffer_uses(uses);
        let uses = merged.as_deref().unwrap_or(uses);
        for u in uses {
            // Anything used may be a bound target: the next draw uses the targets again.
            self.semantics.targets_clean = false;
            if legacy {
                self.keep_object(&*u.resource.shared, || Tracked::Resource(u.resource.clone()));
            }
            let key = Arc::as_ptr(&u.resource.shared) as *const () as u64;
            if self.semantics.watched_ids.get(key).is_none() {
                self.semantics.watched_ids.insert(key, ());
                self.semantics.watched.push(Arc::downgrade(&u.resource.shared));
            }
            if !hazards {
                if u.access.write {
                    self.semantics.written.insert(u.resource.id().0, ());
                }
                continue;
            }
            let desc = u.resource.desc();
            let count = if desc.is_buffer() { 1 } else { desc.subresource_count() };
            match u.subs {
                Subs::All => (0..count).try_for_each(|s| self.use_sub(api, u.resource, s, u.access))?,
                Subs::One(s) => self.use_sub(api, u.resource, s, u.access)?,
                Subs::List(subs) => subs.iter().try_for_each(|&s| self.use_sub(api, u.resource, s, u.access))?,
            }
        }
        self.flush_barriers();
        // A fast buffer's hazard reports are the debug layer's cost, not tracking's.
        if legacy {
            self.semantics.costs.tracking_time += start.elapsed();
        }
        Ok(())
    }

    /// A buffer's use by its id alone (root UAVs name buffers by GPU address): hazards only;
    /// the barriers wait for [`CommandList::flush_barriers`].
    pub(crate) fn use_buffer_id(&mut self, api: &str, buffer: ResourceId, access: Access) {
        if !self.tracks_hazards() {
            return;
        }
        self.semantics.targets_clean = false;
        if let Some(need) = self.semantics.hazards.sub(buffer, 0).access(access) {
            self.on_hazard(api, buffer, None, need, access);
        }
    }

    fn use_sub(&mut self, api: &str, res: &Resource, sub: u32, access: Access) -> Result<()> {
        let id = res.id();
        let legacy = self.semantics.mode == Mode::Legacy;
        // Secondary buffers take no barriers: the primary that executes one moves its textures.
        if legacy && has_layouts(res.desc()) && self.ty != CommandListType::Bundle {
            let ty = self.ty;
            let known = match self.tracker.layout(id, sub) {
                Some(k) => k,
                None => {
                    // The list's first use: assume the layout the texture is in now (or the
                    // one the access is named after); the submission moves it there first.
                    let now = res.layout(sub).filter(|&l| layout_permits(l, access.access, ty));
                    let l = now.unwrap_or_else(|| layout_for(access.access, ty));
                    self.tracker.assume_layout(res, sub, l, api)?;
                    l
                }
            };
            if !layout_permits(known, access.access, ty) {
                let to = layout_for(access.access, ty);
                let state = self.semantics.hazards.sub(id, sub);
                let (sync_before, access_before) = state.pending_scope();
                state.barrier(access.sync, access.access);
                state.access(access);
                self.push_texture(id, sub, (sync_before, access_before), (known, to), access);
                let scope = Scope { sync: access.sync, access: access.access };
                return self.tracker.texture_barrier(res, &[sub], (known, to), scope);
            }
        }
        if let Some(need) = self.semantics.hazards.sub(id, sub).access(access) {
            // A texture without layouts (simultaneous access) stays in COMMON: its barrier is
            // still a texture barrier, one that changes no layout.
            let layout = match (res.desc().is_buffer(), has_layouts(res.desc())) {
                (true, _) => None,
                (false, true) => self.tracker.layout(id, sub),
                (false, false) => Some(BarrierLayout::Common),
            };
            self.on_hazard(api, id, layout.map(|l| (sub, l)), need, access);
        }
        Ok(())
    }

    /// A hazard `access` has: a barrier before the command (legacy), or a warning (fast).
    fn on_hazard(&mut self, api: &str, id: ResourceId, texture: Option<(u32, BarrierLayout)>, need: Need, a: Access) {
        if self.semantics.mode != Mode::Legacy {
            let what = texture.map_or("a buffer".to_string(), |(s, _)| format!("subresource {s} of a texture"));
            self.device.warn(
                MessageId::HazardWithoutBarrier,
                format!(
                    "{api}: {} hazard on {what} ({id:?}): no barrier from {:?} / {:?} to {:?} / {:?} \
                     (legacy semantics would insert it)",
                    need.kind.name(),
                    need.sync_before,
                    need.access_before,
                    a.sync,
                    a.access
                ),
            );
            return;
        }
        let inside = if self.ty == CommandListType::Bundle {
            Some("a secondary buffer")
        } else if matches!(self.pass, super::Pass::Open { .. }) {
            Some("a render pass")
        } else {
            None
        };
        if let Some(inside) = inside {
            self.device.warn(
                MessageId::HazardNotFixable,
                format!("{api}: {} hazard inside {inside}, where no barrier can go", need.kind.name()),
            );
            return;
        }
        let before = (need.sync_before, need.access_before);
        match texture {
            Some((sub, layout)) => self.push_texture(id, sub, before, (layout, layout), a),
            None => {
                self.semantics.buffers.push(BufferBarrier {
                    sync_before: before.0,
                    sync_after: a.sync,
                    access_before: before.1,
                    access_after: a.access,
                    resource: id,
                    offset: 0,
                    size: u64::MAX,
                });
                self.tracker.buffer_barrier(id, Scope { sync: a.sync, access: a.access });
            }
        }
    }

    fn push_texture(
        &mut self,
        id: ResourceId,
        sub: u32,
        (sync_before, access_before): (BarrierSync, BarrierAccess),
        (layout_before, layout_after): (BarrierLayout, BarrierLayout),
        a: Access,
    ) {
        self.semantics.textures.push(TextureBarrier {
            sync_before,
            sync_after: a.sync,
            access_before,
            access_after: a.access,
            layout_before,
            layout_after,
            resource: id,
            subresources: BarrierSubresourceRange::index(sub),
            flags: TextureBarrierFlags::empty(),
        });
    }

    /// Records the barriers gathered for one command (by [`CommandList::uses`] or
    /// [`CommandList::use_buffer_id`]) as one barrier call.
    pub(crate) fn flush_barriers(&mut self) {
        let s = &mut self.semantics;
        if s.textures.is_empty() && s.buffers.is_empty() {
            return;
        }
        let mut groups = Vec::with_capacity(2);
        s.costs.barriers_inserted += (s.textures.len() + s.buffers.len()) as u64;
        s.costs.barrier_groups += 1;
        if !s.buffers.is_empty() {
            groups.push(BarrierGroup::Buffer(std::mem::take(&mut s.buffers)));
        }
        if !s.textures.is_empty() {
            groups.push(BarrierGroup::Texture(std::mem::take(&mut s.textures)));
        }
        self.record(Command::Barrier(groups));
    }

    /// The app's barrier on subresources of a resource: hazards up to it are covered for what
    /// it names after.
    pub(crate) fn app_barrier(
        &mut self,
        id: ResourceId,
        subs: Option<&[u32]>,
        sync: BarrierSync,
        access: BarrierAccess,
    ) {
        if !self.tracks_hazards() {
            return;
        }
        self.semantics.targets_clean = false;
        match subs {
            None => self.semantics.hazards.sub(id, 0).barrier(sync, access),
            Some(subs) => subs.iter().for_each(|&s| self.semantics.hazards.sub(id, s).barrier(sync, access)),
        }
    }

    /// The app's global barrier.
    pub(crate) fn app_global_barrier(&mut self, sync: BarrierSync, access: BarrierAccess) {
        if self.tracks_hazards() {
            self.semantics.targets_clean = false;
            self.semantics.hazards.barrier_all(sync, access);
        }
    }

    /// Binds the output targets draws write: legacy lists move them into their layouts now.
    pub(crate) fn bind_targets(&mut self, api: &str, targets: Vec<BoundTarget>) {
        if self.tracks_uses() {
            self.use_targets(api, targets);
        }
    }

    /// A draw or bound clear writes the bound targets.
    pub(crate) fn draw_targets(&mut self, api: &str) {
        if self.tracks_uses() && !self.semantics.targets_clean {
            let targets = std::mem::take(&mut self.semantics.targets);
            self.use_targets(api, targets);
        }
    }

    /// Uses `targets` (one barrier call for all of them) and keeps them as the bound ones.
    fn use_targets(&mut self, api: &str, targets: Vec<BoundTarget>) {
        let uses: smallvec::SmallVec<[Use; 9]> = targets
            .iter()
            .map(|(resource, subs, access)| Use { resource, subs: Subs::List(subs), access: *access })
            .collect();
        let r = self.uses(api, &uses);
        drop(uses);
        self.semantics.targets = targets;
        if self.check(r) {
            self.semantics.targets_clean = true;
        }
    }

    /// Before a secondary buffer runs here: each resource it uses, used here as its first
    /// accesses there (legacy: the barriers and layouts those need; fast: the reports).
    pub(crate) fn absorb_bundle_uses(&mut self, api: &str, bundle: &CommandRecorder) {
        // A bundle recorded without hazard tracking has no uses to give: the loop finds none.
        if !self.tracks_hazards() {
            return;
        }
        let resources: Vec<Resource> =
            bundle.semantics.watched.iter().filter_map(Weak::upgrade).map(|shared| Resource { shared }).collect();
        let mut by_handle: Vec<(&Resource, u32, Access)> = Vec::new();
        for (id, subs) in bundle.semantics.hazards.iter() {
            let res = resources.iter().find(|r| r.id() == id);
            for (s, state) in subs.iter().enumerate() {
                let Some(first) = state.first_access() else { continue };
                match res {
                    Some(res) => by_handle.push((res, s as u32, first)),
                    None => self.use_buffer_id(api, id, first),
                }
            }
        }
        let uses: Vec<Use> = by_handle.iter().map(|&(r, s, a)| Use::one(r, s, a)).collect();
        // One barrier call for all of them (`uses` records what `use_buffer_id` gathered too).
        let r = self.uses(api, &uses);
        self.check(r);
    }

    /// The costs of this list's tracking so far.
    pub(crate) fn tracking_costs(&self) -> TrackingCosts {
        self.semantics.costs()
    }
}

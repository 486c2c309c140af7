//! Per-subresource layouts of one list, and the submission's check of them (the debug layer).
//!
//! A command list knows the layouts its own barriers set. Where it touches a subresource
//! before any barrier of its own, it records what it expects (the barrier's `LayoutBefore`, or
//! an access the layout must allow); the submission checks those expectations against the
//! layouts the earlier submissions left, then applies the list's final layouts.

use super::{Texture, Tracker};
use crate::err;
use asyncmd_ddi::ResourceId;
use asyncmd_types::{BarrierAccess, BarrierLayout, CommandListType, MessageId, Result};
use rustc_hash::FxHashMap as HashMap;

/// What a list needs of a subresource's layout at its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FirstUse {
    /// A barrier names this `LayoutBefore`.
    Layout(BarrierLayout),
    /// The list accesses it this way before any barrier.
    Access(BarrierAccess),
}

struct Entry<W> {
    texture: W,
    // Most textures a list names have one subresource: inline, no allocation for them.
    known: smallvec::SmallVec<[Option<BarrierLayout>; 2]>,
    first: smallvec::SmallVec<[Option<FirstUse>; 2]>,
}

/// Layouts one command list sets and expects, per subresource.
pub(crate) struct Layouts<T: Texture> {
    entries: HashMap<ResourceId, Entry<T::Weak>>,
}

impl<T: Texture> Default for Layouts<T> {
    fn default() -> Self {
        Self { entries: HashMap::default() }
    }
}

/// Whether a subresource in `layout` may be accessed with `access` on a list of type `ty`.
pub(crate) fn layout_permits(layout: BarrierLayout, access: BarrierAccess, ty: CommandListType) -> bool {
    layout.legal_on(ty) && layout.allows(access)
}

impl<T: Texture> Layouts<T> {
    /// The tracked state of `res`, after checking that every index in `subs` names one of its
    /// subresources (callers validate first; this keeps a missed check an error, not a panic).
    fn entry(&mut self, res: &T, subs: &[u32], api: &str) -> Result<Option<&mut Entry<T::Weak>>> {
        let n = res.tracked_subresources();
        if n == 0 {
            return Ok(None);
        }
        if let Some(&bad) = subs.iter().find(|&&s| s as usize >= n) {
            return Err(err::invalid(
                MessageId::InvalidSubresourceIndex,
                api,
                format!("subresource {bad} is out of range (the resource has {n})"),
            ));
        }
        Ok(Some(self.entries.entry(res.id()).or_insert_with(|| Entry {
            texture: res.downgrade(),
            known: smallvec::smallvec![None; n],
            first: smallvec::smallvec![None; n],
        })))
    }

    /// The layout the list's own barriers left a subresource in, if they set one.
    pub(crate) fn known(&self, res: ResourceId, sub: u32) -> Option<BarrierLayout> {
        self.entries.get(&res)?.known.get(sub as usize).copied().flatten()
    }

    /// A texture barrier from `before` to `after` on subresources `subs`. Errors name what the
    /// list knows of the layout.
    pub(crate) fn transition(
        &mut self,
        res: &T,
        subs: &[u32],
        before: BarrierLayout,
        after: BarrierLayout,
    ) -> Result<()> {
        let Some(t) = self.entry(res, subs, "Barrier")? else { return Ok(()) };
        for &s in subs {
            let s = s as usize;
            match t.known.get(s).copied().flatten() {
                Some(k) if before != BarrierLayout::Undefined && k != before => {
                    return Err(err::invalid(
                        MessageId::IncompatibleBarrierLayout,
                        "Barrier",
                        format!("LayoutBefore {before:?} does not match subresource {s}'s layout {k:?}"),
                    ));
                }
                Some(_) => {}
                None => {
                    if before != BarrierLayout::Undefined && t.first[s].is_none() {
                        t.first[s] = Some(FirstUse::Layout(before));
                    }
                }
            }
            t.known[s] = Some(after);
        }
        Ok(())
    }

    /// Forgets everything (list reset).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// Legacy semantics: the list's first use of a subresource fixes the layout it is in at
    /// the list's start; the submission moves it there first.
    fn assume(&mut self, res: &T, sub: u32, layout: BarrierLayout, api: &str) -> Result<()> {
        let Some(t) = self.entry(res, &[sub], api)? else { return Ok(()) };
        let s = sub as usize;
        if t.known[s].is_none() {
            t.known[s] = Some(layout);
            t.first[s] = Some(FirstUse::Layout(layout));
        }
        Ok(())
    }

    /// Every resource the list touched with its subresources' layouts: what a submission's
    /// prefix reads.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (ResourceId, &T::Weak, Vec<SubLayout>)> {
        self.entries.iter().map(|(id, t)| {
            let subs = t
                .first
                .iter()
                .zip(&t.known)
                .enumerate()
                .map(|(index, (f, k))| SubLayout {
                    index,
                    first: match f {
                        Some(FirstUse::Layout(l)) => Some(*l),
                        _ => None,
                    },
                    known: *k,
                })
                .collect();
            (*id, &t.texture, subs)
        })
    }
}

/// One subresource's layouts in a list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubLayout {
    pub(crate) index: usize,
    /// The layout the list's first barrier or use expects it in.
    pub(crate) first: Option<BarrierLayout>,
    /// The layout the list leaves it in.
    pub(crate) known: Option<BarrierLayout>,
}

/// The layout changes a submission makes, checked and ready to apply.
pub(crate) type LayoutUpdates<T> = Vec<(T, Vec<(usize, BarrierLayout)>)>;

/// Checks the lists of one submission in order against the current layouts.
pub(crate) fn check_submission<'a, T: Texture + Clone + 'a>(
    lists: impl Iterator<Item = (CommandListType, &'a Layouts<T>)>,
    queue: CommandListType,
) -> Result<LayoutUpdates<T>> {
    let mut pending: HashMap<ResourceId, (T, Vec<BarrierLayout>)> = HashMap::default();
    for (index, (ty, tracker)) in lists.enumerate() {
        for (id, t) in &tracker.entries {
            let Some(res) = T::upgrade(&t.texture) else {
                return Err(err::invalid(
                    MessageId::ExecuteCommandListsInvalid,
                    "ExecuteCommandLists",
                    format!("list {index} uses a resource that was destroyed"),
                ));
            };
            let entry = pending.entry(*id).or_insert_with(|| {
                let current = res.current_layouts().clone();
                (res.clone(), current)
            });
            for (s, first) in t.first.iter().enumerate() {
                let Some(current) = entry.1.get(s).copied() else { continue };
                match first {
                    Some(FirstUse::Layout(l)) if *l != current => {
                        return Err(err::invalid(
                            MessageId::IncompatibleBarrierLayout,
                            "ExecuteCommandLists",
                            format!(
                                "list {index} has a barrier from {l:?} on subresource {s}, \
                                 which is in {current:?}"
                            ),
                        ));
                    }
                    Some(FirstUse::Access(a)) if !layout_permits(current, *a, ty) => {
                        return Err(err::invalid(
                            MessageId::InvalidSubresourceLayout,
                            "ExecuteCommandLists",
                            format!(
                                "list {index} accesses subresource {s} as {a:?} on a {} queue, \
                                 but it is in {current:?}",
                                queue.name()
                            ),
                        ));
                    }
                    _ => {}
                }
            }
            for (s, k) in t.known.iter().enumerate() {
                if let (Some(k), Some(slot)) = (k, entry.1.get_mut(s)) {
                    *slot = *k;
                }
            }
        }
    }
    Ok(pending.into_values().map(|(res, layouts)| (res, layouts.into_iter().enumerate().collect())).collect())
}

/// Applies checked layout changes.
pub(crate) fn apply<T: Texture>(updates: LayoutUpdates<T>) {
    for (res, layouts) in updates {
        let mut cur = res.current_layouts();
        for (s, l) in layouts {
            if let Some(slot) = cur.get_mut(s) {
                *slot = l;
            }
        }
    }
}

impl<T: Texture> Tracker<T> {
    /// Legacy semantics: fixes the layout a subresource is in at the list's start (its first
    /// use in the list).
    pub(crate) fn assume_layout(&mut self, res: &T, sub: u32, layout: BarrierLayout, api: &str) -> Result<()> {
        self.layouts.assume(res, sub, layout, api)
    }

    /// An access to subresources `subs` by command `api` on a list of type `ty`, checked
    /// against the layouts the list knows.
    pub(crate) fn access(
        &mut self,
        res: &T,
        subs: &[u32],
        access: BarrierAccess,
        ty: CommandListType,
        api: &str,
    ) -> Result<()> {
        let Some(t) = self.layouts.entry(res, subs, api)? else { return Ok(()) };
        for &s in subs {
            let s = s as usize;
            match t.known.get(s).copied().flatten() {
                Some(k) if !layout_permits(k, access, ty) => {
                    return Err(err::invalid(
                        MessageId::InvalidSubresourceLayout,
                        api,
                        format!(
                            "subresource {s} is in layout {k:?}, which does not allow {access:?} on a {} list",
                            ty.name()
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    if t.first[s].is_none() {
                        t.first[s] = Some(FirstUse::Access(access));
                    }
                }
            }
        }
        Ok(())
    }
}

//! What a submission of legacy lists needs before each list (as wgpu resolves a command
//! buffer's first uses at submit): the layout each texture's first use in the list assumed,
//! from the layout the queue's earlier work left; and one global barrier where the list's first
//! accesses race with what an earlier list of the same submission did. Between submissions
//! the queue orders everything itself, so the first list of a submission needs layouts only.

use super::hazards::{Hazards, SubState};
use super::layouts::Layouts;
use super::Texture;
use asyncmd_ddi::ResourceId;
use asyncmd_types::{BarrierAccess, BarrierLayout, BarrierSync, GlobalBarrier};
use smallvec::SmallVec;
use std::collections::HashMap;

/// The barriers one list needs before it.
pub(crate) struct Prefix<T> {
    /// Layout changes: the texture, the subresource, from, to.
    pub(crate) layouts: Vec<(T, u32, BarrierLayout, BarrierLayout)>,
    /// A barrier ordering the list's first accesses after the earlier lists'.
    pub(crate) global: Option<GlobalBarrier>,
}

impl<T> Default for Prefix<T> {
    fn default() -> Self {
        Self { layouts: Vec::new(), global: None }
    }
}

impl<T> Prefix<T> {
    /// Whether the list needs nothing first.
    pub(crate) fn is_empty(&self) -> bool {
        self.layouts.is_empty() && self.global.is_none()
    }
}

/// The prefixes of a submission's lists, in order.
pub(crate) type Prefixes<T> = SmallVec<[Prefix<T>; 4]>;

/// The prefix of each list of a submission, in order, from each list's layouts and hazard
/// state.
pub(crate) fn plan<T: Texture + Clone>(lists: &[(&Layouts<T>, &Hazards)]) -> Prefixes<T> {
    let mut layouts: HashMap<ResourceId, Vec<BarrierLayout>> = HashMap::new();
    let mut states: HashMap<ResourceId, SmallVec<[SubState; 1]>> = HashMap::new();
    let mut out = Prefixes::new();
    let several = lists.len() > 1;
    for &(list_layouts, hazards) in lists {
        let mut prefix = Prefix::default();
        for (id, weak, subs) in list_layouts.entries() {
            // A destroyed resource fails the submission's own check.
            let Some(texture) = T::upgrade(weak) else { continue };
            let current = layouts.entry(id).or_insert_with(|| texture.current_layouts().clone());
            for sub in subs {
                let Some(slot) = current.get_mut(sub.index) else { continue };
                if let Some(f) = sub.first {
                    if *slot != f {
                        prefix.layouts.push((texture.clone(), sub.index as u32, *slot, f));
                    }
                    *slot = f;
                }
                if let Some(k) = sub.known {
                    *slot = k;
                }
            }
        }
        // One list is ordered after the queue's earlier work by the queue itself.
        for (id, subs) in hazards.iter().filter(|_| several) {
            let earlier = states.entry(id).or_default();
            if earlier.len() < subs.len() {
                earlier.resize(subs.len(), SubState::default());
            }
            for (later, before) in subs.iter().zip(earlier.iter_mut()) {
                let (need, joined) = later.after(before);
                if let (Some(n), Some((sync, access))) = (need, later.first_scope()) {
                    let g = prefix.global.get_or_insert(GlobalBarrier {
                        sync_before: BarrierSync::empty(),
                        sync_after: BarrierSync::empty(),
                        access_before: BarrierAccess::NO_ACCESS,
                        access_after: BarrierAccess::empty(),
                    });
                    g.sync_before |= n.sync_before;
                    if n.access_before != BarrierAccess::NO_ACCESS {
                        g.access_before = (g.access_before - BarrierAccess::NO_ACCESS) | n.access_before;
                    }
                    g.sync_after |= sync;
                    g.access_after |= access;
                }
                *before = joined;
            }
        }
        out.push(prefix);
    }
    out
}

//! Lane compaction in divergent loops: when most lanes of a batch have left a loop, the rest
//! of it runs on a batch of the lanes still in it, and their state goes back after.
//!
//! A loop runs until its slowest lane is done, each operation over every lane of the batch: in
//! a kernel whose lanes leave a loop at very different times (Mandelbrot's escape counts), the
//! last iterations would pay for 1024 lanes to move a few. Only kernels whose lanes share
//! nothing (no workgroup memory, no barrier) compact, so no lane waits on another; lanes keep
//! their order, so atomics still apply in lane order.

use super::engine::{Engine, Frame, Local, Target};
use super::value::{count_lanes, zeroed, Offsets, Ptr, Slot, Val};
use super::Hung;
use std::rc::Rc;

/// Lanes at or above which a loop may compact.
const MIN_LANES: usize = 64;
/// A loop compacts once at most one lane in this many is still in it.
const SPARSE: usize = 4;

/// Components `c` of lanes `keep` of structure-of-arrays `data` over `n` lanes.
fn pick(data: &[u32], n: usize, keep: &[usize]) -> Vec<u32> {
    let comps = data.len().checked_div(n).unwrap_or(0);
    let mut out = Vec::with_capacity(comps * keep.len());
    for c in 0..comps {
        out.extend(keep.iter().map(|&l| data[c * n + l]));
    }
    out
}

/// Writes lanes `keep` of `src` (over `keep.len()` lanes) back into `dst` (over `n` lanes).
fn put(dst: &mut [u32], n: usize, src: &[u32], keep: &[usize]) {
    let m = keep.len();
    let comps = src.len().checked_div(m).unwrap_or(0);
    for c in 0..comps {
        for (j, &l) in keep.iter().enumerate() {
            if let Some(d) = dst.get_mut(c * n + l) {
                *d = src[c * m + j];
            }
        }
    }
}

fn pick_val(v: &Val, n: usize, keep: &[usize]) -> Val {
    if v.uniform {
        return v.clone();
    }
    Val::varying(v.comps, pick(&v.data, n, keep))
}

fn pick_slot(s: &Slot, n: usize, keep: &[usize]) -> Slot {
    match s {
        Slot::Val(v) => Slot::Val(Rc::new(pick_val(v, n, keep))),
        Slot::Ptr(p) => Slot::Ptr(Rc::new(Ptr {
            region: p.region,
            offsets: match &p.offsets {
                Offsets::Uniform(o) => Offsets::Uniform(*o),
                o => Offsets::Varying(keep.iter().map(|&l| o.get(l)).collect()),
            },
        })),
    }
}

impl Engine<'_, '_, '_> {
    /// Whether the loop now running in `fr` should go on with its active lanes alone: the
    /// kernel shares nothing and few enough lanes are left. Their indices.
    pub(crate) fn compaction(&self, fr: &Frame) -> Option<Vec<usize>> {
        if !self.p.shares_nothing || self.n < MIN_LANES {
            return None;
        }
        // Counted first (a pass that vectorises), listed only when the loop compacts.
        if count_lanes(&fr.active) * SPARSE > self.n {
            return None;
        }
        Some(fr.active.iter().enumerate().filter(|(_, &a)| a).map(|(l, _)| l).collect())
    }

    /// Runs the rest of the loop at the top of `fr`'s targets for lanes `keep` alone, then puts
    /// their variables, returns and exits back: the loop is then done for every lane.
    pub(crate) fn finish_compacted(
        &mut self,
        fr: &mut Frame,
        keep: &[usize],
        body: &naga::Block,
        continuing: &naga::Block,
        break_if: Option<naga::Handle<naga::Expression>>,
    ) -> Result<(), Hung> {
        let n = self.n;
        let m = keep.len();
        // The lanes kept take their own copies of every local, and give them back after.
        fr.locals.iter_mut().for_each(|l| l.spread(n));
        let mut inner = Engine {
            p: self.p,
            mem: self.mem,
            workgroup: vec![Vec::new(); self.workgroup.len()],
            private: self.private.iter().map(|w| pick(w, n, keep)).collect(),
            batch: self.batch,
            n: m,
            deadline: self.deadline,
        };
        let mut sub = Frame {
            fun: fr.fun,
            info: fr.info,
            vals: fr.vals.iter().map(|v| v.as_ref().map(|s| pick_slot(s, n, keep))).collect(),
            args: fr.args.iter().map(|s| pick_slot(s, n, keep)).collect(),
            locals: fr.locals.iter().map(|l| Local { words: pick(&l.words, n, keep), uniform: false }).collect(),
            leaves: std::mem::take(&mut fr.leaves),
            active: vec![true; m],
            returned: vec![false; m],
            ret: None,
            targets: vec![Target::Loop { broken: vec![false; m], continued: vec![false; m] }],
        };
        let result = inner.run_loop(&mut sub, body, continuing, break_if);
        fr.leaves = std::mem::take(&mut sub.leaves);
        // What the lanes did, whether or not they finished in time.
        for (w, s) in self.private.iter_mut().zip(&inner.private) {
            put(w, n, s, keep);
        }
        for (l, s) in fr.locals.iter_mut().zip(&mut sub.locals) {
            s.spread(m);
            put(&mut l.words, n, &s.words, keep);
        }
        for (j, &l) in keep.iter().enumerate() {
            if sub.returned[j] {
                fr.returned[l] = true;
            }
        }
        if let Some(r) = &sub.ret {
            let comps = r.comps;
            let ret = fr.ret.get_or_insert_with(|| Val::varying(comps, zeroed(comps * n)));
            for (j, &l) in keep.iter().enumerate() {
                if sub.returned[j] {
                    for c in 0..comps.min(ret.comps) {
                        ret.data[c * n + l] = r.get(c, j, m);
                    }
                }
            }
        }
        if let (Some(Target::Loop { broken: all, .. }), Some(Target::Loop { broken, .. })) =
            (fr.targets.last_mut(), sub.targets.last())
        {
            for (j, &l) in keep.iter().enumerate() {
                all[l] |= broken[j];
            }
        }
        fr.active.iter_mut().for_each(|a| *a = false);
        result
    }
}

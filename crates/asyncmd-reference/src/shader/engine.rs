//! Runs one batch of lanes (a workgroup, or lanes of several groups when the kernel shares
//! nothing between its threads) through naga's structured control flow: every statement runs
//! once for all lanes under an execution mask, so a barrier is a point every lane reaches
//! together. A branch on a uniform condition runs one side for the whole batch.

use super::layout::{Kind, Leaf};
use super::memory::{load_words, store_words, Atomics, Memory};
use super::value::{all_lanes, any_lane as any, zeroed, Offsets, Ptr, Region, Slot, Val, OUT};
use super::Program;
use naga::{Handle, Statement as S, TypeInner};
use std::rc::Rc;
use std::time::Instant;

/// The kernel ran past its time budget.
#[derive(Debug)]
pub(crate) struct Hung;

/// A batch: `lanes` consecutive threads of the dispatch from thread `first` (threads counted
/// group by group, x fastest), whose ids are worked out when the kernel asks for them.
pub(crate) struct Batch {
    pub(crate) lanes: usize,
    pub(crate) first: u64,
    pub(crate) num_groups: [u32; 3],
    pub(crate) group_size: [u32; 3],
}

/// Which of a thread's ids.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ids {
    Global,
    Local,
    Group,
    LocalIndex,
}

impl Batch {
    /// The ids of every lane: three components, or one for the local index; uniform where
    /// every lane has the same (a group's id in a batch of one group).
    fn ids(&self, which: Ids) -> Val {
        let [wx, wy, wz] = self.group_size.map(|v| v.max(1) as u64);
        let threads = wx * wy * wz;
        let n = self.lanes;
        let last = self.first + n as u64 - 1;
        if which == Ids::Group && self.first / threads == last / threads {
            return Val::uniform(self.group(self.first / threads).to_vec());
        }
        let comps = if which == Ids::LocalIndex { 1 } else { 3 };
        let size = self.group_size.map(|v| v.max(1));
        // One output slice a component, filled a run of lanes at a time: a run is a row of a
        // group (local x counting up, the rest fixed), so each is a range or a constant.
        let mut data = zeroed(comps * n);
        let (mut g, t) = (self.first / threads, self.first % threads);
        let (mut x, mut y, mut z) = ((t % wx) as u32, (t / wx % wy) as u32, (t / (wx * wy)) as u32);
        let mut l = 0;
        while l < n {
            let group = self.group(g);
            let run = ((size[0] - x) as usize).min(n - l);
            let row = [x, y, z];
            let index = (z * size[1] + y) * size[0] + x;
            for c in 0..comps {
                let out = &mut data[c * n + l..c * n + l + run];
                let start = match which {
                    Ids::LocalIndex => index,
                    Ids::Local => row[c],
                    Ids::Group => group[c],
                    Ids::Global => group[c].wrapping_mul(size[c]).wrapping_add(row[c]),
                };
                if c == 0 && which != Ids::Group {
                    out.iter_mut().zip(0u32..).for_each(|(o, k)| *o = start.wrapping_add(k));
                } else {
                    out.fill(start);
                }
            }
            l += run;
            x = 0;
            y += 1;
            if y == size[1] {
                y = 0;
                z += 1;
                if z == size[2] {
                    z = 0;
                    g += 1;
                }
            }
        }
        Val::varying(comps, data)
    }

    /// Group `g`'s id, groups counted x fastest.
    fn group(&self, g: u64) -> [u32; 3] {
        let [x, y, _] = self.num_groups.map(|v| u64::from(v.max(1)));
        [(g % x) as u32, (g / x % y) as u32, (g / (x * y)) as u32]
    }
}

pub(crate) enum Target {
    Loop { broken: Vec<bool>, continued: Vec<bool> },
    Switch { broken: Vec<bool> },
}

/// A local variable's components: once for all lanes while every lane holds the same (a loop
/// counter, a sum's start), so that what reads it is uniform too; else structure-of-arrays
/// (component `c` of lane `l` at `c * n + l`). A store that could make the lanes differ gives
/// each lane its copy first, for good.
#[derive(Default)]
pub(crate) struct Local {
    pub(crate) words: Vec<u32>,
    pub(crate) uniform: bool,
}

impl Local {
    /// Gives each of `n` lanes its own copy.
    pub(crate) fn spread(&mut self, n: usize) {
        if !self.uniform {
            return;
        }
        let mut words = Vec::with_capacity(self.words.len() * n);
        for &c in &self.words {
            words.extend(std::iter::repeat_n(c, n));
        }
        self.words = words;
        self.uniform = false;
    }
}

/// Hands `callee` its arguments. A pointer to one of the caller's locals (WGSL's
/// `ptr<function, T>`, passed by reference) makes the variable the callee's for the call: moved
/// to the end of its locals, the pointer rewritten to it, once however many arguments point
/// into it. Returns (caller's local, callee's) for each, to move back after the call.
fn lend_locals(caller: &mut Frame, callee: &mut Frame, mut args: Vec<Slot>) -> Vec<(usize, usize)> {
    let mut lent: Vec<(usize, usize)> = Vec::new();
    for arg in &mut args {
        let Slot::Ptr(p) = arg else { continue };
        let Region::Local(mine) = p.region else { continue };
        let theirs = match lent.iter().find(|(m, _)| *m == mine) {
            Some(&(_, t)) => t,
            None => {
                let Some(local) = caller.locals.get_mut(mine) else { continue };
                callee.locals.push(std::mem::take(local));
                lent.push((mine, callee.locals.len() - 1));
                callee.locals.len() - 1
            }
        };
        *arg = Slot::ptr(Ptr { region: Region::Local(theirs), offsets: p.offsets.clone() });
    }
    callee.args = args;
    lent
}

/// One call of a function: its values, locals and masks.
pub(crate) struct Frame<'f> {
    pub(crate) fun: &'f naga::Function,
    pub(crate) info: &'f naga::valid::FunctionInfo,
    pub(crate) vals: Vec<Option<Slot>>,
    pub(crate) args: Vec<Slot>,
    /// Each local's components.
    pub(crate) locals: Vec<Local>,
    /// What each pointer expression points at, once looked up.
    pub(crate) leaves: Vec<Option<Rc<[Leaf]>>>,
    pub(crate) active: Vec<bool>,
    pub(crate) returned: Vec<bool>,
    pub(crate) ret: Option<Val>,
    pub(crate) targets: Vec<Target>,
}

/// The engine for one batch.
pub(crate) struct Engine<'p, 'e, 'm> {
    pub(crate) p: &'p Program,
    pub(crate) mem: &'e Memory<'m>,
    /// Workgroup variables' components, shared by the batch's lanes.
    pub(crate) workgroup: Vec<Vec<u32>>,
    /// Private variables' components, structure-of-arrays as locals.
    pub(crate) private: Vec<Vec<u32>>,
    pub(crate) batch: &'p Batch,
    pub(crate) n: usize,
    pub(crate) deadline: Instant,
}

/// Lanes of `mask` where the condition is (`want`) true; a uniform condition keeps or clears all.
fn masked(mask: &[bool], cond: &Val, want: bool) -> Vec<bool> {
    if cond.uniform {
        return if (cond.data[0] != 0) == want { mask.to_vec() } else { vec![false; mask.len()] };
    }
    // `&` rather than `&&`: no branch, so the loop vectorises.
    mask.iter().zip(&cond.data).map(|(&a, &c)| a & ((c != 0) == want)).collect()
}

impl<'p, 'e, 'm> Engine<'p, 'e, 'm> {
    pub(crate) fn new(p: &'p Program, mem: &'e Memory<'m>, batch: &'p Batch, deadline: Instant) -> Self {
        let n = batch.lanes;
        let (module, _) = p.module.naga();
        let mut workgroup = Vec::new();
        let mut private = Vec::new();
        for (_, g) in module.global_variables.iter() {
            let comps = p.layouts.of(g.ty).map_or(0, |l| l.leaves.len());
            // Workgroup memory is zeroed at the group's start, as WGSL asks.
            workgroup.push(if g.space == naga::AddressSpace::WorkGroup { vec![0; comps] } else { Vec::new() });
            let mut words = Vec::new();
            if g.space == naga::AddressSpace::Private {
                words = vec![0; comps * n];
                if let Some(init) = g.init {
                    for (c, v) in p.global_value(init).into_iter().enumerate().take(comps) {
                        words[c * n..(c + 1) * n].fill(v);
                    }
                }
            }
            private.push(words);
        }
        Self { p, mem, workgroup, private, batch, n, deadline }
    }

    /// Runs the entry point for every lane.
    pub(crate) fn run(&mut self) -> Result<(), Hung> {
        let (module, info) = self.p.module.naga();
        let ep = &module.entry_points[self.p.entry];
        let args = ep.function.arguments.iter().map(|a| Slot::val(self.builtin_arg(module, a))).collect();
        let mut frame = self.frame(&ep.function, info.get_entry_point(self.p.entry), args);
        self.block(&mut frame, &ep.function.body)
    }

    fn builtin_value(&self, b: &naga::Binding) -> Val {
        let bt = self.batch;
        match b {
            naga::Binding::BuiltIn(naga::BuiltIn::GlobalInvocationId) => bt.ids(Ids::Global),
            naga::Binding::BuiltIn(naga::BuiltIn::LocalInvocationId) => bt.ids(Ids::Local),
            naga::Binding::BuiltIn(naga::BuiltIn::WorkGroupId) => bt.ids(Ids::Group),
            naga::Binding::BuiltIn(naga::BuiltIn::LocalInvocationIndex) => bt.ids(Ids::LocalIndex),
            naga::Binding::BuiltIn(naga::BuiltIn::NumWorkGroups) => Val::uniform(bt.num_groups.to_vec()),
            _ => Val::zeros(1),
        }
    }

    fn builtin_arg(&self, module: &naga::Module, a: &naga::FunctionArgument) -> Val {
        if let Some(b) = &a.binding {
            return self.builtin_value(b);
        }
        // A struct of built-ins: its members in order.
        let mut parts = Vec::new();
        if let TypeInner::Struct { members, .. } = &module.types[a.ty].inner {
            for m in members {
                parts.push(m.binding.as_ref().map(|b| self.builtin_value(b)).unwrap_or_else(|| Val::zeros(1)));
            }
        }
        Val::concat(parts.iter(), self.n)
    }

    fn frame<'f>(&self, fun: &'f naga::Function, info: &'f naga::valid::FunctionInfo, args: Vec<Slot>) -> Frame<'f> {
        let n = self.n;
        // naga hoists only constant initializers into `init` (one inside a loop becomes a store
        // there), so every lane starts with it.
        let locals = fun
            .local_variables
            .iter()
            .map(|(_, v)| {
                let comps = self.p.layouts.of(v.ty).map_or(0, |l| l.leaves.len());
                let mut words = vec![0; comps];
                if let Some(init) = v.init {
                    for (w, x) in words.iter_mut().zip(self.p.expression_value(&fun.expressions, init)) {
                        *w = x;
                    }
                }
                Local { words, uniform: true }
            })
            .collect();
        Frame {
            fun,
            info,
            vals: vec![None; fun.expressions.len()],
            args,
            locals,
            leaves: vec![None; fun.expressions.len()],
            active: vec![true; n],
            returned: vec![false; n],
            ret: None,
            targets: Vec::new(),
        }
    }

    /// Iterations of the loop at the top of `fr`'s targets until no lane is left in it.
    pub(crate) fn run_loop(
        &mut self,
        fr: &mut Frame,
        body: &naga::Block,
        continuing: &naga::Block,
        break_if: Option<Handle<naga::Expression>>,
    ) -> Result<(), Hung> {
        let n = self.n;
        loop {
            if Instant::now() > self.deadline {
                return Err(Hung);
            }
            self.block(fr, body)?;
            if let Some(Target::Loop { continued, .. }) = fr.targets.last_mut() {
                if any(continued) {
                    for (a, c) in fr.active.iter_mut().zip(continued.iter_mut()) {
                        *a |= std::mem::take(c);
                    }
                }
            }
            self.block(fr, continuing)?;
            if let Some(b) = break_if {
                if any(&fr.active) {
                    let c = self.val(fr, b);
                    let leaving = masked(&fr.active, &c, true);
                    if let Some(Target::Loop { broken, .. }) = fr.targets.last_mut() {
                        for l in 0..n {
                            if leaving[l] {
                                broken[l] = true;
                                fr.active[l] = false;
                            }
                        }
                    }
                }
            }
            if !any(&fr.active) {
                return Ok(());
            }
            if let Some(keep) = self.compaction(fr) {
                return self.finish_compacted(fr, &keep, body, continuing, break_if);
            }
        }
    }

    fn block(&mut self, fr: &mut Frame, block: &naga::Block) -> Result<(), Hung> {
        if !any(&fr.active) {
            return Ok(());
        }
        for stmt in block.iter() {
            self.statement(fr, stmt)?;
            // Only control flow takes lanes out: the mask is looked at again after it alone.
            let masks = matches!(
                stmt,
                S::Break
                    | S::Continue
                    | S::Return { .. }
                    | S::If { .. }
                    | S::Switch { .. }
                    | S::Loop { .. }
                    | S::Call { .. }
                    | S::Block(_)
            );
            if masks && !any(&fr.active) {
                break;
            }
        }
        Ok(())
    }

    fn statement(&mut self, fr: &mut Frame, stmt: &S) -> Result<(), Hung> {
        let n = self.n;
        match stmt {
            S::Emit(range) => {
                for h in range.clone() {
                    let v = self.eval(fr, h);
                    fr.vals[h.index()] = Some(v);
                }
            }
            S::Block(b) => self.block(fr, b)?,
            S::If { condition, accept, reject } => {
                let cond = self.val(fr, *condition);
                if cond.uniform {
                    let side = if cond.data[0] != 0 { accept } else { reject };
                    return self.block(fr, side);
                }
                let taken = masked(&fr.active, &cond, true);
                // Every active lane on one side (the common case of a varying condition): that
                // side alone, under the mask as it is.
                if taken == fr.active {
                    return self.block(fr, accept);
                }
                if !any(&taken) {
                    return self.block(fr, reject);
                }
                let saved = std::mem::replace(&mut fr.active, taken);
                self.block(fr, accept)?;
                let after_accept = std::mem::replace(&mut fr.active, masked(&saved, &cond, false));
                self.block(fr, reject)?;
                for (a, t) in fr.active.iter_mut().zip(after_accept) {
                    *a |= t;
                }
            }
            S::Switch { selector, cases } => self.switch(fr, *selector, cases)?,
            S::Loop { body, continuing, break_if } => {
                fr.targets.push(Target::Loop { broken: vec![false; n], continued: vec![false; n] });
                self.run_loop(fr, body, continuing, *break_if)?;
                let Some(Target::Loop { broken, .. }) = fr.targets.pop() else { unreachable!("pushed above") };
                fr.active = broken;
            }
            S::Break => {
                let active = std::mem::replace(&mut fr.active, vec![false; n]);
                if let Some(Target::Loop { broken, .. } | Target::Switch { broken }) = fr.targets.last_mut() {
                    broken.iter_mut().zip(active).for_each(|(b, a)| *b |= a);
                }
            }
            S::Continue => {
                let active = std::mem::replace(&mut fr.active, vec![false; n]);
                if let Some(Target::Loop { continued, .. }) =
                    fr.targets.iter_mut().rev().find(|t| matches!(t, Target::Loop { .. }))
                {
                    continued.iter_mut().zip(active).for_each(|(c, a)| *c |= a);
                }
            }
            S::Return { value } => {
                if let Some(v) = value {
                    let v = self.val(fr, *v);
                    let ret = fr.ret.get_or_insert_with(|| Val::varying(v.comps, zeroed(v.comps * n)));
                    for c in 0..v.comps {
                        for l in 0..n {
                            if fr.active[l] {
                                ret.data[c * n + l] = v.get(c, l, n);
                            }
                        }
                    }
                }
                for (r, a) in fr.returned.iter_mut().zip(&mut fr.active) {
                    *r |= std::mem::take(a);
                }
            }
            S::ControlBarrier(_) | S::MemoryBarrier(_) => {}
            S::Store { pointer, value } => {
                let ptr = self.ptr(fr, *pointer);
                let v = self.val(fr, *value);
                let leaves = self.pointee_leaves(fr, *pointer);
                self.store(fr, &ptr, &leaves, &v);
            }
            S::WorkGroupUniformLoad { pointer, result } => {
                let ptr = self.ptr(fr, *pointer);
                let leaves = self.pointee_leaves(fr, *pointer);
                let v = self.load(fr, &ptr, &leaves);
                fr.vals[result.index()] = Some(Slot::val(v));
            }
            S::Atomic { pointer, fun, value, result } => self.atomic(fr, *pointer, fun, *value, *result),
            &S::ImageStore { image, coordinate, array_index, value } => {
                self.per_element(fr, &[image], |e, fr| {
                    e.image_store(fr, image, coordinate, array_index, value);
                    Val::zeros(1)
                });
            }
            S::Call { function, arguments, result } => {
                let (module, info) = self.p.module.naga();
                let args: Vec<Slot> = arguments.iter().map(|a| self.slot(fr, *a)).collect();
                let fun = &module.functions[*function];
                let mut callee = self.frame(fun, &info[*function], Vec::new());
                let lent = lend_locals(fr, &mut callee, args);
                callee.active = fr.active.clone();
                let ran = self.block(&mut callee, &fun.body);
                for (mine, theirs) in lent {
                    fr.locals[mine] = std::mem::take(&mut callee.locals[theirs]);
                }
                ran?;
                if let Some(r) = result {
                    let comps = callee.ret.as_ref().map_or(0, |v| v.comps);
                    fr.vals[r.index()] = Some(Slot::val(callee.ret.unwrap_or_else(|| Val::zeros(comps))));
                }
            }
            // Refused when the pipeline was made (`Program::compile`).
            _ => {}
        }
        Ok(())
    }

    fn switch(
        &mut self,
        fr: &mut Frame,
        selector: Handle<naga::Expression>,
        cases: &[naga::SwitchCase],
    ) -> Result<(), Hung> {
        let n = self.n;
        let sel = self.val(fr, selector);
        let saved = fr.active.clone();
        let listed: Vec<u32> = cases
            .iter()
            .filter_map(|c| match c.value {
                naga::SwitchValue::I32(v) => Some(v as u32),
                naga::SwitchValue::U32(v) => Some(v),
                naga::SwitchValue::Default => None,
            })
            .collect();
        fr.targets.push(Target::Switch { broken: vec![false; n] });
        let mut after = vec![false; n];
        let mut carried = vec![false; n];
        for case in cases {
            let matches = |l: usize| {
                let s = sel.get(0, l, n);
                match case.value {
                    naga::SwitchValue::I32(v) => s == v as u32,
                    naga::SwitchValue::U32(v) => s == v,
                    naga::SwitchValue::Default => !listed.contains(&s),
                }
            };
            fr.active = (0..n).map(|l| carried[l] || (saved[l] && matches(l))).collect();
            self.block(fr, &case.body)?;
            if case.fall_through {
                carried = std::mem::take(&mut fr.active);
            } else {
                for (a, x) in after.iter_mut().zip(&fr.active) {
                    *a |= x;
                }
                carried = vec![false; n];
            }
        }
        let Some(Target::Switch { broken }) = fr.targets.pop() else { unreachable!("pushed above") };
        fr.active = (0..n).map(|l| after[l] || broken[l] || carried[l]).collect();
        Ok(())
    }

    pub(crate) fn slot(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Slot {
        if let Some(s) = &fr.vals[h.index()] {
            return s.clone();
        }
        let s = self.eval(fr, h);
        fr.vals[h.index()] = Some(s.clone());
        s
    }

    pub(crate) fn val(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Rc<Val> {
        match self.slot(fr, h) {
            Slot::Val(v) => v,
            Slot::Ptr(_) => Rc::new(Val::zeros(1)),
        }
    }

    pub(crate) fn ptr(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Rc<Ptr> {
        match self.slot(fr, h) {
            Slot::Ptr(p) => p,
            Slot::Val(_) => Rc::new(Ptr { region: Region::Immediate, offsets: Offsets::Uniform(OUT) }),
        }
    }

    pub(crate) fn ty<'a>(&'a self, fr: &'a Frame, h: Handle<naga::Expression>) -> &'a TypeInner {
        let (module, _) = self.p.module.naga();
        fr.info[h].ty.inner_with(&module.types)
    }

    pub(crate) fn kind(&self, fr: &Frame, h: Handle<naga::Expression>) -> Kind {
        self.ty(fr, h).scalar().and_then(Kind::of).unwrap_or(Kind::U32)
    }

    /// The components of what a pointer expression points at: worked out once a frame.
    pub(crate) fn pointee_leaves(&self, fr: &mut Frame, h: Handle<naga::Expression>) -> Rc<[Leaf]> {
        if let Some(Some(leaves)) = fr.leaves.get(h.index()) {
            return leaves.clone();
        }
        let (module, _) = self.p.module.naga();
        let leaves: Rc<[Leaf]> = match *self.ty(fr, h) {
            TypeInner::Pointer { base, .. } => self.p.layouts.of(base).map(|l| Rc::from(&*l.leaves)),
            TypeInner::ValuePointer { size, scalar, .. } => {
                let inner = match size {
                    Some(size) => TypeInner::Vector { size, scalar },
                    None => TypeInner::Scalar(scalar),
                };
                self.p.layouts.of_inner(&inner, module).map(|l| Rc::from(&*l.leaves))
            }
            _ => None,
        }
        .unwrap_or_else(|| Rc::from(Vec::new()));
        if let Some(slot) = fr.leaves.get_mut(h.index()) {
            *slot = Some(leaves.clone());
        }
        leaves
    }

    /// The words of the kernel's own variable behind a component region, and whether each lane
    /// has its copy.
    fn words<'a>(&'a mut self, fr: &'a mut Frame, r: Region) -> Option<(&'a mut Vec<u32>, bool)> {
        match r {
            Region::Workgroup(g) => self.workgroup.get_mut(g).map(|v| (v, false)),
            Region::Private(g) => self.private.get_mut(g).map(|v| (v, true)),
            Region::Local(i) => fr.locals.get_mut(i).map(|v| (&mut v.words, !v.uniform)),
            Region::Binding(_) | Region::Immediate => None,
        }
    }

    pub(crate) fn load(&mut self, fr: &mut Frame, p: &Ptr, leaves: &[Leaf]) -> Val {
        let n = self.n;
        if p.region.components() {
            return match self.words(fr, p.region) {
                Some((words, per_lane)) => load_words(words, per_lane, p, leaves.len(), n),
                None => Val::zeros(leaves.len()),
            };
        }
        self.mem.load(p, leaves, n)
    }

    fn store(&mut self, fr: &mut Frame, p: &Ptr, leaves: &[Leaf], v: &Val) {
        let active = std::mem::take(&mut fr.active);
        if let (Region::Local(i), n) = (p.region, self.n) {
            // A local stays uniform under a uniform value to one place from every lane.
            let keeps = v.uniform && matches!(p.offsets, Offsets::Uniform(_)) && all_lanes(&active);
            if let Some(local) = fr.locals.get_mut(i).filter(|l| l.uniform && !keeps) {
                local.spread(n);
            }
        }
        if p.region.components() {
            if let Some((words, per_lane)) = self.words(fr, p.region) {
                store_words(words, per_lane, p, v, &active);
            }
        } else {
            self.mem.store(p, leaves, v, &active);
        }
        fr.active = active;
    }

    fn atomic(
        &mut self,
        fr: &mut Frame,
        pointer: Handle<naga::Expression>,
        fun: &naga::AtomicFunction,
        value: Handle<naga::Expression>,
        result: Option<Handle<naga::Expression>>,
    ) {
        use naga::AtomicFunction as A;
        let n = self.n;
        let kind = match self.ty(fr, pointer) {
            TypeInner::Pointer { base, .. } => {
                let (module, _) = self.p.module.naga();
                match &module.types[*base].inner {
                    TypeInner::Atomic(s) => Kind::of(*s).unwrap_or(Kind::U32),
                    _ => Kind::U32,
                }
            }
            _ => Kind::U32,
        };
        let p = self.ptr(fr, pointer);
        let v = self.val(fr, value);
        let cmp = match fun {
            A::Exchange { compare: Some(c) } => Some(self.val(fr, *c)),
            _ => None,
        };
        let active = fr.active.clone();
        let leaf = Leaf { offset: 0, kind };
        let mut old = zeroed(if cmp.is_some() { 2 * n } else { n });
        // Storage buffers by bytes, workgroup memory by components.
        let mut memory = match p.region {
            Region::Binding(b) => self.mem.view(b).map(Atomics::Shared),
            Region::Workgroup(g) => self.workgroup.get_mut(g).map(|w| Atomics::Words(w.as_mut_slice())),
            _ => None,
        };
        if let Some(memory) = &mut memory {
            // Lane order: the device's fixed order for atomics.
            for l in 0..n {
                let at = p.offsets.get(l);
                if !active[l] || at == OUT {
                    continue;
                }
                let Some(cur) = memory.read(at, leaf) else { continue };
                let x = v.get(0, l, n);
                let new = match fun {
                    A::Add => cur.wrapping_add(x),
                    A::Subtract => cur.wrapping_sub(x),
                    A::And => cur & x,
                    A::InclusiveOr => cur | x,
                    A::ExclusiveOr => cur ^ x,
                    A::Min if kind == Kind::I32 => (cur as i32).min(x as i32) as u32,
                    A::Max if kind == Kind::I32 => (cur as i32).max(x as i32) as u32,
                    A::Min => cur.min(x),
                    A::Max => cur.max(x),
                    A::Exchange { compare: None } => x,
                    A::Exchange { compare: Some(_) } => {
                        let c = cmp.as_ref().map_or(0, |c| c.get(0, l, n));
                        old[n + l] = (cur == c) as u32;
                        if cur == c {
                            x
                        } else {
                            cur
                        }
                    }
                };
                old[l] = cur;
                memory.write(at, leaf, new);
            }
        }
        if let Some(r) = result {
            let comps = old.len() / n.max(1);
            fr.vals[r.index()] = Some(Slot::val(Val::varying(comps, old)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id of every lane of batches that start and end anywhere in a dispatch, against
    /// the definitions: thread `t` is in group `t / threads` (x fastest), at local index
    /// `t % threads`, whose local id counts x fastest; the global id is group × size + local.
    #[test]
    fn batch_ids_follow_their_definitions() {
        let (size, groups) = ([3u32, 2, 2], [2u32, 3, 2]);
        let threads = 12u64;
        let total = threads * 12;
        for (first, lanes) in [(0u64, total as usize), (5, 7), (11, 30), (12, 12), (100, 44), (143, 1)] {
            let batch = Batch { lanes, first, num_groups: groups, group_size: size };
            let vals = [Ids::Global, Ids::Local, Ids::Group, Ids::LocalIndex].map(|w| batch.ids(w));
            for l in 0..lanes {
                let t = first + l as u64;
                let (g, li) = ((t / threads) as u32, (t % threads) as u32);
                let group = [g % 2, g / 2 % 3, g / 6];
                let local = [li % 3, li / 3 % 2, li / 6];
                for c in 0..3 {
                    assert_eq!(vals[0].get(c, l, lanes), group[c] * size[c] + local[c], "global {c} of thread {t}");
                    assert_eq!(vals[1].get(c, l, lanes), local[c], "local {c} of thread {t}");
                    assert_eq!(vals[2].get(c, l, lanes), group[c], "group {c} of thread {t}");
                }
                assert_eq!(vals[3].get(0, l, lanes), li, "local index of thread {t}");
            }
        }
    }
}

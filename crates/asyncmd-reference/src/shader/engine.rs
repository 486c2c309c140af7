//! Runs one batch of lanes (a workgroup, or several when the kernel shares nothing between its
//! threads) through naga's structured control flow: every statement runs once for all lanes
//! under an execution mask, so a barrier is a point every lane reaches together.

// A lane's components sit in several slices at once (`c * lanes + l`): indexing by lane reads
// more plainly than zipping them.
#![allow(clippy::needless_range_loop)]

use super::layout::{Kind, Leaf};
use super::ops;
use super::value::{Ptr, Region, Slot, Val, OUT};
use super::Program;
use naga::{Expression as E, Handle, Statement as S, TypeInner};
use std::time::Instant;

/// The kernel ran past its time budget.
#[derive(Debug)]
pub(crate) struct Hung;

/// The memory a dispatch reads and writes.
pub(crate) struct Memory<'a> {
    /// Each resource the dispatch binds, once, however many views it has.
    pub(crate) buffers: Vec<&'a mut [u8]>,
    /// Each shader binding's view (`None`: nothing bound; reads 0, writes dropped).
    pub(crate) bindings: Vec<Option<View>>,
    pub(crate) immediates: &'a [u8],
}

/// A binding's bytes: a range of one of the dispatch's buffers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    pub(crate) buffer: usize,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl Memory<'_> {
    fn view(&mut self, binding: usize) -> Option<&mut [u8]> {
        let v = (*self.bindings.get(binding)?)?;
        self.buffers.get_mut(v.buffer)?.get_mut(v.start..v.start.checked_add(v.len)?)
    }
}

/// Lane-invariant inputs of a batch and its per-lane ids.
pub(crate) struct Batch {
    pub(crate) lanes: usize,
    pub(crate) global_id: [Vec<u32>; 3],
    pub(crate) local_id: [Vec<u32>; 3],
    pub(crate) local_index: Vec<u32>,
    pub(crate) group_id: [Vec<u32>; 3],
    pub(crate) num_groups: [u32; 3],
}

enum Target {
    Loop { broken: Vec<bool>, continued: Vec<bool> },
    Switch { broken: Vec<bool> },
}

struct Frame<'f> {
    fun: &'f naga::Function,
    info: &'f naga::valid::FunctionInfo,
    vals: Vec<Option<Slot>>,
    args: Vec<Slot>,
    locals: Vec<Vec<u8>>,
    local_sizes: Vec<u32>,
    active: Vec<bool>,
    returned: Vec<bool>,
    ret: Option<Val>,
    targets: Vec<Target>,
}

/// The engine for one batch.
pub(crate) struct Engine<'p, 'e, 'm> {
    p: &'p Program,
    mem: &'e mut Memory<'m>,
    workgroup: Vec<Vec<u8>>,
    private: Vec<Vec<u8>>,
    batch: &'p Batch,
    n: usize,
    deadline: Instant,
}

fn any(m: &[bool]) -> bool {
    m.iter().any(|&b| b)
}

impl<'p, 'e, 'm> Engine<'p, 'e, 'm> {
    pub(crate) fn new(p: &'p Program, mem: &'e mut Memory<'m>, batch: &'p Batch, deadline: Instant) -> Self {
        let n = batch.lanes;
        let (module, _) = p.module.naga();
        let mut workgroup = Vec::new();
        let mut private = Vec::new();
        for (_, g) in module.global_variables.iter() {
            let size = p.layouts.of(g.ty).map_or(0, |l| l.size as usize);
            workgroup.push(if g.space == naga::AddressSpace::WorkGroup { vec![0; size] } else { Vec::new() });
            let mut lanes = Vec::new();
            if g.space == naga::AddressSpace::Private {
                lanes = vec![0; size * n];
                if let (Some(init), Some(l)) = (g.init, p.layouts.of(g.ty)) {
                    let comps = p.global_value(init);
                    for lane in 0..n {
                        for (leaf, v) in l.leaves.iter().zip(&comps) {
                            write_bytes(&mut lanes[lane * size..(lane + 1) * size], leaf.offset, *leaf, *v);
                        }
                    }
                }
            }
            private.push(lanes);
        }
        Self { p, mem, workgroup, private, batch, n, deadline }
    }

    /// Runs the entry point for every lane.
    pub(crate) fn run(&mut self) -> Result<(), Hung> {
        let (module, info) = self.p.module.naga();
        let ep = &module.entry_points[self.p.entry];
        let mut args = Vec::with_capacity(ep.function.arguments.len());
        for a in &ep.function.arguments {
            args.push(Slot::Val(self.builtin_arg(module, a)));
        }
        let mut frame = self.frame(&ep.function, info.get_entry_point(self.p.entry), args);
        self.block(&mut frame, &ep.function.body)
    }

    fn builtin_value(&self, b: &naga::Binding) -> Val {
        let n = self.n;
        let bt = &self.batch;
        let vec3 = |v: &[Vec<u32>; 3]| Val { comps: 3, data: v.concat() };
        match b {
            naga::Binding::BuiltIn(naga::BuiltIn::GlobalInvocationId) => vec3(&bt.global_id),
            naga::Binding::BuiltIn(naga::BuiltIn::LocalInvocationId) => vec3(&bt.local_id),
            naga::Binding::BuiltIn(naga::BuiltIn::WorkGroupId) => vec3(&bt.group_id),
            naga::Binding::BuiltIn(naga::BuiltIn::LocalInvocationIndex) => {
                Val { comps: 1, data: bt.local_index.clone() }
            }
            naga::Binding::BuiltIn(naga::BuiltIn::NumWorkGroups) => Val::splat(&bt.num_groups, n),
            _ => Val::zeros(1, n),
        }
    }

    fn builtin_arg(&self, module: &naga::Module, a: &naga::FunctionArgument) -> Val {
        if let Some(b) = &a.binding {
            return self.builtin_value(b);
        }
        // A struct of built-ins: its members in order.
        let mut out = Val { comps: 0, data: Vec::new() };
        if let TypeInner::Struct { members, .. } = &module.types[a.ty].inner {
            for m in members {
                let v = m.binding.as_ref().map(|b| self.builtin_value(b)).unwrap_or_else(|| Val::zeros(1, self.n));
                out.comps += v.comps;
                out.data.extend(v.data);
            }
        }
        out
    }

    fn frame<'f>(&self, fun: &'f naga::Function, info: &'f naga::valid::FunctionInfo, args: Vec<Slot>) -> Frame<'f> {
        let local_sizes: Vec<u32> =
            fun.local_variables.iter().map(|(_, v)| self.p.layouts.of(v.ty).map_or(0, |l| l.size)).collect();
        // naga hoists only constant initializers into `init` (one inside a loop becomes a store
        // there), so every lane starts with it.
        let locals = fun
            .local_variables
            .iter()
            .zip(&local_sizes)
            .map(|((_, v), &size)| {
                let size = size as usize;
                let mut bytes = vec![0; size * self.n];
                if let (Some(init), Some(layout)) = (v.init, self.p.layouts.of(v.ty)) {
                    let comps = self.p.expression_value(&fun.expressions, init);
                    for lane in bytes.chunks_mut(size.max(1)) {
                        for (leaf, c) in layout.leaves.iter().zip(&comps) {
                            write_bytes(lane, leaf.offset, *leaf, *c);
                        }
                    }
                }
                bytes
            })
            .collect();
        Frame {
            fun,
            info,
            vals: vec![None; fun.expressions.len()],
            args,
            locals,
            local_sizes,
            active: vec![true; self.n],
            returned: vec![false; self.n],
            ret: None,
            targets: Vec::new(),
        }
    }

    fn block(&mut self, fr: &mut Frame, block: &naga::Block) -> Result<(), Hung> {
        for stmt in block.iter() {
            if !any(&fr.active) {
                break;
            }
            self.statement(fr, stmt)?;
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
                let cond = self.val(fr, *condition).data;
                let saved = fr.active.clone();
                fr.active = saved.iter().zip(&cond).map(|(&a, &c)| a && c != 0).collect();
                self.block(fr, accept)?;
                let after_accept = std::mem::take(&mut fr.active);
                fr.active = saved.iter().zip(&cond).map(|(&a, &c)| a && c == 0).collect();
                self.block(fr, reject)?;
                for (a, t) in fr.active.iter_mut().zip(after_accept) {
                    *a |= t;
                }
            }
            S::Switch { selector, cases } => {
                let sel = self.val(fr, *selector).data;
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
                    let matches = |l: usize| match case.value {
                        naga::SwitchValue::I32(v) => sel[l] == v as u32,
                        naga::SwitchValue::U32(v) => sel[l] == v,
                        naga::SwitchValue::Default => !listed.contains(&sel[l]),
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
            }
            S::Loop { body, continuing, break_if } => {
                fr.targets.push(Target::Loop { broken: vec![false; n], continued: vec![false; n] });
                loop {
                    if Instant::now() > self.deadline {
                        return Err(Hung);
                    }
                    self.block(fr, body)?;
                    if let Some(Target::Loop { continued, .. }) = fr.targets.last_mut() {
                        for (a, c) in fr.active.iter_mut().zip(continued.iter_mut()) {
                            *a |= std::mem::take(c);
                        }
                    }
                    self.block(fr, continuing)?;
                    if let Some(b) = break_if {
                        if any(&fr.active) {
                            let c = self.val(fr, *b).data;
                            if let Some(Target::Loop { broken, .. }) = fr.targets.last_mut() {
                                for l in 0..n {
                                    if fr.active[l] && c[l] != 0 {
                                        broken[l] = true;
                                        fr.active[l] = false;
                                    }
                                }
                            }
                        }
                    }
                    if !any(&fr.active) {
                        break;
                    }
                }
                let Some(Target::Loop { broken, .. }) = fr.targets.pop() else { unreachable!("pushed above") };
                fr.active = broken;
            }
            S::Break => {
                let active = std::mem::replace(&mut fr.active, vec![false; n]);
                match fr.targets.last_mut() {
                    Some(Target::Loop { broken, .. } | Target::Switch { broken }) => {
                        broken.iter_mut().zip(active).for_each(|(b, a)| *b |= a)
                    }
                    None => {}
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
                    let ret = fr.ret.get_or_insert_with(|| Val::zeros(v.comps, n));
                    for c in 0..v.comps {
                        for l in 0..n {
                            if fr.active[l] {
                                ret.data[c * n + l] = v.data[c * n + l];
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
                fr.vals[result.index()] = Some(Slot::Val(v));
            }
            S::Atomic { pointer, fun, value, result } => self.atomic(fr, *pointer, fun, *value, *result),
            S::Call { function, arguments, result } => {
                let (module, info) = self.p.module.naga();
                let args: Vec<Slot> = arguments.iter().map(|a| self.slot(fr, *a)).collect();
                let fun = &module.functions[*function];
                let mut callee = self.frame(fun, &info[*function], args);
                callee.active = fr.active.clone();
                self.block(&mut callee, &fun.body)?;
                if let Some(r) = result {
                    let comps = callee.ret.as_ref().map_or(0, |v| v.comps);
                    fr.vals[r.index()] = Some(Slot::Val(callee.ret.unwrap_or_else(|| Val::zeros(comps, n))));
                }
            }
            // Refused when the pipeline was made (`Program::compile`).
            _ => {}
        }
        Ok(())
    }

    fn slot(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Slot {
        if let Some(s) = &fr.vals[h.index()] {
            return s.clone();
        }
        let s = self.eval(fr, h);
        fr.vals[h.index()] = Some(s.clone());
        s
    }

    fn val(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Val {
        match self.slot(fr, h) {
            Slot::Val(v) => v,
            Slot::Ptr(_) => Val::zeros(1, self.n),
        }
    }

    fn ptr(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Ptr {
        match self.slot(fr, h) {
            Slot::Ptr(p) => p,
            Slot::Val(_) => Ptr { region: Region::Immediate, offsets: vec![OUT; self.n] },
        }
    }

    fn ty<'a>(&'a self, fr: &'a Frame, h: Handle<naga::Expression>) -> &'a TypeInner {
        let (module, _) = self.p.module.naga();
        fr.info[h].ty.inner_with(&module.types)
    }

    fn kind(&self, fr: &Frame, h: Handle<naga::Expression>) -> Kind {
        self.ty(fr, h).scalar().and_then(Kind::of).unwrap_or(Kind::U32)
    }

    /// The components of what a pointer expression points at.
    fn pointee_leaves(&self, fr: &Frame, h: Handle<naga::Expression>) -> Vec<Leaf> {
        let (module, _) = self.p.module.naga();
        match *self.ty(fr, h) {
            TypeInner::Pointer { base, .. } => self.p.layouts.of(base).map(|l| l.leaves.clone()).unwrap_or_default(),
            TypeInner::ValuePointer { size, scalar, .. } => {
                let inner = match size {
                    Some(size) => TypeInner::Vector { size, scalar },
                    None => TypeInner::Scalar(scalar),
                };
                self.p.layouts.of_inner(&inner, module).map(|l| l.leaves).unwrap_or_default()
            }
            _ => Vec::new(),
        }
    }

    fn eval(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Slot {
        let n = self.n;
        let (module, _) = self.p.module.naga();
        let expr = &fr.fun.expressions[h];
        let v = match expr {
            E::Literal(_) | E::Constant(_) | E::ZeroValue(_) => {
                Val::splat(&self.p.expression_value(&fr.fun.expressions, h), n)
            }
            E::Compose { components, .. } => {
                let mut out = Val { comps: 0, data: Vec::new() };
                for c in components {
                    let v = self.val(fr, *c);
                    out.comps += v.comps;
                    out.data.extend(v.data);
                }
                out
            }
            E::Splat { size, value } => {
                let v = self.val(fr, *value);
                Val { comps: *size as usize, data: v.data.repeat(*size as usize) }
            }
            E::Swizzle { size, vector, pattern } => {
                let v = self.val(fr, *vector);
                let mut data = Vec::with_capacity(*size as usize * n);
                for p in &pattern[..*size as usize] {
                    data.extend_from_slice(v.comp(*p as usize, n));
                }
                Val { comps: *size as usize, data }
            }
            E::FunctionArgument(i) => return fr.args.get(*i as usize).cloned().unwrap_or(Slot::Val(Val::zeros(1, n))),
            E::GlobalVariable(g) => {
                let var = &module.global_variables[*g];
                let region = match var.space {
                    naga::AddressSpace::WorkGroup => Region::Workgroup(g.index()),
                    naga::AddressSpace::Private => Region::Private(g.index()),
                    naga::AddressSpace::Immediate => Region::Immediate,
                    _ => Region::Binding(self.p.binding_of[g.index()].unwrap_or(usize::MAX)),
                };
                return Slot::Ptr(Ptr { region, offsets: vec![0; n] });
            }
            E::LocalVariable(l) => return Slot::Ptr(Ptr { region: Region::Local(l.index()), offsets: vec![0; n] }),
            E::Load { pointer } => {
                let p = self.ptr(fr, *pointer);
                let leaves = self.pointee_leaves(fr, *pointer);
                self.load(fr, &p, &leaves)
            }
            E::Access { base, index } => return self.access(fr, *base, Dynamic::Index(*index)),
            E::AccessIndex { base, index } => return self.access(fr, *base, Dynamic::Const(*index)),
            E::Unary { op, expr } => {
                let kind = self.kind(fr, *expr);
                let a = self.val(fr, *expr);
                let mut out = Val::zeros(a.comps, n);
                ops::unary(*op, kind, &a.data, &mut out.data);
                out
            }
            E::Binary { op, left, right } => self.binary(fr, *op, *left, *right),
            E::Select { condition, accept, reject } => {
                let c = self.val(fr, *condition);
                let a = self.val(fr, *accept);
                let r = self.val(fr, *reject);
                let mut out = r.clone();
                for comp in 0..a.comps {
                    let cc = if c.comps == 1 { 0 } else { comp };
                    for l in 0..n {
                        if c.data[cc * n + l] != 0 {
                            out.data[comp * n + l] = a.data[comp * n + l];
                        }
                    }
                }
                out
            }
            E::Relational { fun, argument } => {
                let a = self.val(fr, *argument);
                let mut out = Val::zeros(
                    if matches!(fun, naga::RelationalFunction::All | naga::RelationalFunction::Any) {
                        1
                    } else {
                        a.comps
                    },
                    n,
                );
                match fun {
                    naga::RelationalFunction::All => {
                        for l in 0..n {
                            out.data[l] = (0..a.comps).all(|c| a.data[c * n + l] != 0) as u32;
                        }
                    }
                    naga::RelationalFunction::Any => {
                        for l in 0..n {
                            out.data[l] = (0..a.comps).any(|c| a.data[c * n + l] != 0) as u32;
                        }
                    }
                    naga::RelationalFunction::IsNan => {
                        ops::map1(&a.data, &mut out.data, |x| f32::from_bits(x).is_nan() as u32)
                    }
                    naga::RelationalFunction::IsInf => {
                        ops::map1(&a.data, &mut out.data, |x| f32::from_bits(x).is_infinite() as u32)
                    }
                }
                out
            }
            E::Math { fun, arg, arg1, arg2, arg3 } => self.math(fr, *fun, [Some(*arg), *arg1, *arg2, *arg3]),
            E::As { expr, kind, convert } => {
                let from = self.kind(fr, *expr);
                let a = self.val(fr, *expr);
                match convert {
                    None => a,
                    Some(width) => {
                        let to = Kind::of(naga::Scalar { kind: *kind, width: *width }).unwrap_or(Kind::U32);
                        let mut out = Val::zeros(a.comps, n);
                        ops::map1(&a.data, &mut out.data, |x| ops::convert(from, to, x));
                        out
                    }
                }
            }
            E::ArrayLength(pointer) => {
                let p = self.ptr(fr, *pointer);
                let len = match p.region {
                    Region::Binding(b) => self.mem.bindings.get(b).copied().flatten().map_or(0, |v| v.len),
                    _ => 0,
                };
                let (fixed, stride) = self.p.runtime_array(fr.info[*pointer].ty.inner_with(&module.types), module);
                let count =
                    if stride == 0 { 0 } else { (len as u64).saturating_sub(u64::from(fixed)) / u64::from(stride) };
                Val::splat(&[count.min(u64::from(u32::MAX)) as u32], n)
            }
            // Set by their statements; a result no lane produced reads 0.
            E::CallResult(_) | E::AtomicResult { .. } | E::WorkGroupUniformLoadResult { .. } => {
                let comps = match self.ty(fr, h) {
                    TypeInner::Struct { .. } => 2,
                    t => t.scalar().map_or(1, |_| match t {
                        TypeInner::Vector { size, .. } => *size as usize,
                        _ => 1,
                    }),
                };
                Val::zeros(comps, n)
            }
            _ => Val::zeros(1, n),
        };
        Slot::Val(v)
    }

    fn binary(
        &mut self,
        fr: &mut Frame,
        op: naga::BinaryOperator,
        left: Handle<naga::Expression>,
        right: Handle<naga::Expression>,
    ) -> Val {
        let n = self.n;
        let lt = self.ty(fr, left).clone();
        let rt = self.ty(fr, right).clone();
        let kind = self.kind(fr, left);
        let a = self.val(fr, left);
        let b = self.val(fr, right);
        if op == naga::BinaryOperator::Multiply {
            match (&lt, &rt) {
                (TypeInner::Matrix { columns, rows, .. }, TypeInner::Vector { .. }) => {
                    let (c, r) = (*columns as usize, *rows as usize);
                    return mat_mul(&a, &b, r, c, 1, n);
                }
                (TypeInner::Vector { .. }, TypeInner::Matrix { columns, rows, .. }) => {
                    // v * M = (Mᵀ v): out[j] = Σ_i v[i] M[j][i].
                    let (c, r) = (*columns as usize, *rows as usize);
                    let mut out = Val::zeros(c, n);
                    for j in 0..c {
                        for l in 0..n {
                            let mut s = 0.0f32;
                            for i in 0..r {
                                s += f32::from_bits(a.data[i * n + l]) * f32::from_bits(b.data[(j * r + i) * n + l]);
                            }
                            out.data[j * n + l] = s.to_bits();
                        }
                    }
                    return out;
                }
                (TypeInner::Matrix { columns: k, rows, .. }, TypeInner::Matrix { columns, .. }) => {
                    return mat_mul(&a, &b, *rows as usize, *k as usize, *columns as usize, n);
                }
                _ => {}
            }
        }
        let comps = a.comps.max(b.comps);
        let mut out = Val::zeros(comps, n);
        for c in 0..comps {
            let x = a.comp(if a.comps == 1 { 0 } else { c }, n);
            let y = b.comp(if b.comps == 1 { 0 } else { c }, n);
            ops::binary(op, kind, x, y, out.comp_mut(c, n));
        }
        out
    }

    fn math(&mut self, fr: &mut Frame, fun: naga::MathFunction, args: [Option<Handle<naga::Expression>>; 4]) -> Val {
        use naga::MathFunction as M;
        let n = self.n;
        let kind = args[0].map_or(Kind::F32, |a| self.kind(fr, a));
        let vals: Vec<Option<Val>> = args.iter().map(|a| a.map(|a| self.val(fr, a))).collect();
        let a = vals[0].clone().unwrap_or_default();
        let f = |x: u32| f32::from_bits(x);
        match fun {
            M::Dot => {
                let b = vals[1].clone().unwrap_or_default();
                let mut out = Val::zeros(1, n);
                for l in 0..n {
                    out.data[l] = match kind {
                        Kind::F32 => {
                            (0..a.comps).fold(0.0f32, |s, c| s + f(a.data[c * n + l]) * f(b.data[c * n + l])).to_bits()
                        }
                        _ => (0..a.comps)
                            .fold(0u32, |s, c| s.wrapping_add(a.data[c * n + l].wrapping_mul(b.data[c * n + l]))),
                    };
                }
                out
            }
            M::Length | M::Normalize | M::Distance => {
                let b = if fun == M::Distance { vals[1].clone().unwrap_or_default() } else { Val::zeros(a.comps, n) };
                let mut len = vec![0u32; n];
                for l in 0..n {
                    let s: f32 = (0..a.comps)
                        .map(|c| {
                            let d = f(a.data[c * n + l]) - f(b.data[c * n + l]);
                            d * d
                        })
                        .sum();
                    len[l] = s.sqrt().to_bits();
                }
                if fun == M::Normalize {
                    let mut out = a.clone();
                    for c in 0..a.comps {
                        for l in 0..n {
                            out.data[c * n + l] = (f(a.data[c * n + l]) / f(len[l])).to_bits();
                        }
                    }
                    out
                } else {
                    Val { comps: 1, data: len }
                }
            }
            M::Cross => {
                let b = vals[1].clone().unwrap_or_default();
                let mut out = Val::zeros(3, n);
                for l in 0..n {
                    let x = |v: &Val, c: usize| f(v.data[c * n + l]);
                    out.data[l] = (x(&a, 1) * x(&b, 2) - x(&a, 2) * x(&b, 1)).to_bits();
                    out.data[n + l] = (x(&a, 2) * x(&b, 0) - x(&a, 0) * x(&b, 2)).to_bits();
                    out.data[2 * n + l] = (x(&a, 0) * x(&b, 1) - x(&a, 1) * x(&b, 0)).to_bits();
                }
                out
            }
            _ => {
                let comps = vals.iter().flatten().map(|v| v.comps).max().unwrap_or(1);
                let mut out = Val::zeros(comps, n);
                for c in 0..comps {
                    fn pick(v: &Option<Val>, c: usize, n: usize) -> Option<&[u32]> {
                        v.as_ref().map(|v| v.comp(if v.comps == 1 { 0 } else { c }, n))
                    }
                    let args = [pick(&vals[0], c, n), pick(&vals[1], c, n), pick(&vals[2], c, n), pick(&vals[3], c, n)];
                    let _ = ops::math(fun, kind, args, out.comp_mut(c, n));
                }
                out
            }
        }
    }

    fn access(&mut self, fr: &mut Frame, base: Handle<naga::Expression>, index: Dynamic) -> Slot {
        let n = self.n;
        let (module, _) = self.p.module.naga();
        let base_ty = self.ty(fr, base).clone();
        let idx: Vec<u32> = match index {
            Dynamic::Const(i) => vec![i; n],
            Dynamic::Index(h) => {
                let kind = self.kind(fr, h);
                let v = self.val(fr, h);
                // A negative index is out of bounds.
                v.data[..n].iter().map(|&x| if kind == Kind::I32 && (x as i32) < 0 { u32::MAX } else { x }).collect()
            }
        };
        match base_ty {
            TypeInner::Pointer { base: pointee, .. } => {
                let mut p = self.ptr(fr, base);
                let inner = &module.types[pointee].inner;
                let (stride, count, member_offset) = match inner {
                    TypeInner::Array { stride, size, .. } => (
                        *stride,
                        match size {
                            naga::ArraySize::Constant(c) => Some(c.get()),
                            _ => None,
                        },
                        None,
                    ),
                    TypeInner::Vector { size, scalar } => (u32::from(scalar.width), Some(*size as u32), None),
                    TypeInner::Matrix { columns, rows, scalar } => {
                        (naga::proc::Alignment::from(*rows) * u32::from(scalar.width), Some(*columns as u32), None)
                    }
                    TypeInner::Struct { members, .. } => (0, Some(members.len() as u32), Some(members)),
                    _ => (0, Some(0), None),
                };
                for l in 0..n {
                    if p.offsets[l] == OUT {
                        continue;
                    }
                    let i = idx[l];
                    if count.is_some_and(|c| i >= c) {
                        p.offsets[l] = OUT;
                        continue;
                    }
                    let add = match member_offset {
                        Some(members) => members[i as usize].offset as u64,
                        None => u64::from(i) * u64::from(stride),
                    };
                    let o = u64::from(p.offsets[l]) + add;
                    p.offsets[l] = if o >= u64::from(OUT) { OUT } else { o as u32 };
                }
                Slot::Ptr(p)
            }
            TypeInner::ValuePointer { size, scalar, .. } => {
                // A pointer to a vector's component.
                let mut p = self.ptr(fr, base);
                let count = size.map_or(1, |s| s as u32);
                for l in 0..n {
                    if p.offsets[l] != OUT {
                        p.offsets[l] = if idx[l] >= count {
                            OUT
                        } else {
                            p.offsets[l].saturating_add(idx[l] * u32::from(scalar.width))
                        };
                    }
                }
                Slot::Ptr(p)
            }
            ref t => {
                let v = self.val(fr, base);
                // Components of one element, and where element i starts.
                let (elem, count, starts): (usize, usize, Option<Vec<usize>>) = match t {
                    TypeInner::Vector { size, .. } => (1, *size as usize, None),
                    TypeInner::Matrix { columns, rows, .. } => (*rows as usize, *columns as usize, None),
                    TypeInner::Array { base, size: naga::ArraySize::Constant(c), .. } => {
                        (self.p.layouts.of(*base).map_or(1, |l| l.leaves.len()), c.get() as usize, None)
                    }
                    TypeInner::Struct { members, .. } => {
                        let layout = self.p.layouts.of_inner(t, module).unwrap_or_default();
                        let _ = members;
                        (0, layout.member_comps.len(), Some(layout.member_comps.clone()))
                    }
                    _ => (1, 1, None),
                };
                if let Some(starts) = starts {
                    // Struct members are reached by constant index only.
                    let i = idx[0] as usize;
                    let start = starts.get(i).copied().unwrap_or(0);
                    let end = starts.get(i + 1).copied().unwrap_or(v.comps);
                    return Slot::Val(v.slice(start, end - start, n));
                }
                if let Dynamic::Const(i) = index {
                    let i = (i as usize).min(count.saturating_sub(1));
                    return Slot::Val(v.slice(i * elem, elem, n));
                }
                let mut out = Val::zeros(elem, n);
                for l in 0..n {
                    let i = idx[l] as usize;
                    if i < count {
                        for c in 0..elem {
                            out.data[c * n + l] = v.data[(i * elem + c) * n + l];
                        }
                    }
                }
                Slot::Val(out)
            }
        }
    }

    /// The bytes of a region and the distance between two lanes' copies (0: shared).
    fn region<'a>(&'a mut self, fr: &'a mut Frame, r: Region) -> (Option<&'a mut [u8]>, usize) {
        match r {
            Region::Binding(b) => (self.mem.view(b), 0),
            Region::Immediate => (None, 0),
            Region::Workgroup(g) => (self.workgroup.get_mut(g).map(|v| v.as_mut_slice()), 0),
            Region::Private(g) => {
                let size = self.private.get(g).map_or(0, |v| v.len() / self.n.max(1));
                (self.private.get_mut(g).map(|v| v.as_mut_slice()), size)
            }
            Region::Local(i) => {
                let size = fr.local_sizes.get(i).copied().unwrap_or(0) as usize;
                (fr.locals.get_mut(i).map(|v| v.as_mut_slice()), size)
            }
        }
    }

    fn load(&mut self, fr: &mut Frame, p: &Ptr, leaves: &[Leaf]) -> Val {
        let n = self.n;
        let mut out = Val::zeros(leaves.len(), n);
        if p.region == Region::Immediate {
            let bytes = self.mem.immediates;
            for (c, leaf) in leaves.iter().enumerate() {
                for l in 0..n {
                    if p.offsets[l] != OUT {
                        out.data[c * n + l] = read_bytes(bytes, p.offsets[l] + leaf.offset, *leaf);
                    }
                }
            }
            return out;
        }
        let (bytes, stride) = self.region(fr, p.region);
        let Some(bytes) = bytes else { return out };
        for (c, leaf) in leaves.iter().enumerate() {
            for l in 0..n {
                if p.offsets[l] == OUT {
                    continue;
                }
                let lane = if stride == 0 { &bytes[..] } else { &bytes[l * stride..(l + 1) * stride] };
                out.data[c * n + l] = read_bytes(lane, p.offsets[l].saturating_add(leaf.offset), *leaf);
            }
        }
        out
    }

    fn store(&mut self, fr: &mut Frame, p: &Ptr, leaves: &[Leaf], v: &Val) {
        let n = self.n;
        let active = fr.active.clone();
        let (bytes, stride) = self.region(fr, p.region);
        let Some(bytes) = bytes else { return };
        for (c, leaf) in leaves.iter().enumerate() {
            for l in 0..n {
                if !active[l] || p.offsets[l] == OUT {
                    continue;
                }
                let lane = if stride == 0 { &mut bytes[..] } else { &mut bytes[l * stride..(l + 1) * stride] };
                write_bytes(lane, p.offsets[l].saturating_add(leaf.offset), *leaf, v.data[c * n + l]);
            }
        }
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
        let mut old = Val::zeros(if cmp.is_some() { 2 } else { 1 }, n);
        let (bytes, stride) = self.region(fr, p.region);
        if let Some(bytes) = bytes {
            // Lane order: the device's fixed order for atomics.
            for l in 0..n {
                if !active[l] || p.offsets[l] == OUT {
                    continue;
                }
                let lane = if stride == 0 { &mut bytes[..] } else { &mut bytes[l * stride..(l + 1) * stride] };
                let at = p.offsets[l];
                let Some(cur) = checked_read(lane, at, leaf) else { continue };
                let x = v.data[l];
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
                        let c = cmp.as_ref().map_or(0, |c| c.data[l]);
                        old.data[n + l] = (cur == c) as u32;
                        if cur == c {
                            x
                        } else {
                            cur
                        }
                    }
                };
                old.data[l] = cur;
                write_bytes(lane, at, leaf, new);
            }
        }
        if let Some(r) = result {
            fr.vals[r.index()] = Some(Slot::Val(old));
        }
    }
}

enum Dynamic {
    Const(u32),
    Index(Handle<naga::Expression>),
}

/// `a` (r×k, column-major components) times `b` (k×c): r×c.
fn mat_mul(a: &Val, b: &Val, r: usize, k: usize, c: usize, n: usize) -> Val {
    let mut out = Val::zeros(r * c, n);
    for j in 0..c {
        for i in 0..r {
            for l in 0..n {
                let mut s = 0.0f32;
                for t in 0..k {
                    s += f32::from_bits(a.data[(t * r + i) * n + l]) * f32::from_bits(b.data[(j * k + t) * n + l]);
                }
                out.data[(j * r + i) * n + l] = s.to_bits();
            }
        }
    }
    out
}

fn checked_read(bytes: &[u8], at: u32, leaf: Leaf) -> Option<u32> {
    let at = at as usize;
    let end = at.checked_add(leaf.kind.width() as usize)?;
    let b = bytes.get(at..end)?;
    Some(if leaf.kind == Kind::Bool { (b[0] != 0) as u32 } else { u32::from_le_bytes([b[0], b[1], b[2], b[3]]) })
}

/// Reads a component; out of bounds reads 0 (robust buffer access).
pub(crate) fn read_bytes(bytes: &[u8], at: u32, leaf: Leaf) -> u32 {
    checked_read(bytes, at, leaf).unwrap_or(0)
}

/// Writes a component; out of bounds writes nothing.
pub(crate) fn write_bytes(bytes: &mut [u8], at: u32, leaf: Leaf, v: u32) {
    let at = at as usize;
    let Some(end) = at.checked_add(leaf.kind.width() as usize) else { return };
    if let Some(b) = bytes.get_mut(at..end) {
        if leaf.kind == Kind::Bool {
            b[0] = (v != 0) as u8;
        } else {
            b.copy_from_slice(&v.to_le_bytes());
        }
    }
}

//! Expressions: each evaluates once for the batch; an operation on uniform operands gives a
//! uniform result in one step.

// A lane's components sit in several slices at once (`c * lanes + l`): indexing by lane reads
// more plainly than zipping them.
#![allow(clippy::needless_range_loop)]

use super::engine::{Engine, Frame};
use super::layout::Kind;
use super::ops;
use super::value::{words, zeroed, Offsets, Ptr, Region, Slot, Val, OUT};
use naga::{Expression as E, Handle, TypeInner};
use std::rc::Rc;

/// An index: a constant (`AccessIndex`) or an expression (`Access`).
enum Index {
    Const(u32),
    Dynamic(Handle<naga::Expression>),
}

/// Component-wise `op` of `a` and `b` (a one-component operand goes with every component).
fn zip_comps(a: &Val, b: &Val, n: usize, op: impl Fn(&mut Vec<u32>, &[u32], &[u32])) -> Val {
    let comps = a.comps.max(b.comps);
    let uniform = a.uniform && b.uniform;
    let mut data = words(comps * if uniform { 1 } else { n });
    for c in 0..comps {
        let x = a.comp(if a.comps == 1 { 0 } else { c }, n);
        let y = b.comp(if b.comps == 1 { 0 } else { c }, n);
        op(&mut data, x, y);
    }
    Val { comps, uniform, data }
}

/// `op` of every word of `a`, in a value of its shape.
fn map_val(a: &Val, op: impl Fn(u32) -> u32) -> Val {
    let mut data = words(a.data.len());
    ops::map1(&mut data, &a.data, op);
    Val { comps: a.comps, uniform: a.uniform, data }
}

impl Engine<'_, '_, '_> {
    pub(crate) fn eval(&mut self, fr: &mut Frame, h: Handle<naga::Expression>) -> Slot {
        let n = self.n;
        let (module, _) = self.p.module.naga();
        let expr = &fr.fun.expressions[h];
        let v = match expr {
            E::Literal(_) | E::Constant(_) | E::ZeroValue(_) => {
                Val::uniform(self.p.expression_value(&fr.fun.expressions, h))
            }
            E::Compose { components, .. } => {
                let parts: Vec<Rc<Val>> = components.iter().map(|c| self.val(fr, *c)).collect();
                Val::concat(parts.iter().map(|p| &**p), n)
            }
            E::Splat { size, value } => {
                let v = self.val(fr, *value);
                Val { comps: *size as usize, uniform: v.uniform, data: v.data.repeat(*size as usize) }
            }
            E::Swizzle { size, vector, pattern } => {
                let v = self.val(fr, *vector);
                let mut data = Vec::new();
                for p in &pattern[..*size as usize] {
                    data.extend_from_slice(v.comp(*p as usize, n));
                }
                Val { comps: *size as usize, uniform: v.uniform, data }
            }
            E::FunctionArgument(i) => {
                return fr.args.get(*i as usize).cloned().unwrap_or_else(|| Slot::val(Val::zeros(1)))
            }
            E::GlobalVariable(g) => {
                let var = &module.global_variables[*g];
                let region = match var.space {
                    naga::AddressSpace::WorkGroup => Region::Workgroup(g.index()),
                    naga::AddressSpace::Private => Region::Private(g.index()),
                    naga::AddressSpace::Immediate => Region::Immediate,
                    _ => Region::Binding(self.p.binding_of[g.index()].unwrap_or(usize::MAX)),
                };
                return Slot::ptr(Ptr { region, offsets: Offsets::Uniform(0) });
            }
            E::LocalVariable(l) => {
                return Slot::ptr(Ptr { region: Region::Local(l.index()), offsets: Offsets::Uniform(0) })
            }
            E::Load { pointer } => {
                let p = self.ptr(fr, *pointer);
                let leaves = self.pointee_leaves(fr, *pointer);
                self.load(fr, &p, &leaves)
            }
            E::Access { base, index } => return self.access(fr, *base, Index::Dynamic(*index)),
            E::AccessIndex { base, index } => return self.access(fr, *base, Index::Const(*index)),
            E::Unary { op, expr } => {
                let kind = self.kind(fr, *expr);
                let a = self.val(fr, *expr);
                let mut data = words(a.data.len());
                ops::unary(&mut data, *op, kind, &a.data);
                Val { comps: a.comps, uniform: a.uniform, data }
            }
            E::Binary { op, left, right } => self.binary(fr, *op, *left, *right),
            E::Select { condition, accept, reject } => {
                let c = self.val(fr, *condition);
                let a = self.val(fr, *accept);
                let r = self.val(fr, *reject);
                if c.uniform && c.comps == 1 {
                    return Slot::Val(if c.data[0] != 0 { a } else { r });
                }
                let mut data = zeroed(a.comps * n);
                for comp in 0..a.comps {
                    let cc = if c.comps == 1 { 0 } else { comp };
                    for l in 0..n {
                        data[comp * n + l] = if c.get(cc, l, n) != 0 { a.get(comp, l, n) } else { r.get(comp, l, n) };
                    }
                }
                Val::varying(a.comps, data)
            }
            E::Relational { fun, argument } => {
                use naga::RelationalFunction as R;
                let a = self.val(fr, *argument);
                let w = if a.uniform { 1 } else { n };
                match fun {
                    R::All | R::Any => {
                        let data = (0..w)
                            .map(|l| {
                                let mut bits = (0..a.comps).map(|c| a.get(c, l, w) != 0);
                                (if *fun == R::All { bits.all(|b| b) } else { bits.any(|b| b) }) as u32
                            })
                            .collect();
                        Val { comps: 1, uniform: a.uniform, data }
                    }
                    R::IsNan => map_val(&a, |x| f32::from_bits(x).is_nan() as u32),
                    R::IsInf => map_val(&a, |x| f32::from_bits(x).is_infinite() as u32),
                }
            }
            E::Math { fun, arg, arg1, arg2, arg3 } => self.math(fr, *fun, [Some(*arg), *arg1, *arg2, *arg3]),
            E::As { expr, kind, convert } => {
                let from = self.kind(fr, *expr);
                let a = self.val(fr, *expr);
                match convert {
                    None => return Slot::Val(a),
                    Some(width) => {
                        let to = Kind::of(naga::Scalar { kind: *kind, width: *width }).unwrap_or(Kind::U32);
                        map_val(&a, |x| ops::convert(from, to, x))
                    }
                }
            }
            E::ArrayLength(pointer) => {
                let p = self.ptr(fr, *pointer);
                let len = match p.region {
                    Region::Binding(b) => self.mem.len(b),
                    _ => 0,
                };
                let (fixed, stride) = self.p.runtime_array(fr.info[*pointer].ty.inner_with(&module.types), module);
                let count =
                    if stride == 0 { 0 } else { (len as u64).saturating_sub(u64::from(fixed)) / u64::from(stride) };
                Val::uniform(vec![count.min(u64::from(u32::MAX)) as u32])
            }
            &E::ImageLoad { image, coordinate, array_index, level, .. } => {
                self.per_element(fr, &[image], |e, fr| e.image_load(fr, h, image, coordinate, array_index, level))
            }
            &E::ImageQuery { image, query } => {
                self.per_element(fr, &[image], |e, fr| e.image_query(fr, h, image, query))
            }
            &E::ImageSample { image, sampler, gather: Some(c), coordinate, array_index, offset, depth_ref, .. } => {
                let at = super::sample::At { coordinate, array_index, offset: self.offset(fr, offset), depth_ref };
                self.per_element(fr, &[image, sampler], |e, fr| e.image_gather(fr, c, image, sampler, at))
            }
            &E::ImageSample { image, sampler, coordinate, array_index, level, offset, depth_ref, .. } => {
                let level = match level {
                    naga::SampleLevel::Exact(l) => Some(l),
                    _ => None,
                };
                let at = super::sample::At { coordinate, array_index, offset: self.offset(fr, offset), depth_ref };
                let v = self.per_element(fr, &[image, sampler], |e, fr| e.image_sample(fr, image, sampler, at, level));
                // A depth texture's read (and a comparison) is one float.
                match self.ty(fr, h) {
                    TypeInner::Scalar(_) => v.slice(0, 1, n),
                    _ => v,
                }
            }
            // Set by their statements; a result no lane produced reads 0.
            E::CallResult(_) | E::AtomicResult { .. } | E::WorkGroupUniformLoadResult { .. } => {
                Val::zeros(match self.ty(fr, h) {
                    TypeInner::Struct { members, .. } => members.len(),
                    TypeInner::Vector { size, .. } => *size as usize,
                    _ => 1,
                })
            }
            _ => Val::zeros(1),
        };
        Slot::val(v)
    }

    fn binary(
        &mut self,
        fr: &mut Frame,
        op: naga::BinaryOperator,
        left: Handle<naga::Expression>,
        right: Handle<naga::Expression>,
    ) -> Val {
        let n = self.n;
        let shape = |t: &TypeInner| match *t {
            TypeInner::Matrix { columns, rows, .. } => Some((columns as usize, rows as usize, true)),
            TypeInner::Vector { size, .. } => Some((1, size as usize, false)),
            _ => None,
        };
        let (ls, rs) = (shape(self.ty(fr, left)), shape(self.ty(fr, right)));
        let kind = self.kind(fr, left);
        let a = self.val(fr, left);
        let b = self.val(fr, right);
        if op == naga::BinaryOperator::Multiply {
            match (ls, rs) {
                (Some((c, r, true)), Some((_, _, false))) => return mat_mul(&a, &b, r, c, 1, n),
                (Some((_, r, false)), Some((c, _, true))) => {
                    // v * M = Mᵀ v: out[j] = Σ_i v[i] M[j][i].
                    let mut data = zeroed(c * n);
                    for j in 0..c {
                        for l in 0..n {
                            let mut s = 0.0f32;
                            for i in 0..r {
                                s += f32::from_bits(a.get(i, l, n)) * f32::from_bits(b.get(j * r + i, l, n));
                            }
                            data[j * n + l] = s.to_bits();
                        }
                    }
                    return Val::varying(c, data);
                }
                (Some((k, r, true)), Some((c, _, true))) => return mat_mul(&a, &b, r, k, c, n),
                _ => {}
            }
        }
        zip_comps(&a, &b, n, |out, x, y| ops::binary(out, op, kind, x, y))
    }

    fn math(&mut self, fr: &mut Frame, fun: naga::MathFunction, args: [Option<Handle<naga::Expression>>; 4]) -> Val {
        use naga::MathFunction as M;
        let n = self.n;
        let kind = args[0].map_or(Kind::F32, |a| self.kind(fr, a));
        let vals: Vec<Option<Rc<Val>>> = args.iter().map(|a| a.map(|a| self.val(fr, a))).collect();
        let a = vals[0].clone().unwrap_or_default();
        let uniform = vals.iter().flatten().all(|v| v.uniform);
        let w = if uniform { 1 } else { n };
        let f = |x: u32| f32::from_bits(x);
        match fun {
            M::Dot => {
                let b = vals[1].clone().unwrap_or_default();
                // Summed a component at a time over every lane, in component order as one
                // lane's sum would be: the lanes' loops vectorise.
                let mut data = zeroed(w);
                for c in 0..a.comps.min(b.comps) {
                    let (x, y) = (a.comp(c, n), b.comp(c, n));
                    let at = |s: &[u32], l: usize| if s.len() == 1 { s[0] } else { s[l] };
                    if kind == Kind::F32 && x.len() == w && y.len() == w {
                        data.iter_mut().zip(x).zip(y).for_each(|((d, &x), &y)| *d = (f(*d) + f(x) * f(y)).to_bits());
                    } else if kind == Kind::F32 {
                        (0..w).for_each(|l| data[l] = (f(data[l]) + f(at(x, l)) * f(at(y, l))).to_bits());
                    } else {
                        (0..w).for_each(|l| data[l] = data[l].wrapping_add(at(x, l).wrapping_mul(at(y, l))));
                    }
                }
                Val { comps: 1, uniform, data }
            }
            M::Length | M::Normalize | M::Distance => {
                let b = vals.get(1).cloned().flatten().filter(|_| fun == M::Distance);
                let len: Vec<u32> = (0..w)
                    .map(|l| {
                        let s: f32 = (0..a.comps)
                            .map(|c| {
                                let d = f(a.get(c, l, n)) - b.as_ref().map_or(0.0, |b| f(b.get(c, l, n)));
                                d * d
                            })
                            .sum();
                        s.sqrt().to_bits()
                    })
                    .collect();
                if fun != M::Normalize {
                    return Val { comps: 1, uniform, data: len };
                }
                let mut data = zeroed(a.comps * w);
                for c in 0..a.comps {
                    for l in 0..w {
                        data[c * w + l] = (f(a.get(c, l, n)) / f(len[l])).to_bits();
                    }
                }
                Val { comps: a.comps, uniform, data }
            }
            M::Cross => {
                let b = vals[1].clone().unwrap_or_default();
                let mut data = zeroed(3 * w);
                for l in 0..w {
                    let x = |v: &Val, c: usize| f(v.get(c, l, n));
                    data[l] = (x(&a, 1) * x(&b, 2) - x(&a, 2) * x(&b, 1)).to_bits();
                    data[w + l] = (x(&a, 2) * x(&b, 0) - x(&a, 0) * x(&b, 2)).to_bits();
                    data[2 * w + l] = (x(&a, 0) * x(&b, 1) - x(&a, 1) * x(&b, 0)).to_bits();
                }
                Val { comps: 3, uniform, data }
            }
            _ => {
                let comps = vals.iter().flatten().map(|v| v.comps).max().unwrap_or(1);
                let mut data = words(comps * w);
                for c in 0..comps {
                    // A uniform operand's one word goes with every lane (`ops::map2`, `map3`).
                    let args =
                        [0, 1, 2, 3].map(|i| vals[i].as_ref().map(|v| v.comp(if v.comps == 1 { 0 } else { c }, n)));
                    if ops::math(&mut data, fun, kind, args).is_none() {
                        data.resize((c + 1) * w, 0);
                    }
                }
                Val { comps, uniform, data }
            }
        }
    }

    fn access(&mut self, fr: &mut Frame, base: Handle<naga::Expression>, index: Index) -> Slot {
        let n = self.n;
        let (module, _) = self.p.module.naga();
        // A negative index is out of bounds.
        let idx: Offsets = match index {
            Index::Const(i) => Offsets::Uniform(i),
            Index::Dynamic(h) => {
                let signed = self.kind(fr, h) == Kind::I32;
                let v = self.val(fr, h);
                let fix = |x: u32| if signed && (x as i32) < 0 { u32::MAX } else { x };
                if v.uniform {
                    Offsets::Uniform(fix(v.data[0]))
                } else {
                    Offsets::Varying(v.data[..n].iter().map(|&x| fix(x)).collect())
                }
            }
        };
        let (prog, info) = (self.p, fr.info);
        let types = &prog.module.naga().0.types;
        let array = match info[base].ty.inner_with(types) {
            TypeInner::Pointer { base: pointee, .. } => Some((&types[*pointee].inner, true)),
            t => Some((t, false)),
        };
        if let Some((TypeInner::BindingArray { size, .. }, buffers)) = array {
            return self.descriptor(fr, base, *size, buffers, idx);
        }
        match info[base].ty.inner_with(types) {
            TypeInner::Pointer { base: pointee, .. } => {
                let pointee = *pointee;
                let p = self.ptr(fr, base);
                let components = p.region.components();
                let inner = &module.types[pointee].inner;
                let comps_of = |ty: Handle<naga::Type>| self.p.layouts.of(ty).map_or(1, |l| l.leaves.len()) as u64;
                // Element i's start: in bytes for memory the app sees (its layout), in
                // components for the kernel's own variables.
                let (stride, count, starts): (u64, Option<u32>, Option<Vec<u64>>) = match inner {
                    TypeInner::Array { stride, size, base } => (
                        if components { comps_of(*base) } else { u64::from(*stride) },
                        match size {
                            naga::ArraySize::Constant(c) => Some(c.get()),
                            _ => None,
                        },
                        None,
                    ),
                    TypeInner::Vector { size, scalar } => {
                        (if components { 1 } else { u64::from(scalar.width) }, Some(*size as u32), None)
                    }
                    TypeInner::Matrix { columns, rows, scalar } => (
                        if components {
                            *rows as u64
                        } else {
                            u64::from(naga::proc::Alignment::from(*rows) * u32::from(scalar.width))
                        },
                        Some(*columns as u32),
                        None,
                    ),
                    TypeInner::Struct { members, .. } => (
                        0,
                        Some(members.len() as u32),
                        Some(if components {
                            self.p
                                .layouts
                                .of(pointee)
                                .map(|l| l.member_comps.iter().map(|&c| c as u64).collect())
                                .unwrap_or_default()
                        } else {
                            members.iter().map(|m| u64::from(m.offset)).collect()
                        }),
                    ),
                    _ => (0, Some(0), None),
                };
                // The kernel's own arrays clamp an index past their end to the last element
                // (naga's `Restrict`, what the Vulkan device's SPIR-V does); memory the app
                // sees is bounded by its bytes alone, as robust buffer access is.
                let offsets = match (count, &starts) {
                    (Some(0), _) => Offsets::Uniform(OUT),
                    (_, None) => {
                        // Elements at one stride (arrays, vectors, matrices): no branch but the
                        // selects, so the lanes' loop vectorises.
                        let last = match count {
                            Some(c) if components => c - 1,
                            _ => u32::MAX,
                        };
                        let step = |o: u32, i: u32| -> u32 {
                            let at = u64::from(o) + u64::from(i.min(last)) * stride;
                            if o == OUT || at >= u64::from(OUT) {
                                OUT
                            } else {
                                at as u32
                            }
                        };
                        match (&p.offsets, &idx) {
                            (Offsets::Uniform(o), Offsets::Varying(i)) => element_run(*o, i, stride, last)
                                .unwrap_or_else(|| offsets_step(&p.offsets, &idx, n, step)),
                            _ => offsets_step(&p.offsets, &idx, n, step),
                        }
                    }
                    (_, Some(starts)) => {
                        let last = count.map_or(0, |c| c.saturating_sub(1));
                        let step = |o: u32, i: u32| -> u32 {
                            let at = u64::from(o) + starts.get(i.min(last) as usize).copied().unwrap_or(0);
                            if o == OUT || at >= u64::from(OUT) {
                                OUT
                            } else {
                                at as u32
                            }
                        };
                        offsets_step(&p.offsets, &idx, n, step)
                    }
                };
                Slot::ptr(Ptr { region: p.region, offsets })
            }
            TypeInner::ValuePointer { size, scalar, .. } => {
                // A pointer to a vector's component.
                let count = size.map_or(1, |s| s as u32);
                let p = self.ptr(fr, base);
                let width = if p.region.components() { 1 } else { u32::from(scalar.width) };
                let clamp = p.region.components();
                let step = |o: u32, i: u32| {
                    let i = if clamp { i.min(count - 1) } else { i };
                    if o == OUT {
                        OUT
                    } else {
                        o.saturating_add(i.saturating_mul(width))
                    }
                };
                Slot::ptr(Ptr { region: p.region, offsets: offsets_step(&p.offsets, &idx, n, step) })
            }
            t => {
                // Components of one element, and where element i starts.
                let (elem, count, starts): (usize, usize, Option<Vec<usize>>) = match t {
                    TypeInner::Vector { size, .. } => (1, *size as usize, None),
                    TypeInner::Matrix { columns, rows, .. } => (*rows as usize, *columns as usize, None),
                    TypeInner::Array { base, size: naga::ArraySize::Constant(c), .. } => {
                        (self.p.layouts.of(*base).map_or(1, |l| l.leaves.len()), c.get() as usize, None)
                    }
                    TypeInner::Struct { .. } => {
                        let layout = self.p.layouts.of_inner(t, module).unwrap_or_default();
                        (0, layout.member_comps.len(), Some(layout.member_comps.clone()))
                    }
                    _ => (1, 1, None),
                };
                let v = self.val(fr, base);
                if let Some(starts) = starts {
                    // Struct members are reached by constant index only.
                    let i = idx.get(0) as usize;
                    let start = starts.get(i).copied().unwrap_or(0);
                    let end = starts.get(i + 1).copied().unwrap_or(v.comps);
                    return Slot::val(v.slice(start, end - start, n));
                }
                // An index past a value's last element clamps to it (naga's `Restrict`).
                if count == 0 {
                    return Slot::val(Val::zeros(elem));
                }
                if let Offsets::Uniform(i) = idx {
                    let i = (i as usize).min(count - 1);
                    return Slot::val(v.slice(i * elem, elem, n));
                }
                let mut data = zeroed(elem * n);
                for l in 0..n {
                    let i = (idx.get(l) as usize).min(count - 1);
                    for c in 0..elem {
                        data[c * n + l] = v.get(i * elem + c, l, n);
                    }
                }
                Slot::val(Val::varying(elem, data))
            }
        }
    }
}

impl Engine<'_, '_, '_> {
    /// Element `idx` of an array of descriptors: its slot in the dispatch's memory. An index
    /// past the end clamps to the last element (naga's `Restrict`, what the Vulkan device's
    /// SPIR-V does: its checks cannot make a texture read 0). Buffers are indexed by a
    /// dynamically uniform value (validation checks it), so the first active lane's is every
    /// lane's; textures and samplers may differ a lane, and their operations then run once an
    /// element (`per_element`).
    fn descriptor(
        &mut self,
        fr: &mut Frame,
        base: Handle<naga::Expression>,
        size: naga::ArraySize,
        buffers: bool,
        idx: Offsets,
    ) -> Slot {
        let n = self.n;
        let Region::Binding(first) = self.ptr(fr, base).region else { return Slot::ptr(self.nowhere()) };
        let last = match size {
            naga::ArraySize::Constant(c) => c.get() - 1,
            _ => 0,
        };
        let lane = fr.active.iter().position(|&a| a).unwrap_or(0);
        let element = match idx {
            Offsets::Uniform(i) => i,
            _ if buffers => idx.get(lane),
            _ => {
                let v = (0..n).map(|l| idx.get(l).min(last)).collect();
                return Slot::ptr(Ptr { region: Region::Binding(first), offsets: Offsets::Varying(v) });
            }
        };
        let element = element.min(last) as usize;
        Slot::ptr(Ptr { region: Region::Binding(first + element), offsets: Offsets::Uniform(0) })
    }

    /// A pointer to nothing: reads 0, drops writes.
    fn nowhere(&self) -> Ptr {
        Ptr { region: Region::Immediate, offsets: Offsets::Uniform(OUT) }
    }
}

/// Each lane's offset after `step` with its index; uniform when both are. `step` adds to the
/// offset an amount its index alone sets (or gives `OUT`), so lanes at one stride stay so under
/// one index.
fn offsets_step(offsets: &Offsets, idx: &Offsets, n: usize, step: impl Fn(u32, u32) -> u32) -> Offsets {
    match (offsets, idx) {
        (Offsets::Uniform(o), Offsets::Uniform(i)) => Offsets::Uniform(step(*o, *i)),
        (Offsets::Strided { first, stride }, Offsets::Uniform(i)) => {
            let last = offsets.get(n.saturating_sub(1));
            let (f, l) = (step(*first, *i), step(last, *i));
            if f != OUT && l != OUT && u64::from(l) == u64::from(f) + u64::from(*stride) * (n as u64).saturating_sub(1)
            {
                return Offsets::Strided { first: f, stride: *stride };
            }
            Offsets::Varying((0..n).map(|l| step(offsets.get(l), *i)).collect())
        }
        (Offsets::Uniform(o), Offsets::Varying(i)) => Offsets::Varying(i.iter().map(|&i| step(*o, i)).collect()),
        (Offsets::Varying(o), Offsets::Uniform(i)) => Offsets::Varying(o.iter().map(|&o| step(o, *i)).collect()),
        (Offsets::Varying(o), Offsets::Varying(i)) => {
            Offsets::Varying(o.iter().zip(i).map(|(&o, &i)| step(o, i)).collect())
        }
        _ => Offsets::Varying((0..n).map(|l| step(offsets.get(l), idx.get(l))).collect()),
    }
}

/// Element offsets of lanes whose indices count up by one step (an array indexed by the thread
/// id) from `base`, when none is clamped to `last` or leaves the offsets' range: a run at one
/// stride, with no list. `None` for other indices.
fn element_run(base: u32, idx: &[u32], stride: u64, last: u32) -> Option<Offsets> {
    let (&i0, &i1) = (idx.first()?, idx.get(1)?);
    let d = i1.checked_sub(i0).filter(|&d| d > 0)?;
    let n = idx.len();
    let i_last = u64::from(i0) + u64::from(d) * (n as u64 - 1);
    if i_last > u64::from(last) || base == OUT {
        return None;
    }
    // No wrap below: the last index fits (checked above), so every one does.
    let follows =
        idx.iter().enumerate().fold(true, |ok, (l, &x)| ok & (x == i0.wrapping_add((l as u32).wrapping_mul(d))));
    let first = u64::from(base) + u64::from(i0) * stride;
    let step = u64::from(d) * stride;
    let end = first + step * (n as u64 - 1);
    (follows && end < u64::from(OUT) && step <= u64::from(u32::MAX))
        .then_some(Offsets::Strided { first: first as u32, stride: step as u32 })
}

/// `a` (r×k, column-major components) times `b` (k×c): r×c.
fn mat_mul(a: &Val, b: &Val, r: usize, k: usize, c: usize, n: usize) -> Val {
    let uniform = a.uniform && b.uniform;
    let w = if uniform { 1 } else { n };
    let mut data = zeroed(r * c * w);
    for j in 0..c {
        for i in 0..r {
            for l in 0..w {
                let mut s = 0.0f32;
                for t in 0..k {
                    s += f32::from_bits(a.get(t * r + i, l, n)) * f32::from_bits(b.get(j * k + t, l, n));
                }
                data[(j * r + i) * w + l] = s.to_bits();
            }
        }
    }
    Val { comps: r * c, uniform, data }
}

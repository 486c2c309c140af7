//! Types as the engine sees them: a value is a list of 32-bit components (scalars in order,
//! structs and arrays flattened), and each component sits at a byte offset in memory (naga's
//! layout: member offsets, array strides, matrix columns at their vector alignment).

use naga::{Handle, Scalar, ScalarKind, Type, TypeInner};
use std::sync::Arc;

/// A component's kind: what its 32 bits mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    F32,
    I32,
    U32,
    Bool,
}

impl Kind {
    pub(crate) fn of(s: Scalar) -> Option<Kind> {
        match (s.kind, s.width) {
            (ScalarKind::Float, 4) => Some(Kind::F32),
            (ScalarKind::Sint, 4) => Some(Kind::I32),
            (ScalarKind::Uint, 4) => Some(Kind::U32),
            (ScalarKind::Bool, _) => Some(Kind::Bool),
            _ => None,
        }
    }

    /// Bytes it takes in memory (naga lays out `bool` in one byte).
    pub(crate) fn width(self) -> u32 {
        if self == Kind::Bool {
            1
        } else {
            4
        }
    }
}

/// One component in memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaf {
    pub(crate) offset: u32,
    pub(crate) kind: Kind,
}

/// A type's components and size.
#[derive(Clone, Debug, Default)]
pub(crate) struct TypeLayout {
    /// Components in value order, with their offsets from the value's start (shared: every
    /// load and store of the type reads them).
    pub(crate) leaves: Arc<[Leaf]>,
    /// For structs, each member's first component.
    pub(crate) member_comps: Vec<usize>,
}

/// Every type of a module, laid out once.
pub(crate) struct Layouts {
    types: Vec<Option<TypeLayout>>,
}

impl Layouts {
    pub(crate) fn new(module: &naga::Module) -> Self {
        let mut types: Vec<Option<TypeLayout>> = Vec::with_capacity(module.types.len());
        let gctx = module.to_ctx();
        // naga's arena orders types after the types they contain.
        for (_, ty) in module.types.iter() {
            let l = layout_of(&ty.inner, &types, gctx);
            types.push(l);
        }
        Self { types }
    }

    /// The layout of `ty`, if the engine can hold its values.
    pub(crate) fn of(&self, ty: Handle<Type>) -> Option<&TypeLayout> {
        self.types.get(ty.index()).and_then(Option::as_ref)
    }

    /// The layout of an inner type: a handle's, or a scalar, vector or matrix.
    pub(crate) fn of_inner(&self, inner: &TypeInner, module: &naga::Module) -> Option<TypeLayout> {
        layout_of(inner, &self.types, module.to_ctx())
    }
}

fn vector_leaves(n: u32, kind: Kind, base: u32, out: &mut Vec<Leaf>) {
    out.extend((0..n).map(|i| Leaf { offset: base + i * kind.width(), kind }));
}

fn layout_of(inner: &TypeInner, done: &[Option<TypeLayout>], _gctx: naga::proc::GlobalCtx) -> Option<TypeLayout> {
    let mut leaves = Vec::new();
    let mut member_comps = Vec::new();
    match *inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => leaves.push(Leaf { offset: 0, kind: Kind::of(s)? }),
        TypeInner::Vector { size: n, scalar } => vector_leaves(n as u32, Kind::of(scalar)?, 0, &mut leaves),
        TypeInner::Matrix { columns, rows, scalar } => {
            let kind = Kind::of(scalar)?;
            // A column is aligned as its vector: vec3 columns sit 16 bytes apart.
            let stride = naga::proc::Alignment::from(rows) * u32::from(scalar.width);
            for c in 0..columns as u32 {
                vector_leaves(rows as u32, kind, c * stride, &mut leaves);
            }
        }
        TypeInner::Array { base, size: n, stride } => {
            let element = done.get(base.index())?.as_ref()?;
            let count = match n {
                naga::ArraySize::Constant(n) => n.get(),
                // Values of runtime-sized arrays do not exist; the pointer arithmetic needs
                // only the element.
                _ => 1,
            };
            // Arrays of many elements flatten into many components: the engine holds each.
            if element.leaves.len().checked_mul(count as usize)? > 1 << 16 {
                return None;
            }
            for i in 0..count {
                leaves.extend(element.leaves.iter().map(|l| Leaf { offset: i * stride + l.offset, kind: l.kind }));
            }
        }
        TypeInner::Struct { ref members, .. } => {
            for m in members {
                let ml = done.get(m.ty.index())?.as_ref()?;
                member_comps.push(leaves.len());
                leaves.extend(ml.leaves.iter().map(|l| Leaf { offset: m.offset + l.offset, kind: l.kind }));
            }
        }
        _ => return None,
    }
    Some(TypeLayout { leaves: leaves.into(), member_comps })
}

//! The reference device's shader engine: the app's compute kernels, run from naga's IR.
//!
//! A pipeline is checked once (`Program::compile`: every expression, statement and type the
//! kernel uses is one the engine runs, or creation fails with `Unsupported` naming it) and then
//! runs **structure-of-arrays**: a batch of lanes (one workgroup, or several when the kernel
//! shares nothing between its threads) moves through the kernel together, each value holding a
//! component slice per lane (`value.rs`), each operation a loop down those slices (`ops.rs`).
//! Divergence is an execution mask over naga's structured control flow (`engine.rs`); a barrier
//! costs nothing, as the group is in lockstep. Accesses are robust: out-of-bounds reads give 0
//! and writes are dropped, in buffers and in the kernel's own arrays alike (what naga's
//! `ReadZeroSkipWrite` policy makes the Vulkan device do). Atomics apply in lane order and
//! batches run in group order, so every run gives the same bytes. A loop that runs past the
//! dispatch's deadline stops the kernel ([`engine::Hung`]): the device is then removed.

mod compact;
mod cube;
mod engine;
mod eval;
mod layout;
mod memory;
mod ops;
mod sample;
mod texture;
mod value;

pub(crate) use engine::Hung;
pub(crate) use memory::{share, Memory, View};
pub(crate) use texture::{Sub, Texture};

use asyncmd_ddi::AppShader;
use asyncmd_shader::{bind_to_root, EntryPointInfo, RootBindings, ShaderModule, ShaderStage};
use asyncmd_types::{Error, ErrorCode, MessageId, Result, RootSignatureDesc};
use engine::{Batch, Engine};
use layout::Layouts;
use naga::{Expression as E, Handle, Statement as S, TypeInner};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The first threads of a dispatch's batches.
pub(crate) type Batches = std::iter::StepBy<std::ops::Range<u64>>;

/// The most descriptors an array of them may hold here.
const MAX_ARRAY: u32 = 1 << 16;
/// Lanes a batch holds when the kernel lets several groups share one.
const BATCH_LANES: usize = 1024;
/// Threads of a dispatch below which its batches run on the calling thread: waking the
/// workers costs tens of microseconds.
const SPREAD_LANES: u64 = 16 * 1024;

/// A compute pipeline of the app's kernel, ready to run.
pub(crate) struct Program {
    pub(crate) module: Arc<ShaderModule>,
    /// The entry point's index in the module.
    pub(crate) entry: usize,
    pub(crate) info: EntryPointInfo,
    pub(crate) bindings: RootBindings,
    pub(crate) layouts: Layouts,
    /// For each global variable, its first slot in the dispatch's memory: a binding takes
    /// one slot, an array of descriptors one an element, in `info.bindings`' order.
    pub(crate) binding_of: Vec<Option<usize>>,
    /// For each of `info.bindings`, its first slot.
    pub(crate) first_slot: Vec<usize>,
    /// Slots in all.
    pub(crate) slots: usize,
    /// The root signature's static samplers, each with its border colour.
    pub(crate) static_samplers: Vec<asyncmd_types::SamplerDesc>,
    /// Whether groups may share a batch: no workgroup memory, no barrier.
    pub(crate) shares_nothing: bool,
    /// Whether the kernel has atomics on storage buffers: its batches then run in order.
    storage_atomics: bool,
}

fn unsupported(what: String) -> Error {
    Error::new(
        ErrorCode::Unsupported,
        MessageId::CreatePipelineStateInvalid,
        format!("CreatePipelineState: the reference device does not run {what} yet"),
    )
}

impl Program {
    /// Checks `shader` against `root` and everything it uses against what the engine runs.
    pub(crate) fn compile(shader: &AppShader, root: &RootSignatureDesc) -> Result<Program> {
        let info = shader.module.entry_point(&shader.entry_point, ShaderStage::Compute)?.clone();
        let bindings = bind_to_root(&info, root).map_err(|why| {
            Error::invalid_arg(MessageId::CreatePipelineStateInvalid, format!("CreatePipelineState: {why}"))
        })?;
        let (module, _) = shader.module.naga();
        let layouts = Layouts::new(module);
        let mut binding_of = vec![None; module.global_variables.len()];
        let mut first_slot = Vec::with_capacity(info.bindings.len());
        let mut slots = 0usize;
        for b in &info.bindings {
            if b.count > MAX_ARRAY {
                return Err(unsupported(format!(
                    "unbounded or larger arrays of descriptors than {MAX_ARRAY} (`{}`)",
                    b.name
                )));
            }
            binding_of[b.global] = Some(slots);
            first_slot.push(slots);
            slots += b.count as usize;
        }
        for (_, g) in module.global_variables.iter() {
            let ty = match module.types[g.ty].inner {
                TypeInner::BindingArray { base, .. } => base,
                _ => g.ty,
            };
            if g.space != naga::AddressSpace::Handle && layouts.of(ty).is_none() {
                return Err(unsupported(format!("the type of `{}`", g.name.as_deref().unwrap_or("a global"))));
            }
        }
        for b in &info.bindings {
            match b.kind {
                asyncmd_shader::BindingKind::Buffer { .. } => {}
                asyncmd_shader::BindingKind::Texture { dim: 1..=4, multisampled: false, .. } => {}
                asyncmd_shader::BindingKind::Texture { .. } => {
                    return Err(unsupported(format!("multisampled textures (`{}`)", b.name)))
                }
                asyncmd_shader::BindingKind::Sampler { .. } => {}
            }
        }
        let mut shares_nothing = info.workgroup_bytes == 0;
        let mut storage_atomics = false;
        let ep = &module.entry_points[info.index];
        let functions = std::iter::once(&ep.function).chain(module.functions.iter().map(|(_, f)| f));
        for f in functions {
            for (_, v) in f.local_variables.iter() {
                if layouts.of(v.ty).is_none() {
                    return Err(unsupported(format!("the type of local `{}`", v.name.as_deref().unwrap_or("?"))));
                }
            }
            for (_, e) in f.expressions.iter() {
                check_expression(e)?;
            }
            check_block(&f.body, &mut shares_nothing)?;
            // An atomic through a pointer handed to a function counts too: conservative.
            storage_atomics |= atomics_on_storage(module, f, &f.body);
        }
        Ok(Program {
            module: shader.module.clone(),
            entry: info.index,
            info,
            bindings,
            layouts,
            binding_of,
            first_slot,
            slots,
            static_samplers: root
                .static_samplers
                .iter()
                .map(|s| asyncmd_types::SamplerDesc { border_color: s.border.rgba(), ..s.desc })
                .collect(),
            shares_nothing,
            storage_atomics,
        })
    }

    /// Runs a dispatch of `groups` groups; stops at `deadline`. `spread` runs the batches
    /// (each named by its first thread) in any order on any threads, for the kernels that allow
    /// it; the others run theirs in order here.
    pub(crate) fn dispatch(
        &self,
        groups: [u32; 3],
        mem: &Memory,
        deadline: Instant,
        spread: impl FnOnce(Batches, &(dyn Fn(u64) + Sync)),
    ) -> std::result::Result<(), Hung> {
        let threads = self.info.workgroup_size.iter().map(|&v| u64::from(v.max(1))).product::<u64>();
        let total = groups.iter().map(|&g| u64::from(g)).product::<u64>() * threads;
        // A kernel that shares nothing between its threads runs in batches of any lanes (a
        // group may be split); otherwise a batch is one whole group.
        let per_batch = if self.shares_nothing { BATCH_LANES as u64 } else { threads };
        let hung = AtomicBool::new(false);
        let run = &|first: u64| {
            if hung.load(Ordering::Relaxed) || Instant::now() > deadline {
                hung.store(true, Ordering::Relaxed);
                return;
            }
            let lanes = per_batch.min(total - first) as usize;
            let batch = Batch { lanes, first, num_groups: groups, group_size: self.info.workgroup_size };
            if Engine::new(self, mem, &batch, deadline).run().is_err() {
                hung.store(true, Ordering::Relaxed);
            }
        };
        let batches = (0..total).step_by(per_batch.max(1) as usize);
        // Batches run on the worker pool, in any order: a group's writes never depend on
        // another's but through atomics, and a kernel with atomics on storage buffers runs its
        // batches in order on this thread, so that they apply in one fixed order.
        if self.storage_atomics || total < SPREAD_LANES {
            batches.for_each(run);
        } else {
            spread(batches, run);
        }
        if hung.load(Ordering::Relaxed) {
            return Err(Hung);
        }
        Ok(())
    }

    /// The components of a constant expression of the module (an initializer, a constant).
    pub(crate) fn global_value(&self, h: Handle<naga::Expression>) -> Vec<u32> {
        let (module, _) = self.module.naga();
        self.expression_value(&module.global_expressions, h)
    }

    /// The components of a constant expression in `arena`.
    pub(crate) fn expression_value(
        &self,
        arena: &naga::Arena<naga::Expression>,
        h: Handle<naga::Expression>,
    ) -> Vec<u32> {
        let (module, _) = self.module.naga();
        match &arena[h] {
            E::Literal(l) => vec![literal(l)],
            E::Constant(c) => self.global_value(module.constants[*c].init),
            E::ZeroValue(ty) => vec![0; self.layouts.of(*ty).map_or(1, |l| l.leaves.len())],
            E::Compose { components, .. } => components.iter().flat_map(|c| self.expression_value(arena, *c)).collect(),
            E::Splat { size, value } => self.expression_value(arena, *value).repeat(*size as usize),
            _ => vec![0],
        }
    }

    /// For a pointer to a runtime-sized array (or a struct ending in one): the bytes before
    /// it and its stride.
    pub(crate) fn runtime_array(&self, ptr: &TypeInner, module: &naga::Module) -> (u32, u32) {
        let TypeInner::Pointer { base, .. } = ptr else { return (0, 0) };
        match &module.types[*base].inner {
            TypeInner::Array { stride, .. } => (0, *stride),
            TypeInner::Struct { members, .. } => members
                .last()
                .and_then(|m| match module.types[m.ty].inner {
                    TypeInner::Array { stride, size: naga::ArraySize::Dynamic, .. } => Some((m.offset, stride)),
                    _ => None,
                })
                .unwrap_or((0, 0)),
            _ => (0, 0),
        }
    }
}

fn literal(l: &naga::Literal) -> u32 {
    match *l {
        naga::Literal::F32(v) => v.to_bits(),
        naga::Literal::U32(v) => v,
        naga::Literal::I32(v) => v as u32,
        naga::Literal::Bool(v) => v as u32,
        // Abstract literals are concretized by validation; the rest are refused at compile.
        naga::Literal::AbstractInt(v) => v as u32,
        naga::Literal::AbstractFloat(v) => (v as f32).to_bits(),
        _ => 0,
    }
}

fn check_expression(e: &naga::Expression) -> Result<()> {
    use naga::MathFunction as M;
    let what = match e {
        E::Literal(
            naga::Literal::F64(_)
            | naga::Literal::I64(_)
            | naga::Literal::U64(_)
            | naga::Literal::F16(_)
            | naga::Literal::I16(_)
            | naga::Literal::U16(_),
        ) => "64- and 16-bit values",
        E::Literal(_)
        | E::Constant(_)
        | E::ZeroValue(_)
        | E::Compose { .. }
        | E::Access { .. }
        | E::AccessIndex { .. }
        | E::Splat { .. }
        | E::Swizzle { .. }
        | E::FunctionArgument(_)
        | E::GlobalVariable(_)
        | E::LocalVariable(_)
        | E::Load { .. }
        | E::Unary { .. }
        | E::Binary { .. }
        | E::Select { .. }
        | E::Relational { .. }
        | E::As { .. }
        | E::CallResult(_)
        | E::AtomicResult { .. }
        | E::WorkGroupUniformLoadResult { .. }
        | E::ArrayLength(_) => return Ok(()),
        E::Math { fun, .. } => match fun {
            M::Abs
            | M::Min
            | M::Max
            | M::Clamp
            | M::Saturate
            | M::Cos
            | M::Cosh
            | M::Sin
            | M::Sinh
            | M::Tan
            | M::Tanh
            | M::Acos
            | M::Asin
            | M::Atan
            | M::Atan2
            | M::Asinh
            | M::Acosh
            | M::Atanh
            | M::Radians
            | M::Degrees
            | M::Ceil
            | M::Floor
            | M::Round
            | M::Fract
            | M::Trunc
            | M::Exp
            | M::Exp2
            | M::Log
            | M::Log2
            | M::Pow
            | M::Dot
            | M::Cross
            | M::Distance
            | M::Length
            | M::Normalize
            | M::Sign
            | M::Fma
            | M::Mix
            | M::Step
            | M::SmoothStep
            | M::Sqrt
            | M::InverseSqrt
            | M::CountTrailingZeros
            | M::CountLeadingZeros
            | M::CountOneBits
            | M::ReverseBits
            | M::ExtractBits
            | M::InsertBits
            | M::FirstTrailingBit
            | M::FirstLeadingBit => return Ok(()),
            _ => return Err(unsupported(format!("the math function {fun:?}"))),
        },
        E::ImageLoad { sample: None, .. } | E::ImageQuery { .. } => return Ok(()),
        E::ImageSample {
            gather: None,
            level: naga::SampleLevel::Zero | naga::SampleLevel::Exact(_),
            clamp_to_edge: false,
            ..
        } => return Ok(()),
        // A gather reads mip 0, with no filter and no level; a comparison gather compares each.
        E::ImageSample { gather: Some(_), clamp_to_edge: false, .. } => return Ok(()),
        E::ImageSample { .. } => "sampling but at a given level",
        E::ImageLoad { .. } => "multisampled loads",
        E::Derivative { .. } => "derivatives",
        _ => "this expression",
    };
    Err(unsupported(format!("{what} ({e:?})")))
}

/// Whether `block` has an atomic statement on a storage buffer (the pointer's root is a global
/// of the storage address space).
fn atomics_on_storage(module: &naga::Module, f: &naga::Function, block: &naga::Block) -> bool {
    let root_space = |mut h: Handle<naga::Expression>| loop {
        match f.expressions[h] {
            E::Access { base, .. } | E::AccessIndex { base, .. } => h = base,
            E::GlobalVariable(g) => return Some(module.global_variables[g].space),
            _ => return None,
        }
    };
    block.iter().any(|s| match s {
        S::Atomic { pointer, .. } => !matches!(root_space(*pointer), Some(naga::AddressSpace::WorkGroup)),
        S::Block(b) => atomics_on_storage(module, f, b),
        S::If { accept, reject, .. } => atomics_on_storage(module, f, accept) || atomics_on_storage(module, f, reject),
        S::Switch { cases, .. } => cases.iter().any(|c| atomics_on_storage(module, f, &c.body)),
        S::Loop { body, continuing, .. } => {
            atomics_on_storage(module, f, body) || atomics_on_storage(module, f, continuing)
        }
        _ => false,
    })
}

fn check_block(block: &naga::Block, shares_nothing: &mut bool) -> Result<()> {
    for s in block.iter() {
        match s {
            S::Emit(_)
            | S::Break
            | S::Continue
            | S::Return { .. }
            | S::Store { .. }
            | S::Call { .. }
            | S::ImageStore { .. }
            | S::Atomic { .. } => {}
            S::ControlBarrier(_) | S::MemoryBarrier(_) | S::WorkGroupUniformLoad { .. } => *shares_nothing = false,
            S::Block(b) => check_block(b, shares_nothing)?,
            S::If { accept, reject, .. } => {
                check_block(accept, shares_nothing)?;
                check_block(reject, shares_nothing)?;
            }
            S::Switch { cases, .. } => {
                for c in cases {
                    check_block(&c.body, shares_nothing)?;
                }
            }
            S::Loop { body, continuing, .. } => {
                check_block(body, shares_nothing)?;
                check_block(continuing, shares_nothing)?;
            }
            other => return Err(unsupported(format!("the statement {other:?}"))),
        }
    }
    Ok(())
}

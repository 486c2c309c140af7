//! A time budget for the app's kernels on devices without a GPU timeout.
//!
//! A GPU's driver resets a kernel that runs too long; a CPU device (lavapipe, SwiftShader)
//! runs it forever, and every wait on its work with it. There the device keeps two words in
//! host-visible memory: a clock a thread of its own advances (milliseconds), and a flag. Each
//! app kernel is compiled with a check at the top of every loop body (`instrument`): an
//! invocation that has run longer than the budget since it started sets the flag and leaves
//! the loop, so its dispatch ends; the thread sees the flag and the device is lost with the
//! reason "device hung", as the reference device's budget removes it.
//!
//! The budget counts per invocation, from its first statement: what never ends is an
//! invocation's loop. A dispatch of many invocations that each end in time is not cut short.

use ash::vk;
use asyncmd_types::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Word 0: the clock; word 1: set by a kernel that ran past the budget.
const WORDS: u64 = 2;
/// How often the clock moves.
const TICK: Duration = Duration::from_millis(2);

/// The mapped words, handed to the clock's thread.
struct Words(*mut u32);

// SAFETY: the pointer is the device's mapping of the watchdog's memory, which outlives the
// thread and the watchdog's own uses (`Drop` joins the thread before the memory is freed), and
// it is only reached through atomics.
unsafe impl Send for Words {}
// SAFETY: as above: every access is atomic.
unsafe impl Sync for Words {}

impl Words {
    fn word(&self, i: usize) -> &AtomicU32 {
        // SAFETY: `i < WORDS`, the mapping is 4-byte aligned and lives as long as `self`;
        // device and host reach it only through atomics.
        unsafe { AtomicU32::from_ptr(self.0.add(i)) }
    }
}

/// The clock, the flag and the thread that watches them.
pub(crate) struct Watchdog {
    device: ash::Device,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    budget_ms: u32,
    words: Arc<Words>,
    hung: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    /// Makes the words and starts the clock.
    pub(crate) fn new(core: &crate::core::Core, budget: Duration) -> Result<Self> {
        let d = &core.device;
        let oom = |e: vk::Result| Error::out_of_memory(format!("Vulkan: the kernels' watchdog: {e}"));
        let info = vk::BufferCreateInfo::default().size(4 * WORDS).usage(vk::BufferUsageFlags::STORAGE_BUFFER);
        // SAFETY: valid create info.
        let buffer = unsafe { d.create_buffer(&info, None) }.map_err(oom)?;
        // SAFETY: a buffer of this device.
        let needs = unsafe { d.get_buffer_memory_requirements(buffer) };
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        // SAFETY: a query on this device's physical device.
        let types = unsafe { core.instance.instance.get_physical_device_memory_properties(core.physical) };
        let Some(index) = types
            .memory_types_as_slice()
            .iter()
            .enumerate()
            .position(|(i, t)| needs.memory_type_bits & (1 << i) != 0 && t.property_flags.contains(wanted))
        else {
            // SAFETY: made above, used by nothing.
            unsafe { d.destroy_buffer(buffer, None) };
            return Err(Error::unsupported("Vulkan: no host-coherent memory for the kernels' watchdog"));
        };
        let alloc = vk::MemoryAllocateInfo::default().allocation_size(needs.size).memory_type_index(index as u32);
        // SAFETY: valid allocate info; the memory is bound, mapped and freed once below or in Drop.
        let made = unsafe {
            d.allocate_memory(&alloc, None).and_then(|m| {
                let mapped = d
                    .bind_buffer_memory(buffer, m, 0)
                    .and_then(|()| d.map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()));
                match mapped {
                    Ok(p) => Ok((m, p.cast::<u32>())),
                    Err(e) => {
                        d.free_memory(m, None);
                        Err(e)
                    }
                }
            })
        };
        let (memory, words) = match made {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: made above, used by nothing.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(oom(e));
            }
        };
        let words = Arc::new(Words(words));
        words.word(0).store(0, Ordering::Relaxed);
        words.word(1).store(0, Ordering::Relaxed);
        let (hung, stop) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let (h, s, w) = (hung.clone(), stop.clone(), words.clone());
        let thread = std::thread::Builder::new().name("asyncmd-watchdog".into()).spawn(move || {
            let start = Instant::now();
            while !s.load(Ordering::Acquire) {
                std::thread::sleep(TICK);
                w.word(0).store(start.elapsed().as_millis() as u32, Ordering::Relaxed);
                if w.word(1).load(Ordering::Relaxed) != 0 && !h.swap(true, Ordering::AcqRel) {
                    tracing::error!("Vulkan: a kernel ran past the shader time budget; the device is removed");
                }
            }
        });
        let mut dog = Self {
            device: d.clone(),
            buffer,
            memory,
            budget_ms: budget.as_millis().clamp(1, u128::from(u32::MAX / 2)) as u32,
            words,
            hung,
            stop,
            thread: None,
        };
        dog.thread = Some(thread.map_err(|e| Error::out_of_memory(format!("Vulkan: the watchdog's thread: {e}")))?);
        Ok(dog)
    }

    /// The words, bound to every app kernel.
    pub(crate) fn buffer(&self) -> vk::Buffer {
        self.buffer
    }

    /// Whether a kernel ran past the budget: the flag itself, so that a wait that returns
    /// after the kernel's end sees it at once.
    pub(crate) fn hung(&self) -> bool {
        self.hung.load(Ordering::Acquire) || self.words.word(1).load(Ordering::Acquire) != 0
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // SAFETY: the device is idle (the core waits for it first) and the thread is gone.
        unsafe {
            self.device.destroy_buffer(self.buffer, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

/// Whether `module` has a loop anywhere: only then can one of its invocations run forever.
pub(crate) fn has_loops(module: &naga::Module) -> bool {
    let any = |f: &naga::Function| {
        let mut out = Vec::new();
        collect_loops(&f.body, &mut Vec::new(), &mut out);
        !out.is_empty()
    };
    module.functions.iter().any(|(_, f)| any(f)) || module.entry_points.iter().any(|ep| any(&ep.function))
}

/// Compiles the budget into `module`: a storage buffer of the two words at
/// `binding`, and at the top of every loop body of every function a check that leaves the
/// loop, and sets the flag, once the invocation has run past the budget.
pub(crate) fn instrument(module: &mut naga::Module, dog: &Watchdog, binding: naga::ResourceBinding) {
    use naga::{AddressSpace, Expression, Scalar, Span, Statement, Type, TypeInner};
    let u32_ty = module.types.insert(Type { name: None, inner: TypeInner::Scalar(Scalar::U32) }, Span::UNDEFINED);
    let atomic = module.types.insert(Type { name: None, inner: TypeInner::Atomic(Scalar::U32) }, Span::UNDEFINED);
    let words_ty = module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Array {
                base: atomic,
                size: naga::ArraySize::Constant(std::num::NonZeroU32::MIN.saturating_add(1)),
                stride: 4,
            },
        },
        Span::UNDEFINED,
    );
    let words = module.global_variables.append(
        naga::GlobalVariable {
            name: Some("asyncmd_watchdog".into()),
            space: AddressSpace::Storage { access: naga::StorageAccess::LOAD | naga::StorageAccess::STORE },
            binding: Some(binding),
            ty: words_ty,
            init: None,
            // The host moves the clock while kernels run: no load of it may be hoisted.
            memory_decorations: naga::MemoryDecorations::VOLATILE | naga::MemoryDecorations::COHERENT,
        },
        Span::UNDEFINED,
    );
    let start = module.global_variables.append(
        naga::GlobalVariable {
            name: Some("asyncmd_started".into()),
            space: AddressSpace::Private,
            binding: None,
            ty: u32_ty,
            init: None,
            memory_decorations: naga::MemoryDecorations::empty(),
        },
        Span::UNDEFINED,
    );
    let budget = dog.budget_ms;
    let guard = |f: &mut naga::Function| {
        let mut loops = Vec::new();
        collect_loops(&f.body, &mut Vec::new(), &mut loops);
        for path in loops.into_iter().rev() {
            let e = &mut f.expressions;
            let (gw, gs) = (
                e.append(Expression::GlobalVariable(words), Span::UNDEFINED),
                e.append(Expression::GlobalVariable(start), Span::UNDEFINED),
            );
            let limit = e.append(Expression::Literal(naga::Literal::U32(budget)), Span::UNDEFINED);
            let one = e.append(Expression::Literal(naga::Literal::U32(1)), Span::UNDEFINED);
            let clock_ptr = e.append(Expression::AccessIndex { base: gw, index: 0 }, Span::UNDEFINED);
            let first = clock_ptr;
            let now = e.append(Expression::Load { pointer: clock_ptr }, Span::UNDEFINED);
            let began = e.append(Expression::Load { pointer: gs }, Span::UNDEFINED);
            let ran = e.append(
                Expression::Binary { op: naga::BinaryOperator::Subtract, left: now, right: began },
                Span::UNDEFINED,
            );
            let over = e.append(
                Expression::Binary { op: naga::BinaryOperator::Greater, left: ran, right: limit },
                Span::UNDEFINED,
            );
            let flag = e.append(Expression::AccessIndex { base: gw, index: 1 }, Span::UNDEFINED);
            let emitted = e.range_from(first.index());
            let mut check = naga::Block::new();
            check.push(Statement::Emit(emitted), Span::UNDEFINED);
            let mut leave = naga::Block::new();
            leave.push(Statement::Store { pointer: flag, value: one }, Span::UNDEFINED);
            leave.push(Statement::Break, Span::UNDEFINED);
            check.push(Statement::If { condition: over, accept: leave, reject: naga::Block::new() }, Span::UNDEFINED);
            if let Some(body) = loop_body(&mut f.body, &path) {
                check.append(body);
                *body = check;
            }
        }
    };
    for (_, f) in module.functions.iter_mut() {
        guard(f);
    }
    for ep in &mut module.entry_points {
        guard(&mut ep.function);
        // The invocation's clock starts at its first statement.
        let e = &mut ep.function.expressions;
        let (gw, gs) = (
            e.append(Expression::GlobalVariable(words), Span::UNDEFINED),
            e.append(Expression::GlobalVariable(start), Span::UNDEFINED),
        );
        let clock_ptr = e.append(Expression::AccessIndex { base: gw, index: 0 }, Span::UNDEFINED);
        let now = e.append(Expression::Load { pointer: clock_ptr }, Span::UNDEFINED);
        let emitted = e.range_from(clock_ptr.index());
        let mut head = naga::Block::new();
        head.push(Statement::Emit(emitted), Span::UNDEFINED);
        head.push(Statement::Store { pointer: gs, value: now }, Span::UNDEFINED);
        head.append(&mut ep.function.body);
        ep.function.body = head;
    }
}

/// A step from a block to a statement's nested block: (statement index, which block).
type Path = Vec<(usize, usize)>;

/// The paths of every loop in `block`, outer loops before the loops inside them.
fn collect_loops(block: &naga::Block, at: &mut Path, out: &mut Vec<Path>) {
    for (i, s) in block.iter().enumerate() {
        let nested = |which: usize, b: &naga::Block, at: &mut Path, out: &mut Vec<Path>| {
            at.push((i, which));
            collect_loops(b, at, out);
            at.pop();
        };
        match s {
            naga::Statement::Block(b) => nested(0, b, at, out),
            naga::Statement::If { accept, reject, .. } => {
                nested(0, accept, at, out);
                nested(1, reject, at, out);
            }
            naga::Statement::Switch { cases, .. } => {
                for (c, case) in cases.iter().enumerate() {
                    nested(c, &case.body, at, out);
                }
            }
            naga::Statement::Loop { body, continuing, .. } => {
                let mut here = at.clone();
                here.push((i, 0));
                out.push(here);
                nested(0, body, at, out);
                nested(1, continuing, at, out);
            }
            _ => {}
        }
    }
}

/// The block `path` leads to, the last step being a loop's body.
fn loop_body<'a>(block: &'a mut naga::Block, path: &[(usize, usize)]) -> Option<&'a mut naga::Block> {
    let ((i, which), rest) = path.split_first()?;
    let s = block.get_mut(*i)?;
    let next = match (s, *which) {
        (naga::Statement::Block(b), _) => b,
        (naga::Statement::If { accept, .. }, 0) => accept,
        (naga::Statement::If { reject, .. }, _) => reject,
        (naga::Statement::Switch { cases, .. }, c) => &mut cases.get_mut(c)?.body,
        (naga::Statement::Loop { body, .. }, 0) => body,
        (naga::Statement::Loop { continuing, .. }, _) => continuing,
        _ => return None,
    };
    if rest.is_empty() {
        Some(next)
    } else {
        loop_body(next, rest)
    }
}

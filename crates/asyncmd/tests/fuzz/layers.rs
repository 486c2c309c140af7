//! The layers above the core list, fuzzed: command buffers (legacy and fast, several per
//! submission recorded on threads of their own, `submit` and `submit_all`, `track`, host
//! transfers through the queue's uploader, buffers dropped unsubmitted) on the direct, compute
//! and copy queues, ordered across queues by fence waits as a correct app orders them.
//!
//! One generated program runs three ways on one device (each way with its own queues and
//! buffers), and the three must leave the same bytes in every buffer:
//!
//! - **legacy** command buffers, without a barrier of the app's;
//! - **plain** command lists with a full barrier before every command (the reference for the
//!   other two: nothing overlaps);
//! - **fast** command buffers with those same barriers.
//!
//! The debug layer is on in all three and must report no hazard: legacy semantics inserts what
//! the commands need, and the full barriers leave nothing to report.

use crate::common::{dispatch_fill, fill_pipeline_on, full_barrier, pattern};
use asyncmd::command_buffer::{Level, Semantics};
use asyncmd::types::*;
use asyncmd::*;
use std::time::Duration;

/// Buffers a program works on.
const BUFFERS: usize = 4;
/// The longest a program's final waits may take.
const WAIT: Duration = Duration::from_secs(60);

/// One command of a generated buffer.
#[derive(Clone, Debug)]
pub enum Op {
    /// A legacy `CopyBufferRegion`.
    Copy { dst: usize, dst_offset: u64, src: usize, src_offset: u64, size: u64 },
    /// `CopyBufferRegions` of one region (an Async Command: ordered by nothing).
    CopyAsync { dst: usize, dst_offset: u64, src: usize, src_offset: u64, size: u64 },
    /// `FillBuffers` of one dword pattern (direct and compute queues).
    Fill { dst: usize, offset: u64, dwords: u32, value: u32 },
    /// `transfer_host_to_buffer` of `len` bytes made from `seed`.
    Host { dst: usize, offset: u64, len: u64, seed: u32 },
    /// `track` of a buffer (command buffers only; nothing in a plain list).
    Track { res: usize },
    /// A dispatch of the built-in fill shader writing `dwords` of `value` (direct and compute).
    Dispatch { dst: usize, offset: u64, dwords: u32, value: u32 },
    /// A secondary buffer (a bundle, in a plain list) of one dispatch, executed here (direct).
    Secondary { dst: usize, offset: u64, dwords: u32, value: u32 },
}

/// One submission: its queue, its buffers' commands, and whether they go in one `submit_all`.
#[derive(Clone, Debug)]
pub struct Submission {
    queue: usize,
    buffers: Vec<Vec<Op>>,
    together: bool,
    /// A buffer recorded before the submission and dropped unsubmitted (runs nothing).
    dropped: Option<Vec<Op>>,
    /// Before the submission, once every queue is idle: an upload through a small-ring
    /// uploader (chunks that wrap and wait), whose ticket the submission's queue waits for.
    upload: Option<(usize, u64, u64, u32)>,
}

/// A generated program.
#[derive(Clone, Debug)]
pub struct Program {
    sizes: [u64; BUFFERS],
    submissions: Vec<Submission>,
}

/// How a program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Legacy,
    Plain,
    Fast,
}

impl Program {
    /// The program of `seed`.
    pub fn generate(seed: u64) -> Program {
        let mut r = fastrand::Rng::with_seed(seed ^ 0x1a7e_55ed);
        let sizes = std::array::from_fn(|_| [256, 1024, 4096, 65536][r.usize(..4)]);
        let submissions = (0..r.usize(1..9))
            .map(|_| {
                let queue = r.usize(..3);
                let buffer = |r: &mut fastrand::Rng| (0..r.usize(1..7)).map(|_| op(r, &sizes, queue)).collect();
                let buffers = (0..r.usize(1..4)).map(|_| buffer(&mut r)).collect();
                let dropped = (r.u8(..8) == 0).then(|| buffer(&mut r));
                let upload = (r.u8(..6) == 0).then(|| {
                    let dst = r.usize(..BUFFERS);
                    let (offset, len) = range(&mut r, sizes[dst], 65536);
                    (dst, offset, len, r.u32(..))
                });
                Submission { queue, buffers, together: r.bool(), dropped, upload }
            })
            .collect();
        Program { sizes, submissions }
    }

    /// How many commands the program records (a run's count of steps).
    pub fn commands(&self) -> u64 {
        self.submissions.iter().map(|s| s.buffers.iter().map(Vec::len).sum::<usize>() as u64).sum()
    }
}

/// A range of `buffer` (of `size` bytes), 4-byte aligned, at most `max` long.
fn range(r: &mut fastrand::Rng, size: u64, max: u64) -> (u64, u64) {
    let len = 4 * r.u64(1..=(max.min(size) / 4));
    let offset = 4 * r.u64(0..=(size - len) / 4);
    (offset, len)
}

fn op(r: &mut fastrand::Rng, sizes: &[u64; BUFFERS], queue: usize) -> Op {
    let compute_queue = queue != 2;
    loop {
        let dst = r.usize(..BUFFERS);
        match r.u8(..10) {
            0..=3 => {
                // Another buffer, or disjoint ranges of one (a command naming a buffer twice).
                let src = r.usize(..BUFFERS);
                let size = 4 * r.u64(1..=sizes[dst].min(sizes[src]) / 8);
                let (src_offset, dst_offset) = if src == dst {
                    let half = sizes[dst] / 2;
                    let (a, b) = (r.u64(0..=(half - size) / 4) * 4, half + r.u64(0..=(half - size) / 4) * 4);
                    if r.bool() {
                        (a, b)
                    } else {
                        (b, a)
                    }
                } else {
                    (4 * r.u64(0..=(sizes[src] - size) / 4), 4 * r.u64(0..=(sizes[dst] - size) / 4))
                };
                let op = if r.bool() {
                    Op::Copy { dst, dst_offset, src, src_offset, size }
                } else {
                    Op::CopyAsync { dst, dst_offset, src, src_offset, size }
                };
                return op;
            }
            4..=5 if compute_queue => {
                let (offset, len) = range(r, sizes[dst], 4096);
                return Op::Fill { dst, offset, dwords: (len / 4) as u32, value: r.u32(..) };
            }
            6..=8 => {
                let (offset, len) = range(r, sizes[dst], 8192);
                return Op::Host { dst, offset, len, seed: r.u32(..) };
            }
            9 => match r.u8(..4) {
                0 => return Op::Track { res: dst },
                1 if compute_queue => {
                    let (offset, len) = range(r, sizes[dst], 4096);
                    return Op::Dispatch { dst, offset, dwords: (len / 4) as u32, value: r.u32(..) };
                }
                2 if queue == 0 => {
                    let (offset, len) = range(r, sizes[dst], 4096);
                    return Op::Secondary { dst, offset, dwords: (len / 4) as u32, value: r.u32(..) };
                }
                _ => {}
            },
            _ => {}
        }
    }
}

/// What a run left: every buffer's bytes.
pub type Contents = Vec<Vec<u8>>;

/// Runs `program` in `mode` on `device`; `Err` names the first call that failed or the hazard
/// the debug layer reported.
pub fn run(device: &Device, program: &Program, mode: Mode) -> Result<Contents, String> {
    let fail = |what: &str, e: Error| format!("{mode:?}: {what}: {:?} {:?}: {}", e.code, e.id, e.text);
    device.set_debug_layer(true);
    let queues = [CommandListType::Direct, CommandListType::Compute, CommandListType::Copy]
        .map(|ty| device.create_command_queue(ty).map_err(|e| fail("queue", e)));
    let queues: Vec<CommandQueue> = queues.into_iter().collect::<Result<_, _>>()?;
    let buffers = starting_buffers(device, &queues[0], &program.sizes).map_err(|e| fail("buffers", e))?;
    let fill = fill_pipeline_on(device).map_err(|e| fail("fill pipeline", e))?;
    let uploader = StreamingUploader::new(device, 64 << 10).map_err(|e| fail("uploader", e))?;
    device.info_queue().clear();
    // Work on another queue than the last one waits for it, as an app orders it.
    let order = device.create_fence(0).map_err(|e| fail("fence", e))?;
    let (mut step, mut last) = (0u64, None::<usize>);
    // Plain lists' allocators and upload buffers live until the end.
    let mut keep: Vec<(CommandAllocator, CommandList)> = Vec::new();
    let mut staging: Vec<Resource> = Vec::new();
    let mut bundles: Vec<(CommandAllocator, CommandList)> = Vec::new();
    for (n, s) in program.submissions.iter().enumerate() {
        let q = &queues[s.queue];
        if let Some(l) = last.filter(|&l| l != s.queue) {
            step += 1;
            queues[l].signal(&order, step).map_err(|e| fail("signal", e))?;
            q.wait(&order, step).map_err(|e| fail("wait", e))?;
        }
        last = Some(s.queue);
        if let Some((dst, offset, len, seed)) = s.upload {
            // What runs before must be done: the upload writes ahead of every queue.
            for q in &queues {
                q.wait_idle(WAIT).map_err(|e| fail("idle before an upload", e))?;
            }
            let data = host_data(len, seed);
            let ticket = uploader.upload_buffer(&buffers[dst], offset, &data).map_err(|e| fail("upload", e))?;
            q.wait_ticket(&ticket).map_err(|e| fail("ticket", e))?;
        }
        if let (Some(ops), true) = (&s.dropped, mode != Mode::Plain) {
            let mut b = q.create_command_buffer(semantics(mode), Level::Primary).map_err(|e| fail("dropped", e))?;
            record_buffer(&mut b, ops, &buffers, &fill, mode).map_err(|e| fail("dropped buffer", e))?;
            drop(b);
        }
        let what = format!("submission {n}");
        if mode == Mode::Plain {
            let mut lists = Vec::new();
            for ops in &s.buffers {
                let allocator = device.create_command_allocator(q.ty()).map_err(|e| fail(&what, e))?;
                let mut list = device.create_command_list(q.ty(), &allocator).map_err(|e| fail(&what, e))?;
                record_list(&mut list, ops, &buffers, &fill, &mut staging, &mut bundles).map_err(|e| fail(&what, e))?;
                list.close().map_err(|e| fail(&what, e))?;
                lists.push((allocator, list));
            }
            if s.together {
                let refs: Vec<&CommandList> = lists.iter().map(|(_, l)| l).collect();
                q.execute_command_lists(&refs).map_err(|e| fail(&what, e))?;
            } else {
                for (_, l) in &lists {
                    q.execute_command_lists(&[l]).map_err(|e| fail(&what, e))?;
                }
            }
            keep.extend(lists);
        } else {
            // The buffers of one submission are recorded on threads of their own at once (their
            // host transfers meet in the queue's uploader), and submitted in order.
            let recorded: Vec<Result<CommandBuffer>> = std::thread::scope(|scope| {
                let threads: Vec<_> = s
                    .buffers
                    .iter()
                    .map(|ops| {
                        let (buffers, fill) = (&buffers, &fill);
                        scope.spawn(move || {
                            let mut b = q.create_command_buffer(semantics(mode), Level::Primary)?;
                            record_buffer(&mut b, ops, buffers, fill, mode)?;
                            Ok(b)
                        })
                    })
                    .collect();
                threads.into_iter().map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
            });
            let bufs = recorded.into_iter().collect::<Result<Vec<_>>>().map_err(|e| fail(&what, e))?;
            if s.together {
                q.submit_all(bufs).map_err(|e| fail(&what, e))?;
            } else {
                for b in bufs {
                    b.submit().map_err(|e| fail(&what, e))?;
                }
            }
        }
    }
    for q in &queues {
        q.wait_idle(WAIT).map_err(|e| fail("final wait", e))?;
    }
    let hazards: Vec<String> = device
        .info_queue()
        .messages()
        .into_iter()
        .filter(|m| m.severity != MessageSeverity::Info)
        .map(|m| format!("{:?}: {}", m.id, m.text))
        .collect();
    if !hazards.is_empty() {
        return Err(format!("{mode:?}: the debug layer reported: {}", hazards.join("; ")));
    }
    drop((keep, bundles));
    read_back(device, &queues[0], &buffers).map_err(|e| fail("read back", e))
}

/// Every buffer's bytes, through readback buffers.
fn read_back(device: &Device, direct: &CommandQueue, buffers: &[Resource]) -> Result<Contents> {
    let mut c = direct.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    let mut readback = Vec::with_capacity(buffers.len());
    for b in buffers {
        let size = b.desc().width;
        let rb = device.create_committed_resource(
            HeapType::Readback,
            &ResourceDesc::buffer(size),
            BarrierLayout::Undefined,
        )?;
        c.copy_buffer_region(&rb, 0, b, 0, size);
        readback.push(rb);
    }
    direct.wait_for(c.submit()?, WAIT)?;
    readback.iter().map(|rb| rb.read_vec(0, rb.desc().width as usize)).collect()
}

fn semantics(mode: Mode) -> Semantics {
    if mode == Mode::Fast {
        Semantics::Fast
    } else {
        Semantics::Legacy
    }
}

/// The program's buffers, in a DEFAULT heap, holding their starting bytes.
fn starting_buffers(device: &Device, direct: &CommandQueue, sizes: &[u64; BUFFERS]) -> Result<Vec<Resource>> {
    let mut buffers = Vec::with_capacity(BUFFERS);
    let mut c = direct.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    for (i, &size) in sizes.iter().enumerate() {
        let desc = ResourceDesc::buffer(size).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
        let b = device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Undefined)?;
        c.transfer_host_to_buffer(&pattern(size as usize, i as u32 + 1), &b, 0)?;
        buffers.push(b);
    }
    direct.wait_for(c.submit()?, WAIT)?;
    Ok(buffers)
}

/// The bytes of a host transfer.
fn host_data(len: u64, seed: u32) -> Vec<u8> {
    pattern(len as usize, seed)
}

/// The built-in fill shader's pipeline.
type Fill = (RootSignature, PipelineState);

/// The fill shader's dispatch writing `dwords` of `value` from byte `offset` of `dst`.
fn dispatch(l: &mut CommandRecorder, fill: &Fill, dst: &Resource, offset: u64, dwords: u32, value: u32) {
    dispatch_fill(l, (&fill.0, &fill.1), &[value, 0, 0, 0, 1, dwords], dst.gpu_address(offset), 1);
}

/// Records `ops` on a command buffer; fast buffers get a full barrier before every command.
fn record_buffer(b: &mut CommandBuffer, ops: &[Op], buffers: &[Resource], fill: &Fill, mode: Mode) -> Result<()> {
    for op in ops {
        if mode == Mode::Fast && !matches!(op, Op::Track { .. }) {
            full_barrier(b);
        }
        match *op {
            Op::Host { dst, offset, len, seed } => {
                b.transfer_host_to_buffer(&host_data(len, seed), &buffers[dst], offset)?
            }
            Op::Track { res } => b.track(&buffers[res]),
            Op::Secondary { dst, offset, dwords, value } => {
                let mut secondary = b.queue().create_command_buffer(semantics(mode), Level::Secondary)?;
                dispatch(&mut secondary, fill, &buffers[dst], offset, dwords, value);
                b.execute(&mut secondary)?;
            }
            _ => record_op(b, op, buffers, fill),
        }
        if let Some(e) = b.error() {
            return Err(e.clone());
        }
    }
    Ok(())
}

/// Records `ops` on a plain list, a full barrier before every command; a host transfer is a
/// copy from an upload buffer of its own, a secondary buffer a bundle.
fn record_list(
    l: &mut CommandList,
    ops: &[Op],
    buffers: &[Resource],
    fill: &Fill,
    staging: &mut Vec<Resource>,
    bundles: &mut Vec<(CommandAllocator, CommandList)>,
) -> Result<()> {
    for op in ops {
        if matches!(op, Op::Track { .. }) {
            continue;
        }
        full_barrier(l);
        match *op {
            Op::Host { dst, offset, len, seed } => {
                let device = l.device();
                let up = device.create_committed_resource(
                    HeapType::Upload,
                    &ResourceDesc::buffer(len),
                    BarrierLayout::Undefined,
                )?;
                up.write(0, &host_data(len, seed))?;
                l.copy_buffer_region(&buffers[dst], offset, &up, 0, len);
                staging.push(up);
            }
            Op::Secondary { dst, offset, dwords, value } => {
                let device = l.device();
                let allocator = device.create_command_allocator(CommandListType::Bundle)?;
                let mut bundle = device.create_command_list(CommandListType::Bundle, &allocator)?;
                dispatch(&mut bundle, fill, &buffers[dst], offset, dwords, value);
                bundle.close()?;
                l.execute_bundle(&bundle);
                bundles.push((allocator, bundle));
            }
            _ => record_op(l, op, buffers, fill),
        }
        if let Some(e) = l.error() {
            return Err(e.clone());
        }
    }
    Ok(())
}

/// Records one of the commands lists and buffers share.
fn record_op(l: &mut CommandRecorder, op: &Op, buffers: &[Resource], fill: &Fill) {
    match *op {
        Op::Copy { dst, dst_offset, src, src_offset, size } => {
            l.copy_buffer_region(&buffers[dst], dst_offset, &buffers[src], src_offset, size)
        }
        Op::CopyAsync { dst, dst_offset, src, src_offset, size } => l.copy_buffer_regions(&[BufferCopyRegion {
            dest: &buffers[dst],
            dest_offset: dst_offset,
            source: &buffers[src],
            source_offset: src_offset,
            size,
        }]),
        Op::Fill { dst, offset, dwords, value } => l.fill_buffers(&[FillBufferDesc {
            buffer: &buffers[dst],
            offset,
            fill_value: ClearData::from_uints([value, 0, 0, 0]),
            format: Format::Unknown,
            raw_pattern_size: 4,
            repeat_count: dwords,
        }]),
        Op::Dispatch { dst, offset, dwords, value } => dispatch(l, fill, &buffers[dst], offset, dwords, value),
        Op::Host { .. } | Op::Track { .. } | Op::Secondary { .. } => {}
    }
}

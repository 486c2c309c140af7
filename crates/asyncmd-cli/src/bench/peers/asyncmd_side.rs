//! asyncmd's side of the peer suite: a list and allocator the app resets each run (as a D3D12
//! app keeps them), recorded with the Async Commands (native) or with the calls an app makes
//! without them (legacy), on one device with the native DDI.

use super::super::timing::Bench;
use super::{Engine, FloorWork, Sample, Workload, COLOR, LEGACY, NATIVE};
use crate::devices::DeviceSpec;
use asyncmd::types::*;
use asyncmd::{
    CommandAllocator, CommandList, CommandRecorder, CpuDescriptorHandle, DescriptorHeap, DescriptorHeapType, Fence,
    Level, Resource, Result, Semantics,
};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(20);

/// What one workload uses.
#[derive(Default)]
struct Prepared {
    /// Destinations (buffers or textures).
    dest: Vec<Resource>,
    /// Sources: one per copy, or the zero buffer legacy fills copy from.
    source: Vec<Resource>,
    /// Render-target views of `dest`, for legacy texture clears.
    views: Vec<CpuDescriptorHandle>,
    _heap: Option<DescriptorHeap>,
}

/// asyncmd recording natively or the legacy way.
pub struct AsyncmdEngine {
    native: bool,
    /// The device, its direct queue, and the timestamps around the work.
    bench: Bench,
    allocator: CommandAllocator,
    list: CommandList,
    fence: Fence,
    value: u64,
    frequency: f64,
    work: Prepared,
}

impl AsyncmdEngine {
    /// Opens `spec` with its native DDI; `native` picks the Async Commands over the legacy calls.
    pub fn open(spec: DeviceSpec, native: bool) -> Result<Self> {
        let bench = Bench::new(spec.open_with_native(true)?)?;
        let allocator = bench.device.create_command_allocator(CommandListType::Direct)?;
        let mut list = bench.device.create_command_list(CommandListType::Direct, &allocator)?;
        list.close()?;
        let fence = bench.device.create_fence(0)?;
        let frequency = bench.queue.timestamp_frequency() as f64;
        Ok(Self { native, bench, allocator, list, fence, value: 0, frequency, work: Prepared::default() })
    }

    /// The adapter's name.
    pub fn adapter_name(&self) -> String {
        self.bench.device.capabilities().name.clone()
    }

    fn buffer(&self, bytes: u64, heap: HeapType) -> Result<Resource> {
        self.bench.device.create_committed_resource(heap, &ResourceDesc::buffer(bytes), BarrierLayout::Undefined)
    }

    /// A command buffer of one copy: made by the queue, recorded, submitted; then waited for.
    fn cycle(&self) -> Result<Sample> {
        let semantics = if self.native { Semantics::Fast } else { Semantics::Legacy };
        let start = Instant::now();
        let mut b = self.bench.queue.create_command_buffer(semantics, Level::Primary)?;
        let made = Instant::now();
        copy_256(&self.work, self.native, &mut b, 0);
        let recorded = Instant::now();
        let value = b.submit()?;
        let submitted = Instant::now();
        self.bench.queue.wait_for(value, TIMEOUT)?;
        // A command buffer closes inside its submission: the close phase is part of submit.
        Ok(Sample {
            cpu_us: (submitted - start).as_secs_f64() * 1e6,
            done_us: submitted.elapsed().as_secs_f64() * 1e6,
            gpu_ms: None,
            phases: phases(&[start, made, recorded, recorded, submitted]),
        })
    }
}

/// Records `w` from `p` (the cycle and latency rows record one copy).
fn record(p: &Prepared, native: bool, l: &mut CommandRecorder, w: Workload) {
    match w {
        Workload::Work(FloorWork::Copies { bytes, .. }) if native => {
            let regions: Vec<_> = p
                .dest
                .iter()
                .zip(&p.source)
                .map(|(dest, source)| BufferCopyRegion { dest, dest_offset: 0, source, source_offset: 0, size: bytes })
                .collect();
            l.copy_buffer_regions(&regions);
        }
        Workload::Work(FloorWork::Copies { bytes, .. }) => {
            p.dest.iter().zip(&p.source).for_each(|(d, s)| l.copy_buffer_region(d, 0, s, 0, bytes))
        }
        Workload::Work(FloorWork::ZeroFills { bytes, .. }) if native => {
            let fills: Vec<_> = p
                .dest
                .iter()
                .map(|buffer| FillBufferDesc {
                    buffer,
                    offset: 0,
                    fill_value: ClearData::from_uints([0; 4]),
                    format: Format::Unknown,
                    raw_pattern_size: 4,
                    repeat_count: (bytes / 4) as u32,
                })
                .collect();
            l.fill_buffers(&fills);
        }
        // Without the API an app copies from a buffer of zeros it keeps.
        Workload::Work(FloorWork::ZeroFills { bytes, .. }) => {
            p.dest.iter().for_each(|d| l.copy_buffer_region(d, 0, &p.source[0], 0, bytes))
        }
        Workload::Work(FloorWork::TextureClears { .. }) if native => {
            let clears: Vec<_> = p
                .dest
                .iter()
                .map(|texture| ClearTextureDesc {
                    texture,
                    subresource: 0,
                    clear_value: ClearData::from_floats(COLOR),
                    format: Format::Unknown,
                    region: None,
                })
                .collect();
            l.clear_texture_subresources(&clears);
        }
        Workload::Work(FloorWork::TextureClears { .. }) => {
            p.views.iter().for_each(|v| l.clear_render_target_view(v, COLOR, &[]))
        }
        Workload::Work(FloorWork::Stream { commands }) => {
            (0..u64::from(commands)).for_each(|i| copy_256(p, native, l, i * 256))
        }
        Workload::Cycle | Workload::Latency => copy_256(p, native, l, 0),
    }
}

/// One copy of 256 bytes from the source to `dest_offset` of the destination: the command
/// stream's each, and the cycle and latency rows' one.
fn copy_256(p: &Prepared, native: bool, l: &mut CommandRecorder, dest_offset: u64) {
    let (dest, source) = (&p.dest[0], &p.source[0]);
    if native {
        l.copy_buffer_regions(&[BufferCopyRegion { dest, dest_offset, source, source_offset: 0, size: 256 }]);
    } else {
        l.copy_buffer_region(dest, dest_offset, source, 0, 256);
    }
}

impl Engine for AsyncmdEngine {
    fn name(&self) -> &'static str {
        if self.native {
            NATIVE
        } else {
            LEGACY
        }
    }

    fn prepare(&mut self, w: Workload) -> Result<()> {
        let mut p = Prepared::default();
        match w {
            Workload::Work(FloorWork::Copies { count, bytes }) => {
                for _ in 0..count {
                    p.dest.push(self.buffer(bytes, HeapType::Default)?);
                    p.source.push(self.buffer(bytes, HeapType::Default)?);
                }
            }
            Workload::Work(FloorWork::ZeroFills { count, bytes }) => {
                for _ in 0..count {
                    let desc = ResourceDesc::buffer(bytes).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS);
                    p.dest.push(self.bench.device.create_committed_resource(
                        HeapType::Default,
                        &desc,
                        BarrierLayout::Undefined,
                    )?);
                }
                // Zeroed at creation, as every committed resource.
                p.source.push(self.buffer(bytes, HeapType::Default)?);
            }
            Workload::Work(FloorWork::TextureClears { count, side }) if self.native => {
                // The API's main use: textures without render-target or UAV flags.
                let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side);
                for _ in 0..count {
                    p.dest.push(self.bench.device.create_committed_resource(
                        HeapType::Default,
                        &desc,
                        BarrierLayout::Common,
                    )?);
                }
            }
            Workload::Work(FloorWork::TextureClears { count, side }) => {
                let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side)
                    .with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
                let heap = self.bench.device.create_descriptor_heap(DescriptorHeapType::Rtv, count)?;
                for i in 0..count {
                    let t = self.bench.device.create_committed_resource(
                        HeapType::Default,
                        &desc,
                        BarrierLayout::RenderTarget,
                    )?;
                    let h = heap.handle(i);
                    self.bench.device.create_render_target_view(&t, None, &h)?;
                    p.dest.push(t);
                    p.views.push(h);
                }
                p._heap = Some(heap);
            }
            Workload::Work(FloorWork::Stream { commands }) => {
                p.dest.push(self.buffer(u64::from(commands) * 256, HeapType::Default)?);
                p.source.push(self.buffer(256, HeapType::Default)?);
            }
            Workload::Cycle | Workload::Latency => {
                p.dest.push(self.buffer(256, HeapType::Default)?);
                p.source.push(self.buffer(256, HeapType::Default)?);
            }
        }
        self.work = p;
        Ok(())
    }

    fn run(&mut self, w: Workload) -> Result<Sample> {
        if w == Workload::Cycle {
            return self.cycle();
        }
        let start = Instant::now();
        self.allocator.reset()?;
        self.list.reset(&self.allocator)?;
        let reset = Instant::now();
        // The latency row submits its copy alone, as the other engines do: timestamps and
        // their resolve would add GPU work to the time it measures.
        let timed = w != Workload::Latency;
        if timed {
            self.list.end_query(&self.bench.ticks, QueryType::Timestamp, 0);
        }
        record(&self.work, self.native, &mut self.list, w);
        if timed {
            self.list.end_query(&self.bench.ticks, QueryType::Timestamp, 1);
            self.list.resolve_query_data(&self.bench.ticks, QueryType::Timestamp, 0, 2, &self.bench.out, 0);
        }
        let recorded = Instant::now();
        self.list.close()?;
        let closed = Instant::now();
        self.bench.queue.execute_command_lists(&[&self.list])?;
        self.value += 1;
        self.bench.queue.signal(&self.fence, self.value)?;
        let submitted = Instant::now();
        self.fence.wait(self.value, TIMEOUT)?;
        let done = Instant::now();
        Ok(Sample {
            cpu_us: (submitted - start).as_secs_f64() * 1e6,
            done_us: (done - submitted).as_secs_f64() * 1e6,
            gpu_ms: if timed { Some(self.bench.gpu_ms(self.frequency)?) } else { None },
            phases: phases(&[start, reset, recorded, closed, submitted]),
        })
    }
}

/// µs between each instant of `marks` and the next: the run's [`super::PHASES`].
fn phases(marks: &[Instant; super::PHASES.len() + 1]) -> [f64; super::PHASES.len()] {
    std::array::from_fn(|i| (marks[i + 1] - marks[i]).as_secs_f64() * 1e6)
}

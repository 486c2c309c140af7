//! `asyncmd bench --suite bundle-clears`: what bound clears recorded in bundles cost under the
//! fallback, which keeps each unlowered and lowers it in every list that executes the bundle
//! (the spec's worry: memory and CPU). A list that executes a bundle of bound clears N times
//! against a list that records the same clears itself, side by side on one device with the
//! fallback; and what the bundle keeps. The GPU's work is waited for between cycles and not
//! timed.

use super::timing::median;
use crate::devices::DeviceSpec;
use asyncmd::types::*;
use asyncmd::*;
use serde::Serialize;
use std::time::{Duration, Instant};

/// One workload: a bundle of `clears` bound clears executed `executions` times.
#[derive(Clone, Debug, Serialize)]
pub struct BundleClearRow {
    /// Bound clears in the bundle (half render-target clears that draw, half depth clears).
    pub clears: u32,
    /// Times one list executes the bundle.
    pub executions: u32,
    /// CPU microseconds to record, close and submit the list executing the bundle (median).
    pub bundle_us: f64,
    /// The same with the clears recorded in the list itself (median).
    pub in_list_us: f64,
    /// Bound clears the bundle keeps unlowered.
    pub deferred_clears: usize,
    /// Bytes the bundle keeps for them.
    pub kept_bytes: usize,
}

impl BundleClearRow {
    /// Bundle ÷ in the list.
    pub fn ratio(&self) -> f64 {
        self.bundle_us / self.in_list_us
    }
}

const TIMEOUT: Duration = Duration::from_secs(30);
const SIZE: u32 = 64;

/// The targets both sides clear, bound with `OMSetRenderTargets`.
struct Targets {
    color: Resource,
    depth: Resource,
    _heaps: (DescriptorHeap, DescriptorHeap),
    rtv: CpuDescriptorHandle,
    dsv: CpuDescriptorHandle,
}

impl Targets {
    fn new(device: &Device) -> Result<Self> {
        let color = device.create_committed_resource(
            HeapType::Default,
            &ResourceDesc::tex2d(Format::R32Uint, SIZE, SIZE).with_flags(ResourceFlags::ALLOW_RENDER_TARGET),
            BarrierLayout::RenderTarget,
        )?;
        let depth = device.create_committed_resource(
            HeapType::Default,
            &ResourceDesc::tex2d(Format::D32Float, SIZE, SIZE).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
            BarrierLayout::DepthStencilWrite,
        )?;
        let (rh, dh) = (
            device.create_descriptor_heap(DescriptorHeapType::Rtv, 1)?,
            device.create_descriptor_heap(DescriptorHeapType::Dsv, 1)?,
        );
        device.create_render_target_view(&color, None, &rh.handle(0))?;
        device.create_depth_stencil_view(&depth, None, &dh.handle(0))?;
        Ok(Targets { color, depth, rtv: rh.handle(0), dsv: dh.handle(0), _heaps: (rh, dh) })
    }
}

/// Records `clears` bound clears: an integer render-target clear (drawn) and a depth clear
/// (a legacy clear) in turn, each of a quarter of the targets.
fn record_clears(list: &mut CommandList, clears: u32) {
    for i in 0..clears {
        let q = SIZE / 2;
        let region = [Box3::new((i % 2) * q, (i / 2 % 2) * q, 0, (i % 2) * q + q, (i / 2 % 2) * q + q, 1)];
        if i % 2 == 0 {
            let value = [ClearData::from_uints([(1 << 24) + i, 0, 0, 0])];
            list.clear_bound_render_target_views(1, &value, Some(&[Some(&region)]));
        } else {
            list.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.5, 0, Some(&region));
        }
    }
}

/// The list of one cycle, its allocator and fence.
struct Cycle {
    allocator: CommandAllocator,
    list: CommandList,
    fence: Fence,
    value: u64,
}

impl Cycle {
    fn new(device: &Device) -> Result<Self> {
        let allocator = device.create_command_allocator(CommandListType::Direct)?;
        let mut list = device.create_command_list(CommandListType::Direct, &allocator)?;
        list.close()?;
        Ok(Cycle { allocator, list, fence: device.create_fence(0)?, value: 0 })
    }

    /// Resets, binds the targets, records with `f`, closes and submits; returns the time that
    /// took, then waits for the GPU (untimed).
    fn run(&mut self, queue: &CommandQueue, t: &Targets, f: impl FnOnce(&mut CommandList)) -> Result<Duration> {
        let start = Instant::now();
        self.allocator.reset()?;
        self.list.reset(&self.allocator)?;
        self.list.om_set_render_targets(std::slice::from_ref(&t.rtv), Some(&t.dsv));
        f(&mut self.list);
        self.list.close()?;
        queue.execute_command_lists(&[&self.list])?;
        self.value += 1;
        queue.signal(&self.fence, self.value)?;
        let spent = start.elapsed();
        self.fence.wait(self.value, TIMEOUT)?;
        Ok(spent)
    }
}

/// Measures bundles of 2 and 16 clears executed 1, 16 and 64 times (`quick`: fewer cycles),
/// the two sides alternating cycle by cycle.
pub fn measure(spec: DeviceSpec, quick: bool) -> Result<(String, Vec<BundleClearRow>)> {
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    let device = factory.create_device(&Adapter::new(spec.open_with_native(false)?))?;
    let name = format!("{} ({:?})", device.capabilities().name, device.async_commands_impl());
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let targets = Targets::new(&device)?;
    let _keep = (&targets.color, &targets.depth);
    let cycles = if quick { 10 } else { 200 };
    let mut rows = Vec::new();
    for clears in [2u32, 16] {
        let bundle_allocator = device.create_command_allocator(CommandListType::Bundle)?;
        let mut bundle = device.create_command_list(CommandListType::Bundle, &bundle_allocator)?;
        record_clears(&mut bundle, clears);
        bundle.close()?;
        let footprint = bundle.bundle_clear_footprint();
        for executions in [1u32, 16, 64] {
            let (mut a, mut b) = (Cycle::new(&device)?, Cycle::new(&device)?);
            let through_bundle = |l: &mut CommandList| (0..executions).for_each(|_| l.execute_bundle(&bundle));
            let in_list = |l: &mut CommandList| (0..executions).for_each(|_| record_clears(l, clears));
            for _ in 0..3 {
                a.run(&queue, &targets, through_bundle)?;
                b.run(&queue, &targets, in_list)?;
            }
            let (mut with_bundle, mut by_list) = (Vec::with_capacity(cycles), Vec::with_capacity(cycles));
            for _ in 0..cycles {
                with_bundle.push(a.run(&queue, &targets, through_bundle)?.as_secs_f64() * 1e6);
                by_list.push(b.run(&queue, &targets, in_list)?.as_secs_f64() * 1e6);
            }
            rows.push(BundleClearRow {
                clears,
                executions,
                bundle_us: median(with_bundle),
                in_list_us: median(by_list),
                deferred_clears: footprint.deferred_clears,
                kept_bytes: footprint.bytes,
            });
        }
    }
    Ok((name, rows))
}

/// The suite as a Markdown table.
pub fn markdown(device: &str, rows: &[BundleClearRow]) -> String {
    let mut out = format!(
        "## Bound clears in bundles on {device}\n\nCPU µs per list (reset, record, close, submit), median; \
         what the bundle keeps\n\n| clears | executions | bundle | in the list | ratio | kept clears | kept bytes |\n\
         |---|---|---|---|---|---|---|\n"
    );
    for r in rows {
        out += &format!(
            "| {} | {} | {:.1} | {:.1} | {:.2} | {} | {} |\n",
            r.clears,
            r.executions,
            r.bundle_us,
            r.in_list_us,
            r.ratio(),
            r.deferred_clears,
            r.kept_bytes
        );
    }
    out
}

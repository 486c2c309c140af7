//! GPU timings of the two `CopyBufferRegion` paths on the Vulkan device (`vkCmdCopyBuffer` and
//! the compute copy), side by side. Ignored by default: run it on a real GPU with
//! `cargo test --release -p asyncmd --test vulkan_speed -- --ignored --nocapture`.

mod common;

use asyncmd::types::*;
use asyncmd_vulkan::{ComputeCopies, VulkanOptions};
use common::*;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median GPU milliseconds of `copies` copies of `size` bytes each, recorded in one list.
fn time(ctx: &Ctx, size: u64, copies: u32) -> Result<f64> {
    let n = copies as u64;
    let src = ctx.device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(size * n),
        BarrierLayout::Undefined,
    )?;
    let dst = ctx.device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::buffer(size * n),
        BarrierLayout::Undefined,
    )?;
    let heap = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 2 })?;
    let out = ctx.buffer(HeapType::Readback, 16);
    let freq = ctx.direct.timestamp_frequency() as f64;
    let mut samples = Vec::new();
    for run in 0..8 {
        ctx.run(CommandListType::Direct, |l| {
            l.end_query(&heap, QueryType::Timestamp, 0);
            for i in 0..n {
                l.copy_buffer_region(&dst, i * size, &src, i * size, size);
            }
            l.end_query(&heap, QueryType::Timestamp, 1);
            l.resolve_query_data(&heap, QueryType::Timestamp, 0, 2, &out, 0);
        });
        let b = out.read_vec(0, 16)?;
        let t0 = u64::from_le_bytes(b[..8].try_into().unwrap());
        let t1 = u64::from_le_bytes(b[8..].try_into().unwrap());
        if run > 0 {
            samples.push((t1 - t0) as f64 / freq * 1e3);
        }
    }
    Ok(median(samples))
}

#[test]
#[ignore = "a measurement for real GPUs, not a check"]
fn copy_buffer_region_paths() {
    let open = |c| vulkan_ctx(VulkanOptions { compute_copies: c, ..Default::default() });
    let (Some(transfer), Some(compute)) = (open(ComputeCopies::Never), open(ComputeCopies::Always)) else {
        eprintln!("no Vulkan device");
        return;
    };
    let auto = asyncmd_vulkan::VulkanDevice::open(0, VulkanOptions::default()).unwrap();
    println!("device: {}", transfer.device.capabilities().name);
    println!("compute copies chosen by the one-time measurement from: {:?} bytes", auto.compute_copy_threshold());
    println!("| copies × size | vkCmdCopyBuffer ms | GB/s | compute copy ms | GB/s | compute / transfer speed |");
    println!("|---|---|---|---|---|---|");
    // Software devices (lavapipe) get small sizes only.
    let software = transfer.device.capabilities().uma;
    let cases: &[(u32, u64)] = if software {
        &[(1, 16 << 20), (1, 64 << 20), (64, 64 << 10), (256, 16 << 10)]
    } else {
        &[
            (1, 16 << 20),
            (1, 64 << 20),
            (1, 256 << 20),
            (1, 1 << 30),
            (1, 4 << 30),
            (64, 64 << 10),
            (64, 1 << 20),
            (256, 16 << 10),
        ]
    };
    for &(n, size) in cases {
        let t = time(&transfer, size, n);
        let c = time(&compute, size, n);
        match (t, c) {
            (Ok(t), Ok(c)) => {
                let moved = (n as u64 * size) as f64 / 1e9;
                println!(
                    "| {n} × {} KiB | {t:.4} | {:.0} | {c:.4} | {:.0} | {:.2}× |",
                    size >> 10,
                    moved / (t / 1e3),
                    moved / (c / 1e3),
                    t / c
                );
            }
            (t, c) => println!("| {n} × {} KiB | {t:?} | | {c:?} | | |", size >> 10),
        }
    }
}

//! The sweeps the spec asks for: large fills and texture clears through each fallback route,
//! and partial regions of a render target on both sides of the quarter-coverage threshold.

use super::cases::{buffer, texture};
use super::{Bench, BenchOptions, CoverageRow, Params, Part, Row, Timing};
use asyncmd::types::*;
use asyncmd::{CommandList, DescriptorHeapType, Device, Resource, Result};

type Record = Box<dyn Fn(&mut CommandList)>;

/// One route's workload on one device: untimed setup and teardown in the same list around the
/// timed legacy recording or API call.
struct Sweep {
    work: String,
    before: Record,
    legacy: Record,
    batch: Record,
    after: Record,
}

fn nothing() -> Record {
    Box::new(|_| {})
}

fn transition(t: &Resource, from: BarrierLayout, to: BarrierLayout) -> BarrierGroup<&Resource> {
    let scope = |l: BarrierLayout| match l {
        BarrierLayout::RenderTarget => (BarrierSync::RENDER_TARGET, BarrierAccess::RENDER_TARGET),
        BarrierLayout::CopyDest => (BarrierSync::COPY, BarrierAccess::COPY_DEST),
        _ => (BarrierSync::ALL, BarrierAccess::COMMON),
    };
    let (sb, ab) = scope(from);
    let (sa, aa) = scope(to);
    BarrierGroup::Texture(vec![TextureBarrier {
        sync_before: sb,
        sync_after: sa,
        access_before: ab,
        access_after: aa,
        layout_before: from,
        layout_after: to,
        resource: t,
        subresources: BarrierSubresourceRange::ALL,
        flags: TextureBarrierFlags::empty(),
    }])
}

fn barrier(t: &Resource, from: BarrierLayout, to: BarrierLayout) -> Record {
    let t = t.clone();
    Box::new(move |l| l.barrier(&[transition(&t, from, to)]))
}

fn clear_desc(t: &Resource, region: Option<Box3>) -> ClearTextureDesc<&Resource> {
    ClearTextureDesc {
        texture: t,
        subresource: 0,
        clear_value: ClearData::from_floats([0.2, 0.4, 0.6, 0.8]),
        format: Format::Unknown,
        region,
    }
}

/// A texture with a render-target view; the heap comes back to keep the view alive.
fn render_target(
    d: &Device,
    desc: &ResourceDesc,
) -> Result<(Resource, asyncmd::CpuDescriptorHandle, asyncmd::DescriptorHeap)> {
    let t = texture(d, &desc.with_flags(ResourceFlags::ALLOW_RENDER_TARGET), BarrierLayout::Common)?;
    let heap = d.create_descriptor_heap(DescriptorHeapType::Rtv, 1)?;
    d.create_render_target_view(&t, None, &heap.handle(0))?;
    Ok((t, heap.handle(0), heap))
}

/// Copies of a 1 MiB pattern buffer over `bytes` of `dst`: the legacy fill.
fn pattern_copies(d: &Device, dst: &Resource, bytes: u64) -> Result<Record> {
    let chunk = bytes.min(1 << 20);
    let src = buffer(d, chunk, ResourceFlags::empty())?;
    let dst = dst.clone();
    Ok(Box::new(move |l| {
        let mut done = 0;
        while done < bytes {
            let n = chunk.min(bytes - done);
            l.copy_buffer_region(&dst, done, &src, 0, n);
            done += n;
        }
    }))
}

fn fill_sweep(d: &Device, bytes: u64, uav: bool) -> Result<Sweep> {
    let flags = if uav { ResourceFlags::ALLOW_UNORDERED_ACCESS } else { ResourceFlags::empty() };
    let dst = buffer(d, bytes, flags)?;
    let legacy = pattern_copies(d, &dst, bytes)?;
    let route = if uav { "compute" } else { "copy" };
    Ok(Sweep {
        work: format!(
            "{}, 16-byte pattern, {route} route (legacy: copies of a 1 MiB pattern buffer)",
            super::cases::size_text(bytes)
        ),
        before: nothing(),
        legacy,
        batch: Box::new(move |l| {
            l.fill_buffers(&[FillBufferDesc {
                buffer: &dst,
                offset: 0,
                fill_value: ClearData::from_uints([1, 2, 3, 4]),
                format: Format::Unknown,
                raw_pattern_size: 16,
                repeat_count: (bytes / 16) as u32,
            }])
        }),
        after: nothing(),
    })
}

fn copy_route_sweep(d: &Device, side: u32) -> Result<Sweep> {
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side);
    let t = texture(d, &desc, BarrierLayout::Common)?;
    let fp = d.copyable_footprints(&desc, 0, 1, 0)?;
    let upload =
        d.create_committed_resource(HeapType::Upload, &ResourceDesc::buffer(fp.total_bytes), BarrierLayout::Undefined)?;
    let layout = fp.layouts[0];
    let t2 = t.clone();
    Ok(Sweep {
        work: format!("{side}² RGBA8, no RT flag: copy route (legacy: a copy of an uploaded image)"),
        before: nothing(),
        legacy: Box::new(move |l| {
            let (dl, sl) = (TextureCopyLocation::subresource(&t, 0), TextureCopyLocation::footprint(&upload, layout));
            l.copy_texture_region(&dl, 0, 0, 0, &sl, None);
        }),
        batch: Box::new(move |l| l.clear_texture_subresources(&[clear_desc(&t2, None)])),
        after: nothing(),
    })
}

/// The in-place route (render-target texture whose layout the list knows), or with `samples`
/// above 1 an MSAA texture: in place with the flag, through the private texture without.
fn view_route_sweep(d: &Device, side: u32, samples: u32, flagged: bool) -> Result<Sweep> {
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side).with_samples(samples, 0);
    let (rt, rtv, heap) = render_target(d, &desc)?;
    let target = if flagged { rt.clone() } else { texture(d, &desc, BarrierLayout::Common)? };
    let legacy_rt = rt.clone();
    let what = match (samples, flagged) {
        (1, _) => format!("{side}² RGBA8 render target: in-place route"),
        (_, true) => format!("{side}² RGBA8 ×{samples} render target: in-place route"),
        _ => format!("{side}² RGBA8 ×{samples}, no RT flag: private MSAA texture route"),
    };
    let t2 = target.clone();
    // The legacy clear writes the render target, which `before` left in COPY_DEST when it is
    // also the API's target.
    let from = if flagged { BarrierLayout::CopyDest } else { BarrierLayout::Common };
    Ok(Sweep {
        work: format!("{what} (legacy: transitions and ClearRenderTargetView)"),
        before: barrier(&target, BarrierLayout::Common, BarrierLayout::CopyDest),
        legacy: Box::new(move |l| {
            let _keep = &heap;
            l.barrier(&[transition(&legacy_rt, from, BarrierLayout::RenderTarget)]);
            l.clear_render_target_view(&rtv, [0.2, 0.4, 0.6, 0.8], &[]);
            l.barrier(&[transition(&legacy_rt, BarrierLayout::RenderTarget, from)]);
        }),
        batch: Box::new(move |l| l.clear_texture_subresources(&[clear_desc(&t2, None)])),
        after: barrier(&target, BarrierLayout::CopyDest, BarrierLayout::Common),
    })
}

/// The batch of `s` on `bench`, between its setup and teardown.
fn batch_part<'a>(bench: &'a Bench, s: &'a Sweep) -> Part<'a> {
    Part { bench, before: &*s.before, record: &*s.batch, after: &*s.after }
}

fn measure_sweep(
    fallback: &Bench,
    native: Option<&Bench>,
    runs: usize,
    api: &str,
    build: &dyn Fn(&Device) -> Result<Sweep>,
) -> Result<Row> {
    // Each part works on resources of its own, as in the API rows (`bench::measure`).
    let s = build(&fallback.device)?;
    let fs = build(&fallback.device)?;
    let ns = native.map(|n| Ok::<_, asyncmd::Error>((n, build(&n.device)?))).transpose()?;
    let mut parts = vec![
        Part { bench: fallback, before: &*s.before, record: &*s.legacy, after: &*s.after },
        batch_part(fallback, &fs),
    ];
    parts.extend(ns.as_ref().map(|(n, ns)| batch_part(n, ns)));
    let t = super::timing::interleaved(runs, &parts)?;
    Ok(Row { api: api.to_string(), work: s.work, legacy: t[0], fallback: t[1], native: t.get(2).copied() })
}

/// Large fills and texture clears through each fallback route.
pub fn routes(fallback: &Bench, native: Option<&Bench>, p: &Params, opts: &BenchOptions) -> Result<Vec<Row>> {
    let runs = p.runs();
    let mut rows = Vec::new();
    if super::selected(opts, "FillBuffers") {
        let bytes = p.size.unwrap_or(match (p.quick, p.large) {
            (true, _) => 1 << 20,
            (false, true) => 256 << 20,
            (false, false) => 16 << 20,
        }) / 16
            * 16;
        for (uav, name) in [(false, "FillBuffers, copy route"), (true, "FillBuffers, compute route")] {
            rows.push(measure_sweep(fallback, native, runs, name, &|d| fill_sweep(d, bytes, uav))?);
        }
    }
    if super::selected(opts, "ClearTextureSubresources") {
        let side = p.side(256, if p.large { 4096 } else { 1024 }, 4);
        let api = |route: &str| format!("ClearTextureSubresources, {route}");
        rows.push(measure_sweep(fallback, native, runs, &api("copy route"), &|d| copy_route_sweep(d, side))?);
        rows.push(measure_sweep(fallback, native, runs, &api("in-place route"), &|d| {
            view_route_sweep(d, side, 1, true)
        })?);
        for (flagged, route) in [(true, "MSAA in place"), (false, "MSAA clear-and-copy route")] {
            rows.push(measure_sweep(fallback, native, runs, &api(route), &|d| {
                view_route_sweep(d, side / 2, 4, flagged)
            })?);
        }
    }
    Ok(rows)
}

/// Partial regions (full rows) of a render target: the fallback's pattern copy, the in-place
/// route's commands, what the planner picks, and the native clear, at each coverage.
pub fn coverage(fallback: &Bench, native: Option<&Bench>, p: &Params) -> Result<(u32, Vec<CoverageRow>)> {
    let side: u32 = match (p.quick, p.large) {
        (true, _) => 256,
        (false, true) => 4096,
        (false, false) => 1024,
    };
    let runs = p.runs();
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, side, side);
    let (t, rtv, _heap) = render_target(&fallback.device, &desc)?;
    let nt = native.map(|n| render_target(&n.device, &desc)).transpose()?;
    let uma = fallback.device.capabilities().uma;
    let to = barrier(&t, BarrierLayout::Common, BarrierLayout::CopyDest);
    let back = barrier(&t, BarrierLayout::CopyDest, BarrierLayout::Common);
    let mut out = Vec::new();
    for (num, den) in [(1u32, 64u32), (1, 16), (1, 8), (1, 4), (17, 64), (1, 2), (1, 1)] {
        let rows = side * num / den;
        let region = (num != den).then_some(Box3::new(0, 0, 0, side, rows, 1));
        let clear = |t: &Resource| {
            let t = t.clone();
            move |l: &mut CommandList| l.clear_texture_subresources(&[clear_desc(&t, region)])
        };
        let rect = if num == den { Vec::new() } else { vec![Rect::new(0, 0, side as i32, rows as i32)] };
        let in_place = |l: &mut CommandList| {
            l.barrier(&[transition(&t, BarrierLayout::CopyDest, BarrierLayout::RenderTarget)]);
            l.clear_render_target_view(&rtv, [0.2, 0.4, 0.6, 0.8], &rect);
            l.barrier(&[transition(&t, BarrierLayout::RenderTarget, BarrierLayout::CopyDest)]);
        };
        let (copy, native_clear) = (clear(&t), nt.as_ref().map(|(nt, _, _)| clear(nt)));
        let mut parts = vec![
            Part::alone(fallback, &copy),
            Part { bench: fallback, before: &*to, record: &in_place, after: &*back },
            Part { bench: fallback, before: &*to, record: &copy, after: &*back },
        ];
        if let (Some(n), Some(c)) = (native, &native_clear) {
            parts.push(Part::alone(n, c));
        }
        let timed = super::timing::interleaved(runs, &parts)?;
        let (pattern_copy, in_place, planned, native_time): (Timing, Timing, Timing, Option<Timing>) =
            (timed[0], timed[1], timed[2], timed.get(3).copied());
        out.push(CoverageRow {
            coverage: num as f64 / den as f64,
            pattern_copy,
            in_place,
            fallback: planned,
            fallback_in_place: uma || num == den || 4 * num > den,
            native: native_time,
        });
    }
    Ok((side, out))
}

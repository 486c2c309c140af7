//! ClearBoundRenderTargetViews and ClearBoundDepthStencilView natively and through the
//! fallback (legacy clears and draws), on every device: bytes read back against a CPU model,
//! the app's state after the clear, queries and predication, the routes and the pipeline
//! cache, and every rejection.

mod common;

use asyncmd::ddi::spy::{SpyDevice, SpyLog};
use asyncmd::ddi::*;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use common::*;
use std::sync::Arc;

/// A texture with one render-target or depth-stencil view.
struct Bound {
    tex: Resource,
    view: CpuDescriptorHandle,
    _heap: DescriptorHeap,
}

fn rt(ctx: &Ctx, desc: ResourceDesc, view: Option<RenderTargetViewDesc>) -> Bound {
    let tex = ctx.texture(&desc.with_flags(ResourceFlags::ALLOW_RENDER_TARGET), BarrierLayout::Common);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 1).unwrap();
    ctx.device.create_render_target_view(&tex, view.as_ref(), &heap.handle(0)).unwrap();
    for s in 0..tex.desc().subresource_count() {
        let len = ctx.read_subresource(&tex, s).len();
        ctx.upload_subresource(&tex, s, &pattern(len, s + 7));
    }
    Bound { tex, view: heap.handle(0), _heap: heap }
}

fn ds(ctx: &Ctx, desc: ResourceDesc, flags: DsvFlags) -> Bound {
    let tex = ctx.texture(&desc.with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL), BarrierLayout::Common);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Dsv, 1).unwrap();
    let view = DepthStencilViewDesc { flags, ..DepthStencilViewDesc::default_for(tex.desc()) };
    ctx.device.create_depth_stencil_view(&tex, Some(&view), &heap.handle(0)).unwrap();
    for s in 0..tex.desc().subresource_count() {
        let len = ctx.read_subresource(&tex, s).len();
        let plane = tex.desc().subresource(s).unwrap().plane;
        // Valid depths in the depth plane (a quarter), a pattern in the stencil plane.
        let data = match (tex.desc().format, plane) {
            (Format::D24UnormS8Uint, 0) => 0x0040_0000u32.to_le_bytes().repeat(len / 4),
            (Format::D32Float, _) => 0.25f32.to_le_bytes().repeat(len / 4),
            _ => pattern(len, s + 3),
        };
        ctx.upload_subresource(&tex, s, &data);
    }
    Bound { tex, view: heap.handle(0), _heap: heap }
}

fn to_target(l: &mut CommandList, b: &Bound) {
    let layout =
        if b.tex.desc().format.has_depth() { BarrierLayout::DepthStencilWrite } else { BarrierLayout::RenderTarget };
    barrier(l, &b.tex, BarrierLayout::Common, layout);
}

fn from_target(l: &mut CommandList, b: &Bound) {
    let layout =
        if b.tex.desc().format.has_depth() { BarrierLayout::DepthStencilWrite } else { BarrierLayout::RenderTarget };
    barrier(l, &b.tex, layout, BarrierLayout::Common);
}

/// What a clear of `rect` with `element` leaves in a tightly packed subresource.
fn model(before: &[u8], width: u32, rect: (u32, u32, u32, u32), element: &[u8]) -> Vec<u8> {
    let n = element.len();
    let mut out = before.to_vec();
    for y in rect.1..rect.3 {
        for x in rect.0..rect.2 {
            let o = (y * width + x) as usize * n;
            out[o..o + n].copy_from_slice(element);
        }
    }
    out
}

fn element(format: Format, plane: u32, value: &ClearData) -> Vec<u8> {
    encode_clear(format, plane, value).unwrap().as_bytes().to_vec()
}

fn floats(v: [f32; 4]) -> ClearData {
    ClearData::from_floats(v)
}

/// The subresources of every bound texture before the work.
fn snapshot(ctx: &Ctx, targets: &[&Bound]) -> Vec<Vec<Vec<u8>>> {
    targets
        .iter()
        .map(|b| (0..b.tex.desc().subresource_count()).map(|s| ctx.read_subresource(&b.tex, s)).collect())
        .collect()
}

#[test]
fn outside_a_pass_every_selected_target_and_region_is_cleared() {
    for (name, ctx) in async_contexts() {
        let a = rt(&ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 32, 16), None);
        let b = rt(&ctx, ResourceDesc::tex2d(Format::R32G32B32A32Uint, 32, 16), None);
        let c = rt(&ctx, ResourceDesc::tex2d(Format::R16G16Sint, 32, 16), None);
        let d = ds(&ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, 32, 16), DsvFlags::empty());
        let before = snapshot(&ctx, &[&a, &b, &c, &d]);
        let values = [
            floats([0.2, 0.4, 0.6, 0.8]),
            ClearData::from_uints([0x0123_4567, 7, u32::MAX, 1 << 25]),
            ClearData::from_sints([-5, 300, 0, 0]),
        ];
        let b_regions = [Box3::new(4, 2, 0, 20, 10, 1)];
        let c_regions = [Box3::new(0, 0, 0, 8, 8, 1), Box3::new(24, 8, 0, 40, 16, 1)];
        ctx.run(CommandListType::Direct, |l| {
            for t in [&a, &b, &c, &d] {
                to_target(l, t);
            }
            l.om_set_render_targets(&[a.view.clone(), b.view.clone(), c.view.clone()], Some(&d.view));
            l.clear_bound_render_target_views(0b111, &values, Some(&[None, Some(&b_regions), Some(&c_regions)]));
            l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.75, 0, Some(&[Box3::new(0, 0, 0, 16, 16, 1)]));
            l.clear_bound_depth_stencil_view(ClearFlags::STENCIL, 0.0, 0x5A, Some(&[Box3::new(8, 0, 0, 32, 8, 1)]));
            for t in [&a, &b, &c, &d] {
                from_target(l, t);
            }
        });
        let want = [
            model(&before[0][0], 32, (0, 0, 32, 16), &element(Format::R8G8B8A8Unorm, 0, &values[0])),
            model(&before[1][0], 32, (4, 2, 20, 10), &element(Format::R32G32B32A32Uint, 0, &values[1])),
            model(
                &model(&before[2][0], 32, (0, 0, 8, 8), &element(Format::R16G16Sint, 0, &values[2])),
                32,
                (24, 8, 32, 16),
                &element(Format::R16G16Sint, 0, &values[2]),
            ),
        ];
        for (i, (t, w)) in [&a, &b, &c].iter().zip(&want).enumerate() {
            assert!(ctx.read_subresource(&t.tex, 0) == *w, "{name}: render target {i}");
        }
        let depth = element(Format::D24UnormS8Uint, 0, &ClearData::from_depth_stencil(0.75, 0));
        assert!(ctx.read_subresource(&d.tex, 0) == model(&before[3][0], 32, (0, 0, 16, 16), &depth), "{name}: depth");
        assert!(ctx.read_subresource(&d.tex, 1) == model(&before[3][1], 32, (8, 0, 32, 8), &[0x5A]), "{name}: stencil");
    }
}

#[test]
fn inside_a_pass_slots_count_the_targets_the_pass_binds() {
    for (name, ctx) in async_contexts() {
        let a = rt(&ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16), None);
        let skipped = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
        let c = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
        let d = ds(&ctx, ResourceDesc::tex2d(Format::D32Float, 16, 16), DsvFlags::empty());
        let before = snapshot(&ctx, &[&a, &skipped, &c, &d]);
        let target = |b: &Bound, beginning| RenderPassRenderTarget {
            view: b.view.clone(),
            beginning,
            ending: EndingAccess::<&Resource>::Preserve,
        };
        let values = [floats([0.2, 0.0, 1.0, 0.6]), ClearData::from_uints([0x0123_4567, 0, 0, 0])];
        ctx.run(CommandListType::Direct, |l| {
            for t in [&a, &c, &d] {
                to_target(l, t);
            }
            l.begin_render_pass(
                &[
                    target(&a, BeginningAccess::Preserve),
                    target(&skipped, BeginningAccess::NoAccess),
                    target(&c, BeginningAccess::Preserve),
                ],
                Some(&RenderPassDepthStencil {
                    view: d.view.clone(),
                    depth_beginning: BeginningAccess::Preserve,
                    stencil_beginning: BeginningAccess::NoAccess,
                    depth_ending: EndingAccess::Preserve,
                    stencil_ending: EndingAccess::NoAccess,
                }),
                RenderPassFlags::empty(),
            );
            // Bit 1 is `c`: the target after the unbound one moves down a slot.
            l.clear_bound_render_target_views(0b11, &values, Some(&[Some(&[Box3::new(0, 0, 0, 8, 16, 1)]), None]));
            l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.5, 0, Some(&[Box3::new(4, 4, 0, 12, 12, 1)]));
            l.end_render_pass();
            for t in [&a, &c, &d] {
                from_target(l, t);
            }
        });
        let got_a = ctx.read_subresource(&a.tex, 0);
        assert!(
            got_a == model(&before[0][0], 16, (0, 0, 8, 16), &element(Format::R8G8B8A8Unorm, 0, &values[0])),
            "{name}: a"
        );
        assert!(ctx.read_subresource(&skipped.tex, 0) == before[1][0], "{name}: the unbound target keeps its bytes");
        let got_c = ctx.read_subresource(&c.tex, 0);
        assert!(got_c == model(&before[2][0], 16, (0, 0, 16, 16), &0x0123_4567u32.to_le_bytes()), "{name}: c");
        let got_d = ctx.read_subresource(&d.tex, 0);
        assert!(got_d == model(&before[3][0], 16, (4, 4, 12, 12), &0.5f32.to_le_bytes()), "{name}: depth");
    }
}

#[test]
fn array_slices_are_selected_from_the_views_first_slice() {
    for (name, ctx) in async_contexts() {
        for (format, in_pass) in [(Format::R8G8B8A8Uint, false), (Format::R8G8B8A8Unorm, true)] {
            let view = RenderTargetViewDesc {
                format,
                dimension: RtvDimension::Texture2DArray { mip: 0, first_slice: 1, array_size: 3, plane: 0 },
            };
            let t = rt(&ctx, ResourceDesc::tex2d(format, 16, 16).with_array(4), Some(view));
            let before = snapshot(&ctx, &[&t]);
            let value = if in_pass { floats([0.2, 0.4, 0.6, 0.8]) } else { ClearData::from_uints([1, 2, 3, 4]) };
            let region = [Box3::new(2, 2, 1, 10, 10, 3)];
            ctx.run(CommandListType::Direct, |l| {
                to_target(l, &t);
                if in_pass {
                    let target = RenderPassRenderTarget {
                        view: t.view.clone(),
                        beginning: BeginningAccess::Preserve,
                        ending: EndingAccess::<&Resource>::Preserve,
                    };
                    l.begin_render_pass(&[target], None, RenderPassFlags::empty());
                } else {
                    l.om_set_render_targets(&[t.view.clone()], None);
                }
                l.clear_bound_render_target_views(1, &[value], Some(&[Some(&region)]));
                if in_pass {
                    l.end_render_pass();
                }
                from_target(l, &t);
            });
            let e = element(format, 0, &value);
            for slice in 0..4u32 {
                let got = ctx.read_subresource(&t.tex, slice);
                let want = if slice >= 2 {
                    model(&before[0][slice as usize], 16, (2, 2, 10, 10), &e)
                } else {
                    before[0][slice as usize].clone()
                };
                assert!(got == want, "{name}: {format}, in pass {in_pass}, slice {slice}");
            }
        }
    }
}

#[test]
fn depth_only_and_stencil_only_clears_leave_the_other_plane() {
    for (name, ctx) in async_contexts() {
        for in_pass in [false, true] {
            let d = ds(&ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, 16, 8), DsvFlags::empty());
            let before = snapshot(&ctx, &[&d]);
            ctx.run(CommandListType::Direct, |l| {
                to_target(l, &d);
                if in_pass {
                    let p = RenderPassDepthStencil {
                        view: d.view.clone(),
                        depth_beginning: BeginningAccess::Preserve,
                        stencil_beginning: BeginningAccess::Preserve,
                        depth_ending: EndingAccess::<&Resource>::Preserve,
                        stencil_ending: EndingAccess::Preserve,
                    };
                    l.begin_render_pass(&[], Some(&p), RenderPassFlags::empty());
                } else {
                    l.om_set_render_targets(&[], Some(&d.view));
                }
                l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 1.0, 0xFF, None);
                l.clear_bound_depth_stencil_view(ClearFlags::STENCIL, 0.0, 0x42, Some(&[Box3::new(0, 0, 0, 8, 8, 1)]));
                if in_pass {
                    l.end_render_pass();
                }
                from_target(l, &d);
            });
            let depth = element(Format::D24UnormS8Uint, 0, &ClearData::from_depth_stencil(1.0, 0));
            assert!(
                ctx.read_subresource(&d.tex, 0) == model(&before[0][0], 16, (0, 0, 16, 8), &depth),
                "{name}: depth, pass {in_pass}"
            );
            assert!(
                ctx.read_subresource(&d.tex, 1) == model(&before[0][1], 16, (0, 0, 8, 8), &[0x42]),
                "{name}: stencil, pass {in_pass}"
            );
        }
    }
}

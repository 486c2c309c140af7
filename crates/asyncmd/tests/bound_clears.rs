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
use common::targets::*;
use common::*;
use std::sync::Arc;

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
        // Smaller than the others: were it counted as bound, it would be the smallest output.
        let skipped = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
        let c = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
        let d = ds(&ctx, ResourceDesc::tex2d(Format::D32Float, 16, 16), DsvFlags::empty());
        let before = snapshot(&ctx, &[&a, &skipped, &c, &d]);
        let values = [floats([0.2, 0.0, 1.0, 0.6]), ClearData::from_uints([0x0123_4567, 0, 0, 0])];
        ctx.run(CommandListType::Direct, |l| {
            for t in [&a, &c, &d] {
                to_target(l, t);
            }
            l.begin_render_pass(
                &[pass_target(&a), pass_target_with(&skipped, BeginningAccess::NoAccess), pass_target(&c)],
                Some(&pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::NoAccess)),
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

/// Every level of a 10-bit channel, each cleared into a texel of its own inside a pass (the
/// fallback's clear draws there): stored as D3D rounds the float, `round(v × 1023)`. Lavapipe's
/// draws take 10-bit channels through 16 bits and used to store `k + 1` for a float a quarter
/// step above `k` from k = 772 up (fuzz seed 9100286).
#[test]
fn every_level_of_a_10_bit_channel_is_stored_as_d3d_rounds_it() {
    for (name, ctx) in async_contexts() {
        let t = rt(&ctx, ResourceDesc::tex2d(Format::R10G10B10A2Unorm, 256, 4), None);
        let level = |k: u32| -> ClearData {
            let k = k as f32;
            floats([(k + 0.3) / 1023.0, (k - 0.3) / 1023.0, (1023.0 - k) / 1023.0, (k as u32 % 4) as f32 / 3.0])
        };
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &t);
            l.begin_render_pass(&[pass_target(&t)], None, RenderPassFlags::empty());
            for k in 0..1024u32 {
                let (x, y) = (k % 256, k / 256);
                l.clear_bound_render_target_views(
                    0b1,
                    &[level(k)],
                    Some(&[Some(&[Box3::new(x, y, 0, x + 1, y + 1, 1)])]),
                );
            }
            l.end_render_pass();
            from_target(l, &t);
        });
        let got = ctx.read_subresource(&t.tex, 0);
        for k in 0..1024u32 {
            // Red and green round to k, blue to 1023 − k, alpha to k mod 4.
            let want = k | k << 10 | (1023 - k) << 20 | (k % 4) << 30;
            let at = 4 * k as usize;
            let texel = u32::from_le_bytes(got[at..at + 4].try_into().unwrap());
            assert_eq!(texel, want, "{name}: level {k}: {texel:#010x} for {want:#010x}");
        }
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
                    l.begin_render_pass(&[pass_target(&t)], None, RenderPassFlags::empty());
                } else {
                    l.om_set_render_targets(std::slice::from_ref(&t.view), None);
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
                    let p = pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::Preserve);
                    l.begin_render_pass(&[], Some(&p), RenderPassFlags::empty());
                } else {
                    l.om_set_render_targets(&[], Some(&d.view));
                }
                // Depth is clamped to [0, 1].
                l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 2.5, 0xFF, None);
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

/// Records the app's state (with `via_bundle`, the part a bundle may set comes from an
/// executed bundle), a bound clear that the fallback lowers to draws, and the app's draw;
/// returns the three targets' bytes.
fn draw_after_bound_clear(ctx: &Ctx, in_pass: bool, via_bundle: bool) -> Vec<Vec<u8>> {
    let scene = DrawScene::new(ctx, Format::R16G16B16A16Float);
    let reference = 0x33;
    let (root, pso) = scene.pipeline(ctx);
    let app_color = floats([0.8, 0.2, 0.4, 0.6]);
    ctx.run(CommandListType::Direct, |l| {
        scene.bind(l, in_pass);
        // Every piece of state the app's draw depends on.
        let bundle_state = |l: &mut CommandList| {
            l.set_graphics_root_signature(&root);
            l.set_pipeline_state(&pso);
            let v = app_color.uints();
            l.set_graphics_root_32bit_constants(0, &[v[0], v[1], v[2], v[3], 0, 0], 0);
            l.ia_set_primitive_topology(PrimitiveTopology::TriangleList);
            l.om_set_stencil_ref(reference);
        };
        if via_bundle {
            let mut bundle = ctx.list(CommandListType::Bundle);
            bundle_state(&mut bundle);
            bundle.close().unwrap();
            l.execute_bundle(&bundle);
        } else {
            bundle_state(l);
        }
        l.rs_set_viewports(&[Viewport {
            top_left_x: 4.0,
            top_left_y: 2.0,
            width: 20.0,
            height: 10.0,
            min_depth: 0.0,
            max_depth: 1.0,
        }]);
        l.rs_set_scissor_rects(&[Rect::new(0, 0, 16, 12)]);
        l.om_set_blend_factor([0.5; 4]);
        // An infinite value: never a legacy clear, so the fallback draws.
        let inf = floats([f32::INFINITY, 1.0, -2.0, 0.5]);
        l.clear_bound_render_target_views(
            0b10,
            &[ClearData::default(), inf],
            Some(&[None, Some(&[Box3::new(0, 0, 0, 24, 16, 1)])]),
        );
        // A stencil clear away from the app's scissor: its own reference must not stay.
        l.clear_bound_depth_stencil_view(ClearFlags::STENCIL, 0.0, 0x99, Some(&[Box3::new(16, 12, 0, 32, 16, 1)]));
        l.draw_instanced(3, 1, 0, 0);
        scene.unbind(l, in_pass);
    });
    scene.read(ctx)
}

#[test]
fn the_apps_next_draw_renders_as_if_no_clear_had_happened() {
    let ctxs = async_contexts();
    for (native, n, fallback, f) in native_fallback_pairs(&ctxs) {
        for (in_pass, via_bundle) in [(false, false), (true, false), (false, true), (true, true)] {
            let want = draw_after_bound_clear(n, in_pass, via_bundle);
            let got = draw_after_bound_clear(f, in_pass, via_bundle);
            for (i, what) in ["the app's draw target", "the cleared target", "the stencil plane"].iter().enumerate() {
                assert!(
                    got[i] == want[i],
                    "{fallback} vs {native}, in pass {in_pass}, state from a bundle {via_bundle}: {what} differs"
                );
            }
            // The draw did land (red and alpha of the app's colour inside viewport ∩ scissor
            // where the stencil passed), so the comparison is not of two untouched images.
            let texel = &want[0][(4 * 32 + 6) * 4..(4 * 32 + 6) * 4 + 4];
            assert_eq!((texel[0], texel[3]), (204, 153), "{native}: the app's draw wrote texel (6, 4)");
        }
    }
}

#[test]
fn queries_count_the_fallbacks_draws_and_predication_skips_them() {
    for (name, ctx) in async_contexts() {
        let fallback = ctx.device.async_commands_impl() == AsyncCommandsImpl::Fallback;
        let t = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
        let heap = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 1 }).unwrap();
        let stats =
            ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::PipelineStatistics, count: 1 }).unwrap();
        let results = ctx.buffer(HeapType::Readback, 8 + 88);
        let before = snapshot(&ctx, &[&t]);
        let predicate = ctx.default_buffer(&[0u8; 8]);
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &t);
            l.om_set_render_targets(std::slice::from_ref(&t.view), None);
            l.begin_query(&heap, QueryType::Occlusion, 0);
            l.begin_query(&stats, QueryType::PipelineStatistics, 0);
            l.clear_bound_render_target_views(
                1,
                &[ClearData::from_uints([9, 0, 0, 0])],
                Some(&[Some(&[Box3::new(0, 0, 0, 8, 4, 1)])]),
            );
            l.end_query(&stats, QueryType::PipelineStatistics, 0);
            l.end_query(&heap, QueryType::Occlusion, 0);
            // Predicated off (EQUAL_ZERO with a zero predicate): nothing is written.
            l.set_predication(Some((&predicate, 0)), PredicationOp::EqualZero);
            l.clear_bound_render_target_views(1, &[ClearData::from_uints([5, 0, 0, 0])], None);
            l.set_predication(None, PredicationOp::EqualZero);
            from_target(l, &t);
            l.resolve_query_data(&heap, QueryType::Occlusion, 0, 1, &results, 0);
            l.resolve_query_data(&stats, QueryType::PipelineStatistics, 0, 1, &results, 8);
        });
        let bytes = results.read_vec(0, 96).unwrap();
        let samples = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        let s: PipelineStatistics = bytemuck::pod_read_unaligned(&bytes[8..96]);
        // One draw of one triangle, or nothing.
        let want = if fallback { (3, 1) } else { (0, 0) };
        assert_eq!((s.ia_vertices, s.ia_primitives), want, "{name}: {s:?}");
        // The fallback draws: the query counts their 32 samples. Native clears are not draws.
        assert_eq!(samples, if fallback { 32 } else { 0 }, "{name}");
        let want = model(&before[0][0], 16, (0, 0, 8, 4), &9u32.to_le_bytes());
        assert!(ctx.read_subresource(&t.tex, 0) == want, "{name}: the predicated clear wrote");
    }
}

/// A reference device behind a spy, opted in to the fallback.
fn spy_ctx() -> (Ctx, SpyLog) {
    let (ctx, log, _) = spy_ctx_with_pipelines();
    (ctx, log)
}

/// [`spy_ctx`] and the pipelines the device destroys.
fn spy_ctx_with_pipelines() -> (Ctx, SpyLog, asyncmd::ddi::spy::DestroyedPipelines) {
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(ReferenceConfig::default()))));
    let (log, destroyed) = (spy.log(), spy.destroyed_pipelines());
    (Ctx::new(opted_in(&Adapter::new(spy as Arc<dyn DeviceDdi>))), log, destroyed)
}

#[test]
fn legacy_clears_where_exact_outside_a_pass_and_draws_otherwise() {
    let (ctx, log) = spy_ctx();
    let f = rt(&ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 16), None);
    let u = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
    let small = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
    let d = ds(&ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, 16, 16), DsvFlags::empty());
    let (root, pso) = app_pipeline(&ctx, &[Format::R8G8B8A8Unorm, Format::R32Uint], Format::D24UnormS8Uint);
    let viewport =
        Viewport { top_left_x: 1.0, top_left_y: 2.0, width: 3.0, height: 4.0, min_depth: 0.0, max_depth: 1.0 };
    let scissor = Rect::new(1, 1, 5, 5);
    let value = [floats([0.2, 0.4, 0.6, 0.8]), ClearData::from_uints([3, 0, 0, 0])];
    let mut names = Vec::new();
    let mut restore = Vec::new();
    ctx.run(CommandListType::Direct, |l| {
        for t in [&f, &u, &small, &d] {
            to_target(l, t);
        }
        l.om_set_render_targets(&[f.view.clone(), u.view.clone()], Some(&d.view));
        l.set_graphics_root_signature(&root);
        l.set_graphics_root_32bit_constants(0, &[1, 2], 1);
        l.set_pipeline_state(&pso);
        l.rs_set_viewports(&[viewport]);
        l.rs_set_scissor_rects(&[scissor]);
        l.ia_set_primitive_topology(PrimitiveTopology::PointList);
        l.om_set_stencil_ref(7);
        for (mask, what) in [(0b01, "float, finite"), (0b10, "uint")] {
            log.clear();
            l.clear_bound_render_target_views(mask, &value, None);
            names.push((what, log.names()));
        }
        log.clear();
        l.clear_bound_depth_stencil_view(ClearFlags::DEPTH | ClearFlags::STENCIL, 0.5, 1, None);
        names.push(("depth-stencil", log.names()));
        // Inside a pass everything draws; the stencil draw sets its own reference and the
        // app's comes back.
        let p = pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::Preserve);
        l.begin_render_pass(&[pass_target(&f), pass_target(&u)], Some(&p), RenderPassFlags::empty());
        log.clear();
        l.clear_bound_depth_stencil_view(ClearFlags::STENCIL, 0.0, 9, Some(&[Box3::new(0, 0, 0, 4, 4, 1)]));
        restore = log.commands();
        l.end_render_pass();
        // Outside a pass, a region past the smallest output draws into its target bound
        // alone (an integer value a legacy clear would round), then binds the app's again.
        l.om_set_render_targets(&[u.view.clone(), small.view.clone()], None);
        log.clear();
        l.clear_bound_render_target_views(0b01, &value[1..], None);
        names.push(("uint past the smallest output", log.names()));
        for t in [&f, &u, &small, &d] {
            from_target(l, t);
        }
    });
    let draw = [
        "SetGraphicsRootSignature",
        "IASetPrimitiveTopology",
        "SetPipelineState",
        "RSSetViewports",
        "RSSetScissorRects",
        "SetGraphicsRoot32BitConstants",
        "DrawInstanced",
    ];
    let back = [
        "SetGraphicsRootSignature",
        "SetGraphicsRoot32BitConstants",
        "SetPipelineState",
        "RSSetViewports",
        "RSSetScissorRects",
        "IASetPrimitiveTopology",
    ];
    assert_eq!(names[0], ("float, finite", vec!["ClearRenderTargetView"]));
    assert_eq!(names[1], ("uint", [&draw[..], &back[..]].concat()));
    assert_eq!(names[2], ("depth-stencil", vec!["ClearDepthStencilView"]));
    let alone = [&["OMSetRenderTargets"][..], &draw, &back, &["OMSetRenderTargets"]].concat();
    assert_eq!(names[3], ("uint past the smallest output", alone));
    // The stencil draw: its reference, then the app's state exactly as it set it.
    let tail: Vec<Command> = restore.iter().rev().take(7).rev().cloned().collect();
    assert!(restore.contains(&Command::SetStencilRef(9)));
    assert_eq!(
        tail,
        vec![
            Command::SetGraphicsRootSignature(root.id()),
            Command::SetGraphicsRootConstants { parameter: 0, offset: 0, values: vec![0, 1, 2] },
            Command::SetPipelineState(pso.id()),
            Command::SetViewports(vec![viewport]),
            Command::SetScissorRects(vec![scissor]),
            Command::SetPrimitiveTopology(PrimitiveTopology::PointList),
            Command::SetStencilRef(7),
        ]
    );
}

fn pipeline_ids(log: &SpyLog) -> Vec<PipelineId> {
    log.commands()
        .into_iter()
        .filter_map(|c| match c {
            Command::SetPipelineState(id) => Some(id),
            _ => None,
        })
        .collect()
}

#[test]
fn clear_pipelines_are_cached_up_to_64_and_kept_alive_by_their_allocator() {
    let (ctx, log, destroyed) = spy_ctx_with_pipelines();
    let make = |format| (0..8).map(|_| rt(&ctx, ResourceDesc::tex2d(format, 4, 4), None)).collect::<Vec<_>>();
    let (u32s, u16s) = (make(Format::R32Uint), make(Format::R16Uint));
    let first = ClearData::from_uints([0xABCD, 0, 0, 0]);
    let mut ids = Vec::new();
    let alloc = ctx.device.create_command_allocator(CommandListType::Direct).unwrap();
    let mut list = ctx.device.create_command_list(CommandListType::Direct, &alloc).unwrap();
    {
        let l = &mut list;
        for t in u32s.iter().chain(&u16s) {
            to_target(l, t);
        }
        // One pipeline per (bound formats, slot): 2 × 36 = 72 keys.
        for set in [&u32s, &u16s] {
            for count in 1..=8 {
                let views: Vec<_> = set[..count].iter().map(|t| t.view.clone()).collect();
                l.om_set_render_targets(&views, None);
                for slot in 0..count {
                    log.clear();
                    let values = vec![first; 8];
                    l.clear_bound_render_target_views(1 << slot, &values, None);
                    ids.push(pipeline_ids(&log)[0]);
                    if ids.len() == 1 {
                        // The same key again: a hit.
                        log.clear();
                        l.clear_bound_render_target_views(1, &values, None);
                        assert_eq!(
                            pipeline_ids(&log)[0],
                            ids[0],
                            "a second clear of one combination reuses its pipeline"
                        );
                    }
                }
            }
        }
        assert_eq!(ctx.device.cached_clear_pipelines(), 64);
        // The first key was evicted: drawing it again makes a new pipeline.
        l.om_set_render_targets(&[u32s[0].view.clone()], None);
        log.clear();
        l.clear_bound_render_target_views(
            1,
            &[ClearData::from_uints([0x1234, 0, 0, 0])],
            Some(&[Some(&[Box3::new(0, 0, 0, 2, 4, 1)])]),
        );
        ids.push(pipeline_ids(&log)[0]);
        for t in u32s.iter().chain(&u16s) {
            from_target(l, t);
        }
    }
    list.close().unwrap();
    assert!(!destroyed.contains(ids[0]), "the allocator keeps an evicted pipeline its list drew with");
    ctx.direct.execute_command_lists(&[&list]).unwrap();
    ctx.direct.wait_idle(TIMEOUT).unwrap();
    drop(list);
    alloc.reset().unwrap();
    assert!(destroyed.contains(ids[0]), "after the allocator's reset the evicted pipeline goes");
    assert!(!destroyed.contains(ids[71]), "cached pipelines stay");
    let distinct: std::collections::HashSet<_> = ids[..72].iter().collect();
    assert_eq!(distinct.len(), 72, "each combination has its own pipeline");
    assert_ne!(ids[72], ids[0], "an evicted combination is made again");
    // The evicted pipeline was still alive when the list ran: the first clear landed.
    let texel =
        |t: &Bound, x: usize| u32::from_le_bytes(ctx.read_subresource(&t.tex, 0)[x * 4..x * 4 + 4].try_into().unwrap());
    assert_eq!((texel(&u32s[0], 0), texel(&u32s[0], 3)), (0x1234, 0xABCD));
}

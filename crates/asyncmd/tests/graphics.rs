//! View clears, draws of the built-in clear shaders, render passes and their resolves, queries,
//! predication and bundles read back what a CPU model predicts.

mod common;

use asyncmd::ddi::*;
use asyncmd::types::*;
use asyncmd::*;
use common::draws::*;
use common::*;

#[test]
fn clear_render_target_view_writes_only_its_rectangles() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8G8B8A8Unorm, 8, 4, 1);
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&t.rtv, [0.0, 0.0, 0.0, 0.0], &[]);
            l.clear_render_target_view(&t.rtv, [1.0, 0.6, 0.0, 1.0], &[Rect::new(1, 1, 3, 2), Rect::new(6, 3, 20, 20)]);
        });
        let img = read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0);
        for y in 0..4 {
            for x in 0..8 {
                let inside = (1..3).contains(&x) && y == 1 || x >= 6 && y == 3;
                let want = if inside { [255, 153, 0, 255] } else { [0; 4] };
                assert_eq!(&img[(y * 8 + x) * 4..][..4], &want, "({x}, {y})");
            }
        }
    }
}

#[test]
fn clear_depth_stencil_view_writes_the_selected_planes() {
    for (name, ctx) in contexts() {
        let _ = name;
        let desc = ResourceDesc::tex2d(Format::D24UnormS8Uint, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL);
        let tex = ctx.texture(&desc, BarrierLayout::DepthStencilWrite);
        let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Dsv, 1).unwrap();
        ctx.device.create_depth_stencil_view(&tex, None, &heap.handle(0)).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.clear_depth_stencil_view(&heap.handle(0), ClearFlags::DEPTH | ClearFlags::STENCIL, 1.0, 7, &[]);
            l.clear_depth_stencil_view(&heap.handle(0), ClearFlags::STENCIL, 0.0, 0x42, &[Rect::new(0, 0, 2, 2)]);
            l.clear_depth_stencil_view(&heap.handle(0), ClearFlags::DEPTH, 0.5, 0, &[Rect::new(2, 2, 4, 4)]);
        });
        let depth = read_back(&ctx, &tex, BarrierLayout::DepthStencilWrite, 0);
        let stencil = ctx.read_subresource(&tex, 1);
        for y in 0..4 {
            for x in 0..4 {
                let d = u32::from_le_bytes(depth[(y * 4 + x) * 4..][..4].try_into().unwrap()) & 0xFF_FFFF;
                let want_d = if x >= 2 && y >= 2 { 0x80_0000 } else { 0xFF_FFFF };
                assert_eq!(d, want_d, "depth ({x}, {y})");
                let want_s = if x < 2 && y < 2 { 0x42 } else { 7 };
                assert_eq!(stencil[y * 4 + x], want_s, "stencil ({x}, {y})");
            }
        }
    }
}

#[test]
fn draws_fill_the_scissor_with_the_write_mask() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8G8B8A8Unorm, 8, 8, 1);
        let (root, pso) = clear_pipeline(
            &ctx,
            &[Format::R8G8B8A8Unorm],
            Format::Unknown,
            1,
            Some(ShaderId::ClearPsFloat),
            DepthStencilState::default(),
            ColorWriteMask::RED | ColorWriteMask::ALPHA,
        );
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&t.rtv, [0.0, 0.25, 0.0, 0.0], &[]);
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            set_clear_state(
                l,
                &root,
                &pso,
                Viewport::sized(8.0, 8.0),
                Rect::new(2, 3, 5, 7),
                floats([1.0, 1.0, 1.0, 1.0]),
            );
            l.draw_instanced(3, 1, 0, 0);
        });
        let img = read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0);
        for y in 0..8 {
            for x in 0..8 {
                let inside = (2..5).contains(&x) && (3..7).contains(&y);
                let want = if inside { [255, 64, 0, 255] } else { [0, 64, 0, 0] };
                assert_eq!(&img[(y * 8 + x) * 4..][..4], &want, "({x}, {y})");
            }
        }
    }
}

#[test]
fn without_a_scissor_nothing_is_drawn() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8Unorm, 4, 4, 1);
        let (root, pso) = colour_pipeline(&ctx, Format::R8Unorm, 1);
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&t.rtv, [0.0; 4], &[]);
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            l.set_graphics_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_graphics_root_32bit_constants(0, &floats([1.0; 4]), 0);
            l.rs_set_viewports(&[Viewport::sized(4.0, 4.0)]);
            l.draw_instanced(3, 1, 0, 0);
        });
        assert_eq!(read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0), vec![0; 16]);
    }
}

#[test]
fn integer_targets_take_integer_values_exactly() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R32G32Uint, 2, 2, 1);
        let (root, pso) = clear_pipeline(
            &ctx,
            &[Format::R32G32Uint],
            Format::Unknown,
            1,
            Some(ShaderId::ClearPsUint),
            DepthStencilState::default(),
            ColorWriteMask::ALL,
        );
        ctx.run(CommandListType::Direct, |l| {
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            set_clear_state(
                l,
                &root,
                &pso,
                Viewport::sized(2.0, 2.0),
                Rect::new(0, 0, 2, 2),
                [0xDEAD_BEEF, 0x0123_4567, 0, 0, 0, 0],
            );
            l.draw_instanced(3, 1, 0, 0);
        });
        let img = read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0);
        for px in img.chunks(8) {
            assert_eq!(px, [0xEF, 0xBE, 0xAD, 0xDE, 0x67, 0x45, 0x23, 0x01]);
        }
    }
}

fn depth_target(ctx: &Ctx, format: Format, w: u32, h: u32) -> (Resource, DescriptorHeap) {
    let desc = ResourceDesc::tex2d(format, w, h).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL);
    let tex = ctx.texture(&desc, BarrierLayout::DepthStencilWrite);
    let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Dsv, 1).unwrap();
    ctx.device.create_depth_stencil_view(&tex, None, &heap.handle(0)).unwrap();
    (tex, heap)
}

#[test]
fn depth_and_stencil_tests_follow_the_pipeline_and_occlusion_counts_passing_samples() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8Unorm, 4, 4, 1);
        let (ds, dsv_heap) = depth_target(&ctx, Format::D32FloatS8X24Uint, 4, 4);
        let depth_state = DepthStencilState {
            depth_enable: true,
            depth_write: true,
            depth_func: ComparisonFunc::Less,
            stencil_enable: true,
            stencil_read_mask: 0xFF,
            stencil_write_mask: 0xFF,
            front: StencilFace {
                fail: StencilOp::Keep,
                depth_fail: StencilOp::Keep,
                pass: StencilOp::IncrSat,
                func: ComparisonFunc::Always,
            },
            back: StencilFace::default(),
        };
        let (root, pso) = clear_pipeline(
            &ctx,
            &[Format::R8Unorm],
            Format::D32FloatS8X24Uint,
            1,
            Some(ShaderId::ClearPsFloat),
            depth_state,
            ColorWriteMask::ALL,
        );
        let queries = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 2 }).unwrap();
        let results = ctx.buffer(HeapType::Readback, 16);
        let draw = |l: &mut CommandList, depth: f32, value: f32, query: u32| {
            let mut c = floats([value; 4]);
            c[4] = depth.to_bits();
            set_clear_state(l, &root, &pso, Viewport::sized(4.0, 4.0), Rect::new(0, 0, 4, 4), c);
            l.begin_query(&queries, QueryType::Occlusion, query);
            l.draw_instanced(3, 1, 0, 0);
            l.end_query(&queries, QueryType::Occlusion, query);
        };
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&t.rtv, [0.0; 4], &[]);
            l.clear_depth_stencil_view(&dsv_heap.handle(0), ClearFlags::DEPTH | ClearFlags::STENCIL, 1.0, 0, &[]);
            // Left half at depth 0.25 first.
            l.clear_depth_stencil_view(&dsv_heap.handle(0), ClearFlags::DEPTH, 0.25, 0, &[Rect::new(0, 0, 2, 4)]);
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), Some(&dsv_heap.handle(0)));
            // Depth 0.5 passes only on the right half (1.0 there, 0.25 on the left).
            draw(l, 0.5, 1.0, 0);
            // Depth 0.5 again: nothing is less than what the first draw wrote.
            draw(l, 0.5, 0.5, 1);
            l.resolve_query_data(&queries, QueryType::Occlusion, 0, 2, &results, 0);
        });
        let counts: Vec<u64> =
            results.read_vec(0, 16).unwrap().chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(counts, vec![8, 0]);
        let img = read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0);
        for y in 0..4 {
            assert_eq!(&img[y * 4..y * 4 + 4], &[0, 0, 255, 255], "row {y}");
        }
        let stencil = read_back(&ctx, &ds, BarrierLayout::DepthStencilWrite, 1);
        // Stencil incremented where the stencil test passed: everywhere, twice (depth failing
        // samples keep their value).
        for y in 0..4 {
            assert_eq!(&stencil[y * 4..y * 4 + 4], &[0, 0, 1, 1], "stencil row {y}");
        }
    }
}

#[test]
fn render_pass_clears_binds_and_resolves() {
    for (name, ctx) in contexts() {
        let _ = name;
        let ms = render_target(&ctx, Format::R8G8B8A8Unorm, 4, 4, 4);
        let dst = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::ResolveDest);
        let (root, pso) = colour_pipeline(&ctx, Format::R8G8B8A8Unorm, 4);
        ctx.run(CommandListType::Direct, |l| {
            l.begin_render_pass(
                &[RenderPassRenderTarget {
                    view: ms.rtv.clone(),
                    beginning: BeginningAccess::Clear(ClearData::from_floats([0.0, 0.0, 1.0, 1.0])),
                    ending: EndingAccess::Resolve {
                        dest: &dst,
                        dest_subresource: 0,
                        format: Format::R8G8B8A8Unorm,
                        mode: ResolveMode::Average,
                        preserve_source: true,
                    },
                }],
                None,
                RenderPassFlags::empty(),
            );
            set_clear_state(
                l,
                &root,
                &pso,
                Viewport::sized(4.0, 4.0),
                Rect::new(0, 0, 2, 4),
                floats([1.0, 0.0, 0.0, 1.0]),
            );
            l.draw_instanced(3, 1, 0, 0);
            l.end_render_pass();
        });
        let img = read_back(&ctx, &dst, BarrierLayout::ResolveDest, 0);
        for y in 0..4 {
            for x in 0..4 {
                let want = if x < 2 { [255, 0, 0, 255] } else { [0, 0, 255, 255] };
                assert_eq!(&img[(y * 4 + x) * 4..][..4], &want, "({x}, {y})");
            }
        }
    }
}

#[test]
fn predication_skips_work_when_the_predicate_says_so() {
    for (name, ctx) in contexts() {
        if name == "vulkan" {
            // Conditional rendering cannot skip transfer commands: the Vulkan device says so.
            let p = ctx.default_buffer(&[0u8; 8]);
            let t = ctx.buffer(HeapType::Default, 8);
            let r = ctx.record(CommandListType::Direct, |l| {
                l.set_predication(Some((&p, 0)), PredicationOp::EqualZero);
                l.copy_buffer_region(&t, 0, &p, 0, 4);
            });
            assert_eq!(r.unwrap_err().code, ErrorCode::Fail);
            continue;
        }
        let _ = name;
        let predicate = ctx.default_buffer(&[0u8; 16]);
        let target = ctx.default_buffer(&[0u8; 8]);
        let ones = ctx.default_buffer(&[1u8; 8]);
        ctx.run(CommandListType::Direct, |l| {
            // EQUAL_ZERO with a zero predicate: skipped.
            l.set_predication(Some((&predicate, 0)), PredicationOp::EqualZero);
            l.copy_buffer_region(&target, 0, &ones, 0, 4);
            // NOT_EQUAL_ZERO with a zero predicate: runs.
            l.set_predication(Some((&predicate, 8)), PredicationOp::NotEqualZero);
            l.copy_buffer_region(&target, 4, &ones, 4, 2);
            l.set_predication(None, PredicationOp::EqualZero);
            l.copy_buffer_region(&target, 7, &ones, 7, 1);
        });
        assert_eq!(ctx.read_buffer(&target), vec![0, 0, 0, 0, 1, 1, 0, 1]);
    }
}

#[test]
fn timestamps_advance_and_pipeline_statistics_count_draws() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8Unorm, 4, 2, 1);
        let (root, pso) = colour_pipeline(&ctx, Format::R8Unorm, 1);
        let ts = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 2 }).unwrap();
        let stats =
            ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::PipelineStatistics, count: 1 }).unwrap();
        let out = ctx.buffer(HeapType::Readback, 16 + 88);
        ctx.run(CommandListType::Direct, |l| {
            l.end_query(&ts, QueryType::Timestamp, 0);
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            set_clear_state(l, &root, &pso, Viewport::sized(4.0, 2.0), Rect::new(0, 0, 4, 2), floats([1.0; 4]));
            l.begin_query(&stats, QueryType::PipelineStatistics, 0);
            l.draw_instanced(3, 2, 0, 0);
            l.end_query(&stats, QueryType::PipelineStatistics, 0);
            l.end_query(&ts, QueryType::Timestamp, 1);
            l.resolve_query_data(&ts, QueryType::Timestamp, 0, 2, &out, 0);
            l.resolve_query_data(&stats, QueryType::PipelineStatistics, 0, 1, &out, 16);
        });
        let bytes = out.read_vec(0, 104).unwrap();
        let t0 = u64::from_le_bytes(bytes[0..8].try_into().unwrap());
        let t1 = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
        assert!(t1 >= t0 && t0 > 0, "{t0} {t1}");
        let s: PipelineStatistics = bytemuck::pod_read_unaligned(&bytes[16..104]);
        assert_eq!((s.ia_vertices, s.ia_primitives, s.c_invocations), (6, 2, 2), "{name}");
        // Vertex shader results may be reused between instances.
        assert!((1..=6).contains(&s.vs_invocations), "{name}: {s:?}");
        // Clipping may split the large triangle, and helper invocations may be counted.
        assert!(s.c_primitives >= 2, "{name}: {s:?}");
        assert!(s.ps_invocations >= 16, "{name}: two instances over 8 pixels: {s:?}");
    }
}

#[test]
fn bundles_replay_with_the_callers_targets() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8Unorm, 4, 4, 1);
        let (root, pso) = colour_pipeline(&ctx, Format::R8Unorm, 1);
        let balloc = ctx.device.create_command_allocator(CommandListType::Bundle).unwrap();
        let mut bundle = ctx.device.create_command_list(CommandListType::Bundle, &balloc).unwrap();
        bundle.set_graphics_root_signature(&root);
        bundle.set_pipeline_state(&pso);
        bundle.set_graphics_root_32bit_constants(0, &floats([1.0; 4]), 0);
        bundle.draw_instanced(3, 1, 0, 0);
        bundle.close().unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&t.rtv, [0.0; 4], &[]);
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            l.rs_set_viewports(&[Viewport::sized(4.0, 4.0)]);
            l.rs_set_scissor_rects(&[Rect::new(1, 0, 3, 1)]);
            l.execute_bundle(&bundle);
            l.rs_set_scissor_rects(&[Rect::new(0, 3, 1, 4)]);
            l.execute_bundle(&bundle);
        });
        let img = read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0);
        assert_eq!(img, vec![0, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0]);
    }
}

#[test]
fn fill_shader_dispatch_writes_the_pattern() {
    for (name, ctx) in contexts() {
        let _ = name;
        let buf = ctx.default_buffer(&[0xAA; 64]);
        let (root, pso) = fill_pipeline(&ctx);
        ctx.run(CommandListType::Compute, |l| {
            let constants = [0x0403_0201, 0x0807_0605, 0x0C0B_0A09, 0, 3, 10];
            dispatch_fill(l, (&root, &pso), &constants, buf.gpu_address(8), 1)
        });
        let out = ctx.read_buffer(&buf);
        assert_eq!(&out[..8], &[0xAA; 8]);
        let want: Vec<u8> = (0..40).map(|i| ((i % 12) + 1) as u8).collect();
        assert_eq!(&out[8..48], &want[..]);
        assert_eq!(&out[48..], &[0xAA; 16]);
    }
}

/// Found by the fuzzer: root constants pushed for a dispatch reached the graphics stages too,
/// and lavapipe crashed on the next statistics query of the list (no graphics pipeline bound).
#[test]
fn a_statistics_query_after_a_dispatch_in_one_list() {
    for (name, ctx) in contexts() {
        let buf = ctx.default_buffer(&[0xAA; 64]);
        let (root, pso) = fill_pipeline(&ctx);
        let q =
            ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::PipelineStatistics, count: 1 }).unwrap();
        let out = ctx.buffer(HeapType::Readback, 88);
        ctx.run(CommandListType::Direct, |l| {
            dispatch_fill(l, (&root, &pso), &[0x0101_0101, 0, 0, 0, 1, 16], buf.gpu_address(0), 1);
            l.begin_query(&q, QueryType::PipelineStatistics, 0);
            l.end_query(&q, QueryType::PipelineStatistics, 0);
            l.resolve_query_data(&q, QueryType::PipelineStatistics, 0, 1, &out, 0);
        });
        assert_eq!(ctx.read_buffer(&buf), vec![1; 64], "{name}");
        assert_eq!(ctx.read_buffer(&out), vec![0; 88], "{name}: nothing ran inside the query");
    }
}

#[test]
fn binary_occlusion_resolves_to_zero_or_one() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8Unorm, 4, 4, 1);
        let (root, pso) = colour_pipeline(&ctx, Format::R8Unorm, 1);
        let q = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 2 }).unwrap();
        let out = ctx.buffer(HeapType::Readback, 32);
        ctx.run(CommandListType::Direct, |l| {
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            set_clear_state(l, &root, &pso, Viewport::sized(4.0, 4.0), Rect::new(0, 0, 4, 4), floats([1.0; 4]));
            l.begin_query(&q, QueryType::BinaryOcclusion, 0);
            l.draw_instanced(3, 1, 0, 0);
            l.end_query(&q, QueryType::BinaryOcclusion, 0);
            l.begin_query(&q, QueryType::BinaryOcclusion, 1);
            l.end_query(&q, QueryType::BinaryOcclusion, 1);
            l.resolve_query_data(&q, QueryType::BinaryOcclusion, 0, 2, &out, 0);
        });
        let v: Vec<u64> =
            out.read_vec(0, 24).unwrap().chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(v, vec![1, 0, 0], "{name}: 16 samples passed, stored as 1 by a binary query");
    }
}

#[test]
fn resolving_queries_no_list_wrote_completes() {
    for (_, ctx) in contexts() {
        let q = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 4 }).unwrap();
        let o = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 4 }).unwrap();
        let out = ctx.buffer(HeapType::Readback, 64);
        // The values are undefined; the point is that the work finishes (ctx.run waits).
        ctx.run(CommandListType::Direct, |l| {
            l.resolve_query_data(&q, QueryType::Timestamp, 0, 4, &out, 0);
            l.resolve_query_data(&o, QueryType::Occlusion, 0, 4, &out, 32);
        });
        // Resolving a slot before the same list writes it resolves what the slot held
        // (`graphics::a_query_slot_resolved_then_written_in_one_list` checks the values).
        ctx.run(CommandListType::Direct, |l| {
            l.resolve_query_data(&q, QueryType::Timestamp, 0, 2, &out, 0);
            l.end_query(&q, QueryType::Timestamp, 1);
        });
    }
}

#[test]
fn a_suspended_pass_resumes_in_the_next_list() {
    for (name, ctx) in contexts() {
        let _ = name;
        let t = render_target(&ctx, Format::R8Unorm, 4, 1, 1);
        let (root, pso) = colour_pipeline(&ctx, Format::R8Unorm, 1);
        let target = |beginning| RenderPassRenderTarget {
            view: t.rtv.clone(),
            beginning,
            ending: EndingAccess::<&Resource>::Preserve,
        };
        let mut first = ctx.list(CommandListType::Direct);
        first.begin_render_pass(
            &[target(BeginningAccess::Clear(ClearData::from_floats([0.0; 4])))],
            None,
            RenderPassFlags::SUSPENDING_PASS,
        );
        set_clear_state(&mut first, &root, &pso, Viewport::sized(4.0, 1.0), Rect::new(0, 0, 1, 1), floats([1.0; 4]));
        first.draw_instanced(3, 1, 0, 0);
        first.end_render_pass();
        first.close().unwrap();
        let mut second = ctx.list(CommandListType::Direct);
        // A resuming pass keeps the contents even though its beginning access says CLEAR.
        second.begin_render_pass(
            &[target(BeginningAccess::Clear(ClearData::from_floats([0.0; 4])))],
            None,
            RenderPassFlags::RESUMING_PASS,
        );
        set_clear_state(&mut second, &root, &pso, Viewport::sized(4.0, 1.0), Rect::new(3, 0, 4, 1), floats([0.6; 4]));
        second.draw_instanced(3, 1, 0, 0);
        second.end_render_pass();
        second.close().unwrap();
        ctx.direct.execute_command_lists(&[&first, &second]).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0), vec![255, 0, 0, 153]);
    }
}

#[test]
fn predication_skips_draws_and_dispatches() {
    for (name, ctx) in contexts() {
        let t = render_target(&ctx, Format::R8Unorm, 4, 1, 1);
        let (root, pso) = colour_pipeline(&ctx, Format::R8Unorm, 1);
        let predicate = ctx.default_buffer(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&t.rtv, [0.0; 4], &[]);
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            let draw = |l: &mut CommandList, x: i32, value: f32| {
                set_clear_state(
                    l,
                    &root,
                    &pso,
                    Viewport::sized(4.0, 1.0),
                    Rect::new(x, 0, x + 1, 1),
                    floats([value; 4]),
                );
                l.draw_instanced(3, 1, 0, 0);
            };
            // Zero predicate, EQUAL_ZERO: skipped.
            l.set_predication(Some((&predicate, 0)), PredicationOp::EqualZero);
            draw(l, 0, 1.0);
            // Zero predicate, NOT_EQUAL_ZERO: runs.
            l.set_predication(Some((&predicate, 0)), PredicationOp::NotEqualZero);
            draw(l, 1, 1.0);
            // A predicate whose only set bit is in its high half is not zero.
            l.set_predication(Some((&predicate, 8)), PredicationOp::EqualZero);
            draw(l, 2, 1.0);
            l.set_predication(None, PredicationOp::EqualZero);
            draw(l, 3, 1.0);
        });
        assert_eq!(read_back(&ctx, &t.tex, BarrierLayout::RenderTarget, 0), vec![0, 255, 255, 255], "{name}");
    }
}

#[test]
fn clears_of_3d_render_targets_select_depth_slices() {
    for (name, ctx) in contexts() {
        let desc = ResourceDesc::tex3d(Format::R8Unorm, 4, 4, 4).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&desc, BarrierLayout::RenderTarget);
        let heap = ctx.device.create_descriptor_heap(DescriptorHeapType::Rtv, 2).unwrap();
        ctx.device.create_render_target_view(&tex, None, &heap.handle(0)).unwrap();
        let slices = RenderTargetViewDesc {
            format: Format::R8Unorm,
            dimension: RtvDimension::Texture3D { mip: 0, first_w: 1, w_size: 2 },
        };
        ctx.device.create_render_target_view(&tex, Some(&slices), &heap.handle(1)).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&heap.handle(0), [0.2, 0.0, 0.0, 0.0], &[]);
            l.clear_render_target_view(&heap.handle(1), [1.0, 0.0, 0.0, 0.0], &[Rect::new(1, 1, 3, 3)]);
        });
        let img = read_back(&ctx, &tex, BarrierLayout::RenderTarget, 0);
        for z in 0..4 {
            for y in 0..4 {
                for x in 0..4 {
                    let inside = (1..3).contains(&z) && (1..3).contains(&y) && (1..3).contains(&x);
                    assert_eq!(img[(z * 4 + y) * 4 + x], if inside { 255 } else { 51 }, "{name}: ({x}, {y}, {z})");
                }
            }
        }
    }
}

/// Found by the fuzzer: a resolve of no queries at the heap's end reached
/// `vkCmdCopyQueryPoolResults` with a first query past the pool (VUID-…-firstQuery-00820).
#[test]
fn resolving_no_queries_at_the_heaps_end_writes_nothing() {
    for (name, ctx) in contexts() {
        let heap = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 2 }).unwrap();
        let out = ctx.default_buffer(&[3; 16]);
        ctx.run(CommandListType::Direct, |l| l.resolve_query_data(&heap, QueryType::Occlusion, 2, 0, &out, 0));
        assert_eq!(ctx.read_buffer(&out), vec![3; 16], "{name}");
    }
}

/// Found by the cross-device fuzzer: a query slot written twice in one list was reset only
/// once, at the list's start (Vulkan's UNASSIGNED-CoreValidation-DrawState-QueryNotReset).
#[test]
fn a_query_slot_written_twice_in_one_list() {
    for (name, ctx) in contexts() {
        let occlusion =
            ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Occlusion, count: 1 }).unwrap();
        let stamps = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 1 }).unwrap();
        let out = ctx.default_buffer(&[7; 16]);
        ctx.run(CommandListType::Direct, |l| {
            for _ in 0..2 {
                l.begin_query(&occlusion, QueryType::Occlusion, 0);
                l.end_query(&occlusion, QueryType::Occlusion, 0);
                l.end_query(&stamps, QueryType::Timestamp, 0);
            }
            l.resolve_query_data(&occlusion, QueryType::Occlusion, 0, 1, &out, 0);
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &out, 8);
        });
        let bytes = ctx.read_buffer(&out);
        assert_eq!(bytes[..8], [0; 8], "{name}: nothing was drawn inside the query");
        assert_ne!(bytes[8..], [7; 8], "{name}: the timestamp was resolved");
    }
}

/// Found by the cross-device fuzzer (seeds 69826, 89254): a list that resolves a slot and then
/// writes it was refused on Vulkan, which reset every slot a list writes when the list starts
/// (the resolve would have read nothing). D3D12 resolves the slot's earlier result.
#[test]
fn a_query_slot_resolved_then_written_in_one_list() {
    for (name, ctx) in contexts() {
        let stamps = ctx.device.create_query_heap(&QueryHeapDesc { ty: QueryHeapType::Timestamp, count: 1 }).unwrap();
        let first = ctx.default_buffer(&[7; 8]);
        let out = ctx.default_buffer(&[7; 16]);
        ctx.run(CommandListType::Direct, |l| {
            l.end_query(&stamps, QueryType::Timestamp, 0);
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &first, 0);
        });
        ctx.run(CommandListType::Direct, |l| {
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &out, 0);
            l.end_query(&stamps, QueryType::Timestamp, 0);
            l.resolve_query_data(&stamps, QueryType::Timestamp, 0, 1, &out, 8);
        });
        let (earlier, bytes) = (ctx.read_buffer(&first), ctx.read_buffer(&out));
        assert_ne!(earlier, [7; 8], "{name}");
        assert_eq!(bytes[..8], earlier[..], "{name}: the first resolve reads the earlier list's timestamp");
        let stamp = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
        assert!(stamp(&bytes[8..]) >= stamp(&earlier), "{name}: the second reads this list's");
    }
}

/// Found by the fuzzer: a stencil-only ClearDepthStencilView passed its (ignored) depth, out
/// of [0, 1], to `vkCmdClearDepthStencilImage` (VUID-VkClearDepthStencilValue-depth-02506).
#[test]
fn a_stencil_only_clear_ignores_its_depth_value() {
    for (name, ctx) in contexts() {
        let desc = ResourceDesc::tex2d(Format::D24UnormS8Uint, 4, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let heap = ctx.device.create_descriptor_heap(asyncmd::DescriptorHeapType::Dsv, 1).unwrap();
        ctx.device.create_depth_stencil_view(&tex, None, &heap.handle(0)).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            barrier(l, &tex, BarrierLayout::Common, BarrierLayout::DepthStencilWrite);
            l.clear_depth_stencil_view(&heap.handle(0), ClearFlags::STENCIL, -0.25, 7, &[]);
            l.clear_depth_stencil_view(&heap.handle(0), ClearFlags::STENCIL, f32::NAN, 9, &[Rect::new(0, 0, 2, 4)]);
            barrier(l, &tex, BarrierLayout::DepthStencilWrite, BarrierLayout::Common);
        });
        assert_eq!(ctx.read_subresource(&tex, 0), vec![0; 64], "{name}: depth");
        assert_eq!(ctx.read_subresource(&tex, 1), [9, 9, 7, 7].repeat(4), "{name}: stencil");
    }
}

//! The bound clears' rules and edge values on every device, natively and through the
//! fallback: bad arguments and read-only planes, unbound outputs, depth values,
//! targets of different sample counts or slice counts, integer and normalized values past
//! their range.

mod common;

use asyncmd::ddi::*;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::ReferenceConfig;
use common::targets::*;
use common::*;

#[test]
fn bad_arguments_and_written_read_only_planes_are_invalid() {
    for (name, ctx) in async_contexts() {
        let t = rt(&ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 8), None);
        let d = ds(&ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, 8, 8), DsvFlags::READ_ONLY_DEPTH);
        let d2 = ds(&ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, 8, 8), DsvFlags::empty());
        let v = [floats([0.0; 4]); 2];
        let id = MessageId::ClearBoundViewsInvalidParameters;
        type Record<'a> = Box<dyn Fn(&mut CommandList) + 'a>;
        let cases: Vec<(&str, Record, &str)> = vec![
            ("mask past slot 7", Box::new(|l| l.clear_bound_render_target_views(0x100, &v, None)), "past 7"),
            (
                "too few values",
                Box::new(|l| l.clear_bound_render_target_views(0b100, &v, None)),
                "needs 3 clear values",
            ),
            (
                "too few region lists",
                Box::new(|l| l.clear_bound_render_target_views(0b10, &v, Some(&[None]))),
                "region lists",
            ),
            (
                "no planes",
                Box::new(|l| l.clear_bound_depth_stencil_view(ClearFlags::empty(), 0.0, 0, None)),
                "ClearFlags",
            ),
            (
                "read-only depth",
                Box::new(|l| l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.0, 0, None)),
                "read-only",
            ),
        ];
        for (what, f, text) in cases {
            let r = ctx.record(CommandListType::Direct, |l| {
                to_target(l, &t);
                to_target(l, &d);
                l.om_set_render_targets(std::slice::from_ref(&t.view), Some(&d.view));
                f(l);
            });
            let e = assert_error(r, ErrorCode::InvalidArg, id);
            assert!(e.text.contains(text), "{name}, {what}: {}", e.text);
        }
        // The stencil of a read-only-depth view may be written.
        ctx.record(CommandListType::Direct, |l| {
            to_target(l, &d);
            l.om_set_render_targets(&[], Some(&d.view));
            l.clear_bound_depth_stencil_view(ClearFlags::STENCIL, 0.0, 1, None);
            from_target(l, &d);
        })
        .unwrap();
        // A plane the pass does not bind.
        let r = ctx.record(CommandListType::Direct, |l| {
            to_target(l, &d2);
            let p = pass_depth(&d2, BeginningAccess::Preserve, BeginningAccess::NoAccess);
            l.begin_render_pass(&[], Some(&p), RenderPassFlags::empty());
            l.clear_bound_depth_stencil_view(ClearFlags::STENCIL, 0.0, 1, None);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, id);
        assert!(e.text.contains("NO_ACCESS"), "{name}: {}", e.text);
        // Between a suspending end and the resuming begin.
        let r = ctx.record(CommandListType::Direct, |l| {
            to_target(l, &t);
            l.begin_render_pass(&[pass_target(&t)], None, RenderPassFlags::SUSPENDING_PASS);
            l.end_render_pass();
            l.clear_bound_render_target_views(1, &v, None);
        });
        assert_error(r, ErrorCode::Fail, MessageId::RenderPassInvalid);
    }
}

#[test]
fn unbound_outputs_are_skipped_and_reported() {
    for (name, ctx) in async_contexts() {
        let t = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
        let before = snapshot(&ctx, &[&t]);
        ctx.device.info_queue().clear();
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &t);
            l.om_set_render_targets(std::slice::from_ref(&t.view), None);
            // Slot 2 has nothing bound; slot 0 is cleared.
            let v = [ClearData::from_uints([6, 0, 0, 0]); 3];
            l.clear_bound_render_target_views(0b101, &v, None);
            l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.0, 0, None);
            from_target(l, &t);
        });
        let reports = ctx
            .device
            .info_queue()
            .messages()
            .into_iter()
            .filter(|m| m.id == MessageId::ClearBoundViewsUnboundOutput)
            .count();
        assert_eq!(reports, 2, "{name}: one report for the slot, one for the missing depth-stencil view");
        assert!(
            ctx.read_subresource(&t.tex, 0) == model(&before[0][0], 8, (0, 0, 8, 8), &6u32.to_le_bytes()),
            "{name}"
        );
    }
}

#[test]
fn what_draws_cannot_cover_inside_a_pass_fails_the_list() {
    let ctx = Ctx::new(opted_in(&reference_adapter(ReferenceConfig::default())));
    let big = rt(&ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 32, 16), None);
    let small = rt(&ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 16, 8), None);
    let msaa = rt(&ctx, ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 32, 16).with_samples(4, 0), None);
    let v = [floats([0.25; 4]); 2];
    let fail = |r: Result<()>, why: &str| {
        let e = assert_error(r, ErrorCode::Fail, MessageId::AsyncCommandsFallbackUnsupported);
        assert!(e.text.contains(why), "{}", e.text);
    };
    let r = ctx.record(CommandListType::Direct, |l| {
        to_target(l, &big);
        to_target(l, &small);
        l.begin_render_pass(&[pass_target(&big), pass_target(&small)], None, RenderPassFlags::empty());
        // The whole of the large target reaches past the small one.
        l.clear_bound_render_target_views(1, &v, None);
    });
    fail(r, "past the smallest bound output");
    // A region inside the smallest output is fine.
    ctx.run(CommandListType::Direct, |l| {
        to_target(l, &big);
        to_target(l, &small);
        l.begin_render_pass(&[pass_target(&big), pass_target(&small)], None, RenderPassFlags::empty());
        l.clear_bound_render_target_views(1, &v, Some(&[Some(&[Box3::new(0, 0, 0, 16, 8, 1)])]));
        l.end_render_pass();
        from_target(l, &big);
        from_target(l, &small);
    });
    let r = ctx.record(CommandListType::Direct, |l| {
        to_target(l, &big);
        to_target(l, &msaa);
        l.begin_render_pass(&[pass_target(&big), pass_target(&msaa)], None, RenderPassFlags::empty());
        l.clear_bound_render_target_views(1, &v, None);
    });
    fail(r, "sample counts");
    // Outside a pass the same clears take legacy clears.
    ctx.run(CommandListType::Direct, |l| {
        to_target(l, &big);
        to_target(l, &small);
        l.om_set_render_targets(&[big.view.clone(), small.view.clone()], None);
        l.clear_bound_render_target_views(1, &[ClearData::from_uints([1, 2, 3, 4])], None);
        from_target(l, &big);
        from_target(l, &small);
    });
    // Bundles record them natively and through the fallback (`bundled_bound_clears.rs`).
    for native in [false, true] {
        let ctx = Ctx::new(opted_in(&reference_adapter(ReferenceConfig {
            native_async_commands: native,
            ..Default::default()
        })));
        ctx.record(CommandListType::Bundle, |l| {
            l.clear_bound_render_target_views(1, &v, None);
            l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 1.0, 0, None);
        })
        .unwrap_or_else(|e| panic!("native {native}: {}", e.text));
    }
    let off = Ctx::new(reference_device(ReferenceConfig::default()));
    let r = off.record(CommandListType::Direct, |l| l.clear_bound_render_target_views(1, &v, None));
    assert_error(r, ErrorCode::Fail, MessageId::AsyncCommandsNotSupported);
}

#[test]
fn native_bound_clears_in_bundles_take_the_callers_targets() {
    for (name, ctx) in
        async_contexts().into_iter().filter(|(_, c)| c.device.async_commands_impl() == AsyncCommandsImpl::Native)
    {
        let t = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
        let before = snapshot(&ctx, &[&t]);
        let mut bundle = ctx.list(CommandListType::Bundle);
        bundle.clear_bound_render_target_views(
            1,
            &[ClearData::from_uints([77, 0, 0, 0])],
            Some(&[Some(&[Box3::new(0, 0, 0, 4, 8, 1)])]),
        );
        bundle.close().unwrap();
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &t);
            l.om_set_render_targets(std::slice::from_ref(&t.view), None);
            l.execute_bundle(&bundle);
            from_target(l, &t);
        });
        assert!(
            ctx.read_subresource(&t.tex, 0) == model(&before[0][0], 8, (0, 0, 4, 8), &77u32.to_le_bytes()),
            "{name}"
        );
    }
}

#[test]
fn a_pass_that_binds_a_plane_read_only_refuses_its_clear() {
    for (name, ctx) in async_contexts() {
        let d = ds(&ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, 8, 8), DsvFlags::empty());
        for (flags, plane, other) in [
            (RenderPassFlags::BIND_READ_ONLY_DEPTH, ClearFlags::DEPTH, ClearFlags::STENCIL),
            (RenderPassFlags::BIND_READ_ONLY_STENCIL, ClearFlags::STENCIL, ClearFlags::DEPTH),
        ] {
            let r = ctx.record(CommandListType::Direct, |l| {
                to_target(l, &d);
                let p = pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::Preserve);
                l.begin_render_pass(&[], Some(&p), flags);
                l.clear_bound_depth_stencil_view(plane, 0.5, 1, None);
            });
            let e = assert_error(r, ErrorCode::InvalidArg, MessageId::ClearBoundViewsInvalidParameters);
            assert!(e.text.contains("read-only"), "{name}, {flags:?}: {}", e.text);
            // The plane the pass writes may be cleared.
            ctx.record(CommandListType::Direct, |l| {
                to_target(l, &d);
                let p = pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::Preserve);
                l.begin_render_pass(&[], Some(&p), flags);
                l.clear_bound_depth_stencil_view(other, 0.5, 1, None);
                l.end_render_pass();
                from_target(l, &d);
            })
            .unwrap_or_else(|e| panic!("{name}, {flags:?}: {}", e.text));
        }
    }
}

#[test]
fn negative_zero_depth_is_stored_as_positive_zero_on_every_route() {
    for (name, ctx) in async_contexts() {
        for in_pass in [false, true] {
            let d = ds(&ctx, ResourceDesc::tex2d(Format::D32Float, 8, 4), DsvFlags::empty());
            ctx.run(CommandListType::Direct, |l| {
                to_target(l, &d);
                if in_pass {
                    let p = pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::NoAccess);
                    l.begin_render_pass(&[], Some(&p), RenderPassFlags::empty());
                } else {
                    l.om_set_render_targets(&[], Some(&d.view));
                }
                // The whole view (a legacy clear outside a pass) and a region (draws).
                l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, -0.0, 0, None);
                l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, -0.0, 0, Some(&[Box3::new(0, 0, 0, 4, 4, 1)]));
                if in_pass {
                    l.end_render_pass();
                }
                from_target(l, &d);
            });
            assert_eq!(ctx.read_subresource(&d.tex, 0), vec![0u8; 8 * 4 * 4], "{name}, pass {in_pass}");
        }
    }
}

/// D16 depth from the fallback's draws in a pass is the nearest 16-bit value on every device
/// (lavapipe truncates the depth a draw writes; the draws output a depth it stores right).
/// Expected values worked out by hand: round(d × 65535).
#[test]
fn d16_depth_from_draws_is_the_nearest_value_on_every_route() {
    for (name, ctx) in async_contexts() {
        for (depth, stored) in [(0.123f32, 8061u16), (0.777, 50921), (0.9999, 65528), (0.2, 13107)] {
            let d = ds(&ctx, ResourceDesc::tex2d(Format::D16Unorm, 8, 4), DsvFlags::empty());
            ctx.run(CommandListType::Direct, |l| {
                to_target(l, &d);
                let p = pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::NoAccess);
                l.begin_render_pass(&[], Some(&p), RenderPassFlags::empty());
                l.clear_bound_depth_stencil_view(ClearFlags::DEPTH, depth, 0, None);
                l.end_render_pass();
                from_target(l, &d);
            });
            assert_eq!(ctx.read_subresource(&d.tex, 0), stored.to_le_bytes().repeat(8 * 4), "{name}, depth {depth}");
        }
    }
}

/// Found by the fuzzer: targets of different sample counts went into one Vulkan rendering
/// instance (VUID-VkRenderingInfo-multisampledRenderToSingleSampled-06857). Bound clears of
/// such targets clear each one (natively in and out of a pass, through legacy clears outside
/// a pass under the fallback, which refuses them inside one); a draw into them is refused.
#[test]
fn targets_of_different_sample_counts_are_cleared_one_by_one() {
    for (name, ctx) in async_contexts() {
        let native = ctx.device.async_commands_impl() == AsyncCommandsImpl::Native;
        let format = Format::R8G8B8A8Unorm;
        let single = rt(&ctx, ResourceDesc::tex2d(format, 8, 8), None);
        let msaa = rt(&ctx, ResourceDesc::tex2d(format, 8, 8).with_samples(4, 0), None);
        let resolved = ctx.texture(&ResourceDesc::tex2d(format, 8, 8), BarrierLayout::Common);
        let values = [floats([1.0, 0.0, 0.0, 1.0]), floats([0.0, 1.0, 0.0, 1.0])];
        let check = |what: &str, want_single: [u8; 4], want_msaa: [u8; 4]| {
            ctx.run(CommandListType::Direct, |l| {
                barrier(l, &msaa.tex, BarrierLayout::Common, BarrierLayout::ResolveSource);
                barrier(l, &resolved, BarrierLayout::Common, BarrierLayout::ResolveDest);
                l.resolve_subresource_region(&resolved, 0, 0, 0, &msaa.tex, 0, None, format, ResolveMode::Average);
                barrier(l, &msaa.tex, BarrierLayout::ResolveSource, BarrierLayout::Common);
                barrier(l, &resolved, BarrierLayout::ResolveDest, BarrierLayout::Common);
            });
            assert_eq!(ctx.read_subresource(&single.tex, 0), want_single.repeat(64), "{name}, {what}");
            assert_eq!(ctx.read_subresource(&resolved, 0), want_msaa.repeat(64), "{name}, {what}");
        };
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &single);
            to_target(l, &msaa);
            l.om_set_render_targets(&[single.view.clone(), msaa.view.clone()], None);
            l.clear_bound_render_target_views(0b11, &values, None);
            from_target(l, &single);
            from_target(l, &msaa);
        });
        check("outside a pass", [255, 0, 0, 255], [0, 255, 0, 255]);
        // Inside a pass the slots are the pass's order: the MSAA target first.
        let values = [floats([0.0, 0.0, 1.0, 1.0]), floats([1.0, 1.0, 1.0, 1.0])];
        let in_pass = |l: &mut CommandList| {
            to_target(l, &msaa);
            to_target(l, &single);
            l.begin_render_pass(&[pass_target(&msaa), pass_target(&single)], None, RenderPassFlags::empty());
            l.clear_bound_render_target_views(0b11, &values, None);
            l.end_render_pass();
            from_target(l, &single);
            from_target(l, &msaa);
        };
        if native {
            ctx.run(CommandListType::Direct, in_pass);
            check("inside a pass", [255; 4], [0, 0, 255, 255]);
        } else {
            assert_error(
                ctx.record(CommandListType::Direct, in_pass),
                ErrorCode::Fail,
                MessageId::AsyncCommandsFallbackUnsupported,
            );
        }
        let (root, pso) = app_pipeline(&ctx, &[format, format], Format::Unknown);
        let r = ctx.record(CommandListType::Direct, |l| {
            to_target(l, &single);
            to_target(l, &msaa);
            l.om_set_render_targets(&[single.view.clone(), msaa.view.clone()], None);
            l.set_graphics_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.ia_set_primitive_topology(PrimitiveTopology::TriangleList);
            l.draw_instanced(3, 1, 0, 0);
        });
        assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
    }
}

/// Found by the fuzzer: integer values out of a channel's range were saturated by the Vulkan
/// driver's attachment clear (0x7FFF on R16_SINT) where every other route stores the low
/// bits, sign-extended for SINT, as the texture clears do.
#[test]
fn bound_clears_store_the_low_bits_of_integer_values() {
    for (name, ctx) in async_contexts() {
        let sint = rt(&ctx, ResourceDesc::tex2d(Format::R16Sint, 4, 4), None);
        let uint = rt(&ctx, ResourceDesc::tex2d(Format::R16Uint, 4, 4), None);
        let values = [ClearData::from_uints([0x4B80_0000, 0, 0, 0]), ClearData::from_uints([0x1_2345, 0, 0, 0])];
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &sint);
            to_target(l, &uint);
            l.om_set_render_targets(&[sint.view.clone(), uint.view.clone()], None);
            l.clear_bound_render_target_views(0b11, &values, None);
            from_target(l, &sint);
            from_target(l, &uint);
        });
        assert_eq!(ctx.read_subresource(&sint.tex, 0), vec![0; 32], "{name}: R16_SINT");
        assert_eq!(ctx.read_subresource(&uint.tex, 0), [0x45, 0x23].repeat(16), "{name}: R16_UINT");
    }
}

/// Found by the cross-device fuzzer: inside a render pass the Vulkan device clears only the
/// pass's render area (what every bound output covers), the reference device cleared each
/// whole target. Both now clear the common area natively; the fallback refuses regions past it.
#[test]
fn native_clears_in_a_pass_reach_the_area_every_output_covers() {
    for (name, ctx) in async_contexts() {
        if ctx.device.async_commands_impl() != AsyncCommandsImpl::Native {
            continue;
        }
        let big = rt(&ctx, ResourceDesc::tex2d(Format::R8Unorm, 8, 4), None);
        let small = rt(&ctx, ResourceDesc::tex2d(Format::R8Unorm, 4, 2), None);
        let before = ctx.read_subresource(&big.tex, 0);
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &big);
            to_target(l, &small);
            l.begin_render_pass(&[pass_target(&big), pass_target(&small)], None, RenderPassFlags::empty());
            l.clear_bound_render_target_views(0b11, &[floats([1.0; 4]); 2], None);
            l.end_render_pass();
            from_target(l, &big);
            from_target(l, &small);
        });
        assert_eq!(ctx.read_subresource(&big.tex, 0), model(&before, 8, (0, 0, 4, 2), &[255]), "{name}: big");
        assert_eq!(ctx.read_subresource(&small.tex, 0), vec![255; 8], "{name}: small");
        // Also where the targets differ in sample count and are cleared one by one (the
        // cross-device fuzzer's seed 103726: the Vulkan device cleared the big one whole).
        let msaa = rt(&ctx, ResourceDesc::tex2d(Format::R8Unorm, 4, 2).with_samples(4, 0), None);
        let before = ctx.read_subresource(&big.tex, 0);
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &big);
            to_target(l, &msaa);
            l.begin_render_pass(&[pass_target(&big), pass_target(&msaa)], None, RenderPassFlags::empty());
            l.clear_bound_render_target_views(0b1, &[floats([0.0; 4])], None);
            l.end_render_pass();
            from_target(l, &big);
            from_target(l, &msaa);
        });
        assert_eq!(ctx.read_subresource(&big.tex, 0), model(&before, 8, (0, 0, 4, 2), &[0]), "{name}: mixed samples");
    }
}

/// Found by the cross-device fuzzer (seed 11077): outside a pass, a target of more slices than
/// another bound output took the fallback's draws, and a Vulkan rendering instance reaches only
/// the fewest slices of its attachments: the Vulkan fallback cleared slice 0 alone. Draws now
/// cover only what every output has; the rest takes the legacy clear, so every route writes
/// both slices.
#[test]
fn a_target_of_more_slices_than_another_bound_output_is_cleared_whole() {
    for (name, ctx) in async_contexts() {
        let one = rt(&ctx, ResourceDesc::tex2d(Format::R8Uint, 8, 8), None);
        let two = rt(&ctx, ResourceDesc::tex2d(Format::R8Uint, 8, 8).with_array(2), None);
        let before = snapshot(&ctx, &[&one]);
        let value = ClearData::from_uints([7, 0, 0, 0]);
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &one);
            to_target(l, &two);
            l.om_set_render_targets(&[one.view.clone(), two.view.clone()], None);
            l.clear_bound_render_target_views(0b10, &[value, value], None);
            from_target(l, &one);
            from_target(l, &two);
        });
        for slice in 0..2 {
            assert_eq!(ctx.read_subresource(&two.tex, slice), vec![7u8; 64], "{name}: slice {slice}");
        }
        assert_eq!(ctx.read_subresource(&one.tex, 0), before[0][0], "{name}: the other target");
    }
}

/// Found by the cross-device fuzzer (seed 29668): lavapipe's draws take B5G6R5's channels
/// through 8 bits and keep the high bits, so the fallback's draw of red 0.9139 stored 29, not
/// round(0.9139 × 31) = 28 (the value is no view clear's: its other channels are past 1).
/// Every route stores the nearest value and the channels' ends for values past them (bytes
/// worked out by hand: red 28, green and blue at their maximum).
#[test]
fn normalized_values_past_their_range_store_its_ends_on_every_route() {
    let v = floats([f32::from_bits(0x3f69_f132), 1.43, f32::INFINITY, -0.0]);
    let texel = [0xFF, 0xE7];
    for (name, ctx) in async_contexts() {
        let a = rt(&ctx, ResourceDesc::tex2d(Format::B5G6R5Unorm, 8, 4), None);
        // The whole target and a region: the fallback draws both (no view clear takes it).
        for regions in [None, Some([Box3::new(0, 0, 0, 4, 4, 1)])] {
            ctx.run(CommandListType::Direct, |l| {
                to_target(l, &a);
                l.om_set_render_targets(std::slice::from_ref(&a.view), None);
                l.clear_bound_render_target_views(
                    0b1,
                    &[v],
                    regions.as_ref().map(|r| [Some(&r[..])]).as_ref().map(|r| &r[..]),
                );
                from_target(l, &a);
            });
            let got = ctx.read_subresource(&a.tex, 0);
            assert_eq!(got[..8], texel.repeat(4)[..], "{name}, regions {regions:?}");
        }
    }
}

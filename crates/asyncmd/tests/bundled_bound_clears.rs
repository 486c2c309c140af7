//! Bound clears recorded in bundles, natively and through the fallback on every device: each
//! list that executes the bundle clears its own targets, inside and outside render passes;
//! the bundle's own state carries across its clears; a clear one list cannot lower removes
//! that list only.

mod common;

use asyncmd::ddi::*;
use asyncmd::types::*;
use asyncmd::*;
use common::targets::*;
use common::*;

/// 2^24 + 1: a view clear's float cannot hold it.
const BIG: u32 = (1 << 24) + 1;

/// Records a bundle with a bound RTV clear of slot 0 and a bound DSV clear of both planes.
fn clearing_bundle(ctx: &Ctx) -> CommandList {
    let mut bundle = ctx.list(CommandListType::Bundle);
    bundle.clear_bound_render_target_views(
        1,
        &[ClearData::from_uints([BIG, 0, 0, 0])],
        Some(&[Some(&[Box3::new(1, 1, 0, 5, 4, 1)])]),
    );
    bundle.clear_bound_depth_stencil_view(
        ClearFlags::DEPTH | ClearFlags::STENCIL,
        0.5,
        0x42,
        Some(&[Box3::new(0, 2, 0, 6, 6, 1)]),
    );
    bundle.close().unwrap();
    bundle
}

/// Every context with the Async Commands, and the native ones again with the fallback forced
/// (the developer setting), as the spec's tests rerun.
fn contexts_and_forced() -> Vec<(String, Ctx)> {
    let mut v: Vec<(String, Ctx)> = async_contexts().into_iter().map(|(n, c)| (n.to_string(), c)).collect();
    let _forced = ForceFallbackGuard::new(true);
    let reference =
        reference_adapter(asyncmd_reference::ReferenceConfig { native_async_commands: true, ..Default::default() });
    let device = DeviceFactory::new().create_device(&reference).unwrap();
    assert_eq!(device.async_commands_impl(), AsyncCommandsImpl::Fallback);
    v.push(("reference forced".into(), Ctx::new(device)));
    let options = asyncmd_vulkan::VulkanOptions {
        validation: asyncmd_vulkan::Validation::IfAvailable,
        native_async_commands: true,
        ..Default::default()
    };
    if let Some(vk) = vulkan_driver_with(options) {
        let adapter = Adapter::new(vk.clone() as std::sync::Arc<dyn asyncmd::ddi::DeviceDdi>);
        let device = DeviceFactory::new().create_device(&adapter).unwrap();
        assert_eq!(device.async_commands_impl(), AsyncCommandsImpl::Fallback);
        let mut ctx = Ctx::new(device);
        ctx.vulkan = Some(vk);
        v.push(("vulkan forced".into(), ctx));
    }
    v
}

#[test]
fn a_bundle_clears_the_targets_of_each_list_that_executes_it() {
    for (name, ctx) in contexts_and_forced() {
        let bundle = clearing_bundle(&ctx);
        for in_pass in [false, true] {
            // Two lists with targets of different sizes, each executing the bundle.
            for size in [8, 16] {
                let t = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, size, size), None);
                let d = ds(&ctx, ResourceDesc::tex2d(Format::D24UnormS8Uint, size, size), DsvFlags::empty());
                let before = snapshot(&ctx, &[&t, &d]);
                ctx.run(CommandListType::Direct, |l| {
                    to_target(l, &t);
                    to_target(l, &d);
                    if in_pass {
                        let p = pass_depth(&d, BeginningAccess::Preserve, BeginningAccess::Preserve);
                        l.begin_render_pass(&[pass_target(&t)], Some(&p), RenderPassFlags::empty());
                    } else {
                        l.om_set_render_targets(std::slice::from_ref(&t.view), Some(&d.view));
                    }
                    l.execute_bundle(&bundle);
                    // Twice: the bundle stays executable.
                    l.execute_bundle(&bundle);
                    if in_pass {
                        l.end_render_pass();
                    }
                    from_target(l, &t);
                    from_target(l, &d);
                });
                let what = format!("{name}, {size}², in pass {in_pass}");
                let colour = model(&before[0][0], size, (1, 1, 5, 4), &BIG.to_le_bytes());
                assert!(ctx.read_subresource(&t.tex, 0) == colour, "{what}: render target");
                let depth = element(Format::D24UnormS8Uint, 0, &ClearData::from_depth_stencil(0.5, 0));
                let want = model(&before[1][0], size, (0, 2, 6, 6), &depth);
                assert!(ctx.read_subresource(&d.tex, 0) == want, "{what}: depth");
                let want = model(&before[1][1], size, (0, 2, 6, 6), &[0x42]);
                assert!(ctx.read_subresource(&d.tex, 1) == want, "{what}: stencil");
            }
        }
    }
}

/// Executes a bundle that sets the app's state, clears a slot the app's pipeline draws into
/// (and a target it does not, and the stencil), and draws; returns the targets' bytes.
fn bundle_draws_after_its_clears(ctx: &Ctx, in_pass: bool) -> Vec<Vec<u8>> {
    let scene = DrawScene::new(ctx, Format::R32Uint);
    let (root, pso) = scene.pipeline(ctx);
    let mut bundle = ctx.list(CommandListType::Bundle);
    bundle.set_graphics_root_signature(&root);
    bundle.set_pipeline_state(&pso);
    let v = floats([0.8, 0.2, 0.4, 0.6]).uints();
    bundle.set_graphics_root_32bit_constants(0, &[v[0], v[1], v[2], v[3], 0, 0], 0);
    bundle.ia_set_primitive_topology(PrimitiveTopology::TriangleList);
    bundle.om_set_stencil_ref(0x33);
    // An exact float for slot 0 (a legacy clear outside a pass), a large integer for slot 1
    // (draws), a stencil region away from the draw.
    bundle.clear_bound_render_target_views(
        0b11,
        &[floats([0.0, 1.0, 0.0, 1.0]), ClearData::from_uints([BIG, 0, 0, 0])],
        Some(&[Some(&[Box3::new(0, 0, 0, 24, 16, 1)]), Some(&[Box3::new(2, 2, 0, 30, 14, 1)])]),
    );
    bundle.clear_bound_depth_stencil_view(ClearFlags::STENCIL, 0.0, 0x99, Some(&[Box3::new(24, 12, 0, 32, 16, 1)]));
    bundle.draw_instanced(3, 1, 0, 0);
    bundle.close().unwrap();
    ctx.run(CommandListType::Direct, |l| {
        scene.bind(l, in_pass);
        l.rs_set_viewports(&[Viewport::sized(32.0, 16.0)]);
        l.rs_set_scissor_rects(&[Rect::new(0, 0, 16, 12)]);
        l.execute_bundle(&bundle);
        scene.unbind(l, in_pass);
    });
    scene.read(ctx)
}

#[test]
fn a_bundles_own_state_carries_across_its_clears() {
    let ctxs = async_contexts();
    for (native, n, fallback, f) in native_fallback_pairs(&ctxs) {
        for in_pass in [false, true] {
            let want = bundle_draws_after_its_clears(n, in_pass);
            let got = bundle_draws_after_its_clears(f, in_pass);
            for (i, what) in ["the app's draw target", "the integer target", "the stencil plane"].iter().enumerate() {
                assert!(got[i] == want[i], "{fallback} vs {native}, in pass {in_pass}: {what} differs");
            }
            // The draw after the clears landed: red and alpha of the app's colour where the
            // scissor and the stencil pass, over the clear's green.
            let texel = &want[0][(4 * 32 + 6) * 4..(4 * 32 + 6) * 4 + 4];
            assert_eq!(texel, [204, 255, 0, 153], "{native}: the bundle's draw wrote texel (6, 4)");
            let cleared = &want[1][(4 * 32 + 6) * 4..(4 * 32 + 6) * 4 + 4];
            assert_eq!(cleared, BIG.to_le_bytes(), "{native}: the integer clear");
        }
    }
}

#[test]
fn a_clear_one_list_cannot_lower_removes_that_list_only() {
    for (name, ctx) in async_contexts() {
        let native = ctx.device.async_commands_impl() == AsyncCommandsImpl::Native;
        // The whole view of slot 0, inside a pass: past a smaller second target, draws
        // cannot cover it.
        let mut bundle = ctx.list(CommandListType::Bundle);
        bundle.clear_bound_render_target_views(1, &[ClearData::from_uints([5, 0, 0, 0])], None);
        bundle.close().unwrap();
        let big = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
        let small = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
        let alone = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
        let before = snapshot(&ctx, &[&alone]);
        let r = ctx.record(CommandListType::Direct, |l| {
            to_target(l, &big);
            to_target(l, &small);
            l.begin_render_pass(&[pass_target(&big), pass_target(&small)], None, RenderPassFlags::empty());
            l.execute_bundle(&bundle);
            l.end_render_pass();
        });
        if native {
            r.unwrap_or_else(|e| panic!("{name}: {}", e.text));
        } else {
            let e = assert_error(r, ErrorCode::Fail, MessageId::AsyncCommandsFallbackUnsupported);
            assert!(e.text.contains("past the smallest bound output"), "{name}: {}", e.text);
        }
        // The same bundle in a list whose pass binds one target clears it.
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &alone);
            l.begin_render_pass(&[pass_target(&alone)], None, RenderPassFlags::empty());
            l.execute_bundle(&bundle);
            l.end_render_pass();
            from_target(l, &alone);
        });
        let want = model(&before[0][0], 16, (0, 0, 16, 16), &5u32.to_le_bytes());
        assert!(ctx.read_subresource(&alone.tex, 0) == want, "{name}");
    }
}

#[test]
fn outputs_a_bundle_selects_and_the_list_does_not_bind_are_skipped_and_reported() {
    for (name, ctx) in async_contexts() {
        let t = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
        let before = snapshot(&ctx, &[&t]);
        let mut bundle = ctx.list(CommandListType::Bundle);
        // Slot 2 and the depth-stencil view: the executing list binds neither.
        bundle.clear_bound_render_target_views(0b101, &[ClearData::from_uints([BIG, 0, 0, 0]); 3], None);
        bundle.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.0, 0, None);
        bundle.close().unwrap();
        ctx.device.info_queue().clear();
        ctx.run(CommandListType::Direct, |l| {
            to_target(l, &t);
            l.om_set_render_targets(std::slice::from_ref(&t.view), None);
            l.execute_bundle(&bundle);
            from_target(l, &t);
        });
        let reports: Vec<String> = ctx
            .device
            .info_queue()
            .messages()
            .into_iter()
            .filter(|m| m.id == MessageId::ClearBoundViewsUnboundOutput && m.severity == MessageSeverity::Error)
            .map(|m| m.text)
            .collect();
        assert_eq!(reports.len(), 2, "{name}: {reports:?}");
        assert!(reports[0].contains("slot 2"), "{name}: {reports:?}");
        assert!(reports[1].contains("ClearBoundDepthStencilView"), "{name}: {reports:?}");
        let want = model(&before[0][0], 8, (0, 0, 8, 8), &BIG.to_le_bytes());
        assert!(ctx.read_subresource(&t.tex, 0) == want, "{name}: slot 0 is cleared");
    }
}

#[test]
fn a_bundles_bad_bound_clear_removes_the_bundle_natively_and_through_the_fallback() {
    for (name, ctx) in async_contexts() {
        let v = [ClearData::default(); 2];
        type Record<'a> = Box<dyn Fn(&mut CommandList) + 'a>;
        let cases: Vec<(&str, Record)> = vec![
            ("mask past slot 7", Box::new(|l| l.clear_bound_render_target_views(0x100, &v, None))),
            ("too few values", Box::new(|l| l.clear_bound_render_target_views(0b100, &v, None))),
            ("no planes", Box::new(|l| l.clear_bound_depth_stencil_view(ClearFlags::empty(), 0.0, 0, None))),
        ];
        for (what, f) in cases {
            let r = ctx.record(CommandListType::Bundle, |l| f(l));
            let e = assert_error(r, ErrorCode::InvalidArg, MessageId::ClearBoundViewsInvalidParameters);
            assert!(e.text.starts_with("ClearBound"), "{name}, {what}: {}", e.text);
        }
        // Executing a removed bundle removes the list that tries.
        let mut bundle = ctx.list(CommandListType::Bundle);
        bundle.clear_bound_render_target_views(0x100, &v, None);
        assert!(bundle.close().is_err(), "{name}");
        let r = ctx.record(CommandListType::Direct, |l| l.execute_bundle(&bundle));
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::ExecuteBundleInvalid);
        assert!(e.text.contains("RenderTargetMask"), "{name}: {}", e.text);
    }
}

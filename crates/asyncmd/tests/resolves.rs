//! Resolves of multisampled textures in every mode, legacy and async, on every device (the
//! Vulkan device's resolve kernels forced on too), and decompressions between textures.

mod common;

use asyncmd::ddi::*;
use asyncmd::types::*;
use common::draws::*;
use common::*;

#[test]
fn msaa_resolves_in_each_mode() {
    for (name, ctx) in contexts() {
        let _ = name;
        let ms = render_target(&ctx, Format::R8Unorm, 2, 1, 4);
        let (root, pso) = colour_pipeline(&ctx, Format::R8Unorm, 4);
        let mut desc = pso.desc().clone();
        if let PipelineDesc::Graphics(g) = &mut desc {
            g.sample_mask = 0b0101;
        }
        let masked = ctx.device.create_pipeline_state(&desc).unwrap();
        // Pixel 0: a sample mask of 0b0101 writes samples 0 and 2 only; the scissor keeps
        // pixel 1 at the cleared value.
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&ms.rtv, [0.2, 0.0, 0.0, 0.0], &[]);
            l.om_set_render_targets(std::slice::from_ref(&ms.rtv), None);
            set_clear_state(l, &root, &masked, Viewport::sized(2.0, 1.0), Rect::new(0, 0, 1, 1), floats([1.0; 4]));
            l.draw_instanced(3, 1, 0, 0);
        });
        let a = (0.2f32 * 255.0 + 0.5) as u8; // 51
        let cases = [
            (ResolveMode::Average, [((51.0 + 255.0) / 2.0 + 0.5) as u8, a]),
            (ResolveMode::Min, [a, a]),
            (ResolveMode::Max, [255, a]),
        ];
        for (mode, want) in cases {
            if mode != ResolveMode::Average && !ctx.device.capabilities().resolve_min_max {
                let dst = ctx.texture(&ResourceDesc::tex2d(Format::R8Unorm, 2, 1), BarrierLayout::ResolveDest);
                let r = ctx.record(CommandListType::Direct, |l| {
                    l.resolve_subresource_region(&dst, 0, 0, 0, &ms.tex, 0, None, Format::R8Unorm, mode)
                });
                assert_error(r, ErrorCode::InvalidArg, MessageId::ResolveSubresourceInvalidParameters);
                continue;
            }
            let dst = ctx.texture(&ResourceDesc::tex2d(Format::R8Unorm, 2, 1), BarrierLayout::ResolveDest);
            ctx.run(CommandListType::Direct, |l| {
                barrier(l, &ms.tex, BarrierLayout::RenderTarget, BarrierLayout::ResolveSource);
                l.resolve_subresource_region(&dst, 0, 0, 0, &ms.tex, 0, None, Format::R8Unorm, mode);
                barrier(l, &ms.tex, BarrierLayout::ResolveSource, BarrierLayout::RenderTarget);
            });
            assert_eq!(read_back(&ctx, &dst, BarrierLayout::ResolveDest, 0), want, "{mode:?}");
        }
    }
}

/// Every sample painted with its own value: sample `s` of every texel gets `value(s)` (a draw
/// with a sample mask of that one sample; lavapipe's multisampled scissors are not
/// pixel-exact, so the whole target is drawn).
fn paint_samples(ctx: &Ctx, t: &Target, format: Format, samples: u32, value: impl Fn(u32) -> [u32; 4]) {
    let class = format.info().class;
    let ps = match class {
        ComponentClass::Uint => ShaderId::ClearPsUint,
        ComponentClass::Sint => ShaderId::ClearPsSint,
        _ => ShaderId::ClearPsFloat,
    };
    let width = t.tex.desc().width as u32;
    for s in 0..samples {
        let depth = DepthStencilState::default();
        let (root, pso) =
            clear_pipeline(ctx, &[format], Format::Unknown, samples, Some(ps), depth, ColorWriteMask::ALL);
        let mut desc = pso.desc().clone();
        if let PipelineDesc::Graphics(g) = &mut desc {
            g.sample_mask = 1 << s;
        }
        let pso = ctx.device.create_pipeline_state(&desc).unwrap();
        ctx.run(CommandListType::Direct, |l| {
            l.om_set_render_targets(std::slice::from_ref(&t.rtv), None);
            let v = value(s);
            let (viewport, scissor) = (Viewport::sized(width as f32, 1.0), Rect::new(0, 0, width as i32, 1));
            set_clear_state(l, &root, &pso, viewport, scissor, [v[0], v[1], v[2], v[3], 0, 0]);
            l.draw_instanced(3, 1, 0, 0);
        });
    }
}

/// The channel values sample `s` is painted with.
type SampleValue = fn(u32) -> [f32; 4];

/// Resolves of every mode, legacy and async, combine each texel's samples channel by channel,
/// on every device and through the image kernels (forced on where transfers win): MIN and MAX
/// exactly, AVERAGE to within a unit of the last place.
#[test]
fn resolves_combine_every_sample_in_each_mode() {
    // The devices with the async APIs, the Vulkan device also with its kernels forced on.
    let all = async_contexts();
    let f = |v: f32| v.to_bits();
    for (name, ctx) in all {
        // (format, the channel values of sample s)
        let cases: [(Format, SampleValue); 4] = [
            // Whole levels of the format: no draw may round them either way.
            (Format::R8G8B8A8Unorm, |s| {
                [(s * 32) as f32 / 255.0, (255 - s * 20) as f32 / 255.0, 153.0 / 255.0, (s % 2) as f32]
            }),
            (Format::R16G16B16A16Float, |s| [s as f32 * 1.5 - 2.0, -(s as f32) * 0.25, 2.0, 3.0 - s as f32]),
            (Format::R8G8B8A8Uint, |s| [(s * 30) as f32, (255 - s * 20) as f32, (s % 3) as f32, 7.0]),
            (Format::R16G16Sint, |s| [s as f32 * 100.0 - 200.0, 3.0 - s as f32, 0.0, 0.0]),
        ];
        for (format, value) in cases {
            let class = format.info().class;
            let integer = matches!(class, ComponentClass::Uint | ComponentClass::Sint);
            let encode = |v: [f32; 4]| match class {
                ComponentClass::Uint | ComponentClass::Sint => v.map(|c| c as i32 as u32),
                _ => v.map(f),
            };
            let samples = 4;
            if ctx.device.format_support(format).sample_counts & samples == 0 {
                continue;
            }
            let width = 4;
            let ms = render_target(&ctx, format, width, 1, samples);
            paint_samples(&ctx, &ms, format, samples, |s| encode(value(s)));
            ctx.run(CommandListType::Direct, |l| {
                barrier(l, &ms.tex, BarrierLayout::RenderTarget, BarrierLayout::ResolveSource)
            });
            let modes = [ResolveMode::Average, ResolveMode::Min, ResolveMode::Max];
            for (mode, asynchronous) in modes.into_iter().flat_map(|m| [(m, false), (m, true)]) {
                if mode == ResolveMode::Average && integer
                    || mode != ResolveMode::Average && !ctx.device.capabilities().resolve_min_max
                {
                    continue;
                }
                let dst = ctx.texture(&ResourceDesc::tex2d(format, width, 1), BarrierLayout::ResolveDest);
                ctx.run(CommandListType::Direct, |l| {
                    if asynchronous {
                        l.resolve_subresource_region_async(&dst, 0, 0, 0, &ms.tex, 0, None, format, mode)
                    } else {
                        l.resolve_subresource_region(&dst, 0, 0, 0, &ms.tex, 0, None, format, mode)
                    }
                });
                let got = read_back(&ctx, &dst, BarrierLayout::ResolveDest, 0);
                let texel = format.info().bytes_per_block as usize;
                for x in 0..width {
                    // What each sample stores, decoded, then combined.
                    let stored: Vec<ClearData> = (0..samples)
                        .map(|s| {
                            let v = value(s);
                            let data =
                                if integer { ClearData::from_uints(encode(v)) } else { ClearData::from_floats(v) };
                            let (bytes, _) = encode_texel(format, &data).unwrap();
                            decode_texel(format, &bytes).unwrap()
                        })
                        .collect();
                    let at = &got[x as usize * texel..][..texel];
                    let have = decode_texel(format, at).unwrap();
                    for c in 0..format.channel_count() as usize {
                        if integer {
                            let vals = stored.iter().map(|d| d.uints()[c] as i32);
                            let want = if mode == ResolveMode::Min { vals.min() } else { vals.max() }.unwrap();
                            let have = have.uints()[c] as i32;
                            assert_eq!(
                                have, want,
                                "{name}: {format} {mode:?} (async {asynchronous}) x {x} channel {c}"
                            );
                            continue;
                        }
                        let vals: Vec<f32> = stored.iter().map(|d| d.floats()[c]).collect();
                        let want = match mode {
                            ResolveMode::Min => vals.iter().copied().fold(f32::INFINITY, f32::min),
                            ResolveMode::Max => vals.iter().copied().fold(f32::NEG_INFINITY, f32::max),
                            _ => vals.iter().sum::<f32>() / samples as f32,
                        };
                        let unit = if format == Format::R8G8B8A8Unorm { 1.0 / 255.0 } else { want.abs() / 1024.0 };
                        let slack = if mode == ResolveMode::Average { unit * 1.01 } else { 0.0 };
                        let h = have.floats()[c];
                        assert!(
                            (h - want).abs() <= slack,
                            "{name}: {format} {mode:?} (async {asynchronous}) x {x} channel {c}: {h} against {want}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn resolve_of_a_region_lands_at_the_destination_offset() {
    for (name, ctx) in contexts() {
        let _ = name;
        let ms = render_target(&ctx, Format::R16G16B16A16Float, 4, 4, 4);
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&ms.rtv, [0.0; 4], &[]);
            l.clear_render_target_view(&ms.rtv, [1.0, 2.0, 3.0, 4.0], &[Rect::new(1, 1, 3, 3)]);
            barrier(l, &ms.tex, BarrierLayout::RenderTarget, BarrierLayout::ResolveSource);
        });
        let dst = ctx.texture(&ResourceDesc::tex2d(Format::R16G16B16A16Float, 4, 4), BarrierLayout::ResolveDest);
        ctx.run(CommandListType::Direct, |l| {
            l.resolve_subresource_region(
                &dst,
                0,
                0,
                2,
                &ms.tex,
                0,
                Some(&Rect::new(1, 1, 3, 3)),
                Format::Unknown,
                ResolveMode::Average,
            )
        });
        let img = read_back(&ctx, &dst, BarrierLayout::ResolveDest, 0);
        let texel = |x: usize, y: usize| -> [f32; 4] {
            std::array::from_fn(|c| {
                half::f16::from_le_bytes(img[(y * 4 + x) * 8 + c * 2..][..2].try_into().unwrap()).to_f32()
            })
        };
        assert_eq!(texel(0, 2), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(texel(1, 3), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(texel(2, 2), [0.0; 4]);
        assert_eq!(texel(0, 0), [0.0; 4]);
    }
}

#[test]
fn decompress_copies_samples_between_equal_sample_counts() {
    for (name, ctx) in contexts() {
        let _ = name;
        let a = render_target(&ctx, Format::R8G8Unorm, 2, 2, 4);
        let b = render_target(&ctx, Format::R8G8Unorm, 2, 2, 4);
        let out = ctx.texture(&ResourceDesc::tex2d(Format::R8G8Unorm, 2, 2), BarrierLayout::ResolveDest);
        ctx.run(CommandListType::Direct, |l| {
            l.clear_render_target_view(&a.rtv, [1.0, 0.0, 0.0, 0.0], &[]);
            l.clear_render_target_view(&b.rtv, [0.0; 4], &[]);
            l.barrier(&[BarrierGroup::Texture(vec![
                transition(&a.tex, BarrierLayout::RenderTarget, BarrierLayout::CopySource),
                transition(&b.tex, BarrierLayout::RenderTarget, BarrierLayout::CopyDest),
            ])]);
            l.resolve_subresource_region(&b.tex, 0, 0, 0, &a.tex, 0, None, Format::R8G8Unorm, ResolveMode::Decompress);
            barrier(l, &b.tex, BarrierLayout::CopyDest, BarrierLayout::ResolveSource);
            l.resolve_subresource_region(&out, 0, 0, 0, &b.tex, 0, None, Format::R8G8Unorm, ResolveMode::Average);
        });
        assert_eq!(read_back(&ctx, &out, BarrierLayout::ResolveDest, 0), [255, 0].repeat(4));
    }
}

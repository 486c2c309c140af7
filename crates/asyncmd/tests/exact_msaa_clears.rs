//! Multisampled clears store every value exactly on every route, natively and through the
//! fallback: integers past 2^24, subnormals and NaN payloads, in every sample (read back with
//! `read_samples`, no resolve); the bound clears' shortcut outside a pass likewise; the
//! closest-value option keeps the D3D12 runtime's results.

mod common;

use asyncmd::ddi::spy::{SpyDevice, SpyLog};
use asyncmd::ddi::DeviceDdi;
use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use common::clears::clear;
use common::targets::*;
use common::*;
use std::sync::Arc;

/// Values a view clear's float cannot store, by format.
fn cases() -> Vec<(Format, ClearData)> {
    let bits = |v: [u32; 4]| ClearData::from_uints(v);
    vec![
        (Format::R32Uint, bits([(1 << 24) + 1, 0, 0, 0])),
        (Format::R32Uint, bits([i32::MAX as u32, 0, 0, 0])),
        (Format::R32Sint, ClearData::from_sints([i32::MIN + 1, 0, 0, 0])),
        (Format::R32Sint, ClearData::from_sints([i32::MAX, 0, 0, 0])),
        (Format::R32G32B32A32Uint, bits([(1 << 24) + 1, u32::MAX, 1 << 31, 0x0123_4567])),
        // A subnormal, a quiet NaN with a payload, a negative subnormal, and one.
        (Format::R32G32B32A32Float, bits([0x0001_16c2, 0x7fc0_1234, 0x8000_0001, 1.0f32.to_bits()])),
        (Format::R32Float, bits([0xffc0_0abc, 0, 0, 0])),
    ]
}

/// `n` samples of each of `texels` texels holding `element`.
fn every_sample(element: &[u8], texels: usize, n: u32) -> Vec<u8> {
    element.repeat(texels * n as usize)
}

/// Clears subresource 0 of `tex` whole with `value` on a direct list.
fn clear_whole(ctx: &Ctx, tex: &Resource, value: ClearData) {
    ctx.run(CommandListType::Direct, |l| {
        barrier(l, tex, BarrierLayout::Common, BarrierLayout::CopyDest);
        l.clear_texture_subresources(&[clear(tex, 0, value, None)]);
        barrier(l, tex, BarrierLayout::CopyDest, BarrierLayout::Common);
    });
}

#[test]
fn msaa_texture_clears_store_every_value_in_every_sample() {
    for (name, ctx) in async_contexts() {
        for (format, value) in cases() {
            for samples in [2, 4, 8].into_iter().filter(|&n| ctx.device.format_support(format).supports_samples(n)) {
                // In place (a render target) and through a private texture (none).
                for flags in [ResourceFlags::ALLOW_RENDER_TARGET, ResourceFlags::empty()] {
                    let desc = ResourceDesc::tex2d(format, 8, 4).with_samples(samples, 0).with_flags(flags);
                    let tex = ctx.texture(&desc, BarrierLayout::Common);
                    clear_whole(&ctx, &tex, value);
                    let want = every_sample(&element(format, 0, &value), 8 * 4, samples);
                    let got = tex.read_samples(0).unwrap_or_else(|e| panic!("{name}: {}", e.text));
                    assert!(got == want, "{name}, {format} ×{samples}, flags {flags:?}: {:x?}", &got[..16]);
                }
            }
        }
    }
}

#[test]
fn a_partial_region_keeps_the_samples_outside_it() {
    for (name, ctx) in async_contexts() {
        let format = Format::R32Uint;
        let desc = ResourceDesc::tex2d(format, 8, 4).with_samples(4, 0).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let (a, b) = (ClearData::from_uints([7, 0, 0, 0]), ClearData::from_uints([(1 << 24) + 3, 0, 0, 0]));
        clear_whole(&ctx, &tex, a);
        ctx.run(CommandListType::Direct, |l| {
            barrier(l, &tex, BarrierLayout::Common, BarrierLayout::CopyDest);
            l.clear_texture_subresources(&[clear(&tex, 0, b, Some(Box3::new(2, 1, 0, 6, 3, 1)))]);
            barrier(l, &tex, BarrierLayout::CopyDest, BarrierLayout::Common);
        });
        let got = tex.read_samples(0).unwrap();
        for y in 0..4u32 {
            for x in 0..8u32 {
                let inside = (2..6).contains(&x) && (1..3).contains(&y);
                let v: u32 = if inside { (1 << 24) + 3 } else { 7 };
                for s in 0..4 {
                    let at = (((y * 8 + x) * 4 + s) * 4) as usize;
                    assert_eq!(got[at..at + 4], v.to_le_bytes(), "{name}: texel ({x}, {y}) sample {s}");
                }
            }
        }
    }
}

/// A reference device behind a spy, opted in to the fallback, with the closest-value option.
fn closest_ctx(closest: bool) -> (Ctx, SpyLog) {
    let spy = Arc::new(SpyDevice::new(Arc::new(ReferenceDevice::new(ReferenceConfig::default()))));
    let log = spy.log();
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    factory.async_commands_fallback().set_closest_clear_values(closest);
    let device = factory.create_device(&Adapter::new(spy as Arc<dyn DeviceDdi>)).unwrap();
    assert_eq!(device.configuration().async_commands_closest_clear_values, closest);
    (Ctx::new(device), log)
}

#[test]
fn the_closest_value_option_keeps_the_d3d12_runtimes_results() {
    for closest in [false, true] {
        let (ctx, log) = closest_ctx(closest);
        for (format, value) in cases() {
            let desc = ResourceDesc::tex2d(format, 4, 4).with_samples(4, 0);
            let tex = ctx.texture(&desc, BarrierLayout::Common);
            log.clear();
            clear_whole(&ctx, &tex, value);
            let names = log.names();
            let stored = if closest {
                // What the spec's fallback stores: the float a view clear takes.
                ClearData::from_floats(view_clear_color(format, &value))
            } else {
                value
            };
            // The float's bits for float formats; the integer the float rounds to otherwise.
            let stored = match format.info().class {
                ComponentClass::Uint | ComponentClass::Sint if closest => {
                    let f = stored.floats();
                    let int = |c: usize| if format == Format::R32Sint { f[c] as i32 as u32 } else { f[c] as u32 };
                    ClearData::from_uints(std::array::from_fn(int))
                }
                _ => stored,
            };
            let want = every_sample(&element(format, 0, &stored), 16, 4);
            let got = tex.read_samples(0).unwrap();
            let nan_payloads_differ = closest && stored.floats().iter().any(|f| f.is_nan());
            if !nan_payloads_differ {
                assert!(got == want, "closest {closest}, {format}: {:x?} want {:x?}", &got[..16], &want[..16]);
            }
            let view_cleared = names.contains(&"ClearRenderTargetView");
            assert_eq!(view_cleared, closest, "closest {closest}, {format}: {names:?}");
        }
    }
}

/// Binds two targets outside a pass and clears both whole with `values`.
fn clear_both(ctx: &Ctx, targets: [&Bound; 2], values: &[ClearData]) {
    ctx.run(CommandListType::Direct, |l| {
        targets.iter().for_each(|t| to_target(l, t));
        l.om_set_render_targets(&[targets[0].view.clone(), targets[1].view.clone()], None);
        l.clear_bound_render_target_views(0b11, values, None);
        targets.iter().for_each(|t| from_target(l, t));
    });
}

#[test]
fn bound_clears_outside_a_pass_are_exact_where_the_shared_draws_cannot_reach() {
    for (name, ctx) in async_contexts() {
        let big = (1u32 << 24) + 1;
        let value = [ClearData::from_uints([big, 0, 0, 0]); 2];
        // Past the smallest output: the whole of a 16² target bound with an 8² one.
        let large = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 16, 16), None);
        let small = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
        clear_both(&ctx, [&large, &small], &value);
        assert!(ctx.read_subresource(&large.tex, 0) == big.to_le_bytes().repeat(256), "{name}: the large target");
        assert!(ctx.read_subresource(&small.tex, 0) == big.to_le_bytes().repeat(64), "{name}: the small target");
        // Mixed sample counts: a 4× and a single-sample target.
        let four = ResourceDesc::tex2d(Format::R32Uint, 8, 8).with_samples(4, 0);
        if !ctx.device.format_support(Format::R32Uint).supports_samples(4) {
            continue;
        }
        let msaa = rt(&ctx, four, None);
        let single = rt(&ctx, ResourceDesc::tex2d(Format::R32Uint, 8, 8), None);
        clear_both(&ctx, [&msaa, &single], &value);
        assert!(msaa.tex.read_samples(0).unwrap() == big.to_le_bytes().repeat(256), "{name}: every sample");
        assert!(ctx.read_subresource(&single.tex, 0) == big.to_le_bytes().repeat(64), "{name}: the single-sample one");
    }
}

#[test]
fn read_samples_refuses_what_has_no_samples() {
    for (name, ctx) in contexts() {
        let plain = ctx.texture(&ResourceDesc::tex2d(Format::R32Uint, 4, 4), BarrierLayout::Common);
        let e = plain.read_samples(0).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::ResourceMapInvalid), "{name}: {}", e.text);
        let buffer = ctx.buffer(HeapType::Default, 256);
        assert_eq!(buffer.read_samples(0).unwrap_err().code, ErrorCode::InvalidArg, "{name}");
        let msaa = ctx.texture(&ResourceDesc::tex2d(Format::R32Uint, 4, 4).with_samples(4, 0), BarrierLayout::Common);
        let e = msaa.read_samples(1).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::InvalidSubresourceIndex), "{name}: {}", e.text);
        assert!(e.text.contains("ReadSamples"), "{name}: {}", e.text);
        // A depth texture: the reference device reads its samples, the Vulkan device has no raw
        // view of them and says so.
        let depth = ResourceDesc::tex2d(Format::D32Float, 4, 4)
            .with_samples(4, 0)
            .with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL);
        let depth = ctx.texture(&depth, BarrierLayout::Common);
        match (name, depth.read_samples(0)) {
            ("reference", Ok(bytes)) => assert_eq!(bytes.len(), 4 * 4 * 4 * 4),
            ("vulkan", Err(e)) => assert_eq!(e.code, ErrorCode::Unsupported, "{}", e.text),
            (name, r) => panic!("{name}: {:?}", r.map(|b| b.len())),
        }
    }
}

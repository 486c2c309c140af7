//! Pipelines and root signatures: a pipeline needs a root signature that gives its shaders
//! their interface, a dispatch needs the pipeline's root signature bound, the built-in fill
//! shader writes only inside the buffer its root UAV names, and a root signature lives as long
//! as work recorded with it.

mod common;

use asyncmd::types::*;
use common::*;

/// The fuzzer's dispatches of the built-in fill shader with wild constants: on Vulkan the count
/// reached the shader unbounded and it wrote past its buffer (on lavapipe, into the heap: the
/// `malloc_consolidate` aborts). Every device bounds it by the buffer the root UAV names.
#[test]
fn the_fill_shader_writes_nothing_outside_its_buffer() {
    for (name, ctx) in contexts() {
        let (root, pso) = fill_pipeline(&ctx);
        // Made one after the other, so that a buffer's overrun lands in its neighbours.
        let buffers: Vec<_> = (0..4).map(|_| ctx.default_buffer(&[0xAA; 64])).collect();
        let target = &buffers[1];
        ctx.run(CommandListType::Compute, |l| {
            // A 9-dword pattern (the shader holds 4) and 4096 dwords, for 1024 threads.
            dispatch_fill(l, (&root, &pso), &[0x11, 0x22, 0x33, 0x44, 9, 4096], target.gpu_address(16), 4);
            // Past the end, and with no room for a whole dword.
            l.set_compute_root_unordered_access_view(1, buffers[2].gpu_address(64));
            l.dispatch(1, 1, 1);
            l.set_compute_root_unordered_access_view(1, buffers[3].gpu_address(1 << 40));
            l.dispatch(1, 1, 1);
        });
        // A texture bound as the root UAV: it has no address, nothing is written.
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
        let before = ctx.read_subresource(&tex, 0);
        ctx.run(CommandListType::Compute, |l| {
            dispatch_fill(l, (&root, &pso), &[0x11, 0x22, 0x33, 0x44, 4, 16], tex.gpu_address(0), 1)
        });
        assert_eq!(ctx.read_subresource(&tex, 0), before, "{name}: a texture as the root UAV");
        let mut want = vec![0xAA; 16];
        want.extend([0x11u32, 0x22, 0x33, 0x44].iter().cycle().take(12).flat_map(|d| d.to_le_bytes()));
        assert_eq!(ctx.read_buffer(target), want, "{name}: the pattern's length is taken as 4");
        for b in [0, 2, 3] {
            assert_eq!(ctx.read_buffer(&buffers[b]), vec![0xAA; 64], "{name}: buffer {b} was written");
        }
    }
}

#[test]
fn a_pipeline_needs_a_root_signature_that_fits_its_shaders() {
    use asyncmd::ddi::{ComputePipelineDesc, PipelineDesc, RootParameter, RootSignatureDesc, ShaderId};
    for (name, device) in devices() {
        // Constants where the shader reads its destination address.
        for parameters in [
            vec![RootParameter::constants(0, 8), RootParameter::uav(0)],
            vec![RootParameter::constants(0, 6)],
            vec![RootParameter::uav(0), RootParameter::constants(0, 6)],
        ] {
            let root = device.create_root_signature(&RootSignatureDesc::new(parameters.clone())).unwrap();
            let r = device
                .create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
                    root_signature: root.id(),
                    cs: ShaderId::FillCs.into(),
                }))
                .map(drop);
            let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid);
            assert!(e.text.contains("FillCs"), "{name}, {parameters:?}: {}", e.text);
        }
        // A shader in the wrong slot is named as that, whatever the root signature.
        let clear_root =
            device.create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, 6)])).unwrap();
        let r = device
            .create_pipeline_state(&PipelineDesc::Graphics(asyncmd::ddi::GraphicsPipelineDesc {
                root_signature: clear_root.id(),
                vs: ShaderId::FillCs,
                ps: None,
                write_masks: [asyncmd::ddi::ColorWriteMask::ALL; 8],
                depth_stencil: Default::default(),
                rtv_formats: vec![],
                dsv_format: Format::Unknown,
                sample_desc: SampleDesc { count: 1, quality: 0 },
                sample_mask: u32::MAX,
                topology_type: asyncmd::ddi::PrimitiveTopologyType::Triangle,
            }))
            .map(drop);
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid);
        assert!(e.text.contains("do not match their slots"), "{name}: {}", e.text);
        // Counts whose sum wraps to 64 in 32 bits.
        let wraps = vec![RootParameter::constants(0, u32::MAX), RootParameter::constants(1, 65)];
        let r = device.create_root_signature(&RootSignatureDesc::new(wraps)).map(drop);
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CreateRootSignatureInvalid);
        assert!(e.text.contains("64-dword"), "{name}: {}", e.text);
        // A root signature the app has let go of.
        let id = device.create_root_signature(&RootSignatureDesc::new(vec![])).unwrap().id();
        let r = device
            .create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
                root_signature: id,
                cs: ShaderId::FillCs.into(),
            }))
            .map(drop);
        assert_error(r, ErrorCode::InvalidArg, MessageId::CreatePipelineStateInvalid);
    }
}

#[test]
fn a_dispatch_needs_the_pipelines_root_signature_bound() {
    use asyncmd::ddi::{RootParameter, RootSignatureDesc};
    for (name, ctx) in contexts() {
        let (_, pso) = fill_pipeline(&ctx);
        let buf = ctx.default_buffer(&[0xAA; 64]);
        // Two 32-bit constants and a UAV: the shader would read its address from dwords 6–7.
        let other = ctx
            .device
            .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, 8), RootParameter::uav(0)]))
            .unwrap();
        let r = ctx.record(CommandListType::Compute, |l| {
            l.set_compute_root_signature(&other);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[0, 0, 0, 0, 1, 16, 0x1000, 0], 0);
            l.set_compute_root_unordered_access_view(1, buf.gpu_address(0));
            l.dispatch(1, 1, 1);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.starts_with("Dispatch"), "{name}: {}", e.text);
        // A second root signature of the same description is the same one to D3D12.
        let (same, _) = fill_pipeline(&ctx);
        ctx.run(CommandListType::Compute, |l| {
            dispatch_fill(l, (&same, &pso), &[0x0101_0101, 0, 0, 0, 1, 16], buf.gpu_address(0), 1)
        });
        assert_eq!(ctx.read_buffer(&buf), vec![1; 64], "{name}");
        // A root UAV address that is not dword-aligned.
        let r = ctx.record(CommandListType::Compute, |l| {
            l.set_compute_root_signature(&same);
            l.set_compute_root_unordered_access_view(1, buf.gpu_address(2));
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::StateSettingInvalid);
        assert!(e.text.contains("aligned"), "{name}: {}", e.text);
    }
}

/// Root signatures are destroyed in the driver when their last handle goes (they were kept
/// for the device's life, which a long-lived driver device paid for every one an app made):
/// work already recorded with one, and a pipeline made with one, keep what they need.
#[test]
fn a_root_signature_dropped_after_recording_still_serves_its_dispatch() {
    for (name, ctx) in contexts() {
        let target = ctx.default_buffer(&[0; 64]);
        let mut list = ctx.list(CommandListType::Compute);
        {
            let (root, pso) = fill_pipeline(&ctx);
            dispatch_fill(&mut list, (&root, &pso), &[0x0A0B_0C0D, 0, 0, 0, 1, 16], target.gpu_address(0), 1);
        }
        list.close().unwrap();
        ctx.compute.execute_command_lists(&[&list]).unwrap();
        ctx.compute.wait_idle(TIMEOUT).unwrap();
        assert_eq!(ctx.read_buffer(&target), [0x0D, 0x0C, 0x0B, 0x0A].repeat(16), "{name}");
        // Made and dropped many times over: nothing accumulates in the driver, nothing fails.
        for _ in 0..500 {
            drop(fill_pipeline(&ctx));
        }
    }
}

//! Bound clears recorded in a bundle, lowered by the fallback in each list that executes it:
//! one bundle clears a region of whatever render target and depth buffer the executing list
//! binds. Two lists with targets of different sizes run it; each target's cleared texels are
//! counted, and what the bundle keeps for its clears is printed.
//!
//! `cargo run -p asyncmd --example bundle_bound_clears`

use asyncmd::types::*;
use asyncmd::{Adapter, CommandList, DescriptorHeapType, Device, DeviceFactory};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;
use std::time::Duration;

/// A render target and a depth buffer of `size`², with their views.
struct Targets {
    color: asyncmd::Resource,
    depth: asyncmd::Resource,
    rtv: asyncmd::CpuDescriptorHandle,
    dsv: asyncmd::CpuDescriptorHandle,
    _heaps: (asyncmd::DescriptorHeap, asyncmd::DescriptorHeap),
}

fn targets(device: &Device, size: u32) -> Result<Targets> {
    let color = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::tex2d(Format::R32Uint, size, size).with_flags(ResourceFlags::ALLOW_RENDER_TARGET),
        BarrierLayout::RenderTarget,
    )?;
    let depth = device.create_committed_resource(
        HeapType::Default,
        &ResourceDesc::tex2d(Format::D32Float, size, size).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
        BarrierLayout::DepthStencilWrite,
    )?;
    let rh = device.create_descriptor_heap(DescriptorHeapType::Rtv, 1)?;
    let dh = device.create_descriptor_heap(DescriptorHeapType::Dsv, 1)?;
    device.create_render_target_view(&color, None, &rh.handle(0))?;
    device.create_depth_stencil_view(&depth, None, &dh.handle(0))?;
    Ok(Targets { color, depth, rtv: rh.handle(0), dsv: dh.handle(0), _heaps: (rh, dh) })
}

/// Reads subresource `sub` of `tex` (in `layout`) back, tightly packed 4-byte texels.
fn read(device: &Device, tex: &asyncmd::Resource, layout: BarrierLayout) -> Result<Vec<u32>> {
    let fp = device.copyable_footprints(tex.desc(), 0, 1, 0)?;
    let rb = device.create_committed_resource(
        HeapType::Readback,
        &ResourceDesc::buffer(fp.total_bytes),
        BarrierLayout::Undefined,
    )?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let alloc = device.create_command_allocator(CommandListType::Direct)?;
    let mut l = device.create_command_list(CommandListType::Direct, &alloc)?;
    let copy = |l: &mut CommandList, before, after| {
        l.barrier(&[BarrierGroup::Texture(vec![TextureBarrier {
            sync_before: BarrierSync::ALL,
            sync_after: BarrierSync::ALL,
            access_before: BarrierAccess::COMMON,
            access_after: BarrierAccess::COMMON,
            layout_before: before,
            layout_after: after,
            resource: tex,
            subresources: BarrierSubresourceRange::index(0),
            flags: TextureBarrierFlags::empty(),
        }])])
    };
    copy(&mut l, layout, BarrierLayout::CopySource);
    l.copy_texture_region(
        &TextureCopyLocation::footprint(&rb, fp.layouts[0]),
        0,
        0,
        0,
        &TextureCopyLocation::subresource(tex, 0),
        None,
    );
    copy(&mut l, BarrierLayout::CopySource, layout);
    l.close()?;
    queue.execute_command_lists(&[&l])?;
    queue.wait_idle(Duration::from_secs(10))?;
    let (w, h) = (tex.desc().width as usize, tex.desc().height as usize);
    let raw = rb.read_vec(0, fp.total_bytes as usize)?;
    let pitch = fp.layouts[0].footprint.row_pitch as usize;
    Ok((0..h)
        .flat_map(|y| (0..w).map(move |x| (y, x)))
        .map(|(y, x)| {
            let at = y * pitch + x * 4;
            u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]])
        })
        .collect())
}

fn main() -> Result<()> {
    // A device without native Async Commands, opted in to the fallback.
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    let device = factory.create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    println!("Async Commands: {:?}", device.async_commands_impl());

    // The bundle: clear an 8×8 corner of the bound render target to 2^24 + 1 (an integer a
    // legacy view clear would round), and of the bound depth buffer to 0.5.
    let bundle_alloc = device.create_command_allocator(CommandListType::Bundle)?;
    let mut bundle = device.create_command_list(CommandListType::Bundle, &bundle_alloc)?;
    let corner = [Box3::new(0, 0, 0, 8, 8, 1)];
    bundle.clear_bound_render_target_views(
        1,
        &[ClearData::from_uints([(1 << 24) + 1, 0, 0, 0])],
        Some(&[Some(&corner)]),
    );
    bundle.clear_bound_depth_stencil_view(ClearFlags::DEPTH, 0.5, 0, Some(&corner));
    bundle.close()?;
    let kept = bundle.bundle_clear_footprint();
    println!("the bundle keeps {} bound clears unlowered ({} bytes)", kept.deferred_clears, kept.bytes);

    let queue = device.create_command_queue(CommandListType::Direct)?;
    for size in [16, 64] {
        let t = targets(&device, size)?;
        let alloc = device.create_command_allocator(CommandListType::Direct)?;
        let mut list = device.create_command_list(CommandListType::Direct, &alloc)?;
        list.om_set_render_targets(std::slice::from_ref(&t.rtv), Some(&t.dsv));
        list.execute_bundle(&bundle);
        list.close()?;
        queue.execute_command_lists(&[&list])?;
        queue.wait_idle(Duration::from_secs(10))?;
        let color = read(&device, &t.color, BarrierLayout::RenderTarget)?;
        let depth = read(&device, &t.depth, BarrierLayout::DepthStencilWrite)?;
        let cleared = color.iter().filter(|&&v| v == (1 << 24) + 1).count();
        let half = depth.iter().filter(|&&v| f32::from_bits(v) == 0.5).count();
        println!("{size}×{size} targets: {cleared} texels of 2^24 + 1, {half} depths of 0.5 (want 64 and 64)");
        if cleared != 64 || half != 64 {
            return Err(Error::fail(MessageId::DeviceUnsupported, "the bundle's clears missed their targets"));
        }
    }
    Ok(())
}

//! Legacy against fast semantics. A legacy command buffer fills a buffer with an Async
//! Command and copies it out with no barrier, no tracking and no CPU wait of its own: the
//! runtime inserts the barrier, keeps the buffers alive and makes the CPU read wait. The same
//! commands on a fast buffer, with the debug layer on, get a warning for the missing barrier;
//! with the app's barrier, none. A legacy buffer also moves a texture through the layouts its
//! commands need.
//!
//! `cargo run -p asyncmd --example semantics`

use asyncmd::types::*;
use asyncmd::{Adapter, CommandBuffer, DescriptorHeapType, DeviceFactory, Level, Resource, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;
use std::time::Duration;

fn fill(buffer: &Resource, byte: u8) -> FillBufferDesc<&Resource> {
    FillBufferDesc {
        buffer,
        offset: 0,
        fill_value: ClearData { bytes: [byte; 16] },
        format: Format::Unknown,
        raw_pattern_size: 4,
        repeat_count: (buffer.desc().width / 4) as u32,
    }
}

fn copy_barrier(buffer: &Resource) -> BarrierGroup<&Resource> {
    BarrierGroup::Buffer(vec![BufferBarrier {
        sync_before: BarrierSync::COPY,
        sync_after: BarrierSync::COPY,
        access_before: BarrierAccess::COPY_DEST,
        access_after: BarrierAccess::COPY_SOURCE,
        resource: buffer,
        offset: 0,
        size: u64::MAX,
    }])
}

fn main() -> Result<()> {
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    let device = factory.create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let buffer = |heap| device.create_committed_resource(heap, &ResourceDesc::buffer(4096), BarrierLayout::Undefined);
    let (data, readback) = (buffer(HeapType::Default)?, buffer(HeapType::Readback)?);

    // Legacy: no barrier, no track, no wait.
    let mut legacy = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    legacy.fill_buffers(&[fill(&data, 0x2A)]);
    legacy.copy_buffer_region(&readback, 0, &data, 0, 4096);
    let costs = legacy.tracking_costs();
    legacy.submit()?;
    let first = readback.read_vec(0, 4)?;
    println!("legacy: read {first:?} (the read waited), {costs:?}");
    assert_eq!(first, [0x2A; 4]);

    // Fast: the app's job. With the debug layer on, a missing barrier is reported.
    device.set_debug_layer(true);
    for with_barrier in [false, true] {
        device.info_queue().clear();
        let mut fast: CommandBuffer = queue.create_command_buffer(Semantics::Fast, Level::Primary)?;
        fast.fill_buffers(&[fill(&data, 0x15)]);
        if with_barrier {
            fast.barrier(&[copy_barrier(&data)]);
        }
        fast.copy_buffer_region(&readback, 0, &data, 0, 4096);
        let value = fast.submit()?;
        queue.wait_for(value, Duration::from_secs(5))?;
        let warnings: Vec<_> =
            device.info_queue().messages().into_iter().filter(|m| m.id == MessageId::HazardWithoutBarrier).collect();
        println!("fast, app barrier {with_barrier}: {} hazard warning(s)", warnings.len());
        for w in &warnings {
            println!("  {}", w.text);
        }
        assert_eq!(warnings.is_empty(), with_barrier);
    }
    device.set_debug_layer(false);

    // Layouts: a texture in COMMON, cleared as a render target and copied out.
    let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
    let texture = device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::Common)?;
    let rtvs = device.create_descriptor_heap(DescriptorHeapType::Rtv, 1)?;
    device.create_render_target_view(&texture, None, &rtvs.handle(0))?;
    let footprint = device.copyable_footprints(&desc, 0, 1, 0)?.layouts[0];
    let mut b = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    b.clear_render_target_view(&rtvs.handle(0), [0.0, 1.0, 0.0, 1.0], &[]);
    b.copy_texture_region(
        &TextureCopyLocation::footprint(&readback, footprint),
        0,
        0,
        0,
        &TextureCopyLocation::subresource(&texture, 0),
        None,
    );
    let inserted = b.tracking_costs().barriers_inserted;
    b.submit()?;
    let texel = readback.read_vec(0, 4)?;
    println!("texture: {texel:?}, {inserted} barrier inserted, left in {:?}", texture.layout(0));
    assert_eq!(texel, [0, 255, 0, 255]);
    Ok(())
}

//! Exact clears of multisampled textures through the fallback, and the D3D12 runtime's
//! closest-value behaviour behind a factory option: a 4× R32_UINT texture is cleared to
//! 2^24 + 1 and every sample is read back with `read_samples` (no copy reaches samples).
//!
//! `cargo run -p asyncmd --example exact_msaa_clears`

use asyncmd::types::*;
use asyncmd::{Adapter, DeviceFactory};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;
use std::time::Duration;

/// Clears a 4× texture to `value` on a fallback device; returns the distinct sample values.
fn clear_and_read(closest: bool, value: u32) -> Result<Vec<u32>> {
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    factory.async_commands_fallback().set_closest_clear_values(closest);
    let device = factory.create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let desc = ResourceDesc::tex2d(Format::R32Uint, 16, 16).with_samples(4, 0);
    let tex = device.create_committed_resource(HeapType::Default, &desc, BarrierLayout::CopyDest)?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let alloc = device.create_command_allocator(CommandListType::Direct)?;
    let mut list = device.create_command_list(CommandListType::Direct, &alloc)?;
    list.clear_texture_subresources(&[ClearTextureDesc {
        texture: &tex,
        subresource: 0,
        format: Format::Unknown,
        clear_value: ClearData::from_uints([value, 0, 0, 0]),
        region: None,
    }]);
    list.close()?;
    queue.execute_command_lists(&[&list])?;
    queue.wait_idle(Duration::from_secs(10))?;
    let samples = tex.read_samples(0)?;
    let mut values: Vec<u32> = samples.chunks_exact(4).map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]])).collect();
    values.sort_unstable();
    values.dedup();
    Ok(values)
}

fn main() -> Result<()> {
    let value = (1 << 24) + 1;
    let exact = clear_and_read(false, value)?;
    println!("asyncmd's fallback: every sample holds {exact:?} (asked for {value})");
    let closest = clear_and_read(true, value)?;
    println!("with set_closest_clear_values(true), as the D3D12 runtime: {closest:?}");
    if exact != [value] || closest != [value as f32 as u32] {
        return Err(Error::fail(MessageId::DeviceUnsupported, "unexpected sample values"));
    }
    Ok(())
}

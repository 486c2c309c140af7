//! `asyncmd info`.

use crate::devices::{DeviceSpec, DEVICE_ENV};
use asyncmd::ddi::{DeviceDdi, FormatSupport};
use asyncmd::types::Format;
use asyncmd::{Adapter, AsyncCommandsImpl, DeviceFactory, DeviceFactoryFlags};
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use asyncmd_vulkan::VulkanDevice;
use std::sync::Arc;

fn impl_name(i: AsyncCommandsImpl) -> &'static str {
    match i {
        AsyncCommandsImpl::NotSupported => "NOT_SUPPORTED",
        AsyncCommandsImpl::Fallback => "FALLBACK",
        AsyncCommandsImpl::Native => "NATIVE",
    }
}

/// The devices to describe: the one selected, or every device there is.
fn adapters(spec: Option<DeviceSpec>) -> asyncmd::Result<Vec<(String, Arc<dyn DeviceDdi>)>> {
    let spec = match spec {
        Some(s) => Some(s),
        None if std::env::var(DEVICE_ENV).is_ok_and(|v| !v.is_empty()) => Some(DeviceSpec::resolve(None)?),
        None => None,
    };
    if let Some(s) = spec {
        return Ok(vec![(format!("{s:?}").to_lowercase(), s.open()?)]);
    }
    let mut v: Vec<(String, Arc<dyn DeviceDdi>)> = vec![
        ("reference".into(), Arc::new(ReferenceDevice::new(ReferenceConfig::default()))),
        (
            "reference (native async commands)".into(),
            Arc::new(ReferenceDevice::new(ReferenceConfig { native_async_commands: true, ..Default::default() })),
        ),
    ];
    match VulkanDevice::enumerate() {
        Ok(list) => {
            for a in list {
                match DeviceSpec::Vulkan(a.index).open() {
                    Ok(d) => v.push((format!("vulkan:{}", a.index), d)),
                    Err(e) => println!("vulkan:{} ({}): cannot open: {}", a.index, a.name, e.text),
                }
            }
        }
        Err(e) => println!("vulkan: {}", e.text),
    }
    Ok(v)
}

/// Prints every device (or the selected one) with its capabilities and the `Impl` it gets with
/// and without the app's opt-in, under the current forced setting.
pub fn run(spec: Option<DeviceSpec>) -> asyncmd::Result<()> {
    let adapters = adapters(spec)?;
    let forced = asyncmd::config::force_fallback_setting()?;
    println!("force-async-commands-fallback: {forced}");
    for (label, ddi) in adapters {
        let adapter = Adapter::new(ddi.clone());
        let caps = adapter.capabilities();
        println!("\n{label}: {}", caps.name);
        println!("  enhanced barriers:             {}", caps.enhanced_barriers);
        println!(
            "  native async commands:         {}",
            caps.native_async_commands.map_or("no".to_string(), |v| format!("yes (DDI version {v})"))
        );
        println!("  memory:                        {}", if caps.uma { "UMA" } else { "discrete" });
        println!("  programmable sample positions: {}", caps.programmable_sample_positions);
        println!("  tiled resources tier:          {}", caps.tiled_resources_tier);
        println!("  compute fill shader:           {}", caps.compute_fill_shader);
        println!("  compute fills win:             {}", caps.compute_fills_win);
        println!("  protected content:             {}", caps.protected_content);
        println!("  MIN/MAX colour resolves:       {}", caps.resolve_min_max);
        println!("  timestamp frequency:           {} Hz", caps.timestamp_frequency);
        let renderable =
            Format::ALL.iter().filter(|f| ddi.format_caps(**f).support.contains(FormatSupport::RENDER_TARGET)).count();
        let buffer =
            Format::ALL.iter().filter(|f| ddi.format_caps(**f).support.contains(FormatSupport::BUFFER)).count();
        println!(
            "  formats:                       {} in the table, {renderable} renderable, {buffer} usable in buffers",
            Format::ALL.len()
        );
        for opt_in in [false, true] {
            let factory = DeviceFactory::new();
            factory.set_flags(DeviceFactoryFlags { disallow_storing_new_device_as_singleton: true });
            factory.async_commands_fallback().set_fallback_layer_enabled(opt_in);
            let device = factory.create_device(&adapter)?;
            println!(
                "  Impl {} {}",
                if opt_in { "with the app's opt-in:   " } else { "without the app's opt-in:" },
                impl_name(device.async_commands_impl())
            );
        }
    }
    Ok(())
}

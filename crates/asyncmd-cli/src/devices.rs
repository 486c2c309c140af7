//! Device selection: `--device reference|vulkan[:N]`, or `ASYNCMD_DEVICE`.

use asyncmd::ddi::DeviceDdi;
use asyncmd::{Error, MessageId, Result};
use asyncmd_reference::{ReferenceConfig, ReferenceDevice};
use asyncmd_vulkan::{VulkanDevice, VulkanOptions};
use std::sync::Arc;

/// Environment variable that picks the device where no `--device` is given.
pub const DEVICE_ENV: &str = "ASYNCMD_DEVICE";

/// Which device to run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceSpec {
    /// The reference device.
    Reference,
    /// Vulkan device `N` (0 by default).
    Vulkan(usize),
}

impl std::str::FromStr for DeviceSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.split_once(':') {
            None if s == "reference" => Ok(DeviceSpec::Reference),
            None if s == "vulkan" => Ok(DeviceSpec::Vulkan(0)),
            Some(("vulkan", n)) => {
                n.parse().map(DeviceSpec::Vulkan).map_err(|_| format!("`{n}` is not a device index"))
            }
            _ => Err(format!("`{s}` is not reference, vulkan or vulkan:N")),
        }
    }
}

impl DeviceSpec {
    /// The `--device` value if given, else `ASYNCMD_DEVICE` (an empty value counts as unset,
    /// as shells leave `VAR=` behind), else the reference device.
    pub fn resolve(arg: Option<DeviceSpec>) -> Result<DeviceSpec> {
        if let Some(d) = arg {
            return Ok(d);
        }
        match std::env::var(DEVICE_ENV) {
            Ok(v) if !v.is_empty() => v
                .parse()
                .map_err(|e| Error::invalid_arg(MessageId::CreateDeviceInvalidArgs, format!("{DEVICE_ENV}: {e}"))),
            _ => Ok(DeviceSpec::Reference),
        }
    }

    /// Opens the driver device, reporting the native Async Commands DDI or not.
    pub fn open_with_native(self, native: bool) -> Result<Arc<dyn DeviceDdi>> {
        Ok(match self {
            DeviceSpec::Reference => {
                Arc::new(ReferenceDevice::new(ReferenceConfig { native_async_commands: native, ..Default::default() }))
            }
            DeviceSpec::Vulkan(n) => {
                Arc::new(VulkanDevice::open(n, VulkanOptions { native_async_commands: native, ..Default::default() })?)
            }
        })
    }

    /// Opens the driver device.
    pub fn open(self) -> Result<Arc<dyn DeviceDdi>> {
        Ok(match self {
            DeviceSpec::Reference => Arc::new(ReferenceDevice::new(ReferenceConfig::default())),
            DeviceSpec::Vulkan(n) => Arc::new(VulkanDevice::open(n, VulkanOptions::default())?),
        })
    }
}

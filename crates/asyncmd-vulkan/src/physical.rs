//! Physical devices: what they are, what they can do, and which queue families serve which
//! D3D12 queue type.

use crate::instance::Instance;
use ash::vk;
use asyncmd_types::{Error, Result};

/// One Vulkan device the loader offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterInfo {
    /// Index among the Vulkan 1.3 devices (the `N` of `--device vulkan:N`).
    pub index: usize,
    /// Device name.
    pub name: String,
    /// Driver's API version, as `major.minor.patch`.
    pub api_version: String,
    /// Integrated (unified memory) or CPU device rather than discrete.
    pub uma: bool,
    /// PCI vendor id.
    pub vendor_id: u32,
}

/// Queue families chosen for the three queue types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Families {
    pub(crate) direct: u32,
    pub(crate) compute: u32,
    pub(crate) copy: u32,
}

pub(crate) fn version(v: u32) -> String {
    format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v))
}

/// The Vulkan 1.3 physical devices, in loader order.
pub(crate) fn vulkan13_devices(instance: &Instance) -> Result<Vec<(vk::PhysicalDevice, vk::PhysicalDeviceProperties)>> {
    // SAFETY: enumeration on a live instance.
    let devices = unsafe { instance.instance.enumerate_physical_devices() }
        .map_err(|e| Error::unsupported(format!("Vulkan: cannot enumerate devices: {e}")))?;
    Ok(devices
        .into_iter()
        .map(|d| {
            // SAFETY: `d` comes from this instance.
            (d, unsafe { instance.instance.get_physical_device_properties(d) })
        })
        .filter(|(_, p)| p.api_version >= vk::API_VERSION_1_3)
        .collect())
}

pub(crate) fn adapter_info(index: usize, props: &vk::PhysicalDeviceProperties) -> AdapterInfo {
    AdapterInfo {
        index,
        name: props.device_name_as_c_str().map_or_else(|_| "unknown".into(), |n| n.to_string_lossy().into_owned()),
        api_version: version(props.api_version),
        uma: matches!(
            props.device_type,
            vk::PhysicalDeviceType::INTEGRATED_GPU | vk::PhysicalDeviceType::CPU | vk::PhysicalDeviceType::VIRTUAL_GPU
        ),
        vendor_id: props.vendor_id,
    }
}

/// Picks families: direct on graphics; compute on a compute-only family where one exists;
/// copy on a transfer-only family with unit transfer granularity where one exists.
pub(crate) fn choose_families(props: &[vk::QueueFamilyProperties]) -> Option<Families> {
    let has = |p: &vk::QueueFamilyProperties, f: vk::QueueFlags| p.queue_flags.contains(f) && p.queue_count > 0;
    let direct = props.iter().position(|p| has(p, vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE))? as u32;
    let compute = props
        .iter()
        .position(|p| has(p, vk::QueueFlags::COMPUTE) && !p.queue_flags.contains(vk::QueueFlags::GRAPHICS))
        .map_or(direct, |i| i as u32);
    let unit = |p: &vk::QueueFamilyProperties| {
        let g = p.min_image_transfer_granularity;
        (g.width, g.height, g.depth) == (1, 1, 1)
    };
    let copy = props
        .iter()
        .position(|p| {
            has(p, vk::QueueFlags::TRANSFER)
                && !p.queue_flags.intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
                && unit(p)
        })
        .map_or(compute, |i| i as u32);
    Some(Families { direct, compute, copy })
}

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
    /// A CPU device (lavapipe): its compute shaders run far slower than its transfers.
    pub cpu: bool,
}

/// Queue families chosen for the three queue types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Families {
    pub(crate) direct: u32,
    pub(crate) compute: u32,
    /// Queue index of compute lists in their family (1 when they share the graphics family).
    pub(crate) compute_index: u32,
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
        cpu: props.device_type == vk::PhysicalDeviceType::CPU,
    }
}

/// Picks families: direct on graphics; compute on a second queue of the graphics family where
/// it has one (D3D12 compute lists copy depth and stencil, which Vulkan allows only on
/// graphics families), else on a compute-only family, else sharing the direct queue; copy on a
/// transfer-only family with unit transfer granularity where one exists and `transfer_shares`
/// (the driver shares images with it concurrently and well), else with the compute lists.
pub(crate) fn choose_families(props: &[vk::QueueFamilyProperties], transfer_shares: bool) -> Option<Families> {
    let has = |p: &vk::QueueFamilyProperties, f: vk::QueueFlags| p.queue_flags.contains(f) && p.queue_count > 0;
    let direct = props.iter().position(|p| has(p, vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE))? as u32;
    let compute_only =
        props.iter().position(|p| has(p, vk::QueueFlags::COMPUTE) && !p.queue_flags.contains(vk::QueueFlags::GRAPHICS));
    let (compute, compute_index) = match compute_only {
        _ if props[direct as usize].queue_count > 1 => (direct, 1),
        Some(i) => (i as u32, 0),
        None => (direct, 0),
    };
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
                && transfer_shares
        })
        .map_or(compute, |i| i as u32);
    Some(Families { direct, compute, compute_index, copy })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(flags: vk::QueueFlags, count: u32) -> vk::QueueFamilyProperties {
        vk::QueueFamilyProperties {
            queue_flags: flags,
            queue_count: count,
            min_image_transfer_granularity: vk::Extent3D { width: 1, height: 1, depth: 1 },
            ..Default::default()
        }
    }

    #[test]
    fn compute_lists_take_a_second_graphics_queue_where_there_is_one() {
        let (g, c, t) = (vk::QueueFlags::GRAPHICS, vk::QueueFlags::COMPUTE, vk::QueueFlags::TRANSFER);
        // NVIDIA: 16 graphics queues, a compute-only and a transfer-only family.
        let nvidia = [family(g | c | t, 16), family(t, 2), family(c | t, 8)];
        let f = choose_families(&nvidia, true).unwrap();
        assert_eq!((f.direct, f.compute, f.compute_index, f.copy), (0, 0, 1, 1));
        // A driver that does not share images with its transfer family well: copies go with
        // the compute lists.
        let f = choose_families(&nvidia, false).unwrap();
        assert_eq!((f.direct, f.compute, f.compute_index, f.copy), (0, 0, 1, 0));
        // One graphics queue: the compute-only family.
        let single = [family(g | c | t, 1), family(c | t, 4)];
        let f = choose_families(&single, true).unwrap();
        assert_eq!((f.direct, f.compute, f.compute_index, f.copy), (0, 1, 0, 1));
        // lavapipe: one family, one queue, shared by every list type.
        let f = choose_families(&[family(g | c | t, 1)], true).unwrap();
        assert_eq!((f.direct, f.compute, f.compute_index, f.copy), (0, 0, 0, 0));
        assert!(choose_families(&[family(c | t, 1)], true).is_none());
    }
}

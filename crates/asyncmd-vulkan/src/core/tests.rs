//! The thread rule per driver and driver branch.

use super::*;

/// NVIDIA's `driverVersion` of 580.159.04, packed as its driver reports it.
const NVIDIA_580_159_04: u32 = (580 << 22) | (159 << 14) | (4 << 6);

#[test]
fn the_thread_rule_follows_the_driver_and_nvidias_measured_branch() {
    assert_eq!(ThreadExit::of(vk::DriverId::MESA_LLVMPIPE, 1), ThreadExit::AnyCall);
    assert_eq!(ThreadExit::of(vk::DriverId::MESA_RADV, 0), ThreadExit::AnyCall);
    assert_eq!(ThreadExit::of(vk::DriverId::NVIDIA_PROPRIETARY, NVIDIA_580_159_04), ThreadExit::StatelessCalls);
    // Another branch, unmeasured, keeps the pool; so do the closed drivers of others.
    let nvidia_590 = (590 << 22) | (48 << 14);
    assert_eq!(ThreadExit::of(vk::DriverId::NVIDIA_PROPRIETARY, nvidia_590), ThreadExit::NoCall);
    assert_eq!(ThreadExit::of(vk::DriverId::AMD_PROPRIETARY, NVIDIA_580_159_04), ThreadExit::NoCall);
    assert_eq!(ThreadExit::of(vk::DriverId::MESA_VENUS, 0), ThreadExit::NoCall);
}

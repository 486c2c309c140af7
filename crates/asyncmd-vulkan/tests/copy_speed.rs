//! The one-time copy measurement completes and reports both paths.

use asyncmd_vulkan::{Validation, VulkanDevice, VulkanOptions};

#[test]
fn copy_paths_are_measured() {
    let required = std::env::var("ASYNCMD_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    let device =
        match VulkanDevice::open(0, VulkanOptions { validation: Validation::IfAvailable, ..Default::default() }) {
            Ok(d) => d,
            Err(e) => {
                assert!(!required, "{}", e.text);
                return;
            }
        };
    let (transfer, compute) = device.measure_copy_paths(64 << 10).unwrap();
    assert!(transfer > 0 && compute > 0, "{transfer} {compute}");
    assert!(device.validation_log().messages().is_empty(), "{:?}", device.validation_log().messages());
}

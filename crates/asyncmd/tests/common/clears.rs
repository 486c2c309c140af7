//! Texture-clear helpers shared by the clear tests: raw clear values and clear descriptions.

use asyncmd::types::*;
use asyncmd::Resource;

/// A raw clear value whose bytes follow from `seed`.
pub fn bytes(seed: u8) -> ClearData {
    ClearData { bytes: std::array::from_fn(|i| seed.wrapping_add((i as u8).wrapping_mul(37))) }
}

/// A clear of `sub` of `tex` in its own format.
pub fn clear(tex: &Resource, sub: u32, value: ClearData, region: Option<Box3>) -> ClearTextureDesc<&Resource> {
    ClearTextureDesc { texture: tex, subresource: sub, clear_value: value, format: Format::Unknown, region }
}

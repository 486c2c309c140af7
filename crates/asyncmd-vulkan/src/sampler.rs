//! Samplers of the app's kernels: one `VkSampler` per distinct `D3D12_SAMPLER_DESC`, made on
//! first use and kept with the device (D3D12 heaps hold at most 2048 samplers; Vulkan devices
//! allow at least 4000).

use crate::core::Core;
use ash::vk;
use asyncmd_types::{AddressMode, Error, FilterType, Result, SamplerDesc};
use std::sync::PoisonError;

fn unsupported(what: String) -> Error {
    Error::unsupported(format!("Vulkan: samplers {what} are not supported yet"))
}

fn filter(f: FilterType) -> vk::Filter {
    match f {
        FilterType::Point => vk::Filter::NEAREST,
        FilterType::Linear => vk::Filter::LINEAR,
    }
}

fn address(m: AddressMode) -> Result<vk::SamplerAddressMode> {
    Ok(match m {
        AddressMode::Wrap => vk::SamplerAddressMode::REPEAT,
        AddressMode::Mirror => vk::SamplerAddressMode::MIRRORED_REPEAT,
        AddressMode::Clamp => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        AddressMode::Border => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        AddressMode::MirrorOnce => return Err(unsupported("with MIRROR_ONCE addressing".into())),
    })
}

/// The fixed border colour Vulkan has for `rgba`: transparent black, opaque black or opaque
/// white (a D3D12 static sampler's choices).
fn border(rgba: [f32; 4]) -> Result<vk::BorderColor> {
    match rgba {
        [0.0, 0.0, 0.0, 0.0] => Ok(vk::BorderColor::FLOAT_TRANSPARENT_BLACK),
        [0.0, 0.0, 0.0, 1.0] => Ok(vk::BorderColor::FLOAT_OPAQUE_BLACK),
        [1.0, 1.0, 1.0, 1.0] => Ok(vk::BorderColor::FLOAT_OPAQUE_WHITE),
        c => Err(unsupported(format!("with the border colour {c:?}"))),
    }
}

impl Core {
    /// The sampler of `desc`. Anisotropic filters filter linearly (the device enables no
    /// anisotropy); min/max reductions without `samplerFilterMinmax`, `MIRROR_ONCE` and border
    /// colours other than D3D12's three static ones are `Unsupported`.
    pub(crate) fn sampler(&self, desc: &SamplerDesc) -> Result<vk::Sampler> {
        let mut cache = self.samplers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(s) = cache.get(desc) {
            return Ok(*s);
        }
        use asyncmd_types::FilterReduction as R;
        let reduction = match desc.filter.reduction {
            R::Standard => None,
            R::Comparison => None,
            R::Minimum | R::Maximum if !self.features.sampler_minmax => {
                return Err(unsupported("with min/max reduction on a device without samplerFilterMinmax".into()))
            }
            R::Minimum => Some(vk::SamplerReductionMode::MIN),
            R::Maximum => Some(vk::SamplerReductionMode::MAX),
        };
        let mut reduce = vk::SamplerReductionModeCreateInfo::default().reduction_mode(reduction.unwrap_or_default());
        let linear = |f| if desc.filter.anisotropic { vk::Filter::LINEAR } else { filter(f) };
        let mut info = vk::SamplerCreateInfo::default()
            .mag_filter(linear(desc.filter.mag))
            .min_filter(linear(desc.filter.min))
            .mipmap_mode(match (desc.filter.anisotropic, desc.filter.mip) {
                (false, FilterType::Point) => vk::SamplerMipmapMode::NEAREST,
                _ => vk::SamplerMipmapMode::LINEAR,
            })
            .address_mode_u(address(desc.address[0])?)
            .address_mode_v(address(desc.address[1])?)
            .address_mode_w(address(desc.address[2])?)
            .mip_lod_bias(desc.mip_lod_bias)
            .min_lod(desc.min_lod)
            .max_lod(desc.max_lod.min(vk::LOD_CLAMP_NONE))
            .border_color(border(desc.border_color)?);
        if reduction.is_some() {
            info = info.push_next(&mut reduce);
        }
        if desc.filter.reduction == R::Comparison {
            info = info.compare_enable(true).compare_op(crate::conv::compare(desc.comparison));
        }
        // SAFETY: valid create info; the sampler is destroyed with the device (`Core::drop`).
        let s = unsafe { self.device.create_sampler(&info, None) }
            .map_err(|e| Error::out_of_memory(format!("CreateSampler: {e}")))?;
        cache.insert(*desc, s);
        Ok(s)
    }
}

//! `ReadSamples`: every sample of an idle multisampled subresource, read to the host by an
//! image kernel (no transfer reaches samples) through a readback buffer.

use crate::memory::VkResource;
use ash::vk;
use asyncmd_types::{Error, HeapType, MessageId, ResourceDesc, Result};
use std::sync::Arc;

const API: &str = "ReadSamples";

/// Bytes the kernel writes per sample: four dwords, of which the texel's bytes are kept.
const SLOT: u64 = 16;

fn unsupported(why: &str) -> Error {
    Error::unsupported(format!("{API}: {why}"))
}

/// Reads subresource `index` of `res` (multisampled, 2D, colour with a raw view): texel by
/// texel in rows, the samples of a texel next to each other.
pub(crate) fn read_samples(core: &Arc<crate::core::Core>, res: &VkResource, index: u32) -> Result<Vec<u8>> {
    let sub = res.desc.subresource(index).ok_or_else(|| {
        Error::invalid_arg(MessageId::InvalidSubresourceIndex, format!("{API}: no subresource {index}"))
    })?;
    let raw = res.sample_format().ok_or_else(|| unsupported("the texture has no raw integer view of its samples"))?;
    let texel = crate::conv::raw_uint_bytes(raw)
        .ok_or_else(|| unsupported("the texture's texels are not 1, 2, 4, 8 or 16 bytes"))? as usize;
    if !res.desc.is_msaa() || !res.has_usage(vk::ImageUsageFlags::SAMPLED) {
        return Err(unsupported("only multisampled textures the device samples are read"));
    }
    let kernels = core.meta()?.image.as_ref().ok_or_else(|| unsupported("the device has no image kernels"))?;
    let (w, h, _) = res.desc.mip_extent(sub.mip);
    let samples = res.desc.sample_desc.count;
    let count = u64::from(w) * u64::from(h) * u64::from(samples);
    let bytes = count.checked_mul(SLOT).ok_or_else(|| Error::out_of_memory(format!("{API}: too many samples")))?;
    let out_len = usize::try_from(count.saturating_mul(texel as u64))
        .map_err(|_| Error::out_of_memory(format!("{API}: larger than the address space")))?;
    let staging = VkResource::new(core, &ResourceDesc::buffer(bytes), HeapType::Readback)?;
    let view = res.view((raw, vk::ImageViewType::TYPE_2D, 0, sub.slice, 1, vk::ImageAspectFlags::COLOR))?;
    let address = staging.address();
    let constants = [address as u32, (address >> 32) as u32, w, h, samples];
    let views = crate::meta::Views { storage: None, sampled: Some(view) };
    core.one_time(|cb| {
        let before = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COMPUTE_SHADER)
            .dst_access_mask(vk::AccessFlags2::SHADER_SAMPLED_READ)];
        let after = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COMPUTE_SHADER)
            .src_access_mask(vk::AccessFlags2::SHADER_STORAGE_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)];
        // SAFETY: a command buffer in recording; the barriers name no resource.
        unsafe { core.device.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&before)) };
        kernels.read_samples.dispatch(cb, views, &constants, (w.div_ceil(16), h.div_ceil(16)));
        // SAFETY: as above.
        unsafe { core.device.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&after)) };
    })?;
    let mut out = Vec::new();
    out.try_reserve_exact(out_len).map_err(|_| Error::out_of_memory(format!("{API}: {out_len} bytes")))?;
    let len =
        usize::try_from(bytes).map_err(|_| Error::out_of_memory(format!("{API}: larger than the address space")))?;
    staging.host_access(0, len, |slots| {
        for slot in slots.chunks_exact(SLOT as usize) {
            // A texel narrower than a dword sits in the low bytes of the first one.
            out.extend_from_slice(&slot[..texel]);
        }
    })?;
    Ok(out)
}

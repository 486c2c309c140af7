//! Resolves: `vkCmdResolveImage` for averages, copies of every sample for decompressions, and
//! the image kernels (`cs_resolve_*`) for colour MIN/MAX, which Vulkan's resolve commands lack,
//! and for the async averages they can make where compute wins (the H200's resolve commands
//! write at the graphics engines' rate).

use super::{fail, VkCommandList};
use crate::memory::VkResource;
use crate::meta::Views;
use ash::vk;
use asyncmd_ddi::Resolve;
use asyncmd_types::{ComponentClass, Format, Rect, ResolveMode, Result};

impl VkCommandList {
    pub(crate) fn resolve(&mut self, r: &Resolve) -> Result<()> {
        self.check_not_predicated("ResolveSubresourceRegion")?;
        if r.mode == ResolveMode::Decompress && r.dest == r.source && r.dest_subresource == r.source_subresource {
            // Vulkan images in GENERAL need no decompression: in place, there is nothing to do.
            return Ok(());
        }
        let (dst, di) = self.image_of(r.dest)?;
        let (src, si) = self.image_of(r.source)?;
        let (sl, _) = Self::layers(&src, r.source_subresource)?;
        let (dl, _) = Self::layers(&dst, r.dest_subresource)?;
        let (sw, sh, _) = src.desc.subresource_extent(r.source_subresource).unwrap_or((0, 0, 0));
        let rect = r.source_rect.unwrap_or(Rect::new(0, 0, sw as i32, sh as i32));
        // Legacy averages are the driver's resolve; the async form takes the kernel where
        // compute wins (`resolve_async`).
        if matches!(r.mode, ResolveMode::Min | ResolveMode::Max) && self.resolve_by_kernel(r, &dst, &src, rect)? {
            return Ok(());
        }
        if !matches!(r.mode, ResolveMode::Average | ResolveMode::Decompress) {
            return Err(fail(format!(
                "ResolveSubresourceRegion: {:?} resolves of {} are not supported on this Vulkan device",
                r.mode, r.format
            )));
        }
        self.serialize();
        let region = [vk::ImageResolve {
            src_subresource: sl,
            src_offset: vk::Offset3D { x: rect.left, y: rect.top, z: 0 },
            dst_subresource: dl,
            dst_offset: vk::Offset3D { x: r.dest_x as i32, y: r.dest_y as i32, z: 0 },
            extent: vk::Extent3D {
                width: (rect.right - rect.left) as u32,
                height: (rect.bottom - rect.top) as u32,
                depth: 1,
            },
        }];
        let d = &self.core.device;
        let general = vk::ImageLayout::GENERAL;
        if r.mode == ResolveMode::Decompress {
            // Equal sample counts: a decompress into another image is a copy of every sample.
            let [reg] = region;
            let copy = [vk::ImageCopy {
                src_subresource: reg.src_subresource,
                src_offset: reg.src_offset,
                dst_subresource: reg.dst_subresource,
                dst_offset: reg.dst_offset,
                extent: reg.extent,
            }];
            // SAFETY: live images in GENERAL with equal sample counts; regions checked.
            unsafe { d.cmd_copy_image(self.cb, si, general, di, general, &copy) };
            return Ok(());
        }
        // SAFETY: live images in GENERAL; the runtime checked the regions and formats.
        unsafe { d.cmd_resolve_image(self.cb, si, general, di, general, &region) };
        Ok(())
    }

    /// Native `ResolveSubresourceRegionAsync`: the image kernel where compute wins and the
    /// formats and images allow it, otherwise the legacy resolve.
    pub(crate) fn resolve_async(&mut self, r: &Resolve) -> Result<()> {
        // A dispatch is predicated (conditional rendering); the legacy resolve refuses to be.
        if r.mode == ResolveMode::Average && self.image_kernels_on() {
            let (dst, _) = self.image_of(r.dest)?;
            let (src, _) = self.image_of(r.source)?;
            let (sw, sh, _) = src.desc.subresource_extent(r.source_subresource).unwrap_or((0, 0, 0));
            let rect = r.source_rect.unwrap_or(Rect::new(0, 0, sw as i32, sh as i32));
            if self.resolve_by_kernel(r, &dst, &src, rect)? {
                return Ok(());
            }
        }
        self.resolve(r)
    }

    /// A resolve by an image kernel, where the formats and the images allow it: MIN/MAX always,
    /// AVERAGE where compute wins. Returns whether it recorded one.
    fn resolve_by_kernel(&mut self, r: &Resolve, dst: &VkResource, src: &VkResource, rect: Rect) -> Result<bool> {
        let average = r.mode == ResolveMode::Average;
        if average && !self.image_kernels_on() {
            return Ok(false);
        }
        let core = self.core.clone();
        let Some(kernels) = core.meta()?.image.as_ref() else { return Ok(false) };
        let class = r.format.info().class;
        let (kernel, format) = match class {
            ComponentClass::Float | ComponentClass::Unorm | ComponentClass::Snorm => (&kernels.resolve_float, r.format),
            // The sRGB curve keeps the order of values: their MIN/MAX is the UNORM one.
            ComponentClass::Srgb if !average => (&kernels.resolve_float, unorm_of(r.format)),
            ComponentClass::Uint if !average => (&kernels.resolve_uint, r.format),
            ComponentClass::Sint if !average => (&kernels.resolve_sint, r.format),
            _ => return Ok(false),
        };
        let (Some(ds), Some(ss)) =
            (dst.desc.subresource(r.dest_subresource), src.desc.subresource(r.source_subresource))
        else {
            return Ok(false);
        };
        let vf = dst.view_format(format);
        let i = &self.core.instance.instance;
        // SAFETY: a format-properties query on this device's physical device.
        let features =
            unsafe { i.get_physical_device_format_properties(self.core.physical, vf) }.optimal_tiling_features;
        let usable = features.contains(vk::FormatFeatureFlags::STORAGE_IMAGE | vk::FormatFeatureFlags::SAMPLED_IMAGE)
            && dst.has_usage(vk::ImageUsageFlags::STORAGE)
            && src.has_usage(vk::ImageUsageFlags::SAMPLED)
            && dst.desc.dimension == asyncmd_types::ResourceDimension::Texture2D
            && !dst.desc.format.has_depth();
        if !usable {
            return Ok(false);
        }
        let color = vk::ImageAspectFlags::COLOR;
        let storage = dst.view((vf, vk::ImageViewType::TYPE_2D, ds.mip, ds.slice, 1, color))?;
        let sampled = src.view((src.view_format(format), vk::ImageViewType::TYPE_2D, 0, ss.slice, 1, color))?;
        let (w, h) = ((rect.right - rect.left) as u32, (rect.bottom - rect.top) as u32);
        let mode = match r.mode {
            ResolveMode::Min => 1,
            ResolveMode::Max => 2,
            _ => 0,
        };
        let constants = [rect.left as u32, rect.top as u32, r.dest_x, r.dest_y, w, h, mode, src.desc.sample_desc.count];
        // Resolves are serialized with the legacy transfers around them; where those stay
        // transfers, the dispatch is put between them by barriers of its own.
        let bracket = !self.copies_in_compute();
        let (transfer, compute) = (vk::PipelineStageFlags2::ALL_TRANSFER, vk::PipelineStageFlags2::COMPUTE_SHADER);
        let transfers = vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE;
        let shader = vk::AccessFlags2::SHADER_SAMPLED_READ | vk::AccessFlags2::SHADER_STORAGE_WRITE;
        self.serialize();
        if bracket {
            self.memory_barrier(transfer, vk::AccessFlags2::TRANSFER_WRITE, compute, shader);
        }
        let views = Views { storage: Some(storage), sampled: Some(sampled) };
        kernel.dispatch(self.cb, views, &constants, (w.div_ceil(16), h.div_ceil(16)));
        if bracket {
            self.memory_barrier(compute, vk::AccessFlags2::SHADER_STORAGE_WRITE, transfer, transfers);
        }
        Ok(true)
    }
}

/// The UNORM format of an sRGB one (the same texels without the curve).
fn unorm_of(format: Format) -> Format {
    match format {
        Format::R8G8B8A8UnormSrgb => Format::R8G8B8A8Unorm,
        Format::B8G8R8A8UnormSrgb => Format::B8G8R8A8Unorm,
        Format::B8G8R8X8UnormSrgb => Format::B8G8R8X8Unorm,
        other => other,
    }
}

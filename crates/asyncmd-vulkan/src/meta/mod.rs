//! Every pipeline the device owns: the runtime's built-in shaders, which app pipelines name
//! by [`ShaderId`](asyncmd_ddi::ShaderId) (`builtin`), and the device's own compute kernels
//! for native paths and queries, one struct per operation: the buffer kernels on one
//! push-constant layout (`kernel`), and the image kernels on theirs (`image`). Made once
//! when the device opens, destroyed with it.

mod builtin;
mod image;
mod kernel;
mod sample_clear;
mod samples;

pub(crate) use builtin::{module_from, shader_module};
pub(crate) use image::{element_words, groups as image_groups, ImageKernels, Views};
pub(crate) use kernel::{Kernel, KernelLayout};
pub(crate) use sample_clear::SampleClears;
pub(crate) use samples::read_samples;

use crate::core::Core;
use asyncmd_types::Result;

/// The device's own pipelines.
pub(crate) struct Meta {
    /// Normalizes binary occlusion counts to 0 or 1 (`ResolveQueryData`).
    pub(crate) occlusion_binary: Kernel,
    /// The group counts of an `ExecuteIndirect`'s dispatches, zeros past its count.
    pub(crate) indirect_dispatch: Kernel,
    /// Folds a 64-bit predicate to the 32 bits conditional rendering reads.
    pub(crate) predicate_fold: Kernel,
    /// One large buffer copy in 16-byte elements (`CopyBufferRegion` where compute wins).
    pub(crate) copy_buffer: Kernel,
    /// Every region of a `CopyBufferRegions` call, from a table in device memory.
    pub(crate) copy_buffer_batch: Kernel,
    /// Every fill of a `FillBuffers` call, from a table in device memory.
    pub(crate) fill_batch: Kernel,
    /// One fill, grid-stride over the whole grid: the built-in fill shader (`ShaderId::FillCs`),
    /// whose 32 bytes of constants are the pattern, its length, the count and the address.
    pub(crate) fill: Kernel,
    /// The image kernels, where the device has push descriptors.
    pub(crate) image: Option<ImageKernels>,
    /// The exact clears of multisampled colour images.
    pub(crate) sample_clears: SampleClears,
    /// The kernels' layout: declared last, so it is destroyed after them.
    _layout: KernelLayout,
}

impl Meta {
    pub(crate) fn new(core: &Core) -> Result<Self> {
        let layout = KernelLayout::new(core)?;
        let kernel = |spirv: &[u8]| Kernel::new(core, &layout, spirv);
        Ok(Meta {
            occlusion_binary: kernel(include_bytes!("../../shaders/meta/cs_occlusion_binary.comp.spv"))?,
            predicate_fold: kernel(include_bytes!("../../shaders/meta/cs_predicate_fold.comp.spv"))?,
            indirect_dispatch: kernel(include_bytes!("../../shaders/meta/cs_indirect_dispatch.comp.spv"))?,
            copy_buffer: kernel(include_bytes!("../../shaders/meta/cs_copy_buffer.comp.spv"))?,
            copy_buffer_batch: kernel(include_bytes!("../../shaders/meta/cs_copy_buffer_batch.comp.spv"))?,
            fill_batch: kernel(include_bytes!("../../shaders/meta/cs_fill_batch.comp.spv"))?,
            fill: kernel(include_bytes!("../../shaders/builtin/cs_fill.comp.spv"))?,
            image: match &core.push_descriptor {
                Some(push) => Some(ImageKernels::new(core, push.clone())?),
                None => None,
            },
            sample_clears: SampleClears::new(core)?,
            _layout: layout,
        })
    }
}

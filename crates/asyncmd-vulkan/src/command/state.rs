//! Pipeline state and root arguments: D3D12's root constants and root UAVs as push constants,
//! laid out by the bound root signature.

use super::rendering::Pass;
use super::{fail, VkCommandList};
use crate::pipeline::{VkPipeline, VkRootSignature};
use asyncmd_ddi::{DepthStencilView, GpuAddress, RenderTargetView, ShaderId};
use asyncmd_types::{Rect, Result, Viewport};
use std::sync::Arc;

/// Root arguments of one kind (graphics or compute).
#[derive(Default)]
pub(crate) struct Root {
    pub(crate) signature: Option<Arc<VkRootSignature>>,
    pub(crate) bytes: Vec<u8>,
    /// By parameter: the bytes a root UAV's buffer holds past its address (0 where none is set).
    room: Vec<u64>,
    /// By parameter: a root UAV's buffer and offset, where it names one.
    pub(crate) uav_buffers: Vec<Option<(ash::vk::Buffer, u64)>>,
    /// The views of the pipeline's descriptor tables.
    pub(crate) tables: Vec<TableEntry>,
}

/// What a table's descriptor gives the kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TableDescriptor {
    /// A buffer, an offset into it, and bytes.
    Buffer(ash::vk::Buffer, u64, u64),
    /// An image view (the image is in the general layout).
    Image(ash::vk::ImageView),
    /// A sampler.
    Sampler(ash::vk::Sampler),
}

/// A table's descriptor: (parameter, descriptors from the table's start) → what it gives.
pub(crate) type TableEntry = ((u32, u64), TableDescriptor);

impl Root {
    pub(super) fn set_signature(&mut self, sig: Arc<VkRootSignature>) {
        // The one already set (a bundle setting its executing list's): the arguments stay, as
        // D3D12 keeps them.
        if self.signature.as_ref().is_some_and(|s| Arc::ptr_eq(s, &sig)) {
            return;
        }
        self.bytes = vec![0; sig.size as usize];
        self.room = vec![0; sig.offsets.len()];
        self.uav_buffers = vec![None; sig.offsets.len()];
        self.signature = Some(sig);
    }

    /// The arguments to push for `pipeline`, which must have been made with a root signature of
    /// the bound one's layout. The fill shader's are bounded as `asyncmd_ddi::shader` says: its
    /// pattern length to 1–4, its count to the dwords its root UAV's buffer holds, so that no
    /// constant makes it write outside that buffer.
    pub(super) fn arguments(&self, pipeline: &VkPipeline, api: &str) -> Result<std::borrow::Cow<'_, [u8]>> {
        let bound = self.signature.as_ref().ok_or_else(|| fail(format!("{api}: no root signature")))?;
        if !Arc::ptr_eq(bound, &pipeline.root) && bound.parameters != pipeline.root.parameters {
            return Err(fail(format!("{api}: the bound root signature is not the pipeline's")));
        }
        if pipeline.cs != Some(ShaderId::FillCs) {
            return Ok(std::borrow::Cow::Borrowed(&self.bytes));
        }
        // `ShaderId::fits_root` held at creation: dwords 4 and 5 are the length and the count,
        // parameter 1 the destination.
        let mut bytes = self.bytes.clone();
        let dword =
            |b: &[u8], i: usize| b.get(4 * i..4 * i + 4).map_or(0, |d| u32::from_le_bytes([d[0], d[1], d[2], d[3]]));
        let length = dword(&bytes, 4).clamp(1, 4);
        let room = self.room.get(1).copied().unwrap_or(0) / 4;
        let count = u64::from(dword(&bytes, 5)).min(room) as u32;
        for (i, v) in [(4, length), (5, count)] {
            if let Some(d) = bytes.get_mut(4 * i..4 * i + 4) {
                d.copy_from_slice(&v.to_le_bytes());
            }
        }
        Ok(std::borrow::Cow::Owned(bytes))
    }

    /// Bytes the root descriptor of `parameter` has past its address (0 where none is set).
    pub(super) fn room(&self, parameter: usize) -> u64 {
        self.room.get(parameter).copied().unwrap_or(0)
    }

    pub(super) fn write(&mut self, parameter: u32, offset: u32, data: &[u8]) {
        let Some(sig) = &self.signature else { return };
        let Some(base) = sig.offsets.get(parameter as usize) else { return };
        let start = (*base + 4 * offset) as usize;
        if let Some(dst) = self.bytes.get_mut(start..start + data.len()) {
            dst.copy_from_slice(data);
        }
    }
}

/// Graphics and compute state of a list.
#[derive(Default)]
pub(crate) struct Graphics {
    pub(crate) pipeline: Option<Arc<VkPipeline>>,
    pub(crate) graphics: Root,
    pub(crate) compute: Root,
    pub(crate) viewports: Vec<Viewport>,
    pub(crate) scissors: Vec<Rect>,
    pub(crate) stencil_ref: u32,
    pub(crate) blend: [f32; 4],
    pub(crate) rtvs: Vec<RenderTargetView>,
    pub(crate) dsv: Option<DepthStencilView>,
    /// A rendering instance is open.
    pub(crate) rendering: bool,
    /// Render area and layer count of the open rendering instance.
    pub(crate) area: (u32, u32, u32),
    pub(crate) pass: Option<Pass>,
    pub(crate) keep_pipelines: Vec<Arc<VkPipeline>>,
    pub(crate) keep_roots: Vec<Arc<VkRootSignature>>,
}

impl VkCommandList {
    pub(crate) fn set_pipeline(&mut self, id: u64) -> Result<()> {
        let p = self.deferred.pipeline(&self.tables, id).ok_or_else(|| fail("unknown pipeline".into()))?;
        self.gfx.keep_pipelines.push(p.clone());
        self.gfx.pipeline = Some(p);
        Ok(())
    }

    pub(crate) fn set_root_signature(&mut self, id: u64, compute: bool) -> Result<()> {
        let r = self.deferred.root(&self.tables, id).ok_or_else(|| fail("unknown root signature".into()))?;
        self.gfx.keep_roots.push(r.clone());
        if compute {
            self.gfx.compute.set_signature(r);
        } else {
            self.gfx.graphics.set_signature(r);
        }
        Ok(())
    }

    pub(crate) fn set_root_constants(&mut self, parameter: u32, offset: u32, values: &[u32], compute: bool) {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let root = if compute { &mut self.gfx.compute } else { &mut self.gfx.graphics };
        root.write(parameter, offset, &bytes);
    }

    pub(crate) fn set_table_views(&mut self, views: &[asyncmd_ddi::TableView], compute: bool) -> Result<()> {
        let mut tables = Vec::with_capacity(views.len());
        for t in views {
            let descriptor = match t.view {
                asyncmd_ddi::BoundView::Buffer { address, size } => match self.resource(address.resource)?.buffer() {
                    Some(b) => TableDescriptor::Buffer(b, address.offset, size),
                    None => continue,
                },
                asyncmd_ddi::BoundView::Texture { resource, view } => {
                    let res = self.resource(resource)?;
                    TableDescriptor::Image(texture_view(&res, &view)?)
                }
                asyncmd_ddi::BoundView::Sampler(desc) => TableDescriptor::Sampler(self.core.sampler(&desc)?),
            };
            tables.push(((t.parameter, t.offset), descriptor));
        }
        let root = if compute { &mut self.gfx.compute } else { &mut self.gfx.graphics };
        root.tables = tables;
        Ok(())
    }

    pub(crate) fn set_root_uav(&mut self, parameter: u32, address: GpuAddress, compute: bool) -> Result<()> {
        let res = self.resource(address.resource)?;
        // A texture has no address, and an offset past the buffer's end leaves no room: the
        // address is then never written through (`Root::arguments`).
        let room = if res.desc.is_buffer() { res.desc.width.saturating_sub(address.offset) } else { 0 };
        let va = res.address().wrapping_add(address.offset);
        let root = if compute { &mut self.gfx.compute } else { &mut self.gfx.graphics };
        root.write(parameter, 0, &va.to_le_bytes());
        if let Some(r) = root.room.get_mut(parameter as usize) {
            *r = room;
        }
        if let Some(b) = root.uav_buffers.get_mut(parameter as usize) {
            *b = res.buffer().map(|b| (b, address.offset));
        }
        Ok(())
    }

    pub(super) fn push(&self, bytes: &[u8], signature: &VkRootSignature, compute: bool) {
        // A root signature past the push-constant bytes serves app kernels only, which push
        // through their own layouts (`dispatch.rs`).
        if !bytes.is_empty() && signature.fits {
            let (layout, stages) = (signature.layout(compute), VkRootSignature::stages(compute));
            // SAFETY: the bytes fit the layout's push-constant range (a root signature of the
            // same layout, `Root::arguments`), pushed to the stages of that range.
            unsafe { self.core.device.cmd_push_constants(self.cb, layout, stages, 0, bytes) };
        }
    }
}

/// The image view a kernel reads or writes a texture view through.
fn texture_view(res: &crate::memory::VkResource, view: &asyncmd_types::TextureView) -> Result<ash::vk::ImageView> {
    use ash::vk::ImageViewType as T;
    use asyncmd_types::TextureViewDimension as D;
    let ty = match view.dimension {
        D::Texture1D => T::TYPE_1D,
        D::Texture1DArray => T::TYPE_1D_ARRAY,
        D::Texture2D => T::TYPE_2D,
        D::Texture2DArray => T::TYPE_2D_ARRAY,
        D::Texture3D => T::TYPE_3D,
        D::TextureCube => T::CUBE,
        D::TextureCubeArray => T::CUBE_ARRAY,
    };
    // A 3D view spans the whole depth: one layer.
    let (first, count) = if ty == T::TYPE_3D { (0, 1) } else { (view.first_slice, view.slice_count) };
    // A depth texture is viewed in its own format, through its depth aspect, or its stencil
    // aspect for the formats that read stencil (`X24_TYPELESS_G8_UINT`, `X32_TYPELESS_G8X24_UINT`).
    let (format, aspect) = if res.desc.format.has_depth() {
        let stencil = matches!(
            view.format,
            asyncmd_types::Format::X24TypelessG8Uint | asyncmd_types::Format::X32TypelessG8X24Uint
        );
        let aspect = if stencil { ash::vk::ImageAspectFlags::STENCIL } else { ash::vk::ImageAspectFlags::DEPTH };
        (res.view_format(asyncmd_types::Format::Unknown), aspect)
    } else {
        (res.view_format(view.format), ash::vk::ImageAspectFlags::COLOR)
    };
    let key = (format, ty, view.first_mip, first, count, aspect);
    res.view_of_mips(key, view.mip_count)
}

//! Rendering: dynamic-rendering instances over the bound targets (begun lazily at the first
//! draw after `OMSetRenderTargets`, or explicitly by `BeginRenderPass`), draws, and render-pass
//! resolves.

use super::{fail, VkCommandList};
use crate::conv::{all_aspects, load_op, store_op};
use crate::memory::{ViewKey, VkResource};
use ash::vk;
use asyncmd_ddi::{DepthStencilView, RenderTargetView, ResourceId};
use asyncmd_types::{
    BeginningAccess, EndingAccess, RenderPassDepthStencil, RenderPassFlags, RenderPassRenderTarget, ResolveMode, Result,
};

/// An open explicit render pass.
pub(crate) struct Pass {
    suspending: bool,
    resolves: Vec<(RenderTargetView, EndingAccess<ResourceId>)>,
}

/// A colour target of a rendering instance: view, load and store, clear value.
type ColorTarget = (RenderTargetView, vk::AttachmentLoadOp, vk::AttachmentStoreOp, vk::ClearValue);
/// The depth-stencil target: view, (load, store) for depth then stencil, clear value.
type DepthTarget = (DepthStencilView, [(vk::AttachmentLoadOp, vk::AttachmentStoreOp); 2], vk::ClearValue);

/// One attachment of a rendering instance.
struct Attachment {
    view: vk::ImageView,
    load: vk::AttachmentLoadOp,
    store: vk::AttachmentStoreOp,
    clear: vk::ClearValue,
}

impl VkCommandList {
    pub(crate) fn rtv_key(res: &VkResource, v: &RenderTargetView) -> Result<(ViewKey, (u32, u32))> {
        let range = v.desc.range(&res.desc).ok_or_else(|| fail("render target view does not fit".into()))?;
        let ty = res.attachment_view_type();
        let (w, h, _) = res.desc.mip_extent(range.mip);
        Ok((
            (
                res.view_format(v.desc.format),
                ty,
                range.mip,
                range.first_slice,
                range.slices,
                vk::ImageAspectFlags::COLOR,
            ),
            (w, h),
        ))
    }

    pub(crate) fn dsv_key(res: &VkResource, v: &DepthStencilView) -> Result<(ViewKey, (u32, u32))> {
        let range = v.desc.range(&res.desc).ok_or_else(|| fail("depth-stencil view does not fit".into()))?;
        let ty = res.attachment_view_type();
        let (w, h, _) = res.desc.mip_extent(range.mip);
        Ok((
            (
                res.view_format(res.desc.format),
                ty,
                range.mip,
                range.first_slice,
                range.slices,
                all_aspects(res.desc.format),
            ),
            (w, h),
        ))
    }

    /// Begins a rendering instance over the given targets.
    pub(super) fn begin_rendering(&mut self, colors: Vec<ColorTarget>, depth: Option<DepthTarget>) -> Result<()> {
        let mut area = (u32::MAX, u32::MAX);
        let mut layers = u32::MAX;
        let mut color_attachments = Vec::new();
        for (v, load, store, clear) in colors {
            let res = self.resource(v.resource)?;
            let (key, (w, h)) = Self::rtv_key(&res, &v)?;
            area = (area.0.min(w), area.1.min(h));
            layers = layers.min(key.4);
            color_attachments.push(Attachment { view: res.view(key)?, load, store, clear });
        }
        let mut depth_attachment = None;
        let mut has_stencil = false;
        if let Some((v, ops, clear)) = depth {
            let res = self.resource(v.resource)?;
            let (key, (w, h)) = Self::dsv_key(&res, &v)?;
            area = (area.0.min(w), area.1.min(h));
            layers = layers.min(key.4);
            has_stencil = res.desc.format.has_stencil();
            depth_attachment = Some((res.view(key)?, ops, clear));
        }
        if area.0 == u32::MAX {
            area = (1, 1);
            layers = 1;
        }
        let colors: Vec<vk::RenderingAttachmentInfo> = color_attachments
            .iter()
            .map(|a| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(a.view)
                    .image_layout(vk::ImageLayout::GENERAL)
                    .load_op(a.load)
                    .store_op(a.store)
                    .clear_value(a.clear)
            })
            .collect();
        let depth_info = depth_attachment.map(|(view, ops, clear)| {
            (
                vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(vk::ImageLayout::GENERAL)
                    .load_op(ops[0].0)
                    .store_op(ops[0].1)
                    .clear_value(clear),
                vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(vk::ImageLayout::GENERAL)
                    .load_op(ops[1].0)
                    .store_op(ops[1].1)
                    .clear_value(clear),
            )
        });
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent: vk::Extent2D { width: area.0, height: area.1 },
            })
            .layer_count(layers)
            .color_attachments(&colors);
        if let Some((d, s)) = &depth_info {
            info = info.depth_attachment(d);
            if has_stencil {
                info = info.stencil_attachment(s);
            }
        }
        // SAFETY: views of live images kept by this list; the instance is ended before the
        // list closes.
        unsafe { self.core.device.cmd_begin_rendering(self.cb, &info) };
        self.gfx.rendering = true;
        self.gfx.area = (area.0, area.1, layers);
        Ok(())
    }

    /// Ends the rendering instance begun for draws after `OMSetRenderTargets`.
    pub(crate) fn end_lazy_rendering(&mut self) {
        if self.gfx.rendering && self.gfx.pass.is_none() {
            // SAFETY: ends the instance this list began.
            unsafe { self.core.device.cmd_end_rendering(self.cb) };
            self.gfx.rendering = false;
        }
    }

    pub(crate) fn set_render_targets(&mut self, rtvs: Vec<RenderTargetView>, dsv: Option<DepthStencilView>) {
        self.end_lazy_rendering();
        self.gfx.rtvs = rtvs;
        self.gfx.dsv = dsv;
    }

    /// Begins the lazy rendering instance over the bound targets if none is open.
    pub(crate) fn ensure_rendering(&mut self) -> Result<()> {
        if !self.gfx.rendering {
            let colors = self
                .gfx
                .rtvs
                .iter()
                .map(|v| (*v, vk::AttachmentLoadOp::LOAD, vk::AttachmentStoreOp::STORE, vk::ClearValue::default()))
                .collect();
            let ops = [(vk::AttachmentLoadOp::LOAD, vk::AttachmentStoreOp::STORE); 2];
            let depth = self.gfx.dsv.map(|v| (v, ops, vk::ClearValue::default()));
            self.begin_rendering(colors, depth)?;
        }
        Ok(())
    }

    pub(crate) fn draw(
        &mut self,
        vertex_count: u32,
        instance_count: u32,
        start_vertex: u32,
        start_instance: u32,
    ) -> Result<()> {
        let pipeline = self.gfx.pipeline.clone().ok_or_else(|| fail("DrawInstanced: no pipeline".into()))?;
        if pipeline.compute {
            return Err(fail("DrawInstanced: a compute pipeline is bound".into()));
        }
        self.ensure_rendering()?;
        // Borrowed (no copy per draw): only the fill shader's arguments are rewritten.
        let arguments = self.gfx.graphics.arguments(&pipeline, "DrawInstanced")?;
        let d = self.core.device.clone();
        // D3D12's y axis points up in clip space: a negative-height viewport matches it.
        let viewport = self.gfx.viewports.first().map_or(vk::Viewport::default(), |v| vk::Viewport {
            x: v.top_left_x,
            y: v.top_left_y + v.height,
            width: v.width,
            height: -v.height,
            min_depth: v.min_depth,
            max_depth: v.max_depth,
        });
        // D3D12 always scissors: with no rectangle set, nothing is drawn.
        let scissor = self.gfx.scissors.first().map_or(vk::Rect2D::default(), |r| vk::Rect2D {
            offset: vk::Offset2D { x: r.left.max(0), y: r.top.max(0) },
            extent: vk::Extent2D {
                width: r.right.saturating_sub(r.left.max(0)).max(0) as u32,
                height: r.bottom.saturating_sub(r.top.max(0)).max(0) as u32,
            },
        });
        if viewport.width <= 0.0 || viewport.height == 0.0 {
            return Ok(());
        }
        // SAFETY: recording inside the open rendering instance with a live pipeline.
        unsafe {
            d.cmd_bind_pipeline(self.cb, vk::PipelineBindPoint::GRAPHICS, pipeline.pipeline);
            d.cmd_set_viewport(self.cb, 0, &[viewport]);
            d.cmd_set_scissor(self.cb, 0, &[scissor]);
            d.cmd_set_stencil_reference(self.cb, vk::StencilFaceFlags::FRONT_AND_BACK, self.gfx.stencil_ref);
            d.cmd_set_blend_constants(self.cb, &self.gfx.blend);
        }
        self.push(&arguments, &pipeline.root, false);
        // SAFETY: as above.
        unsafe { d.cmd_draw(self.cb, vertex_count, instance_count, start_vertex, start_instance) };
        Ok(())
    }

    pub(crate) fn begin_render_pass(
        &mut self,
        targets: &[RenderPassRenderTarget<RenderTargetView, ResourceId>],
        depth_stencil: Option<&RenderPassDepthStencil<DepthStencilView, ResourceId>>,
        flags: RenderPassFlags,
    ) -> Result<()> {
        self.end_lazy_rendering();
        let resuming = flags.contains(RenderPassFlags::RESUMING_PASS);
        let mut colors = Vec::new();
        let mut resolves = Vec::new();
        for t in targets.iter().filter(|t| t.beginning.binds()) {
            let load = if resuming { vk::AttachmentLoadOp::LOAD } else { load_op(&t.beginning) };
            let clear = match t.beginning {
                BeginningAccess::Clear(v) => vk::ClearValue {
                    color: vk::ClearColorValue { float32: super::driver_floats(t.view.desc.format, v.floats()) },
                },
                _ => vk::ClearValue::default(),
            };
            let suspending = flags.contains(RenderPassFlags::SUSPENDING_PASS);
            colors.push((
                t.view,
                load,
                if suspending { vk::AttachmentStoreOp::STORE } else { store_op(&t.ending) },
                clear,
            ));
            if matches!(t.ending, EndingAccess::Resolve { .. }) {
                resolves.push((t.view, t.ending));
            }
        }
        let depth = depth_stencil.filter(|ds| ds.depth_beginning.binds() || ds.stencil_beginning.binds()).map(|ds| {
            let op = |b: &BeginningAccess, e: &EndingAccess<ResourceId>| {
                (if resuming { vk::AttachmentLoadOp::LOAD } else { load_op(b) }, store_op(e))
            };
            let depth = match ds.depth_beginning {
                BeginningAccess::Clear(v) => super::driver_depth(ds.view.desc.format, v.floats()[0]),
                _ => 0.0,
            };
            let stencil = match ds.stencil_beginning {
                BeginningAccess::Clear(v) => v.uints()[1],
                _ => 0,
            };
            (
                ds.view,
                [op(&ds.depth_beginning, &ds.depth_ending), op(&ds.stencil_beginning, &ds.stencil_ending)],
                vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth, stencil } },
            )
        });
        self.gfx.rtvs = targets.iter().filter(|t| t.beginning.binds()).map(|t| t.view).collect();
        self.gfx.dsv = depth.map(|d| d.0);
        self.gfx.pass = Some(Pass { suspending: flags.contains(RenderPassFlags::SUSPENDING_PASS), resolves });
        let mut samples = Vec::new();
        for id in colors.iter().map(|c| c.0.resource).chain(depth.map(|d| d.0.resource)) {
            let count = self.resource(id)?.desc.sample_desc.count;
            if !samples.contains(&count) {
                samples.push(count);
            }
        }
        if samples.len() < 2 {
            return self.begin_rendering(colors, depth);
        }
        // One rendering instance cannot hold targets of different sample counts, and nothing
        // draws into them together (the runtime refuses such draws): each count's targets take
        // their beginning and ending accesses in an instance of their own, and bound clears in
        // the pass clear each target alone.
        for count in samples {
            let mut of_count = Vec::new();
            for c in &colors {
                if self.resource(c.0.resource)?.desc.sample_desc.count == count {
                    of_count.push(*c);
                }
            }
            let depth = match depth {
                Some(d) if self.resource(d.0.resource)?.desc.sample_desc.count == count => Some(d),
                _ => None,
            };
            self.begin_rendering(of_count, depth)?;
            // SAFETY: ends the instance begun just above.
            unsafe { self.core.device.cmd_end_rendering(self.cb) };
            self.gfx.rendering = false;
        }
        Ok(())
    }

    pub(crate) fn end_render_pass(&mut self) -> Result<()> {
        let Some(pass) = self.gfx.pass.take() else { return Err(fail("EndRenderPass: no pass is open".into())) };
        if self.gfx.rendering {
            // SAFETY: ends the instance `begin_render_pass` began.
            unsafe { self.core.device.cmd_end_rendering(self.cb) };
            self.gfx.rendering = false;
        }
        self.gfx.rtvs.clear();
        self.gfx.dsv = None;
        if pass.suspending || pass.resolves.is_empty() {
            return Ok(());
        }
        let after_rendering = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::RESOLVE)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE)];
        // SAFETY: recording outside any rendering instance.
        unsafe {
            self.core
                .device
                .cmd_pipeline_barrier2(self.cb, &vk::DependencyInfo::default().memory_barriers(&after_rendering))
        };
        for (view, ending) in pass.resolves {
            if let EndingAccess::Resolve { mode, .. } = ending {
                if mode != ResolveMode::Average {
                    return Err(fail(format!(
                        "EndRenderPass: {mode:?} resolves are not supported on the Vulkan device"
                    )));
                }
            }
            let src = self.resource(view.resource)?;
            let r = asyncmd_ddi::Resolve::for_pass_end(&view, &src.desc, &ending)
                .ok_or_else(|| fail("EndRenderPass: bad view".into()))?;
            self.resolve(&r)?;
        }
        Ok(())
    }
}

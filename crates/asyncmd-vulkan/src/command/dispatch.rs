//! Dispatches of compute pipelines. The device runs every dispatch as recorded: where its
//! transfers beat its shaders it says so (`Capabilities::compute_fills_win`), and the
//! runtime's fallback fills by copies there.

use super::state::TableDescriptor;
use super::{fail, VkCommandList};
use crate::shader::{AppLayout, Source};
use ash::vk;
use asyncmd_types::Result;

impl VkCommandList {
    pub(crate) fn dispatch(&mut self, x: u32, y: u32, z: u32) -> Result<()> {
        self.bind_compute("Dispatch")?;
        // SAFETY: a live compute pipeline, its layout's descriptors and constants pushed, outside
        // any rendering instance.
        unsafe { self.core.device.cmd_dispatch(self.cb, x, y, z) };
        Ok(())
    }

    /// Binds the compute pipeline and pushes its root arguments, for a dispatch.
    pub(super) fn bind_compute(&mut self, api: &str) -> Result<()> {
        self.end_lazy_rendering();
        let pipeline = self.gfx.pipeline.clone().ok_or_else(|| fail(format!("{api}: no pipeline")))?;
        if !pipeline.compute {
            return Err(fail(format!("{api}: a graphics pipeline is bound")));
        }
        let arguments = self.gfx.compute.arguments(&pipeline, api)?.into_owned();
        let d = self.core.device.clone();
        // SAFETY: a live compute pipeline outside any rendering instance.
        unsafe { d.cmd_bind_pipeline(self.cb, vk::PipelineBindPoint::COMPUTE, pipeline.pipeline) };
        match &pipeline.app {
            Some(app) => {
                // Constants past the push-constant bytes: their buffers are made now.
                let mut spilled = Vec::new();
                for (source, _) in &app.descriptors {
                    if let Source::Constants(parameter) = *source {
                        spilled.push((parameter, self.constants_buffer(parameter, &arguments)?));
                    }
                }
                self.push_app(app, &arguments, &spilled)
            }
            None => {
                self.push(&arguments, &pipeline.root, true);
                Ok(())
            }
        }
    }

    /// Upload memory holding root-constants parameter `parameter`'s bytes, for this dispatch
    /// alone: (buffer, offset, size).
    fn constants_buffer(&mut self, parameter: usize, arguments: &[u8]) -> Result<(vk::Buffer, u64, u64)> {
        let sig = self.gfx.compute.signature.as_ref().ok_or_else(|| fail("Dispatch: no root signature".into()))?;
        let count = match sig.parameters.get(parameter) {
            Some(asyncmd_ddi::RootParameter::Constants { count, .. }) => *count as usize,
            _ => return Err(fail(format!("Dispatch: root parameter {parameter} holds no constants"))),
        };
        let start = sig.offsets.get(parameter).copied().unwrap_or(0) as usize;
        let mut bytes = arguments.get(start..).unwrap_or_default().to_vec();
        bytes.resize(4 * count.max(1), 0);
        let align = self.core.props.limits.min_storage_buffer_offset_alignment;
        let (buffer, offset) = self.upload(bytes.len() as u64, align, |b| b.copy_from_slice(&bytes))?;
        Ok((buffer, offset, bytes.len() as u64))
    }

    /// Pushes an app kernel's constants and root descriptors from the root arguments; the
    /// constants it reads from memory are in `spilled`: (parameter, (buffer, offset, size)).
    pub(super) fn push_app(
        &mut self,
        app: &AppLayout,
        arguments: &[u8],
        spilled: &[(usize, (vk::Buffer, u64, u64))],
    ) -> Result<()> {
        let root = &self.gfx.compute;
        let sig = root.signature.as_ref().ok_or_else(|| fail("Dispatch: no root signature".into()))?;
        if let Some((parameter, bytes)) = app.immediates {
            let start = sig.offsets.get(parameter).copied().unwrap_or(0) as usize;
            let size = bytes.next_multiple_of(4) as usize;
            let mut block = arguments.get(start..).unwrap_or_default().to_vec();
            block.resize(size, 0);
            // SAFETY: the block is the layout's push-constant range, compute stage.
            unsafe {
                self.core.device.cmd_push_constants(self.cb, app.layout, vk::ShaderStageFlags::COMPUTE, 0, &block)
            };
        }
        if app.descriptors.is_empty() {
            return Ok(());
        }
        let limits = &self.core.props.limits;
        let mut infos = Vec::with_capacity(app.descriptors.len());
        let mut images = Vec::new();
        let image = |sampler, image_view, image_layout| vk::DescriptorImageInfo { sampler, image_view, image_layout };
        for (i, (source, _)) in app.descriptors.iter().enumerate() {
            // (binding, buffer, offset, size) of each buffer descriptor, an array's in order.
            let mut buffer = |(buffer, offset, size): (vk::Buffer, u64, u64)| infos.push((i, buffer, offset, size));
            match *source {
                Source::Root(parameter) => match root.uav_buffers.get(parameter).copied() {
                    Some(Some((b, offset))) => buffer((b, offset, root.room(parameter))),
                    _ => return Err(fail(format!("Dispatch: root parameter {parameter} (binding {i}) is not set"))),
                },
                Source::Constants(parameter) => match spilled.iter().find(|(p, _)| *p == parameter) {
                    Some((_, b)) => buffer(*b),
                    None => {
                        return Err(fail(format!("Dispatch: root parameter {parameter}'s constants were not uploaded")))
                    }
                },
                Source::Watchdog(b) => buffer((b, 0, 8)),
                Source::Static(sampler) => {
                    images.push((i, image(sampler, vk::ImageView::null(), vk::ImageLayout::UNDEFINED)))
                }
                Source::Table(parameter, at, count) => {
                    for e in 0..count {
                        let at = at + u64::from(e);
                        match root.tables.iter().find(|(k, _)| *k == (parameter, at)) {
                            Some((_, TableDescriptor::Buffer(b, offset, size))) => buffer((*b, *offset, *size)),
                            Some((_, TableDescriptor::Image(view))) => {
                                images.push((i, image(vk::Sampler::null(), *view, vk::ImageLayout::GENERAL)))
                            }
                            Some((_, TableDescriptor::Sampler(sampler))) => {
                                images.push((i, image(*sampler, vk::ImageView::null(), vk::ImageLayout::UNDEFINED)))
                            }
                            None => {
                                return Err(fail(format!(
                                "Dispatch: descriptor {at} of table parameter {parameter} (binding {i}) holds no view"
                            )))
                            }
                        }
                    }
                }
            }
        }
        let mut buffers = Vec::with_capacity(infos.len());
        for &(i, buffer, offset, size) in &infos {
            let (source, ty) = &app.descriptors[i];
            let (align, limit) = if *ty == vk::DescriptorType::UNIFORM_BUFFER {
                (limits.min_uniform_buffer_offset_alignment, u64::from(limits.max_uniform_buffer_range))
            } else {
                (limits.min_storage_buffer_offset_alignment, vk::WHOLE_SIZE)
            };
            if offset % align.max(1) != 0 {
                return Err(fail(format!(
                    "Dispatch: binding {i}'s buffer offset {offset} is not a multiple of this device's {align}"
                )));
            }
            // A root descriptor reaches its buffer's end; a table's view has its own size.
            let range = match (*source, limit) {
                (Source::Root(_), vk::WHOLE_SIZE) => vk::WHOLE_SIZE,
                _ => size.min(limit).max(1),
            };
            buffers.push(vk::DescriptorBufferInfo { buffer, offset, range });
        }
        // One write a binding, an array's elements together: lavapipe 22.3 ignores
        // `dstArrayElement` in pushed writes (each landed on element 0).
        let write =
            |i: usize| vk::WriteDescriptorSet::default().dst_binding(i as u32).descriptor_type(app.descriptors[i].1);
        let mut writes = Vec::with_capacity(app.descriptors.len());
        let mut at = 0;
        for run in infos.chunk_by(|a, b| a.0 == b.0) {
            writes.push(write(run[0].0).buffer_info(&buffers[at..at + run.len()]));
            at += run.len();
        }
        let (bindings, image_infos): (Vec<usize>, Vec<vk::DescriptorImageInfo>) = images.into_iter().unzip();
        let mut at = 0;
        for run in bindings.chunk_by(|a, b| a == b) {
            writes.push(write(run[0]).image_info(&image_infos[at..at + run.len()]));
            at += run.len();
        }
        let push = self.core.push_descriptor.as_ref().filter(|_| app.pushed);
        if let Some(push) = push {
            // SAFETY: the buffers and image views are live and kept by this list (a view lives as
            // long as its image); the writes match the set layout.
            unsafe { push.cmd_push_descriptor_set(self.cb, vk::PipelineBindPoint::COMPUTE, app.layout, 0, &writes) };
            return Ok(());
        }
        let sets = match &mut self.sets {
            Some(sets) => sets,
            none => none.insert(super::descriptor_sets::SetPools::new(&self.core)),
        };
        let set = sets.allocate(app.set_layout, &app.pool_sizes)?;
        let writes: Vec<vk::WriteDescriptorSet> = writes.into_iter().map(|w| w.dst_set(set)).collect();
        // SAFETY: a new set of this list's pools, not yet bound; the writes match its layout and
        // name live objects the list keeps.
        unsafe {
            self.core.device.update_descriptor_sets(&writes, &[]);
            self.core.device.cmd_bind_descriptor_sets(
                self.cb,
                vk::PipelineBindPoint::COMPUTE,
                app.layout,
                0,
                &[set],
                &[],
            );
        }
        Ok(())
    }
}

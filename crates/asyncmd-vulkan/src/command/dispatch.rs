//! Dispatches of the app's compute pipelines. Where transfers beat compute shaders (CPU
//! devices: lavapipe's shaders store several times slower than its copies), the built-in fill
//! shader's dispatch is done by transfer commands, which write the same bytes.

use super::{fail, VkCommandList};
use ash::vk;
use asyncmd_ddi::ShaderId;
use asyncmd_types::{ClearElement, Result};

impl VkCommandList {
    pub(crate) fn dispatch(&mut self, x: u32, y: u32, z: u32) -> Result<()> {
        self.end_lazy_rendering();
        let pipeline = self.gfx.pipeline.clone().ok_or_else(|| fail("Dispatch: no pipeline".into()))?;
        if !pipeline.compute {
            return Err(fail("Dispatch: a graphics pipeline is bound".into()));
        }
        // Predication reaches dispatches, not transfers.
        if pipeline.cs == Some(ShaderId::FillCs) && !self.core.compute_copies() && !self.is_predicated() {
            let arguments = self.gfx.compute.arguments(&pipeline, "Dispatch")?.into_owned();
            return self.fill_shader_by_transfer(&arguments, x as u64 * y as u64 * z as u64);
        }
        let arguments = self.gfx.compute.arguments(&pipeline, "Dispatch")?;
        let d = &self.core.device;
        // SAFETY: a live compute pipeline outside any rendering instance.
        unsafe { d.cmd_bind_pipeline(self.cb, vk::PipelineBindPoint::COMPUTE, pipeline.pipeline) };
        self.push(&arguments, &pipeline.root, true);
        // SAFETY: as above.
        unsafe { d.cmd_dispatch(self.cb, x, y, z) };
        Ok(())
    }

    /// What the fill shader writes with `arguments` (bounded by `Root::arguments`), written by
    /// transfers between barriers that keep the dispatch's compute scope: the work before it
    /// reached the compute stage, the work after it waits for the compute stage.
    fn fill_shader_by_transfer(&mut self, arguments: &[u8], groups: u64) -> Result<()> {
        let dword =
            |i: usize| arguments.get(4 * i..4 * i + 4).map_or(0, |d| u32::from_le_bytes([d[0], d[1], d[2], d[3]]));
        let (length, count) = (dword(4) as usize, dword(5) as u64);
        let Some(Some((buffer, offset))) = self.gfx.compute.uav_buffers.get(1).copied() else { return Ok(()) };
        if groups == 0 || count == 0 {
            return Ok(());
        }
        let pattern: Vec<u8> = (0..length).flat_map(|i| dword(i).to_le_bytes()).collect();
        let Some(pattern) = ClearElement::from_bytes(&pattern) else { return Ok(()) };
        let (compute, transfer) = (vk::PipelineStageFlags2::COMPUTE_SHADER, vk::PipelineStageFlags2::ALL_TRANSFER);
        let storage = vk::AccessFlags2::SHADER_STORAGE_READ | vk::AccessFlags2::SHADER_STORAGE_WRITE;
        let copies = vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE;
        self.memory_barrier(compute, storage, transfer, copies);
        self.fill_by_transfer(buffer, offset, &pattern, count * 4)?;
        self.memory_barrier(transfer, vk::AccessFlags2::TRANSFER_WRITE, compute, storage);
        Ok(())
    }
}

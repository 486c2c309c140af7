//! Dispatches of compute pipelines. The device runs every dispatch as recorded: where its
//! transfers beat its shaders it says so (`Capabilities::compute_fills_win`), and the
//! runtime's fallback fills by copies there.

use super::{fail, VkCommandList};
use ash::vk;
use asyncmd_types::Result;

impl VkCommandList {
    pub(crate) fn dispatch(&mut self, x: u32, y: u32, z: u32) -> Result<()> {
        self.end_lazy_rendering();
        let pipeline = self.gfx.pipeline.clone().ok_or_else(|| fail("Dispatch: no pipeline".into()))?;
        if !pipeline.compute {
            return Err(fail("Dispatch: a graphics pipeline is bound".into()));
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
}

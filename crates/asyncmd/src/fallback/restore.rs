//! The app's graphics and compute state set again after the fallback's own draws and
//! dispatches, from the list's shadow.

use super::lowering::Lowering;
use crate::shadow::RootArg;
use asyncmd_ddi::Command;

impl Lowering<'_> {
    /// Sets the app's graphics state again after the runtime's draws: root signature and
    /// arguments, pipeline, viewports, scissors, topology and (when the draws changed it) the
    /// stencil reference. State the app never set is set to its empty value.
    pub(crate) fn restore_graphics_state(&mut self, stencil_ref: bool) {
        // Recording reads no shadow: move it out for the replay rather than copy it.
        let s = std::mem::take(self.shadow);
        if let Some(root) = &s.graphics_root {
            self.record(Command::SetGraphicsRootSignature(root.id()));
            self.replay_root_args(&s.graphics_args, false);
        }
        if let Some(p) = &s.pipeline {
            self.record(Command::SetPipelineState(p.0.id));
        }
        self.record(Command::SetViewports(s.viewports.clone().unwrap_or_default()));
        self.record(Command::SetScissorRects(s.scissors.clone().unwrap_or_default()));
        self.record(Command::SetPrimitiveTopology(s.topology.unwrap_or_default()));
        if stencil_ref {
            self.record(Command::SetStencilRef(s.stencil_ref.unwrap_or(0)));
        }
        *self.shadow = s;
    }

    /// Binds the app's render targets and depth-stencil view again (outside render passes)
    /// after the runtime drew into targets of its own.
    pub(crate) fn restore_render_targets(&mut self) {
        let rtvs = self.shadow.rtvs.iter().flatten().map(|c| c.view).collect();
        let dsv = self.shadow.dsv.as_ref().map(|c| c.view);
        self.record(Command::SetRenderTargets { rtvs, dsv });
    }

    /// Rebinds the app's compute root signature, root arguments and pipeline after the
    /// runtime's dispatches.
    pub(crate) fn restore_compute_state(&mut self) {
        let s = std::mem::take(self.shadow);
        if let Some(sig) = &s.compute_root {
            self.record(Command::SetComputeRootSignature(sig.id()));
            self.replay_root_args(&s.compute_args, true);
        }
        if let Some(p) = &s.pipeline {
            self.record(Command::SetPipelineState(p.0.id));
        }
        *self.shadow = s;
    }

    /// Records the root arguments the app set, graphics or compute.
    fn replay_root_args(&mut self, args: &[RootArg], compute: bool) {
        for (parameter, arg) in args.iter().enumerate() {
            let parameter = parameter as u32;
            let c = match arg.clone() {
                // Tables are read at each draw or dispatch (`SetTableBuffers`): nothing to set again.
                RootArg::Unset | RootArg::Table(_) => continue,
                RootArg::Constants(values) if compute => {
                    Command::SetComputeRootConstants { parameter, offset: 0, values }
                }
                RootArg::Constants(values) => Command::SetGraphicsRootConstants { parameter, offset: 0, values },
                RootArg::Uav(address) if compute => Command::SetComputeRootUav { parameter, address },
                RootArg::Uav(address) => Command::SetGraphicsRootUav { parameter, address },
                RootArg::View(address) if compute => Command::SetComputeRootView { parameter, address },
                RootArg::View(address) => Command::SetGraphicsRootView { parameter, address },
            };
            self.record(c);
        }
    }
}

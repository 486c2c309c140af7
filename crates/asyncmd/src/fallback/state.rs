//! Graphics and compute state as the app set it (the shadow), the summary a bundle adds to it,
//! and its restore after the fallback's own draws and dispatches.

use super::lowering::Lowering;
use crate::descriptor::{CapturedDsv, CapturedRtv};
use crate::objects::{PipelineState, RootSignature};
use asyncmd_ddi::Command;

/// One root argument as the app set it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum RootArg {
    /// Not set since the root signature was.
    #[default]
    Unset,
    /// 32-bit constants (the dwords set so far, from the parameter's start).
    Constants(Vec<u32>),
    /// A root UAV.
    Uav(asyncmd_ddi::GpuAddress),
}

impl RootArg {
    /// Writes root constants into the arguments of `parameter` (the dwords set so far stay).
    pub(crate) fn set_constants(args: &mut [RootArg], parameter: u32, offset: u32, values: &[u32]) {
        if let Some(arg) = args.get_mut(parameter as usize) {
            let mut dwords = match std::mem::take(arg) {
                RootArg::Constants(v) => v,
                _ => Vec::new(),
            };
            let end = offset as usize + values.len();
            if dwords.len() < end {
                dwords.resize(end, 0);
            }
            dwords[offset as usize..end].copy_from_slice(values);
            *arg = RootArg::Constants(dwords);
        }
    }
}

/// Graphics state as the app set it (recorded once a call is forwarded on a healthy list):
/// what the fallback restores after its own work, and the targets bound clears write.
/// `None` is "not set by this list".
#[derive(Clone, Default)]
pub(crate) struct Shadow {
    pub(crate) pipeline: Option<PipelineState>,
    pub(crate) graphics_root: Option<RootSignature>,
    pub(crate) compute_root: Option<RootSignature>,
    /// Graphics root arguments, by parameter of the graphics root signature.
    pub(crate) graphics_args: Vec<RootArg>,
    /// Compute root arguments, by parameter.
    pub(crate) compute_args: Vec<RootArg>,
    /// Render targets by slot: `OMSetRenderTargets` slots, or inside a pass the targets it binds.
    pub(crate) rtvs: Vec<Option<CapturedRtv>>,
    pub(crate) dsv: Option<CapturedDsv>,
    /// Inside a pass: whether the depth and the stencil plane are bound (beginning access other
    /// than no-access).
    pub(crate) dsv_planes: (bool, bool),
    pub(crate) viewports: Option<Vec<asyncmd_types::Viewport>>,
    pub(crate) scissors: Option<Vec<asyncmd_types::Rect>>,
    pub(crate) topology: Option<asyncmd_ddi::PrimitiveTopology>,
    pub(crate) blend_factor: Option<[f32; 4]>,
    pub(crate) stencil_ref: Option<u32>,
}

impl Shadow {
    /// Bytes the shadow holds on the heap (what a copy of it costs to keep).
    pub(crate) fn heap_bytes(&self) -> usize {
        let args = |a: &Vec<RootArg>| {
            a.capacity() * std::mem::size_of::<RootArg>()
                + a.iter()
                    .map(|r| match r {
                        RootArg::Constants(v) => v.capacity() * 4,
                        _ => 0,
                    })
                    .sum::<usize>()
        };
        args(&self.graphics_args)
            + args(&self.compute_args)
            + self.rtvs.capacity() * std::mem::size_of::<Option<CapturedRtv>>()
            + self.viewports.as_ref().map_or(0, |v| v.capacity() * std::mem::size_of::<asyncmd_types::Viewport>())
            + self.scissors.as_ref().map_or(0, |v| v.capacity() * std::mem::size_of::<asyncmd_types::Rect>())
    }

    /// Applies what a bundle set (its own shadow) to the state of the list that executes it:
    /// the runtime's summary of the bundle's state changes.
    pub(crate) fn absorb_bundle(&mut self, bundle: &Shadow) {
        if bundle.pipeline.is_some() {
            self.pipeline = bundle.pipeline.clone();
        }
        if bundle.graphics_root.is_some() {
            self.graphics_root = bundle.graphics_root.clone();
            self.graphics_args = bundle.graphics_args.clone();
        }
        if bundle.compute_root.is_some() {
            self.compute_root = bundle.compute_root.clone();
            self.compute_args = bundle.compute_args.clone();
        }
        self.topology = bundle.topology.or(self.topology);
        self.blend_factor = bundle.blend_factor.or(self.blend_factor);
        self.stencil_ref = bundle.stencil_ref.or(self.stencil_ref);
    }
}

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
                RootArg::Unset => continue,
                RootArg::Constants(values) if compute => {
                    Command::SetComputeRootConstants { parameter, offset: 0, values }
                }
                RootArg::Constants(values) => Command::SetGraphicsRootConstants { parameter, offset: 0, values },
                RootArg::Uav(address) if compute => Command::SetComputeRootUav { parameter, address },
                RootArg::Uav(address) => Command::SetGraphicsRootUav { parameter, address },
            };
            self.record(c);
        }
    }
}

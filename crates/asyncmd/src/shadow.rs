//! Graphics and compute state as the app set it on a list (the shadow), and the summary a
//! bundle adds to it. The list writes it as it records; legacy semantics' get-calls read it, and
//! the fallback restores it after its own draws and dispatches (`fallback/restore.rs`).

use crate::descriptor::{CapturedDsv, CapturedRtv};
use crate::objects::{PipelineState, RootSignature};

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
    /// A root CBV or SRV (the parameter says which).
    View(asyncmd_ddi::GpuAddress),
    /// A descriptor table's start (read at each draw or dispatch).
    Table(crate::descriptor::GpuDescriptorHandle),
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
    /// The shader-visible heaps `SetDescriptorHeaps` set.
    pub(crate) descriptor_heaps: Vec<crate::descriptor::DescriptorHeap>,
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
    /// `SetPredication` with a buffer is in force (read by the fill planner, not restored).
    pub(crate) predicated: bool,
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
        if let Some(root) = &bundle.compute_root {
            // A bundle that set the executing list's own root signature leaves the arguments it
            // did not set as they were (D3D12: they do not become stale); another root signature
            // replaces them all.
            let same = self.compute_root.as_ref().is_some_and(|r| r.id() == root.id());
            if same {
                for (mine, theirs) in self.compute_args.iter_mut().zip(&bundle.compute_args) {
                    if !matches!(theirs, RootArg::Unset) {
                        *mine = theirs.clone();
                    }
                }
            } else {
                self.compute_args = bundle.compute_args.clone();
            }
            self.compute_root = Some(root.clone());
        }
        self.topology = bundle.topology.or(self.topology);
        self.blend_factor = bundle.blend_factor.or(self.blend_factor);
        self.stencil_ref = bundle.stencil_ref.or(self.stencil_ref);
    }
}

//! Commands a bundle cannot finish recording because they depend on what the list that executes
//! it binds: bound clears under the fallback (what they clear is the executing list's targets)
//! and dispatches whose kernel reads root arguments the bundle inherits (D3D12's bundles inherit
//! the root signature and arguments; the tables they read and the checks of each dispatch are
//! the executing list's). The bundle's driver recording is cut at each one; the command is kept
//! with the bundle's state summary at that point, and `ExecuteBundle` runs the pieces in order,
//! recording each kept command in the executing list as if it had been recorded there.

use super::CommandRecorder;
use crate::shadow::Shadow;
use asyncmd_ddi::{Command, Executable};
use asyncmd_types::{
    AsyncCommandsImpl, Box3, ClearData, ClearFlags, CommandListType, SIMULTANEOUS_RENDER_TARGET_COUNT,
};

/// A bound clear as a bundle recorded it, validated but unlowered.
#[derive(Clone, Debug)]
pub(crate) enum BundledClear {
    /// `ClearBoundRenderTargetViews`: the mask, a value per slot, and the region lists
    /// (`None`: every selected view whole).
    Rtv {
        mask: u32,
        values: Box<[ClearData; SIMULTANEOUS_RENDER_TARGET_COUNT]>,
        regions: Option<Vec<Option<Vec<Box3>>>>,
    },
    /// `ClearBoundDepthStencilView`.
    Dsv { flags: ClearFlags, depth: f32, stencil: u8, regions: Option<Vec<Box3>> },
    /// `Dispatch` of a kernel that reads inherited root arguments.
    Dispatch { x: u32, y: u32, z: u32 },
    /// `ExecuteIndirect` of such a kernel (in a bundle: no count buffer, dispatches only).
    ExecuteIndirect {
        signature: super::indirect::CommandSignature,
        max_count: u32,
        arguments: crate::Resource,
        offset: u64,
    },
}

/// What a bound clear recorded natively in a bundle selects: render-target slots (the mask),
/// or the depth-stencil view. The driver clears what the executing list binds; the runtime
/// reports what it does not bind, as for a clear recorded in that list.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Selected {
    Rtvs(u32),
    Dsv,
}

/// The part of a bundle before one of its bound clears.
pub(crate) struct BundlePiece {
    /// The driver's bundle of the commands since the previous clear.
    before: Executable,
    /// The bundle's state summary at the clear (what it set so far).
    state: Shadow,
    clear: BundledClear,
}

/// What a bundle keeps for the bound clears the fallback lowers when it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BundleClearFootprint {
    /// Bound clears kept unlowered: the driver recording is cut into one more piece each.
    pub deferred_clears: usize,
    /// Bytes kept for them on the host: each clear with the bundle's state summary at it.
    pub bytes: usize,
}

impl BundledClear {
    fn heap_bytes(&self) -> usize {
        match self {
            BundledClear::Rtv { values, regions, .. } => {
                std::mem::size_of_val(&**values)
                    + regions.as_ref().map_or(0, |r| {
                        r.capacity() * std::mem::size_of::<Option<Vec<Box3>>>()
                            + r.iter().flatten().map(|b| b.capacity() * std::mem::size_of::<Box3>()).sum::<usize>()
                    })
            }
            BundledClear::Dsv { regions, .. } => {
                regions.as_ref().map_or(0, |r| r.capacity() * std::mem::size_of::<Box3>())
            }
            BundledClear::Dispatch { .. } | BundledClear::ExecuteIndirect { .. } => 0,
        }
    }
}

impl CommandRecorder {
    /// What this bundle keeps for bound clears lowered when it runs (under the fallback;
    /// nothing natively, where the driver records them).
    pub fn bundle_clear_footprint(&self) -> BundleClearFootprint {
        let clears = self
            .bundle_pieces
            .iter()
            .filter(|p| !matches!(p.clear, BundledClear::Dispatch { .. } | BundledClear::ExecuteIndirect { .. }));
        let bytes = clears
            .clone()
            .map(|p| std::mem::size_of::<BundlePiece>() + p.state.heap_bytes() + p.clear.heap_bytes())
            .sum();
        BundleClearFootprint { deferred_clears: clears.count(), bytes }
    }

    /// Cuts this bundle's driver recording at `clear`: the commands so far become a driver
    /// bundle of their own, and the next piece starts with the state a driver bundle does
    /// not inherit (pipeline and topology) as this bundle set it.
    pub(super) fn defer_bundled_clear(&mut self, clear: BundledClear) {
        let before = match self.ddi.close() {
            Ok(exe) => exe,
            Err(e) => return self.remove(e),
        };
        self.ddi.reset();
        if let Some(p) = &self.shadow.pipeline {
            self.ddi.record(Command::SetPipelineState(p.0.id));
        }
        if let Some(t) = self.shadow.topology {
            self.ddi.record(Command::SetPrimitiveTopology(t));
        }
        self.bundle_pieces.push(BundlePiece { before, state: self.shadow.clone(), clear });
    }

    /// Notes what a bound clear selects where it is recorded natively in a bundle.
    pub(super) fn note_native_bundle_clear(&mut self, selected: Selected) {
        if self.ty == CommandListType::Bundle && self.device.async_impl == AsyncCommandsImpl::Native {
            self.bundle_selected.push(selected);
        }
    }

    /// Reports the outputs the native bound clears of `bundle` select and this list does not
    /// bind: skipped, as for clears recorded here.
    pub(super) fn report_unbound_in_bundle(&self, bundle: &CommandRecorder) {
        for selected in &bundle.bundle_selected {
            match *selected {
                Selected::Rtvs(mask) => {
                    for slot in (0..SIMULTANEOUS_RENDER_TARGET_COUNT).filter(|&s| mask & (1 << s) != 0) {
                        if self.shadow.rtvs.get(slot).is_none_or(|c| c.is_none()) {
                            self.report_unbound_rtv(slot);
                        }
                    }
                }
                Selected::Dsv if self.shadow.dsv.is_none() => self.report_unbound_dsv(),
                Selected::Dsv => {}
            }
        }
    }

    /// Runs the pieces of `bundle` before its last driver bundle: each piece's commands, then
    /// its clear lowered here against this list's bindings. Stops where the list is removed.
    pub(super) fn execute_bundle_pieces(&mut self, bundle: &CommandRecorder) {
        for piece in &bundle.bundle_pieces {
            if !self.is_recording() {
                return;
            }
            self.shadow.absorb_bundle(&piece.state);
            self.record(Command::ExecuteBundle(piece.before.clone()));
            match &piece.clear {
                BundledClear::Rtv { mask, values, regions } => {
                    let lists: Option<Vec<Option<&[Box3]>>> =
                        regions.as_ref().map(|r| r.iter().map(|b| b.as_deref()).collect());
                    self.clear_bound_render_target_views(*mask, &values[..], lists.as_deref());
                }
                BundledClear::Dsv { flags, depth, stencil, regions } => {
                    self.clear_bound_depth_stencil_view(*flags, *depth, *stencil, regions.as_deref())
                }
                BundledClear::Dispatch { x, y, z } => self.dispatch(*x, *y, *z),
                BundledClear::ExecuteIndirect { signature, max_count, arguments, offset } => {
                    self.execute_indirect(signature, *max_count, arguments, *offset, None)
                }
            }
        }
    }
}

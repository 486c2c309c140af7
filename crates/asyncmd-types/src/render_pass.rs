//! Render-pass descriptions (`D3D12_RENDER_PASS_*`), generic over the view handle `V` and
//! the resource handle `R`.

use crate::{ClearData, Format};

/// What a pass does with a target when it begins (`D3D12_RENDER_PASS_BEGINNING_ACCESS`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BeginningAccess {
    /// Contents may be discarded.
    Discard,
    /// Contents are kept.
    Preserve,
    /// Cleared to the value (colour: floats; depth: `floats[0]`, stencil: `uints[1]`).
    Clear(ClearData),
    /// Not accessed: not bound.
    NoAccess,
    /// Kept from the previous pass in local memory.
    PreserveLocalRender,
    /// Kept for shader-resource access: not bound.
    PreserveLocalSrv,
    /// Kept for unordered access: not bound.
    PreserveLocalUav,
}

impl BeginningAccess {
    /// Whether a target with this beginning access is bound for drawing.
    pub fn binds(&self) -> bool {
        !matches!(
            self,
            BeginningAccess::NoAccess | BeginningAccess::PreserveLocalSrv | BeginningAccess::PreserveLocalUav
        )
    }
}

/// What a pass does with a target when it ends (`D3D12_RENDER_PASS_ENDING_ACCESS`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EndingAccess<R> {
    /// Contents may be discarded.
    Discard,
    /// Contents are written back.
    Preserve,
    /// Resolved into another resource's subresource.
    Resolve {
        /// Destination resource of the resolve.
        dest: R,
        /// Destination subresource.
        dest_subresource: u32,
        /// Format of the resolve.
        format: Format,
        /// Resolve mode.
        mode: crate::ResolveMode,
        /// Whether the source is kept too.
        preserve_source: bool,
    },
    /// Not accessed.
    NoAccess,
    /// Kept in local memory for the next pass.
    PreserveLocalRender,
    /// Kept for shader-resource access.
    PreserveLocalSrv,
    /// Kept for unordered access.
    PreserveLocalUav,
}

impl<R> EndingAccess<R> {
    /// The same access with the resolve destination mapped through `f`.
    pub fn map<S>(&self, f: impl FnOnce(&R) -> S) -> EndingAccess<S> {
        match self {
            EndingAccess::Discard => EndingAccess::Discard,
            EndingAccess::Preserve => EndingAccess::Preserve,
            EndingAccess::Resolve { dest, dest_subresource, format, mode, preserve_source } => EndingAccess::Resolve {
                dest: f(dest),
                dest_subresource: *dest_subresource,
                format: *format,
                mode: *mode,
                preserve_source: *preserve_source,
            },
            EndingAccess::NoAccess => EndingAccess::NoAccess,
            EndingAccess::PreserveLocalRender => EndingAccess::PreserveLocalRender,
            EndingAccess::PreserveLocalSrv => EndingAccess::PreserveLocalSrv,
            EndingAccess::PreserveLocalUav => EndingAccess::PreserveLocalUav,
        }
    }
}

/// One render target of a pass (`D3D12_RENDER_PASS_RENDER_TARGET_DESC`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderPassRenderTarget<V, R> {
    /// The render-target view.
    pub view: V,
    /// Beginning access.
    pub beginning: BeginningAccess,
    /// Ending access.
    pub ending: EndingAccess<R>,
}

/// The depth-stencil target of a pass (`D3D12_RENDER_PASS_DEPTH_STENCIL_DESC`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderPassDepthStencil<V, R> {
    /// The depth-stencil view.
    pub view: V,
    /// Depth beginning access.
    pub depth_beginning: BeginningAccess,
    /// Stencil beginning access.
    pub stencil_beginning: BeginningAccess,
    /// Depth ending access.
    pub depth_ending: EndingAccess<R>,
    /// Stencil ending access.
    pub stencil_ending: EndingAccess<R>,
}

bitflags::bitflags! {
    /// `D3D12_RENDER_PASS_FLAGS`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct RenderPassFlags: u32 {
        /// UAV writes are allowed inside the pass.
        const ALLOW_UAV_WRITES = 0x1;
        /// The pass is suspended by its end and resumed later.
        const SUSPENDING_PASS = 0x2;
        /// The pass resumes a suspended one.
        const RESUMING_PASS = 0x4;
        /// The depth plane is bound read-only.
        const BIND_READ_ONLY_DEPTH = 0x8;
        /// The stencil plane is bound read-only.
        const BIND_READ_ONLY_STENCIL = 0x10;
    }
}

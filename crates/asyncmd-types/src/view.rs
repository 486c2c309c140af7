//! Render-target and depth-stencil view descriptions.

use crate::{Format, ResourceDesc, ResourceDimension};

/// Which part of a texture a render-target view selects (`D3D12_RTV_DIMENSION` and its union).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtvDimension {
    /// One mip of a 1D texture.
    Texture1D {
        /// Mip level.
        mip: u32,
    },
    /// Slices of a 1D texture array.
    Texture1DArray {
        /// Mip level.
        mip: u32,
        /// First slice.
        first_slice: u32,
        /// Slice count.
        array_size: u32,
    },
    /// One mip of a 2D texture.
    Texture2D {
        /// Mip level.
        mip: u32,
        /// Plane.
        plane: u32,
    },
    /// Slices of a 2D texture array.
    Texture2DArray {
        /// Mip level.
        mip: u32,
        /// First slice.
        first_slice: u32,
        /// Slice count.
        array_size: u32,
        /// Plane.
        plane: u32,
    },
    /// A multisampled 2D texture.
    Texture2DMs,
    /// Slices of a multisampled 2D texture array.
    Texture2DMsArray {
        /// First slice.
        first_slice: u32,
        /// Slice count.
        array_size: u32,
    },
    /// Depth slices of one mip of a 3D texture.
    Texture3D {
        /// Mip level.
        mip: u32,
        /// First depth slice.
        first_w: u32,
        /// Depth slice count.
        w_size: u32,
    },
}

/// A render-target view (`D3D12_RENDER_TARGET_VIEW_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderTargetViewDesc {
    /// View format (a typed member of the resource's group).
    pub format: Format,
    /// Selected subresources.
    pub dimension: RtvDimension,
}

bitflags::bitflags! {
    /// `D3D12_DSV_FLAGS`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct DsvFlags: u32 {
        /// Depth is read-only through this view.
        const READ_ONLY_DEPTH = 0x1;
        /// Stencil is read-only through this view.
        const READ_ONLY_STENCIL = 0x2;
    }
}

/// Which part of a texture a depth-stencil view selects (`D3D12_DSV_DIMENSION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DsvDimension {
    /// One mip of a 1D texture.
    Texture1D {
        /// Mip level.
        mip: u32,
    },
    /// Slices of a 1D array.
    Texture1DArray {
        /// Mip level.
        mip: u32,
        /// First slice.
        first_slice: u32,
        /// Slice count.
        array_size: u32,
    },
    /// One mip of a 2D texture.
    Texture2D {
        /// Mip level.
        mip: u32,
    },
    /// Slices of a 2D array.
    Texture2DArray {
        /// Mip level.
        mip: u32,
        /// First slice.
        first_slice: u32,
        /// Slice count.
        array_size: u32,
    },
    /// A multisampled 2D texture.
    Texture2DMs,
    /// Slices of a multisampled 2D array.
    Texture2DMsArray {
        /// First slice.
        first_slice: u32,
        /// Slice count.
        array_size: u32,
    },
}

/// A depth-stencil view (`D3D12_DEPTH_STENCIL_VIEW_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthStencilViewDesc {
    /// View format (a depth format).
    pub format: Format,
    /// Read-only planes.
    pub flags: DsvFlags,
    /// Selected subresources.
    pub dimension: DsvDimension,
}

/// The subresources a view selects, resolved against its resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewRange {
    /// Mip level.
    pub mip: u32,
    /// First array slice (first depth slice for 3D).
    pub first_slice: u32,
    /// Number of slices.
    pub slices: u32,
    /// Plane (0 for colour; depth-stencil views cover their planes by format).
    pub plane: u32,
}

impl RenderTargetViewDesc {
    /// The same view narrowed to `count` array (or depth) slices from its slice `first`.
    /// Single-slice dimensions are returned unchanged.
    pub fn narrowed(self, first: u32, count: u32) -> Self {
        let dimension = match self.dimension {
            RtvDimension::Texture1DArray { mip, first_slice, .. } => {
                RtvDimension::Texture1DArray { mip, first_slice: first_slice + first, array_size: count }
            }
            RtvDimension::Texture2DArray { mip, first_slice, plane, .. } => {
                RtvDimension::Texture2DArray { mip, first_slice: first_slice + first, array_size: count, plane }
            }
            RtvDimension::Texture2DMsArray { first_slice, .. } => {
                RtvDimension::Texture2DMsArray { first_slice: first_slice + first, array_size: count }
            }
            RtvDimension::Texture3D { mip, first_w, .. } => {
                RtvDimension::Texture3D { mip, first_w: first_w + first, w_size: count }
            }
            other => other,
        };
        Self { dimension, ..self }
    }

    /// The view a null description stands for: the whole mip 0 of `res` in its format.
    pub fn default_for(res: &ResourceDesc) -> Self {
        let dimension = match (res.dimension, res.is_msaa(), res.array_size() > 1) {
            (ResourceDimension::Texture1D, _, false) => RtvDimension::Texture1D { mip: 0 },
            (ResourceDimension::Texture1D, _, true) => {
                RtvDimension::Texture1DArray { mip: 0, first_slice: 0, array_size: res.array_size() }
            }
            (ResourceDimension::Texture3D, _, _) => RtvDimension::Texture3D { mip: 0, first_w: 0, w_size: res.depth() },
            (_, true, false) => RtvDimension::Texture2DMs,
            (_, true, true) => RtvDimension::Texture2DMsArray { first_slice: 0, array_size: res.array_size() },
            (_, false, false) => RtvDimension::Texture2D { mip: 0, plane: 0 },
            (_, false, true) => {
                RtvDimension::Texture2DArray { mip: 0, first_slice: 0, array_size: res.array_size(), plane: 0 }
            }
        };
        Self { format: res.format, dimension }
    }

    /// Resolves the selected range; `None` if it does not fit `res`.
    pub fn range(&self, res: &ResourceDesc) -> Option<ViewRange> {
        let (mip, first, count, plane, need_msaa) = match self.dimension {
            RtvDimension::Texture1D { mip } => (mip, 0, 1, 0, false),
            RtvDimension::Texture1DArray { mip, first_slice, array_size } => (mip, first_slice, array_size, 0, false),
            RtvDimension::Texture2D { mip, plane } => (mip, 0, 1, plane, false),
            RtvDimension::Texture2DArray { mip, first_slice, array_size, plane } => {
                (mip, first_slice, array_size, plane, false)
            }
            RtvDimension::Texture2DMs => (0, 0, 1, 0, true),
            RtvDimension::Texture2DMsArray { first_slice, array_size } => (0, first_slice, array_size, 0, true),
            RtvDimension::Texture3D { mip, first_w, w_size } => {
                if res.dimension != ResourceDimension::Texture3D || mip >= res.mip_count() {
                    return None;
                }
                let depth = res.mip_extent(mip).2;
                let size = if w_size == u32::MAX { depth.checked_sub(first_w)? } else { w_size };
                if size == 0 || first_w.checked_add(size)? > depth {
                    return None;
                }
                return Some(ViewRange { mip, first_slice: first_w, slices: size, plane: 0 });
            }
        };
        let dim_ok = match self.dimension {
            RtvDimension::Texture1D { .. } | RtvDimension::Texture1DArray { .. } => {
                res.dimension == ResourceDimension::Texture1D
            }
            _ => res.dimension == ResourceDimension::Texture2D,
        };
        if !dim_ok || need_msaa != res.is_msaa() || mip >= res.mip_count() || plane >= res.plane_count() {
            return None;
        }
        if count == 0 || first.checked_add(count)? > res.array_size() {
            return None;
        }
        Some(ViewRange { mip, first_slice: first, slices: count, plane })
    }
}

impl DepthStencilViewDesc {
    /// The same view narrowed to `count` array slices from its slice `first`. Single-slice
    /// dimensions are returned unchanged.
    pub fn narrowed(self, first: u32, count: u32) -> Self {
        let dimension = match self.dimension {
            DsvDimension::Texture1DArray { mip, first_slice, .. } => {
                DsvDimension::Texture1DArray { mip, first_slice: first_slice + first, array_size: count }
            }
            DsvDimension::Texture2DArray { mip, first_slice, .. } => {
                DsvDimension::Texture2DArray { mip, first_slice: first_slice + first, array_size: count }
            }
            DsvDimension::Texture2DMsArray { first_slice, .. } => {
                DsvDimension::Texture2DMsArray { first_slice: first_slice + first, array_size: count }
            }
            other => other,
        };
        Self { dimension, ..self }
    }

    /// The view a null description stands for.
    pub fn default_for(res: &ResourceDesc) -> Self {
        let dimension = match (res.dimension, res.is_msaa(), res.array_size() > 1) {
            (ResourceDimension::Texture1D, _, false) => DsvDimension::Texture1D { mip: 0 },
            (ResourceDimension::Texture1D, _, true) => {
                DsvDimension::Texture1DArray { mip: 0, first_slice: 0, array_size: res.array_size() }
            }
            (_, true, false) => DsvDimension::Texture2DMs,
            (_, true, true) => DsvDimension::Texture2DMsArray { first_slice: 0, array_size: res.array_size() },
            (_, false, false) => DsvDimension::Texture2D { mip: 0 },
            (_, false, true) => DsvDimension::Texture2DArray { mip: 0, first_slice: 0, array_size: res.array_size() },
        };
        Self { format: res.format.depth_stencil_member().unwrap_or(res.format), flags: DsvFlags::empty(), dimension }
    }

    /// Resolves the selected range; `None` if it does not fit `res`.
    pub fn range(&self, res: &ResourceDesc) -> Option<ViewRange> {
        let (mip, first, count, need_msaa, one_d) = match self.dimension {
            DsvDimension::Texture1D { mip } => (mip, 0, 1, false, true),
            DsvDimension::Texture1DArray { mip, first_slice, array_size } => {
                (mip, first_slice, array_size, false, true)
            }
            DsvDimension::Texture2D { mip } => (mip, 0, 1, false, false),
            DsvDimension::Texture2DArray { mip, first_slice, array_size } => {
                (mip, first_slice, array_size, false, false)
            }
            DsvDimension::Texture2DMs => (0, 0, 1, true, false),
            DsvDimension::Texture2DMsArray { first_slice, array_size } => (0, first_slice, array_size, true, false),
        };
        let dim = if one_d { ResourceDimension::Texture1D } else { ResourceDimension::Texture2D };
        if res.dimension != dim || need_msaa != res.is_msaa() || mip >= res.mip_count() {
            return None;
        }
        if count == 0 || first.checked_add(count)? > res.array_size() {
            return None;
        }
        Some(ViewRange { mip, first_slice: first, slices: count, plane: 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_narrow_to_slices_of_their_own() {
        let d = RenderTargetViewDesc {
            format: Format::R8G8B8A8Unorm,
            dimension: RtvDimension::Texture2DArray { mip: 1, first_slice: 2, array_size: 4, plane: 0 },
        };
        assert_eq!(
            d.narrowed(1, 2).dimension,
            RtvDimension::Texture2DArray { mip: 1, first_slice: 3, array_size: 2, plane: 0 }
        );
        let three_d = RenderTargetViewDesc {
            format: Format::R8G8B8A8Unorm,
            dimension: RtvDimension::Texture3D { mip: 0, first_w: 1, w_size: 6 },
        };
        assert_eq!(three_d.narrowed(2, 1).dimension, RtvDimension::Texture3D { mip: 0, first_w: 3, w_size: 1 });
        let single =
            RenderTargetViewDesc { format: Format::R8Unorm, dimension: RtvDimension::Texture2D { mip: 0, plane: 0 } };
        assert_eq!(single.narrowed(0, 1), single);
        let ds = DepthStencilViewDesc {
            format: Format::D32Float,
            flags: DsvFlags::empty(),
            dimension: DsvDimension::Texture2DMsArray { first_slice: 0, array_size: 3 },
        };
        assert_eq!(ds.narrowed(2, 1).dimension, DsvDimension::Texture2DMsArray { first_slice: 2, array_size: 1 });
    }
}

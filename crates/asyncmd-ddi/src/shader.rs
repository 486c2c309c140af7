//! The runtime's own shaders, named by id; each device supplies their implementation.
//!
//! Their interface is fixed here so that every device agrees on it.
//!
//! **Clear shaders** (graphics). Root parameter 0 holds [`CLEAR_CONSTANT_COUNT`] 32-bit constants:
//! dwords 0–3 the clear value (floats, uints or sints by the pixel shader's output class),
//! dword 4 the depth (f32 bits), dword 5 the render-target array index. [`ShaderId::ClearVs`]
//! emits, from `SV_VertexID` 0, 1, 2, the triangle (-1, -1), (-1, 3), (3, -1) in clip space with
//! z = depth and w = 1, covering the whole viewport, and writes `SV_RenderTargetArrayIndex` from
//! dword 5. The colour pixel shaders write dwords 0–3 to every bound render target; the
//! depth pixel shader writes dword 4 to `SV_Depth` and no colour.
//!
//! **Fill shader** (compute, [`FILL_THREADS_PER_GROUP`] threads per group in x). Root parameter 0 holds
//! [`FILL_CONSTANT_COUNT`] constants: dwords 0–3 the pattern, dword 4 the pattern length in dwords
//! (1–4), dword 5 the number of dwords to write. Root parameter 1 is a root UAV: the destination
//! address. Dword `i` gets pattern dword `i mod length`, for every `i` below the count, whatever
//! the grid: its threads take the dwords grid-stride, so a dispatch of any size writes them all
//! and the runtime sizes it for speed ([`fill_groups`]). Whatever the constants, it writes no byte outside
//! the resource the root UAV names: a device takes the length clamped to 1–4 and the count
//! clamped to the whole dwords left in that buffer past the address (none for a texture, an
//! address past the end, or no root UAV set), as a GPU with bounds-checked raw buffers would.
//!
//! A pipeline of built-in shaders needs a root signature that gives them this interface
//! ([`ShaderId::fits_root`]); parameters after the ones named here are allowed.

use asyncmd_types::RootParameter;

/// A built-in shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderId {
    /// Full-viewport triangle vertex shader of the clear draws.
    ClearVs,
    /// Pixel shader writing a float value.
    ClearPsFloat,
    /// Pixel shader writing a uint value.
    ClearPsUint,
    /// Pixel shader writing a sint value.
    ClearPsSint,
    /// Pixel shader writing depth.
    ClearPsDepth,
    /// Compute shader filling a buffer with a repeating dword pattern.
    FillCs,
}

impl ShaderId {
    /// Whether this is a compute shader.
    pub fn is_compute(self) -> bool {
        matches!(self, ShaderId::FillCs)
    }

    /// Whether this is a vertex shader.
    pub fn is_vertex(self) -> bool {
        matches!(self, ShaderId::ClearVs)
    }

    /// Whether this is a pixel shader.
    pub fn is_pixel(self) -> bool {
        !self.is_compute() && !self.is_vertex()
    }

    /// Whether a root signature of `parameters` gives this shader the interface the module
    /// documentation fixes: where the shader reads its constants and its destination address.
    pub fn fits_root(self, parameters: &[RootParameter]) -> bool {
        let constants = |n| matches!(parameters.first(), Some(RootParameter::Constants { count, .. }) if *count == n);
        match self {
            ShaderId::FillCs => {
                constants(FILL_CONSTANT_COUNT) && matches!(parameters.get(1), Some(RootParameter::Uav(..)))
            }
            _ => constants(CLEAR_CONSTANT_COUNT),
        }
    }
}

/// Root constants of the clear shaders.
pub const CLEAR_CONSTANT_COUNT: u32 = 6;
/// Root constants of the fill shader.
pub const FILL_CONSTANT_COUNT: u32 = 6;
/// Threads per group of the fill shader.
pub const FILL_THREADS_PER_GROUP: u32 = 256;

/// Thread groups (x, y) of a fill dispatch of `dwords` dwords: a group per 256 threads of 8
/// quads (16-byte stores) each, so that a thread does enough stores to pay for its start on CPU
/// devices (where each group is a task), while large fills still spread over every core of a
/// GPU; at most 65535 groups a dimension.
pub fn fill_groups(dwords: u32) -> (u32, u32) {
    let quads = dwords.div_ceil(4);
    let groups = quads.div_ceil(FILL_THREADS_PER_GROUP * FILL_QUADS_PER_THREAD).max(1);
    let x = groups.min(65535);
    (x, groups.div_ceil(x))
}

/// Quads of the fill that [`fill_groups`] gives each thread.
const FILL_QUADS_PER_THREAD: u32 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_grids_give_each_thread_its_quads_within_the_dimension_limit() {
        let per_group = 4 * FILL_THREADS_PER_GROUP * FILL_QUADS_PER_THREAD;
        assert_eq!(fill_groups(0), (1, 1));
        assert_eq!(fill_groups(per_group), (1, 1));
        assert_eq!(fill_groups(per_group + 1), (2, 1));
        let (x, y) = fill_groups(u32::MAX);
        assert!(x <= 65535 && y <= 65535 && x as u64 * y as u64 * per_group as u64 >= u32::MAX as u64);
    }
}

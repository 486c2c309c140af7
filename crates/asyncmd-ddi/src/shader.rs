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
//! address. Thread `i` (its index in the whole grid, x fastest) writes dword `i` with pattern
//! dword `i mod length`, for `i` below the count. Whatever the constants, it writes no byte outside
//! the resource the root UAV names: a device takes the length clamped to 1–4 and the count
//! clamped to the whole dwords left in that buffer past the address (none for a texture, an
//! address past the end, or no root UAV set), as a GPU with bounds-checked raw buffers would.
//!
//! A pipeline of built-in shaders needs a root signature that gives them this interface
//! ([`ShaderId::fits_root`]); parameters after the ones named here are allowed.

use crate::pipeline::RootParameter;

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
                constants(FILL_CONSTANT_COUNT) && matches!(parameters.get(1), Some(RootParameter::Uav { .. }))
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

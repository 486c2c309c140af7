//! `D3D12_CLEAR_DATA` and the clear flags.

use bytemuck::{Pod, Zeroable};

/// 16 bytes of clear value, viewed as four floats, four uints, four sints or sixteen bytes
/// (`D3D12_CLEAR_DATA`). Depth is `floats()[0]` and stencil `uints()[1]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct ClearData {
    /// The raw bytes, in little-endian order of the 32-bit views.
    pub bytes: [u8; 16],
}

impl ClearData {
    /// A value given as four floats.
    pub fn from_floats(v: [f32; 4]) -> Self {
        Self::from_uints(v.map(f32::to_bits))
    }

    /// A value given as four unsigned integers.
    pub fn from_uints(v: [u32; 4]) -> Self {
        let mut bytes = [0u8; 16];
        for (i, x) in v.iter().enumerate() {
            bytes[i * 4..i * 4 + 4].copy_from_slice(&x.to_le_bytes());
        }
        Self { bytes }
    }

    /// A value given as four signed integers.
    pub fn from_sints(v: [i32; 4]) -> Self {
        Self::from_uints(v.map(|x| x as u32))
    }

    /// A depth-stencil value: depth in `floats[0]`, stencil in `uints[1]`.
    pub fn from_depth_stencil(depth: f32, stencil: u8) -> Self {
        Self::from_uints([depth.to_bits(), stencil as u32, 0, 0])
    }

    /// The four float view.
    pub fn floats(&self) -> [f32; 4] {
        self.uints().map(f32::from_bits)
    }

    /// The four uint view.
    pub fn uints(&self) -> [u32; 4] {
        std::array::from_fn(|i| u32::from_le_bytes(self.bytes[i * 4..i * 4 + 4].try_into().unwrap_or([0; 4])))
    }

    /// The four sint view.
    pub fn sints(&self) -> [i32; 4] {
        self.uints().map(|x| x as i32)
    }
}

bitflags::bitflags! {
    /// Which planes a depth-stencil clear writes (`D3D12_CLEAR_FLAGS`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct ClearFlags: u32 {
        /// `D3D12_CLEAR_FLAG_DEPTH`.
        const DEPTH = 0x1;
        /// `D3D12_CLEAR_FLAG_STENCIL`.
        const STENCIL = 0x2;
    }
}

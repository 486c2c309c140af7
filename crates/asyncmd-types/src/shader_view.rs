//! Shader resource and unordered access views of buffers (`D3D12_BUFFER_SRV`,
//! `D3D12_BUFFER_UAV`) and the byte range each selects.

use crate::Format;

/// How a buffer view's elements are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferViewKind {
    /// A byte address buffer (`D3D12_BUFFER_SRV_FLAG_RAW`, format `R32_TYPELESS`): 4-byte
    /// elements.
    Raw,
    /// A structured buffer of elements of this many bytes.
    Structured(u32),
    /// A typed buffer of this format.
    Typed(Format),
}

/// A view of a buffer's elements `first_element..first_element + num_elements`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferViewDesc {
    /// The first element.
    pub first_element: u64,
    /// The number of elements.
    pub num_elements: u32,
    /// What an element is.
    pub kind: BufferViewKind,
}

/// D3D12's largest structure stride (`D3D12_REQ_..._STRUCTURED_BUFFER_STRIDE`).
pub const MAX_STRUCTURE_STRIDE: u32 = 2048;

impl BufferViewDesc {
    /// A raw view of `bytes` bytes from byte `offset` (both multiples of 4).
    pub fn raw(offset: u64, bytes: u32) -> Self {
        Self { first_element: offset / 4, num_elements: bytes / 4, kind: BufferViewKind::Raw }
    }

    /// A structured view of `count` elements of `stride` bytes from element `first`.
    pub fn structured(first: u64, count: u32, stride: u32) -> Self {
        Self { first_element: first, num_elements: count, kind: BufferViewKind::Structured(stride) }
    }

    /// Bytes an element takes.
    pub fn element_bytes(&self) -> u64 {
        match self.kind {
            BufferViewKind::Raw => 4,
            BufferViewKind::Structured(s) => u64::from(s),
            BufferViewKind::Typed(f) => u64::from(f.info().bytes_per_block),
        }
    }

    /// The bytes the view selects of a buffer of `width` bytes: `(offset, size)`, or why it does
    /// not fit (no elements, a stride D3D12 refuses, a range past the buffer, raw views off a
    /// 16-byte boundary).
    pub fn byte_range(&self, width: u64) -> Result<(u64, u64), String> {
        if self.num_elements == 0 {
            return Err("NumElements is 0".into());
        }
        match self.kind {
            BufferViewKind::Structured(s) if s == 0 || s > MAX_STRUCTURE_STRIDE || s % 4 != 0 => {
                return Err(format!("StructureByteStride {s} is not a multiple of 4 in 4–{MAX_STRUCTURE_STRIDE}"))
            }
            BufferViewKind::Typed(f) if f == Format::Unknown || f.is_typeless() || f.is_depth_stencil() => {
                return Err(format!("{f} is not a typed buffer format"))
            }
            _ => {}
        }
        let e = self.element_bytes();
        let offset = self.first_element.checked_mul(e).ok_or("FirstElement overflows")?;
        let size = u64::from(self.num_elements) * e;
        if self.kind == BufferViewKind::Raw && offset % 16 != 0 {
            return Err(format!("a raw view starts at byte {offset}, not on a 16-byte boundary"));
        }
        match offset.checked_add(size) {
            Some(end) if end <= width => Ok((offset, size)),
            _ => Err(format!(
                "elements {}..+{} ({size} bytes at {offset}) pass the buffer's {width} bytes",
                self.first_element, self.num_elements
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_selects_its_elements_bytes_within_the_buffer() {
        assert_eq!(BufferViewDesc::raw(32, 64).byte_range(96), Ok((32, 64)));
        assert!(BufferViewDesc::raw(32, 68).byte_range(96).unwrap_err().contains("pass the buffer"));
        assert!(BufferViewDesc::raw(4, 4).byte_range(96).unwrap_err().contains("16-byte"));
        assert_eq!(BufferViewDesc::structured(3, 2, 12).byte_range(60), Ok((36, 24)));
        assert!(BufferViewDesc::structured(0, 1, 6).byte_range(60).is_err());
        assert!(BufferViewDesc::structured(0, 1, 4096).byte_range(1 << 20).is_err());
        assert!(BufferViewDesc::structured(u64::MAX, 1, 8).byte_range(u64::MAX).unwrap_err().contains("overflows"));
        assert!(BufferViewDesc::structured(0, 0, 8).byte_range(64).unwrap_err().contains("NumElements"));
        let typed =
            BufferViewDesc { first_element: 2, num_elements: 3, kind: BufferViewKind::Typed(Format::R32G32Float) };
        assert_eq!(typed.byte_range(64), Ok((16, 24)));
    }
}

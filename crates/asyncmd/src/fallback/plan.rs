//! Route planners: pure functions from a call's facts and the device's capabilities to the
//! route the fallback takes. No device is needed to test them.

use asyncmd_types::{CommandListType, HeapType};

/// Bytes of one upload chunk: a fill copies its pattern from chunks of at most this size.
pub const UPLOAD_CHUNK: u64 = 1 << 20;

/// How one fill is lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FillRoute {
    /// The built-in compute shader writes the pattern through a root UAV.
    Compute,
    /// Copies from a CPU-filled upload chunk; `staged`: first copied into a VRAM staging block.
    Upload {
        /// The chunk is staged through device memory first.
        staged: bool,
    },
}

/// What the planner needs to know of one fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillFacts {
    /// The list it is recorded on.
    pub list: CommandListType,
    /// Heap of the destination buffer.
    pub heap: HeapType,
    /// The buffer allows unordered access.
    pub uav: bool,
    /// The buffer is protected.
    pub protected: bool,
    /// Byte offset of the first pattern.
    pub offset: u64,
    /// Bytes the fill writes.
    pub bytes: u64,
}

/// What the planner needs to know of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceFacts {
    /// Compute shaders can run the built-in fill shader.
    pub compute_fill_shader: bool,
    /// Unified memory (no VRAM staging).
    pub uma: bool,
}

/// The route of one fill: compute where the list, device, heap, flags and dword alignment
/// allow it; otherwise copies from an upload chunk, staged through VRAM on discrete devices for
/// unprotected fills larger than one chunk.
pub fn plan_fill(f: &FillFacts, d: &DeviceFacts) -> FillRoute {
    let compute_list = matches!(f.list, CommandListType::Direct | CommandListType::Compute);
    let aligned = f.offset % 4 == 0 && f.bytes % 4 == 0;
    if compute_list && d.compute_fill_shader && f.heap == HeapType::Default && f.uav && aligned {
        FillRoute::Compute
    } else {
        FillRoute::Upload { staged: !d.uma && !f.protected && f.bytes > UPLOAD_CHUNK }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> FillFacts {
        FillFacts {
            list: CommandListType::Direct,
            heap: HeapType::Default,
            uav: true,
            protected: false,
            offset: 0,
            bytes: 4096,
        }
    }

    const DISCRETE: DeviceFacts = DeviceFacts { compute_fill_shader: true, uma: false };

    #[test]
    fn compute_route_needs_every_condition() {
        assert_eq!(plan_fill(&facts(), &DISCRETE), FillRoute::Compute);
        assert_eq!(plan_fill(&FillFacts { list: CommandListType::Compute, ..facts() }, &DISCRETE), FillRoute::Compute);
        let upload = FillRoute::Upload { staged: false };
        for (what, f) in [
            ("copy list", FillFacts { list: CommandListType::Copy, ..facts() }),
            ("bundle", FillFacts { list: CommandListType::Bundle, ..facts() }),
            ("upload heap", FillFacts { heap: HeapType::Upload, ..facts() }),
            ("readback heap", FillFacts { heap: HeapType::Readback, ..facts() }),
            ("no UAV flag", FillFacts { uav: false, ..facts() }),
            ("offset not dword-aligned", FillFacts { offset: 2, ..facts() }),
            ("size not dword-aligned", FillFacts { bytes: 4095, ..facts() }),
        ] {
            assert_eq!(plan_fill(&f, &DISCRETE), upload, "{what}");
        }
        assert_eq!(plan_fill(&facts(), &DeviceFacts { compute_fill_shader: false, uma: false }), upload);
    }

    #[test]
    fn staging_for_large_unprotected_fills_on_discrete_devices_only() {
        let big = FillFacts { uav: false, bytes: UPLOAD_CHUNK + 4, ..facts() };
        assert_eq!(plan_fill(&big, &DISCRETE), FillRoute::Upload { staged: true });
        assert_eq!(
            plan_fill(&FillFacts { bytes: UPLOAD_CHUNK, ..big }, &DISCRETE),
            FillRoute::Upload { staged: false }
        );
        assert_eq!(plan_fill(&FillFacts { protected: true, ..big }, &DISCRETE), FillRoute::Upload { staged: false });
        let uma = DeviceFacts { compute_fill_shader: true, uma: true };
        assert_eq!(plan_fill(&big, &uma), FillRoute::Upload { staged: false });
    }
}

//! What a device can do.

use asyncmd_types::Format;

/// A device's capabilities. The reference device lets every field be set; the Vulkan device
/// reads them from the physical device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Human-readable device name.
    pub name: String,
    /// Whether the device supports enhanced barriers (required by the fallback).
    pub enhanced_barriers: bool,
    /// The native Async Commands DDI feature version, if the device implements it.
    pub native_async_commands: Option<u32>,
    /// Unified memory (integrated GPU) rather than discrete.
    pub uma: bool,
    /// Programmable sample positions are supported.
    pub programmable_sample_positions: bool,
    /// Tiled-resources tier (0: none).
    pub tiled_resources_tier: u32,
    /// Compute shaders can run the built-in fill shader (feature level 11_0 and DXIL).
    pub compute_fill_shader: bool,
    /// Compute shaders write buffer memory faster than transfer commands (measured when the
    /// device opens: a GPU's transfer commands run one after another, a CPU device's copies
    /// beat its shaders). The fallback's fills take the compute route only where this holds,
    /// or under predication.
    pub compute_fills_win: bool,
    /// Protected content (protected resource sessions) is supported.
    pub protected_content: bool,
    /// `ResolveSubresourceRegion` supports the MIN and MAX modes for colour formats.
    pub resolve_min_max: bool,
    /// Timestamp ticks per second on direct and compute queues.
    pub timestamp_frequency: u64,
    /// Copy queues run on their own engine (a transfer-only queue family: the DMA engines),
    /// beside the direct and compute queues; `false` where one queue serves them all.
    pub dedicated_copy_queue: bool,
    /// Copy lists write timestamps (`CopyQueueTimestampQueriesSupported`): query heaps of type
    /// `CopyQueueTimestamp` can be made.
    pub copy_queue_timestamps: bool,
    /// `ExecuteIndirect` command signatures may set root constants (besides dispatching).
    pub indirect_root_constants: bool,
}

/// The feature version of the native Async Commands DDI this crate describes.
pub const ASYNC_COMMANDS_DDI_VERSION: u32 = 1;

bitflags::bitflags! {
    /// What a format supports on a device (`D3D12_FORMAT_SUPPORT1`, the bits the runtime uses).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct FormatSupport: u32 {
        /// Usable as a formatted buffer (`SUPPORT1_BUFFER`).
        const BUFFER = 0x1;
        /// Usable as a texture.
        const TEXTURE = 0x2;
        /// Usable as a render target.
        const RENDER_TARGET = 0x4;
        /// Usable as a depth-stencil target.
        const DEPTH_STENCIL = 0x8;
        /// Multisampled render targets.
        const MULTISAMPLE_RENDER_TARGET = 0x10;
        /// Multisample resolve.
        const MULTISAMPLE_RESOLVE = 0x20;
        /// Unordered access (typed UAV).
        const UNORDERED_ACCESS = 0x40;
    }
}

/// A format's support and its multisample counts (bit n set: 2^n samples supported).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FormatCaps {
    /// Support flags.
    pub support: FormatSupport,
    /// Supported sample counts as a mask (bit 0: 1 sample, bit 2: 4 samples, ...).
    pub sample_counts: u32,
}

impl FormatCaps {
    /// Whether `count` samples (with quality 0) are supported for rendering.
    pub fn supports_samples(&self, count: u32) -> bool {
        count.is_power_of_two() && count <= 32 && self.sample_counts & (1 << count.trailing_zeros()) != 0
    }
}

/// Looks up the caps of one format; implemented by devices.
pub trait FormatQuery {
    /// The format's support on this device.
    fn format_caps(&self, format: Format) -> FormatCaps;
}

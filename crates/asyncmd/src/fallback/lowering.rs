//! What a fallback route lowers with: the list's driver, its device and allocator, the
//! tracker, the state shadow, and the fallback's own per-recording state. Routes are methods
//! of [`Lowering`]; the command list lends it its parts for one call.

use super::state::Shadow;
use super::texture_clear::PrivateTextures;
use crate::allocator::CommandAllocator;
use crate::device::DeviceShared;
use crate::resource::Resource;
use crate::track::Tracker;
use asyncmd_ddi::{Command, CommandListDdi};
use asyncmd_types::ClearElement;
use std::sync::Arc;

/// The fallback's state of one recording, reset in one place when the list is.
#[derive(Default)]
pub(crate) struct FallbackState {
    /// The last upload chunk of this recording: its pattern, buffer and length.
    pub(crate) last_chunk: Option<(ClearElement, Resource, u64)>,
    /// Private MSAA textures of this recording (texture clears), reused between calls.
    pub(crate) private_textures: PrivateTextures,
}

impl FallbackState {
    /// Forgets the recording (list reset).
    pub(crate) fn reset(&mut self) {
        self.last_chunk = None;
        self.private_textures.clear();
    }
}

/// A command list's parts, lent to the fallback for one lowering.
pub(crate) struct Lowering<'a> {
    pub(crate) ddi: &'a mut dyn CommandListDdi,
    pub(crate) device: &'a Arc<DeviceShared>,
    pub(crate) allocator: &'a CommandAllocator,
    pub(crate) tracker: &'a mut Tracker,
    pub(crate) shadow: &'a mut Shadow,
    pub(crate) state: &'a mut FallbackState,
}

impl Lowering<'_> {
    /// Hands a legacy command to the driver.
    pub(crate) fn record(&mut self, command: Command) {
        self.ddi.record(command);
    }
}

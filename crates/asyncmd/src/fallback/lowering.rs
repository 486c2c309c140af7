//! What a fallback route lowers with: the list's driver, tracker and state shadow, the
//! device's fallback objects and the interface it makes more through, the allocator's cache,
//! and the fallback's own per-recording state. Routes are methods of [`Lowering`]; the command
//! list lends it its parts for one call.

use super::cache::Cache;
use super::factory::Factory;
use super::plan::DeviceFacts;
use super::resources::Resources;
use super::texture_clear::PrivateTextures;
use crate::resource::Resource;
use crate::shadow::Shadow;
use crate::track::Tracker;
use asyncmd_ddi::{Command, CommandListDdi};
use asyncmd_types::{ClearElement, CommandListType};

/// What the routes' planners know of the list and its device beyond the call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ListFacts {
    /// The list's type.
    pub(crate) list: CommandListType,
    /// The device's capabilities the planners read.
    pub(crate) device: DeviceFacts,
    /// The app asked for the closest value a legacy view clear takes
    /// (`AsyncCommandsFallback::set_closest_clear_values`).
    pub(crate) closest_clear_values: bool,
}

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
    pub(crate) tracker: &'a mut Tracker<Resource>,
    pub(crate) shadow: &'a mut Shadow,
    /// How the fallback makes objects (the device).
    pub(crate) factory: &'a dyn Factory,
    /// The device's fallback objects.
    pub(crate) resources: &'a Resources,
    /// The list's allocator's fallback objects.
    pub(crate) cache: &'a Cache,
    pub(crate) state: &'a mut FallbackState,
}

impl Lowering<'_> {
    /// Hands a legacy command to the driver.
    pub(crate) fn record(&mut self, command: Command) {
        self.ddi.record(command);
    }
}

//! The one path every Async Command takes: the gate (the list records, its type allows the
//! API, the device has the Async Commands), ownership of the resources, validation into the
//! resolved description, then the native DDI command or the fallback's lowering of it.

use super::{CommandRecorder, Lists, Pass};
use crate::err;
use crate::resource::Resource;
use asyncmd_ddi::Command;
use asyncmd_types::{AsyncCommandsImpl, MessageId, Result};

/// Where an Async Command may be recorded.
#[derive(Clone, Copy)]
pub(crate) enum Gate {
    /// Lists of these types, outside render passes.
    Outside(Lists),
    /// Direct lists and bundles, inside or outside a render pass, never while one is
    /// suspended: the bound clears, ordered like draws.
    LikeDraws,
}

impl CommandRecorder {
    /// Whether an async command may be recorded: `begin` passes for its gate and the device
    /// implements the Async Commands natively or through the fallback. Returns the
    /// implementation.
    pub(crate) fn begin_async(&mut self, api: &str, gate: Gate) -> Option<AsyncCommandsImpl> {
        match gate {
            Gate::Outside(lists) => {
                if !self.begin(api, lists, false) {
                    return None;
                }
            }
            Gate::LikeDraws => {
                if !self.begin(api, Lists::DIRECT.union(Lists::BUNDLE), true) {
                    return None;
                }
                if self.pass == Pass::Suspended {
                    self.remove(err::fail(
                        MessageId::RenderPassInvalid,
                        api,
                        "GPU work between a suspending EndRenderPass and the resuming BeginRenderPass",
                    ));
                    return None;
                }
            }
        }
        self.async_impl_or_remove(api)
    }

    /// The device's Async Commands implementation; on a device without them, removes the list
    /// with `Fail` and returns `None`.
    pub(crate) fn async_impl_or_remove(&mut self, api: &str) -> Option<AsyncCommandsImpl> {
        match self.device.async_impl {
            AsyncCommandsImpl::NotSupported => {
                self.remove(err::fail(MessageId::AsyncCommandsNotSupported, api, "the device does not support the Async Commands (Impl is NOT_SUPPORTED; opt in to the fallback before creating the device)"));
                None
            }
            i => Some(i),
        }
    }

    /// Records Async Command `api` where `gate` allows it: `owned` (the message id of a
    /// foreign resource, and the resources) are checked, `validate` turns the call into its resolved description `D` (an
    /// error removes the list), and `D` goes to the driver as `native(D)` or to the fallback's
    /// `lower`.
    pub(crate) fn async_command<D>(
        &mut self,
        api: &str,
        gate: Gate,
        owned: Option<(MessageId, &[&Resource])>,
        validate: impl FnOnce(&mut Self) -> Result<D>,
        native: impl FnOnce(D) -> Command,
        lower: impl FnOnce(&mut Self, D),
    ) {
        let Some(imp) = self.begin_async(api, gate) else { return };
        if let Some((id, resources)) = owned {
            if !self.owns_all(id, api, resources) {
                return;
            }
        }
        let resolved = match validate(self) {
            Ok(d) => d,
            Err(e) => return self.remove(e),
        };
        match imp {
            AsyncCommandsImpl::Native => self.record(native(resolved)),
            _ => lower(self, resolved),
        }
    }
}

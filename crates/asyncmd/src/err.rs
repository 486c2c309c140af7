//! The runtime's error constructors: every refused call names its API, then why.

use asyncmd_types::{Error, MessageId};
use std::fmt::Display;

/// `InvalidArg` with message `id`, as "`api`: `reason`".
pub(crate) fn invalid(id: MessageId, api: &str, reason: impl Display) -> Error {
    Error::invalid_arg(id, format!("{api}: {reason}"))
}

/// `Fail` with message `id`, as "`api`: `reason`".
pub(crate) fn fail(id: MessageId, api: &str, reason: impl Display) -> Error {
    Error::fail(id, format!("{api}: {reason}"))
}

/// `OutOfMemory`, as "`api`: `reason`".
pub(crate) fn out_of_memory(api: &str, reason: impl Display) -> Error {
    Error::out_of_memory(format!("{api}: {reason}"))
}

/// `Unsupported`, as "`api`: `reason`".
pub(crate) fn unsupported(api: &str, reason: impl Display) -> Error {
    Error::unsupported(format!("{api}: {reason}"))
}

/// `DeviceRemoved`, as "`api`: `reason`".
pub(crate) fn device_removed(api: &str, reason: impl Display) -> Error {
    Error::device_removed(format!("{api}: {reason}"))
}

/// `error` as seen from `context` (the API, or the API and the part that failed): its code and
/// message id kept, its text after the context.
pub(crate) fn within(context: impl Display, error: Error) -> Error {
    Error::new(error.code, error.id, format!("{context}: {}", error.text))
}

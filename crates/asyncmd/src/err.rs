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

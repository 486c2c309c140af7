//! The debug layer: the info queue every error and warning goes to, and its view across queues
//! (`cross_queue.rs`).

pub(crate) mod cross_queue;

use asyncmd_types::{Error, MessageCategory, MessageId, MessageSeverity};
use std::sync::{Mutex, PoisonError};

/// One message of the info queue (`D3D12_MESSAGE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Severity.
    pub severity: MessageSeverity,
    /// Category.
    pub category: MessageCategory,
    /// Message id.
    pub id: MessageId,
    /// Text naming the API and the reason.
    pub text: String,
}

/// The device's message queue (`ID3D12InfoQueue`). Messages are kept until cleared.
#[derive(Default)]
pub struct InfoQueue {
    messages: Mutex<Vec<Message>>,
}

/// The most messages kept; older ones are dropped first.
const MESSAGE_LIMIT: usize = 4096;

impl InfoQueue {
    /// Adds a message and logs it through `tracing`.
    pub fn push(&self, severity: MessageSeverity, id: MessageId, text: impl Into<String>) {
        let text = text.into();
        match severity {
            MessageSeverity::Corruption | MessageSeverity::Error => tracing::error!(?id, "{text}"),
            MessageSeverity::Warning => tracing::warn!(?id, "{text}"),
            _ => tracing::info!(?id, "{text}"),
        }
        let mut m = self.messages.lock().unwrap_or_else(PoisonError::into_inner);
        if m.len() >= MESSAGE_LIMIT {
            m.remove(0);
        }
        m.push(Message { severity, category: id.category(), id, text });
    }

    /// Reports an error as an error message.
    pub(crate) fn report(&self, error: &Error) {
        self.push(MessageSeverity::Error, error.id, error.text.clone());
    }

    /// A copy of the stored messages, oldest first.
    pub fn messages(&self) -> Vec<Message> {
        self.messages.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Whether any stored message has this id.
    pub fn contains(&self, id: MessageId) -> bool {
        self.messages.lock().unwrap_or_else(PoisonError::into_inner).iter().any(|m| m.id == id)
    }

    /// Drops every stored message.
    pub fn clear(&self) {
        self.messages.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

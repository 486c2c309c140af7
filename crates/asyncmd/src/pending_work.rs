//! The last submitted work of a command buffer that uses a resource (spec 001's CPU access and
//! lifetime rules): a CPU read of a resource a legacy buffer writes waits for that work; with
//! fast semantics and the debug layer on, the read, or dropping the resource before the work
//! is done, is reported instead. Plain command lists record nothing here.

use crate::device::DeviceShared;
use crate::err;
use crate::fence::Fence;
use asyncmd_types::{MessageId, Result};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The longest a CPU read waits for the legacy work that writes the resource.
pub(crate) const CPU_READ_WAIT: Duration = Duration::from_secs(60);

/// How the pending work treats the resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Legacy semantics: CPU reads wait.
    Wait,
    /// Fast semantics with the debug layer: CPU reads and drops are reported.
    Warn,
}

struct Work {
    fence: Fence,
    /// The value once the last writing submission has executed (0: none writes).
    write: u64,
    /// The value once the last using submission has executed.
    used: u64,
    rule: Rule,
}

/// The resource's pending work, if a command buffer's submission uses it.
#[derive(Default)]
pub(crate) struct PendingWork(Mutex<Option<Work>>);

impl PendingWork {
    /// A submission that passes `value` on `fence` uses the resource (and writes it).
    pub(crate) fn submitted(&self, fence: &Fence, value: u64, writes: bool, rule: Rule) {
        let mut w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let same_fence = w.as_ref().is_some_and(|w| std::sync::Arc::ptr_eq(&w.fence.0, &fence.0));
        let earlier_write = if same_fence { w.as_ref().map_or(0, |w| w.write) } else { 0 };
        *w = Some(Work { fence: fence.clone(), write: if writes { value } else { earlier_write }, used: value, rule });
    }

    /// Before the CPU reads the resource (`api`): waits for pending legacy writes, reports
    /// pending fast ones. Errors: the wait timed out (`Fail`).
    pub(crate) fn before_cpu_read(&self, device: &DeviceShared, api: &str) -> Result<()> {
        let pending = {
            let w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            match w.as_ref() {
                Some(w) if w.write > 0 && w.fence.completed_value() < w.write => {
                    Some((w.fence.clone(), w.write, w.rule))
                }
                _ => None,
            }
        };
        match pending {
            None => Ok(()),
            Some((_, value, Rule::Warn)) => {
                device.warn(
                    MessageId::CpuReadOfPendingWrite,
                    format!(
                        "{api}: the resource is read while submitted work writes it (the queue passes {value} when it \
                         is done); wait for that value first"
                    ),
                );
                Ok(())
            }
            Some((fence, value, Rule::Wait)) => fence.wait(value, CPU_READ_WAIT).map_err(|e| {
                err::fail(
                    MessageId::ResourceMapInvalid,
                    api,
                    format!("waiting for the legacy work that writes the resource: {}", e.text),
                )
            }),
        }
    }

    /// The resource's last handle goes: reports it where fast work still uses it.
    pub(crate) fn on_drop(&self, device: &DeviceShared, what: &str) {
        let w = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = w.as_ref().filter(|w| w.rule == Rule::Warn && w.fence.completed_value() < w.used) {
            device.warn(
                MessageId::ObjectDroppedWhilePending,
                format!(
                    "{what} was dropped while submitted work uses it (until the queue passes {}); its memory stays \
                     valid until then",
                    w.used
                ),
            );
        }
    }
}

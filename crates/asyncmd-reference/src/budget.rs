//! The device's memory budget: what resources, heaps and query heaps may hold at once.
//!
//! A GPU runs out of memory long before its host does; the reference device models that with
//! a settable budget, so that a request a GPU would refuse fails with `OutOfMemory` here too
//! instead of committing host memory (or aborting the process).

use asyncmd_types::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bytes in use against a fixed budget.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: u64,
    used: AtomicU64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Arc<Self> {
        Arc::new(Self { limit, used: AtomicU64::new(0) })
    }

    /// Bytes reserved now.
    #[cfg(test)]
    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }

    /// Reserves `bytes` until the returned reservation drops; `OutOfMemory` naming `api` when
    /// they do not fit in what is left.
    pub(crate) fn reserve(self: &Arc<Self>, bytes: u64, api: &str) -> Result<Reservation> {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .map_err(|used| {
                Error::out_of_memory(format!(
                    "{api}: {bytes} bytes do not fit in the device's memory ({used} of {} bytes in use)",
                    self.limit
                ))
            })?;
        Ok(Reservation { budget: self.clone(), bytes })
    }
}

/// Bytes held against a [`Budget`]; given back on drop.
#[derive(Debug)]
pub(crate) struct Reservation {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// A zero-filled vector of `len` elements, or `OutOfMemory` naming `api` where the host cannot
/// provide it (never an abort).
pub(crate) fn zeroed<T: Clone + Default>(len: usize, api: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::out_of_memory(format!("{api}: the host cannot allocate {len} elements")))?;
    v.resize(len, T::default());
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_fit_the_budget_and_are_given_back() {
        let b = Budget::new(100);
        let a = b.reserve(60, "A").unwrap();
        let e = b.reserve(41, "B").unwrap_err();
        assert_eq!(e.code, asyncmd_types::ErrorCode::OutOfMemory);
        assert!(e.text.starts_with("B: 41 bytes"), "{}", e.text);
        assert!(b.reserve(u64::MAX, "C").is_err());
        drop(a);
        assert_eq!(b.used(), 0);
        let _c = b.reserve(100, "D").unwrap();
        assert_eq!(b.used(), 100);
    }
}

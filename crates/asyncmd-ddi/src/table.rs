//! Id-keyed object tables, shared by device implementations.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Objects of one kind, by id. Ids are never reused. Thread-safe.
pub struct Table<T> {
    next: AtomicU64,
    items: Mutex<HashMap<u64, Arc<T>>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Self { next: AtomicU64::new(1), items: Mutex::new(HashMap::new()) }
    }
}

impl<T> Table<T> {
    /// Stores an item under a new id.
    pub fn insert(&self, item: T) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.items.lock().unwrap_or_else(PoisonError::into_inner).insert(id, Arc::new(item));
        id
    }

    /// Takes an id for an item that is built knowing it, then [`Table::insert_at`].
    pub fn next_id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Stores an item under an id from [`Table::next_id`].
    pub fn insert_at(&self, id: u64, item: T) {
        self.items.lock().unwrap_or_else(PoisonError::into_inner).insert(id, Arc::new(item));
    }

    /// The item with this id.
    pub fn get(&self, id: u64) -> Option<Arc<T>> {
        self.items.lock().unwrap_or_else(PoisonError::into_inner).get(&id).cloned()
    }

    /// Forgets an item; it lives on while others hold it.
    pub fn remove(&self, id: u64) {
        self.items.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
    }

    /// Every item.
    pub fn values(&self) -> Vec<Arc<T>> {
        self.items.lock().unwrap_or_else(PoisonError::into_inner).values().cloned().collect()
    }
}

//! Id-keyed object tables, shared by device implementations.

use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Objects of one kind, by id. Ids are never reused. Thread-safe.
pub struct Table<T> {
    next: AtomicU64,
    items: Mutex<HashMap<u64, Arc<T>>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Self { next: AtomicU64::new(1), items: Mutex::new(HashMap::default()) }
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

    /// Holds item `id` in `held` unless it is there already: a command list keeps what its
    /// commands name with one lookup of this (locked) table per object it does not hold yet.
    pub fn hold_in<S: std::hash::BuildHasher>(&self, held: &mut std::collections::HashMap<u64, Arc<T>, S>, id: u64) {
        if let Entry::Vacant(slot) = held.entry(id) {
            if let Some(item) = self.get(id) {
                slot.insert(item);
            }
        }
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

//! An open-addressing table keyed by resource id: linear probing over a power-of-two array.
//! Recording is a hot path, so lookups touch one cache line in the common case and the table
//! never shrinks while a list records (it is cleared on reset).

/// A map from non-zero `u64` keys to values.
#[derive(Clone, Debug)]
pub(crate) struct PtrTable<V> {
    slots: Vec<Option<(u64, V)>>,
    len: usize,
}

impl<V> Default for PtrTable<V> {
    fn default() -> Self {
        Self { slots: Vec::new(), len: 0 }
    }
}

fn hash(key: u64) -> u64 {
    // Fibonacci hashing spreads consecutive ids over the table.
    key.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl<V> PtrTable<V> {
    fn index(&self, key: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        (hash(key) >> (64 - bits)) as usize
    }

    fn find(&self, key: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(key);
        loop {
            match &self.slots[i] {
                None => return None,
                Some((k, _)) if *k == key => return Some(i),
                Some(_) => i = (i + 1) & mask,
            }
        }
    }

    /// The value for `key`.
    pub(crate) fn get(&self, key: u64) -> Option<&V> {
        self.find(key).and_then(|i| self.slots[i].as_ref().map(|(_, v)| v))
    }

    /// The value for `key`, to change.
    pub(crate) fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        self.find(key).and_then(|i| self.slots[i].as_mut().map(|(_, v)| v))
    }

    /// Every entry, in no order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        self.slots.iter().flatten().map(|(k, v)| (*k, v))
    }

    /// Every entry, to change, in no order.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (u64, &mut V)> {
        self.slots.iter_mut().flatten().map(|(k, v)| (*k, v))
    }

    /// Inserts or replaces the value for `key`.
    pub(crate) fn insert(&mut self, key: u64, value: V) {
        if let Some(i) = self.find(key) {
            self.slots[i] = Some((key, value));
            return;
        }
        // Keep the load factor at most 1/2.
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.index(key);
        while self.slots[i].is_some() {
            i = (i + 1) & mask;
        }
        self.slots[i] = Some((key, value));
        self.len += 1;
    }

    fn grow(&mut self) {
        let capacity = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, (0..capacity).map(|_| None).collect());
        self.len = 0;
        for (k, v) in old.into_iter().flatten() {
            self.insert(k, v);
        }
    }

    /// Number of entries.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no entry.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets every entry, keeping the allocation.
    pub(crate) fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn behaves_like_a_map() {
        let mut t = PtrTable::default();
        let mut m = HashMap::new();
        let mut x = 12345u64;
        for i in 0..5000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = x % 700 + 1;
            t.insert(key, i);
            m.insert(key, i);
            assert_eq!(t.len(), m.len());
        }
        for k in 0..800 {
            assert_eq!(t.get(k), m.get(&k), "key {k}");
        }
        t.clear();
        assert_eq!(t.len(), 0);
        assert_eq!(t.get(1), None);
        t.insert(1, 9);
        assert_eq!(t.get(1), Some(&9));
    }

    #[test]
    fn sequential_ids_do_not_collide_into_long_runs() {
        let mut t = PtrTable::default();
        for k in 1..=1000u64 {
            t.insert(k, k);
        }
        assert!(t.slots.len() <= 4096);
        for k in 1..=1000u64 {
            assert_eq!(t.get(k), Some(&k));
        }
    }
}

//! The uploader's ring of upload memory: bytes are handed out in order and come back once the
//! queue has passed the submission that read them. Positions grow without wrapping (a `u64`
//! of bytes lasts for ever); the offset in the buffer is the position modulo the capacity.

use std::collections::VecDeque;

/// A ring of `capacity` bytes.
#[derive(Debug)]
pub(crate) struct Ring {
    capacity: u64,
    /// Position of the next byte to hand out.
    head: u64,
    /// Position of the oldest byte still in use.
    tail: u64,
    /// Submitted spans, oldest first: the position they end at and the queue value that frees them.
    spans: VecDeque<(u64, u64)>,
    /// The end of what was handed out and not yet submitted.
    unsubmitted: Option<u64>,
}

impl Ring {
    pub(crate) fn new(capacity: u64) -> Ring {
        Ring { capacity, head: 0, tail: 0, spans: VecDeque::new(), unsubmitted: None }
    }

    pub(crate) fn capacity(&self) -> u64 {
        self.capacity
    }

    /// `size` bytes at an offset aligned to `align` (a power of two dividing the capacity),
    /// never split by the ring's end; `None` while too little is free (or never, past the
    /// capacity).
    pub(crate) fn alloc(&mut self, size: u64, align: u64) -> Option<u64> {
        if size == 0 || size > self.capacity {
            return None;
        }
        let mut at = self.head.checked_next_multiple_of(align)?;
        if at % self.capacity + size > self.capacity {
            at = at.checked_next_multiple_of(self.capacity)?;
        }
        let end = at.checked_add(size)?;
        if end - self.tail > self.capacity {
            return None;
        }
        self.head = end;
        self.unsubmitted = Some(end);
        Some(at % self.capacity)
    }

    /// What was handed out since the last call is read by work the queue finishes at `value`.
    pub(crate) fn submitted(&mut self, value: u64) {
        if let Some(end) = self.unsubmitted.take() {
            self.spans.push_back((end, value));
        }
    }

    /// Frees the spans the queue has passed (`completed`).
    pub(crate) fn retire(&mut self, completed: u64) {
        while let Some(&(end, value)) = self.spans.front() {
            if value > completed {
                break;
            }
            self.tail = end;
            self.spans.pop_front();
        }
    }

    /// The queue value that frees the oldest submitted span: what a full ring waits for.
    pub(crate) fn oldest(&self) -> Option<u64> {
        self.spans.front().map(|&(_, v)| v)
    }

    /// Whether bytes handed out wait to be submitted (a full ring must submit them first).
    pub(crate) fn has_unsubmitted(&self) -> bool {
        self.unsubmitted.is_some()
    }

    /// Bytes in use.
    #[cfg(test)]
    pub(crate) fn used(&self) -> u64 {
        self.head - self.tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_wrap_at_the_end_and_come_back_in_order() {
        let mut r = Ring::new(1024);
        assert_eq!(r.alloc(600, 4), Some(0));
        r.submitted(1);
        assert_eq!(r.alloc(600, 4), None, "600 more do not fit while the first span is in use");
        r.retire(1);
        // 600 bytes would cross the end at 600: they start over at 0, and the skipped tail
        // counts as used until they retire.
        assert_eq!(r.alloc(600, 4), Some(0));
        assert_eq!(r.used(), 1024);
        assert_eq!(r.alloc(4, 4), None);
        r.submitted(2);
        assert_eq!(r.oldest(), Some(2));
        r.retire(2);
        assert_eq!(r.used(), 0);
        assert_eq!(r.alloc(200, 256), Some(768), "aligned");
        assert_eq!(r.alloc(200, 256), Some(0), "past the end: from the start");
    }

    #[test]
    fn a_full_ring_refuses_until_the_oldest_span_retires() {
        let mut r = Ring::new(256);
        for v in 1..=4 {
            assert!(r.alloc(64, 4).is_some());
            r.submitted(v);
        }
        assert_eq!(r.alloc(4, 4), None);
        assert_eq!(r.oldest(), Some(1));
        r.retire(1);
        assert_eq!(r.alloc(64, 4), Some(0));
        assert_eq!(r.alloc(257, 4), None, "larger than the ring: never");
        assert_eq!(r.alloc(0, 4), None);
    }
}

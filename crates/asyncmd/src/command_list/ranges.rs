//! A quick test for overlapping byte ranges, so that recording a large batch does not compare
//! every pair of its ranges.

/// A byte range of one resource: (resource key, start, length).
pub(crate) type Range = (u64, u64, u64);

/// Whether some range of `reads` may overlap some range of `writes`, or two ranges of `writes`
/// may overlap each other (`(reads, writes)`). Never false where a pair overlaps; may be true
/// for touching empty ranges, so callers confirm with an exact scan.
pub(crate) fn may_overlap(reads: &[Range], writes: &[Range]) -> (bool, bool) {
    let mut w: Vec<Range> = writes.to_vec();
    w.sort_unstable();
    // Per position: the furthest end of the writes sorted before it, of the same resource.
    let mut reach = Vec::with_capacity(w.len());
    let mut writes_overlap = false;
    for (i, &(key, start, len)) in w.iter().enumerate() {
        let before = if i > 0 && w[i - 1].0 == key { reach[i - 1] } else { 0 };
        writes_overlap |= i > 0 && w[i - 1].0 == key && start < before;
        reach.push(before.max(start + len));
    }
    let reads_overlap = reads.iter().any(|&(key, start, len)| {
        // Writes of `key` that start before this read ends.
        let first = w.partition_point(|r| r.0 < key);
        let end = w.partition_point(|r| r.0 < key || (r.0 == key && r.1 < start + len));
        end > first && reach[end - 1] > start
    });
    (reads_overlap, writes_overlap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn exact(a: Range, b: Range) -> bool {
        a.0 == b.0 && a.1 < b.1 + b.2 && b.1 < a.1 + a.2
    }

    #[test]
    fn disjoint_and_overlapping_ranges() {
        assert_eq!(may_overlap(&[(1, 0, 16)], &[(1, 16, 16), (2, 0, 16)]), (false, false));
        assert_eq!(may_overlap(&[(1, 8, 16)], &[(1, 16, 16)]), (true, false));
        assert_eq!(may_overlap(&[], &[(1, 0, 16), (1, 8, 4), (1, 100, 4)]), (false, true));
        assert_eq!(may_overlap(&[(2, 0, 64)], &[(1, 0, 64)]), (false, false));
    }

    proptest! {
        /// The quick test never misses a pair the exact pairwise test finds.
        #[test]
        fn never_misses_an_overlap(
            reads in prop::collection::vec((0u64..3, 0u64..64, 0u64..16), 0..12),
            writes in prop::collection::vec((0u64..3, 0u64..64, 0u64..16), 0..12),
        ) {
            let (r, w) = may_overlap(&reads, &writes);
            let exact_r = reads.iter().any(|&a| writes.iter().any(|&b| exact(a, b)));
            let exact_w = writes.iter().enumerate().any(|(i, &a)| writes[i + 1..].iter().any(|&b| exact(a, b)));
            prop_assert!(r || !exact_r);
            prop_assert!(w || !exact_w);
        }
    }
}

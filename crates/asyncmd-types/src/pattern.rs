//! Repeating a byte pattern, as fills and clears write it.

/// `len` bytes of `pattern` repeated (the last repetition cut short). Built by doubling
/// copies, so a megabyte costs a few dozen `memcpy`s rather than a loop per byte.
pub fn repeat_bytes(pattern: &[u8], len: usize) -> Vec<u8> {
    if pattern.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0u8; len];
    fill_repeating(&mut out, pattern);
    out
}

/// Fills `dst` with `pattern` repeated from its start (the last repetition cut short): by
/// doubling copies within a first block that stays in the cache, then by copies of that
/// block, so that a large fill reads no memory it has just written.
pub fn fill_repeating(dst: &mut [u8], pattern: &[u8]) {
    /// About the L2 cache of one core: doubling past it would read back from memory.
    const BLOCK: usize = 64 << 10;
    if pattern.is_empty() || dst.is_empty() {
        return;
    }
    let first = pattern.len().min(dst.len());
    dst[..first].copy_from_slice(&pattern[..first]);
    // Whole patterns, so that copies of the block stay in phase.
    let block = (BLOCK / pattern.len() * pattern.len()).max(pattern.len()).min(dst.len());
    let mut done = first;
    while done < block {
        let n = done.min(block - done);
        dst.copy_within(..n, done);
        done += n;
    }
    let (head, rest) = dst.split_at_mut(block);
    for chunk in rest.chunks_mut(block) {
        chunk.copy_from_slice(&head[..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::repeat_bytes;

    #[test]
    fn patterns_repeat_and_stop_at_the_length() {
        assert_eq!(repeat_bytes(&[1, 2, 3], 7), vec![1, 2, 3, 1, 2, 3, 1]);
        assert_eq!(repeat_bytes(&[1, 2, 3], 2), vec![1, 2]);
        assert_eq!(repeat_bytes(&[], 5), Vec::<u8>::new());
        super::fill_repeating(&mut [], &[4, 5]);
        let mut slice = [0u8; 7];
        super::fill_repeating(&mut slice, &[4, 5]);
        assert_eq!(slice, [4, 5, 4, 5, 4, 5, 4]);
        // Past the doubling block, in phase, for patterns that do not divide it.
        for pattern in [&[1u8, 2, 3][..], &[9; 16], &[7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]] {
            let mut big = vec![0u8; (200 << 10) + 5];
            super::fill_repeating(&mut big, pattern);
            assert!(big.iter().enumerate().all(|(i, &b)| b == pattern[i % pattern.len()]), "{pattern:?}");
        }
        let big = repeat_bytes(&[9, 8, 7, 6, 5], 1 << 20);
        assert_eq!(big.len(), 1 << 20);
        assert!(big.chunks(5).all(|c| c == &[9, 8, 7, 6, 5][..c.len()]));
    }
}

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

/// Fills `dst` with `pattern` repeated from its start (the last repetition cut short), by
/// doubling copies within `dst`.
pub fn fill_repeating(dst: &mut [u8], pattern: &[u8]) {
    if pattern.is_empty() {
        return;
    }
    let first = pattern.len().min(dst.len());
    dst[..first].copy_from_slice(&pattern[..first]);
    let mut done = first;
    while done < dst.len() {
        let n = done.min(dst.len() - done);
        dst.copy_within(..n, done);
        done += n;
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
        let mut slice = [0u8; 7];
        super::fill_repeating(&mut slice, &[4, 5]);
        assert_eq!(slice, [4, 5, 4, 5, 4, 5, 4]);
        let big = repeat_bytes(&[9, 8, 7, 6, 5], 1 << 20);
        assert_eq!(big.len(), 1 << 20);
        assert!(big.chunks(5).all(|c| c == &[9, 8, 7, 6, 5][..c.len()]));
    }
}

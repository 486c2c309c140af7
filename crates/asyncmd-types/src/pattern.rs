//! Repeating a byte pattern, as fills and clears write it.

/// `len` bytes of `pattern` repeated (the last repetition cut short). Built by doubling
/// copies, so a megabyte costs a few dozen `memcpy`s rather than a loop per byte.
pub fn repeat_bytes(pattern: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    if pattern.is_empty() {
        return out;
    }
    out.extend_from_slice(&pattern[..pattern.len().min(len)]);
    while out.len() < len {
        let n = out.len().min(len - out.len());
        out.extend_from_within(..n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::repeat_bytes;

    #[test]
    fn patterns_repeat_and_stop_at_the_length() {
        assert_eq!(repeat_bytes(&[1, 2, 3], 7), vec![1, 2, 3, 1, 2, 3, 1]);
        assert_eq!(repeat_bytes(&[1, 2, 3], 2), vec![1, 2]);
        assert_eq!(repeat_bytes(&[], 5), Vec::<u8>::new());
        let big = repeat_bytes(&[9, 8, 7, 6, 5], 1 << 20);
        assert_eq!(big.len(), 1 << 20);
        assert!(big.chunks(5).all(|c| c == &[9, 8, 7, 6, 5][..c.len()]));
    }
}

//! The two FillBuffers routes: the compute dispatch and copies from a CPU-filled upload chunk
//! (staged through VRAM on discrete devices for large fills).

use super::ledger::Scope;
use super::plan::UPLOAD_CHUNK;
use asyncmd_ddi::FILL_THREADS_PER_GROUP;

/// One planned fill: the bytes of one pattern and how many bytes it covers.
#[derive(Clone, Debug)]
pub(crate) struct Fill {
    pub(crate) buffer: crate::resource::Resource,
    pub(crate) offset: u64,
    pub(crate) pattern: Vec<u8>,
    pub(crate) bytes: u64,
}

/// The pattern as dwords for the fill shader: 1- and 2-byte patterns are repeated to fill one
/// dword (the route needs dword-aligned offsets, so the phase is kept).
pub(crate) fn dword_pattern(pattern: &[u8]) -> Vec<u32> {
    let bytes: Vec<u8> = match pattern.len() {
        1 | 2 => pattern.iter().copied().cycle().take(4).collect(),
        _ => pattern.to_vec(),
    };
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The fill shader's root constants for `dwords` dwords of `pattern`.
pub(crate) fn fill_constants(pattern: &[u8], dwords: u32) -> [u32; 6] {
    let p = dword_pattern(pattern);
    let mut c = [0u32; 6];
    c[..p.len()].copy_from_slice(&p);
    c[4] = p.len() as u32;
    c[5] = dwords;
    c
}

/// Thread groups (x, y) of one fill dispatch covering `dwords` dwords.
pub(crate) fn fill_groups(dwords: u32) -> (u32, u32) {
    let groups = dwords.div_ceil(FILL_THREADS_PER_GROUP).max(1);
    let x = groups.min(65535);
    (x, groups.div_ceil(x))
}

/// Bytes of the upload chunk for a fill: the largest whole number of patterns that fits in one
/// chunk and in the fill.
pub(crate) fn chunk_len(pattern_len: u64, bytes: u64) -> u64 {
    let cap = UPLOAD_CHUNK.min(bytes).max(pattern_len);
    cap / pattern_len * pattern_len
}

/// `len` bytes of the pattern repeated.
pub(crate) fn chunk_bytes(pattern: &[u8], len: u64) -> Vec<u8> {
    pattern.iter().copied().cycle().take(len as usize).collect()
}

/// The scope the compute route moves a buffer into.
pub(crate) const COMPUTE_UAV: Scope =
    Scope { sync: asyncmd_types::BarrierSync::COMPUTE_SHADING, access: asyncmd_types::BarrierAccess::UNORDERED_ACCESS };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_become_dwords_with_their_phase() {
        assert_eq!(dword_pattern(&[0xAB]), vec![0xABAB_ABAB]);
        assert_eq!(dword_pattern(&[1, 2]), vec![0x0201_0201]);
        assert_eq!(
            dword_pattern(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
            vec![0x0403_0201, 0x0807_0605, 0x0C0B_0A09]
        );
        assert_eq!(fill_constants(&[1, 2, 3, 4, 5, 6, 7, 8], 10), [0x0403_0201, 0x0807_0605, 0, 0, 2, 10]);
    }

    #[test]
    fn chunks_hold_whole_patterns() {
        assert_eq!(chunk_len(12, 10 << 20), UPLOAD_CHUNK / 12 * 12);
        assert_eq!(chunk_len(16, 100), 96);
        assert_eq!(chunk_len(4, 4), 4);
        assert_eq!(chunk_bytes(&[1, 2, 3], 7), vec![1, 2, 3, 1, 2, 3, 1]);
    }

    #[test]
    fn dispatch_grid_covers_every_dword() {
        assert_eq!(fill_groups(1), (1, 1));
        assert_eq!(fill_groups(64), (1, 1));
        assert_eq!(fill_groups(65), (2, 1));
        let (x, y) = fill_groups(u32::MAX);
        assert!(x as u64 * y as u64 * 64 >= u32::MAX as u64 && x <= 65535 && y <= 65535);
    }
}

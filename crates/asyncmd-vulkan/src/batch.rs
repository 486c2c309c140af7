//! The batched buffer kernels' tables and grids: every part of a copy or fill batch goes into one
//! table in device-visible memory, cut into fixed chunks that workgroups take grid-stride, so a
//! dispatch fills the GPU whatever the mix of part sizes (`cs_copy_buffer_batch`,
//! `cs_fill_batch`).

use crate::command::VkCommandList;
use asyncmd_types::{ClearElement, Error, MessageId, Result};

/// 16-byte elements per chunk of the copy kernel (64 KiB: 16 a thread, so that finding a
/// chunk's part costs little beside moving it).
const COPY_CHUNK: u64 = 4096;
/// Dwords per chunk of the fill kernel (64 KiB).
const FILL_CHUNK: u64 = 16384;
/// The most entries of one table: the kernels find the packed first chunks past `entries`
/// entries of up to 48 bytes with 32-bit arithmetic.
const MAX_ENTRIES: u32 = 1 << 24;
/// The most elements (copies) or dwords (fills) one table entry covers: the kernels index in
/// 32 bits, and a chunk past the end must not wrap.
const MAX_ENTRY: u64 = 1 << 30;
/// Workgroups of one batch on a GPU: grid-stride beyond it.
const GPU_GROUPS: u64 = 65535;
/// Workgroups of one batch on a CPU device, where each one is a task of its own.
const CPU_GROUPS: u64 = 64;

/// One part of a copy batch: device addresses and bytes, all multiples of 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CopyPart {
    pub(crate) src: u64,
    pub(crate) dst: u64,
    pub(crate) bytes: u64,
}

/// One part of a fill batch: the destination address and bytes (multiples of 4).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FillPart<'a> {
    pub(crate) dst: u64,
    pub(crate) bytes: u64,
    pub(crate) pattern: &'a ClearElement,
}

/// Appends one table entry's chunk bookkeeping: returns the entry's first chunk and moves
/// `chunks` past it.
fn chunk_range(chunks: &mut u64, units: u64, per_chunk: u64) -> Result<u32> {
    let first = *chunks;
    *chunks += units.div_ceil(per_chunk);
    if *chunks > MAX_CHUNKS {
        return Err(too_large());
    }
    Ok(first as u32)
}

/// The most chunks of one batch: a workgroup's next chunk (its chunk plus the group count)
/// must not wrap past 2^32.
const MAX_CHUNKS: u64 = 1 << 31;

fn too_large() -> Error {
    Error::fail(MessageId::DeviceUnsupported, "a batch of more than 2^31 chunks of 64 KiB or 2^24 parts")
}

/// Appends the packed first chunks after the entries, and checks the entry count.
fn finish(mut table: Vec<u8>, firsts: Vec<u32>, chunks: u64) -> Result<(Vec<u8>, u32, u64)> {
    let entries = u32::try_from(firsts.len()).ok().filter(|&n| n <= MAX_ENTRIES).ok_or_else(too_large)?;
    table.try_reserve(firsts.len() * 4).map_err(|_| Error::out_of_memory("a batch's table"))?;
    firsts.iter().for_each(|f| table.extend(f.to_le_bytes()));
    Ok((table, entries, chunks))
}

/// The copy kernel's table: 32 bytes an entry (source, destination, elements, first chunk),
/// parts longer than [`MAX_ENTRY`] elements cut into several entries, then every entry's first
/// chunk again, packed. Returns the table, its entries and its chunks.
pub(crate) fn copy_table(parts: &[CopyPart]) -> Result<(Vec<u8>, u32, u64)> {
    let mut table = Vec::new();
    table.try_reserve(parts.len() * 36).map_err(|_| Error::out_of_memory("a copy batch's table"))?;
    let (mut firsts, mut chunks) = (Vec::new(), 0u64);
    for p in parts {
        let mut done = 0;
        while done < p.bytes / 16 {
            let count = (p.bytes / 16 - done).min(MAX_ENTRY);
            let first = chunk_range(&mut chunks, count, COPY_CHUNK)?;
            table.extend((p.src + done * 16).to_le_bytes());
            table.extend((p.dst + done * 16).to_le_bytes());
            table.extend((count as u32).to_le_bytes());
            table.extend(first.to_le_bytes());
            table.extend([0u8; 8]);
            firsts.push(first);
            done += count;
        }
    }
    finish(table, firsts, chunks)
}

/// The fill kernel's table: 48 bytes an entry (pattern dwords, destination, dwords, pattern
/// length, first chunk), a long fill cut at whole patterns into several entries, then every
/// entry's first chunk again, packed.
pub(crate) fn fill_table(parts: &[FillPart]) -> Result<(Vec<u8>, u32, u64)> {
    let mut table = Vec::new();
    table.try_reserve(parts.len() * 52).map_err(|_| Error::out_of_memory("a fill batch's table"))?;
    let (mut firsts, mut chunks) = (Vec::new(), 0u64);
    for p in parts {
        let (dwords, n) = p.pattern.dwords().ok_or_else(|| {
            Error::fail(MessageId::DeviceUnsupported, "FillBuffers: a pattern that is not whole dwords")
        })?;
        let step = MAX_ENTRY / n as u64 * n as u64;
        let mut done = 0;
        while done < p.bytes / 4 {
            let count = (p.bytes / 4 - done).min(step);
            let first = chunk_range(&mut chunks, count, FILL_CHUNK)?;
            dwords.iter().for_each(|d| table.extend(d.to_le_bytes()));
            table.extend((p.dst + done * 4).to_le_bytes());
            table.extend((count as u32).to_le_bytes());
            table.extend(n.to_le_bytes());
            table.extend(first.to_le_bytes());
            table.extend([0u8; 12]);
            firsts.push(first);
            done += count;
        }
    }
    finish(table, firsts, chunks)
}

impl VkCommandList {
    /// Records one dispatch of the batch copy kernel over `parts` (none where they copy nothing);
    /// a batch of one part takes the plain compute copy, which needs no table.
    pub(crate) fn copy_batch(&mut self, parts: &[CopyPart]) -> Result<()> {
        if let [part] = parts {
            return self.compute_copy(*part);
        }
        let (table, entries, chunks) = copy_table(parts)?;
        self.dispatch_batch(&table, entries, chunks, |m| &m.copy_buffer_batch)
    }

    /// Records the plain compute copy of one part (a grid-stride kernel whose constants are the
    /// part itself): one dispatch per 2^32 - 1 elements, since the shader counts in 32 bits.
    pub(crate) fn compute_copy(&mut self, part: CopyPart) -> Result<()> {
        let meta = self.core.meta()?;
        let mut done = 0u64;
        while done < part.bytes {
            let bytes = (part.bytes - done).min((1 << 36) - 16);
            let count = bytes / 16;
            let constants = [part.src + done, part.dst + done, count];
            meta.copy_buffer.dispatch(self.cb, constants, crate::copy_speed::groups(count));
            done += bytes;
        }
        Ok(())
    }

    /// Records one dispatch of the batch fill kernel over `parts`.
    pub(crate) fn fill_batch(&mut self, parts: &[FillPart]) -> Result<()> {
        let (table, entries, chunks) = fill_table(parts)?;
        self.dispatch_batch(&table, entries, chunks, |m| &m.fill_batch)
    }

    fn dispatch_batch(
        &mut self,
        table: &[u8],
        entries: u32,
        chunks: u64,
        kernel: impl Fn(&crate::meta::Meta) -> &crate::meta::Kernel,
    ) -> Result<()> {
        if entries == 0 {
            return Ok(());
        }
        let t = self.table(table)?;
        let cap = if self.core.props.device_type == ash::vk::PhysicalDeviceType::CPU { CPU_GROUPS } else { GPU_GROUPS };
        let groups = chunks.clamp(1, cap) as u32;
        let meta = self.core.meta()?;
        let counts = entries as u64 | chunks << 32;
        kernel(meta).dispatch(self.cb, [t.address(), counts, 0], groups);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(table: &[u8], i: usize) -> (u64, u64, u32, u32) {
        let e = &table[i * 32..i * 32 + 32];
        let u64_at = |o: usize| u64::from_le_bytes(e[o..o + 8].try_into().unwrap());
        let u32_at = |o: usize| u32::from_le_bytes(e[o..o + 4].try_into().unwrap());
        (u64_at(0), u64_at(8), u32_at(16), u32_at(20))
    }

    #[test]
    fn copy_parts_take_consecutive_chunks() {
        let parts = [
            CopyPart { src: 0x1000, dst: 0x9000, bytes: 16 },
            CopyPart { src: 0x2000, dst: 0xa000, bytes: 16 * 3073 },
            CopyPart { src: 0x3000, dst: 0xb000, bytes: 0 },
            CopyPart { src: 0x4000, dst: 0xc000, bytes: 32 },
        ];
        let (table, entries, chunks) = copy_table(&parts).unwrap();
        assert_eq!((entries, chunks), (3, 1 + 1 + 1), "an empty part takes no entry");
        assert_eq!(entry(&table, 0), (0x1000, 0x9000, 1, 0));
        assert_eq!(entry(&table, 1), (0x2000, 0xa000, 3073, 1));
        assert_eq!(entry(&table, 2), (0x4000, 0xc000, 2, 2));
        let packed: Vec<u32> = table[96..].chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(packed, [0, 1, 2], "the first chunks again, packed after the entries");
    }

    #[test]
    fn long_copies_are_cut_into_entries_the_kernel_can_count() {
        let bytes = (MAX_ENTRY * 2 + 5) * 16;
        let (table, entries, chunks) = copy_table(&[CopyPart { src: 0, dst: 1 << 40, bytes }]).unwrap();
        assert_eq!(entries, 3);
        assert_eq!(chunks, 2 * MAX_ENTRY / COPY_CHUNK + 1);
        assert_eq!(entry(&table, 1), (MAX_ENTRY * 16, (1 << 40) + MAX_ENTRY * 16, MAX_ENTRY as u32, 1 << 18));
        assert_eq!(entry(&table, 2).2, 5);
    }

    #[test]
    fn long_fills_are_cut_at_whole_patterns() {
        let pattern = asyncmd_types::ClearElement::from_bytes(&[1; 12]).unwrap();
        let bytes = MAX_ENTRY * 4 + 12;
        let (table, entries, _) = fill_table(&[FillPart { dst: 0, bytes, pattern: &pattern }]).unwrap();
        assert_eq!(entries, 2);
        let step = MAX_ENTRY / 3 * 3;
        let second = &table[48..96];
        let dst = u64::from_le_bytes(second[16..24].try_into().unwrap());
        assert_eq!(dst, step * 4, "the second entry starts on a whole pattern");
        assert_eq!(u32::from_le_bytes(second[24..28].try_into().unwrap()) as u64, MAX_ENTRY + 3 - step);
    }
}

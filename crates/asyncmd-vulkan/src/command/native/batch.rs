//! The batched buffer kernels' tables and grids: every part of a copy or fill batch goes into one
//! table in device-visible memory, the parts laid end to end and cut into ranges of 16 KiB that
//! workgroups take grid-stride, so that a dispatch fills the GPU whatever the mix of part sizes,
//! and small parts share a range (`cs_copy_buffer_batch`, `cs_fill_batch`). The table also
//! names each range's first part: a search per range cost batches of many small parts up to a
//! tenth of their time on the H200. A batch of one part takes the plain grid-stride kernel
//! instead, which needs no table.

use crate::command::VkCommandList;
use asyncmd_types::{ClearElement, Error, MessageId, Result};

/// Bytes of one range of the kernels (their `RANGE`: 1024 elements of 16 bytes, 4096 dwords).
/// Measured on the H200: ranges taken grid-stride (neighbouring ranges written at once) filled
/// 4 GiB at 4.3 TB/s where contiguous blocks of ranges per workgroup reached 3.8–4.2, and
/// 16 KiB ranges keep small batches on enough workgroups (256 × 16 KiB: 6.7 µs, against 7.8
/// with 64 KiB ranges).
const RANGE_BYTES: u64 = 16 << 10;
/// 16-byte elements of one range of the copy kernel.
const COPY_RANGE: u64 = RANGE_BYTES / 16;
/// Dwords of one range of the fill kernel.
const FILL_RANGE: u64 = RANGE_BYTES / 4;
/// Workgroups of one batch on a GPU at most: a dimension's guaranteed limit.
const GPU_GROUPS: u64 = 65535;
/// Workgroups of one batch on a CPU device, where each one is a task of its own.
const CPU_GROUPS: u64 = 64;
/// The most elements (copies) or dwords (fills) of all entries of one dispatch together: the
/// kernels count in 32 bits, and a range end must not wrap.
const MAX_TOTAL: u64 = 1 << 31;
/// The most elements or dwords of one entry: half a dispatch, so that one always fits an empty
/// table.
const MAX_ENTRY: u64 = MAX_TOTAL / 2;
/// The most entries of one table: the kernels find the index past `entries` entries of up to
/// 48 bytes with 32-bit arithmetic.
const MAX_ENTRIES: usize = 1 << 24;

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

/// One dispatch of a batch kernel: its table (the entries, then each range's first entry, so
/// that the kernel searches nothing: 4 bytes a 16 KiB range), the entry count, and the elements
/// or dwords of all entries together.
#[derive(Debug)]
pub(crate) struct Dispatch {
    pub(crate) table: Vec<u8>,
    pub(crate) entries: u32,
    pub(crate) total: u64,
}

/// A table being built: the entries' bytes and starts (each entry's first element or dword in
/// the batch laid end to end).
#[derive(Debug, Default)]
struct Table {
    bytes: Vec<u8>,
    starts: Vec<u32>,
    total: u64,
}

impl Table {
    fn oom() -> Error {
        Error::out_of_memory("a batch's table")
    }

    /// Appends each range's first entry (ranges of `range_units` units) after the entries.
    fn finish(mut self, range_units: u64) -> Result<Dispatch> {
        let ranges = self.total.div_ceil(range_units);
        let bytes = usize::try_from(ranges * 4).map_err(|_| Self::oom())?;
        self.bytes.try_reserve(bytes).map_err(|_| Self::oom())?;
        let mut entry = 0usize;
        for range in 0..ranges {
            let v = range * range_units;
            while entry + 1 < self.starts.len() && self.starts[entry + 1] as u64 <= v {
                entry += 1;
            }
            self.bytes.extend((entry as u32).to_le_bytes());
        }
        Ok(Dispatch { table: self.bytes, entries: self.starts.len() as u32, total: self.total })
    }

    /// Whether an entry of `units` more fits this dispatch.
    fn fits(&self, units: u64) -> bool {
        self.starts.len() < MAX_ENTRIES && self.total + units <= MAX_TOTAL
    }

    /// Appends an entry of `units` units (at most [`MAX_ENTRY`]) that `entry` writes from its
    /// start, first handing this dispatch to `done` where it cannot count one more.
    fn push(
        &mut self,
        done: &mut Vec<Dispatch>,
        units: u64,
        range_units: u64,
        entry: impl FnOnce(&mut Vec<u8>, u32),
    ) -> Result<()> {
        if !self.fits(units) {
            done.push(std::mem::take(self).finish(range_units)?);
        }
        entry(&mut self.bytes, self.total as u32);
        self.starts.push(self.total as u32);
        self.total += units;
        Ok(())
    }

    /// The last dispatch, if it holds anything.
    fn close(self, mut done: Vec<Dispatch>, range_units: u64) -> Result<Vec<Dispatch>> {
        if !self.starts.is_empty() {
            done.push(self.finish(range_units)?);
        }
        Ok(done)
    }
}

/// The copy kernel's tables: 32 bytes an entry (source, destination, elements, start), parts
/// longer than [`MAX_ENTRY`] elements cut into several entries, and batches that one dispatch
/// cannot count cut into several dispatches.
pub(crate) fn copy_tables(parts: &[CopyPart]) -> Result<Vec<Dispatch>> {
    let (mut done, mut t) = (Vec::new(), Table::default());
    t.bytes.try_reserve(parts.len().min(MAX_ENTRIES) * 36).map_err(|_| Table::oom())?;
    for p in parts {
        let mut copied = 0;
        while copied < p.bytes / 16 {
            let count = (p.bytes / 16 - copied).min(MAX_ENTRY);
            let (src, dst) = (p.src + copied * 16, p.dst + copied * 16);
            t.push(&mut done, count, COPY_RANGE, |b, start| {
                b.extend(src.to_le_bytes());
                b.extend(dst.to_le_bytes());
                b.extend((count as u32).to_le_bytes());
                b.extend(start.to_le_bytes());
                b.extend([0u8; 8]);
            })?;
            copied += count;
        }
    }
    t.close(done, COPY_RANGE)
}

/// The fill kernel's tables: 48 bytes an entry (pattern dwords, destination, dwords, pattern
/// length, start), each entry starting on a whole quad of the batch laid end to end; a long fill
/// is cut at whole patterns and whole quads (every pattern length divides 12) into several
/// entries, and a batch one dispatch cannot count into several dispatches.
pub(crate) fn fill_tables(parts: &[FillPart]) -> Result<Vec<Dispatch>> {
    let (mut done, mut t) = (Vec::new(), Table::default());
    t.bytes.try_reserve(parts.len().min(MAX_ENTRIES) * 52).map_err(|_| Table::oom())?;
    for p in parts {
        let (dwords, n) = p.pattern.dwords().ok_or_else(|| {
            Error::fail(MessageId::DeviceUnsupported, "FillBuffers: a pattern that is not whole dwords")
        })?;
        let mut filled = 0;
        while filled < p.bytes / 4 {
            let count = (p.bytes / 4 - filled).min(MAX_ENTRY / 12 * 12);
            let dst = p.dst + filled * 4;
            t.push(&mut done, count.next_multiple_of(4), FILL_RANGE, |b, start| {
                dwords.iter().for_each(|d| b.extend(d.to_le_bytes()));
                b.extend(dst.to_le_bytes());
                b.extend((count as u32).to_le_bytes());
                b.extend(n.to_le_bytes());
                b.extend(start.to_le_bytes());
                b.extend([0u8; 12]);
            })?;
            filled += count;
        }
    }
    t.close(done, FILL_RANGE)
}

impl VkCommandList {
    /// Records the batch copy kernel over `parts` (nothing where they copy nothing); a batch
    /// of one part takes the plain compute copy, which needs no table.
    pub(crate) fn copy_batch(&mut self, parts: &[CopyPart]) -> Result<()> {
        if let [part] = parts {
            return self.compute_copy(*part);
        }
        for d in copy_tables(parts)? {
            self.dispatch_batch(&d, 16, |m| &m.copy_buffer_batch)?;
        }
        Ok(())
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

    /// Records the batch fill kernel over `parts`; a batch of one part takes the plain fill,
    /// the built-in fill shader on the grid the fallback gives it (on the H200 a 4 GiB fill ran
    /// 1.10 ms through the batch kernel and 0.98 ms through it).
    pub(crate) fn fill_batch(&mut self, parts: &[FillPart]) -> Result<()> {
        if let [part] = parts {
            return self.plain_fill(part);
        }
        for d in fill_tables(parts)? {
            self.dispatch_batch(&d, 4, |m| &m.fill_batch)?;
        }
        Ok(())
    }

    /// One fill by the built-in fill shader: one dispatch per 2^32 - 1 dwords, cut at whole
    /// patterns (the shader counts in 32 bits).
    fn plain_fill(&mut self, part: &FillPart) -> Result<()> {
        let (pattern, n) = part.pattern.dwords().ok_or_else(|| {
            Error::fail(MessageId::DeviceUnsupported, "FillBuffers: a pattern that is not whole dwords")
        })?;
        let step = u32::MAX as u64 / n as u64 * n as u64;
        let meta = self.core.meta()?;
        let mut done = 0;
        while done < part.bytes / 4 {
            let count = (part.bytes / 4 - done).min(step) as u32;
            let dst = part.dst + done * 4;
            let words = [pattern[0], pattern[1], pattern[2], pattern[3], n, count, dst as u32, (dst >> 32) as u32];
            meta.fill.dispatch_words(self.cb, &words, asyncmd_ddi::fill_groups(count));
            done += count as u64;
        }
        Ok(())
    }

    /// One dispatch of `d`, whose units are `unit_bytes` bytes: a workgroup a range, up to the
    /// device's cap (past which groups take several).
    fn dispatch_batch(
        &mut self,
        d: &Dispatch,
        unit_bytes: u64,
        kernel: impl Fn(&crate::meta::Meta) -> &crate::meta::Kernel,
    ) -> Result<()> {
        // The table in the list's upload memory, which the kernel reads by address.
        let (_, _, address) = self.upload_addressed(d.table.len() as u64, 64, |m| m.copy_from_slice(&d.table))?;
        let cap = if self.core.props.device_type == ash::vk::PhysicalDeviceType::CPU { CPU_GROUPS } else { GPU_GROUPS };
        let groups = (d.total * unit_bytes).div_ceil(RANGE_BYTES).clamp(1, cap) as u32;
        let words = [address as u32, (address >> 32) as u32, d.entries, d.total as u32, 0, 0, 0, 0];
        kernel(self.core.meta()?).dispatch_words(self.cb, &words, (groups, 1));
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

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn copy_parts_are_laid_end_to_end_with_each_ranges_first_part() {
        let parts = [
            CopyPart { src: 0x1000, dst: 0x9000, bytes: 16 },
            CopyPart { src: 0x2000, dst: 0xa000, bytes: 16 * 3073 },
            CopyPart { src: 0x3000, dst: 0xb000, bytes: 0 },
            CopyPart { src: 0x4000, dst: 0xc000, bytes: 32 },
        ];
        let tables = copy_tables(&parts).unwrap();
        let [d] = tables.as_slice() else { panic!("one dispatch") };
        assert_eq!((d.entries, d.total), (3, 1 + 3073 + 2), "an empty part takes no entry");
        assert_eq!(entry(&d.table, 0), (0x1000, 0x9000, 1, 0));
        assert_eq!(entry(&d.table, 1), (0x2000, 0xa000, 3073, 1));
        assert_eq!(entry(&d.table, 2), (0x4000, 0xc000, 2, 3074));
        // Then the first entry of each range of 1024 elements: elements 0, 1024, 2048 and 3072
        // lie in entries 0, 1, 1 and 1.
        assert_eq!(words(&d.table[96..]), [0, 1, 1, 1]);
    }

    #[test]
    fn batches_past_what_a_dispatch_counts_take_several() {
        let bytes = (MAX_TOTAL * 2 + 5) * 16;
        let tables = copy_tables(&[CopyPart { src: 0, dst: 1 << 40, bytes }]).unwrap();
        let shape: Vec<_> = tables.iter().map(|t| (t.entries, t.total)).collect();
        assert_eq!(shape, [(2, MAX_TOTAL), (2, MAX_TOTAL), (1, 5)], "entries of half a dispatch");
        assert_eq!(entry(&tables[1].table, 0), (MAX_TOTAL * 16, (1 << 40) + MAX_TOTAL * 16, MAX_ENTRY as u32, 0));
        // A part that would pass the count starts the next dispatch.
        let parts = [CopyPart { src: 0, dst: 0, bytes: (MAX_TOTAL - 2) * 16 }, CopyPart { src: 0, dst: 0, bytes: 64 }];
        let tables = copy_tables(&parts).unwrap();
        assert_eq!(tables.iter().map(|t| (t.entries, t.total)).collect::<Vec<_>>(), [(2, MAX_TOTAL - 2), (1, 4)]);
    }

    #[test]
    fn fills_start_on_whole_quads_and_long_ones_are_cut_at_whole_patterns() {
        let twelve = ClearElement::from_bytes(&[1; 12]).unwrap();
        let four = ClearElement::from_bytes(&[2; 4]).unwrap();
        let parts = [FillPart { dst: 0, bytes: 12, pattern: &twelve }, FillPart { dst: 64, bytes: 8, pattern: &four }];
        let tables = fill_tables(&parts).unwrap();
        let d = &tables[0];
        assert_eq!((d.entries, d.total), (2, 4 + 4), "three dwords take a whole quad");
        let start = |i: usize| u32::from_le_bytes(d.table[i * 48 + 32..i * 48 + 36].try_into().unwrap());
        assert_eq!((start(0), start(1)), (0, 4));
        assert_eq!(words(&d.table[96..]), [0], "one range, starting in entry 0");
        let long = [FillPart { dst: 0, bytes: MAX_TOTAL * 4, pattern: &twelve }];
        let tables = fill_tables(&long).unwrap();
        let step = MAX_ENTRY / 12 * 12;
        let second = &tables[0].table[48..96];
        assert_eq!(u64::from_le_bytes(second[16..24].try_into().unwrap()), step * 4, "cut on a whole pattern");
    }
}

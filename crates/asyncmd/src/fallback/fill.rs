//! The two FillBuffers routes: the compute dispatch and copies from a CPU-filled upload chunk
//! (staged through VRAM on discrete devices for large fills), and what they emit.

use super::lowering::{ListFacts, Lowering};
use super::plan::{plan_fill, FillFacts, FillRoute, UPLOAD_CHUNK};
use super::pools::size_class;
use super::pools::TileKey;
use crate::resource::Resource;
use crate::track::Scope;
use asyncmd_ddi::{fill_groups, Command};
use asyncmd_types::{
    BarrierAccess, BarrierGroup, BarrierLayout, BarrierSync, BufferBarrier, BufferCopyRegion, ClearElement,
    GlobalBarrier, HeapType, ResolvedFill, ResourceDesc, ResourceFlags, Result,
};

/// A fill the fallback lowers: the resolved description, naming the list's resources.
pub(crate) type Fill<'r> = ResolvedFill<&'r Resource>;

/// A pattern as the fill shader takes it (see [`ClearElement::dwords`]): its dwords and their
/// count.
pub(crate) fn pattern_dwords(pattern: &ClearElement) -> ([u32; 4], u32) {
    pattern.dwords().unwrap_or(([0; 4], 1))
}

/// The fill shader's root constants for `dwords` dwords of a pattern of `(p, n)`
/// ([`pattern_dwords`]): the pattern, its dword count, and the dwords to write.
pub(crate) fn fill_constants((p, n): ([u32; 4], u32), dwords: u32) -> [u32; 6] {
    [p[0], p[1], p[2], p[3], n, dwords]
}

/// The dispatches of one compute fill of `bytes` bytes of a pattern of `n` dwords, as (byte
/// offset, bytes): the shader counts dwords in 32 bits, so a larger fill takes several, each
/// starting at a whole dword pattern.
pub(crate) fn dispatch_pieces(n: u32, bytes: u64) -> impl Iterator<Item = (u64, u64)> {
    let step = 4 * n.max(1) as u64;
    let max = u32::MAX as u64 * 4 / step * step;
    (0..bytes.div_ceil(max)).map(move |n| (n * max, (bytes - n * max).min(max)))
}

/// Bytes of the upload chunk for a fill: the largest whole number of patterns that fits in one
/// chunk and in the fill.
pub(crate) fn chunk_len(pattern_len: u64, bytes: u64) -> u64 {
    let cap = UPLOAD_CHUNK.min(bytes).max(pattern_len);
    cap / pattern_len * pattern_len
}

/// What identifies a fill's upload chunk among the pattern tiles: its pattern and a one-row
/// footprint of its bytes (a chunk is at most [`UPLOAD_CHUNK`] bytes).
pub(crate) fn chunk_key(pattern: &ClearElement, len: u64) -> TileKey {
    let bytes = len as u32;
    let footprint = asyncmd_types::SubresourceFootprint {
        format: asyncmd_types::Format::Unknown,
        width: bytes,
        height: 1,
        depth: 1,
        row_pitch: bytes,
    };
    (*pattern, footprint)
}

/// `len` bytes of the pattern repeated.
pub(crate) fn chunk_bytes(pattern: &[u8], len: u64) -> Vec<u8> {
    asyncmd_types::repeat_bytes(pattern, len as usize)
}

/// The scope the compute route moves a buffer into.
pub(crate) const COMPUTE_UAV: Scope =
    Scope { sync: asyncmd_types::BarrierSync::COMPUTE_SHADING, access: asyncmd_types::BarrierAccess::UNORDERED_ACCESS };

/// Joins each fill with the next where that one continues it: the same buffer and pattern,
/// starting where it ends. A fill's bytes are whole patterns, so the joined fill writes the
/// bytes the two did; one dispatch or copy run instead of two (256 fills of one buffer's
/// consecutive ranges, the usual batch, become one).
pub(crate) fn join_runs<R: Copy>(fills: Vec<ResolvedFill<R>>, same: impl Fn(&R, &R) -> bool) -> Vec<ResolvedFill<R>> {
    let mut out: Vec<ResolvedFill<R>> = Vec::with_capacity(fills.len());
    for f in fills {
        if let Some(last) = out.last_mut() {
            let continues = same(&last.buffer, &f.buffer)
                && last.pattern == f.pattern
                && last.offset.checked_add(last.bytes) == Some(f.offset);
            if let (true, Some(bytes)) = (continues, last.bytes.checked_add(f.bytes)) {
                last.bytes = bytes;
                continue;
            }
        }
        out.push(f);
    }
    out
}

/// `FillBuffers` under the fallback: fills that continue each other are joined, each is planned
/// on its route, and runs of one route are recorded together.
pub(crate) fn lower(lw: &mut Lowering, planned: Vec<Fill>, facts: &ListFacts) -> Result<()> {
    // Fills that continue each other are joined; a batch of separate buffers (the usual one)
    // skips the pass.
    let planned = if planned.windows(2).any(|w| w[0].buffer.same(w[1].buffer)) {
        join_runs(planned, |a, b| a.same(b))
    } else {
        planned
    };
    // Runs of one route go together. Planning is pure, so each fill's route is worked out where
    // the run loop needs it, with no vector of routes.
    let predicated = lw.shadow.predicated;
    let alone = planned.len() == 1;
    let route = |f: &Fill| {
        let fill = FillFacts {
            list: facts.list,
            heap: f.buffer.heap_type(),
            uav: f.buffer.desc().flags.contains(ResourceFlags::ALLOW_UNORDERED_ACCESS),
            protected: f.buffer.is_protected(),
            offset: f.offset,
            bytes: f.bytes,
            predicated,
            alone,
        };
        plan_fill(&fill, &facts.device)
    };
    let mut start = 0;
    while start < planned.len() {
        let compute = route(&planned[start]) == FillRoute::Compute;
        let len = planned[start..].iter().position(|f| (route(f) == FillRoute::Compute) != compute);
        let end = len.map_or(planned.len(), |n| start + n);
        let run = &planned[start..end];
        tracing::trace!(compute, fills = run.len(), "FillBuffers: fallback run");
        if compute {
            lw.fill_compute(run)?;
        } else {
            for f in run {
                lw.fill_upload(f, route(f) == FillRoute::Upload { staged: true })?;
            }
        }
        start = end;
    }
    Ok(())
}

/// Fills a batch moves with a barrier a buffer; more take one global barrier.
const GLOBAL_FROM: usize = 8;

/// Where the buffers of a batch come from: one scope for all, or each its tracked one.
#[derive(Clone, Copy)]
enum FromScope<'t> {
    All(Scope),
    Each(&'t crate::track::Tracker<Resource>),
}

impl FromScope<'_> {
    /// The scope `f`'s buffer comes from.
    fn of(self, f: &Fill) -> Scope {
        match self {
            FromScope::All(s) => s,
            FromScope::Each(tracker) => tracker.scope_or(f.buffer.id(), Scope::COPY_DEST),
        }
    }
}

impl Lowering<'_> {
    /// The barriers moving the fills' buffers from their scopes to `to`: one a buffer, or for a
    /// batch of more than [`GLOBAL_FROM`] fills one global barrier.
    fn buffer_barriers(fills: &[Fill], from: FromScope, to: Scope) -> BarrierGroup<asyncmd_ddi::ResourceId> {
        if fills.len() > GLOBAL_FROM {
            let barrier = match from {
                FromScope::All(s) => Self::global_barrier(std::iter::once(s), to),
                FromScope::Each(_) => Self::global_barrier(fills.iter().map(|f| from.of(f)), to),
            };
            return BarrierGroup::Global(vec![barrier]);
        }
        let mut barriers: Vec<BufferBarrier<asyncmd_ddi::ResourceId>> = fills
            .iter()
            .map(|f| {
                let s = from.of(f);
                BufferBarrier {
                    sync_before: s.sync,
                    sync_after: to.sync,
                    access_before: s.access,
                    access_after: to.access,
                    resource: f.buffer.id(),
                    offset: 0,
                    size: u64::MAX,
                }
            })
            .collect();
        // One barrier a buffer.
        barriers.sort_by_key(|b| b.resource.0);
        barriers.dedup_by_key(|b| b.resource.0);
        BarrierGroup::Buffer(barriers)
    }

    /// One global barrier from the union of `scopes` to `to`: it orders the same accesses as
    /// a barrier a buffer (buffers have no layouts) for a fraction of the recording. A buffer
    /// that no access reached needs no wait (NO_ACCESS may not share a barrier's bits), and
    /// COMMON (no bits) already means every access.
    fn global_barrier(scopes: impl Iterator<Item = Scope>, to: Scope) -> GlobalBarrier {
        let (mut sync_before, mut access_before, mut reached, mut common) =
            (BarrierSync::NONE, BarrierAccess::COMMON, false, false);
        for s in scopes.filter(|s| !s.access.contains(BarrierAccess::NO_ACCESS)) {
            sync_before |= s.sync;
            access_before |= s.access;
            common |= s.access == BarrierAccess::COMMON;
            reached = true;
        }
        let access_before = match (reached, common) {
            (false, _) => BarrierAccess::NO_ACCESS,
            (true, true) => BarrierAccess::COMMON,
            (true, false) => access_before,
        };
        GlobalBarrier { sync_before, sync_after: to.sync, access_before, access_after: to.access }
    }

    /// The compute route: the buffers move from their tracked scope to compute/UAV, the fill
    /// shader writes each pattern, they move back to COPY/COPY_DEST, and the app's compute
    /// state is restored.
    pub(crate) fn fill_compute(&mut self, fills: &[Fill]) -> Result<()> {
        let (root, pso) = self.resources.fill_pipeline(self.factory)?;
        // Until the list's barriers or the fallback's work set a scope (the usual frame), every
        // buffer is in COPY/COPY_DEST: no lookup per fill.
        let tracked = self.tracker.has_scopes();
        let from = if tracked { FromScope::Each(self.tracker) } else { FromScope::All(Scope::COPY_DEST) };
        let to_compute = Self::buffer_barriers(fills, from, COMPUTE_UAV);
        self.record(Command::Barrier(vec![to_compute]));
        self.record(Command::SetComputeRootSignature(root.id()));
        self.record(Command::SetPipelineState(pso.0.id));
        // Fills of one pattern and size (the common batch) share their constants and grid:
        // the constants are set once, and a fill of one dispatch is repeated as it is by the
        // next fill of its pattern and size, which records its UAV and its dispatch alone.
        let mut constants_set: Option<[u32; 6]> = None;
        let mut repeat: Option<(ClearElement, u64, (u32, u32))> = None;
        for f in fills {
            if let Some((_, _, (x, y))) = repeat.filter(|(p, bytes, _)| *p == f.pattern && *bytes == f.bytes) {
                self.record(Command::SetComputeRootUav { parameter: 1, address: f.buffer.gpu_address(f.offset) });
                self.record(Command::Dispatch { x, y, z: 1 });
                continue;
            }
            let dwords = pattern_dwords(&f.pattern);
            for (done, bytes) in dispatch_pieces(dwords.1, f.bytes) {
                let count = (bytes / 4) as u32;
                let constants = fill_constants(dwords, count);
                if constants_set != Some(constants) {
                    constants_set = Some(constants);
                    self.record(Command::SetComputeRootConstants {
                        parameter: 0,
                        offset: 0,
                        values: constants.to_vec(),
                    });
                }
                let (x, y) = fill_groups(count);
                self.record(Command::SetComputeRootUav {
                    parameter: 1,
                    address: f.buffer.gpu_address(f.offset + done),
                });
                self.record(Command::Dispatch { x, y, z: 1 });
                repeat = (done == 0 && bytes == f.bytes).then_some((f.pattern, f.bytes, (x, y)));
            }
        }
        let back = Self::buffer_barriers(fills, FromScope::All(COMPUTE_UAV), Scope::COPY_DEST);
        self.record(Command::Barrier(vec![back]));
        // COPY/COPY_DEST is what an untracked buffer is taken to be in: only others change.
        for f in fills.iter().filter(|_| tracked) {
            if self.tracker.scope_or(f.buffer.id(), Scope::COPY_DEST) != Scope::COPY_DEST {
                self.tracker.set_scope(f.buffer.id(), Scope::COPY_DEST);
            }
        }
        self.restore_compute_state();
        Ok(())
    }

    /// A fallback buffer of at least `size` bytes in `heap`, owned by the list's allocator.
    pub(crate) fn fallback_buffer(&mut self, heap: HeapType, size: u64) -> Result<Resource> {
        let b = match self.resources.pools.take(heap, size) {
            Some(b) => b,
            None => self.factory.create_committed_resource(
                heap,
                &ResourceDesc::buffer(size_class(size)),
                BarrierLayout::Undefined,
            )?,
        };
        self.cache.own(b.clone());
        Ok(b)
    }

    /// A VRAM staging block of this recording holding the first `len` bytes of `upload`,
    /// ready to be copied from.
    pub(crate) fn stage(&mut self, upload: &Resource, len: u64) -> Result<Resource> {
        let staging = self.fallback_buffer(HeapType::Default, len)?;
        self.record(Command::CopyBufferRegion(BufferCopyRegion {
            dest: staging.id(),
            dest_offset: 0,
            source: upload.id(),
            source_offset: 0,
            size: len,
        }));
        self.record(Command::Barrier(vec![BarrierGroup::Buffer(vec![BufferBarrier {
            sync_before: asyncmd_types::BarrierSync::COPY,
            sync_after: asyncmd_types::BarrierSync::COPY,
            access_before: asyncmd_types::BarrierAccess::COPY_DEST,
            access_after: asyncmd_types::BarrierAccess::COPY_SOURCE,
            resource: staging.id(),
            offset: 0,
            size: u64::MAX,
        }])]));
        Ok(staging)
    }

    /// The VRAM copy of pattern tile `key`, whose bytes `upload` holds (the first `len`): the
    /// one the device kept from a recording that has run, copied from as it is, or a block
    /// this recording fills now, which the device keeps after the allocator's reset. A later
    /// frame then copies from VRAM without staging again.
    pub(crate) fn vram_tile(&mut self, key: TileKey, upload: &Resource, len: u64) -> Result<Resource> {
        let vram = match self.resources.pools.tile(&key, true) {
            Some(kept) => kept,
            None => self.stage(upload, len)?,
        };
        self.cache.keep_staged(key, vram.clone());
        Ok(vram)
    }

    /// An upload buffer of a pattern's bytes, written once on the CPU: the one this allocator
    /// holds for `key`, or one the device kept from an earlier recording (never written after
    /// it is made, so any list may read it), or a new one. Held by this allocator until its
    /// reset, then kept by the device while its budget allows.
    pub(crate) fn pattern_buffer(&mut self, key: TileKey, bytes: impl FnOnce() -> Vec<u8>) -> Result<Resource> {
        if let Some(b) = self.cache.tile(&key) {
            return Ok(b);
        }
        if let Some(b) = self.resources.pools.tile(&key, false) {
            self.cache.keep_tile(key, b.clone());
            return Ok(b);
        }
        let bytes = bytes();
        let b = self.fallback_buffer(HeapType::Upload, bytes.len() as u64)?;
        b.write(0, &bytes)?;
        self.cache.keep_tile(key, b.clone());
        Ok(b)
    }

    /// The upload route: copies from a chunk of whole patterns written on the CPU, reusing the
    /// last chunk when the pattern repeats, and chunks of earlier recordings (a chunk is the
    /// one-row tile of its pattern: [`chunk_key`]); from its VRAM copy when `staged`
    /// ([`Lowering::vram_tile`]).
    pub(crate) fn fill_upload(&mut self, f: &Fill, staged: bool) -> Result<()> {
        let len = chunk_len(f.pattern.as_bytes().len() as u64, f.bytes);
        let (chunk, held) = match &self.state.last_chunk {
            Some((pattern, chunk, held)) if *pattern == f.pattern && *held >= len => (chunk.clone(), *held),
            _ => {
                let chunk =
                    self.pattern_buffer(chunk_key(&f.pattern, len), || chunk_bytes(f.pattern.as_bytes(), len))?;
                self.state.last_chunk = Some((f.pattern, chunk.clone(), len));
                (chunk, len)
            }
        };
        let source = if staged { self.vram_tile(chunk_key(&f.pattern, held), &chunk, held)? } else { chunk };
        let mut done = 0;
        while done < f.bytes {
            let size = len.min(f.bytes - done);
            self.record(Command::CopyBufferRegion(BufferCopyRegion {
                dest: f.buffer.id(),
                dest_offset: f.offset + done,
                source: source.id(),
                source_offset: 0,
                size,
            }));
            done += size;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(bytes: &[u8]) -> ClearElement {
        ClearElement::from_bytes(bytes).expect("1 to 16 bytes")
    }

    #[test]
    fn patterns_become_dwords_with_their_phase() {
        let fill_constants = |p: &ClearElement, dwords| fill_constants(pattern_dwords(p), dwords);
        assert_eq!(fill_constants(&e(&[0xAB]), 3), [0xABAB_ABAB, 0, 0, 0, 1, 3]);
        assert_eq!(fill_constants(&e(&[1, 2]), 3), [0x0201_0201, 0, 0, 0, 1, 3]);
        assert_eq!(
            fill_constants(&e(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), 6),
            [0x0403_0201, 0x0807_0605, 0x0C0B_0A09, 0, 3, 6]
        );
        assert_eq!(fill_constants(&e(&[1, 2, 3, 4, 5, 6, 7, 8]), 10), [0x0403_0201, 0x0807_0605, 0, 0, 2, 10]);
    }

    #[test]
    fn chunks_hold_whole_patterns() {
        assert_eq!(chunk_len(12, 10 << 20), UPLOAD_CHUNK / 12 * 12);
        assert_eq!(chunk_len(16, 100), 96);
        assert_eq!(chunk_len(4, 4), 4);
        assert_eq!(chunk_bytes(&[1, 2, 3], 7), vec![1, 2, 3, 1, 2, 3, 1]);
    }

    #[test]
    fn large_fills_split_into_dispatches_of_whole_patterns() {
        let pieces = |pattern: &[u8], bytes| dispatch_pieces(pattern_dwords(&e(pattern)).1, bytes).collect::<Vec<_>>();
        assert_eq!(pieces(&[1], 64), [(0, 64)]);
        assert_eq!(pieces(&[1], 0), []);
        // One dispatch writes at most u32::MAX dwords, rounded down to whole patterns:
        // 4 * (2^32 - 1) bytes for a dword pattern, 12 * 1431655765 for a 12-byte one.
        let dword_max = 4 * u32::MAX as u64;
        assert_eq!(pieces(&[1, 2, 3, 4], dword_max), [(0, dword_max)]);
        assert_eq!(pieces(&[1, 2, 3, 4], dword_max + 8), [(0, dword_max), (dword_max, 8)]);
        let twelve_max = 12 * 1_431_655_765;
        assert_eq!(
            pieces(&[7; 12], 2 * twelve_max + 24),
            [(0, twelve_max), (twelve_max, twelve_max), (2 * twelve_max, 24)]
        );
        // 16-byte patterns: 4 dwords a pattern, so the piece is a multiple of 16.
        let sixteen_max = (4 * u32::MAX as u64) / 16 * 16;
        assert_eq!(pieces(&[9; 16], sixteen_max + 16)[1], (sixteen_max, 16));
    }
}

#[cfg(test)]
mod join_tests {
    use super::*;
    use asyncmd_types::ClearElement;

    fn fill(buffer: u32, offset: u64, bytes: u64, pattern: &[u8]) -> ResolvedFill<u32> {
        ResolvedFill { buffer, offset, pattern: ClearElement::from_bytes(pattern).expect("1 to 16 bytes"), bytes }
    }

    #[test]
    fn only_fills_that_continue_each_other_join() {
        let p = [1u8, 2, 3, 4];
        let joined = join_runs((0..256).map(|i| fill(7, i * 64, 64, &p)).collect(), |a, b| a == b);
        assert_eq!(joined, vec![fill(7, 0, 256 * 64, &p)]);
        let apart = vec![
            fill(7, 0, 64, &p),
            fill(7, 128, 64, &p),   // a gap
            fill(8, 192, 64, &p),   // another buffer
            fill(8, 256, 64, &[9]), // another pattern
            fill(8, 320, 64, &[9]),
        ];
        let out = join_runs(apart, |a, b| a == b);
        assert_eq!(out.len(), 4);
        assert_eq!(out[3], fill(8, 256, 128, &[9]));
    }
}

//! The async copies and resolves: `CopyBufferRegions`, `CopyTextureRegions`, `CopyResources`,
//! `CopyTilesAsync`, `ResolveSubresourceRegionAsync`, `ResolveQueryDataAsync`.
//!
//! Each call is validated with the legacy rules of its parts, then goes to the device's native
//! DDI (`Impl` NATIVE) or through the fallback (`Impl` FALLBACK).

use super::async_cmd::Gate;
use super::copy::{
    copy_accesses, validate_buffer_copy, validate_copy_locations, validate_copy_resource, validate_texture_copy,
};
use super::query::validate_resolve_query_data;
use super::ranges::{may_overlap, Range};
use super::semantics::Use;
use super::{CommandRecorder, Lists, ALL_QUEUES};
use crate::err;
use crate::fallback;
use crate::objects::QueryHeap;
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::{Command, QueryResolve, Resolve, TileCopy};
use asyncmd_types::{
    BufferCopyRegion, Format, MessageId, MessageSeverity, QueryType, Rect, ResolveMode, Result, TextureCopyDesc,
    TileCopyFlags, TileRegionSize, TiledResourceCoordinate,
};
use smallvec::SmallVec;

/// Regions of one `CopyBufferRegions` call compared pair by pair; more are sorted first.
const PAIRWISE_REGIONS: usize = 16;

/// Ownership errors of the async copies and resolves: one message id for all of them.
const OWNERSHIP: MessageId = MessageId::CopyBufferRegionsInvalidParameters;

impl CommandRecorder {
    /// `CopyBufferRegions`: independent buffer copies with no ordering among them. Overlapping
    /// destinations are legal but non-deterministic (the debug layer warns); a region that reads
    /// what another writes is refused.
    pub fn copy_buffer_regions(&mut self, regions: &[BufferCopyRegion<&Resource>]) {
        const API: &str = "CopyBufferRegions";
        let all: SmallVec<[&Resource; 8]> = regions.iter().flat_map(|r| [r.dest, r.source]).collect();
        self.async_command(
            API,
            Gate::Outside(ALL_QUEUES),
            Some((OWNERSHIP, &all)),
            |l| {
                regions
                    .iter()
                    .try_for_each(|r| {
                        validate_buffer_copy(API, r.dest, r.dest_offset, r.source, r.source_offset, r.size)
                    })
                    .and_then(|_| l.check_region_overlaps(API, regions))?;
                if l.tracks_uses() {
                    let (write, read) = copy_accesses(true);
                    let uses: SmallVec<[Use; 8]> = regions
                        .iter()
                        .flat_map(|r| [Use::one(r.dest, 0, write), Use::one(r.source, 0, read)])
                        .collect();
                    l.uses(API, &uses)?;
                }
                Ok(regions
                    .iter()
                    .map(|r| BufferCopyRegion {
                        dest: r.dest.id(),
                        dest_offset: r.dest_offset,
                        source: r.source.id(),
                        source_offset: r.source_offset,
                        size: r.size,
                    })
                    .collect::<Vec<_>>())
            },
            Command::CopyBufferRegions,
            |l, ids| fallback::copy::buffer_regions(&ids, |c| l.record(c)),
        );
    }

    /// Overlap checks of one `CopyBufferRegions` call: destinations that overlap each other are
    /// reported; a source that overlaps another region's destination is refused.
    fn check_region_overlaps(&mut self, api: &str, regions: &[BufferCopyRegion<&Resource>]) -> Result<()> {
        // A large batch that overlaps nowhere (the common case) is told by a sort, instead of
        // comparing every pair; a few regions are compared pair by pair, with no allocation.
        if regions.len() > PAIRWISE_REGIONS {
            let reads: Vec<Range> = regions.iter().map(|r| (r.source.id().0, r.source_offset, r.size)).collect();
            let writes: Vec<Range> = regions.iter().map(|r| (r.dest.id().0, r.dest_offset, r.size)).collect();
            if may_overlap(&reads, &writes) == (false, false) {
                return Ok(());
            }
        }
        let overlaps =
            |a: (&Resource, u64, u64), b: (&Resource, u64, u64)| a.0.same(b.0) && a.1 < b.1 + b.2 && b.1 < a.1 + a.2;
        let mut warned = false;
        for (i, a) in regions.iter().enumerate() {
            for (j, b) in regions.iter().enumerate() {
                if i == j {
                    continue;
                }
                if overlaps((a.source, a.source_offset, a.size), (b.dest, b.dest_offset, b.size)) {
                    return Err(err::invalid(
                        MessageId::CopyBufferRegionsOverlappingRegions,
                        api,
                        format!("region {i} reads bytes that region {j} writes"),
                    ));
                }
                if j > i && !warned && overlaps((a.dest, a.dest_offset, a.size), (b.dest, b.dest_offset, b.size)) {
                    warned = true;
                    self.device.info_queue.push(
                        MessageSeverity::Warning,
                        MessageId::CopyBufferRegionsOverlappingRegions,
                        format!("{api}: the destinations of regions {i} and {j} overlap; their order is not defined"),
                    );
                }
            }
        }
        Ok(())
    }

    /// `CopyTextureRegions`: texture copies in any direction, independent of each other.
    pub fn copy_texture_regions(&mut self, descs: &[TextureCopyDesc<&Resource>]) {
        const API: &str = "CopyTextureRegions";
        self.async_command(
            API,
            Gate::Outside(ALL_QUEUES),
            None,
            |l| {
                let partial = l.partial_ds_msaa_copies();
                for d in descs {
                    let (dest, source) = d.kind.locations();
                    if !l.owns(dest.resource) || !l.owns(source.resource) {
                        return Err(err::invalid(
                            MessageId::CopyTextureRegionInvalidParameters,
                            API,
                            "a resource belongs to another device",
                        ));
                    }
                    // Each region's check starts with the locations' own: checked here only
                    // where no region will.
                    if d.regions.is_empty() {
                        validate_copy_locations(API, &dest, &source)?;
                    }
                    for region in &d.regions {
                        let at = (region.dest_x, region.dest_y, region.dest_z);
                        validate_texture_copy(partial, API, &dest, at, &source, region.source_box.as_ref())?;
                    }
                    l.track_copy(API, &dest, &source, true)?;
                }
                Ok(())
            },
            // Only the native command owns the descriptions; the fallback records from the call's.
            |()| {
                Command::CopyTextureRegions(
                    descs
                        .iter()
                        .map(|d| TextureCopyDesc { kind: d.kind.map(|r| r.id()), regions: d.regions.clone() })
                        .collect(),
                )
            },
            |l, ()| fallback::copy::texture_regions(descs, |c| l.record(c)),
        );
    }

    /// `CopyResources`: whole-resource copies, independent of each other.
    pub fn copy_resources(&mut self, pairs: &[(&Resource, &Resource)]) {
        const API: &str = "CopyResources";
        let all: Vec<&Resource> = pairs.iter().flat_map(|(d, s)| [*d, *s]).collect();
        self.async_command(
            API,
            Gate::Outside(ALL_QUEUES),
            Some((OWNERSHIP, &all)),
            |l| {
                for (d, s) in pairs {
                    validate_copy_resource(API, d, s)?;
                    let (write, read) = copy_accesses(true);
                    l.track_whole(API, d, write)?;
                    l.track_whole(API, s, read)?;
                }
                Ok(pairs.iter().map(|(d, s)| (d.id(), s.id())).collect::<Vec<_>>())
            },
            Command::CopyResources,
            |l, ids| fallback::copy::resources(&ids, |c| l.record(c)),
        );
    }

    /// `CopyTilesAsync`: tiles between a reserved resource and a buffer. `NO_HAZARD` is ignored.
    pub fn copy_tiles_async(
        &mut self,
        resource: &Resource,
        start: &TiledResourceCoordinate,
        size: &TileRegionSize,
        buffer: &Resource,
        buffer_offset: u64,
        flags: TileCopyFlags,
    ) {
        const API: &str = "CopyTilesAsync";
        let t = TileCopy { resource, start: *start, size: *size, buffer, buffer_offset, flags };
        self.async_command(
            API,
            Gate::Outside(ALL_QUEUES),
            Some((OWNERSHIP, &[resource, buffer])),
            |l| l.validated_tile_copy(API, &t, true),
            Command::CopyTilesAsync,
            |l, t| l.record(fallback::copy::tiles(t)),
        );
    }

    /// `ResolveSubresourceRegionAsync` (direct lists only; no sampler-feedback modes).
    #[allow(clippy::too_many_arguments)] // the API's own parameters
    pub fn resolve_subresource_region_async(
        &mut self,
        dest: &Resource,
        dest_subresource: u32,
        dest_x: u32,
        dest_y: u32,
        source: &Resource,
        source_subresource: u32,
        source_rect: Option<&Rect>,
        format: Format,
        mode: ResolveMode,
    ) {
        const API: &str = "ResolveSubresourceRegionAsync";
        let source_rect = source_rect.copied();
        let r =
            Resolve { dest, dest_subresource, dest_x, dest_y, source, source_subresource, source_rect, format, mode };
        self.async_command(
            API,
            Gate::Outside(Lists::DIRECT),
            Some((OWNERSHIP, &[dest, source])),
            |l| l.validated_resolve(API, &r, true),
            Command::ResolveSubresourceRegionAsync,
            |l, resolve| l.record(fallback::copy::resolve(resolve)),
        );
    }

    /// `ResolveQueryDataAsync`: an UPLOAD destination is refused on the native and the fallback
    /// path alike, with `ResolveQueryDataInvalidParameters`.
    pub fn resolve_query_data_async(
        &mut self,
        heap: &QueryHeap,
        ty: QueryType,
        start: u32,
        count: u32,
        dest: &Resource,
        dest_offset: u64,
    ) {
        const API: &str = "ResolveQueryDataAsync";
        let q = QueryResolve { heap, ty, start, count, dest, dest_offset };
        self.async_command(
            API,
            Gate::Outside(ALL_QUEUES),
            Some((OWNERSHIP, &[dest])),
            |l| {
                validate_resolve_query_data(API, l.ty, &q)?;
                l.uses(API, &[Use::one(dest, 0, Access::COPY_WRITE.unordered())])?;
                Ok(q.map(|h| h.0.id, |d| d.id()))
            },
            Command::ResolveQueryDataAsync,
            |l, q| l.record(fallback::copy::query_data(q)),
        );
    }
}

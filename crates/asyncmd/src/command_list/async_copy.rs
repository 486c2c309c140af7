//! The async copies and resolves: `CopyBufferRegions`, `CopyTextureRegions`, `CopyResources`,
//! `CopyTilesAsync`, `ResolveSubresourceRegionAsync`, `ResolveQueryDataAsync`.
//!
//! Each call is validated with the legacy rules of its parts, then goes to the device's native
//! DDI (`Impl` NATIVE) or through the fallback (`Impl` FALLBACK).

use super::copy::{validate_buffer_copy, validate_copy_locations, validate_copy_resource, validate_texture_copy};
use super::query::validate_resolve_query_data;
use super::ranges::{may_overlap, Range};
use super::{CommandList, Lists, ALL_QUEUES};
use crate::fallback;
use crate::objects::QueryHeap;
use crate::resource::Resource;
use asyncmd_ddi::{Command, QueryResolve, Resolve, TileCopy};
use asyncmd_types::{
    AsyncCommandsImpl, BarrierAccess, BufferCopyRegion, Error, Format, MessageId, MessageSeverity, QueryType, Rect,
    ResolveMode, Result, TextureCopyDesc, TileCopyFlags, TileRegionSize, TiledResourceCoordinate,
};

impl CommandList {
    /// Whether an async command may be recorded: `begin` passes and the device implements the
    /// Async Commands natively or through the fallback. Returns the implementation.
    pub(crate) fn begin_async(&mut self, api: &str, lists: Lists) -> Option<AsyncCommandsImpl> {
        if !self.begin(api, lists, false) {
            return None;
        }
        self.async_impl_or_remove(api)
    }

    /// The device's Async Commands implementation; on a device without them, removes the list
    /// with `Fail` and returns `None`.
    pub(crate) fn async_impl_or_remove(&mut self, api: &str) -> Option<AsyncCommandsImpl> {
        match self.device.async_impl {
            AsyncCommandsImpl::NotSupported => {
                self.remove(Error::fail(
                    MessageId::AsyncCommandsNotSupported,
                    format!("{api}: the device does not support the Async Commands (Impl is NOT_SUPPORTED; opt in to the fallback before creating the device)"),
                ));
                None
            }
            i => Some(i),
        }
    }

    /// Ownership for the async copies: one message id for all of them.
    fn owns_all_async(&mut self, api: &str, resources: &[&Resource]) -> bool {
        self.owns_all(MessageId::CopyBufferRegionsInvalidParameters, api, resources)
    }

    /// `CopyBufferRegions`: independent buffer copies with no ordering among them. Overlapping
    /// destinations are legal but non-deterministic (the debug layer warns); a region that reads
    /// what another writes is refused.
    pub fn copy_buffer_regions(&mut self, regions: &[BufferCopyRegion<&Resource>]) {
        const API: &str = "CopyBufferRegions";
        let Some(imp) = self.begin_async(API, ALL_QUEUES) else { return };
        let all: Vec<&Resource> = regions.iter().flat_map(|r| [r.dest, r.source]).collect();
        if !self.owns_all_async(API, &all) {
            return;
        }
        let r = regions
            .iter()
            .try_for_each(|r| validate_buffer_copy(API, r.dest, r.dest_offset, r.source, r.source_offset, r.size))
            .and_then(|_| self.check_region_overlaps(API, regions));
        if !self.check(r) {
            return;
        }
        let ids: Vec<BufferCopyRegion<_>> = regions
            .iter()
            .map(|r| BufferCopyRegion {
                dest: r.dest.id(),
                dest_offset: r.dest_offset,
                source: r.source.id(),
                source_offset: r.source_offset,
                size: r.size,
            })
            .collect();
        match imp {
            AsyncCommandsImpl::Native => self.record(Command::CopyBufferRegions(ids)),
            _ => fallback::copy::buffer_regions(&ids, |c| self.record(c)),
        }
    }

    /// Overlap checks of one `CopyBufferRegions` call: destinations that overlap each other are
    /// reported; a source that overlaps another region's destination is refused.
    fn check_region_overlaps(&mut self, api: &str, regions: &[BufferCopyRegion<&Resource>]) -> Result<()> {
        // The common batch overlaps nowhere: a sort tells, instead of comparing every pair.
        let reads: Vec<Range> = regions.iter().map(|r| (r.source.id().0, r.source_offset, r.size)).collect();
        let writes: Vec<Range> = regions.iter().map(|r| (r.dest.id().0, r.dest_offset, r.size)).collect();
        if may_overlap(&reads, &writes) == (false, false) {
            return Ok(());
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
                    return Err(Error::invalid_arg(
                        MessageId::CopyBufferRegionsOverlappingRegions,
                        format!("{api}: region {i} reads bytes that region {j} writes"),
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
        let Some(imp) = self.begin_async(API, ALL_QUEUES) else { return };
        let partial = self.partial_ds_msaa_copies();
        let r = descs.iter().try_for_each(|d| {
            let (dest, source) = d.kind.locations();
            if !self.owns(dest.resource) || !self.owns(source.resource) {
                return Err(Error::invalid_arg(
                    MessageId::CopyTextureRegionInvalidParameters,
                    format!("{API}: a resource belongs to another device"),
                ));
            }
            validate_copy_locations(API, &dest, &source)?;
            for region in &d.regions {
                let at = (region.dest_x, region.dest_y, region.dest_z);
                validate_texture_copy(partial, API, &dest, at, &source, region.source_box.as_ref())?;
            }
            self.track_copy(API, &dest, &source)
        });
        if !self.check(r) {
            return;
        }
        let ids: Vec<TextureCopyDesc<_>> = descs
            .iter()
            .map(|d| TextureCopyDesc { kind: d.kind.map(|r| r.id()), regions: d.regions.clone() })
            .collect();
        match imp {
            AsyncCommandsImpl::Native => self.record(Command::CopyTextureRegions(ids)),
            _ => fallback::copy::texture_regions(&ids, |c| self.record(c)),
        }
    }

    /// `CopyResources`: whole-resource copies, independent of each other.
    pub fn copy_resources(&mut self, pairs: &[(&Resource, &Resource)]) {
        const API: &str = "CopyResources";
        let Some(imp) = self.begin_async(API, ALL_QUEUES) else { return };
        let all: Vec<&Resource> = pairs.iter().flat_map(|(d, s)| [*d, *s]).collect();
        if !self.owns_all_async(API, &all) {
            return;
        }
        let r = pairs.iter().try_for_each(|(d, s)| {
            validate_copy_resource(API, d, s)?;
            self.track_whole(API, d, BarrierAccess::COPY_DEST)?;
            self.track_whole(API, s, BarrierAccess::COPY_SOURCE)
        });
        if !self.check(r) {
            return;
        }
        let ids: Vec<_> = pairs.iter().map(|(d, s)| (d.id(), s.id())).collect();
        match imp {
            AsyncCommandsImpl::Native => self.record(Command::CopyResources(ids)),
            _ => fallback::copy::resources(&ids, |c| self.record(c)),
        }
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
        let Some(imp) = self.begin_async(API, ALL_QUEUES) else { return };
        if !self.owns_all_async(API, &[resource, buffer]) {
            return;
        }
        let t = TileCopy { resource, start: *start, size: *size, buffer, buffer_offset, flags };
        let Some(t) = self.checked_tile_copy(API, &t) else {
            return;
        };
        match imp {
            AsyncCommandsImpl::Native => self.record(Command::CopyTilesAsync(t)),
            _ => self.record(fallback::copy::tiles(t)),
        }
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
        let Some(imp) = self.begin_async(API, Lists::DIRECT) else { return };
        if !self.owns_all_async(API, &[dest, source]) {
            return;
        }
        let source_rect = source_rect.copied();
        let r =
            Resolve { dest, dest_subresource, dest_x, dest_y, source, source_subresource, source_rect, format, mode };
        let Some(resolve) = self.checked_resolve(API, &r) else {
            return;
        };
        match imp {
            AsyncCommandsImpl::Native => self.record(Command::ResolveSubresourceRegionAsync(resolve)),
            _ => self.record(fallback::copy::resolve(resolve)),
        }
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
        let Some(imp) = self.begin_async(API, ALL_QUEUES) else { return };
        if !self.owns_all_async(API, &[dest]) {
            return;
        }
        let q = QueryResolve { heap, ty, start, count, dest, dest_offset };
        if !self.check(validate_resolve_query_data(API, self.ty, &q)) {
            return;
        }
        let q = q.map(|h| h.0.id, |d| d.id());
        match imp {
            AsyncCommandsImpl::Native => self.record(Command::ResolveQueryDataAsync(q)),
            _ => self.record(fallback::copy::query_data(q)),
        }
    }
}

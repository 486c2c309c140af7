//! The copy and resolve routes: loops of the legacy call, one `CopyTiles` with its flags
//! unchanged, one legacy resolve, one legacy query resolve. Copies were already async-safe at
//! the DDI level; the serialized loop is one of the orders native hardware may use.

use crate::resource::Resource;
use asyncmd_ddi::{Command, QueryResolve, Resolve, ResourceId, TileCopy};
use asyncmd_types::{BufferCopyRegion, TextureCopyDesc};

/// `CopyBufferRegions` → one `CopyBufferRegion` per region.
pub(crate) fn buffer_regions(regions: &[BufferCopyRegion<ResourceId>], mut emit: impl FnMut(Command)) {
    for r in regions {
        emit(Command::CopyBufferRegion(*r));
    }
}

/// `CopyTextureRegions` → one `CopyTextureRegion` per region of each description, recorded
/// from the call's own descriptions (nothing is copied first).
pub(crate) fn texture_regions(descs: &[TextureCopyDesc<&Resource>], mut emit: impl FnMut(Command)) {
    for d in descs {
        let (dest, source) = d.kind.map(|r| r.id()).locations();
        for r in &d.regions {
            emit(Command::texture_copy(dest, source, r));
        }
    }
}

/// `CopyResources` → one `CopyResource` per pair.
pub(crate) fn resources(pairs: &[(ResourceId, ResourceId)], mut emit: impl FnMut(Command)) {
    for (dest, source) in pairs {
        emit(Command::CopyResource { dest: *dest, source: *source });
    }
}

/// `CopyTilesAsync` → one `CopyTiles`, flags unchanged.
pub(crate) fn tiles(t: TileCopy) -> Command {
    Command::CopyTiles(t)
}

/// `ResolveSubresourceRegionAsync` → one `ResolveSubresourceRegion`.
pub(crate) fn resolve(r: Resolve) -> Command {
    Command::ResolveSubresourceRegion(r)
}

/// `ResolveQueryDataAsync` → one `ResolveQueryData`.
pub(crate) fn query_data(q: QueryResolve) -> Command {
    Command::ResolveQueryData(q)
}

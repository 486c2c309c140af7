//! The copy and resolve routes: loops of the legacy call, one `CopyTiles` with its flags
//! unchanged, one legacy resolve, one legacy query resolve. Copies were already async-safe at
//! the DDI level; the serialized loop is one of the orders native hardware may use.

use asyncmd_ddi::{Command, QueryResolve, Resolve, ResourceId, TileCopy};
use asyncmd_types::{BufferCopyRegion, TextureCopyDesc, TextureCopyKind, TextureCopyLocation};

/// `CopyBufferRegions` → one `CopyBufferRegion` per region.
pub(crate) fn buffer_regions(regions: &[BufferCopyRegion<ResourceId>], mut emit: impl FnMut(Command)) {
    for r in regions {
        emit(Command::CopyBufferRegion(*r));
    }
}

/// `CopyTextureRegions` → one `CopyTextureRegion` per region of each description.
pub(crate) fn texture_regions(descs: &[TextureCopyDesc<ResourceId>], mut emit: impl FnMut(Command)) {
    for d in descs {
        let (dest, source) = locations(&d.kind);
        for r in &d.regions {
            emit(Command::CopyTextureRegion {
                dest,
                dest_x: r.dest_x,
                dest_y: r.dest_y,
                dest_z: r.dest_z,
                source,
                source_box: r.source_box,
            });
        }
    }
}

/// The two copy locations a texture copy description stands for.
pub(crate) fn locations<R: Copy>(kind: &TextureCopyKind<R>) -> (TextureCopyLocation<R>, TextureCopyLocation<R>) {
    match *kind {
        TextureCopyKind::TextureToTexture { dest, dest_subresource, source, source_subresource } => (
            TextureCopyLocation::subresource(dest, dest_subresource),
            TextureCopyLocation::subresource(source, source_subresource),
        ),
        TextureCopyKind::BufferToTexture { buffer, texture, subresource, footprint } => {
            (TextureCopyLocation::subresource(texture, subresource), TextureCopyLocation::footprint(buffer, footprint))
        }
        TextureCopyKind::TextureToBuffer { buffer, texture, subresource, footprint } => {
            (TextureCopyLocation::footprint(buffer, footprint), TextureCopyLocation::subresource(texture, subresource))
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

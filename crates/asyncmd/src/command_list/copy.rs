//! Copies: `CopyBufferRegion`, `CopyTextureRegion`, `CopyResource`, `CopyTiles`, and the
//! validation the async copies share with them.

use super::semantics::Use;
use super::{CommandRecorder, ALL_QUEUES};
use crate::err;
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::{Command, TileCopy};
use asyncmd_types::{
    subresource_tiles, BarrierAccess, Box3, BufferCopyRegion, CopyLocationKind, Format, HeapType, MessageId,
    ResourceDimension, Result, TextureCopyLocation, TileCopyFlags, TileRegionSize, TiledResourceCoordinate,
    TEXTURE_DATA_PITCH_ALIGNMENT, TEXTURE_DATA_PLACEMENT_ALIGNMENT, TILE_SIZE_IN_BYTES,
};

/// Checks one buffer-to-buffer copy.
pub(crate) fn validate_buffer_copy(
    api: &str,
    dest: &Resource,
    dest_offset: u64,
    source: &Resource,
    source_offset: u64,
    size: u64,
) -> Result<()> {
    let id = MessageId::CopyBufferRegionInvalidParameters;
    if !dest.desc().is_buffer() || !source.desc().is_buffer() {
        return Err(err::invalid(id, api, "source and destination must be buffers"));
    }
    if dest.heap_type() == HeapType::Upload {
        return Err(err::invalid(id, api, "an UPLOAD buffer cannot be a copy destination"));
    }
    if source.heap_type() == HeapType::Readback {
        return Err(err::invalid(id, api, "a READBACK buffer cannot be a copy source"));
    }
    let fits = |offset: u64, res: &Resource| offset.checked_add(size).is_some_and(|end| end <= res.desc().width);
    if !fits(dest_offset, dest) {
        return Err(err::invalid(
            id,
            api,
            format!("destination range {dest_offset}+{size} exceeds {} bytes", dest.desc().width),
        ));
    }
    if !fits(source_offset, source) {
        return Err(err::invalid(
            id,
            api,
            format!("source range {source_offset}+{size} exceeds {} bytes", source.desc().width),
        ));
    }
    if dest.same(source) && dest_offset < source_offset + size && source_offset < dest_offset + size {
        return Err(err::invalid(id, api, "source and destination ranges of one buffer overlap"));
    }
    Ok(())
}

/// One side of a texture copy, resolved.
struct Side {
    /// Subresource of a texture side.
    subresource: Option<u32>,
    format: Format,
    extent: (u32, u32, u32),
    block: (u32, u32),
    samples: u32,
    whole_only: bool,
    dimension: ResourceDimension,
}

fn side(api: &str, what: &str, loc: &TextureCopyLocation<&Resource>) -> Result<Side> {
    let id = MessageId::CopyTextureRegionInvalidParameters;
    let desc = loc.resource.desc();
    match loc.kind {
        CopyLocationKind::Subresource(index) => {
            if desc.is_buffer() {
                return Err(err::invalid(
                    id,
                    api,
                    format!("the {what} is a buffer but is addressed by subresource index"),
                ));
            }
            let sub = desc.subresource(index).ok_or_else(|| {
                err::invalid(
                    MessageId::InvalidSubresourceIndex,
                    api,
                    format!(
                        "{what} subresource {index} is out of range (the resource has {})",
                        desc.subresource_count()
                    ),
                )
            })?;
            let plane = desc
                .format
                .plane(sub.plane)
                .ok_or_else(|| err::invalid(id, api, format!("the {what}'s format has no plane {}", sub.plane)))?;
            let extent = desc.subresource_extent(index).unwrap_or((0, 0, 0));
            let format = if desc.format.plane_count() > 1 { plane.format } else { desc.format };
            Ok(Side {
                subresource: Some(index),
                format,
                extent,
                block: (plane.block_width, plane.block_height),
                samples: desc.sample_desc.count,
                whole_only: desc.format.has_depth() || desc.is_msaa(),
                dimension: desc.dimension,
            })
        }
        CopyLocationKind::PlacedFootprint(fp) => {
            if !desc.is_buffer() {
                return Err(err::invalid(
                    id,
                    api,
                    format!("the {what} is a texture but is addressed by a placed footprint"),
                ));
            }
            let f = fp.footprint;
            if fp.offset % TEXTURE_DATA_PLACEMENT_ALIGNMENT != 0 {
                return Err(err::invalid(id, api, format!("footprint offset {} is not a multiple of 512", fp.offset)));
            }
            if f.row_pitch % TEXTURE_DATA_PITCH_ALIGNMENT != 0 {
                return Err(err::invalid(
                    id,
                    api,
                    format!("footprint row pitch {} is not a multiple of 256", f.row_pitch),
                ));
            }
            let plane = f.format.plane(0).filter(|_| f.format.plane_count() == 1).ok_or_else(|| {
                err::invalid(id, api, format!("footprint format {} cannot describe buffer data", f.format))
            })?;
            if f.width == 0 || f.height == 0 || f.depth == 0 {
                return Err(err::invalid(id, api, "footprint width, height and depth must be non-zero"));
            }
            let row_bytes = f.width.div_ceil(plane.block_width) as u64 * plane.bytes_per_block as u64;
            if (f.row_pitch as u64) < row_bytes {
                return Err(err::invalid(
                    id,
                    api,
                    format!("footprint row pitch {} is less than a row's {row_bytes} bytes", f.row_pitch),
                ));
            }
            let needed = f.required_bytes().unwrap_or(u64::MAX);
            if fp.offset.checked_add(needed).is_none_or(|end| end > desc.width) {
                return Err(err::invalid(
                    id,
                    api,
                    format!(
                        "the footprint needs {needed} bytes from offset {} but the buffer has {}",
                        fp.offset, desc.width
                    ),
                ));
            }
            Ok(Side {
                subresource: None,
                format: f.format,
                extent: (f.width, f.height, f.depth),
                block: (plane.block_width, plane.block_height),
                samples: 1,
                whole_only: false,
                dimension: ResourceDimension::Buffer,
            })
        }
    }
}

/// Checks both locations of a texture copy (subresource indices, footprints), whatever its
/// regions: a `CopyTextureRegions` entry with no region still names its subresources.
pub(crate) fn validate_copy_locations(
    api: &str,
    dest: &TextureCopyLocation<&Resource>,
    source: &TextureCopyLocation<&Resource>,
) -> Result<()> {
    side(api, "destination", dest)?;
    side(api, "source", source).map(|_| ())
}

/// Checks one `CopyTextureRegion`-shaped copy. `partial_ds_msaa`: the device has programmable
/// sample positions, so depth-stencil and MSAA subresources may be copied in part.
pub(crate) fn validate_texture_copy(
    partial_ds_msaa: bool,
    api: &str,
    dest: &TextureCopyLocation<&Resource>,
    at: (u32, u32, u32),
    source: &TextureCopyLocation<&Resource>,
    source_box: Option<&Box3>,
) -> Result<()> {
    let id = MessageId::CopyTextureRegionInvalidParameters;
    let d = side(api, "destination", dest)?;
    let s = side(api, "source", source)?;
    if d.subresource.is_none() && s.subresource.is_none() {
        return Err(err::invalid(id, api, "both sides are buffers: use CopyBufferRegion"));
    }
    if dest.resource.desc().is_buffer() && dest.resource.heap_type() == HeapType::Upload {
        return Err(err::invalid(id, api, "an UPLOAD buffer cannot be a copy destination"));
    }
    if source.resource.desc().is_buffer() && source.resource.heap_type() == HeapType::Readback {
        return Err(err::invalid(id, api, "a READBACK buffer cannot be a copy source"));
    }
    if !d.format.copy_compatible(s.format) {
        return Err(err::invalid(id, api, format!("formats {} and {} are not of one copy group", s.format, d.format)));
    }
    if d.subresource.is_none() || s.subresource.is_none() {
        if d.samples > 1 || s.samples > 1 {
            return Err(err::invalid(id, api, "a multisampled texture cannot be copied to or from a buffer"));
        }
    } else if d.samples != s.samples {
        return Err(err::invalid(id, api, format!("sample counts differ ({} and {})", s.samples, d.samples)));
    }
    let sbox = source_box.copied().unwrap_or(Box3::sized(s.extent.0, s.extent.1, s.extent.2));
    if !sbox.fits(s.extent.0, s.extent.1, s.extent.2) {
        return Err(err::invalid(id, api, format!("source box {sbox:?} is not inside the source's {:?}", s.extent)));
    }
    if sbox.is_empty() {
        return Ok(());
    }
    let (w, h, depth) = sbox.extent();
    let aligned = |v: u32, block: u32, edge: u32| v.is_multiple_of(block) || v == edge;
    if !(aligned(sbox.left, s.block.0, s.extent.0)
        && aligned(sbox.top, s.block.1, s.extent.1)
        && aligned(sbox.right, s.block.0, s.extent.0)
        && aligned(sbox.bottom, s.block.1, s.extent.1))
    {
        return Err(err::invalid(
            id,
            api,
            format!("source box {sbox:?} is not aligned to {}x{} blocks", s.block.0, s.block.1),
        ));
    }
    if !at.0.is_multiple_of(d.block.0) || !at.1.is_multiple_of(d.block.1) {
        return Err(err::invalid(
            id,
            api,
            format!("destination ({}, {}) is not aligned to {}x{} blocks", at.0, at.1, d.block.0, d.block.1),
        ));
    }
    let fits = |pos: u32, len: u32, edge: u32, block: u32| {
        pos.checked_add(len).is_some_and(|e| e <= edge.next_multiple_of(block))
    };
    if !(fits(at.0, w, d.extent.0, d.block.0)
        && fits(at.1, h, d.extent.1, d.block.1)
        && fits(at.2, depth, d.extent.2, 1))
    {
        return Err(err::invalid(
            id,
            api,
            format!("a {w}x{h}x{depth} region at {at:?} does not fit the destination's {:?}", d.extent),
        ));
    }
    if (d.whole_only || s.whole_only)
        && !partial_ds_msaa
        && (at != (0, 0, 0) || sbox != Box3::sized(s.extent.0, s.extent.1, s.extent.2) || s.extent != d.extent)
    {
        return Err(err::invalid(
            id,
            api,
            "depth-stencil and multisampled copies cover whole, equal subresources on devices without programmable \
             sample positions",
        ));
    }
    for (side, pos_y, pos_z) in [(&d, at.1, at.2), (&s, sbox.top, sbox.front)] {
        if side.dimension == ResourceDimension::Texture1D && pos_y != 0 {
            return Err(err::invalid(id, api, "1D textures have no y"));
        }
        if matches!(side.dimension, ResourceDimension::Texture1D | ResourceDimension::Texture2D) && pos_z != 0 {
            return Err(err::invalid(id, api, "1D and 2D textures have no z"));
        }
    }
    if dest.resource.same(source.resource) && d.subresource == s.subresource {
        let dbox = Box3::new(at.0, at.1, at.2, at.0 + w, at.1 + h, at.2 + depth);
        if dbox.intersects(&sbox) {
            return Err(err::invalid(id, api, "source and destination regions of one subresource intersect"));
        }
    }
    Ok(())
}

/// Checks a `CopyResource`-shaped copy.
pub(crate) fn validate_copy_resource(api: &str, dest: &Resource, source: &Resource) -> Result<()> {
    let id = MessageId::CopyResourceInvalidParameters;
    let (d, s) = (dest.desc(), source.desc());
    if dest.same(source) {
        return Err(err::invalid(id, api, "source and destination are the same resource"));
    }
    if d.dimension != s.dimension
        || d.width != s.width
        || d.height != s.height
        || d.depth_or_array_size != s.depth_or_array_size
    {
        return Err(err::invalid(id, api, "resources differ in dimension or size"));
    }
    if d.mip_count() != s.mip_count() || d.sample_desc != s.sample_desc {
        return Err(err::invalid(id, api, "resources differ in mip levels or samples"));
    }
    if !d.is_buffer() && !d.format.copy_compatible(s.format) {
        return Err(err::invalid(id, api, format!("formats {} and {} are not of one copy group", s.format, d.format)));
    }
    if d.is_buffer() && dest.heap_type() == HeapType::Upload {
        return Err(err::invalid(id, api, "an UPLOAD buffer cannot be a copy destination"));
    }
    if s.is_buffer() && source.heap_type() == HeapType::Readback {
        return Err(err::invalid(id, api, "a READBACK buffer cannot be a copy source"));
    }
    if dest.is_reserved() != source.is_reserved() && !d.is_buffer() {
        return Err(err::invalid(id, api, "a reserved texture copies only to or from a reserved texture"));
    }
    Ok(())
}

/// Checks a `CopyTiles`-shaped copy and returns the tiles it touches.
pub(crate) fn validate_copy_tiles(api: &str, t: &TileCopy<&Resource>) -> Result<u64> {
    let TileCopy { resource, start, size, buffer, buffer_offset, flags } = *t;
    let id = MessageId::CopyTilesInvalidParameters;
    if !resource.is_reserved() {
        return Err(err::invalid(id, api, "the tiled resource is not a reserved resource"));
    }
    if !buffer.desc().is_buffer() {
        return Err(err::invalid(id, api, "the linear side must be a buffer"));
    }
    let to_buffer = flags.contains(TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER);
    let to_tiles = flags.contains(TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE);
    if to_buffer == to_tiles {
        return Err(err::invalid(id, api, "exactly one direction flag must be set"));
    }
    if to_buffer && buffer.heap_type() == HeapType::Upload || to_tiles && buffer.heap_type() == HeapType::Readback {
        return Err(err::invalid(
            id,
            api,
            format!("a {:?} buffer cannot be that side of the copy", buffer.heap_type()),
        ));
    }
    if !resource.desc().is_buffer() {
        let mip = resource.desc().subresource(start.subresource).map_or(0, |s| s.mip);
        let (w, h, d) = resource.desc().mip_extent(mip);
        let (tw, th, td) = asyncmd_types::tile_shape(resource.desc());
        if w < tw || h < th || d < td {
            return Err(err::invalid(
                id,
                api,
                format!("mip {mip} is smaller than a tile: packed mips cannot be copied as tiles"),
            ));
        }
    }
    let (tx, ty, tz) = subresource_tiles(resource.desc(), start.subresource).ok_or_else(|| {
        err::invalid(
            MessageId::InvalidSubresourceIndex,
            api,
            format!("subresource {} is out of range", start.subresource),
        )
    })?;
    let tiles = if size.use_box {
        let inside = start.x.checked_add(size.width).is_some_and(|e| e <= tx)
            && start.y.checked_add(size.height as u32).is_some_and(|e| e <= ty)
            && start.z.checked_add(size.depth as u32).is_some_and(|e| e <= tz);
        if !inside {
            return Err(err::invalid(
                id,
                api,
                format!(
                    "the tile box at ({}, {}, {}) leaves the subresource's {tx}x{ty}x{tz} tiles",
                    start.x, start.y, start.z
                ),
            ));
        }
        size.width as u64 * size.height as u64 * size.depth as u64
    } else {
        let first = asyncmd_types::linear_tile(resource.desc(), &start)
            .ok_or_else(|| err::invalid(id, api, "the start coordinate is outside the resource"))?;
        if first + size.num_tiles as u64 > asyncmd_types::tile_count(resource.desc()) {
            return Err(err::invalid(
                id,
                api,
                format!("{} tiles from the start run past the resource", size.num_tiles),
            ));
        }
        size.num_tiles as u64
    };
    if buffer_offset.checked_add(tiles * TILE_SIZE_IN_BYTES).is_none_or(|e| e > buffer.desc().width) {
        return Err(err::invalid(
            id,
            api,
            format!("{tiles} tiles from offset {buffer_offset} exceed the buffer's {} bytes", buffer.desc().width),
        ));
    }
    Ok(tiles)
}

/// A copy's destination and source accesses: a legacy copy's, or an Async Command's.
pub(crate) fn copy_accesses(unordered: bool) -> (Access, Access) {
    if unordered {
        (Access::COPY_WRITE.unordered(), Access::COPY_READ.unordered())
    } else {
        (Access::COPY_WRITE, Access::COPY_READ)
    }
}

impl CommandRecorder {
    fn check_owned(&mut self, api: &str, resources: &[&Resource]) -> bool {
        self.owns_all(MessageId::CopyResourceInvalidParameters, api, resources)
    }

    /// Whether depth-stencil and MSAA subresources may be copied in part (programmable sample
    /// positions).
    pub(crate) fn partial_ds_msaa_copies(&self) -> bool {
        self.device.ddi.capabilities().programmable_sample_positions
    }

    /// Tracks a texture copy's accesses: its uses (`unordered` for an Async Command's), then
    /// the debug layer's layout checks.
    pub(crate) fn track_copy(
        &mut self,
        api: &str,
        dest: &TextureCopyLocation<&Resource>,
        source: &TextureCopyLocation<&Resource>,
        unordered: bool,
    ) -> Result<()> {
        let sub = |l: &TextureCopyLocation<&Resource>| match l.kind {
            CopyLocationKind::Subresource(i) => i,
            _ => 0,
        };
        let (write, read) = copy_accesses(unordered);
        self.uses(api, &[Use::one(dest.resource, sub(dest), write), Use::one(source.resource, sub(source), read)])?;
        let ty = self.ty;
        if let CopyLocationKind::Subresource(i) = dest.kind {
            self.tracker.access(dest.resource, &[i], BarrierAccess::COPY_DEST, ty, api)?;
        }
        if let CopyLocationKind::Subresource(i) = source.kind {
            self.tracker.access(source.resource, &[i], BarrierAccess::COPY_SOURCE, ty, api)?;
        }
        Ok(())
    }

    /// Tracks whole-resource accesses: the use, then the layout checks.
    pub(crate) fn track_whole(&mut self, api: &str, res: &Resource, access: Access) -> Result<()> {
        self.uses(api, &[Use::all(res, access)])?;
        let subs: Vec<u32> = (0..res.layouts().len() as u32).collect();
        let ty = self.ty;
        self.tracker.access(res, &subs, access.access, ty, api)
    }

    /// `CopyBufferRegion`: copies `size` bytes between buffers.
    pub fn copy_buffer_region(
        &mut self,
        dest: &Resource,
        dest_offset: u64,
        source: &Resource,
        source_offset: u64,
        size: u64,
    ) {
        const API: &str = "CopyBufferRegion";
        if !self.begin(API, ALL_QUEUES, false) || !self.check_owned(API, &[dest, source]) {
            return;
        }
        let r = validate_buffer_copy(API, dest, dest_offset, source, source_offset, size).and_then(|()| {
            self.uses(API, &[Use::one(dest, 0, Access::COPY_WRITE), Use::one(source, 0, Access::COPY_READ)])
        });
        if !self.check(r) {
            return;
        }
        self.record(Command::CopyBufferRegion(BufferCopyRegion {
            dest: dest.id(),
            dest_offset,
            source: source.id(),
            source_offset,
            size,
        }));
    }

    /// `CopyTextureRegion`: copies a box of texels between subresources and placed footprints.
    pub fn copy_texture_region(
        &mut self,
        dest: &TextureCopyLocation<&Resource>,
        dest_x: u32,
        dest_y: u32,
        dest_z: u32,
        source: &TextureCopyLocation<&Resource>,
        source_box: Option<&Box3>,
    ) {
        const API: &str = "CopyTextureRegion";
        if !self.begin(API, ALL_QUEUES, false) || !self.check_owned(API, &[dest.resource, source.resource]) {
            return;
        }
        let at = (dest_x, dest_y, dest_z);
        let r = validate_texture_copy(self.partial_ds_msaa_copies(), API, dest, at, source, source_box)
            .and_then(|_| self.track_copy(API, dest, source, false));
        if !self.check(r) {
            return;
        }
        self.record(Command::CopyTextureRegion {
            dest: dest.map(|r| r.id()),
            dest_x,
            dest_y,
            dest_z,
            source: source.map(|r| r.id()),
            source_box: source_box.copied(),
        });
    }

    /// `CopyResource`: copies a whole resource into one of the same shape.
    pub fn copy_resource(&mut self, dest: &Resource, source: &Resource) {
        const API: &str = "CopyResource";
        if !self.begin(API, ALL_QUEUES, false) || !self.check_owned(API, &[dest, source]) {
            return;
        }
        let r = validate_copy_resource(API, dest, source)
            .and_then(|_| self.track_whole(API, dest, Access::COPY_WRITE))
            .and_then(|_| self.track_whole(API, source, Access::COPY_READ));
        if !self.check(r) {
            return;
        }
        self.record(Command::CopyResource { dest: dest.id(), source: source.id() });
    }

    /// Validates and tracks a tile copy (legacy or async); the DDI form, or `None` when the list
    /// was removed.
    pub(super) fn checked_tile_copy(&mut self, api: &str, t: &TileCopy<&Resource>) -> Option<TileCopy> {
        let r = self.validated_tile_copy(api, t, false);
        r.map_err(|e| self.remove(e)).ok()
    }

    /// A tile copy validated and tracked, with ids.
    pub(super) fn validated_tile_copy(
        &mut self,
        api: &str,
        t: &TileCopy<&Resource>,
        unordered: bool,
    ) -> Result<TileCopy> {
        let (write, read) = copy_accesses(unordered);
        let (tiled, linear) = if t.flags.contains(TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE) {
            (write, read)
        } else {
            (read, write)
        };
        validate_copy_tiles(api, t)?;
        self.uses(api, &[Use::one(t.resource, t.start.subresource, tiled), Use::one(t.buffer, 0, linear)])?;
        let ty = self.ty;
        self.tracker.access(t.resource, &[t.start.subresource], tiled.access, ty, api)?;
        Ok(t.map(|x| x.id()))
    }

    /// `CopyTiles`: copies tiles between a reserved resource and a linear buffer.
    pub fn copy_tiles(
        &mut self,
        resource: &Resource,
        start: &TiledResourceCoordinate,
        size: &TileRegionSize,
        buffer: &Resource,
        buffer_offset: u64,
        flags: TileCopyFlags,
    ) {
        const API: &str = "CopyTiles";
        if !self.begin(API, ALL_QUEUES, false) || !self.check_owned(API, &[resource, buffer]) {
            return;
        }
        let t = TileCopy { resource, start: *start, size: *size, buffer, buffer_offset, flags };
        if let Some(t) = self.checked_tile_copy(API, &t) {
            self.record(Command::CopyTiles(t));
        }
    }
}

//! Copies: buffer regions, texture regions, whole resources.

use super::surface::{copy_box, Surface};
use super::Exec;
use crate::memory::{with_src_dst, RefResource};
use asyncmd_ddi::ResourceId;
use asyncmd_types::{Box3, BufferCopyRegion, CopyLocationKind, TextureCopyLocation};

impl Exec<'_> {
    pub(crate) fn copy_buffer_region(&self, r: &BufferCopyRegion<ResourceId>) {
        let (Some(dst), Some(src)) = (self.resource(r.dest), self.resource(r.source)) else { return };
        let (Ok(size), Ok(so), Ok(doff)) =
            (usize::try_from(r.size), usize::try_from(r.source_offset), usize::try_from(r.dest_offset))
        else {
            return;
        };
        if std::ptr::eq(&*dst, &*src) {
            let mut d = dst.write();
            if so.checked_add(size).is_some_and(|e| e <= d.len())
                && doff.checked_add(size).is_some_and(|e| e <= d.len())
            {
                d.copy_within(so..so + size, doff);
            }
            dst.scrub_unmapped(&mut d);
            return;
        }
        with_src_dst(&src, &dst, |s, d| {
            if let (Some(from), Some(to)) =
                (s.get(so..so.saturating_add(size)), d.get_mut(doff..doff.saturating_add(size)))
            {
                super::workers::copy_bytes(to, from);
            }
        });
    }

    fn location_surface(res: &RefResource, loc: &TextureCopyLocation<ResourceId>) -> Option<Surface> {
        match loc.kind {
            CopyLocationKind::Subresource(i) => Surface::subresource(res, i),
            CopyLocationKind::PlacedFootprint(fp) => Surface::footprint(&fp),
        }
    }

    pub(crate) fn copy_texture_region(
        &self,
        dest: &TextureCopyLocation<ResourceId>,
        at: (u32, u32, u32),
        source: &TextureCopyLocation<ResourceId>,
        source_box: Option<Box3>,
    ) {
        let (Some(dst), Some(src)) = (self.resource(dest.resource), self.resource(source.resource)) else { return };
        let (Some(ds), Some(ss)) = (Self::location_surface(&dst, dest), Self::location_surface(&src, source)) else {
            return;
        };
        let sbox = source_box.unwrap_or_else(|| ss.full_box());
        with_src_dst(&src, &dst, |s, d| copy_box(s, &ss, &sbox, d, &ds, at));
    }

    pub(crate) fn copy_resource(&self, dest: ResourceId, source: ResourceId) {
        let (Some(dst), Some(src)) = (self.resource(dest), self.resource(source)) else { return };
        if std::ptr::eq(&*dst, &*src) {
            return;
        }
        with_src_dst(&src, &dst, |s, d| {
            let n = s.len().min(d.len());
            super::workers::copy_bytes(&mut d[..n], &s[..n]);
        });
    }
}

//! Enhanced barriers: validation against the sync/access/layout rules and the queue rules, and
//! layout tracking for the debug layer.

use super::{CommandRecorder, ALL_QUEUES};
use crate::err;
use crate::resource::Resource;
use crate::track::Scope;
use asyncmd_ddi::Command;
use asyncmd_types::{
    access_legal_on, sync_legal_on, BarrierAccess, BarrierGroup, BarrierLayout, BarrierSubresourceRange, BarrierSync,
    CommandListType, MessageId, ResourceDesc, Result,
};

const API: &str = "Barrier";
const ID: MessageId = MessageId::IncompatibleBarrierValues;

/// Checks the sync and access halves of one barrier.
fn check_sync_access(
    ty: CommandListType,
    sync_before: BarrierSync,
    sync_after: BarrierSync,
    access_before: BarrierAccess,
    access_after: BarrierAccess,
) -> Result<()> {
    for (name, sync, access) in [("before", sync_before, access_before), ("after", sync_after, access_after)] {
        if sync.is_empty() && !access.contains(BarrierAccess::NO_ACCESS) {
            return Err(err::invalid(ID, API, format!("Sync{name} NONE needs Access{name} NO_ACCESS, not {access:?}")));
        }
        if access.contains(BarrierAccess::NO_ACCESS) && access != BarrierAccess::NO_ACCESS {
            return Err(err::invalid(ID, API, format!("Access{name} NO_ACCESS cannot be combined with other bits")));
        }
        if !access.compatible_with_sync(sync) {
            return Err(err::invalid(
                ID,
                API,
                format!("Access{name} {access:?} is not legal with Sync{name} {sync:?}"),
            ));
        }
        if !sync_legal_on(sync, ty) {
            return Err(err::invalid(ID, API, format!("Sync{name} {sync:?} is not legal on a {} list", ty.name())));
        }
        if !access_legal_on(access, ty) {
            return Err(err::invalid(ID, API, format!("Access{name} {access:?} is not legal on a {} list", ty.name())));
        }
    }
    Ok(())
}

/// The subresource indices a range selects, or an error naming what is out of range.
pub(crate) fn range_subresources(desc: &ResourceDesc, r: &BarrierSubresourceRange) -> Result<Vec<u32>> {
    let count = desc.subresource_count();
    if r.index_or_first_mip == u32::MAX {
        return Ok((0..count).collect());
    }
    if r.num_mip_levels == 0 {
        if r.index_or_first_mip >= count {
            return Err(err::invalid(
                ID,
                API,
                format!("subresource {} is out of range ({count} subresources)", r.index_or_first_mip),
            ));
        }
        return Ok(vec![r.index_or_first_mip]);
    }
    let mips = r.index_or_first_mip..r.index_or_first_mip.saturating_add(r.num_mip_levels);
    let slices = r.first_array_slice..r.first_array_slice.saturating_add(r.num_array_slices.max(1));
    let planes = r.first_plane..r.first_plane.saturating_add(r.num_planes.max(1));
    if mips.end > desc.mip_count() || slices.end > desc.array_size() || planes.end > desc.plane_count() {
        return Err(err::invalid(ID, API, format!("range {r:?} exceeds the resource's mips, slices or planes")));
    }
    let mut out = Vec::new();
    for p in planes {
        for s in slices.clone() {
            for m in mips.clone() {
                out.push(desc.subresource_index(m, s, p));
            }
        }
    }
    Ok(out)
}

impl CommandRecorder {
    /// `Barrier`: records groups of enhanced barriers.
    pub fn barrier(&mut self, groups: &[BarrierGroup<&Resource>]) {
        const API: &str = "Barrier";
        if !self.begin(API, ALL_QUEUES, false) {
            return;
        }
        let r = self.validate_barriers(groups);
        if !self.check(r) {
            return;
        }
        self.record(Command::Barrier(groups.iter().map(|g| g.map(|r| r.id())).collect()));
    }

    fn validate_barriers(&mut self, groups: &[BarrierGroup<&Resource>]) -> Result<()> {
        let ty = self.ty;
        for group in groups {
            match group {
                BarrierGroup::Global(bs) => {
                    for b in bs {
                        check_sync_access(ty, b.sync_before, b.sync_after, b.access_before, b.access_after)?;
                        self.app_global_barrier(b.sync_after, b.access_after);
                    }
                }
                BarrierGroup::Buffer(bs) => {
                    for b in bs {
                        check_sync_access(ty, b.sync_before, b.sync_after, b.access_before, b.access_after)?;
                        if !self.owns(b.resource) {
                            return Err(err::invalid(ID, API, "a buffer belongs to another device"));
                        }
                        if !b.resource.desc().is_buffer() {
                            return Err(err::invalid(ID, API, "a buffer barrier names a texture"));
                        }
                        self.tracker
                            .buffer_barrier(b.resource.id(), Scope { sync: b.sync_after, access: b.access_after });
                        self.app_barrier(b.resource.id(), None, b.sync_after, b.access_after);
                        if b.offset != 0 || (b.size != u64::MAX && b.size != b.resource.desc().width) {
                            return Err(err::invalid(ID, API, format!(
                                "a buffer barrier covers the whole buffer: offset 0 and size {} or UINT64_MAX, not {}+{}",
                                b.resource.desc().width,
                                b.offset,
                                b.size
                            )));
                        }
                    }
                }
                BarrierGroup::Texture(bs) => {
                    for b in bs {
                        check_sync_access(ty, b.sync_before, b.sync_after, b.access_before, b.access_after)?;
                        if !self.owns(b.resource) {
                            return Err(err::invalid(ID, API, "a texture belongs to another device"));
                        }
                        if b.resource.desc().is_buffer() {
                            return Err(err::invalid(ID, API, "a texture barrier names a buffer"));
                        }
                        for (name, layout, access) in
                            [("before", b.layout_before, b.access_before), ("after", b.layout_after, b.access_after)]
                        {
                            if !layout.legal_on(ty) {
                                return Err(err::invalid(
                                    ID,
                                    API,
                                    format!("Layout{name} {layout:?} is not legal on a {} list", ty.name()),
                                ));
                            }
                            if layout == BarrierLayout::Undefined && access != BarrierAccess::NO_ACCESS {
                                return Err(err::invalid(
                                    ID,
                                    API,
                                    format!("Layout{name} UNDEFINED needs Access{name} NO_ACCESS"),
                                ));
                            }
                            if !layout.allows(access) {
                                return Err(err::invalid(
                                    ID,
                                    API,
                                    format!("Access{name} {access:?} is not allowed in layout {layout:?}"),
                                ));
                            }
                        }
                        if b.layout_after == BarrierLayout::Undefined && b.layout_before != BarrierLayout::Undefined {
                            return Err(err::invalid(ID, API, "LayoutAfter UNDEFINED is only legal from UNDEFINED"));
                        }
                        let subs = range_subresources(b.resource.desc(), &b.subresources)?;
                        let scope = Scope { sync: b.sync_after, access: b.access_after };
                        self.tracker.texture_barrier(b.resource, &subs, (b.layout_before, b.layout_after), scope)?;
                        self.app_barrier(b.resource.id(), Some(&subs), b.sync_after, b.access_after);
                    }
                }
            }
        }
        Ok(())
    }
}

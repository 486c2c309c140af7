//! One generated command recorded on its list through the public API.

use super::*;

impl World {
    /// Records one command of a generated list, and notes what it wrote for the differential
    /// modes.
    pub(super) fn record(&mut self, l: usize, cmd: &Cmd) {
        let res = |w: &World, i: usize| w.resources[i].resource.clone();
        match cmd {
            Cmd::CopyBuffer { dst, dst_offset, src, src_offset, size, many } => {
                let (Some(d), Some(s)) = (self.buffer(*dst), self.buffer(*src)) else { return };
                let (dr, sr) = (res(self, d), res(self, s));
                if *many {
                    let region = BufferCopyRegion {
                        dest: &dr,
                        dest_offset: *dst_offset,
                        source: &sr,
                        source_offset: *src_offset,
                        size: *size,
                    };
                    let half = BufferCopyRegion { size: size / 2, ..region };
                    // Two writes of one range race: only wild sequences make them.
                    let regions = if self.valid { vec![region] } else { vec![region, half] };
                    self.lists[l].list.copy_buffer_regions(&regions);
                    self.resources[d].tainted |= !self.valid && size / 2 > 0;
                } else {
                    self.lists[l].list.copy_buffer_region(&dr, *dst_offset, &sr, *src_offset, *size);
                }
                self.wrote(l, d, &[s]);
            }
            Cmd::CopyTexture { copies, many } => {
                let mut resolved: Vec<_> =
                    copies.iter().filter_map(|(d, s, r)| Some((self.loc(d)?, self.loc(s)?, r.clone()))).collect();
                let parts: Vec<(usize, Option<usize>)> =
                    resolved.iter().map(|((d, _), (s, _), _)| (*d, Some(*s))).collect();
                let mut keep = self.unordered_parts(&parts).into_iter();
                resolved.retain(|_| keep.next().unwrap_or(true));
                if self.valid {
                    // Regions of one entry are unordered too, and may overlap.
                    for (_, _, regions) in &mut resolved {
                        regions.truncate(1);
                    }
                }
                let owned: Vec<(Resource, CopyLocationKind, Resource, CopyLocationKind, Vec<TextureCopyRegion>)> =
                    resolved
                        .iter()
                        .map(|((d, dk), (s, sk), r)| (res(self, *d), *dk, res(self, *s), *sk, r.clone()))
                        .collect();
                if *many {
                    let descs: Vec<TextureCopyDesc<&Resource>> = owned
                        .iter()
                        .filter_map(|(d, dk, s, sk, regions)| {
                            let kind = match (dk, sk) {
                                (CopyLocationKind::Subresource(a), CopyLocationKind::Subresource(b)) => {
                                    TextureCopyKind::TextureToTexture {
                                        dest: d,
                                        dest_subresource: *a,
                                        source: s,
                                        source_subresource: *b,
                                    }
                                }
                                (CopyLocationKind::Subresource(a), CopyLocationKind::PlacedFootprint(f)) => {
                                    TextureCopyKind::BufferToTexture {
                                        buffer: s,
                                        texture: d,
                                        subresource: *a,
                                        footprint: *f,
                                    }
                                }
                                (CopyLocationKind::PlacedFootprint(f), CopyLocationKind::Subresource(b)) => {
                                    TextureCopyKind::TextureToBuffer {
                                        buffer: d,
                                        texture: s,
                                        subresource: *b,
                                        footprint: *f,
                                    }
                                }
                                _ => return None,
                            };
                            Some(TextureCopyDesc { kind, regions: regions.clone() })
                        })
                        .collect();
                    self.lists[l].list.copy_texture_regions(&descs);
                    let dsts: Vec<usize> = resolved.iter().map(|((d, _), _, _)| *d).collect();
                    self.taint_repeats(&dsts);
                    for ((d, _), _, r) in &resolved {
                        if r.len() > 1 {
                            self.resources[*d].tainted = true;
                        }
                    }
                } else if let Some((d, dk, s, sk, regions)) = owned.first() {
                    let region = regions.first().cloned().unwrap_or(TextureCopyRegion {
                        dest_x: 0,
                        dest_y: 0,
                        dest_z: 0,
                        source_box: None,
                    });
                    let (dl, sl) = (
                        TextureCopyLocation { resource: d, kind: *dk },
                        TextureCopyLocation { resource: s, kind: *sk },
                    );
                    self.lists[l].list.copy_texture_region(
                        &dl,
                        region.dest_x,
                        region.dest_y,
                        region.dest_z,
                        &sl,
                        region.source_box.as_ref(),
                    );
                }
                for ((d, _), (s, _), _) in &resolved {
                    self.wrote(l, *d, &[*s]);
                }
            }
            Cmd::CopyResource { pairs, many } => {
                let mut idx: Vec<(usize, usize)> = pairs
                    .iter()
                    .filter_map(|&(d, s)| {
                        let pick = |i| if d % 2 == 0 { self.buffer(i) } else { self.texture(i) };
                        Some((pick(d)?, pick(s)?))
                    })
                    .collect();
                let parts: Vec<(usize, Option<usize>)> = idx.iter().map(|&(d, s)| (d, Some(s))).collect();
                let mut keep = self.unordered_parts(&parts).into_iter();
                idx.retain(|_| keep.next().unwrap_or(true));
                let owned: Vec<(Resource, Resource)> = idx.iter().map(|&(d, s)| (res(self, d), res(self, s))).collect();
                if *many {
                    let refs: Vec<(&Resource, &Resource)> = owned.iter().map(|(d, s)| (d, s)).collect();
                    self.lists[l].list.copy_resources(&refs);
                    self.taint_repeats(&idx.iter().map(|p| p.0).collect::<Vec<_>>());
                } else if let Some((d, s)) = owned.first() {
                    self.lists[l].list.copy_resource(d, s);
                }
                for &(d, s) in &idx {
                    self.wrote(l, d, &[s]);
                }
            }
            Cmd::CopyTiles { resource, start, size, buffer, offset, flags, many } => {
                let (Some(r), Some(b)) = (self.texture(*resource).or(self.buffer(*resource)), self.buffer(*buffer))
                else {
                    return;
                };
                let (rr, br) = (res(self, r), res(self, b));
                let flags = TileCopyFlags::from_bits_truncate(*flags);
                if *many {
                    self.lists[l].list.copy_tiles_async(&rr, start, size, &br, *offset, flags);
                } else {
                    self.lists[l].list.copy_tiles(&rr, start, size, &br, *offset, flags);
                }
                self.resources[b].tainted = true;
            }
            Cmd::Resolve { dst, dst_sub, at, src, src_sub, rect, format, mode, many } => {
                let (Some(d), Some(s)) = (self.texture(*dst), self.texture(*src)) else { return };
                let (dr, sr) = (res(self, d), res(self, s));
                let list = &mut self.lists[l].list;
                if *many {
                    list.resolve_subresource_region_async(
                        &dr,
                        *dst_sub,
                        at.0,
                        at.1,
                        &sr,
                        *src_sub,
                        rect.as_ref(),
                        *format,
                        *mode,
                    );
                } else {
                    list.resolve_subresource_region(
                        &dr,
                        *dst_sub,
                        at.0,
                        at.1,
                        &sr,
                        *src_sub,
                        rect.as_ref(),
                        *format,
                        *mode,
                    );
                }
                self.wrote(l, d, &[s]);
            }
            Cmd::ResolveQuery { heap, ty, start, count, dst, offset, many } => {
                let (Some(d), false) = (self.buffer(*dst), self.query_heaps.is_empty()) else { return };
                let h = self.query_heaps[heap % self.query_heaps.len()].0.clone();
                let dr = res(self, d);
                if *many {
                    self.lists[l].list.resolve_query_data_async(&h, *ty, *start, *count, &dr, *offset);
                } else {
                    self.lists[l].list.resolve_query_data(&h, *ty, *start, *count, &dr, *offset);
                }
                self.resources[d].tainted = true;
            }
            Cmd::Fill { fills } => {
                let idx: Vec<usize> = fills.iter().filter_map(|f| self.buffer(f.0)).collect();
                if idx.len() != fills.len() {
                    return;
                }
                let keep = self.unordered_parts(&idx.iter().map(|&b| (b, None)).collect::<Vec<_>>());
                let (fills, idx): (Vec<&crate::gen::FillPart>, Vec<usize>) =
                    fills.iter().zip(idx).zip(&keep).filter(|(_, k)| **k).map(|(p, _)| p).unzip();
                let owned: Vec<Resource> = idx.iter().map(|&b| res(self, b)).collect();
                let descs: Vec<FillBufferDesc<&Resource>> = fills
                    .iter()
                    .zip(&owned)
                    .map(|(f, b)| FillBufferDesc {
                        buffer: b,
                        offset: f.1,
                        fill_value: ClearData { bytes: f.2 },
                        format: f.3,
                        raw_pattern_size: f.4,
                        repeat_count: f.5,
                    })
                    .collect();
                self.lists[l].list.fill_buffers(&descs);
                self.taint_repeats(&idx);
                for &b in &idx {
                    self.wrote(l, b, &[]);
                }
            }
            Cmd::ClearTexture { clears } => {
                let idx: Vec<usize> = clears.iter().filter_map(|c| self.texture(c.0)).collect();
                if idx.len() != clears.len() {
                    return;
                }
                let keep = self.unordered_parts(&idx.iter().map(|&t| (t, None)).collect::<Vec<_>>());
                let (clears, idx): (Vec<&crate::gen::ClearPart>, Vec<usize>) =
                    clears.iter().zip(idx).zip(&keep).filter(|(_, k)| **k).map(|(p, _)| p).unzip();
                let owned: Vec<Resource> = idx.iter().map(|&t| res(self, t)).collect();
                let descs: Vec<ClearTextureDesc<&Resource>> = clears
                    .iter()
                    .zip(&owned)
                    .map(|(c, t)| ClearTextureDesc {
                        texture: t,
                        subresource: c.1,
                        clear_value: ClearData { bytes: c.2 },
                        format: c.3,
                        region: c.4,
                    })
                    .collect();
                self.lists[l].list.clear_texture_subresources(&descs);
                self.taint_repeats(&idx);
                for &t in &idx {
                    self.wrote(l, t, &[]);
                }
            }
            Cmd::ClearRtv { texture, color, rects } => {
                let Some(t) = self.texture(*texture) else { return };
                let Some((h, _)) = self.resources[t].rtv.clone() else { return };
                self.lists[l].list.clear_render_target_view(&h, *color, rects);
                // A legacy view clear of a float value may round differently per device.
                self.resources[t].tainted = true;
            }
            Cmd::ClearDsv { texture, flags, depth, stencil, rects } => {
                let Some(t) = self.texture(*texture) else { return };
                let Some((h, _)) = self.resources[t].dsv.clone() else { return };
                self.lists[l].list.clear_depth_stencil_view(
                    &h,
                    ClearFlags::from_bits_truncate(*flags),
                    *depth,
                    *stencil,
                    rects,
                );
                self.wrote(l, t, &[]);
            }
            Cmd::SetTargets { rtvs, dsv } => {
                let rt: Vec<usize> =
                    rtvs.iter().filter_map(|&i| self.texture(i)).filter(|&t| self.resources[t].rtv.is_some()).collect();
                let ds = dsv.and_then(|i| self.texture(i)).filter(|&t| self.resources[t].dsv.is_some());
                let handles: Vec<CpuDescriptorHandle> =
                    rt.iter().filter_map(|&t| self.resources[t].rtv.as_ref().map(|v| v.0.clone())).collect();
                let dh = ds.and_then(|t| self.resources[t].dsv.as_ref().map(|v| v.0.clone()));
                self.lists[l].list.om_set_render_targets(&handles, dh.as_ref());
                self.lists[l].targets = (rt, ds, false);
            }
            Cmd::BeginPass { rtvs, dsv, flags } => {
                let access = |b: u8| match b {
                    1 => BeginningAccess::NoAccess,
                    2 => BeginningAccess::Discard,
                    _ => BeginningAccess::Preserve,
                };
                let rt: Vec<(usize, u8)> = rtvs
                    .iter()
                    .filter_map(|&(i, b)| Some((self.texture(i)?, b)))
                    .filter(|(t, _)| self.resources[*t].rtv.is_some())
                    .collect();
                let ds = dsv
                    .and_then(|(i, a, b)| Some((self.texture(i)?, a, b)))
                    .filter(|(t, _, _)| self.resources[*t].dsv.is_some());
                let targets: Vec<RenderPassRenderTarget<CpuDescriptorHandle, &Resource>> = rt
                    .iter()
                    .map(|&(t, b)| RenderPassRenderTarget {
                        view: self.resources[t].rtv.as_ref().map(|v| v.0.clone()).unwrap_or_else(|| unreachable!()),
                        beginning: access(b),
                        ending: if b == 1 { EndingAccess::NoAccess } else { EndingAccess::Preserve },
                    })
                    .collect();
                let depth = ds.map(|(t, a, b)| RenderPassDepthStencil {
                    view: self.resources[t].dsv.as_ref().map(|v| v.0.clone()).unwrap_or_else(|| unreachable!()),
                    depth_beginning: access(a),
                    stencil_beginning: access(b),
                    depth_ending: if a == 1 { EndingAccess::NoAccess } else { EndingAccess::Preserve },
                    stencil_ending: if b == 1 { EndingAccess::NoAccess } else { EndingAccess::Preserve },
                });
                self.lists[l].list.begin_render_pass(
                    &targets,
                    depth.as_ref(),
                    RenderPassFlags::from_bits_truncate(*flags),
                );
                for &(t, b) in &rt {
                    if b == 2 {
                        self.resources[t].tainted = true;
                    }
                }
                if let Some((t, a, b)) = ds {
                    if a == 2 || b == 2 {
                        self.resources[t].tainted = true;
                    }
                }
                let bound = rt.iter().filter(|(_, b)| *b != 1).map(|(t, _)| *t).collect();
                self.lists[l].targets = (bound, ds.map(|d| d.0), true);
            }
            Cmd::EndPass => {
                self.lists[l].list.end_render_pass();
                self.lists[l].targets = (Vec::new(), None, false);
            }
            Cmd::ClearBoundRtv { mask, values, regions } => {
                let values: Vec<ClearData> = values.iter().map(|b| ClearData { bytes: *b }).collect();
                let owned: Option<Vec<Option<&[Box3]>>> =
                    regions.as_ref().map(|r| r.iter().map(|o| o.as_deref()).collect());
                self.lists[l].list.clear_bound_render_target_views(*mask, &values, owned.as_deref());
                let bound = self.lists[l].targets.0.clone();
                for (slot, &t) in bound.iter().enumerate() {
                    if mask & (1 << slot) == 0 {
                        continue;
                    }
                    let format = self.resources[t].resource.desc().format;
                    match values.get(slot) {
                        // The outside-pass shortcut and mixed cases use a legacy view clear,
                        // which may round where the value is not exact.
                        Some(v) if view_clear_exact(format, v) => self.wrote(l, t, &[]),
                        _ => self.resources[t].tainted = true,
                    }
                }
            }
            Cmd::ClearBoundDsv { flags, depth, stencil, regions } => {
                self.lists[l].list.clear_bound_depth_stencil_view(
                    ClearFlags::from_bits_truncate(*flags),
                    *depth,
                    *stencil,
                    regions.as_deref(),
                );
                if let Some(t) = self.lists[l].targets.1 {
                    self.wrote(l, t, &[]);
                }
            }
            Cmd::Transition { textures, from, to } => {
                let idx: Vec<usize> = textures.iter().filter_map(|&t| self.texture(t)).collect();
                let mut unique = idx.clone();
                unique.sort_unstable();
                unique.dedup();
                let owned: Vec<Resource> = unique.iter().map(|&t| res(self, t)).collect();
                let barriers: Vec<TextureBarrier<&Resource>> = owned
                    .iter()
                    .filter(|t| !t.desc().flags.contains(ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS))
                    .filter(|t| match to {
                        BarrierLayout::RenderTarget => t.desc().flags.contains(ResourceFlags::ALLOW_RENDER_TARGET),
                        BarrierLayout::DepthStencilWrite => t.desc().flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL),
                        _ => match from {
                            BarrierLayout::RenderTarget => t.desc().flags.contains(ResourceFlags::ALLOW_RENDER_TARGET),
                            BarrierLayout::DepthStencilWrite => {
                                t.desc().flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL)
                            }
                            _ => true,
                        },
                    })
                    .map(|t| crate::common::transition(t, *from, *to))
                    .collect();
                if !barriers.is_empty() {
                    self.lists[l].list.barrier(&[BarrierGroup::Texture(barriers)]);
                }
            }
            Cmd::WildBarrier { kind, target, sync, access, layout, range, flags } => {
                let sync = (BarrierSync::from_bits_retain(sync.0), BarrierSync::from_bits_retain(sync.1));
                let access = (BarrierAccess::from_bits_retain(access.0), BarrierAccess::from_bits_retain(access.1));
                let group = match kind {
                    0 => BarrierGroup::Global(vec![GlobalBarrier {
                        sync_before: sync.0,
                        sync_after: sync.1,
                        access_before: access.0,
                        access_after: access.1,
                    }]),
                    1 => {
                        let Some(b) = self.buffer(*target) else { return };
                        let r = res(self, b);
                        let barrier = BufferBarrier {
                            sync_before: sync.0,
                            sync_after: sync.1,
                            access_before: access.0,
                            access_after: access.1,
                            resource: &r,
                            offset: range.0 as u64,
                            size: if range.1 == 0 { u64::MAX } else { range.1 as u64 },
                        };
                        return self.lists[l].list.barrier(&[BarrierGroup::Buffer(vec![barrier])]);
                    }
                    _ => {
                        let Some(t) = self.texture(*target) else { return };
                        let r = res(self, t);
                        self.resources[t].tainted = true;
                        let barrier = TextureBarrier {
                            sync_before: sync.0,
                            sync_after: sync.1,
                            access_before: access.0,
                            access_after: access.1,
                            layout_before: LAYOUTS[layout.0 as usize % LAYOUTS.len()],
                            layout_after: LAYOUTS[layout.1 as usize % LAYOUTS.len()],
                            resource: &r,
                            subresources: BarrierSubresourceRange {
                                index_or_first_mip: if range.0 == 2 { u32::MAX } else { range.0 },
                                num_mip_levels: range.1,
                                first_array_slice: range.2,
                                num_array_slices: range.3,
                                first_plane: range.4,
                                num_planes: range.5,
                            },
                            flags: TextureBarrierFlags::from_bits_truncate(*flags),
                        };
                        return self.lists[l].list.barrier(&[BarrierGroup::Texture(vec![barrier])]);
                    }
                };
                self.lists[l].list.barrier(&[group]);
            }
            Cmd::FullBarrier => {
                let in_pass = self.lists[l].targets.2;
                let list = &mut self.lists[l].list;
                if list.ty() == CommandListType::Bundle || in_pass {
                    return;
                }
                let (sync, access) = if list.ty() == CommandListType::Copy {
                    (
                        BarrierSync::COPY,
                        (BarrierAccess::COPY_DEST, BarrierAccess::COPY_SOURCE | BarrierAccess::COPY_DEST),
                    )
                } else {
                    (BarrierSync::ALL, (BarrierAccess::COMMON, BarrierAccess::COMMON))
                };
                list.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                    sync_before: sync,
                    sync_after: sync,
                    access_before: access.0,
                    access_after: access.1,
                }])]);
            }
            Cmd::BeginQuery { heap, ty, index } | Cmd::EndQuery { heap, ty, index } => {
                // Valid sequences use a heap of the query's type.
                let heap_type = match ty {
                    QueryType::Timestamp => QueryHeapType::Timestamp,
                    QueryType::PipelineStatistics => QueryHeapType::PipelineStatistics,
                    _ => QueryHeapType::Occlusion,
                };
                let heaps: Vec<&QueryHeap> =
                    self.query_heaps.iter().map(|h| &h.0).filter(|h| !self.valid || h.desc().ty == heap_type).collect();
                if heaps.is_empty() {
                    return;
                }
                let h = heaps[heap % heaps.len()].clone();
                if matches!(cmd, Cmd::BeginQuery { .. }) {
                    self.lists[l].list.begin_query(&h, *ty, *index);
                } else {
                    self.lists[l].list.end_query(&h, *ty, *index);
                }
            }
            Cmd::Predicate { buffer, not_equal } => {
                let op = if *not_equal { PredicationOp::NotEqualZero } else { PredicationOp::EqualZero };
                match buffer.and_then(|(b, o)| Some((self.buffer(b)?, o))) {
                    Some((b, offset)) => {
                        let r = res(self, b);
                        self.lists[l].list.set_predication(Some((&r, offset)), op);
                        self.lists[l].tainted_predicate |= self.resources[b].tainted;
                    }
                    None => self.lists[l].list.set_predication(None, op),
                }
            }
            Cmd::Dispatch { buffer, constants, groups } => {
                let (Some(b), Some((root, pso))) = (self.buffer(*buffer), self.fill.clone()) else { return };
                let r = res(self, b);
                let list = &mut self.lists[l].list;
                list.set_pipeline_state(&pso);
                list.set_compute_root_signature(&root);
                list.set_compute_root_32bit_constants(0, constants, 0);
                list.set_compute_root_unordered_access_view(1, r.gpu_address(0));
                list.dispatch(groups.0, groups.1, groups.2);
                self.resources[b].tainted = true;
            }
            Cmd::ExecuteBundle { bundle } => {
                let Some(b) = self.pick_list(*bundle) else { return };
                if b == l {
                    return;
                }
                let (parent, bundle) = if l < b {
                    let (head, tail) = self.lists.split_at_mut(b);
                    (&mut head[l].list, &tail[0].list)
                } else {
                    let (head, tail) = self.lists.split_at_mut(l);
                    (&mut tail[0].list, &head[b].list)
                };
                parent.execute_bundle(bundle);
                // What the bundle writes is not followed: taint every texture bound here.
                for t in self.lists[l].targets.0.clone().into_iter().chain(self.lists[l].targets.1) {
                    self.resources[t].tainted = true;
                }
            }
        }
    }
}

//! Route planners: pure functions from a call's facts and the device's capabilities to the
//! route the fallback takes. No device is needed to test them.

use asyncmd_types::{BarrierLayout, CommandListType, HeapType};

/// Bytes of one upload chunk: a fill copies its pattern from chunks of at most this size.
pub const UPLOAD_CHUNK: u64 = 1 << 20;

/// A call's only fill of at most this many bytes is copied from upload memory even where the
/// device's compute fills win: the dispatch and the barriers around it cost more than the
/// copy. On an H100 one fill under the fallback took 5.8–6.0 µs of GPU time by compute
/// against 3.3–4.5 µs by copies at 4, 16 and 64 KiB, and the legacy loop 3.7–4.5
/// (`docs/performance.md`); a batch of fills keeps the one dispatch.
pub const SMALL_FILL_ALONE: u64 = 64 << 10;

/// How one fill is lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FillRoute {
    /// The built-in compute shader writes the pattern through a root UAV.
    Compute,
    /// Copies from a CPU-filled upload chunk; `staged`: first copied into a VRAM staging block.
    Upload {
        /// The chunk is staged through device memory first.
        staged: bool,
    },
}

/// What the planner needs to know of one fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillFacts {
    /// The list it is recorded on.
    pub list: CommandListType,
    /// Heap of the destination buffer.
    pub heap: HeapType,
    /// The buffer allows unordered access.
    pub uav: bool,
    /// The buffer is protected.
    pub protected: bool,
    /// Byte offset of the first pattern.
    pub offset: u64,
    /// Bytes the fill writes.
    pub bytes: u64,
    /// Predication is on in the list: the compute route is kept, since dispatches are what
    /// every device predicates (some have no predicated copies).
    pub predicated: bool,
    /// It is the call's only fill (after fills that continue each other are joined).
    pub alone: bool,
}

/// What the planner needs to know of the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceFacts {
    /// Compute shaders can run the built-in fill shader.
    pub compute_fill_shader: bool,
    /// Compute shaders write buffers faster than transfers (measured by the device).
    pub compute_fills_win: bool,
    /// Unified memory (no VRAM staging).
    pub uma: bool,
    /// Programmable sample positions: partial copies of depth-stencil and MSAA subresources
    /// are legal.
    pub programmable_sample_positions: bool,
}

impl DeviceFacts {
    /// The facts of a device's capabilities.
    pub fn of(caps: &asyncmd_ddi::Capabilities) -> Self {
        DeviceFacts {
            compute_fill_shader: caps.compute_fill_shader,
            compute_fills_win: caps.compute_fills_win,
            uma: caps.uma,
            programmable_sample_positions: caps.programmable_sample_positions,
        }
    }
}

/// The route of one fill: compute where the list, device, heap, flags and dword alignment
/// allow it and the device's compute shaders write faster than its transfers (or the list is
/// predicated), unless it is a call's only fill and small ([`SMALL_FILL_ALONE`]); otherwise
/// copies from an upload chunk, staged through VRAM on discrete devices for unprotected fills
/// larger than one chunk.
pub fn plan_fill(f: &FillFacts, d: &DeviceFacts) -> FillRoute {
    let compute_list = matches!(f.list, CommandListType::Direct | CommandListType::Compute);
    let aligned = f.offset.is_multiple_of(4) && f.bytes.is_multiple_of(4);
    let small_alone = f.alone && f.bytes <= SMALL_FILL_ALONE;
    let worth_it = (d.compute_fills_win && !small_alone) || f.predicated;
    if compute_list && d.compute_fill_shader && worth_it && f.heap == HeapType::Default && f.uav && aligned {
        FillRoute::Compute
    } else {
        FillRoute::Upload { staged: !d.uma && !f.protected && f.bytes > UPLOAD_CHUNK }
    }
}

/// How one subresource of a `ClearTextureSubresources` call is lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureClearRoute {
    /// Legacy texture copies from a tile of the encoded value; `staged`: the tile is first
    /// copied into a VRAM block of this recording.
    PatternCopy {
        /// The tile is staged through device memory first.
        staged: bool,
    },
    /// A clear through a private RTV or DSV, between transitions: a legacy view clear, or with
    /// `draw` the runtime's clear draw (exact where the view clear is not).
    InPlace {
        /// Drawn rather than view-cleared.
        draw: bool,
    },
    /// A clear of a private MSAA texture, copied into the target: a legacy view clear, or with
    /// `draw` the runtime's clear draw.
    MsaaCopy {
        /// Drawn rather than view-cleared.
        draw: bool,
    },
    /// Not lowerable: the list is removed with `Fail`.
    Rejected(ClearRejection),
}

/// Why the fallback cannot lower a texture clear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClearRejection {
    /// MSAA textures need a direct list.
    MsaaOnComputeList,
    /// The MSAA texture or the list is protected.
    ProtectedMsaa,
    /// The format, sample count or quality cannot be rendered multisampled.
    UnrenderableMsaa,
    /// A partial region of a depth-stencil or MSAA subresource needs programmable sample
    /// positions to be copied.
    PartialWithoutSamplePositions,
    /// A copy cannot represent the region.
    NotCopyable,
}

impl ClearRejection {
    /// The reason, as the removal message states it.
    pub fn reason(self) -> &'static str {
        match self {
            ClearRejection::MsaaOnComputeList => "MSAA textures can only be cleared by the fallback on direct lists",
            ClearRejection::ProtectedMsaa => "a protected MSAA texture cannot be cleared through a private texture",
            ClearRejection::UnrenderableMsaa => {
                "the format, sample count and quality cannot be rendered multisampled and no in-place clear is possible"
            }
            ClearRejection::PartialWithoutSamplePositions => {
                "a partial region of a depth-stencil or MSAA subresource cannot be copied on a device without \
                 programmable sample positions"
            }
            ClearRejection::NotCopyable => "a copy cannot represent the format or region",
        }
    }
}

/// What the planner needs to know of one subresource clear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureClearFacts {
    /// The list it is recorded on.
    pub list: CommandListType,
    /// Samples per texel.
    pub samples: u32,
    /// A plane of a depth or depth-stencil format.
    pub depth_stencil: bool,
    /// The texture allows the matching view (render target or depth stencil) and the device
    /// renders its format at its sample count.
    pub view_target: bool,
    /// The texture allows simultaneous access.
    pub simultaneous_access: bool,
    /// The layout the list's own barriers left the subresource in, if they set one.
    pub known_layout: Option<BarrierLayout>,
    /// A legacy view clear writes exactly the encoded value.
    pub exact: bool,
    /// A copy can write the format and region.
    pub copyable: bool,
    /// Texels the region covers.
    pub region_texels: u64,
    /// Texels of the whole subresource.
    pub subresource_texels: u64,
    /// Bytes the region covers.
    pub region_bytes: u64,
    /// The texture or the list is protected.
    pub protected: bool,
    /// A private texture of the format, sample count and quality can be rendered.
    pub msaa_renderable: bool,
    /// The device was created to clear with the closest value a view clear takes, as the
    /// D3D12 runtime does, rather than drawing inexact MSAA colour clears.
    pub closest_values: bool,
}

/// The layouts an in-place clear can start from and return to.
fn in_place_layout(layout: Option<BarrierLayout>) -> bool {
    matches!(
        layout,
        Some(
            BarrierLayout::Common
                | BarrierLayout::CopyDest
                | BarrierLayout::DirectQueueCommon
                | BarrierLayout::DirectQueueCopyDest
        )
    )
}

/// The route of one subresource clear, as the spec's appendix matrix lays out:
/// - MSAA: direct lists only; in place where the view clear is possible, else through a
///   private MSAA texture (unprotected, renderable, whole subresource unless the device has
///   programmable sample positions). Where a colour view clear cannot store the value exactly
///   either route draws it instead (the spec's fallback takes the closest value; so does
///   this one with `closest_values`);
/// - single-sample: in place on direct lists when the view clear is exact and the layout
///   known, for partial regions on discrete devices only above a quarter of the subresource
///   (or when a partial copy is not legal); otherwise the pattern copy, staged through VRAM on
///   discrete devices for unprotected regions larger than one upload chunk.
pub fn plan_texture_clear(f: &TextureClearFacts, d: &DeviceFacts) -> TextureClearRoute {
    let whole = f.region_texels >= f.subresource_texels;
    let view_clear =
        f.list == CommandListType::Direct && f.view_target && !f.simultaneous_access && in_place_layout(f.known_layout);
    if f.samples > 1 {
        let draw = !f.exact && !f.depth_stencil && !f.closest_values;
        return if f.list != CommandListType::Direct {
            TextureClearRoute::Rejected(ClearRejection::MsaaOnComputeList)
        } else if view_clear {
            TextureClearRoute::InPlace { draw }
        } else if f.protected {
            TextureClearRoute::Rejected(ClearRejection::ProtectedMsaa)
        } else if !f.msaa_renderable {
            TextureClearRoute::Rejected(ClearRejection::UnrenderableMsaa)
        } else if !whole && !d.programmable_sample_positions {
            TextureClearRoute::Rejected(ClearRejection::PartialWithoutSamplePositions)
        } else {
            TextureClearRoute::MsaaCopy { draw }
        };
    }
    let partial_copy_legal = !f.depth_stencil || d.programmable_sample_positions;
    let copy = if !f.copyable {
        Err(ClearRejection::NotCopyable)
    } else if !whole && !partial_copy_legal {
        Err(ClearRejection::PartialWithoutSamplePositions)
    } else {
        Ok(TextureClearRoute::PatternCopy { staged: !d.uma && !f.protected && f.region_bytes > UPLOAD_CHUNK })
    };
    if view_clear && f.exact {
        // Above a quarter of the subresource the view clear wins; at or below it the layout
        // transitions cost more than the clear (measured on a 4K target).
        let large = f.region_texels.saturating_mul(4) > f.subresource_texels;
        if whole || d.uma || large || copy.is_err() {
            return TextureClearRoute::InPlace { draw: false };
        }
    }
    copy.unwrap_or_else(TextureClearRoute::Rejected)
}

/// How a bound clear (`ClearBoundRenderTargetViews` or `ClearBoundDepthStencilView`) is
/// lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoundClearRoute {
    /// Legacy view clears through private views made from the bind-time capture.
    Legacy,
    /// Runtime-owned draws with the app's state restored after them.
    Draws,
    /// Outside a pass, where draws into the bound outputs cannot cover the clear and a legacy
    /// clear would not be exact: runtime draws into each selected target bound alone, then
    /// the app's targets and state bound again.
    DrawsAlone,
    /// Not lowerable: the list is removed with `Fail`.
    Rejected(BoundClearRejection),
}

/// Why the fallback cannot lower a bound clear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoundClearRejection {
    /// Inside a pass, a selected region reaches past the smallest bound output.
    PastSmallestOutput,
    /// Inside a pass, the bound outputs have different sample counts.
    MixedSampleCounts,
}

impl BoundClearRejection {
    /// The reason, as the removal message states it.
    pub fn reason(self) -> &'static str {
        match self {
            BoundClearRejection::PastSmallestOutput => {
                "inside a render pass a selected region reaches past the smallest bound output, which draws cannot cover"
            }
            BoundClearRejection::MixedSampleCounts => {
                "inside a render pass the bound outputs have different sample counts, which draws cannot cover"
            }
        }
    }
}

/// What the planner needs to know of one bound clear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundClearFacts {
    /// Inside a render pass.
    pub in_pass: bool,
    /// Legacy clears write exactly the requested values: always for depth-stencil clears; for
    /// render targets when every selected target is a float format and every value is finite
    /// and not subnormal.
    pub legacy_exact: bool,
    /// A selected region (clipped to its target) reaches past the smallest bound output: its
    /// width, height or slice count.
    pub past_smallest_output: bool,
    /// The bound outputs have different sample counts.
    pub mixed_sample_counts: bool,
    /// The device clears with the closest value a legacy clear takes, as the D3D12 runtime
    /// does: outside a pass, what draws cannot cover takes the legacy clear, exact or not.
    pub closest_values: bool,
}

/// The route of a bound clear (one recorded in a bundle is planned when a list executes it):
/// inside a pass the clear draws unless the draws cannot cover it (rejected); outside a pass
/// legacy clears are used where they are exact, draws otherwise, and where draws into the
/// bound outputs cannot cover the clear, draws into each target alone (the legacy clear's
/// closest value with `closest_values`).
pub fn plan_bound_clear(f: &BoundClearFacts) -> BoundClearRoute {
    let undrawable = if f.past_smallest_output {
        Some(BoundClearRejection::PastSmallestOutput)
    } else if f.mixed_sample_counts {
        Some(BoundClearRejection::MixedSampleCounts)
    } else {
        None
    };
    match (f.in_pass, undrawable) {
        (true, Some(why)) => BoundClearRoute::Rejected(why),
        (true, None) => BoundClearRoute::Draws,
        (false, Some(_)) if f.legacy_exact || f.closest_values => BoundClearRoute::Legacy,
        (false, Some(_)) => BoundClearRoute::DrawsAlone,
        (false, None) if f.legacy_exact => BoundClearRoute::Legacy,
        (false, None) => BoundClearRoute::Draws,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The removal message is how an app learns why the fallback refused: each names its cause.
    #[test]
    fn every_rejection_names_its_cause() {
        let texture = [
            (ClearRejection::MsaaOnComputeList, "on direct lists"),
            (ClearRejection::ProtectedMsaa, "protected MSAA"),
            (ClearRejection::UnrenderableMsaa, "cannot be rendered multisampled"),
            (ClearRejection::PartialWithoutSamplePositions, "without programmable sample positions"),
            (ClearRejection::NotCopyable, "a copy cannot represent"),
        ];
        for (r, cause) in texture {
            assert!(r.reason().contains(cause), "{r:?}: {}", r.reason());
        }
        let bound = [
            (BoundClearRejection::PastSmallestOutput, "past the smallest bound output"),
            (BoundClearRejection::MixedSampleCounts, "different sample counts"),
        ];
        for (r, cause) in bound {
            assert!(r.reason().contains(cause), "{r:?}: {}", r.reason());
        }
    }

    fn facts() -> FillFacts {
        FillFacts {
            list: CommandListType::Direct,
            heap: HeapType::Default,
            uav: true,
            protected: false,
            offset: 0,
            bytes: 4096,
            predicated: false,
            alone: false,
        }
    }

    const DISCRETE: DeviceFacts = DeviceFacts {
        compute_fill_shader: true,
        compute_fills_win: true,
        uma: false,
        programmable_sample_positions: true,
    };

    #[test]
    fn compute_route_needs_every_condition() {
        assert_eq!(plan_fill(&facts(), &DISCRETE), FillRoute::Compute);
        assert_eq!(plan_fill(&FillFacts { list: CommandListType::Compute, ..facts() }, &DISCRETE), FillRoute::Compute);
        let upload = FillRoute::Upload { staged: false };
        for (what, f) in [
            ("copy list", FillFacts { list: CommandListType::Copy, ..facts() }),
            ("bundle", FillFacts { list: CommandListType::Bundle, ..facts() }),
            ("upload heap", FillFacts { heap: HeapType::Upload, ..facts() }),
            ("readback heap", FillFacts { heap: HeapType::Readback, ..facts() }),
            ("no UAV flag", FillFacts { uav: false, ..facts() }),
            ("offset not dword-aligned", FillFacts { offset: 2, ..facts() }),
            ("size not dword-aligned", FillFacts { bytes: 4095, ..facts() }),
        ] {
            assert_eq!(plan_fill(&f, &DISCRETE), upload, "{what}");
        }
        assert_eq!(plan_fill(&facts(), &DeviceFacts { compute_fill_shader: false, ..DISCRETE }), upload);
    }

    #[test]
    fn compute_route_only_where_compute_wins_or_under_predication() {
        let slow = DeviceFacts { compute_fills_win: false, ..DISCRETE };
        assert_eq!(plan_fill(&facts(), &slow), FillRoute::Upload { staged: false });
        let predicated = FillFacts { predicated: true, ..facts() };
        assert_eq!(plan_fill(&predicated, &slow), FillRoute::Compute);
        // Predication does not open the route where the other conditions close it.
        assert_eq!(plan_fill(&FillFacts { uav: false, ..predicated }, &slow), FillRoute::Upload { staged: false });
        let none = DeviceFacts { compute_fill_shader: false, ..slow };
        assert_eq!(plan_fill(&predicated, &none), FillRoute::Upload { staged: false });
    }

    #[test]
    fn a_calls_only_small_fill_is_copied_where_compute_wins() {
        let upload = FillRoute::Upload { staged: false };
        let alone = |bytes| FillFacts { alone: true, bytes, ..facts() };
        assert_eq!(plan_fill(&alone(4), &DISCRETE), upload);
        assert_eq!(plan_fill(&alone(SMALL_FILL_ALONE), &DISCRETE), upload);
        assert_eq!(plan_fill(&alone(SMALL_FILL_ALONE + 4), &DISCRETE), FillRoute::Compute);
        // One fill of many keeps the batch's dispatch, whatever its size.
        assert_eq!(plan_fill(&FillFacts { bytes: 4, ..facts() }, &DISCRETE), FillRoute::Compute);
        // Under predication the dispatch stays: some devices predicate no copies.
        assert_eq!(plan_fill(&FillFacts { predicated: true, ..alone(4096) }, &DISCRETE), FillRoute::Compute);
    }

    #[test]
    fn staging_for_large_unprotected_fills_on_discrete_devices_only() {
        let big = FillFacts { uav: false, bytes: UPLOAD_CHUNK + 4, ..facts() };
        assert_eq!(plan_fill(&big, &DISCRETE), FillRoute::Upload { staged: true });
        assert_eq!(
            plan_fill(&FillFacts { bytes: UPLOAD_CHUNK, ..big }, &DISCRETE),
            FillRoute::Upload { staged: false }
        );
        assert_eq!(plan_fill(&FillFacts { protected: true, ..big }, &DISCRETE), FillRoute::Upload { staged: false });
        let uma = DeviceFacts { uma: true, ..DISCRETE };
        assert_eq!(plan_fill(&big, &uma), FillRoute::Upload { staged: false });
    }

    fn clear() -> TextureClearFacts {
        TextureClearFacts {
            list: CommandListType::Direct,
            samples: 1,
            depth_stencil: false,
            view_target: true,
            simultaneous_access: false,
            known_layout: Some(BarrierLayout::CopyDest),
            exact: true,
            copyable: true,
            region_texels: 100,
            subresource_texels: 100,
            region_bytes: 400,
            protected: false,
            msaa_renderable: true,
            closest_values: false,
        }
    }

    const COPY: TextureClearRoute = TextureClearRoute::PatternCopy { staged: false };
    const NO_PSP: DeviceFacts = DeviceFacts { programmable_sample_positions: false, ..DISCRETE };
    const UMA: DeviceFacts = DeviceFacts { uma: true, ..DISCRETE };

    #[test]
    fn in_place_needs_every_condition_for_single_sample_textures() {
        assert_eq!(plan_texture_clear(&clear(), &DISCRETE), TextureClearRoute::InPlace { draw: false });
        for layout in [BarrierLayout::Common, BarrierLayout::DirectQueueCommon, BarrierLayout::DirectQueueCopyDest] {
            let f = TextureClearFacts { known_layout: Some(layout), ..clear() };
            assert_eq!(plan_texture_clear(&f, &DISCRETE), TextureClearRoute::InPlace { draw: false }, "{layout:?}");
        }
        for (what, f) in [
            ("compute list", TextureClearFacts { list: CommandListType::Compute, ..clear() }),
            ("no RT/DS flag or unrenderable", TextureClearFacts { view_target: false, ..clear() }),
            ("simultaneous access", TextureClearFacts { simultaneous_access: true, ..clear() }),
            ("unknown layout", TextureClearFacts { known_layout: None, ..clear() }),
            (
                "layout outside common/copy-dest",
                TextureClearFacts { known_layout: Some(BarrierLayout::GenericRead), ..clear() },
            ),
            (
                "compute-queue layout",
                TextureClearFacts { known_layout: Some(BarrierLayout::ComputeQueueCopyDest), ..clear() },
            ),
            ("inexact value", TextureClearFacts { exact: false, ..clear() }),
        ] {
            assert_eq!(plan_texture_clear(&f, &DISCRETE), COPY, "{what}");
            assert_eq!(plan_texture_clear(&f, &UMA), COPY, "{what} (UMA)");
        }
    }

    #[test]
    fn partial_regions_use_the_view_clear_above_a_quarter_on_discrete_devices() {
        let quarter = TextureClearFacts { region_texels: 25, ..clear() };
        let above = TextureClearFacts { region_texels: 26, ..clear() };
        assert_eq!(plan_texture_clear(&quarter, &DISCRETE), COPY);
        assert_eq!(plan_texture_clear(&above, &DISCRETE), TextureClearRoute::InPlace { draw: false });
        // UMA: whenever the view clear is possible.
        assert_eq!(
            plan_texture_clear(&TextureClearFacts { region_texels: 1, ..clear() }, &UMA),
            TextureClearRoute::InPlace { draw: false }
        );
        // Depth-stencil partial regions where a partial copy is not legal stay in place.
        let ds = TextureClearFacts { depth_stencil: true, region_texels: 1, ..clear() };
        assert_eq!(plan_texture_clear(&ds, &NO_PSP), TextureClearRoute::InPlace { draw: false });
        assert_eq!(plan_texture_clear(&ds, &DISCRETE), COPY);
        // A region the copy cannot write goes in place at any size.
        let uncopyable = TextureClearFacts { copyable: false, region_texels: 1, ..clear() };
        assert_eq!(plan_texture_clear(&uncopyable, &DISCRETE), TextureClearRoute::InPlace { draw: false });
    }

    #[test]
    fn pattern_copies_and_their_rejections() {
        let compute = TextureClearFacts { list: CommandListType::Compute, ..clear() };
        let big = TextureClearFacts { region_bytes: UPLOAD_CHUNK + 1, ..compute };
        assert_eq!(plan_texture_clear(&big, &DISCRETE), TextureClearRoute::PatternCopy { staged: true });
        assert_eq!(plan_texture_clear(&TextureClearFacts { region_bytes: UPLOAD_CHUNK, ..big }, &DISCRETE), COPY);
        assert_eq!(plan_texture_clear(&TextureClearFacts { protected: true, ..big }, &DISCRETE), COPY);
        assert_eq!(plan_texture_clear(&big, &UMA), COPY);
        let rejected = |r| TextureClearRoute::Rejected(r);
        assert_eq!(
            plan_texture_clear(&TextureClearFacts { copyable: false, ..compute }, &DISCRETE),
            rejected(ClearRejection::NotCopyable)
        );
        // Compute lists: whole depth-stencil subresources copy anywhere, partial ones need
        // programmable sample positions.
        let ds = TextureClearFacts { depth_stencil: true, ..compute };
        assert_eq!(plan_texture_clear(&ds, &NO_PSP), COPY);
        let partial = TextureClearFacts { region_texels: 50, ..ds };
        assert_eq!(plan_texture_clear(&partial, &DISCRETE), COPY);
        assert_eq!(plan_texture_clear(&partial, &NO_PSP), rejected(ClearRejection::PartialWithoutSamplePositions));
    }

    #[test]
    fn msaa_routes() {
        let msaa = TextureClearFacts { samples: 4, exact: false, ..clear() };
        const IN_PLACE: TextureClearRoute = TextureClearRoute::InPlace { draw: true };
        const PRIVATE: TextureClearRoute = TextureClearRoute::MsaaCopy { draw: true };
        // In place even with an inexact value, drawn.
        assert_eq!(plan_texture_clear(&msaa, &DISCRETE), IN_PLACE);
        // A value the view clear stores, or the closest value where the device asks for it.
        let exact = TextureClearFacts { exact: true, ..msaa };
        assert_eq!(plan_texture_clear(&exact, &DISCRETE), TextureClearRoute::InPlace { draw: false });
        let closest = TextureClearFacts { closest_values: true, ..msaa };
        assert_eq!(plan_texture_clear(&closest, &DISCRETE), TextureClearRoute::InPlace { draw: false });
        // Depth is stored exactly by the view clear.
        let depth = TextureClearFacts { depth_stencil: true, ..msaa };
        assert_eq!(plan_texture_clear(&depth, &DISCRETE), TextureClearRoute::InPlace { draw: false });
        let partial = TextureClearFacts { region_texels: 10, ..msaa };
        assert_eq!(plan_texture_clear(&partial, &NO_PSP), IN_PLACE);
        let private = TextureClearFacts { view_target: false, ..msaa };
        assert_eq!(plan_texture_clear(&private, &DISCRETE), PRIVATE);
        assert_eq!(
            plan_texture_clear(&TextureClearFacts { exact: true, ..private }, &DISCRETE),
            TextureClearRoute::MsaaCopy { draw: false }
        );
        assert_eq!(plan_texture_clear(&TextureClearFacts { known_layout: None, ..msaa }, &NO_PSP), PRIVATE);
        let rejected = |r| TextureClearRoute::Rejected(r);
        assert_eq!(
            plan_texture_clear(&TextureClearFacts { list: CommandListType::Compute, ..msaa }, &DISCRETE),
            rejected(ClearRejection::MsaaOnComputeList)
        );
        assert_eq!(
            plan_texture_clear(&TextureClearFacts { protected: true, ..private }, &DISCRETE),
            rejected(ClearRejection::ProtectedMsaa)
        );
        assert_eq!(
            plan_texture_clear(&TextureClearFacts { msaa_renderable: false, ..private }, &DISCRETE),
            rejected(ClearRejection::UnrenderableMsaa)
        );
        let partial_private = TextureClearFacts { region_texels: 10, ..private };
        assert_eq!(plan_texture_clear(&partial_private, &DISCRETE), PRIVATE);
        assert_eq!(
            plan_texture_clear(&partial_private, &NO_PSP),
            rejected(ClearRejection::PartialWithoutSamplePositions)
        );
    }

    #[test]
    fn bound_clears_draw_inside_passes_and_take_legacy_clears_outside_where_exact() {
        let f = BoundClearFacts {
            in_pass: false,
            legacy_exact: true,
            past_smallest_output: false,
            mixed_sample_counts: false,
            closest_values: false,
        };
        assert_eq!(plan_bound_clear(&f), BoundClearRoute::Legacy);
        assert_eq!(plan_bound_clear(&BoundClearFacts { legacy_exact: false, ..f }), BoundClearRoute::Draws);
        // Outside a pass, what draws into the bound outputs cannot cover takes the legacy clear
        // where it is exact, draws into each target alone where not (the legacy clear's
        // closest value when the device asks for the D3D12 runtime's results).
        for undrawable in
            [BoundClearFacts { past_smallest_output: true, ..f }, BoundClearFacts { mixed_sample_counts: true, ..f }]
        {
            assert_eq!(plan_bound_clear(&undrawable), BoundClearRoute::Legacy);
            let inexact = BoundClearFacts { legacy_exact: false, ..undrawable };
            assert_eq!(plan_bound_clear(&inexact), BoundClearRoute::DrawsAlone);
            let closest = BoundClearFacts { closest_values: true, ..inexact };
            assert_eq!(plan_bound_clear(&closest), BoundClearRoute::Legacy);
        }
        let pass = BoundClearFacts { in_pass: true, ..f };
        assert_eq!(plan_bound_clear(&pass), BoundClearRoute::Draws, "exact or not, passes draw");
        assert_eq!(
            plan_bound_clear(&BoundClearFacts { past_smallest_output: true, ..pass }),
            BoundClearRoute::Rejected(BoundClearRejection::PastSmallestOutput)
        );
        assert_eq!(
            plan_bound_clear(&BoundClearFacts { mixed_sample_counts: true, ..pass }),
            BoundClearRoute::Rejected(BoundClearRejection::MixedSampleCounts)
        );
        assert_eq!(
            plan_bound_clear(&BoundClearFacts { legacy_exact: false, closest_values: true, ..pass }),
            BoundClearRoute::Draws,
            "the option leaves passes drawing"
        );
    }
}

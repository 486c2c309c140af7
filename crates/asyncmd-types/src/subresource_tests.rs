use crate::*;

#[test]
fn subresource_index_round_trips() {
    let d = ResourceDesc::tex2d(Format::D24UnormS8Uint, 64, 32).with_mips(3).with_array(4);
    assert_eq!(d.subresource_count(), 3 * 4 * 2);
    for i in 0..d.subresource_count() {
        let s = d.subresource(i).unwrap();
        assert_eq!(d.subresource_index(s.mip, s.slice, s.plane), i);
    }
    assert_eq!(d.subresource_index(1, 2, 1), 1 + 3 * (2 + 4));
    assert!(d.subresource(24).is_none());
}

#[test]
fn footprints_align_offsets_and_pitches() {
    let d = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 100, 10).with_mips(2);
    let f = d.copyable_footprints(0, 2, 0).unwrap();
    assert_eq!(f.layouts[0].footprint.row_pitch, 512);
    assert_eq!(f.row_sizes[0], 400);
    assert_eq!(f.num_rows, vec![10, 5]);
    // Mip 0 ends at 9 * 512 + 400 = 5008; mip 1 starts at the next multiple of 512.
    assert_eq!(f.layouts[1].offset, 5120);
    assert_eq!(f.layouts[1].footprint.width, 50);
    assert_eq!(f.layouts[1].footprint.row_pitch, 256);
    assert_eq!(f.total_bytes, 5120 + 4 * 256 + 200);
    let shifted = d.copyable_footprints(1, 1, 1000).unwrap();
    assert_eq!(shifted.layouts[0].offset, 1024);
}

#[test]
fn footprints_of_block_compressed_and_planar_formats() {
    let bc = ResourceDesc::tex2d(Format::Bc1Unorm, 16, 8).with_mips(3);
    let f = bc.copyable_footprints(0, 3, 0).unwrap();
    assert_eq!(f.num_rows, vec![2, 1, 1]);
    assert_eq!(f.row_sizes, vec![32, 16, 8]);
    // Mip 2 is 4x2 texels: footprint dimensions are block-aligned.
    assert_eq!((f.layouts[2].footprint.width, f.layouts[2].footprint.height), (4, 4));
    let ds = ResourceDesc::tex2d(Format::D32FloatS8X24Uint, 8, 8);
    let f = ds.copyable_footprints(0, 2, 0).unwrap();
    assert_eq!(f.layouts[0].footprint.format, Format::R32Typeless);
    assert_eq!(f.layouts[1].footprint.format, Format::R8Typeless);
    assert_eq!(f.row_sizes, vec![32, 8]);
    let nv12 = ResourceDesc::tex2d(Format::Nv12, 8, 4);
    let f = nv12.copyable_footprints(0, 2, 0).unwrap();
    assert_eq!((f.layouts[1].footprint.width, f.layouts[1].footprint.height), (4, 2));
    assert_eq!(f.row_sizes[1], 8);
}

#[test]
fn footprints_out_of_range_are_refused() {
    let d = ResourceDesc::tex2d(Format::R8Unorm, 4, 4);
    assert!(d.copyable_footprints(0, 2, 0).is_none());
    assert!(d.copyable_footprints(u32::MAX, 2, 0).is_none());
}

#[test]
fn resource_validation_rejects_bad_descriptions() {
    assert!(ResourceDesc::buffer(0).validate().is_err());
    assert!(ResourceDesc::tex2d(Format::Bc1Unorm, 6, 4).validate().is_err());
    assert!(ResourceDesc::tex2d(Format::R8Unorm, 4, 4).with_samples(3, 0).validate().is_err());
    assert!(ResourceDesc::tex2d(Format::R8Unorm, 4, 4).with_mips(4).validate().is_err());
    assert!(ResourceDesc::tex2d(Format::R8Unorm, 4, 4).with_mips(3).validate().is_ok());
    assert!(ResourceDesc::tex3d(Format::R8Unorm, 4, 4, 4).with_samples(4, 0).validate().is_err());
    assert!(ResourceDesc::tex2d(Format::R8Unorm, 4, 4)
        .with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL)
        .validate()
        .is_err());
    assert!(ResourceDesc::tex2d(Format::D32Float, 4, 4)
        .with_flags(ResourceFlags::ALLOW_RENDER_TARGET)
        .validate()
        .is_err());
    assert!(ResourceDesc::buffer(16).with_flags(ResourceFlags::ALLOW_RENDER_TARGET).validate().is_err());
}

#[test]
fn barrier_rules() {
    assert!(BarrierAccess::COPY_DEST.compatible_with_sync(BarrierSync::COPY));
    assert!(BarrierAccess::COPY_DEST.compatible_with_sync(BarrierSync::ALL));
    assert!(!BarrierAccess::COPY_DEST.compatible_with_sync(BarrierSync::RENDER_TARGET));
    assert!(BarrierAccess::RENDER_TARGET.compatible_with_sync(BarrierSync::DRAW));
    assert!(BarrierLayout::Common.allows(BarrierAccess::COPY_DEST));
    assert!(!BarrierLayout::Common.allows(BarrierAccess::UNORDERED_ACCESS));
    assert!(BarrierLayout::DirectQueueCommon.allows(BarrierAccess::UNORDERED_ACCESS));
    assert!(!BarrierLayout::RenderTarget.legal_on(CommandListType::Compute));
    // Copy lists name COMMON, COPY_SOURCE and COPY_DEST (spec 004), and nothing else.
    for l in [BarrierLayout::Common, BarrierLayout::CopySource, BarrierLayout::CopyDest] {
        assert!(l.legal_on(CommandListType::Copy), "{l:?}");
    }
    for l in [BarrierLayout::RenderTarget, BarrierLayout::ShaderResource, BarrierLayout::DirectQueueCommon] {
        assert!(!l.legal_on(CommandListType::Copy), "{l:?}");
    }
    assert!(!sync_legal_on(BarrierSync::COMPUTE_SHADING, CommandListType::Copy));
    assert_eq!(BarrierLayout::from_raw(30), None);
    assert_eq!(BarrierLayout::from_raw(31), Some(BarrierLayout::DirectQueueGenericReadComputeQueueAccessible));
}

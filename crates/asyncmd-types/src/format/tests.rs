use super::*;
use crate::ClearData;

#[test]
fn dxgi_values_round_trip_and_groups_are_consistent() {
    for &f in Format::ALL {
        assert_eq!(Format::from_dxgi(f.dxgi()), Some(f));
        let group = f.info().typeless;
        assert_eq!(group.info().typeless, group, "{f}: group of the group");
        if f != Format::Unknown && f.info().layout != Layout::Block {
            assert_eq!(group.bytes_per_block(), f.bytes_per_block(), "{f}: element size within group");
        }
    }
    assert_eq!(Format::R8G8B8A8Unorm.dxgi(), 28);
    assert_eq!(Format::Bc7UnormSrgb.dxgi(), 99);
    assert_eq!(Format::from_dxgi(66), None);
}

#[test]
fn planes_of_depth_and_video_formats() {
    assert_eq!(Format::D24UnormS8Uint.plane_count(), 2);
    assert_eq!(Format::D32FloatS8X24Uint.plane(1).unwrap().bytes_per_block, 1);
    assert_eq!(Format::D32Float.plane_count(), 1);
    let chroma = Format::Nv12.plane(1).unwrap();
    assert_eq!((chroma.bytes_per_block, chroma.subsample_x, chroma.subsample_y), (2, 2, 2));
    assert!(Format::R8G8B8A8Unorm.plane(1).is_none());
}

#[test]
fn unorm_and_snorm_round_as_d3d() {
    let (b, n) = encode_texel(Format::R8G8B8A8Unorm, &ClearData::from_floats([0.5, 1.5, -1.0, f32::NAN])).unwrap();
    assert_eq!(&b[..n], &[128, 255, 0, 0]);
    let (b, _) = encode_texel(Format::R8Snorm, &ClearData::from_floats([-1.0, 0.0, 0.0, 0.0])).unwrap();
    assert_eq!(b[0] as i8, -127);
    let (b, _) = encode_texel(Format::R8Snorm, &ClearData::from_floats([0.5, 0.0, 0.0, 0.0])).unwrap();
    assert_eq!(b[0] as i8, 64, "0.5 * 127 = 63.5 rounds away from zero");
}

#[test]
fn integer_formats_keep_low_bits_exactly() {
    let (b, n) = encode_texel(Format::R16G16Uint, &ClearData::from_uints([0x1_2345, 7, 9, 9])).unwrap();
    assert_eq!(&b[..n], &[0x45, 0x23, 7, 0]);
    let (b, n) = encode_texel(Format::R32G32B32A32Sint, &ClearData::from_sints([-1, 2, i32::MIN, 4])).unwrap();
    assert_eq!(decode_texel(Format::R32G32B32A32Sint, &b[..n]).unwrap().sints(), [-1, 2, i32::MIN, 4]);
    let (b, n) = encode_texel(Format::R8Sint, &ClearData::from_sints([-3, 0, 0, 0])).unwrap();
    assert_eq!(decode_texel(Format::R8Sint, &b[..n]).unwrap().sints()[0], -3);
}

#[test]
fn bgra_swizzles_and_packed_formats() {
    let v = ClearData::from_floats([1.0, 0.0, 0.0, 1.0]);
    let (b, n) = encode_texel(Format::B8G8R8A8Unorm, &v).unwrap();
    assert_eq!(&b[..n], &[0, 0, 255, 255]);
    let (b, n) = encode_texel(Format::B5G6R5Unorm, &v).unwrap();
    assert_eq!(u16::from_le_bytes([b[0], b[1]]), 0xF800);
    assert_eq!(n, 2);
    let (b, _) = encode_texel(Format::R10G10B10A2Unorm, &ClearData::from_floats([1.0, 0.0, 1.0, 1.0])).unwrap();
    assert_eq!(u32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0x3FF | 0x3FF << 20 | 3 << 30);
}

#[test]
fn small_floats_and_shared_exponent_round_trip_representable_values() {
    for v in [0.0f32, 1.0, 0.5, 2.0, 64512.0, 0.125] {
        let (b, n) = encode_texel(Format::R11G11B10Float, &ClearData::from_floats([v, v, v, 0.0])).unwrap();
        let back = decode_texel(Format::R11G11B10Float, &b[..n]).unwrap().floats();
        assert_eq!(back[..3], [v, v, v], "R11G11B10 {v}");
        let (b, n) = encode_texel(Format::R9G9B9E5SharedExp, &ClearData::from_floats([v, v / 2.0, 0.0, 0.0])).unwrap();
        let back = decode_texel(Format::R9G9B9E5SharedExp, &b[..n]).unwrap().floats();
        assert_eq!(back[0], v, "RGB9E5 {v}");
    }
    // Past the largest finite value each channel clamps to its own maximum.
    let (b, n) = encode_texel(Format::R11G11B10Float, &ClearData::from_floats([1e9, 1e9, 1e9, 0.0])).unwrap();
    assert_eq!(decode_texel(Format::R11G11B10Float, &b[..n]).unwrap().floats()[..3], [65024.0, 65024.0, 64512.0]);
    let (b, _) = encode_texel(Format::R9G9B9E5SharedExp, &ClearData::from_floats([1.0, 0.0, 0.0, 0.0])).unwrap();
    // 1.0 = 256 × 2^(16 - 15 - 9): mantissa 256, biased exponent 16.
    assert_eq!(u32::from_le_bytes([b[0], b[1], b[2], b[3]]), 256 | 16 << 27);
}

#[test]
fn depth_is_clamped_and_stencil_read_from_uints1() {
    let (b, n) = encode_texel(Format::D24UnormS8Uint, &ClearData::from_depth_stencil(2.0, 0x5A)).unwrap();
    assert_eq!(&b[..n], &[0xFF, 0xFF, 0xFF, 0x5A]);
    let (b, _) = encode_texel(Format::D32Float, &ClearData::from_depth_stencil(f32::NAN, 0)).unwrap();
    assert_eq!(f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_bits(), 0);
    let (b, _) = encode_texel(Format::D32Float, &ClearData::from_depth_stencil(-0.0, 0)).unwrap();
    assert_eq!(f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_bits(), 0, "-0 maps to +0");
}

#[test]
fn srgb_encodes_the_transfer_curve() {
    let (b, _) = encode_texel(Format::R8G8B8A8UnormSrgb, &ClearData::from_floats([0.5, 0.0, 1.0, 0.5])).unwrap();
    assert_eq!(&b[..4], &[188, 0, 255, 128]);
}

#[test]
fn no_encoding_for_typeless_block_and_video() {
    for f in [Format::R8G8B8A8Typeless, Format::Bc1Unorm, Format::Nv12, Format::Unknown] {
        assert!(encode_texel(f, &ClearData::default()).is_none(), "{f}");
    }
}

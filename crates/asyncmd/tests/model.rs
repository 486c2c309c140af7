//! Property tests: random sequences of copies agree with a CPU model of the same copies.

mod common;

use asyncmd::types::*;
use common::*;
use proptest::prelude::*;

const SIZE: usize = 512;

#[derive(Debug, Clone)]
struct Copy {
    dst: usize,
    src: usize,
    dst_offset: usize,
    src_offset: usize,
    len: usize,
}

fn copy() -> impl Strategy<Value = Copy> {
    (0..3usize, 0..3usize, 0..SIZE, 0..SIZE, 1..SIZE).prop_map(|(dst, src, d, s, len)| Copy {
        dst,
        src,
        dst_offset: d,
        src_offset: s,
        len,
    })
}

fn valid(c: &Copy) -> bool {
    let fits = c.dst_offset + c.len <= SIZE && c.src_offset + c.len <= SIZE;
    let overlap = c.dst == c.src && c.dst_offset < c.src_offset + c.len && c.src_offset < c.dst_offset + c.len;
    fits && !overlap
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn buffer_copy_sequences_match_the_model(copies in prop::collection::vec(copy(), 1..12)) {
        let ctx = Ctx::reference();
        let mut model: Vec<Vec<u8>> = (0..3).map(|i| pattern(SIZE, 100 + i)).collect();
        let buffers: Vec<_> = model.iter().map(|d| ctx.default_buffer(d)).collect();
        let result = ctx.record(CommandListType::Direct, |l| {
            for c in &copies {
                l.copy_buffer_region(&buffers[c.dst], c.dst_offset as u64, &buffers[c.src], c.src_offset as u64, c.len as u64);
            }
        });
        if copies.iter().all(valid) {
            prop_assert!(result.is_ok());
            ctx.run(CommandListType::Direct, |l| {
                for c in &copies {
                    l.copy_buffer_region(&buffers[c.dst], c.dst_offset as u64, &buffers[c.src], c.src_offset as u64, c.len as u64);
                }
            });
            for c in &copies {
                let data = model[c.src][c.src_offset..c.src_offset + c.len].to_vec();
                model[c.dst][c.dst_offset..c.dst_offset + c.len].copy_from_slice(&data);
            }
            for (b, m) in buffers.iter().zip(&model) {
                prop_assert_eq!(&ctx.read_buffer(b), m);
            }
        } else {
            let e = result.unwrap_err();
            prop_assert_eq!(e.id, MessageId::CopyBufferRegionInvalidParameters);
        }
    }

    #[test]
    fn texture_box_copies_match_the_model(
        (l, t, r, b) in (0u32..12, 0u32..6, 1u32..13, 1u32..7),
        (dx, dy) in (0u32..12, 0u32..6),
    ) {
        let ctx = Ctx::reference();
        let desc = ResourceDesc::tex2d(Format::R16G16Unorm, 12, 6);
        let src_data = pattern(12 * 6 * 4, 7);
        let src = ctx.texture(&desc, BarrierLayout::Common);
        let dst = ctx.texture(&desc, BarrierLayout::Common);
        ctx.upload_subresource(&src, 0, &src_data);
        ctx.upload_subresource(&dst, 0, &[0; 12 * 6 * 4]);
        let sbox = Box3::new(l, t, 0, r, b, 1);
        // An empty box copies nothing and is valid wherever it points.
        let empty = l == r || t == b;
        let fits = l <= r && t <= b && (empty || (dx + (r - l) <= 12 && dy + (b - t) <= 6));
        let result = ctx.record(CommandListType::Direct, |list| {
            list.copy_texture_region(&TextureCopyLocation::subresource(&dst, 0), dx, dy, 0, &TextureCopyLocation::subresource(&src, 0), Some(&sbox))
        });
        prop_assert_eq!(result.is_ok(), fits);
        if fits {
            ctx.run(CommandListType::Direct, |list| {
                list.copy_texture_region(&TextureCopyLocation::subresource(&dst, 0), dx, dy, 0, &TextureCopyLocation::subresource(&src, 0), Some(&sbox))
            });
            let mut want = vec![0u8; 12 * 6 * 4];
            for y in 0..(b - t) as usize {
                for x in 0..(r - l) as usize {
                    let s = ((t as usize + y) * 12 + l as usize + x) * 4;
                    let d = ((dy as usize + y) * 12 + dx as usize + x) * 4;
                    want[d..d + 4].copy_from_slice(&src_data[s..s + 4]);
                }
            }
            prop_assert_eq!(ctx.read_subresource(&dst, 0), want);
        }
    }
}

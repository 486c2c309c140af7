//! Legacy copies read back the bytes a CPU model predicts, and the copies that once failed or
//! made the devices disagree get the spec's error or the same bytes on every device.

mod common;

use asyncmd::types::*;
use common::*;

#[test]
fn buffer_copies_move_exact_ranges() {
    for (name, ctx) in contexts() {
        let data = pattern(4096, 1);
        let src = ctx.default_buffer(&data);
        let dst = ctx.default_buffer(&vec![0xEE; 4096]);
        ctx.run(CommandListType::Direct, |l| {
            l.copy_buffer_region(&dst, 100, &src, 7, 1000);
            l.copy_buffer_region(&dst, 3000, &src, 0, 1);
        });
        let out = ctx.read_buffer(&dst);
        let mut want = vec![0xEE; 4096];
        want[100..1100].copy_from_slice(&data[7..1007]);
        want[3000] = data[0];
        assert_eq!(out, want, "{name}");
    }
}

#[test]
fn copies_within_one_buffer_on_disjoint_ranges() {
    for (name, ctx) in contexts() {
        let _ = name;
        let data = pattern(256, 2);
        let buf = ctx.default_buffer(&data);
        ctx.run(CommandListType::Copy, |l| l.copy_buffer_region(&buf, 128, &buf, 0, 128));
        let out = ctx.read_buffer(&buf);
        assert_eq!(&out[128..], &data[..128]);
        assert_eq!(&out[..128], &data[..128]);
    }
}

#[test]
fn texture_upload_and_readback_round_trip_every_subresource() {
    for (name, ctx) in contexts() {
        let _ = name;
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 37, 19).with_mips(3).with_array(2);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        for sub in 0..desc.subresource_count() {
            let size = desc.packed_layout(sub).unwrap().size() as usize;
            let data = pattern(size, sub + 10);
            ctx.upload_subresource(&tex, sub, &data);
            assert_eq!(ctx.read_subresource(&tex, sub), data, "subresource {sub}");
        }
    }
}

#[test]
fn texture_to_texture_box_copy_lands_at_the_destination_offset() {
    for (name, ctx) in contexts() {
        let _ = name;
        let desc = ResourceDesc::tex2d(Format::R16Uint, 16, 8);
        let (w, h) = (16usize, 8usize);
        let src_data = pattern(w * h * 2, 3);
        let src = ctx.texture(&desc, BarrierLayout::Common);
        let dst = ctx.texture(&desc, BarrierLayout::Common);
        ctx.upload_subresource(&src, 0, &src_data);
        ctx.upload_subresource(&dst, 0, &vec![0; w * h * 2]);
        let sbox = Box3::new(2, 1, 0, 7, 4, 1);
        ctx.run(CommandListType::Compute, |l| copy_region(l, &dst, 0, (9, 4, 0), &src, 0, Some(&sbox)));
        let out = ctx.read_subresource(&dst, 0);
        let mut want = vec![0u8; w * h * 2];
        for y in 0..3 {
            for x in 0..5 {
                let s = ((1 + y) * w + 2 + x) * 2;
                let d = ((4 + y) * w + 9 + x) * 2;
                want[d..d + 2].copy_from_slice(&src_data[s..s + 2]);
            }
        }
        assert_eq!(out, want);
    }
}

#[test]
fn three_d_box_copies_move_the_right_slices() {
    for (name, ctx) in contexts() {
        let _ = name;
        let desc = ResourceDesc::tex3d(Format::R8Unorm, 8, 4, 4);
        let src_data = pattern(8 * 4 * 4, 4);
        let src = ctx.texture(&desc, BarrierLayout::Common);
        let dst = ctx.texture(&desc, BarrierLayout::Common);
        ctx.upload_subresource(&src, 0, &src_data);
        ctx.upload_subresource(&dst, 0, &[0; 128]);
        let sbox = Box3::new(1, 1, 1, 4, 3, 3);
        ctx.run(CommandListType::Direct, |l| copy_region(l, &dst, 0, (4, 2, 2), &src, 0, Some(&sbox)));
        let out = ctx.read_subresource(&dst, 0);
        let mut want = vec![0u8; 128];
        for z in 0..2 {
            for y in 0..2 {
                for x in 0..3 {
                    want[((2 + z) * 4 + 2 + y) * 8 + 4 + x] = src_data[((1 + z) * 4 + 1 + y) * 8 + 1 + x];
                }
            }
        }
        assert_eq!(out, want);
    }
}

#[test]
fn block_compressed_copies_move_whole_blocks() {
    for (name, ctx) in contexts() {
        let _ = name;
        let desc = ResourceDesc::tex2d(Format::Bc1Unorm, 16, 8).with_mips(2);
        let src = ctx.texture(&desc, BarrierLayout::Common);
        let dst = ctx.texture(&desc, BarrierLayout::Common);
        // Mip 0: 4x2 blocks of 8 bytes.
        let data = pattern(4 * 2 * 8, 5);
        ctx.upload_subresource(&src, 0, &data);
        ctx.upload_subresource(&dst, 0, &[0; 64]);
        let sbox = Box3::new(4, 0, 0, 12, 4, 1);
        ctx.run(CommandListType::Direct, |l| copy_region(l, &dst, 0, (0, 4, 0), &src, 0, Some(&sbox)));
        let out = ctx.read_subresource(&dst, 0);
        let mut want = vec![0u8; 64];
        // Blocks (1..3, 0) go to (0..2, 1).
        want[32..48].copy_from_slice(&data[8..24]);
        assert_eq!(out, want);
        // Mip 1 is 8x4 texels: 2x1 blocks; a copy reaching the edge is aligned.
        let small = pattern(16, 6);
        ctx.upload_subresource(&src, 1, &small);
        ctx.run(CommandListType::Direct, |l| copy_region(l, &dst, 1, (0, 0, 0), &src, 1, None));
        assert_eq!(ctx.read_subresource(&dst, 1), small);
    }
}

/// A box that ends at the source's edge inside a block copies that whole block, also into
/// the middle of a larger destination (Vulkan wants whole blocks there; the Vulkan device
/// copies through a buffer).
#[test]
fn a_partial_edge_block_lands_whole_inside_a_larger_destination() {
    for (name, ctx) in contexts() {
        // Mip 2 is 10x10 texels: 3x3 blocks of 8 bytes, the last row and column partial.
        let src = ctx.texture(&ResourceDesc::tex2d(Format::Bc1Unorm, 40, 40).with_mips(3), BarrierLayout::Common);
        let dst = ctx.texture(&ResourceDesc::tex2d(Format::Bc1Unorm, 16, 16), BarrierLayout::Common);
        let data = pattern(3 * 3 * 8, 9);
        ctx.upload_subresource(&src, 2, &data);
        ctx.upload_subresource(&dst, 0, &[0; 4 * 4 * 8]);
        let sbox = Box3::new(4, 4, 0, 10, 10, 1);
        ctx.run(CommandListType::Direct, |l| copy_region(l, &dst, 0, (4, 4, 0), &src, 2, Some(&sbox)));
        let mut want = vec![0u8; 4 * 4 * 8];
        for row in 1..3 {
            want[row * 32 + 8..row * 32 + 24].copy_from_slice(&data[row * 24 + 8..row * 24 + 24]);
        }
        assert_eq!(ctx.read_subresource(&dst, 0), want, "{name}");
    }
}

#[test]
fn depth_and_stencil_planes_copy_separately() {
    for (name, ctx) in contexts() {
        let _ = name;
        let desc = ResourceDesc::tex2d(Format::D24UnormS8Uint, 4, 4);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        // 24-bit depth values: the high byte of the depth plane's 32-bit elements is unused.
        let mut depth = pattern(64, 7);
        depth.iter_mut().skip(3).step_by(4).for_each(|b| *b = 0);
        let stencil = pattern(16, 8);
        ctx.upload_subresource(&tex, 0, &depth);
        ctx.upload_subresource(&tex, 1, &stencil);
        assert_eq!(ctx.read_subresource(&tex, 0), depth);
        assert_eq!(ctx.read_subresource(&tex, 1), stencil);
        let copy = ctx.texture(&desc, BarrierLayout::Common);
        ctx.run(CommandListType::Direct, |l| copy_region(l, &copy, 1, (0, 0, 0), &tex, 1, None));
        assert_eq!(ctx.read_subresource(&copy, 1), stencil);
        assert_eq!(ctx.read_subresource(&copy, 0), vec![0; 64], "only the stencil plane was copied");
    }
}

#[test]
fn copy_resource_copies_every_subresource() {
    for (name, ctx) in contexts() {
        let _ = name;
        let desc = ResourceDesc::tex2d(Format::R32Float, 8, 8).with_mips(4);
        let src = ctx.texture(&desc, BarrierLayout::Common);
        let dst = ctx.texture(&desc, BarrierLayout::Common);
        let mut datas = Vec::new();
        for sub in 0..4 {
            let d = pattern(desc.packed_layout(sub).unwrap().size() as usize, 20 + sub);
            ctx.upload_subresource(&src, sub, &d);
            datas.push(d);
        }
        ctx.run(CommandListType::Copy, |l| l.copy_resource(&dst, &src));
        for (sub, d) in datas.iter().enumerate() {
            assert_eq!(&ctx.read_subresource(&dst, sub as u32), d);
        }
    }
}

#[test]
fn tile_copies_round_trip_through_mapped_tiles_and_drop_unmapped_writes() {
    for (name, ctx) in contexts() {
        if ctx.device.capabilities().tiled_resources_tier < 2 {
            continue;
        }
        let _ = name;
        let tile = TILE_SIZE_IN_BYTES as usize;
        let desc = ResourceDesc::buffer(4 * TILE_SIZE_IN_BYTES);
        let reserved = ctx.device.create_reserved_resource(&desc, BarrierLayout::Undefined).unwrap();
        let heap = ctx.device.create_heap(2 * TILE_SIZE_IN_BYTES).unwrap();
        // Map resource tiles 1 and 2; 0 and 3 stay unmapped.
        ctx.direct
            .update_tile_mappings(
                &reserved,
                &[asyncmd::TileRangeMapping {
                    coordinate: TiledResourceCoordinate { x: 1, ..Default::default() },
                    num_tiles: 2,
                    heap: Some((&heap, 0)),
                }],
            )
            .unwrap();
        let data = pattern(4 * tile, 9);
        let src = ctx.default_buffer(&data);
        let back = ctx.buffer(HeapType::Default, 4 * TILE_SIZE_IN_BYTES);
        ctx.run(CommandListType::Direct, |l| {
            let size = TileRegionSize { num_tiles: 4, ..Default::default() };
            l.copy_tiles(
                &reserved,
                &TiledResourceCoordinate::default(),
                &size,
                &src,
                0,
                TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE,
            );
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_SOURCE,
            }])]);
            l.copy_tiles(
                &reserved,
                &TiledResourceCoordinate::default(),
                &size,
                &back,
                0,
                TileCopyFlags::SWIZZLED_TILED_RESOURCE_TO_LINEAR_BUFFER,
            );
        });
        let out = ctx.read_buffer(&back);
        assert_eq!(&out[..tile], &vec![0; tile][..], "unmapped tile 0 reads zero");
        assert_eq!(&out[tile..3 * tile], &data[tile..3 * tile], "mapped tiles hold what was copied");
        assert_eq!(&out[3 * tile..], &vec![0; tile][..], "unmapped tile 3 reads zero");
    }
}

#[test]
fn tile_copies_of_a_2d_texture_use_the_standard_tile_shape() {
    for (name, ctx) in contexts() {
        if ctx.device.capabilities().tiled_resources_tier < 2 {
            continue;
        }
        let _ = name;
        // 4-byte texels: 128x128 tiles; a 256x128 texture has 2 tiles.
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 256, 128);
        let (tex, _heap) = mapped_reserved(&ctx, &desc, BarrierLayout::Common, 2);
        let tile = pattern(TILE_SIZE_IN_BYTES as usize, 11);
        let src = ctx.default_buffer(&tile);
        ctx.run(CommandListType::Direct, |l| {
            let size = TileRegionSize { num_tiles: 1, ..Default::default() };
            let start = TiledResourceCoordinate { x: 1, ..Default::default() };
            l.copy_tiles(&tex, &start, &size, &src, 0, TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE);
        });
        let image = ctx.read_subresource(&tex, 0);
        for y in [0usize, 77, 127] {
            let row = &image[(y * 256 + 128) * 4..(y * 256 + 256) * 4];
            assert_eq!(row, &tile[y * 512..(y + 1) * 512], "row {y} of tile (1, 0)");
            assert!(image[y * 1024..y * 1024 + 512].iter().all(|&b| b == 0), "tile (0, 0) untouched");
        }
    }
}

#[test]
fn a_copy_queue_upload_waited_on_by_the_direct_queue_is_read_correctly() {
    for (name, ctx) in contexts() {
        let _ = name;
        let data = pattern(1 << 20, 12);
        let upload = ctx.upload(&data);
        let gpu = ctx.buffer(HeapType::Default, 1 << 20);
        let readback = ctx.buffer(HeapType::Readback, 1 << 20);
        let fence = ctx.device.create_fence(0).unwrap();

        let mut read = ctx.list(CommandListType::Direct);
        read.copy_buffer_region(&readback, 0, &gpu, 0, 1 << 20);
        read.close().unwrap();
        // The direct queue waits first: its work cannot start before the copy queue signals.
        ctx.direct.wait(&fence, 1).unwrap();
        ctx.direct.execute_command_lists(&[&read]).unwrap();

        let mut copy = ctx.list(CommandListType::Copy);
        copy.copy_buffer_region(&gpu, 0, &upload, 0, 1 << 20);
        copy.close().unwrap();
        ctx.copy.execute_command_lists(&[&copy]).unwrap();
        ctx.copy.signal(&fence, 1).unwrap();

        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(fence.completed_value(), 1);
        assert_eq!(readback.read_vec(0, 1 << 20).unwrap(), data);
    }
}

#[test]
fn an_edge_tile_keeps_full_tile_rows_in_the_buffer() {
    for (name, ctx) in contexts() {
        if ctx.device.capabilities().tiled_resources_tier < 2 {
            continue;
        }
        // 4-byte texels: 128x128 tiles; a 200x200 texture has 2x2 tiles, the right ones 72 wide.
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 200, 200);
        let (tex, _heap) = mapped_reserved(&ctx, &desc, BarrierLayout::Common, 2);
        let tile = pattern(TILE_SIZE_IN_BYTES as usize, 13);
        let src = ctx.default_buffer(&tile);
        ctx.run(CommandListType::Direct, |l| {
            let size = TileRegionSize { num_tiles: 1, ..Default::default() };
            let start = TiledResourceCoordinate { x: 1, ..Default::default() };
            l.copy_tiles(&tex, &start, &size, &src, 0, TileCopyFlags::LINEAR_BUFFER_TO_SWIZZLED_TILED_RESOURCE);
        });
        let image = ctx.read_subresource(&tex, 0);
        for y in [0usize, 50, 127] {
            let row = &image[(y * 200 + 128) * 4..(y * 200 + 200) * 4];
            assert_eq!(row, &tile[y * 512..y * 512 + 72 * 4], "{name}: row {y}: 512 bytes a tile row in the buffer");
        }
    }
}

#[test]
fn texture_copies_with_no_region_still_check_their_subresources() {
    for (name, ctx) in async_contexts() {
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 4), BarrierLayout::Common);
        let r = ctx.record(CommandListType::Direct, |l| {
            l.copy_texture_regions(&[TextureCopyDesc {
                kind: TextureCopyKind::TextureToTexture {
                    dest: &tex,
                    dest_subresource: 3,
                    source: &tex,
                    source_subresource: 0,
                },
                regions: vec![],
            }])
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::InvalidSubresourceIndex);
        assert!(e.text.starts_with("CopyTextureRegions"), "{name}: {}", e.text);
    }
}

#[test]
fn a_footprint_whose_size_overflows_is_refused() {
    for (name, ctx) in contexts() {
        let tex = ctx.texture(&ResourceDesc::tex3d(Format::R8G8B8A8Unorm, 4, 4, 4), BarrierLayout::Common);
        let small = ctx.buffer(HeapType::Default, 4096);
        // A 2 GiB pitch times 2^64 rows does not fit in 64 bits (unchecked, it wraps).
        let footprint = PlacedSubresourceFootprint {
            offset: 0,
            footprint: SubresourceFootprint {
                format: Format::R8G8B8A8Unorm,
                width: 4,
                height: u32::MAX,
                depth: u32::MAX,
                row_pitch: 1 << 31,
            },
        };
        let r = ctx.record(CommandListType::Direct, |l| {
            l.copy_texture_region(
                &TextureCopyLocation::subresource(&tex, 0),
                0,
                0,
                0,
                &TextureCopyLocation::footprint(&small, footprint),
                Some(&Box3::sized(4, 4, 4)),
            )
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::CopyTextureRegionInvalidParameters);
        assert!(e.text.contains("footprint"), "{name}: {}", e.text);
    }
}

#[test]
fn depth_and_colour_textures_of_one_family_copy_into_each_other() {
    for (name, ctx) in contexts() {
        let depth = ctx.texture(
            &ResourceDesc::tex2d(Format::D32Float, 8, 4).with_flags(ResourceFlags::ALLOW_DEPTH_STENCIL),
            BarrierLayout::Common,
        );
        let colour = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 8, 4), BarrierLayout::Common);
        let back = ctx.texture(&ResourceDesc::tex2d(Format::R32Float, 8, 4), BarrierLayout::Common);
        let texels: Vec<u8> = (0..32).flat_map(|i| (i as f32 / 32.0).to_le_bytes()).collect();
        ctx.upload_subresource(&colour, 0, &texels);
        ctx.run(CommandListType::Direct, |l| {
            copy_region(l, &depth, 0, (0, 0, 0), &colour, 0, None);
            l.barrier(&[BarrierGroup::Global(vec![GlobalBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_SOURCE,
            }])]);
            l.copy_resource(&back, &depth);
        });
        assert_eq!(ctx.read_subresource(&depth, 0), texels, "{name}: colour to depth");
        assert_eq!(ctx.read_subresource(&back, 0), texels, "{name}: depth to colour");
    }
}

/// Found by the fuzzer: an empty copy reached `vkCmdCopyBuffer` as a region of size 0
/// (VUID-VkBufferCopy-size-01988).
#[test]
fn empty_buffer_copies_copy_nothing() {
    for (name, ctx) in async_contexts() {
        let (src, dst) = (ctx.default_buffer(&[7; 64]), ctx.default_buffer(&[1; 64]));
        ctx.run(CommandListType::Direct, |l| {
            l.copy_buffer_region(&dst, 0, &src, 0, 0);
            full_barrier(l);
            l.copy_buffer_regions(&[
                BufferCopyRegion { dest: &dst, dest_offset: 4, source: &src, source_offset: 0, size: 0 },
                BufferCopyRegion { dest: &dst, dest_offset: 8, source: &src, source_offset: 0, size: 4 },
            ]);
        });
        let mut want = vec![1; 64];
        want[8..12].fill(7);
        assert_eq!(ctx.read_buffer(&dst), want, "{name}");
    }
}

/// Found by the cross-device fuzzer: a copy between a 1D and a 2D texture reached
/// `vkCmdCopyImage` (VUID-vkCmdCopyImage-srcImage-07743); it goes through a buffer.
#[test]
fn a_1d_texture_copies_into_a_row_of_a_2d_texture() {
    for (name, ctx) in contexts() {
        let line = ctx.texture(&ResourceDesc::tex1d(Format::R8G8B8A8Unorm, 4), BarrierLayout::Common);
        let data = pattern(16, 3);
        ctx.upload_subresource(&line, 0, &data);
        let plane = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 4, 2), BarrierLayout::Common);
        ctx.run(CommandListType::Direct, |l| {
            l.copy_texture_region(
                &TextureCopyLocation::subresource(&plane, 0),
                0,
                1,
                0,
                &TextureCopyLocation::subresource(&line, 0),
                None,
            )
        });
        let mut want = vec![0u8; 32];
        want[16..].copy_from_slice(&data);
        assert_eq!(ctx.read_subresource(&plane, 0), want, "{name}");
    }
}

/// Found by an independent fuzzer: the Vulkan device dropped the serialization of legacy copies
/// after any barrier, even one on an unrelated buffer, and the synchronization layer reported
/// read-after-write, write-after-write and write-after-read between the copies. Legacy copies
/// complete one before the next whatever barriers come between.
#[test]
fn legacy_copies_stay_ordered_across_an_unrelated_barrier() {
    for (name, ctx) in contexts() {
        let data = pattern(256, 7);
        let src = ctx.default_buffer(&data);
        let a = ctx.default_buffer(&[0u8; 256]);
        let other = ctx.default_buffer(&[0u8; 16]);
        let out = ctx.default_buffer(&[0u8; 256]);
        let unrelated = |l: &mut asyncmd::CommandList| {
            l.barrier(&[BarrierGroup::Buffer(vec![BufferBarrier {
                sync_before: BarrierSync::COPY,
                sync_after: BarrierSync::COPY,
                access_before: BarrierAccess::COPY_DEST,
                access_after: BarrierAccess::COPY_SOURCE,
                resource: &other,
                offset: 0,
                size: u64::MAX,
            }])])
        };
        ctx.run(CommandListType::Direct, |l| {
            l.copy_buffer_region(&a, 0, &src, 0, 256);
            unrelated(l);
            // Reads what the first copy wrote.
            l.copy_buffer_region(&out, 0, &a, 0, 256);
            unrelated(l);
            // Overwrites what the second copy read, and what the first wrote.
            l.copy_buffer_region(&a, 0, &other, 0, 16);
        });
        assert_eq!(ctx.read_buffer(&out), data, "{name}");
        let mut want = data.clone();
        want[..16].fill(0);
        assert_eq!(ctx.read_buffer(&a), want, "{name}");
    }
}

//! Streaming uploads (spec 004) on every device: bytes in buffers and textures, the ring's
//! wrap-around and back-pressure, frame budgets, threads, the one-queue degradation, bad input.

mod common;

use asyncmd::types::*;
use asyncmd::*;
use asyncmd_reference::ReferenceConfig;
use common::*;
use std::sync::Arc;

const RING: u64 = 1 << 20;

fn uploader(ctx: &Ctx, ring: u64) -> StreamingUploader {
    StreamingUploader::new(&ctx.device, ring).expect("uploader")
}

/// An uploader whose ring is in three lanes, filled by threads side by side.
fn laned(ctx: &Ctx, ring: u64) -> StreamingUploader {
    StreamingUploader::with_lanes(&ctx.device, ring, 3).expect("uploader")
}

/// Reads `buffer` back on the direct queue once `ticket` is done there.
fn read_after(ctx: &Ctx, ticket: &UploadTicket, buffer: &Resource) -> Vec<u8> {
    ctx.direct.wait_ticket(ticket).unwrap();
    ctx.read_buffer(buffer)
}

#[test]
fn buffers_arrive_whole_at_their_offsets() {
    for (name, ctx) in contexts() {
        let up = uploader(&ctx, RING);
        let dst = ctx.buffer(HeapType::Default, 3 << 20);
        let mut expected = vec![0u8; 3 << 20];
        let mut last = None;
        for (i, (offset, len)) in
            [(0usize, 1usize), (4, 4096), (100_001, 700_000), (1 << 20, 2 << 20)].into_iter().enumerate()
        {
            let data = pattern(len, i as u32 + 1);
            expected[offset..offset + len].copy_from_slice(&data);
            last = Some(up.upload_buffer(&dst, offset as u64, &data).expect("upload"));
        }
        assert_eq!(read_after(&ctx, &last.unwrap(), &dst), expected, "{name}");
        assert_eq!(up.uploaded_bytes(), (1 + 4096 + 700_000 + (2 << 20)) as u64, "{name}");
    }
}

/// More data than the ring holds, in one call and in many: the ring wraps and the next chunk
/// waits for the oldest, never growing.
#[test]
fn more_data_than_the_ring_wraps_and_waits_for_the_oldest_chunk() {
    for (name, ctx) in contexts() {
        let up = uploader(&ctx, 64 << 10);
        let dst = ctx.buffer(HeapType::Default, 4 << 20);
        let data = pattern(4 << 20, 9);
        let t = up.upload_buffer(&dst, 0, &data).unwrap();
        assert_eq!(read_after(&ctx, &t, &dst), data, "{name}: one upload 64 times the ring");
        let wide = laned(&ctx, 6 << 20);
        let big = pattern(20 << 20, 10);
        let big_dst = ctx.buffer(HeapType::Default, 20 << 20);
        let t = wide.upload_buffer(&big_dst, 0, &big).unwrap();
        assert!(read_after(&ctx, &t, &big_dst) == big, "{name}: three lanes filled by threads");
        let small = ctx.buffer(HeapType::Default, 1 << 20);
        let mut expected = Vec::new();
        let mut t = None;
        for i in 0..64u32 {
            let part = pattern(16 << 10, 100 + i);
            t = Some(up.upload_buffer(&small, i as u64 * (16 << 10), &part).unwrap());
            expected.extend_from_slice(&part);
        }
        assert_eq!(read_after(&ctx, &t.unwrap(), &small), expected, "{name}: many uploads");
    }
}

#[test]
fn textures_arrive_in_every_format_mip_and_pitch() {
    for (name, ctx) in contexts() {
        let up = laned(&ctx, 256 << 10);
        for (format, w, h, mips) in
            [(Format::R8G8B8A8Unorm, 300, 70, 3), (Format::R32Float, 129, 257, 2), (Format::R16G16Uint, 64, 64, 1)]
        {
            let desc = ResourceDesc::tex2d(format, w, h).with_mips(mips);
            let tex = ctx.texture(&desc, BarrierLayout::Common);
            for sub in 0..mips as u32 {
                let fp = ctx.device.copyable_footprints(&desc, sub, 1, 0).unwrap();
                let (rows, row) = (fp.num_rows[0] as usize, fp.row_sizes[0] as usize);
                for pitch in [row, row + 52] {
                    let packed = pattern(rows * row, sub * 7 + pitch as u32);
                    let mut data = vec![0xEE; rows * pitch];
                    for y in 0..rows {
                        data[y * pitch..][..row].copy_from_slice(&packed[y * row..][..row]);
                    }
                    let t = up.upload_texture(&tex, sub, &data, pitch as u64).expect("upload");
                    ctx.direct.wait_ticket(&t).unwrap();
                    assert_eq!(ctx.read_subresource(&tex, sub), packed, "{name}: {format} mip {sub} pitch {pitch}");
                }
            }
            assert_eq!(tex.layout(0), Some(BarrierLayout::Common), "{name}: back in COMMON for other queues");
        }
        // A 3D texture: slice after slice.
        let desc = ResourceDesc::tex3d(Format::R8G8B8A8Unorm, 40, 30, 5);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let data = pattern(40 * 4 * 30 * 5, 77);
        let t = up.upload_texture(&tex, 0, &data, 160).unwrap();
        ctx.direct.wait_ticket(&t).unwrap();
        assert_eq!(ctx.read_subresource(&tex, 0), data, "{name}: 3D");
    }
}

/// A budget of 64 KiB a frame moves a 256 KiB upload over four frames; the ticket is done only
/// after the fourth.
#[test]
fn a_frame_budget_spreads_an_upload_over_frames() {
    for (name, ctx) in contexts() {
        let up = uploader(&ctx, RING);
        let dst = ctx.buffer(HeapType::Default, 256 << 10);
        let data = pattern(256 << 10, 5);
        up.begin_frame(Some(64 << 10)).unwrap();
        let t = up.upload_buffer(&dst, 0, &data).unwrap();
        let mut copied = vec![up.uploaded_bytes()];
        up.end_frame();
        for _ in 0..3 {
            ctx.direct.wait_idle(TIMEOUT).unwrap();
            up.queue().wait_idle(TIMEOUT).unwrap();
            assert!(!t.is_done(), "{name}: the ticket waits for the last part");
            up.begin_frame(Some(64 << 10)).unwrap();
            copied.push(up.uploaded_bytes());
            up.end_frame();
        }
        assert_eq!(copied, [64 << 10, 128 << 10, 192 << 10, 256 << 10], "{name}: bytes after each frame");
        assert_eq!(up.held_bytes(), 0, "{name}");
        t.wait(TIMEOUT).unwrap();
        assert_eq!(ctx.read_buffer(&dst), data, "{name}");
    }
}

#[test]
fn uploads_from_several_threads_all_arrive() {
    for (name, ctx) in contexts() {
        let shared = Arc::new(uploader(&ctx, 256 << 10));
        let dst = ctx.buffer(HeapType::Default, 8 << 20);
        let handles: Vec<_> = (0..4u32)
            .map(|i| {
                let (shared, dst, device) = (shared.clone(), dst.clone(), ctx.device.clone());
                std::thread::spawn(move || {
                    // Each thread: uploads through the shared uploader, and one of its own.
                    let own = StreamingUploader::new(&device, 128 << 10).unwrap();
                    let mut tickets = Vec::new();
                    for j in 0..8u32 {
                        let via = if j % 2 == 0 { &*shared } else { &own };
                        let at = (i * 8 + j) as u64 * (256 << 10);
                        tickets.push(via.upload_buffer(&dst, at, &pattern(256 << 10, i * 8 + j)).unwrap());
                    }
                    tickets.iter().for_each(|t| t.wait(TIMEOUT).unwrap());
                })
            })
            .collect();
        handles.into_iter().for_each(|h| h.join().unwrap());
        let bytes = ctx.read_buffer(&dst);
        for k in 0..32u32 {
            let at = k as usize * (256 << 10);
            assert!(bytes[at..at + (256 << 10)] == pattern(256 << 10, k), "{name}: part {k}");
        }
    }
}

#[test]
fn a_device_with_one_queue_uploads_on_a_direct_queue() {
    let one = reference_device(ReferenceConfig { dedicated_copy_queue: false, ..Default::default() });
    let up = StreamingUploader::new(&one, RING).unwrap();
    assert_eq!(up.queue().ty(), CommandListType::Direct);
    let ctx = Ctx::new(one);
    let dst = ctx.buffer(HeapType::Default, 4096);
    let t = up.upload_buffer(&dst, 0, &pattern(4096, 3)).unwrap();
    assert_eq!(read_after(&ctx, &t, &dst), pattern(4096, 3));
    for (name, ctx) in contexts() {
        let expected = if ctx.device.capabilities().dedicated_copy_queue {
            CommandListType::Copy
        } else {
            CommandListType::Direct
        };
        assert_eq!(uploader(&ctx, RING).queue().ty(), expected, "{name}");
    }
}

#[test]
fn bad_uploads_are_refused_and_upload_nothing() {
    for (name, ctx) in contexts() {
        let up = uploader(&ctx, RING);
        let dst = ctx.buffer(HeapType::Default, 4096);
        let no_usage = ctx
            .device
            .create_committed_resource(
                HeapType::Default,
                &ResourceDesc::buffer(4096).with_usage(ResourceUsage::TRANSFER_SOURCE),
                BarrierLayout::Undefined,
            )
            .unwrap();
        let tex = ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 8), BarrierLayout::Common);
        let rt = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 8).with_flags(ResourceFlags::ALLOW_RENDER_TARGET);
        let in_rt = ctx.texture(&rt, BarrierLayout::RenderTarget);
        let msaa =
            ctx.texture(&ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 8, 8).with_samples(4, 0), BarrierLayout::Common);
        let other = Ctx::reference();
        let foreign = other.buffer(HeapType::Default, 4096);
        let upload_heap = ctx.buffer(HeapType::Upload, 4096);
        let cases: Vec<(&str, Result<UploadTicket>, MessageId)> = vec![
            ("past the end", up.upload_buffer(&dst, 4000, &[1; 200]), MessageId::StreamingUploadInvalid),
            ("offset overflow", up.upload_buffer(&dst, u64::MAX - 1, &[1; 4]), MessageId::StreamingUploadInvalid),
            ("no data", up.upload_buffer(&dst, 0, &[]), MessageId::StreamingUploadInvalid),
            ("no usage", up.upload_buffer(&no_usage, 0, &[1; 16]), MessageId::TransferUsageInvalid),
            ("another device", up.upload_buffer(&foreign, 0, &[1; 16]), MessageId::StreamingUploadInvalid),
            ("an upload heap", up.upload_buffer(&upload_heap, 0, &[1; 16]), MessageId::StreamingUploadInvalid),
            ("a texture as a buffer", up.upload_buffer(&tex, 0, &[1; 16]), MessageId::StreamingUploadInvalid),
            ("data too short", up.upload_texture(&tex, 0, &[1; 255], 32), MessageId::StreamingUploadInvalid),
            ("data too long", up.upload_texture(&tex, 0, &[1; 257], 32), MessageId::StreamingUploadInvalid),
            ("pitch below the row", up.upload_texture(&tex, 0, &[1; 248], 31), MessageId::StreamingUploadInvalid),
            ("subresource", up.upload_texture(&tex, 1, &[1; 256], 32), MessageId::StreamingUploadInvalid),
            (
                "a layout the copy queue cannot use",
                up.upload_texture(&in_rt, 0, &[1; 256], 32),
                MessageId::StreamingUploadInvalid,
            ),
            ("a buffer as a texture", up.upload_texture(&dst, 0, &[1; 256], 32), MessageId::StreamingUploadInvalid),
            ("a multisampled texture", up.upload_texture(&msaa, 0, &[1; 256], 32), MessageId::StreamingUploadInvalid),
            (
                "a pitch that overflows",
                up.upload_texture(&tex, 0, &[1; 256], u64::MAX),
                MessageId::StreamingUploadInvalid,
            ),
        ];
        // A planar texture, where the device makes one (NV12 has two planes; plane 0 is 8×8
        // bytes of luma, so only the plane rule refuses this upload).
        let planar = ctx.device.create_committed_resource(
            HeapType::Default,
            &ResourceDesc::tex2d(Format::Nv12, 8, 8),
            BarrierLayout::Common,
        );
        let mut cases = cases;
        if let Ok(planar) = &planar {
            cases.push((
                "a planar texture",
                up.upload_texture(planar, 0, &[1; 64], 8),
                MessageId::StreamingUploadInvalid,
            ));
        }
        for (what, r, id) in cases {
            let e = r.expect_err(what);
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, id), "{name}: {what}: {}", e.text);
            assert!(e.text.contains("StreamingUploader"), "{name}: {what}: {}", e.text);
        }
        assert_eq!(up.uploaded_bytes(), 0, "{name}: nothing was uploaded");
        assert_eq!(ctx.read_buffer(&dst), vec![0; 4096], "{name}");
        assert!(StreamingUploader::new(&ctx.device, 1000).is_err(), "{name}: a ring too small");
        for (ring, lanes) in [(RING, 0), (RING, 17), ((16 << 30) + 1, 1)] {
            let e = StreamingUploader::with_lanes(&ctx.device, ring, lanes).expect_err("refused");
            assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::StreamingUploadInvalid), "{name}");
        }
    }
}

/// A command buffer's host transfers go through the queue's uploader into device memory of
/// their own, and its submission waits for them; the copy into the destination keeps its place
/// in the buffer, so a read recorded before the transfer reads the old bytes.
#[test]
fn a_command_buffers_host_transfers_go_through_the_queues_uploader() {
    for (name, ctx) in contexts() {
        let size = 64 << 10;
        let (old, new) = (pattern(size, 1), pattern(size, 2));
        let dst = ctx.buffer(HeapType::Default, size as u64);
        let (rb, rb2) = (ctx.buffer(HeapType::Readback, size as u64), ctx.buffer(HeapType::Readback, size as u64));
        let up = ctx.direct.streaming_uploader().unwrap();
        let mut b = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
        b.transfer_host_to_buffer(&old, &dst, 0).unwrap();
        b.copy_buffer_region(&rb, 0, &dst, 0, size as u64);
        b.submit().unwrap();
        assert_eq!(rb.read_vec(0, size).unwrap(), old, "{name}");
        assert_eq!(up.uploaded_bytes(), size as u64, "{name}: through the uploader");
        let mut b = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
        b.copy_buffer_region(&rb, 0, &dst, 0, size as u64);
        b.transfer_host_to_buffer(&new, &dst, 0).unwrap();
        b.copy_buffer_region(&rb2, 0, &dst, 0, size as u64);
        b.submit().unwrap();
        assert_eq!(rb.read_vec(0, size).unwrap(), old, "{name}: read before the transfer");
        assert_eq!(rb2.read_vec(0, size).unwrap(), new, "{name}: read after it");
        assert_eq!(up.uploaded_bytes(), 2 * size as u64, "{name}: that one went through the uploader too");
        // A texture, rows exactly `pitch` apart.
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8Unorm, 64, 32);
        let tex = ctx.texture(&desc, BarrierLayout::Common);
        let data = pattern(64 * 4 * 32, 3);
        let mut b = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
        b.transfer_host_to_texture(&data, 256, &tex, 0).unwrap();
        b.submit().unwrap();
        assert_eq!(up.uploaded_bytes(), (2 * size + data.len()) as u64, "{name}");
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(ctx.read_subresource(&tex, 0), data, "{name}");
    }
}

/// Found by a spec check: a streamed host transfer wrote its destination at record time, on the
/// uploader's queue, so it overtook the work before it: an earlier buffer of the same
/// submission, or an earlier submission still running, read the transfer's bytes instead of
/// the old ones. The write now happens at the transfer's place.
#[test]
fn a_host_transfer_never_overtakes_earlier_work() {
    for (name, ctx) in contexts() {
        let size = 256 << 10;
        let (old, new) = (pattern(size, 4), pattern(size, 5));
        let dest = ctx.default_buffer(&old);
        // One submission: the first buffer reads, the second transfers.
        let rb = ctx.buffer(HeapType::Readback, size as u64);
        let mut read = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
        read.copy_buffer_region(&rb, 0, &dest, 0, size as u64);
        let mut write = ctx.direct.create_command_buffer(Semantics::Legacy, Level::Primary).unwrap();
        write.transfer_host_to_buffer(&new, &dest, 0).unwrap();
        let v = ctx.direct.submit_all(vec![read, write]).unwrap();
        ctx.direct.wait_for(v, TIMEOUT).unwrap();
        assert_eq!(rb.read_vec(0, size).unwrap(), old, "{name}: the earlier buffer read the old bytes");
        assert_eq!(ctx.read_buffer(&dest), new, "{name}");
        // Separate submissions, the reading one submitted first and recorded first.
        let rb2 = ctx.buffer(HeapType::Readback, size as u64);
        let mut read = ctx.direct.create_command_buffer(Semantics::Fast, Level::Primary).unwrap();
        for _ in 0..16 {
            read.copy_buffer_region(&rb2, 0, &dest, 0, size as u64);
        }
        let first = read.submit().unwrap();
        let mut write = ctx.direct.create_command_buffer(Semantics::Fast, Level::Primary).unwrap();
        write.transfer_host_to_buffer(&old, &dest, 0).unwrap();
        let second = write.submit().unwrap();
        assert!(second > first, "{name}");
        ctx.direct.wait_for(second, TIMEOUT).unwrap();
        assert_eq!(rb2.read_vec(0, size).unwrap(), new, "{name}: the earlier submission read the bytes before it");
        assert_eq!(ctx.read_buffer(&dest), old, "{name}");
    }
}

/// Found by the layers fuzzer: a command buffer dropped unsubmitted after a host transfer let
/// go of the device memory the uploader was still copying into, and the debug layer reported
/// the runtime's own buffer as dropped while in use. The uploader keeps what it writes alive
/// until its copies have run.
#[test]
fn a_dropped_buffers_host_transfer_reports_nothing() {
    for (name, ctx) in contexts() {
        ctx.device.set_debug_layer(true);
        ctx.device.info_queue().clear();
        let dest = ctx.buffer(HeapType::Default, 64 << 10);
        for semantics in [Semantics::Legacy, Semantics::Fast] {
            let mut b = ctx.direct.create_command_buffer(semantics, Level::Primary).unwrap();
            b.transfer_host_to_buffer(&pattern(64 << 10, 9), &dest, 0).unwrap();
            drop(b);
        }
        ctx.direct.streaming_uploader().unwrap().queue().wait_idle(TIMEOUT).unwrap();
        let reports: Vec<String> = ctx.device.info_queue().messages().into_iter().map(|m| m.text).collect();
        assert!(reports.is_empty(), "{name}: {reports:?}");
        ctx.device.set_debug_layer(false);
    }
}

//! `asyncmd bench --suite streaming`: host-to-device uploads through the `StreamingUploader` on
//! the copy queue, alone, beside direct-queue work and together with it, and frames that
//! upload a large asset with and without a per-frame budget. Wall-clock times: an upload's
//! time runs from the first call to its ticket being done, the CPU's copy into the ring included.

use super::timing::median;
use crate::devices::DeviceSpec;
use asyncmd::types::{BarrierLayout, CommandListType, HeapType, ResourceDesc};
use asyncmd::{Adapter, CommandQueue, Device, DeviceFactory, Fence, Resource, Result, StreamingUploader};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What the suite measured.
#[derive(Clone, Debug, Serialize)]
pub struct StreamingReport {
    /// The device.
    pub device: String,
    /// The queue the uploader copies on.
    pub upload_queue: String,
    /// Bytes per upload, and the ring's size.
    pub upload_bytes: u64,
    pub ring_bytes: u64,
    /// The CPU's rate writing upload memory from as many threads as the uploader has lanes,
    /// no GPU work: the ceiling of an upload from host memory (GB/s).
    pub host_write_gbps: f64,
    /// The same from one thread.
    pub host_write_one_gbps: f64,
    /// Upload alone: ms and GB/s (medians).
    pub upload_ms: f64,
    pub upload_gbps: f64,
    /// The direct queue's work alone, and the two together (ms, medians).
    pub direct_ms: f64,
    pub together_ms: f64,
    /// Share of the upload hidden behind the direct work: 1 − (together − direct) / upload.
    pub hidden: f64,
    /// Frames that upload one large asset: frame ms, median and worst, without and with a budget.
    pub frames: Vec<FrameRow>,
}

/// Frame times of one budget setting.
#[derive(Clone, Debug, Serialize)]
pub struct FrameRow {
    /// Bytes a frame may upload (`None`: no budget).
    pub budget: Option<u64>,
    pub median_ms: f64,
    pub worst_ms: f64,
    /// Frames until the asset was in place.
    pub frames_to_done: u32,
    /// Every frame's ms.
    pub times_ms: Vec<f64>,
}

const TIMEOUT: Duration = Duration::from_secs(120);

fn buffer(device: &Device, heap: HeapType, bytes: u64) -> Result<Resource> {
    device.create_committed_resource(heap, &ResourceDesc::buffer(bytes), BarrierLayout::Undefined)
}

/// Direct-queue work: `copies` copies of `src` into `dst`, in one submission.
struct DirectWork {
    queue: CommandQueue,
    src: Resource,
    dst: Resource,
    fence: Fence,
    value: u64,
}

impl DirectWork {
    fn new(device: &Device, bytes: u64) -> Result<DirectWork> {
        Ok(DirectWork {
            queue: device.create_command_queue(CommandListType::Direct)?,
            src: buffer(device, HeapType::Default, bytes)?,
            dst: buffer(device, HeapType::Default, bytes)?,
            fence: device.create_fence(0)?,
            value: 0,
        })
    }

    /// Submits the work; returns the fence value it reaches.
    fn submit(&mut self, copies: u32) -> Result<u64> {
        let mut b = self.queue.create_command_buffer(asyncmd::Semantics::Fast, asyncmd::Level::Primary)?;
        let size = self.src.desc().width;
        for _ in 0..copies {
            b.copy_buffer_region(&self.dst, 0, &self.src, 0, size);
        }
        b.submit()?;
        self.value += 1;
        self.queue.signal(&self.fence, self.value)?;
        Ok(self.value)
    }

    fn wait(&self, value: u64) -> Result<()> {
        self.fence.wait(value, TIMEOUT)
    }

    /// Runs `copies` alone; ms.
    fn time(&mut self, copies: u32) -> Result<f64> {
        let t = Instant::now();
        let v = self.submit(copies)?;
        self.wait(v)?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    }
}

fn upload(up: &StreamingUploader, dst: &Resource, data: &[u8]) -> Result<f64> {
    let t = Instant::now();
    let ticket = up.upload_buffer(dst, 0, data)?;
    ticket.wait(TIMEOUT)?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// Measures the suite (`quick`: small sizes, few runs).
pub fn measure(spec: DeviceSpec, quick: bool) -> Result<StreamingReport> {
    let device = DeviceFactory::new().create_device(&Adapter::new(spec.open_with_native(false)?))?;
    let caps = device.capabilities().clone();
    let discrete = !caps.uma && matches!(spec, DeviceSpec::Vulkan(_)) && !caps.name.contains("llvmpipe");
    let (bytes, ring, work_bytes) = match (quick, discrete) {
        (true, _) => (8u64 << 20, 4u64 << 20, 8u64 << 20),
        (false, true) => (1 << 30, 256 << 20, 1 << 30),
        (false, false) => (64 << 20, 16 << 20, 32 << 20),
    };
    let runs = if quick { 2 } else { 5 };
    let up = StreamingUploader::new(&device, ring)?;
    let data: Vec<u8> = (0..bytes).map(|i| (i * 31 % 251) as u8).collect();
    let dst = buffer(&device, HeapType::Default, bytes)?;
    let mut work = DirectWork::new(&device, work_bytes)?;
    upload(&up, &dst, &data)?;
    work.time(1)?;
    let upload_ms = median((0..runs).map(|_| upload(&up, &dst, &data)).collect::<Result<Vec<_>>>()?);
    // Direct work about as long as the upload alone.
    let one = median((0..runs).map(|_| work.time(16)).collect::<Result<Vec<_>>>()?) / 16.0;
    let copies = ((upload_ms / one.max(1e-3)).ceil() as u32).clamp(1, 4096);
    let direct_ms = median((0..runs).map(|_| work.time(copies)).collect::<Result<Vec<_>>>()?);
    let together_ms = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                let v = work.submit(copies)?;
                upload(&up, &dst, &data)?;
                work.wait(v)?;
                Ok(t.elapsed().as_secs_f64() * 1e3)
            })
            .collect::<Result<Vec<_>>>()?,
    );
    let hidden = 1.0 - (together_ms - direct_ms) / upload_ms.max(1e-9);
    let frames = [None, Some(bytes / 8)]
        .into_iter()
        .map(|budget| frame_times(&up, &dst, &data, &mut work, copies.div_ceil(8).max(1), budget))
        .collect::<Result<Vec<_>>>()?;
    // Last: freeing its buffers keeps the driver busy for a while (on the H200 the frames after
    // it ran at twice their time).
    let host_write_gbps = host_writes(&device, &data, lanes(), runs)?;
    let host_write_one_gbps = host_writes(&device, &data, 1, runs)?;
    Ok(StreamingReport {
        device: caps.name.clone(),
        upload_queue: format!("{:?}", up.queue().ty()),
        upload_bytes: bytes,
        ring_bytes: ring,
        upload_ms,
        upload_gbps: bytes as f64 / (upload_ms * 1e-3) / 1e9,
        host_write_gbps,
        host_write_one_gbps,
        direct_ms,
        together_ms,
        hidden,
        frames,
    })
}

/// The uploader's default lane count (`StreamingUploader::new`).
fn lanes() -> usize {
    (std::thread::available_parallelism().map_or(1, |n| n.get()) / 4).clamp(1, 4)
}

/// GB/s of `lanes` threads writing `data` into upload buffers, one each (median of `runs`).
fn host_writes(device: &Device, data: &[u8], lanes: usize, runs: usize) -> Result<f64> {
    let per = data.len() / lanes;
    let bufs = (0..lanes).map(|_| buffer(device, HeapType::Upload, per as u64)).collect::<Result<Vec<_>>>()?;
    let mut rates = Vec::new();
    for _ in 0..=runs {
        let t = Instant::now();
        std::thread::scope(|s| {
            let handles: Vec<_> =
                bufs.iter().zip(data.chunks(per)).map(|(b, part)| s.spawn(move || b.write(0, part))).collect();
            handles.into_iter().try_for_each(|h| h.join().unwrap_or(Ok(())))
        })?;
        rates.push((per * lanes) as f64 / t.elapsed().as_secs_f64() / 1e9);
    }
    Ok(median(rates))
}

/// 24 frames of direct work (`copies` each), the asset's upload starting in frame 4; a frame
/// ends when its direct work is done and the uploader's frame has ended.
fn frame_times(
    up: &StreamingUploader,
    dst: &Resource,
    data: &[u8],
    work: &mut DirectWork,
    copies: u32,
    budget: Option<u64>,
) -> Result<FrameRow> {
    let mut times = Vec::new();
    let mut ticket = None;
    // The asset is in memory before the frames (read from disk, say), and given over.
    let mut asset = Some(data.to_vec());
    let mut frames_to_done = 0;
    for frame in 0..24u32 {
        let t = Instant::now();
        // The frame's GPU work first; the uploads' CPU side then runs while the GPU works.
        let v = work.submit(copies)?;
        up.begin_frame(budget)?;
        if let Some(a) = asset.take_if(|_| frame == 4) {
            ticket = Some(up.upload_buffer_owned(dst, 0, a)?);
        }
        up.end_frame();
        work.wait(v)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if frames_to_done == 0 && ticket.as_ref().is_some_and(|t| t.is_done()) {
            frames_to_done = frame - 3;
        }
    }
    up.flush()?;
    if let Some(t) = ticket {
        t.wait(TIMEOUT)?;
    }
    let worst = times.iter().copied().fold(0.0, f64::max);
    Ok(FrameRow { budget, median_ms: median(times.clone()), worst_ms: worst, frames_to_done, times_ms: times })
}

/// The suite as Markdown.
pub fn markdown(r: &StreamingReport) -> String {
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let mut out = format!(
        "## Streaming on {}\n\nUploads of {:.0} MiB through a ring of {:.0} MiB on the {} queue; wall-clock ms, medians\n\n\
         | upload alone | GB/s | CPU writes alone GB/s (lanes / one thread) | direct work alone | together | hidden |\n\
         |---|---|---|---|---|---|\n\
         | {:.2} | {:.1} | {:.1} / {:.1} | {:.2} | {:.2} | {:.0} % |\n\n\
         Frames (direct work each, the asset's upload starting in frame 4):\n\n\
         | budget per frame | median frame ms | worst frame ms | frames to done |\n|---|---|---|---|\n",
        r.device,
        mib(r.upload_bytes),
        mib(r.ring_bytes),
        r.upload_queue,
        r.upload_ms,
        r.upload_gbps,
        r.host_write_gbps,
        r.host_write_one_gbps,
        r.direct_ms,
        r.together_ms,
        r.hidden * 100.0
    );
    for f in &r.frames {
        let budget = f.budget.map_or("none".to_string(), |b| format!("{:.0} MiB", mib(b)));
        out += &format!("| {budget} | {:.2} | {:.2} | {} |\n", f.median_ms, f.worst_ms, f.frames_to_done);
    }
    for f in &r.frames {
        let times: Vec<String> = f.times_ms.iter().map(|t| format!("{t:.1}")).collect();
        out += &format!("\nframes, budget {:?}: {}\n", f.budget, times.join(" "));
    }
    out
}

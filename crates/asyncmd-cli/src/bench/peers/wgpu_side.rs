//! wgpu's side of the peer suite, on its Vulkan backend and the adapter asyncmd runs on: a
//! command encoder per run (wgpu has no reusable lists), finished and submitted.

use super::{peer_error, Engine, FloorWork, Sample, Workload, WGPU};
use asyncmd::Result;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(20);

/// What one workload uses.
#[derive(Default)]
struct Prepared {
    dest: Vec<wgpu::Buffer>,
    source: Vec<wgpu::Buffer>,
    views: Vec<wgpu::TextureView>,
    _textures: Vec<wgpu::Texture>,
}

/// wgpu with timestamps inside encoders where the adapter has them.
pub struct WgpuEngine {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// Two timestamps, the buffer they resolve into and one the CPU maps.
    ticks: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
    period_ns: f64,
    work: Prepared,
}

impl WgpuEngine {
    /// Opens wgpu's Vulkan adapter named `name`.
    pub fn open(name: &str) -> Result<Self> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let adapter = adapters
            .into_iter()
            .find(|a| a.get_info().name == name)
            .ok_or_else(|| peer_error(WGPU, format!("no Vulkan adapter named {name}")))?;
        let stamps = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        let features = adapter.features() & stamps;
        let desc = wgpu::DeviceDescriptor {
            label: Some("asyncmd bench peers"),
            required_features: features,
            required_limits: adapter.limits(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| peer_error(WGPU, e))?;
        let ticks = (features == stamps).then(|| {
            let set = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = buffer(&device, 16, wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
            let read = buffer(&device, 16, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
            (set, resolve, read)
        });
        let period_ns = f64::from(queue.get_timestamp_period());
        Ok(Self { device, queue, ticks, period_ns, work: Prepared::default() })
    }

    /// Waits for everything submitted.
    fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(TIMEOUT) })
            .map(|_| ())
            .map_err(|e| peer_error(WGPU, e))
    }

    /// Device milliseconds between the timestamps resolved last.
    fn gpu_ms(&self) -> Result<Option<f64>> {
        let Some((_, _, read)) = &self.ticks else { return Ok(None) };
        read.map_async(wgpu::MapMode::Read, .., |_| {});
        self.wait()?;
        let ticks = {
            let view = read.get_mapped_range(..).map_err(|e| peer_error(WGPU, e))?;
            let tick =
                |i: usize| view.get(i * 8..i * 8 + 8).and_then(|s| s.try_into().ok()).map_or(0, u64::from_le_bytes);
            (tick(0), tick(1))
        };
        read.unmap();
        Ok(Some(ticks.1.saturating_sub(ticks.0) as f64 * self.period_ns / 1e6))
    }

    fn record(&self, e: &mut wgpu::CommandEncoder, w: Workload) {
        let p = &self.work;
        match w {
            Workload::Work(FloorWork::Copies { bytes, .. }) => {
                p.source.iter().zip(&p.dest).for_each(|(s, d)| e.copy_buffer_to_buffer(s, 0, d, 0, bytes))
            }
            Workload::Work(FloorWork::ZeroFills { .. }) => p.dest.iter().for_each(|d| e.clear_buffer(d, 0, None)),
            Workload::Work(FloorWork::TextureClears { .. }) => {
                // How a wgpu app clears a texture to a color: a render pass that only clears.
                for view in &p.views {
                    let [r, g, b, a] = super::COLOR.map(f64::from);
                    let attachment = wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                            store: wgpu::StoreOp::Store,
                        },
                    };
                    drop(e.begin_render_pass(&wgpu::RenderPassDescriptor {
                        color_attachments: &[Some(attachment)],
                        ..Default::default()
                    }));
                }
            }
            Workload::Work(FloorWork::Stream { commands }) => {
                for i in 0..u64::from(commands) {
                    e.copy_buffer_to_buffer(&p.source[0], 0, &p.dest[0], i * 256, 256);
                }
            }
            Workload::Cycle | Workload::Latency => e.copy_buffer_to_buffer(&p.source[0], 0, &p.dest[0], 0, 256),
        }
    }
}

fn buffer(device: &wgpu::Device, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor { label: None, size, usage, mapped_at_creation: false })
}

impl Engine for WgpuEngine {
    fn name(&self) -> &'static str {
        WGPU
    }

    fn prepare(&mut self, w: Workload) -> Result<()> {
        let usage = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let mut p = Prepared::default();
        match w {
            Workload::Work(FloorWork::Copies { count, bytes }) => {
                for _ in 0..count {
                    p.dest.push(buffer(&self.device, bytes, usage));
                    p.source.push(buffer(&self.device, bytes, usage));
                }
            }
            Workload::Work(FloorWork::ZeroFills { count, bytes }) => {
                p.dest = (0..count).map(|_| buffer(&self.device, bytes, usage)).collect();
            }
            Workload::Work(FloorWork::TextureClears { count, side }) => {
                for _ in 0..count {
                    let t = self.device.create_texture(&wgpu::TextureDescriptor {
                        label: None,
                        size: wgpu::Extent3d { width: side, height: side, depth_or_array_layers: 1 },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format: wgpu::TextureFormat::Rgba8Unorm,
                        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                        view_formats: &[],
                    });
                    p.views.push(t.create_view(&wgpu::TextureViewDescriptor::default()));
                    p._textures.push(t);
                }
            }
            Workload::Work(FloorWork::Stream { commands }) => {
                p.dest.push(buffer(&self.device, u64::from(commands) * 256, usage));
                p.source.push(buffer(&self.device, 256, usage));
            }
            Workload::Cycle | Workload::Latency => {
                p.dest.push(buffer(&self.device, 256, usage));
                p.source.push(buffer(&self.device, 256, usage));
            }
        }
        self.work = p;
        Ok(())
    }

    fn run(&mut self, w: Workload) -> Result<Sample> {
        let timed = !matches!(w, Workload::Cycle | Workload::Latency);
        let start = Instant::now();
        let mut e = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let ticks = self.ticks.as_ref().filter(|_| timed);
        if let Some((set, _, _)) = ticks {
            e.write_timestamp(set, 0);
        }
        self.record(&mut e, w);
        if let Some((set, resolve, read)) = ticks {
            e.write_timestamp(set, 1);
            e.resolve_query_set(set, 0..2, resolve, 0);
            e.copy_buffer_to_buffer(resolve, 0, read, 0, 16);
        }
        self.queue.submit([e.finish()]);
        let submitted = Instant::now();
        self.wait()?;
        let done = Instant::now();
        let gpu_ms = if timed { self.gpu_ms()? } else { None };
        Ok(Sample {
            cpu_us: (submitted - start).as_secs_f64() * 1e6,
            done_us: (done - submitted).as_secs_f64() * 1e6,
            gpu_ms,
            ..Sample::default()
        })
    }
}

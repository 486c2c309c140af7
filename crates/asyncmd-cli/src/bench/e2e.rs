//! `asyncmd bench --e2e`: the D3D12AsyncCommands sample's end-to-end mode. Each frame does an
//! API's work on 128 resources of 512 KiB, half before and half after 256 draws into a
//! 1280×720 target, and the whole frame is timed, Legacy against Fallback against Native. It
//! shows what the API gains where the copies share the GPU with rendering, which the isolated
//! rows of the default mode cannot.

use super::cases::{self, Case};
use super::draw_target::DrawTarget;
use super::timing::{interleaved, Bench, Part};
use super::{BenchOptions, Params, Row};
use asyncmd::types::*;
use asyncmd::{CommandList, Device, Result};

/// The sample's render target.
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;
/// Draws a frame, and the side of the square each covers (small quads, so that a CPU device
/// draws a frame in milliseconds; their count is the sample's).
const DRAWS: u32 = 256;
const QUAD: u32 = 64;
/// Resources a frame, and bytes each (the sample's).
const RESOURCES: u64 = 128;
const BYTES: u64 = 512 << 10;
/// Timed frames (the sample's).
const FRAMES: usize = 12;

/// The APIs the end-to-end mode measures: those whose work is on many resources.
const APIS: [&str; 6] = [
    "CopyBufferRegions",
    "CopyTextureRegions",
    "CopyResources",
    "ResolveSubresourceRegionAsync",
    "FillBuffers",
    "ClearTextureSubresources",
];

/// What the draws of a frame need on one device.
struct Scene(DrawTarget);

impl Scene {
    fn new(d: &Device) -> Result<Scene> {
        Ok(Scene(DrawTarget::new(d, WIDTH, HEIGHT)?))
    }

    /// The frame's draws: each a quad of its own place and colour.
    fn draw(&self, l: &mut CommandList) {
        self.0.bind(l);
        l.rs_set_scissor_rects(&[Rect::new(0, 0, WIDTH as i32, HEIGHT as i32)]);
        let columns = WIDTH / QUAD;
        let rows = HEIGHT / QUAD;
        for i in 0..DRAWS {
            let (x, y) = ((i % columns) * QUAD, (i / columns % rows) * QUAD);
            l.rs_set_viewports(&[Viewport {
                top_left_x: x as f32,
                top_left_y: y as f32,
                width: QUAD as f32,
                height: QUAD as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            }]);
            let c = (i as f32 / DRAWS as f32).to_bits();
            l.set_graphics_root_32bit_constants(0, &[c, c, c, 1.0f32.to_bits(), 0, 0], 0);
            l.draw_instanced(3, 1, 0, 0);
        }
    }
}

/// One API's frame on one device: two halves of the work around the draws.
struct Frame {
    work: String,
    halves: [Case; 2],
    scene: Scene,
}

impl Frame {
    fn new(d: &Device, build: cases::Build, quick: bool) -> Result<Option<Frame>> {
        let (resources, bytes) = if quick { (8, 64 << 10) } else { (RESOURCES, BYTES) };
        let p = Params { quick: false, count: Some(resources / 2), size: Some(bytes), large: false };
        let (Some(first), Some(second)) = (build(d, &p)?, build(d, &p)?) else { return Ok(None) };
        let work = format!("2 × ({}) around {DRAWS} draws of {QUAD}² in {WIDTH}×{HEIGHT}", first.work);
        Ok(Some(Frame { work, halves: [first, second], scene: Scene::new(d)? }))
    }

    /// The frame as an app records it without the API.
    fn legacy(&self, l: &mut CommandList) {
        (self.halves[0].legacy)(l);
        self.scene.draw(l);
        (self.halves[1].legacy)(l);
    }

    /// The frame with the API.
    fn batch(&self, l: &mut CommandList) {
        (self.halves[0].batch)(l);
        self.scene.draw(l);
        (self.halves[1].batch)(l);
    }
}

/// Measures the end-to-end frames of the APIs `opts` selects.
pub fn measure(fallback: &Bench, native: Option<&Bench>, opts: &BenchOptions) -> Result<Vec<Row>> {
    let runs = if opts.quick { 3 } else { FRAMES };
    let mut rows = Vec::new();
    for (api, build) in cases::ALL.iter().filter(|(api, _)| APIS.contains(api) && super::selected(opts, api)) {
        let Some(f) = Frame::new(&fallback.device, *build, opts.quick)? else { continue };
        // Each part draws and works on resources of its own, as in the API rows.
        let Some(fb) = Frame::new(&fallback.device, *build, opts.quick)? else { continue };
        let n = native.map(|n| Ok::<_, asyncmd::Error>((n, Frame::new(&n.device, *build, opts.quick)?))).transpose()?;
        let (legacy, batch) = (|l: &mut CommandList| f.legacy(l), |l: &mut CommandList| fb.batch(l));
        let native_batch = n.as_ref().and_then(|(_, f)| f.as_ref()).map(|f| move |l: &mut CommandList| f.batch(l));
        let mut parts = vec![Part::alone(fallback, &legacy), Part::alone(fallback, &batch)];
        if let (Some((bench, _)), Some(record)) = (&n, &native_batch) {
            parts.push(Part::alone(bench, record));
        }
        let t = interleaved(runs, &parts)?;
        rows.push(Row {
            api: api.to_string(),
            work: f.work.clone(),
            legacy: t[0],
            fallback: t[1],
            native: t.get(2).copied(),
        });
    }
    Ok(rows)
}

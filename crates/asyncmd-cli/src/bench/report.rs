//! The report: Markdown tables on the terminal, JSON for machines, an SVG plot of the ratios,
//! and the progress bar while measuring.

use super::{Report, Row, Timing};
use asyncmd::{Error, MessageId, Result};
use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// A progress bar on stderr (drawn only on a terminal).
pub fn progress(steps: u64) -> ProgressBar {
    let bar = ProgressBar::new(steps);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

fn ratio(a: f64, b: f64) -> f64 {
    a / b.max(1e-9)
}

fn native_cells(legacy: &Timing, native: Option<&Timing>) -> (String, String) {
    match native {
        Some(n) => (format!("{:.4}", n.gpu_ms), format!("{:.1}×", ratio(legacy.gpu_ms, n.gpu_ms))),
        None => ("n/a".into(), "n/a".into()),
    }
}

fn rows_table(out: &mut String, rows: &[Row]) {
    let _ = writeln!(
        out,
        "| API | work | legacy ms | fallback ms | native ms | fallback / legacy | native speedup over legacy | \
         legacy CPU µs | fallback CPU µs | fallback / legacy CPU |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let (native, speedup) = native_cells(&r.legacy, r.native.as_ref());
        let _ = writeln!(
            out,
            "| {} | {} | {:.4} | {:.4} | {native} | {:.2} | {speedup} | {:.1} | {:.1} | {:.2} |",
            r.api,
            r.work,
            r.legacy.gpu_ms,
            r.fallback.gpu_ms,
            ratio(r.fallback.gpu_ms, r.legacy.gpu_ms),
            r.legacy.cpu_us,
            r.fallback.cpu_us,
            ratio(r.fallback.cpu_us, r.legacy.cpu_us),
        );
    }
}

/// The report as Markdown.
pub fn markdown(r: &Report) -> String {
    let mut out = format!("device: {}\n", r.device);
    if !r.apis.is_empty() {
        rows_table(&mut out, &r.apis);
    }
    if !r.e2e.is_empty() {
        let _ = writeln!(out, "end to end: frames of each API's work around draws (the sample's --e2e):\n");
        rows_table(&mut out, &r.e2e);
    }
    if !r.routes.is_empty() {
        let _ = writeln!(out, "\nlarge fills and texture clears, by fallback route:\n");
        rows_table(&mut out, &r.routes);
    }
    let g = &r.cpu_goal;
    if g.over.is_empty() {
        let _ = writeln!(
            out,
            "\nfallback / legacy CPU: every row within its bar ({} for APIs, {} for routes; differences under {} µs \
             are noise)",
            g.api_bar, g.route_bar, g.noise_floor_us
        );
    } else {
        let _ = writeln!(
            out,
            "\nfallback / legacy CPU above the bar ({} for APIs, {} for routes; differences under {} µs are \
             noise): {}",
            g.api_bar,
            g.route_bar,
            g.noise_floor_us,
            g.over.join(", ")
        );
    }
    if !r.coverage.is_empty() {
        let side = r.coverage_side;
        let _ = writeln!(out, "\npartial regions of a {side}² RGBA8 render target (full rows):\n");
        let _ = writeln!(
            out,
            "| coverage | pattern copy ms | in-place ms | fallback ms (route) | native ms | in-place / copy |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|");
        for c in &r.coverage {
            let route = if c.fallback_in_place { "in place" } else { "copy" };
            let native = c.native.map_or("n/a".to_string(), |n| format!("{:.4}", n.gpu_ms));
            let _ = writeln!(
                out,
                "| {:.4} | {:.4} | {:.4} | {:.4} ({route}) | {native} | {:.2} |",
                c.coverage,
                c.pattern_copy.gpu_ms,
                c.in_place.gpu_ms,
                c.fallback.gpu_ms,
                ratio(c.in_place.gpu_ms, c.pattern_copy.gpu_ms)
            );
        }
    }
    out
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::fail(MessageId::DeviceUnsupported, format!("bench: cannot write {}: {e}", path.display()))
}

/// Writes the report as JSON.
pub fn write_json(r: &Report, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| io_error(path, e))?;
    serde_json::to_writer_pretty(file, r).map_err(|e| io_error(path, e))
}

/// Draws Fallback / Legacy and Native / Legacy GPU time ratios per workload (log scale; 1 is
/// parity, below 1 faster than the legacy recording) as an SVG.
pub fn write_plot(r: &Report, path: &Path) -> Result<()> {
    let rows: Vec<&Row> = r.apis.iter().chain(&r.routes).chain(&r.e2e).collect();
    let height = 100 + 30 * rows.len() as u32;
    let root = SVGBackend::new(path, (1100, height)).into_drawing_area();
    let values: Vec<(f64, Option<f64>)> = rows
        .iter()
        .map(|x| (ratio(x.fallback.gpu_ms, x.legacy.gpu_ms), x.native.map(|n| ratio(n.gpu_ms, x.legacy.gpu_ms))))
        .collect();
    let all = values.iter().flat_map(|(f, n)| [Some(*f), *n]).flatten();
    let lo = all.clone().fold(1.0f64, f64::min) / 1.5;
    let hi = all.fold(1.0f64, f64::max) * 1.5;
    let n = rows.len() as f64;
    let draw = || -> std::result::Result<(), Box<dyn std::error::Error>> {
        root.fill(&WHITE)?;
        let (labels, plot) = root.split_horizontally(330);
        let mut chart = ChartBuilder::on(&plot)
            .caption(format!("GPU time / legacy GPU time: {}", r.device), ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..n)?;
        chart.configure_mesh().disable_y_mesh().y_labels(0).x_desc("log scale; below 1 is faster").draw()?;
        for (i, (f, native)) in values.iter().enumerate() {
            let y = n - 1.0 - i as f64;
            chart
                .draw_series(std::iter::once(Rectangle::new([(lo, y + 0.5), (*f, y + 0.9)], BLUE.mix(0.6).filled())))?;
            if let Some(v) = native {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(lo, y + 0.1), (*v, y + 0.5)],
                    RED.mix(0.6).filled(),
                )))?;
            }
        }
        chart.draw_series(LineSeries::new([(1.0, 0.0), (1.0, n)], BLACK.stroke_width(1)))?;
        let (_, plot_h) = plot.dim_in_pixel();
        let row_h = (plot_h as f64 - 30.0 - 10.0 - 26.0) / n.max(1.0);
        for (i, x) in rows.iter().enumerate() {
            let y = 10.0 + 26.0 + row_h * (i as f64 + 0.35);
            labels.draw(&Text::new(x.api.clone(), (8, y as i32), ("sans-serif", 13)))?;
        }
        labels.draw(&Text::new("blue: fallback, red: native", (8, 12), ("sans-serif", 13)))?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| io_error(path, e))
}

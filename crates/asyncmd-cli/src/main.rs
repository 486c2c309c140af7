//! `asyncmd`: the Async Commands benchmark, device information and developer settings.

mod bench;
mod devices;
mod info;

use asyncmd::config::{config_path, DeveloperConfig, FORCE_FALLBACK_KEY};
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// asyncmd: explicit GPU command submission in the shape of Direct3D 12.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure every Async Command as Legacy, Fallback and Native on one device.
    Bench {
        /// `reference` (default), `vulkan` or `vulkan:N` (`ASYNCMD_DEVICE` also selects one).
        #[arg(long)]
        device: Option<devices::DeviceSpec>,
        /// Only these APIs (for example `--api FillBuffers ClearTextureSubresources`).
        #[arg(long, num_args = 1..)]
        api: Vec<String>,
        /// Independent resources per case (instead of each case's default), 1 to 65536.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=65536))]
        count: Option<u64>,
        /// Bytes per resource (instead of each case's default), 16 to 4 GiB.
        #[arg(long, value_parser = clap::value_parser!(u64).range(16..=1 << 32))]
        size: Option<u64>,
        /// Small work and three runs: checks that every path works.
        #[arg(long)]
        quick: bool,
        /// The D3D12AsyncCommands sample's end-to-end mode: each API's work on 128 resources
        /// of 512 KiB around 256 draws into a 1280×720 target, whole frames timed.
        #[arg(long)]
        e2e: bool,
        /// An A/A run: the native device records the legacy loop too, so its column shows the
        /// spread this machine gives identical work on two devices (what a ratio near 1 is
        /// worth here).
        #[arg(long)]
        same_work: bool,
        /// Write the report as JSON to this file.
        #[arg(long)]
        json: Option<std::path::PathBuf>,
        /// Draw the GPU time ratios as an SVG plot in this file.
        #[arg(long)]
        plot: Option<std::path::PathBuf>,
        /// What to measure.
        #[arg(long, value_enum, default_value_t)]
        suite: bench::Suite,
    },
    /// List the devices, their capabilities and the Async Commands implementation each gets.
    Info {
        /// Only this device: `reference`, `vulkan` or `vulkan:N` (default: every device;
        /// `ASYNCMD_DEVICE` also selects one).
        #[arg(long)]
        device: Option<devices::DeviceSpec>,
    },
    /// Show the developer settings, or change one (`force-async-commands-fallback=true|false`).
    Config {
        /// A `key=value` setting to persist.
        setting: Option<String>,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("ASYNCMD_LOG").unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench { device, api, count, size, quick, e2e, same_work, json, plot, suite } => {
            bench::run(bench::BenchOptions { device, apis: api, count, size, quick, e2e, same_work, json, plot, suite })
        }
        Command::Info { device } => info::run(device),
        Command::Config { setting } => config(setting),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.text);
            ExitCode::FAILURE
        }
    }
}

fn config(setting: Option<String>) -> asyncmd::Result<()> {
    let mut config = DeveloperConfig::load()?;
    if let Some(s) = setting {
        config.set(&s)?;
        let path = config.save()?;
        println!("saved {}", path.display());
    }
    let path = config_path().map_or_else(|| "(no config directory)".to_string(), |p| p.display().to_string());
    println!("{FORCE_FALLBACK_KEY}={}", config.force_async_commands_fallback);
    println!("# file: {path}");
    if let Ok(v) = std::env::var(asyncmd::config::FORCE_FALLBACK_ENV) {
        println!("# overridden by {}={v}", asyncmd::config::FORCE_FALLBACK_ENV);
    }
    Ok(())
}

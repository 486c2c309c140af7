//! The command line on a fresh machine: `bench`, `info` and `config`.

use assert_cmd::Command;

/// Variables the binary reads: each test sets what it relies on, whatever the caller's shell has.
const ENVIRONMENT: [&str; 3] = ["ASYNCMD_DEVICE", "ASYNCMD_FORCE_ASYNC_COMMANDS_FALLBACK", "ASYNCMD_LOG"];

fn asyncmd_std(config: &std::path::Path) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("asyncmd"));
    c.env("ASYNCMD_CONFIG", config);
    for var in ENVIRONMENT {
        c.env_remove(var);
    }
    c
}

fn asyncmd(config: &std::path::Path) -> Command {
    Command::from_std(asyncmd_std(config))
}

#[test]
fn the_tests_do_not_inherit_the_callers_device_or_settings() {
    let c = asyncmd_std(&temp_config("environment"));
    for var in ENVIRONMENT {
        assert!(c.get_envs().any(|(k, v)| k == var && v.is_none()), "{var} is inherited");
    }
    let out = asyncmd(&temp_config("environment")).arg("info").assert().success().get_output().stdout.clone();
    assert!(String::from_utf8(out).unwrap().contains("asyncmd reference device"));
}

#[test]
fn an_empty_device_variable_counts_as_unset() {
    let cfg = temp_config("empty-device");
    let out = asyncmd(&cfg).env("ASYNCMD_DEVICE", "").arg("info").assert().success().get_output().stdout.clone();
    assert!(String::from_utf8(out).unwrap().contains("asyncmd reference device"));
    let out = asyncmd(&cfg).env("ASYNCMD_DEVICE", "gpu").arg("info").output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("ASYNCMD_DEVICE"));
}

fn temp_config(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("asyncmd-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("config")
}

#[test]
fn info_lists_the_reference_device_and_its_impl() {
    let cfg = temp_config("info");
    let out = asyncmd(&cfg).arg("info").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("asyncmd reference device"), "{text}");
    assert!(text.contains("Impl without the app's opt-in: NOT_SUPPORTED"), "{text}");
    assert!(text.contains("Impl with the app's opt-in:    FALLBACK"), "{text}");
    assert!(text.contains("Impl with the app's opt-in:    NATIVE"), "{text}");
}

#[test]
fn config_persists_the_forced_setting_and_info_honours_it() {
    let cfg = temp_config("config");
    asyncmd(&cfg).args(["config", "force-async-commands-fallback=true"]).assert().success();
    let shown = asyncmd(&cfg).arg("config").assert().success().get_output().stdout.clone();
    assert!(String::from_utf8(shown).unwrap().contains("force-async-commands-fallback=true"));
    let info = String::from_utf8(asyncmd(&cfg).arg("info").assert().success().get_output().stdout.clone()).unwrap();
    assert!(info.contains("force-async-commands-fallback: true"), "{info}");
    assert!(info.contains("Impl without the app's opt-in: FALLBACK"), "forcing needs no opt-in: {info}");
    asyncmd(&cfg).args(["config", "force-async-commands-fallback=false"]).assert().success();
    let info = String::from_utf8(asyncmd(&cfg).arg("info").assert().success().get_output().stdout.clone()).unwrap();
    assert!(info.contains("Impl without the app's opt-in: NOT_SUPPORTED"), "{info}");
}

#[test]
fn config_rejects_unknown_settings() {
    let cfg = temp_config("bad");
    let err = asyncmd(&cfg)
        .args(["config", "force-async-commands-fallback=perhaps"])
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8(err).unwrap().contains("not true or false"));
    asyncmd(&cfg).args(["config", "colour=blue"]).assert().failure();
    asyncmd(&cfg).arg("no-such-command").assert().failure();
}

#[test]
fn info_lists_vulkan_devices_and_selects_one() {
    let cfg = temp_config("vulkan");
    let required = std::env::var("ASYNCMD_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    let text = String::from_utf8(asyncmd(&cfg).arg("info").assert().success().get_output().stdout.clone()).unwrap();
    if required {
        assert!(text.contains("vulkan:0: "), "{text}");
        let one = asyncmd(&cfg).args(["info", "--device", "vulkan:0"]).assert().success().get_output().stdout.clone();
        let one = String::from_utf8(one).unwrap();
        assert!(one.contains("vulkan(0)") && !one.contains("reference device"), "{one}");
    }
    let only =
        asyncmd(&cfg).env("ASYNCMD_DEVICE", "reference").arg("info").assert().success().get_output().stdout.clone();
    let only = String::from_utf8(only).unwrap();
    assert!(only.contains("asyncmd reference device") && !only.contains("vulkan:"), "{only}");
    asyncmd(&cfg).args(["info", "--device", "vulkan:x"]).assert().failure();
    asyncmd(&cfg).env("ASYNCMD_DEVICE", "gpu").arg("info").assert().failure();
}

/// The numbers of one report row: legacy, fallback, native (`None` for `n/a`).
fn row<'a>(text: &'a str, api: &str) -> Vec<Option<f64>> {
    let line = text.lines().find(|l| l.starts_with(&format!("| {api} |"))).unwrap_or_else(|| panic!("{api}: {text}"));
    let cells: Vec<&'a str> = line.split('|').map(str::trim).collect();
    cells[3..6].iter().map(|c| c.parse().ok()).collect()
}

const APIS: [&str; 10] = [
    "CopyBufferRegions",
    "CopyTextureRegions",
    "CopyResources",
    "CopyTilesAsync",
    "ResolveSubresourceRegionAsync",
    "ResolveQueryDataAsync",
    "FillBuffers",
    "ClearTextureSubresources",
    "ClearBoundRenderTargetViews",
    "ClearBoundDepthStencilView",
];

#[test]
fn bench_measures_every_api_as_legacy_fallback_and_native() {
    let cfg = temp_config("bench");
    let out = asyncmd(&cfg).env_remove("ASYNCMD_DEVICE").args(["bench", "--quick"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("device: asyncmd reference device"), "{text}");
    for api in APIS {
        let r = row(&text, api);
        assert!(r.iter().all(|v| v.is_some_and(|ms| ms >= 0.0)), "{api}: {r:?}\n{text}");
    }
    // The route sweeps and the coverage sweep on both sides of a quarter.
    for route in [
        "FillBuffers, copy route",
        "FillBuffers, compute route",
        "ClearTextureSubresources, copy route",
        "ClearTextureSubresources, in-place route",
        "ClearTextureSubresources, MSAA in place",
        "ClearTextureSubresources, MSAA clear-and-copy route",
    ] {
        let r = row(&text, route);
        assert!(r.iter().all(|v| v.is_some_and(|ms| ms >= 0.0)), "{route}: {r:?}\n{text}");
    }
    assert!(text.contains("| 0.2500 |") && text.contains("(copy)") && text.contains("(in place)"), "{text}");
}

#[test]
fn bench_measures_the_command_buffer_cycle_against_one_by_hand() {
    let cfg = temp_config("bench-cb");
    let json = std::env::temp_dir().join(format!("asyncmd-bench-cb-{}.json", std::process::id()));
    let out = asyncmd(&cfg)
        .env_remove("ASYNCMD_DEVICE")
        .args(["bench", "--quick", "--suite", "command-buffers", "--json"])
        .arg(&json)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("## Command buffers on asyncmd reference device"), "{text}");
    let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let commands: Vec<u64> = rows.as_array().unwrap().iter().map(|r| r["commands"].as_u64().unwrap()).collect();
    assert_eq!(commands, [1, 16, 256]);
    for r in rows.as_array().unwrap() {
        assert!(r["command_buffer_us"].as_f64().unwrap() > 0.0 && r["by_hand_us"].as_f64().unwrap() > 0.0, "{r}");
        assert!(text.contains(&format!("| {} |", r["commands"])), "{text}");
    }
    let out = asyncmd(&cfg).args(["bench", "--suite", "everything"]).output().unwrap();
    assert!(!out.status.success());
}

/// Without the `peers` feature (the default build) the suite says how to get it, and fails.
#[cfg(not(feature = "peers"))]
#[test]
fn bench_peers_without_the_feature_names_how_to_build_it() {
    let cfg = temp_config("bench-peers");
    let out = asyncmd(&cfg).args(["bench", "--quick", "--suite", "peers"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features peers"), "{err}");
}

/// With it, every engine runs every row on a Vulkan adapter.
#[cfg(feature = "peers")]
#[test]
fn bench_peers_runs_every_engine_on_every_row() {
    let cfg = temp_config("bench-peers");
    let json = std::env::temp_dir().join(format!("asyncmd-bench-peers-{}.json", std::process::id()));
    let out = asyncmd(&cfg)
        .args(["bench", "--quick", "--suite", "peers", "--device", "vulkan", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    if !out.status.success() && std::env::var("ASYNCMD_REQUIRE_VULKAN").as_deref() != Ok("1") {
        return; // no Vulkan driver here
    }
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["missing"].as_array().unwrap().len(), 0, "{report}");
    for row in report["rows"].as_array().unwrap() {
        let engines: Vec<&str> =
            row["cells"].as_array().unwrap().iter().map(|c| c["engine"].as_str().unwrap()).collect();
        assert_eq!(engines, ["asyncmd native", "asyncmd legacy", "wgpu", "ash"], "{row}");
        // The cycle and latency rows submit their one copy alone on every engine: timestamps
        // and their resolve would be GPU work the latency counts and the others lack.
        let work = row["work"].as_str().unwrap();
        let untimed = work.starts_with("a command-buffer cycle") || work.starts_with("submit → done");
        for c in row["cells"].as_array().unwrap() {
            assert!(c["cpu_us"].as_f64().unwrap() > 0.0 && c["done_us"].as_f64().unwrap() > 0.0, "{c}");
            if untimed {
                assert!(c["gpu_ms"].is_null(), "{work}: {c}");
            } else if c["engine"].as_str().unwrap().starts_with("asyncmd") {
                assert!(c["gpu_ms"].as_f64().is_some_and(|g| g > 0.0), "{work}: {c}");
            }
        }
    }
}

#[test]
fn bench_measures_bound_clears_in_bundles_against_the_same_clears_in_the_list() {
    let cfg = temp_config("bench-bundles");
    let json = std::env::temp_dir().join(format!("asyncmd-bench-bundles-{}.json", std::process::id()));
    let out = asyncmd(&cfg)
        .env_remove("ASYNCMD_DEVICE")
        .args(["bench", "--quick", "--suite", "bundle-clears", "--json"])
        .arg(&json)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("## Bound clears in bundles on asyncmd reference device (Fallback)"), "{text}");
    let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let shape: Vec<(u64, u64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["clears"].as_u64().unwrap(), r["executions"].as_u64().unwrap()))
        .collect();
    assert_eq!(shape, [(2, 1), (2, 16), (2, 64), (16, 1), (16, 16), (16, 64)]);
    for r in rows.as_array().unwrap() {
        assert!(r["bundle_us"].as_f64().unwrap() > 0.0 && r["in_list_us"].as_f64().unwrap() > 0.0, "{r}");
        // Every clear is kept unlowered, with what it needs.
        assert_eq!(r["deferred_clears"], r["clears"], "{r}");
        assert!(r["kept_bytes"].as_u64().unwrap() >= 64 * r["clears"].as_u64().unwrap(), "{r}");
    }
}

#[test]
fn bench_same_work_times_the_legacy_loop_on_both_devices() {
    let cfg = temp_config("bench-aa");
    let out = asyncmd(&cfg)
        .env_remove("ASYNCMD_DEVICE")
        .args(["bench", "--quick", "--api", "CopyBufferRegions", "--same-work"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("A/A run (--same-work)"), "{text}");
    assert!(text.contains("| CopyBufferRegions |"), "{text}");
}

#[test]
fn bench_selects_apis_and_writes_json_and_a_plot() {
    let cfg = temp_config("bench-json");
    let dir = std::env::temp_dir().join(format!("asyncmd-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (json, plot) = (dir.join("bench.json"), dir.join("bench.svg"));
    let out = asyncmd(&cfg)
        .env_remove("ASYNCMD_DEVICE")
        .args(["bench", "--quick", "--api", "copybufferregions", "FillBuffers", "--count", "3", "--size", "4096"])
        .arg("--json")
        .arg(&json)
        .arg("--plot")
        .arg(&plot)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("| CopyBufferRegions | 3 buffers × 4 KiB |"), "{text}");
    assert!(!text.contains("| CopyResources |") && !text.contains("ClearTextureSubresources"), "{text}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["device"], "asyncmd reference device");
    let apis = report["apis"].as_array().unwrap();
    assert_eq!(apis.len(), 2);
    for r in apis {
        for mode in ["legacy", "fallback", "native"] {
            assert!(r[mode]["gpu_ms"].as_f64().unwrap() >= 0.0 && r[mode]["cpu_us"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
    assert_eq!(report["routes"].as_array().unwrap().len(), 2, "the fill sweep, both routes");
    // The CPU bar is checked from the rows: a row over it is named with its ratio.
    assert_eq!(
        (
            report["cpu_goal"]["api_bar"].as_f64(),
            report["cpu_goal"]["route_bar"].as_f64(),
            report["cpu_goal"]["noise_floor_us"].as_f64()
        ),
        (Some(1.5), Some(3.0), Some(0.5))
    );
    for over in report["cpu_goal"]["over"].as_array().unwrap() {
        let name = over.as_str().unwrap();
        assert!(name.starts_with("CopyBufferRegions (") || name.starts_with("FillBuffers"), "{name}");
    }
    assert!(text.contains("fallback / legacy CPU"), "{text}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("FillBuffers, compute route"), "{svg}");
    // Counts and sizes out of range are usage errors; together they may not ask too much.
    for bad in [["--count", "0"], ["--count", "70000"], ["--size", "8"], ["--size", "8589934592"]] {
        let out = asyncmd(&cfg).args(["bench", "--quick"]).args(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
    for too_much in [&["--count", "65536", "--size", "4294967296"][..], &["--size", "4294967296"]] {
        let out = asyncmd(&cfg).args(["bench", "--quick"]).args(too_much).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{too_much:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("GiB per case"), "{err}");
    }
    // A count asks for what the case's resources take: 65,536 timestamps are 512 KiB.
    let out = asyncmd(&cfg)
        .args(["bench", "--quick", "--api", "ResolveQueryDataAsync", "--count", "65536"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("65536 timestamps"));
    let out = asyncmd(&cfg).args(["bench", "--quick", "--api", "CopyEverything"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not one of the ten Async Commands"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_e2e_times_frames_of_work_around_draws() {
    let cfg = temp_config("bench-e2e");
    let json = std::env::temp_dir().join(format!("asyncmd-e2e-{}.json", std::process::id()));
    let out = asyncmd(&cfg)
        .env_remove("ASYNCMD_DEVICE")
        .args(["bench", "--quick", "--e2e", "--api", "FillBuffers", "CopyTilesAsync", "--json"])
        .arg(&json)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("end to end") && text.contains("around 256 draws"), "{text}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // Tile copies have no end-to-end frame: only the fill's row, with every mode timed.
    let rows = report["e2e"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{report}");
    assert_eq!(rows[0]["api"], "FillBuffers");
    for mode in ["legacy", "fallback", "native"] {
        assert!(rows[0][mode]["gpu_ms"].as_f64().unwrap() > 0.0, "{report}");
    }
    assert!(report["apis"].as_array().unwrap().is_empty());
    std::fs::remove_file(&json).ok();
    // The mode has its own sizes and belongs to one suite: anything else is a usage error.
    for bad in [&["--count", "4"][..], &["--size", "4096"], &["--suite", "semantics"]] {
        let out = asyncmd(&cfg).args(["bench", "--quick", "--e2e"]).args(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--e2e"), "{bad:?}");
    }
}

#[test]
fn bench_on_vulkan_where_there_is_a_driver() {
    let cfg = temp_config("bench-vulkan");
    let out = asyncmd(&cfg).args(["bench", "--quick", "--device", "vulkan"]).output().unwrap();
    if !out.status.success() && std::env::var("ASYNCMD_REQUIRE_VULKAN").as_deref() != Ok("1") {
        eprintln!("no Vulkan device: {}", String::from_utf8_lossy(&out.stderr));
        return;
    }
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    // Tiles need sparse residency, which lavapipe lacks: its row may be absent.
    for api in APIS.iter().filter(|a| **a != "CopyTilesAsync") {
        let r = row(&text, api);
        assert!(r.iter().all(|v| v.is_some_and(|ms| ms >= 0.0)), "{api}: {r:?}\n{text}");
    }
}

#[test]
fn bench_refuses_devices_that_do_not_exist() {
    let cfg = temp_config("bench-bad");
    let out = asyncmd(&cfg).args(["bench", "--quick", "--device", "gpu"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a malformed --device is a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not reference, vulkan or vulkan:N"));
    let out = asyncmd(&cfg).args(["bench", "--quick", "--device", "vulkan:999"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "), "{}", String::from_utf8_lossy(&out.stderr));
    let out = asyncmd(&cfg).env("ASYNCMD_DEVICE", "nonsense").args(["bench", "--quick"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("ASYNCMD_DEVICE"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The shaders suite runs its kernels on the reference device and on Vulkan where there is a
/// driver, checks each result against the CPU's, and writes a row per kernel.
#[test]
fn bench_runs_the_app_kernels_on_each_device() {
    let cfg = temp_config("bench-shaders");
    let json = std::env::temp_dir().join(format!("asyncmd-bench-shaders-{}.json", std::process::id()));
    let out = asyncmd(&cfg)
        .env_remove("ASYNCMD_DEVICE")
        .args(["bench", "--quick", "--suite", "shaders", "--api", "saxpy", "--api", "reduce", "--json"])
        .arg(&json)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("## App kernels"), "{text}");
    let rows: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let kernels: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["kernel"].as_str().unwrap()).collect();
    assert_eq!(kernels, ["saxpy", "reduce"]);
    for r in rows.as_array().unwrap() {
        let times = r["times"].as_array().unwrap();
        assert_eq!(times[0]["device"], "asyncmd reference device", "{r}");
        assert!(times.iter().all(|t| t["ms"].as_f64().unwrap() > 0.0), "{r}");
    }
}

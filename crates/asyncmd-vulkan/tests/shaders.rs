//! The committed SPIR-V matches its GLSL sources (compiled with glslc, as `shaders/build.sh`
//! does). Without glslc the check is skipped, unless `ASYNCMD_REQUIRE_GLSLC=1` (set in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The built-in shaders' folder and the device kernels' folder.
fn shader_dirs() -> [PathBuf; 2] {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    [root.join("builtin"), root.join("meta")]
}

/// Every file of the shader folders.
fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        shader_dirs().iter().flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path())).collect();
    v.sort();
    v
}

fn sources() -> Vec<PathBuf> {
    files()
        .into_iter()
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("vert" | "frag" | "comp")))
        .collect()
}

#[test]
fn every_source_has_spirv_and_every_spirv_a_source() {
    let srcs = sources();
    assert!(srcs.len() >= 8, "{srcs:?}");
    for s in &srcs {
        let spv = PathBuf::from(format!("{}.spv", s.display()));
        assert!(spv.exists(), "{} has no SPIR-V: run shaders/build.sh", s.display());
    }
    for p in files() {
        if p.extension().and_then(|e| e.to_str()) == Some("spv") {
            let src = p.with_extension("");
            assert!(src.exists(), "{} has no source", p.display());
        }
    }
}

#[test]
fn shaders_match_their_sources() {
    let required = std::env::var("ASYNCMD_REQUIRE_GLSLC").is_ok_and(|v| v == "1");
    if Command::new("glslc").arg("--version").output().is_err() {
        assert!(!required, "ASYNCMD_REQUIRE_GLSLC=1 but glslc is not installed");
        eprintln!("glslc not installed: skipping the SPIR-V freshness check");
        return;
    }
    let out_dir = std::env::temp_dir().join(format!("asyncmd-spv-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    for src in sources() {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let out = out_dir.join(format!("{name}.spv"));
        let status =
            Command::new("glslc").args(["--target-env=vulkan1.3", "-O", "-o"]).arg(&out).arg(&src).status().unwrap();
        assert!(status.success(), "glslc failed on {name}");
        let fresh = std::fs::read(&out).unwrap();
        let committed = std::fs::read(PathBuf::from(format!("{}.spv", src.display()))).unwrap();
        assert!(fresh == committed, "{name}.spv is stale: run crates/asyncmd-vulkan/shaders/build.sh");
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

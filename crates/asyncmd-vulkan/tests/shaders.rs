//! The committed SPIR-V matches its GLSL sources (compiled with glslc, as `shaders/build.sh`
//! does). Without glslc the check is skipped, unless `ASYNCMD_REQUIRE_GLSLC=1` (set in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders")
}

fn sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(shader_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("vert" | "frag" | "comp")))
        .collect();
    v.sort();
    v
}

#[test]
fn every_source_has_spirv_and_every_spirv_a_source() {
    let srcs = sources();
    assert!(srcs.len() >= 8, "{srcs:?}");
    for s in &srcs {
        let spv = PathBuf::from(format!("{}.spv", s.display()));
        assert!(spv.exists(), "{} has no SPIR-V: run shaders/build.sh", s.display());
    }
    for e in std::fs::read_dir(shader_dir()).unwrap() {
        let p = e.unwrap().path();
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
        let committed = std::fs::read(shader_dir().join(format!("{name}.spv"))).unwrap();
        assert!(fresh == committed, "{name}.spv is stale: run crates/asyncmd-vulkan/shaders/build.sh");
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

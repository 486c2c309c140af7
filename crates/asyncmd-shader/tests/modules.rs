//! Modules from each language, their bindings in register classes, the root-signature check,
//! and bad input: every failure an `InvalidArg` with its message id, never a panic.

use asyncmd_shader::{bind_to_root, BindingKind, BindingSource, Language, ShaderModule, ShaderStage, TexelKind};
use asyncmd_types::{
    DescriptorRange, ErrorCode, MessageId, RegisterClass, RootParameter, RootSignatureDesc, SamplerDesc,
    ShaderVisibility, StaticBorderColor, StaticSampler,
};

const SAXPY: &str = r#"
struct Params { a: f32, n: u32 }
var<immediate> params: Params;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < params.n {
        y[id.x] = params.a * x[id.x] + y[id.x];
    }
}
"#;

const MANY: &str = r#"
struct Consts { scale: vec4<f32> }
@group(0) @binding(2) var<uniform> consts: Consts;
@group(1) @binding(0) var src: texture_2d<f32>;
@group(1) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(3) var smp: sampler;
@group(2) @binding(0) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read> unused: array<u32>;
var<workgroup> tile: array<f32, 256>;

@compute @workgroup_size(16, 16)
fn blur(@builtin(local_invocation_index) i: u32, @builtin(global_invocation_id) id: vec3<u32>) {
    tile[i] = textureLoad(src, vec2<i32>(id.xy), 0).x;
    workgroupBarrier();
    let v = textureSampleLevel(src, smp, vec2<f32>(0.5), 0.0);
    textureStore(dst, vec2<i32>(id.xy), v * consts.scale * tile[255u - i]);
    atomicAdd(&counters[0], 1u);
}
"#;

fn assert_invalid<T: std::fmt::Debug>(r: asyncmd_types::Result<T>, text: &[&str]) -> String {
    let e = r.expect_err("refused");
    assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreateShaderModuleInvalid), "{e}");
    for t in text {
        assert!(e.text.contains(t), "{t:?} not in {}", e.text);
    }
    e.text
}

#[test]
fn a_wgsl_kernel_binds_by_class_space_and_register() {
    let m = ShaderModule::from_wgsl(SAXPY).unwrap();
    assert_eq!(m.language(), Language::Wgsl);
    let e = m.entry_point("main", ShaderStage::Compute).unwrap();
    assert_eq!(e.workgroup_size, [64, 1, 1]);
    assert_eq!(e.immediate_bytes, Some(8));
    // A read-only storage buffer is t0, a read-write one u0: one binding number, two classes.
    let regs: Vec<_> = e.bindings.iter().map(|b| (b.class, b.space, b.register, b.writes)).collect();
    assert_eq!(regs, [(RegisterClass::Srv, 0, 0, false), (RegisterClass::Uav, 0, 0, true)]);
    assert_eq!(e.bindings[0].kind, BindingKind::Buffer { size: 0, stride: Some(4) });
}

#[test]
fn textures_samplers_uniforms_and_atomics_take_their_classes_and_unused_globals_none() {
    let m = ShaderModule::from_wgsl(MANY).unwrap();
    let e = m.entry_point("blur", ShaderStage::Compute).unwrap();
    let regs: Vec<_> = e.bindings.iter().map(|b| (b.class, b.space, b.register, b.name.as_str())).collect();
    assert_eq!(
        regs,
        [
            (RegisterClass::Cbv, 0, 2, "consts"),
            (RegisterClass::Srv, 1, 0, "src"),
            (RegisterClass::Uav, 1, 1, "dst"),
            (RegisterClass::Uav, 2, 0, "counters"),
            (RegisterClass::Sampler, 0, 3, "smp"),
        ]
    );
    assert!(e.bindings[3].writes, "atomics write");
    assert_eq!(e.bindings[0].kind, BindingKind::Buffer { size: 16, stride: None });
    assert_eq!(
        e.bindings[1].kind,
        BindingKind::Texture { dim: 2, arrayed: false, multisampled: false, texel: TexelKind::Float, format: None }
    );
    assert_eq!(e.workgroup_bytes, 1024);
    assert_eq!(e.limit_reason(), None);
}

#[test]
fn glsl_and_spirv_modules_reflect_like_wgsl() {
    let glsl = r#"#version 450
layout(local_size_x = 32) in;
layout(push_constant) uniform P { uint n; } p;
layout(set = 0, binding = 1) readonly buffer In { uint v[]; } src;
layout(set = 0, binding = 1) buffer Out { uint v[]; } dst;
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) dst.v[i] = src.v[i] * 2u; }
"#;
    let m = ShaderModule::from_glsl(glsl, ShaderStage::Compute).unwrap();
    let e = m.entry_point("main", ShaderStage::Compute).unwrap();
    assert_eq!(e.workgroup_size, [32, 1, 1]);
    assert_eq!(e.immediate_bytes, Some(4));
    let regs: Vec<_> = e.bindings.iter().map(|b| (b.class, b.register)).collect();
    assert_eq!(regs, [(RegisterClass::Srv, 1), (RegisterClass::Uav, 1)]);

    let spirv = spirv_of(SAXPY);
    let m = ShaderModule::from_spirv(&spirv).unwrap();
    assert_eq!(m.language(), Language::SpirV);
    let e = m.entry_point("main", ShaderStage::Compute).unwrap();
    let regs: Vec<_> = e.bindings.iter().map(|b| (b.class, b.register)).collect();
    assert_eq!(regs, [(RegisterClass::Srv, 0), (RegisterClass::Uav, 0)]);
}

/// SPIR-V from WGSL through naga's own back end, as bytes.
fn spirv_of(wgsl: &str) -> Vec<u8> {
    use asyncmd_shader::naga;
    let module = naga::front::wgsl::parse_str(wgsl).unwrap();
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all() - naga::valid::ValidationFlags::BINDINGS,
        naga::valid::Capabilities::IMMEDIATES,
    )
    .validate(&module)
    .unwrap();
    let words = naga::back::spv::write_vec(&module, &info, &Default::default(), None).unwrap();
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn a_module_that_does_not_parse_or_validate_names_where_and_why() {
    let t = assert_invalid(
        ShaderModule::from_wgsl("@compute @workgroup_size(1)\nfn main() {\n  let x = ;\n}"),
        &["CreateShaderModule: WGSL line 3, column"],
    );
    assert!(t.contains("expected"), "{t}");
    // Parses, does not validate: a u32 plus an f32.
    assert_invalid(
        ShaderModule::from_wgsl("@compute @workgroup_size(1)\nfn main() {\n  let x = 1u + 2.0f;\n}"),
        &["CreateShaderModule: Wgsl line 3"],
    );
    assert_invalid(
        ShaderModule::from_glsl("#version 450\nvoid main() { undefined_thing = 1; }", ShaderStage::Compute),
        &["GLSL line 2"],
    );
    assert_invalid(ShaderModule::from_spirv(&[1, 2, 3]), &["SPIR-V: 3 bytes"]);
    assert_invalid(ShaderModule::from_spirv(&[0; 64]), &["SPIR-V"]);
    let m = ShaderModule::from_wgsl(SAXPY).unwrap();
    let e = m.entry_point("other", ShaderStage::Compute).expect_err("no such entry point");
    assert!(e.text.contains("main (Compute)"), "{}", e.text);
}

#[test]
fn random_truncated_and_flipped_modules_are_refused_without_a_panic() {
    let good = spirv_of(SAXPY);
    let mut rng = fastrand::Rng::with_seed(34);
    let mut accepted = 0;
    for round in 0..3000 {
        let bytes: Vec<u8> = match round % 3 {
            0 => (0..rng.usize(0..400)).map(|_| rng.u8(..)).collect(),
            1 => good[..rng.usize(0..good.len())].to_vec(),
            _ => {
                let mut b = good.clone();
                for _ in 0..rng.usize(1..4) {
                    let i = rng.usize(20..b.len());
                    b[i] ^= 1 << rng.u8(0..8);
                }
                b
            }
        };
        match ShaderModule::from_spirv(&bytes) {
            Ok(_) => accepted += 1,
            Err(e) => assert_eq!(e.id, MessageId::CreateShaderModuleInvalid),
        }
        let text: String = (0..rng.usize(0..200))
            .map(|_| rng.choice(b"fn@(){}<>;:var u32 f32 let 1.0x".iter()).map_or(' ', |c| *c as char))
            .collect();
        if let Err(e) = ShaderModule::from_wgsl(&text) {
            assert_eq!(e.id, MessageId::CreateShaderModuleInvalid);
        }
    }
    // Some bit flips land in names or unused fields; most modules are refused.
    assert!(accepted < 2000, "{accepted} of 3000 accepted");
}

#[test]
fn group_limits_are_d3d12s() {
    let m = |size: &str, wg: &str| {
        let src = format!("{wg}\n@compute @workgroup_size({size}) fn main() {{ _ = &t; }}");
        let src = if wg.is_empty() { format!("@compute @workgroup_size({size}) fn main() {{}}") } else { src };
        ShaderModule::from_wgsl(&src).unwrap().entry_point("main", ShaderStage::Compute).unwrap().limit_reason()
    };
    assert_eq!(m("1024", ""), None);
    assert_eq!(m("32, 32", ""), None);
    assert!(m("1025", "").unwrap().contains("1025×1×1"));
    assert!(m("16, 16, 8", "").is_some(), "2048 threads");
    assert!(m("1, 1, 65", "").is_some(), "z ≤ 64");
    assert_eq!(m("1", "var<workgroup> t: array<u32, 8192>;"), None);
    assert!(m("1", "var<workgroup> t: array<u32, 8193>;").unwrap().contains("32772 bytes"));
}

fn root(parameters: Vec<RootParameter>) -> RootSignatureDesc {
    RootSignatureDesc::new(parameters)
}

#[test]
fn a_root_signature_must_give_every_binding_its_class_space_and_registers() {
    let m = ShaderModule::from_wgsl(SAXPY).unwrap();
    let e = m.entry_point("main", ShaderStage::Compute).unwrap();
    let good = root(vec![RootParameter::srv(0), RootParameter::uav(0), RootParameter::constants(0, 2)]);
    let b = bind_to_root(e, &good).unwrap();
    assert_eq!(
        b.sources,
        [BindingSource::RootDescriptor { parameter: 0 }, BindingSource::RootDescriptor { parameter: 1 }]
    );
    assert_eq!(b.immediates, Some(2));
    // A table gives them too, at their offsets from its start.
    let table = root(vec![
        RootParameter::constants(0, 2),
        RootParameter::table(vec![
            DescriptorRange::new(RegisterClass::Uav, 4, 0),
            DescriptorRange::new(RegisterClass::Srv, 1, 0),
        ]),
    ]);
    let b = bind_to_root(e, &table).unwrap();
    assert_eq!(
        b.sources,
        [
            BindingSource::Table { parameter: 1, offset: 4, volatile: false },
            BindingSource::Table { parameter: 1, offset: 0, volatile: false }
        ]
    );
    let refuse = |r: RootSignatureDesc, text: &str| {
        let t = bind_to_root(e, &r).expect_err("refused");
        assert!(t.contains(text), "{text:?} not in {t}");
    };
    refuse(root(vec![RootParameter::uav(0), RootParameter::constants(0, 2)]), "binds no t0 of space 0 (`x`)");
    refuse(root(vec![RootParameter::srv(0), RootParameter::uav(0).space(1), RootParameter::constants(0, 2)]), "u0");
    refuse(root(vec![RootParameter::srv(0), RootParameter::uav(0), RootParameter::constants(0, 1)]), "8 bytes");
    refuse(root(vec![RootParameter::srv(0), RootParameter::uav(0)]), "has none");
    // Compute sees only parameters visible to all stages.
    let hidden = RootParameter::srv(0).visibility(ShaderVisibility::Pixel);
    refuse(root(vec![hidden, RootParameter::uav(0), RootParameter::constants(0, 2)]), "t0");
}

#[test]
fn root_descriptors_take_buffers_and_constant_buffers_may_be_root_constants() {
    let m = ShaderModule::from_wgsl(MANY).unwrap();
    let e = m.entry_point("blur", ShaderStage::Compute).unwrap();
    let sampler = StaticSampler {
        desc: SamplerDesc::default(),
        border: StaticBorderColor::TransparentBlack,
        shader_register: 3,
        register_space: 0,
        visibility: ShaderVisibility::All,
    };
    let mut r = root(vec![
        RootParameter::constants(2, 4),
        RootParameter::srv(0).space(1),
        RootParameter::table(vec![DescriptorRange::new(RegisterClass::Uav, 1, 1).space(1)]),
        RootParameter::uav(0).space(2),
    ]);
    r.static_samplers.push(sampler);
    let t = bind_to_root(e, &r).expect_err("a texture in a root SRV");
    assert!(t.contains("t0 of space 1 (`src`) is not a single buffer"), "{t}");
    r.parameters[1] = RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, 1, 0).space(1)]);
    let b = bind_to_root(e, &r).unwrap();
    assert_eq!(
        b.sources,
        [
            BindingSource::RootConstants { parameter: 0 },
            BindingSource::Table { parameter: 1, offset: 0, volatile: false },
            BindingSource::Table { parameter: 2, offset: 0, volatile: false },
            BindingSource::RootDescriptor { parameter: 3 },
            BindingSource::StaticSampler { index: 0 },
        ]
    );
    // The 16-byte constant buffer needs four constants.
    r.parameters[0] = RootParameter::constants(2, 3);
    assert!(bind_to_root(e, &r).unwrap_err().contains("16-byte constant buffer"));
}

#[test]
fn a_spirv_header_claiming_four_billion_ids_is_refused_quickly() {
    let mut good = spirv_of(SAXPY);
    // Word 3 is the id bound.
    good[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let _ = ShaderModule::from_spirv(&good).map(drop);
    good[12..16].copy_from_slice(&0u32.to_le_bytes());
    let _ = ShaderModule::from_spirv(&good).map(drop);
}

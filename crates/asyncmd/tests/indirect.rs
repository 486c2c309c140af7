//! `ExecuteIndirect` of dispatches: command signatures, argument and count buffers read when
//! the list runs, root constants set by commands, and the errors of each misuse.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::kernels::*;
use common::*;
use std::sync::Arc;

/// Each thread adds the root constant `k` (1 where the caller sets it so) to `hits[0]`.
const COUNT: &str = r#"
var<immediate> k: u32;
@group(0) @binding(0) var<storage, read_write> hits: array<atomic<u32>>;
@compute @workgroup_size(4)
fn main() {
    atomicAdd(&hits[0], k);
}
"#;

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

struct Setup {
    root: RootSignature,
    pso: PipelineState,
    hits: Resource,
}

fn setup(ctx: &Ctx) -> Setup {
    let root = ctx
        .device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, 1), RootParameter::uav(0)]))
        .unwrap();
    let pso = pipeline(&ctx.device, &root, &Arc::new(ShaderModule::from_wgsl(COUNT).unwrap()), "main").unwrap();
    let hits = uav_buffer(ctx, &[0; 16]);
    Setup { root, pso, hits }
}

fn bind(l: &mut CommandList, s: &Setup) {
    l.set_compute_root_signature(&s.root);
    l.set_pipeline_state(&s.pso);
    l.set_compute_root_unordered_access_view(1, s.hits.gpu_address(0));
}

fn hits(ctx: &Ctx, s: &Setup) -> u32 {
    let b = ctx.read_buffer(&s.hits);
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[test]
fn dispatches_come_from_the_argument_buffer_as_the_list_runs() {
    for (name, ctx) in kernel_contexts() {
        let s = setup(&ctx);
        let sig = ctx.device.create_command_signature(&CommandSignatureDesc::dispatch(), None).unwrap();
        // Five commands: 2, 6, (70000: past D3D12's limit, nothing), 5 and 0 groups.
        let commands = words(&[2, 1, 1, 1, 3, 2, 70000, 1, 1, 5, 1, 1, 0, 1, 1]);
        let staged = ctx.upload(&commands);
        let args = ctx.buffer(HeapType::Default, 64);
        let counts = ctx.default_buffer(&words(&[9, 2]));
        ctx.run(CommandListType::Direct, |l| {
            bind(l, &s);
            l.set_compute_root_32bit_constant(0, 1, 0);
            // The arguments are written by the list itself, before the GPU reads them.
            l.copy_buffer_region(&args, 4, &staged, 0, commands.len() as u64);
            // All five: 2 + 6 + 0 + 5 + 0 groups of 4 threads.
            l.execute_indirect(&sig, 5, &args, 4, None);
            // min(count 9, max 5) = 5 commands again; then a count of 2: 2 + 6 groups.
            l.execute_indirect(&sig, 5, &args, 4, Some((&counts, 0)));
            l.execute_indirect(&sig, 5, &args, 4, Some((&counts, 4)));
            // No commands at all.
            l.execute_indirect(&sig, 0, &args, 4, None);
        });
        assert_eq!(hits(&ctx, &s), 13 * 4 * 2 + 8 * 4, "{name}");
    }
}

#[test]
fn commands_set_root_constants_where_the_device_reads_them_from_memory() {
    for (name, ctx) in contexts() {
        let s = setup(&ctx);
        assert!(ctx.device.capabilities().indirect_root_constants, "{name}");
        let desc = CommandSignatureDesc {
            byte_stride: 16,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 0, count: 1 },
                IndirectArgument::Dispatch,
            ],
        };
        let sig = ctx.device.create_command_signature(&desc, Some(&s.root)).unwrap();
        // k = 3 over 1 group, k = 10 over 2 groups: 3·4 + 10·8.
        let args = ctx.default_buffer(&words(&[3, 1, 1, 1, 10, 2, 1, 1]));
        let count = ctx.default_buffer(&words(&[1]));
        ctx.run(CommandListType::Direct, |l| {
            bind(l, &s);
            l.execute_indirect(&sig, 2, &args, 0, None);
            // A count of 1: the first command alone, 3·4.
            l.execute_indirect(&sig, 2, &args, 0, Some((&count, 0)));
            // One command, the second: 10·8 (the fuzzer found one slot's constants not copied).
            l.execute_indirect(&sig, 1, &args, 16, None);
        });
        assert_eq!(hits(&ctx, &s), 92 + 12 + 80, "{name}");
        // The constants the commands wrote are unset after, even where the list had set them:
        // a dispatch must set them again.
        let r = ctx.record(CommandListType::Direct, |l| {
            bind(l, &s);
            l.set_compute_root_32bit_constant(0, 5, 0);
            l.execute_indirect(&sig, 2, &args, 0, None);
            l.dispatch(1, 1, 1);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.contains("root parameter 0"), "{name}: {}", e.text);
    }
}

/// Each thread adds `k` to `hits[slot]`; `k` and `slot` are one root-constants parameter, the
/// scale `s` another, and the thread adds `k · s`.
const SCATTER: &str = r#"
struct Push { k: u32, slot: u32 }
var<immediate> push: Push;
@group(0) @binding(0) var<storage, read_write> hits: array<atomic<u32>>;
@group(0) @binding(1) var<uniform> scale: vec4<u32>;
@compute @workgroup_size(4)
fn main() {
    atomicAdd(&hits[push.slot], push.k * scale.x);
}
"#;

#[test]
fn commands_change_some_constants_and_keep_the_rest_of_the_lists() {
    for (name, ctx) in contexts() {
        let root = ctx
            .device
            .create_root_signature(&RootSignatureDesc::new(vec![
                RootParameter::constants(0, 2),
                RootParameter::uav(0),
                RootParameter::constants(1, 4),
            ]))
            .unwrap();
        let module = Arc::new(ShaderModule::from_wgsl(SCATTER).unwrap());
        let pso = pipeline(&ctx.device, &root, &module, "main").unwrap();
        let hits = uav_buffer(&ctx, &[0; 16]);
        // The second argument sets `slot` again over the first's: the later one wins.
        let desc = CommandSignatureDesc {
            byte_stride: 28,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 0, count: 2 },
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 1, count: 1 },
                IndirectArgument::Dispatch,
            ],
        };
        let sig = ctx.device.create_command_signature(&desc, Some(&root)).unwrap();
        // (k, ignored slot, slot, groups): (2, 0, 1, 1 group), (5, 0, 3, 2 groups), then a
        // command of k = 7 that the count leaves out.
        let commands = words(&[2, 0, 1, 1, 1, 1, 0, 5, 0, 3, 2, 1, 1, 0, 7, 0, 2, 1, 1, 1, 0]);
        let staged = ctx.upload(&commands);
        let args = ctx.buffer(HeapType::Default, commands.len() as u64);
        let count = ctx.default_buffer(&words(&[2]));
        ctx.run(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_unordered_access_view(1, hits.gpu_address(0));
            // The scale is the list's (3), not a command's.
            l.set_compute_root_32bit_constants(2, &[3, 0, 0, 0], 0);
            l.copy_buffer_region(&args, 0, &staged, 0, commands.len() as u64);
            l.execute_indirect(&sig, 3, &args, 0, Some((&count, 0)));
        });
        let b = ctx.read_buffer(&hits);
        let hit = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        // Slot 1: 4 threads · 2 · 3; slot 3: 8 threads · 5 · 3; slots 0 and 2 untouched.
        assert_eq!([hit(0), hit(1), hit(2), hit(3)], [0, 24, 0, 120], "{name}");
    }
}

#[test]
fn a_bundle_dispatches_indirectly_with_what_the_executing_list_binds() {
    for (name, ctx) in contexts() {
        let s = setup(&ctx);
        let sig = ctx.device.create_command_signature(&CommandSignatureDesc::dispatch(), None).unwrap();
        // Two commands: 2 and 3 groups of 4 threads.
        let args = ctx.default_buffer(&words(&[2, 1, 1, 3, 1, 1]));
        // The bundle sets only the pipeline: the root signature, k and the UAV are each list's.
        let mut bundle = ctx.list(CommandListType::Bundle);
        bundle.set_pipeline_state(&s.pso);
        bundle.execute_indirect(&sig, 2, &args, 0, None);
        bundle.close().unwrap();
        for k in [1, 10] {
            ctx.run(CommandListType::Direct, |l| {
                l.set_compute_root_signature(&s.root);
                l.set_compute_root_unordered_access_view(1, s.hits.gpu_address(0));
                l.set_compute_root_32bit_constant(0, k, 0);
                l.execute_bundle(&bundle);
            });
        }
        // 5 groups of 4 threads, k = 1 then k = 10.
        assert_eq!(hits(&ctx, &s), 20 + 200, "{name}");
        // A list that leaves k unset: the bundle's dispatch is refused where it runs.
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&s.root);
            l.set_compute_root_unordered_access_view(1, s.hits.gpu_address(0));
            l.execute_bundle(&bundle);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
        assert!(e.text.contains("root parameter 0"), "{name}: {}", e.text);
        // D3D12's bundle rules: no count buffer, and commands that dispatch only.
        let constants = CommandSignatureDesc {
            byte_stride: 16,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 0, count: 1 },
                IndirectArgument::Dispatch,
            ],
        };
        let with_constants = ctx.device.create_command_signature(&constants, Some(&s.root)).unwrap();
        let count = ctx.default_buffer(&words(&[1]));
        for (what, use_count) in [("no count buffer", true), ("its dispatch alone", false)] {
            let r = ctx.record(CommandListType::Bundle, |b| {
                b.set_compute_root_signature(&s.root);
                b.set_pipeline_state(&s.pso);
                if use_count {
                    b.execute_indirect(&sig, 2, &args, 0, Some((&count, 0)));
                } else {
                    b.execute_indirect(&with_constants, 1, &args, 0, None);
                }
            });
            let e = assert_error(r, ErrorCode::InvalidArg, MessageId::ExecuteIndirectInvalid);
            assert!(e.text.contains(what), "{name}: {what:?} not in {}", e.text);
        }
    }
}

/// Root constants from commands with one of the runtime's built-in shaders: the reference
/// device reads them as it reads any kernel's; the Vulkan device's built-in shaders take their
/// constants only as push constants, so it refuses the call with the API's message id.
#[test]
fn built_in_shaders_take_constants_from_commands_only_where_the_device_can() {
    for (name, ctx) in contexts() {
        let (root, pso) = fill_pipeline(&ctx);
        let desc = CommandSignatureDesc {
            byte_stride: 16,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 0, count: 1 },
                IndirectArgument::Dispatch,
            ],
        };
        let sig = ctx.device.create_command_signature(&desc, Some(&root)).unwrap();
        let args = ctx.default_buffer(&words(&[7, 1, 1, 1]));
        let target = uav_buffer(&ctx, &[0; 64]);
        let r = ctx.record(CommandListType::Direct, |l| {
            l.set_compute_root_signature(&root);
            l.set_pipeline_state(&pso);
            l.set_compute_root_32bit_constants(0, &[0, 0, 0, 0, 1, 16], 0);
            l.set_compute_root_unordered_access_view(1, target.gpu_address(0));
            l.execute_indirect(&sig, 1, &args, 0, None);
        });
        if name == "vulkan" {
            let e = r.expect_err("the Vulkan device refuses it");
            assert_eq!((e.code, e.id), (ErrorCode::Fail, MessageId::ExecuteIndirectInvalid), "{e}");
            assert!(e.text.contains("app kernel"), "{}", e.text);
        } else {
            r.unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn signatures_and_indirect_calls_refuse_what_does_not_fit() {
    let ctx = Ctx::reference();
    let s = setup(&ctx);
    let d = &ctx.device;
    let bad = |desc: &CommandSignatureDesc, root: Option<&RootSignature>, text: &str| {
        let e = d.create_command_signature(desc, root).map(drop).unwrap_err();
        assert_eq!((e.code, e.id), (ErrorCode::InvalidArg, MessageId::CreateCommandSignatureInvalid), "{e}");
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    bad(&CommandSignatureDesc::dispatch(), Some(&s.root), "takes no root signature");
    bad(&CommandSignatureDesc { byte_stride: 8, ..CommandSignatureDesc::dispatch() }, None, "holds the arguments");
    bad(&CommandSignatureDesc { byte_stride: 12, arguments: vec![] }, None, "one dispatch argument");
    let constants = |root_parameter, count| CommandSignatureDesc {
        byte_stride: 32,
        arguments: vec![
            IndirectArgument::Constant { root_parameter, dest_offset: 0, count },
            IndirectArgument::Dispatch,
        ],
    };
    bad(&constants(1, 1), Some(&s.root), "not root constants");
    bad(&constants(0, 2), Some(&s.root), "do not fit");

    let sig = d.create_command_signature(&CommandSignatureDesc::dispatch(), None).unwrap();
    let args = ctx.default_buffer(&[0; 64]);
    let invalid = |f: &dyn Fn(&mut CommandList), text: &str| {
        let r = ctx.record(CommandListType::Direct, |l| {
            bind(l, &s);
            l.set_compute_root_32bit_constant(0, 1, 0);
            f(l);
        });
        let e = assert_error(r, ErrorCode::InvalidArg, MessageId::ExecuteIndirectInvalid);
        assert!(e.text.contains(text), "{text:?} not in {}", e.text);
    };
    // 5 commands of 12 bytes from 8: 56 bytes fit in 64; from 12 they do not.
    assert!(ctx
        .record(CommandListType::Direct, |l| {
            bind(l, &s);
            l.set_compute_root_32bit_constant(0, 1, 0);
            l.execute_indirect(&sig, 5, &args, 4, None);
        })
        .is_ok());
    invalid(&|l| l.execute_indirect(&sig, 5, &args, 8, None), "pass the buffer's 64 bytes");
    invalid(&|l| l.execute_indirect(&sig, u32::MAX, &args, 0, None), "pass the buffer");
    invalid(&|l| l.execute_indirect(&sig, 1, &args, 2, None), "offset multiple of 4");
    invalid(&|l| l.execute_indirect(&sig, 1, &args, 0, Some((&args, 62))), "not a dword inside a buffer");
    invalid(&|l| l.execute_indirect(&sig, 1, &args, 0, Some((&args, 64))), "not a dword inside a buffer");
    let other_root = d
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, 1), RootParameter::uav(0)]))
        .unwrap();
    let with_root = d.create_command_signature(&constants(0, 1), Some(&other_root)).unwrap();
    invalid(&|l| l.execute_indirect(&with_root, 1, &args, 0, None), "not the bound compute one");
    // Without a pipeline: the dispatch's own error.
    let r = ctx.record(CommandListType::Direct, |l| l.execute_indirect(&sig, 1, &args, 0, None));
    assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
}

//! Helpers of the app-kernel tests: a saxpy kernel and its root signature, pipelines of WGSL,
//! buffers, a one-dispatch runner, and the contexts whose devices run kernels.

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use std::sync::Arc;

use super::{contexts, Ctx};

pub const SAXPY: &str = r#"
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

/// The root signature the suite's kernels share: root constants (b0), t0, u0.
pub fn saxpy_root(device: &Device) -> RootSignature {
    device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, 2),
            RootParameter::srv(0),
            RootParameter::uav(0),
        ]))
        .unwrap()
}

pub fn pipeline(
    device: &Device,
    root: &RootSignature,
    module: &Arc<ShaderModule>,
    entry: &str,
) -> Result<PipelineState> {
    device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader { module: module.clone(), entry_point: entry.into() }),
    }))
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

pub fn bytes_of<T: Copy + Into<Word>>(v: &[T]) -> Vec<u8> {
    v.iter().flat_map(|x| (*x).into().0.to_le_bytes()).collect()
}

/// A 32-bit word of any of the kernels' scalar types.
pub struct Word(u32);
impl From<f32> for Word {
    fn from(v: f32) -> Word {
        Word(v.to_bits())
    }
}
impl From<u32> for Word {
    fn from(v: u32) -> Word {
        Word(v)
    }
}
impl From<i32> for Word {
    fn from(v: i32) -> Word {
        Word(v as u32)
    }
}

/// A root signature of a table of `srvs` SRVs from t0 (parameter 0) and a root UAV u0
/// (parameter 1), the texture tests' common layout.
pub fn srv_table_and_uav_root(device: &Device, srvs: u32) -> RootSignature {
    device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::table(vec![DescriptorRange::new(RegisterClass::Srv, srvs, 0)]),
            RootParameter::uav(0),
        ]))
        .unwrap()
}

/// Binds `pso` and `root`, whose parameter 0 is a table at the start of `heap` and parameter 1
/// a root UAV, given `out`.
pub fn bind_table_and_uav(
    l: &mut CommandList,
    root: &RootSignature,
    pso: &PipelineState,
    heap: &DescriptorHeap,
    out: &Resource,
) {
    l.set_compute_root_signature(root);
    l.set_pipeline_state(pso);
    l.set_descriptor_heaps(&[heap]);
    l.set_compute_root_descriptor_table(0, &heap.gpu_handle(0).unwrap());
    l.set_compute_root_unordered_access_view(1, out.gpu_address(0));
}

/// A default buffer the kernels may write, holding `data`.
pub fn uav_buffer(ctx: &Ctx, data: &[u8]) -> Resource {
    let b = ctx
        .device
        .create_committed_resource(
            HeapType::Default,
            &ResourceDesc::buffer(data.len() as u64).with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS),
            BarrierLayout::Undefined,
        )
        .unwrap();
    let src = ctx.upload(data);
    ctx.run(CommandListType::Direct, |l| l.copy_buffer_region(&b, 0, &src, 0, data.len() as u64));
    b
}

/// Runs `entry` of `wgsl` over `groups` groups with root constants, t0 = `input`, u0 = a
/// buffer holding `output`; returns u0's bytes.
pub fn run(
    ctx: &Ctx,
    wgsl: &str,
    entry: &str,
    groups: [u32; 3],
    constants: &[u32],
    input: &[u8],
    output: &[u8],
) -> Vec<u8> {
    let module = Arc::new(ShaderModule::from_wgsl(wgsl).unwrap());
    let root = ctx
        .device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, constants.len().max(1) as u32),
            RootParameter::srv(0),
            RootParameter::uav(0),
        ]))
        .unwrap();
    let pso = pipeline(&ctx.device, &root, &module, entry).unwrap();
    let x = ctx.default_buffer(input);
    let y = uav_buffer(ctx, output);
    ctx.run(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        if !constants.is_empty() {
            l.set_compute_root_32bit_constants(0, constants, 0);
        }
        l.set_compute_root_shader_resource_view(1, x.gpu_address(0));
        l.set_compute_root_unordered_access_view(2, y.gpu_address(0));
        l.dispatch(groups[0], groups[1], groups[2]);
    });
    ctx.read_buffer(&y)
}

/// The contexts whose devices run the app's kernels, and the error the others give.
pub fn kernel_contexts() -> Vec<(&'static str, Ctx)> {
    contexts()
        .into_iter()
        .filter(|(name, ctx)| {
            let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
            match pipeline(&ctx.device, &saxpy_root(&ctx.device), &module, "main") {
                Ok(_) => true,
                Err(e) => {
                    // Only a device that says so may skip: the Vulkan device, until it runs them.
                    assert_eq!((e.code, *name), (ErrorCode::Unsupported, "vulkan"), "{e}");
                    false
                }
            }
        })
        .collect()
}

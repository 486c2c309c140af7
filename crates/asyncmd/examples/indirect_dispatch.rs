//! `ExecuteIndirect` of an app kernel: each command of the argument buffer sets a root
//! constant (the row it writes) and dispatches as many groups as it says, and a count buffer
//! cuts the call short, as a GPU-driven frame does with the commands a culling pass wrote.
//! The rows are checked against what the commands ask for.
//!
//! `cargo run -p asyncmd --example indirect_dispatch`

use asyncmd::ddi::{AppShader, ComputePipelineDesc, ComputeShader, PipelineDesc};
use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::{Adapter, DeviceFactory, Level, Semantics};
use asyncmd_reference::ReferenceDevice;
use std::sync::Arc;

/// Thread `i` of the dispatch writes `row · 1000 + i` to element `i` of row `row` (64 wide).
const ROWS: &str = r#"
var<immediate> row: u32;                                          // b0: root constants
@group(0) @binding(0) var<storage, read_write> out: array<u32>;  // u0
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    out[row * 64u + id.x] = row * 1000u + id.x;
}
"#;

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn main() -> Result<()> {
    let device =
        DeviceFactory::new().create_device(&Adapter::new(Arc::new(ReferenceDevice::new(Default::default()))))?;
    let queue = device.create_command_queue(CommandListType::Direct)?;
    let root = device
        .create_root_signature(&RootSignatureDesc::new(vec![RootParameter::constants(0, 1), RootParameter::uav(0)]))?;
    let pipeline = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
        root_signature: root.id(),
        cs: ComputeShader::App(AppShader {
            module: Arc::new(ShaderModule::from_wgsl(ROWS)?),
            entry_point: "main".into(),
        }),
    }))?;
    // A command: the root constant `row`, then the three group counts (D3D12_DISPATCH_ARGUMENTS).
    let signature = device.create_command_signature(
        &CommandSignatureDesc {
            byte_stride: 16,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 0, count: 1 },
                IndirectArgument::Dispatch,
            ],
        },
        Some(&root),
    )?;

    let buffer = |heap, len: usize, flags| {
        device.create_committed_resource(
            heap,
            &ResourceDesc::buffer(len as u64).with_flags(flags),
            BarrierLayout::Undefined,
        )
    };
    // Four commands: row r over r + 1 groups of 16 threads; the count says 3, so row 3 stays 0.
    let arguments = buffer(HeapType::Upload, 64, ResourceFlags::empty())?;
    arguments.write(0, &words(&[0, 1, 1, 1, 1, 2, 1, 1, 2, 3, 1, 1, 3, 4, 1, 1]))?;
    let count = buffer(HeapType::Upload, 4, ResourceFlags::empty())?;
    count.write(0, &words(&[3]))?;
    let zeros = buffer(HeapType::Upload, 1024, ResourceFlags::empty())?;
    zeros.write(0, &[0; 1024])?;
    let out = buffer(HeapType::Default, 1024, ResourceFlags::ALLOW_UNORDERED_ACCESS)?;
    let readback = buffer(HeapType::Readback, 1024, ResourceFlags::empty())?;

    // Legacy semantics: the runtime orders the clear, the indirect call and the copy out.
    let mut cb = queue.create_command_buffer(Semantics::Legacy, Level::Primary)?;
    cb.copy_buffer_region(&out, 0, &zeros, 0, 1024);
    cb.set_compute_root_signature(&root);
    cb.set_pipeline_state(&pipeline);
    cb.set_compute_root_unordered_access_view(1, out.gpu_address(0));
    cb.execute_indirect(&signature, 4, &arguments, 0, Some((&count, 0)));
    cb.copy_buffer_region(&readback, 0, &out, 0, 1024);
    cb.submit()?;

    let got: Vec<u32> =
        readback.read_vec(0, 1024)?.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    for row in 0..4u32 {
        let threads = if row < 3 { 16 * (row + 1) } else { 0 };
        let want: Vec<u32> = (0..64).map(|i| if i < threads { row * 1000 + i } else { 0 }).collect();
        if got[row as usize * 64..][..64] != want[..] {
            return Err(Error::fail(MessageId::ExecuteIndirectInvalid, format!("row {row} differs: {:?}", &got[..64])));
        }
    }
    println!(
        "3 of 4 indirect commands ran: row 0 wrote 16 values, row 1 32, row 2 48 (row 2 begins {:?}); row 3 stayed 0",
        &got[128..132]
    );
    Ok(())
}

//! Descriptors a dispatch reads from its tables, read when it is recorded: a list refuses to
//! execute once a `DESCRIPTORS_VOLATILE` descriptor it read was replaced (bundles' reads
//! included), and the debug layer names a static one changed before its list ran.

mod common;

use asyncmd::shader::ShaderModule;
use asyncmd::types::*;
use asyncmd::*;
use common::kernels::*;
use common::*;
use std::sync::Arc;

/// saxpy's table with each range's flags.
fn table_root_with(device: &Device, flags: DescriptorRangeFlags) -> RootSignature {
    let range = |class, register| DescriptorRange { flags, ..DescriptorRange::new(class, 1, register) };
    device
        .create_root_signature(&RootSignatureDesc::new(vec![
            RootParameter::constants(0, 2),
            RootParameter::table(vec![range(RegisterClass::Srv, 0), range(RegisterClass::Uav, 0)]),
        ]))
        .unwrap()
}

/// A list of saxpy (y = 2x + y over 64 floats) through the table at descriptors 0 and 1 of
/// `heap`, closed.
fn saxpy_list(ctx: &Ctx, root: &RootSignature, heap: &DescriptorHeap) -> CommandList {
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let pso = pipeline(&ctx.device, root, &module, "main").unwrap();
    let mut l = ctx.list(CommandListType::Direct);
    l.set_compute_root_signature(root);
    l.set_pipeline_state(&pso);
    l.set_descriptor_heaps(&[heap]);
    l.set_compute_root_32bit_constants(0, &[2.0f32.to_bits(), 64], 0);
    l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
    l.dispatch(1, 1, 1);
    l.close().unwrap();
    l
}

/// A heap of saxpy's x (64 ones, descriptor 0) and y (`first`, descriptor 1), and a second y
/// to write over the first one's descriptor.
struct Table {
    heap: DescriptorHeap,
    _x: Resource,
    first: Resource,
    second: Resource,
}

impl Table {
    fn new(ctx: &Ctx) -> Self {
        let d = &ctx.device;
        let x = ctx.default_buffer(&bytes_of(&[1.0f32; 64]));
        let (first, second) = (uav_buffer(ctx, &[0; 256]), uav_buffer(ctx, &[0; 256]));
        let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 2).unwrap();
        d.create_shader_resource_view(&x, BufferViewDesc::raw(0, 256), &heap.handle(0)).unwrap();
        let table = Table { heap, _x: x, first, second };
        table.point_at(d, false);
        table
    }

    /// Writes y's descriptor: the first buffer's view, or the second's.
    fn point_at(&self, d: &Device, second: bool) {
        let y = if second { &self.second } else { &self.first };
        d.create_unordered_access_view(y, BufferViewDesc::raw(0, 256), &self.heap.handle(1)).unwrap();
    }
}

#[test]
fn volatile_descriptors_replaced_after_recording_refuse_the_execution() {
    for (name, ctx) in kernel_contexts() {
        let d = &ctx.device;
        let root = table_root_with(d, DescriptorRangeFlags::DESCRIPTORS_VOLATILE);
        let t = Table::new(&ctx);
        let list = saxpy_list(&ctx, &root, &t.heap);
        // D3D12 would run the list with `second`; asyncmd read `first` when it recorded.
        t.point_at(d, true);
        let e = assert_error(
            ctx.direct.execute_command_lists(&[&list]),
            ErrorCode::Unsupported,
            MessageId::ExecuteCommandListsInvalid,
        );
        assert!(e.text.contains("descriptor 1 of a DESCRIPTORS_VOLATILE range changed"), "{name}: {}", e.text);
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(f32s(&ctx.read_buffer(&t.first)), vec![0.0; 64], "{name}: the refused list ran");
        // Written back to the view it read, the descriptor is what the dispatch recorded.
        t.point_at(d, false);
        ctx.direct.execute_command_lists(&[&list]).unwrap();
        ctx.direct.wait_idle(TIMEOUT).unwrap();
        assert_eq!(f32s(&ctx.read_buffer(&t.first)), vec![2.0; 64], "{name}");
        assert_eq!(f32s(&ctx.read_buffer(&t.second)), vec![0.0; 64], "{name}");
    }
}

#[test]
fn a_volatile_descriptor_written_after_recording_is_named_when_the_dispatch_is_recorded() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let root = table_root_with(d, DescriptorRangeFlags::DESCRIPTORS_VOLATILE);
    let heap = d.create_shader_visible_descriptor_heap(DescriptorHeapType::CbvSrvUav, 2).unwrap();
    let x = ctx.default_buffer(&[0; 256]);
    d.create_shader_resource_view(&x, BufferViewDesc::raw(0, 256), &heap.handle(0)).unwrap();
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let r = ctx.record(CommandListType::Direct, |l| {
        l.set_compute_root_signature(&root);
        l.set_pipeline_state(&pso);
        l.set_descriptor_heaps(&[&heap]);
        l.set_compute_root_32bit_constants(0, &[0, 64], 0);
        l.set_compute_root_descriptor_table(1, &heap.gpu_handle(0).unwrap());
        l.dispatch(1, 1, 1);
    });
    let e = assert_error(r, ErrorCode::InvalidArg, MessageId::DrawInvalid);
    assert!(
        e.text.contains("uninitialised descriptor") && e.text.contains("DESCRIPTORS_VOLATILE ones too"),
        "{}",
        e.text
    );
}

#[test]
fn a_static_descriptor_changed_before_its_list_runs_is_reported_by_the_debug_layer() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    d.set_debug_layer(true);
    let root = table_root_with(d, DescriptorRangeFlags::empty());
    let t = Table::new(&ctx);
    let list = saxpy_list(&ctx, &root, &t.heap);
    let reported =
        || d.info_queue().messages().iter().filter(|m| m.id == MessageId::DescriptorChangedAfterRecord).count();
    // Rewritten with the same view: unchanged, nothing to report.
    t.point_at(d, false);
    ctx.direct.execute_command_lists(&[&list]).unwrap();
    assert_eq!(reported(), 0);
    // Replaced (D3D12: undefined): reported, and the dispatch runs with the view it read.
    t.point_at(d, true);
    ctx.direct.execute_command_lists(&[&list]).unwrap();
    ctx.direct.wait_idle(TIMEOUT).unwrap();
    assert_eq!(reported(), 1);
    assert_eq!(f32s(&ctx.read_buffer(&t.first)), vec![4.0; 64], "two runs of y = 2x + y");
    assert_eq!(f32s(&ctx.read_buffer(&t.second)), vec![0.0; 64]);
}

#[test]
fn a_bundles_volatile_reads_are_checked_where_its_list_executes() {
    let ctx = Ctx::reference();
    let d = &ctx.device;
    let root = table_root_with(d, DescriptorRangeFlags::DESCRIPTORS_VOLATILE);
    let module = Arc::new(ShaderModule::from_wgsl(SAXPY).unwrap());
    let pso = pipeline(d, &root, &module, "main").unwrap();
    let t = Table::new(&ctx);
    // The bundle reads the table itself.
    let mut bundle = ctx.list(CommandListType::Bundle);
    bundle.set_compute_root_signature(&root);
    bundle.set_pipeline_state(&pso);
    bundle.set_descriptor_heaps(&[&t.heap]);
    bundle.set_compute_root_32bit_constants(0, &[2.0f32.to_bits(), 64], 0);
    bundle.set_compute_root_descriptor_table(1, &t.heap.gpu_handle(0).unwrap());
    bundle.dispatch(1, 1, 1);
    bundle.close().unwrap();
    let mut list = ctx.list(CommandListType::Direct);
    list.set_descriptor_heaps(&[&t.heap]);
    list.execute_bundle(&bundle);
    list.close().unwrap();
    t.point_at(d, true);
    assert_error(
        ctx.direct.execute_command_lists(&[&list]),
        ErrorCode::Unsupported,
        MessageId::ExecuteCommandListsInvalid,
    );
    t.point_at(d, false);
    ctx.direct.execute_command_lists(&[&list]).unwrap();
    ctx.direct.wait_idle(TIMEOUT).unwrap();
    assert_eq!(f32s(&ctx.read_buffer(&t.first)), vec![2.0; 64]);
}

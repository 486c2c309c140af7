//! Descriptor heaps and tables on a list: `SetDescriptorHeaps`,
//! `SetComputeRootDescriptorTable`, and the read of the tables a dispatch uses.

use super::descriptor_reads::DescriptorRead;
use super::semantics::{Subs, Use};
use super::{CommandRecorder, Lists};
use crate::descriptor::{DescriptorHeap, DescriptorHeapType, GpuDescriptorHandle};
use crate::err;
use crate::shadow::RootArg;
use crate::track::hazards::Access;
use asyncmd_ddi::{BoundView, Command, RootParameter, TableView};
use asyncmd_shader::BindingSource;
use asyncmd_types::{MessageId, RegisterClass, Result};

const ANY_SHADER: Lists = Lists::DIRECT.union(Lists::COMPUTE).union(Lists::BUNDLE);
const STATE: MessageId = MessageId::StateSettingInvalid;
/// The most descriptors of one array a dispatch reads (the devices refuse larger arrays).
const MAX_ARRAY: u32 = 1 << 16;

impl CommandRecorder {
    /// `SetDescriptorHeaps`: the shader-visible CBV/SRV/UAV heap and sampler heap (at most one
    /// of each) that descriptor tables point into. Tables set before on a heap no longer set
    /// become undefined, as in D3D12: a dispatch then needs them set again.
    pub fn set_descriptor_heaps(&mut self, heaps: &[&DescriptorHeap]) {
        const API: &str = "SetDescriptorHeaps";
        if !self.begin(API, ANY_SHADER, true) {
            return;
        }
        let r = (|| -> Result<()> {
            for (i, h) in heaps.iter().enumerate() {
                if !h.is_shader_visible() {
                    return Err(err::invalid(STATE, API, format!("heap {i} is not shader-visible")));
                }
                if heaps[..i].iter().any(|o| o.heap_type() == h.heap_type()) {
                    return Err(err::invalid(STATE, API, format!("two {:?} heaps", h.heap_type())));
                }
            }
            Ok(())
        })();
        if !self.check(r) {
            return;
        }
        self.shadow.descriptor_heaps = heaps.iter().map(|h| (*h).clone()).collect();
        let heaps = self.shadow.descriptor_heaps.clone();
        for arg in self.shadow.compute_args.iter_mut().chain(self.shadow.graphics_args.iter_mut()) {
            if let RootArg::Table(t) = arg {
                if !heaps.iter().any(|h| h.same(t.heap())) {
                    *arg = RootArg::Unset;
                }
            }
        }
    }

    /// `SetComputeRootDescriptorTable`: the table of root parameter `parameter` starts at
    /// `table`, in the heap of its kind that `SetDescriptorHeaps` set.
    pub fn set_compute_root_descriptor_table(&mut self, parameter: u32, table: &GpuDescriptorHandle) {
        const API: &str = "SetComputeRootDescriptorTable";
        if !self.begin(API, ANY_SHADER, true) {
            return;
        }
        let r = (|| -> Result<()> {
            let ranges = match Self::root_parameter(API, self.shadow.compute_root.as_ref(), parameter)? {
                RootParameter::Table(ranges, _) => ranges,
                p => return Err(err::invalid(STATE, API, format!("root parameter {parameter} is {p:?}"))),
            };
            let ty = if ranges.iter().all(|r| r.class == RegisterClass::Sampler) {
                DescriptorHeapType::Sampler
            } else {
                DescriptorHeapType::CbvSrvUav
            };
            if table.heap_type() != ty || !self.shadow.descriptor_heaps.iter().any(|h| h.same(table.heap())) {
                return Err(err::invalid(
                    STATE,
                    API,
                    format!("the table is not in the {ty:?} heap SetDescriptorHeaps set"),
                ));
            }
            Ok(())
        })();
        if self.check(r) {
            if let Some(arg) = self.shadow.compute_args.get_mut(parameter as usize) {
                *arg = RootArg::Table(table.clone());
            }
        }
    }

    /// Before a dispatch of an app kernel: checks that the root arguments it reads are set,
    /// reads the buffer views its descriptor tables give it, records them (`SetTableBuffers`)
    /// and, under legacy semantics, their uses. An unset root argument or table, or a
    /// descriptor that is empty, of another class or past its heap is D3D12's undefined
    /// behaviour: here it is an error naming it (`DrawInvalid`).
    pub(crate) fn bind_tables(&mut self, api: &str, supplied: &[usize]) -> Result<()> {
        let Some(app) = self.shadow.pipeline.as_ref().and_then(|p| p.0.app.clone()) else { return Ok(()) };
        let (entry, bound) = &*app;
        // Every root argument the kernel reads must be set (D3D12 leaves an unset one undefined).
        let unset = |parameter: usize, what: &str| {
            err::invalid(
                MessageId::DrawInvalid,
                api,
                format!("root parameter {parameter} ({what}) is not set since the root signature was"),
            )
        };
        let args = &self.shadow.compute_args;
        if let Some(p) = bound.immediates {
            if !matches!(args.get(p), Some(RootArg::Constants(_))) && !supplied.contains(&p) {
                return Err(unset(p, "the kernel's push constants"));
            }
        }
        for (b, source) in entry.bindings.iter().zip(&bound.sources) {
            let set = match *source {
                BindingSource::RootConstants { parameter } => {
                    (matches!(args.get(parameter), Some(RootArg::Constants(_))) || supplied.contains(&parameter))
                        .then_some(())
                        .ok_or(parameter)
                }
                BindingSource::RootDescriptor { parameter } => {
                    matches!(args.get(parameter), Some(RootArg::Uav(_) | RootArg::View(_)))
                        .then_some(())
                        .ok_or(parameter)
                }
                _ => Ok(()),
            };
            if let Err(parameter) = set {
                return Err(unset(parameter, &format!("`{}`", b.name)));
            }
        }
        let mut views = Vec::new();
        let mut uses = Vec::new();
        for (b, source) in entry.bindings.iter().zip(&bound.sources) {
            let BindingSource::Table { parameter, offset, volatile } = *source else { continue };
            let Some(RootArg::Table(table)) = self.shadow.compute_args.get(parameter) else {
                return Err(err::invalid(
                    MessageId::DrawInvalid,
                    api,
                    format!("the descriptor table of root parameter {parameter} (`{}`) is not set", b.name),
                ));
            };
            let when = if volatile {
                " (asyncmd reads a table's descriptors when the dispatch is recorded, \
                 DESCRIPTORS_VOLATILE ones too: write them before)"
            } else {
                ""
            };
            let keep = volatile || self.device.debug_layer();
            // An array of descriptors reads each of its registers' descriptors: every one must
            // be a view the binding can read, as a single binding's must (see decisions.md).
            // (Unbounded arrays never get here: the devices refuse them at pipeline creation.)
            let count = b.count.min(MAX_ARRAY);
            for element in 0..u64::from(count) {
                let offset = offset + element;
                let at = if count > 1 { format!("[{element}]") } else { String::new() };
                let (read, seen) = table
                    .read_slot(offset, b.class, keep)
                    .and_then(|(read, seen)| view_fits(b, &read.view).map(|()| (read, seen)))
                    .map_err(|why| {
                        err::invalid(MessageId::DrawInvalid, api, format!("`{}{at}`: {why}{when}", b.name))
                    })?;
                if let Some(seen) = seen {
                    let table = table.clone();
                    self.descriptor_reads.push(DescriptorRead { table, offset, seen, volatile });
                }
                views.push(TableView { parameter: parameter as u32, offset, view: read.view });
                let access = match b.class {
                    RegisterClass::Uav => Access::COMPUTE_UAV,
                    RegisterClass::Cbv => Access::COMPUTE_CBV,
                    _ => Access::COMPUTE_SRV,
                };
                let Some(resource) = read.resource else { continue };
                let subs = match read.view {
                    BoundView::Texture { view, .. } => view.subresources(resource.desc()),
                    _ => Vec::new(),
                };
                uses.push((resource, access, subs));
            }
        }
        if views.is_empty() {
            return Ok(());
        }
        if self.tracks_uses() {
            // Reads first: a buffer read and written by one dispatch ends written.
            uses.sort_by_key(|(_, a, _)| a.write);
            for (resource, access, subs) in &uses {
                if resource.desc().is_buffer() {
                    self.keep_object(&*resource.shared, || crate::tracked::Tracked::Resource(resource.clone()));
                    self.use_buffer_id(api, resource.id(), *access);
                } else {
                    self.uses(api, &[Use { resource, subs: Subs::List(subs), access: *access }])?;
                }
            }
        }
        self.record(Command::SetTableViews { compute: true, views });
        Ok(())
    }
}

/// Whether a table's view is one the binding can read: a buffer for a buffer, a texture of the
/// shader's shape and texel kind for a texture (and of its declared format for a storage
/// texture), a plain sampler for a sampler. D3D12 leaves a mismatch undefined.
fn view_fits(b: &asyncmd_shader::ShaderBinding, view: &BoundView) -> std::result::Result<(), String> {
    use asyncmd_shader::{BindingKind, TexelKind};
    match (b.kind, view) {
        (BindingKind::Buffer { .. }, BoundView::Buffer { .. }) => Ok(()),
        (BindingKind::Texture { dim, arrayed, texel, format, .. }, BoundView::Texture { view, .. }) => {
            if view.dimension.shape() != (dim, arrayed) {
                return Err(format!(
                    "the shader reads a {dim}D{} texture through a {:?} view",
                    if arrayed { " array" } else { "" },
                    view.dimension
                ));
            }
            if TexelKind::of(view.format) != texel {
                return Err(format!("the shader reads {texel:?} texels from a {} view", view.format));
            }
            match format {
                Some(f) if f != view.format => Err(format!("the shader declares {f} but the view is {}", view.format)),
                _ => Ok(()),
            }
        }
        (BindingKind::Sampler { comparison }, BoundView::Sampler(desc)) => {
            let compares = desc.filter.reduction == asyncmd_types::FilterReduction::Comparison;
            if comparison != compares {
                return Err(format!(
                    "the shader reads a {} sampler through a sampler {} a comparison filter",
                    if comparison { "comparison" } else { "plain" },
                    if compares { "with" } else { "without" }
                ));
            }
            Ok(())
        }
        (want, got) => {
            let wants = match want {
                BindingKind::Buffer { .. } => "a buffer",
                BindingKind::Texture { .. } => "a texture",
                BindingKind::Sampler { .. } => "a sampler",
            };
            let have = match got {
                BoundView::Buffer { .. } => "a buffer view",
                BoundView::Texture { .. } => "a texture view",
                BoundView::Sampler(_) => "a sampler",
            };
            Err(format!("{have} where the shader reads {wants}"))
        }
    }
}

//! Small device objects: heaps, query heaps, root signatures and pipeline states.

use crate::device::{Device, DeviceShared};
use crate::err;
use asyncmd_ddi::{
    ComputePipelineDesc, ComputeShader, HeapId, PipelineDesc, PipelineId, QueryHeapId, RootSignatureDesc,
    RootSignatureId, ShaderId,
};
use asyncmd_types::{CommandListType, MessageId, QueryHeapDesc, QueryHeapType, Result};
use std::sync::Arc;

struct HeapShared {
    device: Arc<DeviceShared>,
    id: HeapId,
    size: u64,
}

impl Drop for HeapShared {
    fn drop(&mut self) {
        self.device.ddi.destroy_heap(self.id);
    }
}

/// Memory for tile mappings (`ID3D12Heap`).
#[derive(Clone)]
pub struct Heap(Arc<HeapShared>);

impl Heap {
    /// What tells this heap from others (its shared state's address).
    pub(crate) fn identity(&self) -> u64 {
        Arc::as_ptr(&self.0) as *const () as u64
    }

    pub(crate) fn create(device: &Device, size: u64) -> Result<Heap> {
        let d = &device.shared;
        let id = d.ddi.create_heap(size).or_else(|e| d.fail(e))?;
        Ok(Heap(Arc::new(HeapShared { device: d.clone(), id, size })))
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.0.size
    }

    pub(crate) fn id(&self) -> HeapId {
        self.0.id
    }
}

pub(crate) struct QueryHeapShared {
    device: Arc<DeviceShared>,
    pub(crate) id: QueryHeapId,
    pub(crate) desc: QueryHeapDesc,
}

impl Drop for QueryHeapShared {
    fn drop(&mut self) {
        self.device.ddi.destroy_query_heap(self.id);
    }
}

/// A query heap (`ID3D12QueryHeap`).
#[derive(Clone)]
pub struct QueryHeap(pub(crate) Arc<QueryHeapShared>);

impl QueryHeap {
    pub(crate) fn create(device: &Device, desc: &QueryHeapDesc) -> Result<QueryHeap> {
        let d = &device.shared;
        if desc.count == 0 {
            return d.fail(err::invalid(
                MessageId::CreateQueryHeapInvalidParameters,
                "CreateQueryHeap",
                "Count must be non-zero",
            ));
        }
        if desc.ty == QueryHeapType::CopyQueueTimestamp && !d.ddi.capabilities().copy_queue_timestamps {
            return d.fail(err::unsupported(
                "CreateQueryHeap",
                "copy lists of this device write no timestamps (CopyQueueTimestampQueriesSupported is false)",
            ));
        }
        let id = d.ddi.create_query_heap(desc).or_else(|e| d.fail(e))?;
        Ok(QueryHeap(Arc::new(QueryHeapShared { device: d.clone(), id, desc: *desc })))
    }

    /// The description.
    pub fn desc(&self) -> &QueryHeapDesc {
        &self.0.desc
    }

    /// Whether queries of this heap may be used on a list of type `ty`.
    pub(crate) fn legal_on(&self, ty: CommandListType) -> bool {
        match ty {
            CommandListType::Copy => self.0.desc.ty == QueryHeapType::CopyQueueTimestamp,
            _ => self.0.desc.ty != QueryHeapType::CopyQueueTimestamp,
        }
    }
}

pub(crate) struct RootSignatureShared {
    /// The driver, not the device: the device's own caches hold root signatures, and a
    /// reference back to it would keep it alive for ever.
    ddi: Arc<dyn asyncmd_ddi::DeviceDdi>,
    pub(crate) id: RootSignatureId,
    pub(crate) desc: RootSignatureDesc,
}

impl Drop for RootSignatureShared {
    fn drop(&mut self) {
        self.ddi.destroy_root_signature(self.id);
    }
}

/// A root signature (`ID3D12RootSignature`).
#[derive(Clone)]
pub struct RootSignature(pub(crate) Arc<RootSignatureShared>);

impl RootSignature {
    pub(crate) fn create(device: &Device, desc: &RootSignatureDesc) -> Result<RootSignature> {
        let d = &device.shared;
        if let Some(why) = desc.invalid_reason() {
            return d.fail(err::invalid(MessageId::CreateRootSignatureInvalid, "CreateRootSignature", why));
        }
        let id = d.ddi.create_root_signature(desc).or_else(|e| d.fail(e))?;
        let root = RootSignature(Arc::new(RootSignatureShared { ddi: d.ddi.clone(), id, desc: desc.clone() }));
        let mut live = d.root_signatures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        live.retain(|_, r| r.strong_count() > 0);
        live.insert(id, Arc::downgrade(&root.0));
        Ok(root)
    }

    /// The live root signature `id` of `device`: what a pipeline description names.
    fn find(device: &DeviceShared, id: RootSignatureId) -> Option<RootSignature> {
        let live = device.root_signatures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        live.get(&id).and_then(std::sync::Weak::upgrade).map(RootSignature)
    }

    /// The driver's id, used in pipeline descriptions.
    pub fn id(&self) -> RootSignatureId {
        self.0.id
    }

    /// The description.
    pub fn desc(&self) -> &RootSignatureDesc {
        &self.0.desc
    }
}

pub(crate) struct PipelineShared {
    /// The driver, not the device (as for root signatures: the fill pipeline and the clear
    /// pipeline cache are the device's own).
    ddi: Arc<dyn asyncmd_ddi::DeviceDdi>,
    pub(crate) id: PipelineId,
    pub(crate) desc: PipelineDesc,
    /// The root signature the description names: draws and dispatches need it bound.
    pub(crate) root: RootSignature,
    /// An app kernel's bindings and where the root signature gives each.
    pub(crate) app: Option<Arc<(asyncmd_shader::EntryPointInfo, asyncmd_shader::RootBindings)>>,
}

impl Drop for PipelineShared {
    fn drop(&mut self) {
        self.ddi.destroy_pipeline(self.id);
    }
}

/// A pipeline state object of built-in shaders (`ID3D12PipelineState`).
#[derive(Clone)]
pub struct PipelineState(pub(crate) Arc<PipelineShared>);

impl PipelineState {
    /// The driver's id (what `SetPipelineState` records).
    pub fn id(&self) -> asyncmd_ddi::PipelineId {
        self.0.id
    }

    pub(crate) fn create(device: &Device, desc: &PipelineDesc) -> Result<PipelineState> {
        let d = &device.shared;
        let err = |t: String| err::invalid(MessageId::CreatePipelineStateInvalid, "CreatePipelineState", t);
        match desc {
            PipelineDesc::Graphics(g) => {
                if !g.vs.is_vertex() || g.ps.is_some_and(|p| !p.is_pixel()) {
                    return d.fail(err("shader stages do not match their slots".into()));
                }
                if g.rtv_formats.len() > 8 {
                    return d.fail(err(format!("{} render targets exceed 8", g.rtv_formats.len())));
                }
                if g.rtv_formats.iter().any(|f| f.is_typeless() || f.is_depth_stencil()) {
                    return d.fail(err("render-target formats must be typed colour formats".into()));
                }
                if g.dsv_format != asyncmd_types::Format::Unknown && !g.dsv_format.is_depth_stencil() {
                    return d.fail(err(format!("{} is not a depth format", g.dsv_format)));
                }
            }
            PipelineDesc::Compute(c) => {
                if c.cs.builtin().is_some_and(|s| !s.is_compute()) {
                    return d.fail(err("a compute pipeline needs a compute shader".into()));
                }
            }
        }
        // After the stage checks: a shader in the wrong slot is named as that.
        let (root_id, shaders) = match desc {
            PipelineDesc::Graphics(g) => (g.root_signature, [Some(g.vs), g.ps]),
            PipelineDesc::Compute(c) => (c.root_signature, [c.cs.builtin(), None]),
        };
        let Some(root) = RootSignature::find(d, root_id) else {
            return d.fail(err(format!("root signature {} is not a live root signature of this device", root_id.0)));
        };
        let mut app_bindings = None;
        if let PipelineDesc::Compute(ComputePipelineDesc { cs: ComputeShader::App(app), .. }) = desc {
            // D3D12 checks the shader against the root signature at creation: every register it
            // uses bound with its class, the limits on groups and groupshared memory.
            let entry = match app.module.entry_point(&app.entry_point, asyncmd_shader::ShaderStage::Compute) {
                Ok(e) => e,
                Err(e) => return d.fail(err(e.text)),
            };
            if let Some(why) = entry.limit_reason() {
                return d.fail(err(why));
            }
            match asyncmd_shader::bind_to_root(entry, root.desc()) {
                Ok(b) => app_bindings = Some(Arc::new((entry.clone(), b))),
                Err(why) => return d.fail(err(why)),
            }
        }
        if let Some(s) = shaders.into_iter().flatten().find(|s| !s.fits_root(&root.desc().parameters)) {
            return d.fail(err(format!(
                "the root signature does not give {s:?} its interface (asyncmd_ddi::shader: parameter 0 its \
                 constants{})",
                if s == ShaderId::FillCs { ", parameter 1 a root UAV" } else { "" }
            )));
        }
        let id = d.ddi.create_pipeline(desc).or_else(|e| d.fail(e))?;
        Ok(PipelineState(Arc::new(PipelineShared {
            ddi: d.ddi.clone(),
            id,
            desc: desc.clone(),
            root,
            app: app_bindings,
        })))
    }

    /// The description.
    pub fn desc(&self) -> &PipelineDesc {
        &self.0.desc
    }
}

//! Descriptor heaps: render-target and depth-stencil views (CPU only), and CBV/SRV/UAV and
//! sampler heaps, which may be shader-visible (`shader_views.rs` writes their views).
//!
//! A descriptor holds the view description and a weak link to its resource: like D3D12, it
//! does not keep the resource alive. Command lists read descriptors when a call is recorded
//! (a descriptor table's when the draw or dispatch that uses it is recorded, which is what the
//! version-1.1 default of static descriptors allows), so the app may rewrite them after.

mod shader_views;

use crate::device::{Device, DeviceShared};
use crate::err;
use crate::resource::{Resource, ResourceShared};
use asyncmd_ddi::{DepthStencilView, RenderTargetView};
use asyncmd_types::{DepthStencilViewDesc, Error, MessageId, RenderTargetViewDesc, ResourceDesc, Result};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// Kind of descriptor heap (`D3D12_DESCRIPTOR_HEAP_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorHeapType {
    /// Render-target views.
    Rtv,
    /// Depth-stencil views.
    Dsv,
    /// Constant buffer, shader resource and unordered access views.
    CbvSrvUav,
    /// Samplers.
    Sampler,
}

/// Most descriptors in a CBV/SRV/UAV heap (resource binding tiers 1 and 2).
pub const MAX_SHADER_VISIBLE_DESCRIPTORS: u32 = 1_000_000;
/// Most samplers in a shader-visible sampler heap.
pub const MAX_SHADER_VISIBLE_SAMPLERS: u32 = 2048;

/// A view written into a descriptor.
#[derive(Clone)]
pub(crate) enum ViewDescriptor {
    Rtv {
        resource: Weak<ResourceShared>,
        desc: RenderTargetViewDesc,
    },
    Dsv {
        resource: Weak<ResourceShared>,
        desc: DepthStencilViewDesc,
    },
    /// A CBV, or a raw, structured or typed SRV or UAV of a buffer: the bytes it spans.
    Buffer {
        resource: Weak<ResourceShared>,
        class: asyncmd_types::RegisterClass,
        offset: u64,
        size: u64,
    },
    /// An SRV or UAV of a texture: the subresources and format it selects.
    Texture {
        resource: Weak<ResourceShared>,
        class: asyncmd_types::RegisterClass,
        view: asyncmd_types::TextureView,
    },
    /// A sampler (in a sampler heap).
    Sampler(asyncmd_types::SamplerDesc),
}

impl ViewDescriptor {
    pub(crate) fn render_target(resource: &Resource, desc: RenderTargetViewDesc) -> Self {
        ViewDescriptor::Rtv { resource: Arc::downgrade(&resource.shared), desc }
    }

    pub(crate) fn depth_stencil(resource: &Resource, desc: DepthStencilViewDesc) -> Self {
        ViewDescriptor::Dsv { resource: Arc::downgrade(&resource.shared), desc }
    }

    /// Whether two shader views view the same thing the same way (a descriptor written again
    /// with what it held is unchanged). Render-target and depth-stencil views, which no table
    /// reads, never compare equal.
    pub(crate) fn same(&self, other: &ViewDescriptor) -> bool {
        use ViewDescriptor as V;
        match (self, other) {
            (
                V::Buffer { resource: a, class: ca, offset: oa, size: sa },
                V::Buffer { resource: b, class: cb, offset: ob, size: sb },
            ) => a.ptr_eq(b) && (ca, oa, sa) == (cb, ob, sb),
            (V::Texture { resource: a, class: ca, view: va }, V::Texture { resource: b, class: cb, view: vb }) => {
                a.ptr_eq(b) && (ca, va) == (cb, vb)
            }
            (V::Sampler(a), V::Sampler(b)) => a == b,
            _ => false,
        }
    }
}

pub(crate) struct HeapShared {
    _device: Arc<DeviceShared>,
    ty: DescriptorHeapType,
    shader_visible: bool,
    slots: Mutex<Vec<Option<ViewDescriptor>>>,
}

/// A CPU descriptor heap (`ID3D12DescriptorHeap` without shader visibility).
#[derive(Clone)]
pub struct DescriptorHeap(Arc<HeapShared>);

impl DescriptorHeap {
    /// What tells this heap from others (its shared state's address).
    pub(crate) fn identity(&self) -> u64 {
        Arc::as_ptr(&self.0) as *const () as u64
    }

    pub(crate) fn create(
        device: &Device,
        ty: DescriptorHeapType,
        count: u32,
        shader_visible: bool,
    ) -> Result<DescriptorHeap> {
        let fail =
            |t: String| device.shared.fail(err::invalid(MessageId::CreateViewInvalidDesc, "CreateDescriptorHeap", t));
        let most = match (ty, shader_visible) {
            (DescriptorHeapType::Rtv | DescriptorHeapType::Dsv, true) => {
                return fail(format!("{ty:?} heaps cannot be shader-visible"));
            }
            (DescriptorHeapType::Sampler, true) => MAX_SHADER_VISIBLE_SAMPLERS,
            (DescriptorHeapType::CbvSrvUav, _) => MAX_SHADER_VISIBLE_DESCRIPTORS,
            _ => 1 << 20,
        };
        if count == 0 || count > most {
            return fail(format!("{count} descriptors (1 to {most} allowed)"));
        }
        let mut slots = Vec::new();
        if slots.try_reserve_exact(count as usize).is_err() {
            return device.shared.fail(Error::out_of_memory(format!("CreateDescriptorHeap: {count} descriptors")));
        }
        slots.resize(count as usize, None);
        Ok(DescriptorHeap(Arc::new(HeapShared {
            _device: device.shared.clone(),
            ty,
            shader_visible,
            slots: Mutex::new(slots),
        })))
    }

    /// The heap's kind.
    pub fn heap_type(&self) -> DescriptorHeapType {
        self.0.ty
    }

    /// Whether shaders read it through descriptor tables.
    pub fn is_shader_visible(&self) -> bool {
        self.0.shader_visible
    }

    /// The GPU handle of descriptor `index` (`GetGPUDescriptorHandleForHeapStart` plus an
    /// offset), for a descriptor table; `None` for a heap that is not shader-visible.
    pub fn gpu_handle(&self, index: u32) -> Option<GpuDescriptorHandle> {
        self.0.shader_visible.then(|| GpuDescriptorHandle { heap: self.0.clone(), index })
    }

    pub(crate) fn same(&self, other: &Arc<HeapShared>) -> bool {
        Arc::ptr_eq(&self.0, other)
    }

    /// Number of descriptors.
    pub fn len(&self) -> u32 {
        self.0.slots.lock().unwrap_or_else(PoisonError::into_inner).len() as u32
    }

    /// Whether the heap has no descriptors (never true: creation needs at least one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The handle of descriptor `index` (`GetCPUDescriptorHandleForHeapStart` plus an offset).
    pub fn handle(&self, index: u32) -> CpuDescriptorHandle {
        CpuDescriptorHandle { heap: self.0.clone(), index }
    }
}

/// A CPU descriptor handle (`D3D12_CPU_DESCRIPTOR_HANDLE`).
#[derive(Clone)]
pub struct CpuDescriptorHandle {
    heap: Arc<HeapShared>,
    index: u32,
}

/// A GPU descriptor handle (`D3D12_GPU_DESCRIPTOR_HANDLE`): where a descriptor table starts in
/// a shader-visible heap.
#[derive(Clone)]
pub struct GpuDescriptorHandle {
    heap: Arc<HeapShared>,
    index: u32,
}

impl std::fmt::Debug for GpuDescriptorHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuDescriptorHandle({:?} #{})", self.heap.ty, self.index)
    }
}

impl PartialEq for GpuDescriptorHandle {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.heap, &other.heap) && self.index == other.index
    }
}

impl GpuDescriptorHandle {
    /// The handle `n` descriptors further on.
    pub fn offset(&self, n: u32) -> GpuDescriptorHandle {
        GpuDescriptorHandle { heap: self.heap.clone(), index: self.index.saturating_add(n) }
    }

    pub(crate) fn heap_type(&self) -> DescriptorHeapType {
        self.heap.ty
    }

    pub(crate) fn heap(&self) -> &Arc<HeapShared> {
        &self.heap
    }
}

impl std::fmt::Debug for CpuDescriptorHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuDescriptorHandle({:?} #{})", self.heap.ty, self.index)
    }
}

/// A render-target view read from a descriptor when it was bound or used, with its resource's
/// description (no reference on the resource: the app keeps it alive, as for any bound target).
#[derive(Clone)]
pub(crate) struct CapturedRtv {
    pub(crate) view: RenderTargetView,
    pub(crate) resource: ResourceDesc,
}

/// A depth-stencil view read from a descriptor, with its resource's description.
#[derive(Clone)]
pub(crate) struct CapturedDsv {
    pub(crate) view: DepthStencilView,
    pub(crate) resource: ResourceDesc,
}

impl CpuDescriptorHandle {
    pub(crate) fn heap_type(&self) -> DescriptorHeapType {
        self.heap.ty
    }

    /// The handle `n` descriptors further on.
    pub fn offset(&self, n: u32) -> CpuDescriptorHandle {
        CpuDescriptorHandle { heap: self.heap.clone(), index: self.index.saturating_add(n) }
    }

    pub(crate) fn write(&self, view: ViewDescriptor) -> Result<()> {
        let mut slots = self.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
        match slots.get_mut(self.index as usize) {
            Some(slot) => {
                *slot = Some(view);
                Ok(())
            }
            None => Err(self.out_of_range()),
        }
    }

    fn out_of_range(&self) -> Error {
        Error::invalid_arg(
            MessageId::InvalidDescriptorHandle,
            format!("descriptor {} is past the end of its heap", self.index),
        )
    }

    fn read(&self) -> Result<ViewDescriptor> {
        let slots = self.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
        match slots.get(self.index as usize) {
            Some(Some(v)) => Ok(v.clone()),
            Some(None) => Err(Error::invalid_arg(
                MessageId::InvalidDescriptorHandle,
                format!("descriptor {} holds no view", self.index),
            )),
            None => Err(self.out_of_range()),
        }
    }

    /// The live resource behind a view's weak link, or the error naming `api`.
    fn live(api: &str, resource: &Weak<ResourceShared>) -> Result<Resource> {
        let shared = resource.upgrade().ok_or_else(|| {
            err::invalid(MessageId::InvalidDescriptorHandle, api, "the view's resource was destroyed")
        })?;
        Ok(Resource { shared })
    }

    fn wrong_kind(api: &str, holds: &str) -> Error {
        err::invalid(MessageId::InvalidDescriptorHandle, api, format!("the descriptor holds a {holds} view"))
    }

    /// Reads a render-target view (for `OMSetRenderTargets`, clears and render passes).
    pub(crate) fn capture_rtv(&self, api: &str) -> Result<(CapturedRtv, Resource)> {
        let prefix = |e: Error| err::invalid(e.id, api, e.text);
        match self.read().map_err(prefix)? {
            ViewDescriptor::Rtv { resource, desc } => {
                let res = Self::live(api, &resource)?;
                let view = RenderTargetView { resource: res.id(), desc };
                Ok((CapturedRtv { view, resource: *res.desc() }, res))
            }
            ViewDescriptor::Dsv { .. } => Err(Self::wrong_kind(api, "depth-stencil")),
            ViewDescriptor::Buffer { .. } => Err(Self::wrong_kind(api, "buffer")),
            ViewDescriptor::Texture { .. } => Err(Self::wrong_kind(api, "shader texture")),
            ViewDescriptor::Sampler(_) => Err(Self::wrong_kind(api, "sampler")),
        }
    }

    /// Reads a depth-stencil view.
    pub(crate) fn capture_dsv(&self, api: &str) -> Result<(CapturedDsv, Resource)> {
        let prefix = |e: Error| err::invalid(e.id, api, e.text);
        match self.read().map_err(prefix)? {
            ViewDescriptor::Dsv { resource, desc } => {
                let res = Self::live(api, &resource)?;
                let view = DepthStencilView { resource: res.id(), desc };
                Ok((CapturedDsv { view, resource: *res.desc() }, res))
            }
            ViewDescriptor::Rtv { .. } => Err(Self::wrong_kind(api, "render-target")),
            ViewDescriptor::Buffer { .. } => Err(Self::wrong_kind(api, "buffer")),
            ViewDescriptor::Texture { .. } => Err(Self::wrong_kind(api, "shader texture")),
            ViewDescriptor::Sampler(_) => Err(Self::wrong_kind(api, "sampler")),
        }
    }
}

//! CPU descriptor heaps for render-target and depth-stencil views.
//!
//! A descriptor holds the view description and a weak link to its resource: like D3D12, it
//! does not keep the resource alive. Command lists read descriptors when a call is recorded,
//! so the app may rewrite them right after.

use crate::device::{Device, DeviceShared};
use crate::err;
use crate::resource::{Resource, ResourceShared};
use asyncmd_ddi::{DepthStencilView, RenderTargetView};
use asyncmd_types::{DepthStencilViewDesc, Error, MessageId, RenderTargetViewDesc, ResourceDesc, Result};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// Kind of descriptor heap (`D3D12_DESCRIPTOR_HEAP_TYPE`, the CPU-only kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorHeapType {
    /// Render-target views.
    Rtv,
    /// Depth-stencil views.
    Dsv,
}

/// A view written into a descriptor.
#[derive(Clone)]
pub(crate) enum ViewDescriptor {
    Rtv { resource: Weak<ResourceShared>, desc: RenderTargetViewDesc },
    Dsv { resource: Weak<ResourceShared>, desc: DepthStencilViewDesc },
}

impl ViewDescriptor {
    pub(crate) fn render_target(resource: &Resource, desc: RenderTargetViewDesc) -> Self {
        ViewDescriptor::Rtv { resource: Arc::downgrade(&resource.shared), desc }
    }

    pub(crate) fn depth_stencil(resource: &Resource, desc: DepthStencilViewDesc) -> Self {
        ViewDescriptor::Dsv { resource: Arc::downgrade(&resource.shared), desc }
    }
}

struct HeapShared {
    _device: Arc<DeviceShared>,
    ty: DescriptorHeapType,
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

    pub(crate) fn create(device: &Device, ty: DescriptorHeapType, count: u32) -> Result<DescriptorHeap> {
        if count == 0 || count > 1 << 20 {
            return device.shared.fail(err::invalid(
                MessageId::CreateViewInvalidDesc,
                "CreateDescriptorHeap",
                format!("{count} descriptors (1 to 2^20 allowed)"),
            ));
        }
        Ok(DescriptorHeap(Arc::new(HeapShared {
            _device: device.shared.clone(),
            ty,
            slots: Mutex::new(vec![None; count as usize]),
        })))
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
        }
    }
}

//! Shader views in CBV/SRV/UAV heaps (`CreateShaderResourceView` and
//! `CreateUnorderedAccessView` of buffers and textures, `CreateConstantBufferView`),
//! `CopyDescriptorsSimple`, and the read of a descriptor table's view when a dispatch is
//! recorded.

use super::{CpuDescriptorHandle, DescriptorHeap, DescriptorHeapType, GpuDescriptorHandle, ViewDescriptor};
use crate::device::Device;
use crate::err;
use crate::resource::Resource;
use asyncmd_ddi::BoundView;
use asyncmd_types::{
    BufferViewDesc, MessageId, RegisterClass, ResourceFlags, Result, SamplerDesc, ShaderViewDesc, TextureViewDesc,
};
use std::sync::{Arc, PoisonError};

/// What a descriptor table gives a binding, read when the dispatch is recorded.
pub(crate) struct TableRead {
    /// The resource viewed (a sampler has none).
    pub(crate) resource: Option<Resource>,
    pub(crate) view: BoundView,
}

impl Device {
    /// `CreateDescriptorHeap` with `D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE`: a CBV/SRV/UAV
    /// heap (up to 1,000,000 descriptors) or a sampler heap (up to 2048) that descriptor tables
    /// point into. RTV and DSV heaps cannot be shader-visible.
    pub fn create_shader_visible_descriptor_heap(&self, ty: DescriptorHeapType, count: u32) -> Result<DescriptorHeap> {
        DescriptorHeap::create(self, ty, count, true)
    }

    fn buffer_view(
        &self,
        api: &str,
        resource: &Resource,
        desc: &BufferViewDesc,
        handle: &CpuDescriptorHandle,
        class: RegisterClass,
    ) -> Result<()> {
        let fail = |t: String| self.shared.fail(err::invalid(MessageId::CreateViewInvalidDesc, api, t));
        if handle.heap_type() != DescriptorHeapType::CbvSrvUav {
            return fail("the handle is not in a CBV/SRV/UAV heap".into());
        }
        if class == RegisterClass::Uav && !resource.desc().flags.contains(ResourceFlags::ALLOW_UNORDERED_ACCESS) {
            return fail("the buffer was created without ALLOW_UNORDERED_ACCESS".into());
        }
        if matches!(desc.kind, asyncmd_types::BufferViewKind::Typed(_)) {
            return self.shared.fail(err::unsupported(api, "typed buffer views are not supported yet"));
        }
        let (offset, size) = match desc.byte_range(resource.desc().width) {
            Ok(r) => r,
            Err(why) => return fail(why),
        };
        let view = ViewDescriptor::Buffer { resource: Arc::downgrade(&resource.shared), class, offset, size };
        handle.write(view).or_else(|e| self.shared.fail(err::invalid(e.id, api, e.text)))
    }

    fn texture_view(
        &self,
        api: &str,
        resource: &Resource,
        desc: &TextureViewDesc,
        handle: &CpuDescriptorHandle,
        class: RegisterClass,
    ) -> Result<()> {
        let fail = |t: String| self.shared.fail(err::invalid(MessageId::CreateViewInvalidDesc, api, t));
        if handle.heap_type() != DescriptorHeapType::CbvSrvUav {
            return fail("the handle is not in a CBV/SRV/UAV heap".into());
        }
        let res = resource.desc();
        if res.is_buffer() {
            return fail("a texture view of a buffer".into());
        }
        if res.is_msaa() {
            return self.shared.fail(err::unsupported(api, "views of multisampled textures are not supported yet"));
        }
        if class == RegisterClass::Uav && !res.flags.contains(ResourceFlags::ALLOW_UNORDERED_ACCESS) {
            return fail("the texture was created without ALLOW_UNORDERED_ACCESS".into());
        }
        if class == RegisterClass::Srv && res.flags.contains(ResourceFlags::DENY_SHADER_RESOURCE) {
            return fail("the texture was created with DENY_SHADER_RESOURCE".into());
        }
        let view = match desc.resolve(res, class == RegisterClass::Uav) {
            Ok(v) => v,
            Err(why) => return fail(why),
        };
        let depth = res.format.has_depth()
            || res.flags.contains(ResourceFlags::ALLOW_DEPTH_STENCIL) && res.format.depth_stencil_member().is_some();
        if depth && !reads_depth_or_stencil(view.format) {
            // Vulkan views a depth image only in its depth format: a uint or snorm member of the
            // family would read bits one device gives and another does not.
            let what = format!(
                "{} views of depth textures are not supported: read the depth as R32_FLOAT, R16_UNORM, \
                 R24_UNORM_X8_TYPELESS or R32_FLOAT_X8X24_TYPELESS, the stencil as X24_TYPELESS_G8_UINT or \
                 X32_TYPELESS_G8X24_UINT",
                view.format
            );
            return self.shared.fail(err::unsupported(api, what));
        }
        let whole_depth = (res.depth() >> view.first_mip).max(1);
        if view.dimension == asyncmd_types::TextureViewDimension::Texture3D && view.slice_count != whole_depth {
            return self
                .shared
                .fail(err::unsupported(api, "views of part of a 3D texture's depth are not supported yet"));
        }
        if !view.has_texels() {
            let what = format!("views of {} textures are not supported yet", view.format);
            return self.shared.fail(err::unsupported(api, what));
        }
        let view = ViewDescriptor::Texture { resource: Arc::downgrade(&resource.shared), class, view };
        handle.write(view).or_else(|e| self.shared.fail(err::invalid(e.id, api, e.text)))
    }

    fn shader_view(
        &self,
        api: &str,
        resource: &Resource,
        desc: ShaderViewDesc,
        handle: &CpuDescriptorHandle,
        class: RegisterClass,
    ) -> Result<()> {
        match desc {
            ShaderViewDesc::Buffer(d) => self.buffer_view(api, resource, &d, handle, class),
            ShaderViewDesc::Texture(d) => self.texture_view(api, resource, &d, handle, class),
        }
    }

    /// `CreateShaderResourceView` (`t` registers): a raw or structured view of a buffer
    /// ([`BufferViewDesc`]), or a view of a texture's mips and slices ([`TextureViewDesc`]).
    pub fn create_shader_resource_view(
        &self,
        resource: &Resource,
        desc: impl Into<ShaderViewDesc>,
        handle: &CpuDescriptorHandle,
    ) -> Result<()> {
        self.shader_view("CreateShaderResourceView", resource, desc.into(), handle, RegisterClass::Srv)
    }

    /// `CreateUnorderedAccessView` (`u` registers) of a resource created with
    /// `ALLOW_UNORDERED_ACCESS`: a raw or structured view of a buffer, or a view of one mip of a
    /// texture (its slices, or for a 3D texture its depth slices).
    pub fn create_unordered_access_view(
        &self,
        resource: &Resource,
        desc: impl Into<ShaderViewDesc>,
        handle: &CpuDescriptorHandle,
    ) -> Result<()> {
        self.shader_view("CreateUnorderedAccessView", resource, desc.into(), handle, RegisterClass::Uav)
    }

    /// `CreateConstantBufferView`: `size` bytes of `resource` from `offset`, both multiples of
    /// 256 (`b` registers).
    pub fn create_constant_buffer_view(
        &self,
        resource: &Resource,
        offset: u64,
        size: u32,
        handle: &CpuDescriptorHandle,
    ) -> Result<()> {
        const API: &str = "CreateConstantBufferView";
        let fail = |t: String| self.shared.fail(err::invalid(MessageId::CreateViewInvalidDesc, API, t));
        if handle.heap_type() != DescriptorHeapType::CbvSrvUav {
            return fail("the handle is not in a CBV/SRV/UAV heap".into());
        }
        if !resource.desc().is_buffer() {
            return fail("a constant buffer view needs a buffer".into());
        }
        if !offset.is_multiple_of(256) || size == 0 || !size.is_multiple_of(256) {
            return fail(format!("offset {offset} and size {size} must be non-zero multiples of 256"));
        }
        if offset.checked_add(u64::from(size)).is_none_or(|end| end > resource.desc().width) {
            return fail(format!("{size} bytes at {offset} pass the buffer's {} bytes", resource.desc().width));
        }
        let view = ViewDescriptor::Buffer {
            resource: Arc::downgrade(&resource.shared),
            class: RegisterClass::Cbv,
            offset,
            size: u64::from(size),
        };
        handle.write(view).or_else(|e| self.shared.fail(err::invalid(e.id, API, e.text)))
    }

    /// `CreateSampler`: writes a sampler into a sampler heap. D3D12's checks: anisotropy 1–16
    /// on anisotropic filters, a level-of-detail range that is one, a bias in −16–15.99, no NaN.
    pub fn create_sampler(&self, desc: &SamplerDesc, handle: &CpuDescriptorHandle) -> Result<()> {
        const API: &str = "CreateSampler";
        let fail = |t: String| self.shared.fail(err::invalid(MessageId::CreateViewInvalidDesc, API, t));
        if handle.heap_type() != DescriptorHeapType::Sampler {
            return fail("the handle is not in a sampler heap".into());
        }
        if let Some(why) = desc.invalid_reason() {
            return fail(why);
        }
        handle.write(ViewDescriptor::Sampler(*desc)).or_else(|e| self.shared.fail(err::invalid(e.id, API, e.text)))
    }

    /// `CopyDescriptorsSimple`: `count` descriptors from `src` to `dst`, both in heaps of `ty`.
    /// Overlapping ranges of one heap copy as if through a temporary.
    pub fn copy_descriptors_simple(
        &self,
        count: u32,
        dst: &CpuDescriptorHandle,
        src: &CpuDescriptorHandle,
        ty: DescriptorHeapType,
    ) -> Result<()> {
        const API: &str = "CopyDescriptorsSimple";
        let fail = |t: String| self.shared.fail(err::invalid(MessageId::InvalidDescriptorHandle, API, t));
        if dst.heap.ty != ty || src.heap.ty != ty {
            return fail(format!("the handles are not both in {ty:?} heaps"));
        }
        let copied: Vec<Option<ViewDescriptor>> = {
            let slots = src.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
            let range = src.index as usize..src.index as usize + count as usize;
            match slots.get(range) {
                Some(s) => s.to_vec(),
                None => return fail(format!("{count} descriptors from {} pass the source heap's end", src.index)),
            }
        };
        let mut slots = dst.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
        match slots.get_mut(dst.index as usize..dst.index as usize + count as usize) {
            Some(d) => {
                d.clone_from_slice(&copied);
                Ok(())
            }
            None => {
                drop(slots);
                fail(format!("{count} descriptors from {} pass the destination heap's end", dst.index))
            }
        }
    }
}

impl Device {
    /// `CopyDescriptors`: the descriptors of `src` ranges (a start and a count each), one after
    /// the other, into the `dst` ranges, one after the other; both sides must hold the same
    /// number, every range within its heap and every heap of type `ty`. Nothing is copied
    /// unless all of it can be: the source descriptors are read first, so ranges may overlap.
    pub fn copy_descriptors(
        &self,
        dst: &[(&CpuDescriptorHandle, u32)],
        src: &[(&CpuDescriptorHandle, u32)],
        ty: DescriptorHeapType,
    ) -> Result<()> {
        const API: &str = "CopyDescriptors";
        let fail = |t: String| self.shared.fail(err::invalid(MessageId::InvalidDescriptorHandle, API, t));
        let total = |ranges: &[(&CpuDescriptorHandle, u32)]| ranges.iter().map(|(_, n)| u64::from(*n)).sum::<u64>();
        if total(dst) != total(src) {
            return fail(format!("the destination ranges hold {} descriptors, the sources {}", total(dst), total(src)));
        }
        if let Some((h, _)) = dst.iter().chain(src).find(|(h, _)| h.heap.ty != ty) {
            return fail(format!("a handle is in a {:?} heap, not {ty:?}", h.heap.ty));
        }
        let mut copied: Vec<Option<ViewDescriptor>> = Vec::new();
        for (h, n) in src {
            let slots = h.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
            match slots.get(h.index as usize..h.index as usize + *n as usize) {
                Some(s) => copied.extend_from_slice(s),
                None => return fail(format!("{n} descriptors from {} pass the source heap's end", h.index)),
            }
        }
        for (h, n) in dst {
            let len = h.heap.slots.lock().unwrap_or_else(PoisonError::into_inner).len();
            if u64::from(h.index) + u64::from(*n) > len as u64 {
                return fail(format!("{n} descriptors from {} pass the destination heap's {len}", h.index));
            }
        }
        let mut next = copied.into_iter();
        for (h, n) in dst {
            let mut slots = h.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
            for slot in &mut slots[h.index as usize..h.index as usize + *n as usize] {
                *slot = next.next().flatten();
            }
        }
        Ok(())
    }
}

impl GpuDescriptorHandle {
    /// The view `offset` descriptors into the table starting here, for a binding of `class`,
    /// and, when `keep` asks, the descriptor it came from (for `still_holds` to compare against
    /// later; a clone the recording's hot path makes only for the reads it keeps): `Err` names
    /// an empty descriptor, one of another class, a destroyed resource, or a place past the
    /// heap's end.
    pub(crate) fn read_slot(
        &self,
        offset: u64,
        class: RegisterClass,
        keep: bool,
    ) -> std::result::Result<(TableRead, Option<ViewDescriptor>), String> {
        let at = u64::from(self.index) + offset;
        let slots = self.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = usize::try_from(at).ok().and_then(|i| slots.get(i));
        let read = view_of(at, slot, slots.len(), class)?;
        // `view_of` succeeded, so the slot holds a view.
        let seen = if keep { slot.cloned().flatten() } else { None };
        Ok((read, seen))
    }

    /// Whether the descriptor `offset` into the table still holds what `seen` was.
    pub(crate) fn still_holds(&self, offset: u64, seen: &ViewDescriptor) -> bool {
        let at = u64::from(self.index) + offset;
        let slots = self.heap.slots.lock().unwrap_or_else(PoisonError::into_inner);
        match usize::try_from(at).ok().and_then(|i| slots.get(i)) {
            Some(Some(now)) => now.same(seen),
            _ => false,
        }
    }

    /// Where descriptor `offset` of the table lies in its heap.
    pub(crate) fn place(&self, offset: u64) -> u64 {
        u64::from(self.index) + offset
    }
}

/// What descriptor `at` of a heap of `len` (`slot`, `None` past the end) gives a binding of
/// `class`.
fn view_of(
    at: u64,
    slot: Option<&Option<ViewDescriptor>>,
    len: usize,
    class: RegisterClass,
) -> std::result::Result<TableRead, String> {
    match slot {
        None => Err(format!("descriptor {at} is past the heap's {len} descriptors")),
        Some(None) => Err(format!("descriptor {at} holds no view (an uninitialised descriptor)")),
        Some(Some(ViewDescriptor::Buffer { resource, class: c, offset, size })) if *c == class => {
            let shared = resource.upgrade().ok_or_else(|| format!("descriptor {at}'s resource was destroyed"))?;
            let resource = Resource { shared };
            let view = BoundView::Buffer { address: resource.gpu_address(*offset), size: *size };
            Ok(TableRead { resource: Some(resource), view })
        }
        Some(Some(ViewDescriptor::Texture { resource, class: c, view })) if *c == class => {
            let shared = resource.upgrade().ok_or_else(|| format!("descriptor {at}'s resource was destroyed"))?;
            let resource = Resource { shared };
            Ok(TableRead {
                view: BoundView::Texture { resource: resource.id(), view: *view },
                resource: Some(resource),
            })
        }
        Some(Some(ViewDescriptor::Buffer { class: c, .. } | ViewDescriptor::Texture { class: c, .. })) => {
            Err(format!("descriptor {at} holds a {c:?} view where the shader reads a {class:?}"))
        }
        Some(Some(ViewDescriptor::Sampler(desc))) if class == RegisterClass::Sampler => {
            Ok(TableRead { resource: None, view: BoundView::Sampler(*desc) })
        }
        Some(Some(ViewDescriptor::Sampler(_))) => Err(format!("descriptor {at} holds a sampler")),
        Some(Some(_)) => Err(format!("descriptor {at} holds a render-target or depth-stencil view")),
    }
}

/// Whether a shader resource view of `format` reads a depth texture's depth or stencil plane.
fn reads_depth_or_stencil(format: asyncmd_types::Format) -> bool {
    use asyncmd_types::Format as F;
    matches!(
        format,
        F::R32Float
            | F::R16Unorm
            | F::R24UnormX8Typeless
            | F::R32FloatX8X24Typeless
            | F::X24TypelessG8Uint
            | F::X32TypelessG8X24Uint
    )
}

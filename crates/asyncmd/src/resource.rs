//! Resources: buffers and textures, with the layouts the debug layer tracks for them.

use crate::device::{Device, DeviceShared};
use crate::err;
use asyncmd_ddi::{FormatSupport, GpuAddress, ResourceCreateInfo, ResourceId};
use asyncmd_types::{BarrierLayout, HeapType, MessageId, ResourceDesc, ResourceFlags, Result};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Whether the runtime tracks the layouts of a resource of `desc`: textures, except
/// simultaneous-access ones (buffers have no layouts; those textures are always `COMMON`).
pub(crate) fn has_layouts(desc: &ResourceDesc) -> bool {
    !desc.is_buffer() && !desc.flags.contains(ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS)
}

// In declaration order: what recording reads of every resource it names (the device, id,
// heap, flags and description) leads, in the cache line or two a batch touches per resource.
#[repr(C)]
pub(crate) struct ResourceShared {
    pub(crate) device: Arc<DeviceShared>,
    pub(crate) id: ResourceId,
    pub(crate) heap: HeapType,
    pub(crate) reserved: bool,
    pub(crate) protected: bool,
    pub(crate) desc: ResourceDesc,
    /// Layout of each subresource as of the last submission (textures whose layouts are
    /// tracked; empty otherwise).
    pub(crate) layouts: Mutex<Vec<BarrierLayout>>,
    /// The last command-buffer work that uses it.
    pub(crate) pending: crate::pending_work::PendingWork,
    /// The last queue that wrote it, for the debug layer.
    pub(crate) last_write: crate::debug::cross_queue::LastWrite,
}

impl Drop for ResourceShared {
    fn drop(&mut self) {
        self.pending.on_drop(&self.device, &format!("Resource {:?}", self.id));
        self.device.ddi.destroy_resource(self.id);
        self.device.live_resources.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// A buffer or texture (`ID3D12Resource`). Cloning shares it; the memory is freed when the last
/// clone goes. Like D3D12, keeping it alive while the GPU uses it is the app's job.
#[derive(Clone)]
pub struct Resource {
    pub(crate) shared: Arc<ResourceShared>,
}

impl std::fmt::Debug for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resource").field("id", &self.shared.id).field("desc", &self.shared.desc).finish()
    }
}

impl Resource {
    pub(crate) fn create(
        device: &Device,
        heap: HeapType,
        desc: &ResourceDesc,
        initial_layout: BarrierLayout,
        reserved: bool,
        protected: bool,
    ) -> Result<Resource> {
        let shared = &device.shared;
        let api = if reserved { "CreateReservedResource" } else { "CreateCommittedResource" };
        let err = |t: String| err::invalid(MessageId::CreateResourceInvalidDesc, api, t);
        if let Err(reason) = desc.validate() {
            return shared.fail(err(reason.into()));
        }
        if desc.is_buffer() {
            if initial_layout != BarrierLayout::Undefined {
                return shared
                    .fail(err(format!("a buffer's initial layout must be UNDEFINED, not {initial_layout:?}")));
            }
        } else {
            if heap != HeapType::Default {
                return shared.fail(err(format!("textures live in DEFAULT heaps, not {heap:?}")));
            }
            if initial_layout == BarrierLayout::Undefined
                && !desc.flags.contains(ResourceFlags::ALLOW_SIMULTANEOUS_ACCESS)
            {
                tracing::debug!("{api}: texture created UNDEFINED; its first barrier must discard");
            }
            let caps = shared.ddi.format_caps(desc.format);
            if desc.is_msaa() && !caps.supports_samples(desc.sample_desc.count) {
                return shared
                    .fail(err(format!("{} samples of {} are not supported", desc.sample_desc.count, desc.format)));
            }
            if desc.sample_desc.quality != 0 {
                return shared.fail(err("only sample quality 0 is supported".into()));
            }
            let usages = [
                (ResourceFlags::ALLOW_RENDER_TARGET, FormatSupport::RENDER_TARGET, "render targets"),
                (ResourceFlags::ALLOW_DEPTH_STENCIL, FormatSupport::DEPTH_STENCIL, "depth-stencil targets"),
            ];
            // A typeless format is checked through the typed views made of it.
            for (flag, support, what) in usages.into_iter().filter(|_| !desc.format.is_typeless()) {
                if desc.flags.contains(flag) && !caps.support.contains(support) {
                    return shared.fail(err(format!("{what} of {} are not supported on this device", desc.format)));
                }
            }
        }
        if reserved {
            if desc.is_msaa() {
                return shared.fail(err("multisampled reserved resources are not supported".into()));
            }
            if shared.ddi.capabilities().tiled_resources_tier == 0 {
                return shared.fail(err::unsupported(api, "the device has no tiled resources"));
            }
        }
        let info = ResourceCreateInfo { heap, initial_layout, reserved, protected };
        let id = shared.ddi.create_resource(desc, &info).or_else(|e| shared.fail(e))?;
        let layouts =
            if has_layouts(desc) { vec![initial_layout; desc.subresource_count() as usize] } else { Vec::new() };
        shared.live_resources.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(Resource {
            shared: Arc::new(ResourceShared {
                device: shared.clone(),
                id,
                desc: *desc,
                heap,
                reserved,
                protected,
                layouts: Mutex::new(layouts),
                pending: Default::default(),
                last_write: Default::default(),
            }),
        })
    }

    /// The description it was created with.
    pub fn desc(&self) -> &ResourceDesc {
        &self.shared.desc
    }

    /// The heap type (committed resources).
    pub fn heap_type(&self) -> HeapType {
        self.shared.heap
    }

    /// Whether it is a reserved (tiled) resource.
    pub fn is_reserved(&self) -> bool {
        self.shared.reserved
    }

    /// Whether it was created in a protected session.
    pub fn is_protected(&self) -> bool {
        self.shared.protected
    }

    /// The driver's id of this resource.
    pub fn id(&self) -> ResourceId {
        self.shared.id
    }

    /// The GPU address of byte `offset` of a buffer (root UAVs, predication).
    pub fn gpu_address(&self, offset: u64) -> GpuAddress {
        GpuAddress { resource: self.shared.id, offset }
    }

    /// Whether two handles are the same resource.
    pub fn same(&self, other: &Resource) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    fn check_host_access(&self, api: &str, offset: u64, len: usize) -> Result<()> {
        let err = |t: String| err::invalid(MessageId::ResourceMapInvalid, api, t);
        let s = &self.shared;
        if s.heap == HeapType::Default || !s.desc.is_buffer() {
            return s.device.fail(err("only UPLOAD and READBACK buffers are CPU-visible".into()));
        }
        if offset.checked_add(len as u64).is_none_or(|end| end > s.desc.width) {
            return s.device.fail(err(format!("bytes {offset}..{offset}+{len} exceed the buffer's {}", s.desc.width)));
        }
        Ok(())
    }

    /// Writes bytes into an UPLOAD or READBACK buffer (`Map`, copy, `Unmap`).
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        self.check_host_access("Map (write)", offset, data.len())?;
        self.shared.device.ddi.write_buffer(self.shared.id, offset, data)
    }

    /// Reads bytes from an UPLOAD or READBACK buffer.
    pub fn read(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.check_host_access("Map (read)", offset, out.len())?;
        self.shared.pending.before_cpu_read(&self.shared.device, "Map (read)")?;
        self.shared.device.ddi.read_buffer(self.shared.id, offset, out)
    }

    /// Reads every sample of one subresource of a multisampled texture to the host: texel by
    /// texel in rows, the samples of a texel next to each other, each the size of the format's
    /// element. Not in D3D12, where no copy reaches samples and only a shader can read them:
    /// this is how tools and tests check what a clear or a draw stored in each sample without
    /// a resolve. Like a map, it waits for submitted legacy work that writes the texture.
    /// Errors: `InvalidArg` for a texture without samples or a subresource out of range,
    /// `Unsupported` where the device cannot read them (the Vulkan device reads colour
    /// formats of 1-, 2-, 4-, 8- and 16-byte texels).
    pub fn read_samples(&self, subresource: u32) -> Result<Vec<u8>> {
        const API: &str = "ReadSamples";
        let s = &self.shared;
        if !s.desc.is_msaa() {
            let e = err::invalid(MessageId::ResourceMapInvalid, API, "the resource has no samples");
            return s.device.fail(e);
        }
        if subresource >= s.desc.subresource_count() {
            return s.device.fail(err::invalid(
                MessageId::InvalidSubresourceIndex,
                API,
                format!("subresource {subresource} of {}", s.desc.subresource_count()),
            ));
        }
        s.pending.before_cpu_read(&s.device, API)?;
        s.device.ddi.read_samples(s.id, subresource).or_else(|e| s.device.fail(e))
    }

    /// Reads `len` bytes from an UPLOAD or READBACK buffer into a new vector.
    pub fn read_vec(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        // The range is checked before anything is allocated, and the allocation may fail.
        self.check_host_access("Map (read)", offset, len)?;
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| crate::err::out_of_memory("Map (read)", format!("cannot allocate {len} bytes on the host")))?;
        v.resize(len, 0);
        self.read(offset, &mut v)?;
        Ok(v)
    }

    /// Layouts as of the last submission; empty for buffers and simultaneous-access textures.
    pub(crate) fn layouts(&self) -> MutexGuard<'_, Vec<BarrierLayout>> {
        self.shared.layouts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current layout of one subresource, as of the last submission (`None` when not
    /// tracked: buffers and simultaneous-access textures).
    pub fn layout(&self, subresource: u32) -> Option<BarrierLayout> {
        self.layouts().get(subresource as usize).copied()
    }
}

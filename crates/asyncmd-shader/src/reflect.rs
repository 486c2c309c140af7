//! What an entry point binds, in D3D12's terms: each resource global it uses as a register of
//! a class (`b`, `t`, `u`, `s`) in a space, from its naga address space and type.
//!
//! The rule, one for every language: a uniform buffer is a CBV; a read-only storage buffer or a
//! sampled texture an SRV; a read-write storage buffer or a storage texture a UAV; a sampler a
//! sampler. The register space is the group (the descriptor set) and the register the binding
//! number, which is what DXC's default `-spirv` output and WGSL both write.

use crate::module::{invalid, ShaderStage};
use asyncmd_types::{Format, RegisterClass, Result, DESCRIPTOR_RANGE_UNBOUNDED};
use naga::valid::{GlobalUse, ModuleInfo};
use naga::{AddressSpace, TypeInner};

/// What kind of resource a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// A buffer: `size` bytes of fixed part, then elements of `stride` bytes if it ends in a
    /// runtime-sized array.
    Buffer {
        /// Bytes before the runtime-sized array (the whole struct without one).
        size: u64,
        /// The runtime-sized array's element stride.
        stride: Option<u32>,
    },
    /// A texture.
    Texture {
        /// Dimensions: 1, 2, 3, or 4 for a cube.
        dim: u8,
        /// An array of textures (`Texture2DArray`).
        arrayed: bool,
        /// Multisampled.
        multisampled: bool,
        /// What a texel reads as: floats, signed or unsigned integers.
        texel: TexelKind,
        /// A storage texture's declared format (`texture_storage_2d<rgba8unorm, write>`); the
        /// view's must be the same.
        format: Option<Format>,
    },
    /// A sampler.
    Sampler {
        /// A comparison sampler.
        comparison: bool,
    },
}

/// What a texture's texels read as in the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexelKind {
    /// Floats (`texture_2d<f32>`; UNORM, SNORM, sRGB and float formats).
    Float,
    /// Signed integers (`texture_2d<i32>`; SINT formats).
    Sint,
    /// Unsigned integers (`texture_2d<u32>`; UINT formats).
    Uint,
}

impl TexelKind {
    /// What texels of `format` read as.
    pub fn of(format: Format) -> TexelKind {
        match format.info().class {
            asyncmd_types::ComponentClass::Uint => TexelKind::Uint,
            asyncmd_types::ComponentClass::Sint => TexelKind::Sint,
            _ => TexelKind::Float,
        }
    }
}

/// The D3D format of a WGSL storage format, where D3D has one.
fn storage_format(f: naga::StorageFormat) -> Option<Format> {
    use naga::StorageFormat as S;
    Some(match f {
        S::R8Unorm => Format::R8Unorm,
        S::R8Snorm => Format::R8Snorm,
        S::R8Uint => Format::R8Uint,
        S::R8Sint => Format::R8Sint,
        S::R16Uint => Format::R16Uint,
        S::R16Sint => Format::R16Sint,
        S::R16Float => Format::R16Float,
        S::R16Unorm => Format::R16Unorm,
        S::R16Snorm => Format::R16Snorm,
        S::Rg8Unorm => Format::R8G8Unorm,
        S::Rg8Snorm => Format::R8G8Snorm,
        S::Rg8Uint => Format::R8G8Uint,
        S::Rg8Sint => Format::R8G8Sint,
        S::R32Uint => Format::R32Uint,
        S::R32Sint => Format::R32Sint,
        S::R32Float => Format::R32Float,
        S::Rg16Uint => Format::R16G16Uint,
        S::Rg16Sint => Format::R16G16Sint,
        S::Rg16Float => Format::R16G16Float,
        S::Rg16Unorm => Format::R16G16Unorm,
        S::Rg16Snorm => Format::R16G16Snorm,
        S::Rgba8Unorm => Format::R8G8B8A8Unorm,
        S::Rgba8Snorm => Format::R8G8B8A8Snorm,
        S::Rgba8Uint => Format::R8G8B8A8Uint,
        S::Rgba8Sint => Format::R8G8B8A8Sint,
        S::Bgra8Unorm => Format::B8G8R8A8Unorm,
        S::Rgb10a2Uint => Format::R10G10B10A2Uint,
        S::Rgb10a2Unorm => Format::R10G10B10A2Unorm,
        S::Rg11b10Ufloat => Format::R11G11B10Float,
        S::Rg32Uint => Format::R32G32Uint,
        S::Rg32Sint => Format::R32G32Sint,
        S::Rg32Float => Format::R32G32Float,
        S::Rgba16Uint => Format::R16G16B16A16Uint,
        S::Rgba16Sint => Format::R16G16B16A16Sint,
        S::Rgba16Float => Format::R16G16B16A16Float,
        S::Rgba16Unorm => Format::R16G16B16A16Unorm,
        S::Rgba16Snorm => Format::R16G16B16A16Snorm,
        S::Rgba32Uint => Format::R32G32B32A32Uint,
        S::Rgba32Sint => Format::R32G32B32A32Sint,
        S::Rgba32Float => Format::R32G32B32A32Float,
        _ => return None,
    })
}

/// One register range an entry point reads or writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderBinding {
    /// The global's name, for messages.
    pub name: String,
    /// The class.
    pub class: RegisterClass,
    /// The space (naga's group).
    pub space: u32,
    /// The first register (naga's binding).
    pub register: u32,
    /// Registers it spans: 1, or the size of a binding array.
    pub count: u32,
    /// Whether the module indexes it (an array) by a value rather than a constant.
    pub indexed: bool,
    /// What it is.
    pub kind: BindingKind,
    /// Whether the entry point writes it (stores or atomics).
    pub writes: bool,
    /// The index of its global variable in the naga module.
    pub global: usize,
}

/// One entry point: its stage, group size and bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPointInfo {
    /// Its name.
    pub name: String,
    /// Its stage.
    pub stage: ShaderStage,
    /// Its index among the module's entry points.
    pub index: usize,
    /// Threads per group in x, y and z (compute).
    pub workgroup_size: [u32; 3],
    /// Bytes of workgroup memory it uses.
    pub workgroup_bytes: u64,
    /// Bytes of its push-constant block, if it has one: root constants.
    pub immediate_bytes: Option<u32>,
    /// The resources it uses.
    pub bindings: Vec<ShaderBinding>,
}

/// D3D12's group limits: 1024 threads, x and y at most 1024, z at most 64.
pub const MAX_THREADS_PER_GROUP: u64 = 1024;
/// D3D12's workgroup (groupshared) memory limit.
pub const MAX_WORKGROUP_BYTES: u64 = 32 << 10;

impl EntryPointInfo {
    /// Why a pipeline of this entry point breaks D3D12's limits, if it does.
    pub fn limit_reason(&self) -> Option<String> {
        let [x, y, z] = self.workgroup_size;
        let threads = u64::from(x) * u64::from(y) * u64::from(z);
        if self.stage == ShaderStage::Compute && (threads > MAX_THREADS_PER_GROUP || x > 1024 || y > 1024 || z > 64) {
            return Some(format!(
                "{x}×{y}×{z} threads a group exceed D3D12's limits (1024 in all; x, y ≤ 1024; z ≤ 64)"
            ));
        }
        if self.workgroup_bytes > MAX_WORKGROUP_BYTES {
            return Some(format!(
                "{} bytes of workgroup memory exceed D3D12's {MAX_WORKGROUP_BYTES}",
                self.workgroup_bytes
            ));
        }
        None
    }
}

/// Reflects entry point `index`; `None` for stages asyncmd does not run (mesh, task, ray).
pub(crate) fn reflect_entry_point(
    module: &naga::Module,
    info: &ModuleInfo,
    index: usize,
) -> Result<Option<EntryPointInfo>> {
    let ep = &module.entry_points[index];
    let Some(stage) = ShaderStage::from_naga(ep.stage) else { return Ok(None) };
    let uses = info.get_entry_point(index);
    let gctx = module.to_ctx();
    let mut e = EntryPointInfo {
        name: ep.name.clone(),
        stage,
        index,
        workgroup_size: ep.workgroup_size,
        workgroup_bytes: 0,
        immediate_bytes: None,
        bindings: Vec::new(),
    };
    for (handle, var) in module.global_variables.iter() {
        let used = uses[handle];
        if used.is_empty() {
            continue;
        }
        let name = var.name.clone().unwrap_or_else(|| format!("global {}", handle.index()));
        let ty = &module.types[var.ty];
        match var.space {
            AddressSpace::Function | AddressSpace::Private => {}
            AddressSpace::WorkGroup => e.workgroup_bytes += u64::from(ty.inner.size(gctx)),
            AddressSpace::Immediate => e.immediate_bytes = Some(ty.inner.size(gctx)),
            AddressSpace::Uniform | AddressSpace::Storage { .. } | AddressSpace::Handle => {
                let Some(binding) = &var.binding else {
                    return Err(invalid(format!("{name} is a resource with no binding")));
                };
                let (class, count, kind) = classify(module, var.space, var.ty)
                    .ok_or_else(|| invalid(format!("{name}: asyncmd cannot bind a {:?} here", ty.inner)))?;
                e.bindings.push(ShaderBinding {
                    name,
                    class,
                    space: binding.group,
                    register: binding.binding,
                    count,
                    indexed: indexed_by_value(module, handle),
                    kind,
                    writes: used.intersects(GlobalUse::WRITE | GlobalUse::ATOMIC),
                    global: handle.index(),
                });
            }
            other => return Err(invalid(format!("{name}: the {other:?} address space is not supported"))),
        }
    }
    e.bindings.sort_by_key(|b| (b.class, b.space, b.register));
    Ok(Some(e))
}

/// The class, register count and kind of a resource global of `space` and type `ty`.
fn classify(
    module: &naga::Module,
    space: AddressSpace,
    ty: naga::Handle<naga::Type>,
) -> Option<(RegisterClass, u32, BindingKind)> {
    let gctx = module.to_ctx();
    let inner = &module.types[ty].inner;
    if let TypeInner::BindingArray { base, size } = *inner {
        let count = match size {
            naga::ArraySize::Constant(n) => n.get(),
            // An unbounded array spans every register from its base.
            _ => DESCRIPTOR_RANGE_UNBOUNDED,
        };
        let (class, _, kind) = classify(module, space, base)?;
        return Some((class, count, kind));
    }
    match space {
        AddressSpace::Uniform => {
            Some((RegisterClass::Cbv, 1, BindingKind::Buffer { size: inner.size(gctx).into(), stride: None }))
        }
        AddressSpace::Storage { access } => {
            let class =
                if access.contains(naga::StorageAccess::STORE) { RegisterClass::Uav } else { RegisterClass::Srv };
            Some((class, 1, buffer_kind(module, inner)))
        }
        AddressSpace::Handle => match *inner {
            TypeInner::Image { dim, arrayed, class } => {
                let dim = match dim {
                    naga::ImageDimension::D1 => 1,
                    naga::ImageDimension::D2 => 2,
                    naga::ImageDimension::D3 => 3,
                    naga::ImageDimension::Cube => 4,
                };
                let scalar = |k: naga::ScalarKind| match k {
                    naga::ScalarKind::Sint => TexelKind::Sint,
                    naga::ScalarKind::Uint => TexelKind::Uint,
                    _ => TexelKind::Float,
                };
                let (class, multisampled, texel, format) = match class {
                    naga::ImageClass::Sampled { multi, kind } => (RegisterClass::Srv, multi, scalar(kind), None),
                    naga::ImageClass::Depth { multi } => (RegisterClass::Srv, multi, TexelKind::Float, None),
                    naga::ImageClass::Storage { format, .. } => {
                        let format = storage_format(format)?;
                        (RegisterClass::Uav, false, TexelKind::of(format), Some(format))
                    }
                    naga::ImageClass::External => return None,
                };
                Some((class, 1, BindingKind::Texture { dim, arrayed, multisampled, texel, format }))
            }
            TypeInner::Sampler { comparison } => Some((RegisterClass::Sampler, 1, BindingKind::Sampler { comparison })),
            _ => None,
        },
        _ => None,
    }
}

/// Whether some function indexes global `g` with an `Access` (a value), not an `AccessIndex`.
fn indexed_by_value(module: &naga::Module, g: naga::Handle<naga::GlobalVariable>) -> bool {
    let functions = module.functions.iter().map(|(_, f)| f).chain(module.entry_points.iter().map(|e| &e.function));
    functions.into_iter().any(|f| {
        f.expressions.iter().any(|(_, e)| match *e {
            naga::Expression::Access { base, .. } => {
                matches!(f.expressions[base], naga::Expression::GlobalVariable(v) if v == g)
            }
            _ => false,
        })
    })
}

fn buffer_kind(module: &naga::Module, inner: &TypeInner) -> BindingKind {
    let gctx = module.to_ctx();
    match inner {
        TypeInner::Array { size: naga::ArraySize::Dynamic, stride, .. } => {
            BindingKind::Buffer { size: 0, stride: Some(*stride) }
        }
        TypeInner::Struct { members, span } => {
            let last = members.last().map(|m| (&module.types[m.ty].inner, m.offset));
            match last {
                Some((TypeInner::Array { size: naga::ArraySize::Dynamic, stride, .. }, offset)) => {
                    BindingKind::Buffer { size: offset.into(), stride: Some(*stride) }
                }
                _ => BindingKind::Buffer { size: (*span).into(), stride: None },
            }
        }
        other => BindingKind::Buffer { size: other.size(gctx).into(), stride: None },
    }
}

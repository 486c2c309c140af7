//! A shader module: source parsed by naga's front ends, validated once, reflected per entry
//! point.

use crate::reflect::{reflect_entry_point, EntryPointInfo};
use asyncmd_types::{Error, MessageId, Result};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

const API: &str = "CreateShaderModule";

/// The language a module was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// WGSL.
    Wgsl,
    /// SPIR-V binary (for HLSL: `dxc -spirv`).
    SpirV,
    /// GLSL 440 or later, Vulkan semantics.
    Glsl,
}

/// A shader stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderStage {
    /// A compute shader.
    Compute,
    /// A vertex shader.
    Vertex,
    /// A pixel (fragment) shader.
    Pixel,
}

impl ShaderStage {
    pub(crate) fn from_naga(stage: naga::ShaderStage) -> Option<Self> {
        match stage {
            naga::ShaderStage::Compute => Some(ShaderStage::Compute),
            naga::ShaderStage::Vertex => Some(ShaderStage::Vertex),
            naga::ShaderStage::Fragment => Some(ShaderStage::Pixel),
            _ => None,
        }
    }

    fn to_naga(self) -> naga::ShaderStage {
        match self {
            ShaderStage::Compute => naga::ShaderStage::Compute,
            ShaderStage::Vertex => naga::ShaderStage::Vertex,
            ShaderStage::Pixel => naga::ShaderStage::Fragment,
        }
    }
}

/// A validated module of the app's shaders.
///
/// Validation runs once, here: a module that exists is one naga accepts, so the devices compile
/// it without checking it again. Two resources on one group and binding are allowed (naga's
/// `BINDINGS` check is off): DXC puts every register class of one number in one binding, and
/// asyncmd tells them apart by class.
#[derive(Debug)]
pub struct ShaderModule {
    module: naga::Module,
    info: ModuleInfo,
    language: Language,
    entry_points: Vec<EntryPointInfo>,
    non_uniform_indexing: bool,
}

/// Arrays of descriptors (`binding_array`, HLSL `Texture2D t[4]`): of textures and samplers
/// indexed by any value, of buffers by a dynamically uniform one (what D3D12 allows without
/// `NonUniformResourceIndex` on buffers and what the Vulkan device can push).
const ARRAYS: Capabilities = Capabilities::TEXTURE_AND_SAMPLER_BINDING_ARRAY
    .union(Capabilities::STORAGE_TEXTURE_BINDING_ARRAY)
    .union(Capabilities::BUFFER_BINDING_ARRAY)
    .union(Capabilities::STORAGE_BUFFER_BINDING_ARRAY);
/// What modules may use: naga's capabilities the validator allows (push constants, arrays of
/// descriptors, cube arrays); a device compiling a module it changed validates it with these too.
pub const CAPABILITIES: Capabilities =
    Capabilities::IMMEDIATES.union(ARRAYS).union(NON_UNIFORM).union(Capabilities::CUBE_ARRAY_TEXTURES);
/// Indexing arrays of textures and samplers with a value that differs between threads.
const NON_UNIFORM: Capabilities = Capabilities::TEXTURE_AND_SAMPLER_BINDING_ARRAY_NON_UNIFORM_INDEXING
    .union(Capabilities::STORAGE_TEXTURE_BINDING_ARRAY_NON_UNIFORM_INDEXING);

impl ShaderModule {
    /// A module from WGSL source.
    pub fn from_wgsl(source: &str) -> Result<Self> {
        guarded("WGSL", || Self::parse_wgsl(source))
    }

    fn parse_wgsl(source: &str) -> Result<Self> {
        let module = naga::front::wgsl::parse_str(source).map_err(|e| {
            let at = e.location(source).map(|l| format!(" line {}, column {}", l.line_number, l.line_position));
            invalid(format!("WGSL{}: {}", at.unwrap_or_default(), e.message()))
        })?;
        Self::validate(module, Language::Wgsl, Some(source))
    }

    /// A module from a SPIR-V binary (little-endian words, as `dxc -spirv` and `glslc` write
    /// them).
    pub fn from_spirv(bytes: &[u8]) -> Result<Self> {
        guarded("SPIR-V", || Self::parse_spirv(bytes))
    }

    fn parse_spirv(bytes: &[u8]) -> Result<Self> {
        if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
            return Err(invalid(format!("SPIR-V: {} bytes are not a module (a header is 5 words)", bytes.len())));
        }
        let options = naga::front::spv::Options {
            adjust_coordinate_space: false,
            strict_capabilities: true,
            block_ctx_dump_prefix: None,
        };
        let module = naga::front::spv::parse_u8_slice(bytes, &options).map_err(|e| invalid(format!("SPIR-V: {e}")))?;
        Self::validate(module, Language::SpirV, None)
    }

    /// A module from GLSL source (version 440 or later, Vulkan semantics) of one stage.
    pub fn from_glsl(source: &str, stage: ShaderStage) -> Result<Self> {
        guarded("GLSL", || Self::parse_glsl(source, stage))
    }

    fn parse_glsl(source: &str, stage: ShaderStage) -> Result<Self> {
        let mut frontend = naga::front::glsl::Frontend::default();
        let module = frontend.parse(&naga::front::glsl::Options::from(stage.to_naga()), source).map_err(|errors| {
            let first = errors.errors.first();
            let at = first.and_then(|e| e.location(source));
            let at = at.map(|l| format!(" line {}, column {}", l.line_number, l.line_position)).unwrap_or_default();
            let text = first.map(|e| e.kind.to_string()).unwrap_or_else(|| "it does not parse".into());
            invalid(format!("GLSL{at}: {text}"))
        })?;
        Self::validate(module, Language::Glsl, Some(source))
    }

    fn validate(module: naga::Module, language: Language, source: Option<&str>) -> Result<Self> {
        let flags = ValidationFlags::all() - ValidationFlags::BINDINGS;
        let caps = CAPABILITIES;
        let info = Validator::new(flags, caps).validate(&module).map_err(|e| {
            let at = source
                .and_then(|s| e.location(s))
                .map(|l| format!(" line {}, column {}", l.line_number, l.line_position))
                .unwrap_or_default();
            // naga's validation errors nest: the outer one names the function, the inner ones
            // the cause; say them all.
            let mut text = e.as_inner().to_string();
            let mut cause = std::error::Error::source(e.as_inner());
            while let Some(c) = cause {
                text.push_str(": ");
                text.push_str(&c.to_string());
                cause = c.source();
            }
            invalid(format!("{language:?}{at}: {text}"))
        })?;
        // Overrides (WGSL `override`, SPIR-V specialization constants) take their defaults:
        // pipelines have no way to set them yet.
        let (module, info) = if module.overrides.is_empty() {
            (module, info)
        } else {
            let (m, i) = naga::back::pipeline_constants::process_overrides(&module, &info, None, &Default::default())
                .map_err(|e| invalid(format!("{language:?}: an override has no value: {e}")))?;
            (m.into_owned(), i.into_owned())
        };
        // Whether some index into an array of descriptors differs between threads: a device
        // needs descriptor indexing for that (Vulkan's `shader*ArrayNonUniformIndexing`).
        let non_uniform_indexing =
            module.types.iter().any(|(_, t)| matches!(t.inner, naga::TypeInner::BindingArray { .. }))
                && Validator::new(flags, caps - NON_UNIFORM).validate(&module).is_err();
        let mut entry_points = Vec::with_capacity(module.entry_points.len());
        for index in 0..module.entry_points.len() {
            if let Some(e) = reflect_entry_point(&module, &info, index)? {
                entry_points.push(e);
            }
        }
        Ok(Self { module, info, language, entry_points, non_uniform_indexing })
    }

    /// The language it was written in.
    pub fn language(&self) -> Language {
        self.language
    }

    /// Whether the module indexes an array of textures or samplers with a value that may differ
    /// between the threads of a dispatch (HLSL's `NonUniformResourceIndex`).
    pub fn non_uniform_indexing(&self) -> bool {
        self.non_uniform_indexing
    }

    /// The entry points of the stages asyncmd runs.
    pub fn entry_points(&self) -> &[EntryPointInfo] {
        &self.entry_points
    }

    /// The entry point `name` of `stage`; `InvalidArg` naming the ones there are if none is.
    pub fn entry_point(&self, name: &str, stage: ShaderStage) -> Result<&EntryPointInfo> {
        self.entry_points.iter().find(|e| e.name == name && e.stage == stage).ok_or_else(|| {
            let there: Vec<String> = self.entry_points.iter().map(|e| format!("{} ({:?})", e.name, e.stage)).collect();
            Error::invalid_arg(
                MessageId::CreateShaderModuleInvalid,
                format!(
                    "CreatePipelineState: the module has no {stage:?} entry point \"{name}\" (it has: {})",
                    if there.is_empty() { "none".to_string() } else { there.join(", ") }
                ),
            )
        })
    }

    /// naga's module and its validation info, for the devices' compilers.
    pub fn naga(&self) -> (&naga::Module, &ModuleInfo) {
        (&self.module, &self.info)
    }
}

/// Runs a front end, the validator and the reflection, turning a panic inside naga into
/// `InvalidArg`: naga 30's SPIR-V reader unwraps on some malformed modules (the
/// `modules::random_truncated_and_flipped_modules_are_refused_without_a_panic` test finds them),
/// and a bad module must never take the app down. Everything the closure builds is dropped on a
/// panic, so no half-made state escapes; naga's message still goes to the panic hook.
fn guarded(language: &str, parse: impl FnOnce() -> Result<ShaderModule>) -> Result<ShaderModule> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(invalid(format!("{language}: naga failed on this module ({why})")))
    })
}

pub(crate) fn invalid(text: String) -> Error {
    Error::invalid_arg(MessageId::CreateShaderModuleInvalid, format!("{API}: {text}"))
}

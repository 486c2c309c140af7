//! The app's shader modules for asyncmd.
//!
//! A [`ShaderModule`] is WGSL, SPIR-V (HLSL through `dxc -spirv`) or GLSL parsed by naga's front
//! ends and validated once; a module that does not parse or validate is `InvalidArg` with
//! naga's diagnostic, line and column where the language has them, whatever the bytes.
//! [`EntryPointInfo`] says what an entry point binds in D3D12's register classes
//! ([`reflect`]'s rule), and [`bind_to_root`] checks it against a root signature and says where
//! each binding comes from, for the devices.

mod bind;
mod module;
pub mod reflect;

pub use bind::{bind_to_root, BindingSource, RootBindings};
pub use module::{Language, ShaderModule, ShaderStage, CAPABILITIES};
pub use naga;
pub use reflect::{BindingKind, EntryPointInfo, ShaderBinding, TexelKind};

//! Command signatures and `ExecuteIndirect` of dispatches: commands the GPU reads from a
//! buffer, each setting root constants and dispatching, as many as a count buffer says.

use super::CommandRecorder;
use crate::device::Device;
use crate::err;
use crate::objects::RootSignature;
use crate::resource::Resource;
use crate::shadow::RootArg;
use crate::track::hazards::Access;
use asyncmd_ddi::Command;
use asyncmd_types::{CommandListType, CommandSignatureDesc, IndirectArgument, MessageId, Result};
use std::sync::Arc;

/// A command signature (`ID3D12CommandSignature`): what each command of an argument buffer
/// holds, and the root signature its root-constant arguments write into.
#[derive(Clone)]
pub struct CommandSignature {
    desc: Arc<CommandSignatureDesc>,
    root: Option<RootSignature>,
}

impl std::fmt::Debug for CommandSignature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandSignature").field("desc", &self.desc).finish_non_exhaustive()
    }
}

impl CommandSignature {
    /// The description.
    pub fn desc(&self) -> &CommandSignatureDesc {
        &self.desc
    }
}

impl Device {
    /// `CreateCommandSignature`: D3D12's checks (`CommandSignatureDesc::invalid_reason`),
    /// then the device's: one whose commands set root constants needs a device that reads
    /// them from memory (`Capabilities::indirect_root_constants`), or it is `Unsupported`.
    pub fn create_command_signature(
        &self,
        desc: &CommandSignatureDesc,
        root: Option<&RootSignature>,
    ) -> Result<CommandSignature> {
        const API: &str = "CreateCommandSignature";
        if let Some(why) = desc.invalid_reason(root.map(|r| r.desc())) {
            return self.shared.fail(err::invalid(MessageId::CreateCommandSignatureInvalid, API, why));
        }
        if desc.changes_root_arguments() && !self.shared.ddi.capabilities().indirect_root_constants {
            return self
                .shared
                .fail(err::unsupported(API, "this device sets no root constants from an argument buffer"));
        }
        Ok(CommandSignature { desc: Arc::new(desc.clone()), root: root.cloned() })
    }
}

impl CommandRecorder {
    /// `ExecuteIndirect` of dispatches: up to `max_count` commands of `signature` from
    /// `arguments` at `offset`, `byte_stride` apart; as many as the `u32` at `count` says
    /// (`min(count, max_count)`) where one is given. The buffers are read when the GPU runs the
    /// list. Errors (`ExecuteIndirectInvalid`): arguments past their buffer, offsets not
    /// multiples of 4, textures for buffers, or a signature whose root signature is not the
    /// bound one. A command whose group counts pass 65535 in a dimension dispatches nothing
    /// (D3D12 leaves it undefined). The root constants its commands write are unset after.
    pub fn execute_indirect(
        &mut self,
        signature: &CommandSignature,
        max_count: u32,
        arguments: &Resource,
        offset: u64,
        count: Option<(&Resource, u64)>,
    ) {
        const API: &str = "ExecuteIndirect";
        let invalid = |t: String| err::invalid(MessageId::ExecuteIndirectInvalid, API, t);
        let checked = (|| {
            let sig = &signature.desc;
            if !arguments.desc().is_buffer() || !offset.is_multiple_of(4) {
                return Err(invalid(format!("the arguments need a buffer and an offset multiple of 4, not {offset}")));
            }
            if max_count > 0 {
                let end = u64::from(max_count - 1)
                    .checked_mul(u64::from(sig.byte_stride))
                    .and_then(|s| s.checked_add(offset))
                    .and_then(|s| s.checked_add(sig.command_bytes()));
                if end.is_none_or(|end| end > arguments.desc().width) {
                    return Err(invalid(format!(
                        "{max_count} commands of {} bytes, {} apart, from {offset} pass the buffer's {} bytes",
                        sig.command_bytes(),
                        sig.byte_stride,
                        arguments.desc().width
                    )));
                }
            }
            if let Some((c, at)) = count {
                if !c.desc().is_buffer()
                    || !at.is_multiple_of(4)
                    || at.checked_add(4).is_none_or(|e| e > c.desc().width)
                {
                    return Err(invalid(format!("the count at {at} is not a dword inside a buffer")));
                }
            }
            if self.ty == CommandListType::Bundle {
                // D3D12's bundle rules: the commands' count is the call's, and they dispatch only.
                if count.is_some() {
                    return Err(invalid("a bundle's ExecuteIndirect takes no count buffer".into()));
                }
                if sig.changes_root_arguments() {
                    return Err(invalid("a bundle's command signature holds its dispatch alone".into()));
                }
            }
            if let Some(root) = &signature.root {
                if self.shadow.compute_root.as_ref().map(|r| r.id()) != Some(root.id()) {
                    return Err(invalid("the signature's root signature is not the bound compute one".into()));
                }
            }
            Ok(())
        })();
        if let Err(e) = checked {
            if self.begin(API, super::Lists::DIRECT.union(super::Lists::COMPUTE).union(super::Lists::BUNDLE), false) {
                self.remove(e);
            }
            return;
        }
        if self.ty == CommandListType::Bundle && self.reads_inherited_arguments() {
            // The executing list's root signature, arguments and tables: checked and read there.
            if self.begin(API, super::Lists::BUNDLE, false) {
                self.defer_bundled_clear(super::bundle_clear::BundledClear::ExecuteIndirect {
                    signature: signature.clone(),
                    max_count,
                    arguments: arguments.clone(),
                    offset,
                });
            }
            return;
        }
        let supplied: Vec<usize> = signature
            .desc
            .arguments
            .iter()
            .filter_map(|a| match *a {
                IndirectArgument::Constant { root_parameter, .. } => Some(root_parameter as usize),
                IndirectArgument::Dispatch => None,
            })
            .collect();
        if !self.prepare_dispatch(API, &supplied) {
            return;
        }
        if self.tracks_uses() {
            for r in std::iter::once(arguments).chain(count.map(|(c, _)| c)) {
                self.keep_object(&*r.shared, || crate::tracked::Tracked::Resource(r.clone()));
                self.use_buffer_id(API, r.id(), Access::INDIRECT_ARGUMENT);
            }
            self.flush_barriers();
        }
        for p in &supplied {
            if let Some(arg) = self.shadow.compute_args.get_mut(*p) {
                *arg = RootArg::Unset;
            }
        }
        self.record(Command::ExecuteIndirect {
            signature: signature.desc.clone(),
            max_count,
            arguments: arguments.gpu_address(offset),
            count: count.map(|(c, at)| c.gpu_address(at)),
        });
    }
}

//! Command signatures (`D3D12_COMMAND_SIGNATURE_DESC`): what each command of an
//! `ExecuteIndirect` argument buffer holds, and D3D12's checks of one.

use crate::{RootParameter, RootSignatureDesc};

/// One argument of an indirect command (`D3D12_INDIRECT_ARGUMENT_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndirectArgument {
    /// `D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH`: three `u32` group counts
    /// (`D3D12_DISPATCH_ARGUMENTS`); a command's last argument.
    Dispatch,
    /// `D3D12_INDIRECT_ARGUMENT_TYPE_CONSTANT`: `count` 32-bit values written into root
    /// parameter `root_parameter` (root constants) from its value `dest_offset` on.
    Constant {
        /// The root-constants parameter.
        root_parameter: u32,
        /// Its first value written.
        dest_offset: u32,
        /// Values written.
        count: u32,
    },
}

impl IndirectArgument {
    /// Bytes the argument takes in a command.
    pub fn bytes(&self) -> u32 {
        match *self {
            IndirectArgument::Dispatch => DISPATCH_ARGUMENT_BYTES,
            IndirectArgument::Constant { count, .. } => count.saturating_mul(4),
        }
    }
}

/// Bytes of `D3D12_DISPATCH_ARGUMENTS`.
pub const DISPATCH_ARGUMENT_BYTES: u32 = 12;

/// What each command of an argument buffer holds: `arguments` one after the other, commands
/// `byte_stride` bytes apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CommandSignatureDesc {
    /// Bytes from one command to the next.
    pub byte_stride: u32,
    /// The arguments, the last one the dispatch.
    pub arguments: Vec<IndirectArgument>,
}

impl CommandSignatureDesc {
    /// Commands of one dispatch each (`D3D12_DISPATCH_ARGUMENTS`, 12 bytes apart).
    pub fn dispatch() -> Self {
        Self { byte_stride: DISPATCH_ARGUMENT_BYTES, arguments: vec![IndirectArgument::Dispatch] }
    }

    /// Bytes the arguments take (the stride may leave more between commands).
    pub fn command_bytes(&self) -> u64 {
        self.arguments.iter().map(|a| u64::from(a.bytes())).sum()
    }

    /// Where each argument starts in a command.
    pub fn offsets(&self) -> impl Iterator<Item = (u32, &IndirectArgument)> {
        self.arguments.iter().scan(0u32, |at, a| {
            let here = *at;
            *at = at.saturating_add(a.bytes());
            Some((here, a))
        })
    }

    /// Whether a command changes root arguments (the signature then needs its root signature).
    pub fn changes_root_arguments(&self) -> bool {
        self.arguments.iter().any(|a| !matches!(a, IndirectArgument::Dispatch))
    }

    /// Why D3D12 refuses the signature with `root` (`None` if it does not): one dispatch, the
    /// last argument; a stride that is a multiple of 4 and holds the arguments; constants that
    /// fit a root-constants parameter of `root`; a root signature exactly when arguments
    /// change root arguments.
    pub fn invalid_reason(&self, root: Option<&RootSignatureDesc>) -> Option<String> {
        let dispatches = self.arguments.iter().filter(|a| **a == IndirectArgument::Dispatch).count();
        if dispatches != 1 || self.arguments.last() != Some(&IndirectArgument::Dispatch) {
            return Some("a command signature needs one dispatch argument, its last".into());
        }
        if !self.byte_stride.is_multiple_of(4) || u64::from(self.byte_stride) < self.command_bytes() {
            return Some(format!(
                "ByteStride {} is not a multiple of 4 that holds the arguments' {} bytes",
                self.byte_stride,
                self.command_bytes()
            ));
        }
        match (self.changes_root_arguments(), root) {
            (true, None) => return Some("arguments that change root arguments need the root signature".into()),
            (false, Some(_)) => {
                return Some("a signature that changes no root argument takes no root signature".into())
            }
            _ => {}
        }
        for a in &self.arguments {
            let IndirectArgument::Constant { root_parameter, dest_offset, count } = *a else { continue };
            let param = root.and_then(|r| r.parameters.get(root_parameter as usize));
            match param {
                Some(RootParameter::Constants { count: have, .. })
                    if count > 0 && dest_offset.checked_add(count).is_some_and(|end| end <= *have) => {}
                Some(RootParameter::Constants { count: have, .. }) => {
                    return Some(format!(
                        "{count} constants from {dest_offset} do not fit root parameter {root_parameter}'s {have}"
                    ))
                }
                _ => return Some(format!("root parameter {root_parameter} is not root constants")),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_follow_d3d12s_rules() {
        let root = RootSignatureDesc::new(vec![RootParameter::constants(0, 4), RootParameter::uav(0)]);
        assert_eq!(CommandSignatureDesc::dispatch().invalid_reason(None), None);
        assert!(CommandSignatureDesc::dispatch().invalid_reason(Some(&root)).unwrap().contains("takes no root"));
        let constants = |dest_offset, count, stride| CommandSignatureDesc {
            byte_stride: stride,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 0, dest_offset, count },
                IndirectArgument::Dispatch,
            ],
        };
        assert_eq!(constants(1, 3, 24).invalid_reason(Some(&root)), None);
        assert_eq!(constants(1, 3, 24).offsets().map(|(o, _)| o).collect::<Vec<_>>(), [0, 12]);
        assert!(constants(2, 3, 32).invalid_reason(Some(&root)).unwrap().contains("do not fit"));
        assert!(constants(0, 1, 12).invalid_reason(Some(&root)).unwrap().contains("holds"));
        assert!(constants(0, 1, 18).invalid_reason(Some(&root)).unwrap().contains("multiple of 4"));
        assert!(constants(0, 1, 16).invalid_reason(None).unwrap().contains("need the root signature"));
        let uav = CommandSignatureDesc {
            byte_stride: 16,
            arguments: vec![
                IndirectArgument::Constant { root_parameter: 1, dest_offset: 0, count: 1 },
                IndirectArgument::Dispatch,
            ],
        };
        assert!(uav.invalid_reason(Some(&root)).unwrap().contains("not root constants"));
        let reversed = CommandSignatureDesc {
            byte_stride: 16,
            arguments: vec![
                IndirectArgument::Dispatch,
                IndirectArgument::Constant { root_parameter: 0, dest_offset: 0, count: 1 },
            ],
        };
        assert!(reversed.invalid_reason(Some(&root)).unwrap().contains("its last"));
    }
}

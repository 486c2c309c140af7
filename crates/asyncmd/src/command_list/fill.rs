//! `FillBuffers`: validation, then the native command or the fallback's lowering
//! (`fallback::fill`).

use super::async_cmd::Gate;
use super::semantics::Use;
use super::{CommandRecorder, DIRECT_COMPUTE};
use crate::err;
use crate::fallback;
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::{Command, FormatSupport};
use asyncmd_types::{encode_texel, ClearElement, FillBufferDesc, Format, HeapType, MessageId, ResolvedFill, Result};

const API: &str = "FillBuffers";
const ID: MessageId = MessageId::FillBuffersInvalidParameters;

impl CommandRecorder {
    /// Checks one fill and resolves what it writes (`None` when it writes nothing).
    fn validate_fill<'r>(
        &self,
        i: usize,
        f: &FillBufferDesc<&'r Resource>,
    ) -> Result<Option<ResolvedFill<&'r Resource>>> {
        let b = f.buffer;
        if !self.owns(b) || !b.desc().is_buffer() {
            return Err(err::invalid(ID, API, format!("fill {i}: the destination must be a buffer of this device")));
        }
        if b.heap_type() == HeapType::Upload {
            return Err(err::invalid(ID, API, format!("fill {i}: an UPLOAD buffer cannot be written by the GPU")));
        }
        let pattern = if f.format == Format::Unknown {
            let n = f.raw_pattern_size;
            if ![1, 2, 4, 8, 12, 16].contains(&n) {
                return Err(err::invalid(
                    ID,
                    API,
                    format!("fill {i}: RawPatternSizeInBytes {n} is not 1, 2, 4, 8, 12 or 16"),
                ));
            }
            if n == 12 && b.is_reserved() {
                return Err(err::invalid(
                    ID,
                    API,
                    format!("fill {i}: 12-byte patterns are not allowed on reserved buffers"),
                ));
            }
            ClearElement::from_bytes(&f.fill_value.bytes[..n as usize])
        } else {
            if f.raw_pattern_size != 0 {
                return Err(err::invalid(ID, API, format!("fill {i}: RawPatternSizeInBytes must be 0 with a format")));
            }
            if f.format.is_typeless() {
                return Err(err::invalid(ID, API, format!("fill {i}: typeless format {}", f.format)));
            }
            if !self.device.ddi.format_caps(f.format).support.contains(FormatSupport::BUFFER) {
                return Err(err::invalid(ID, API, format!("fill {i}: {} does not support buffers", f.format)));
            }
            let (bytes, n) = encode_texel(f.format, &f.fill_value)
                .ok_or_else(|| err::invalid(ID, API, format!("fill {i}: {} cannot be encoded", f.format)))?;
            if b.is_reserved() && ![1, 2, 4, 8, 16].contains(&n) {
                return Err(err::invalid(
                    ID,
                    API,
                    format!("fill {i}: {}-byte elements are not allowed on reserved buffers", n),
                ));
            }
            ClearElement::from_bytes(&bytes[..n])
        };
        let pattern =
            pattern.ok_or_else(|| err::invalid(ID, API, format!("fill {i}: the pattern is not 1 to 16 bytes")))?;
        let len = pattern.as_bytes().len() as u64;
        let align = len.min(4);
        if !f.offset.is_multiple_of(align) {
            return Err(err::invalid(ID, API, format!("fill {i}: Offset {} is not a multiple of {align}", f.offset)));
        }
        let width = b.desc().width;
        if f.offset > width {
            return Err(err::invalid(
                ID,
                API,
                format!("fill {i}: Offset {} is past the buffer's {width} bytes", f.offset),
            ));
        }
        // Patterns that do not fit are skipped, never written in part.
        let patterns = (f.repeat_count as u64).min((width - f.offset) / len);
        let bytes = patterns * len;
        Ok((bytes > 0).then_some(ResolvedFill { buffer: b, offset: f.offset, pattern, bytes }))
    }

    /// `FillBuffers`: writes each fill's pattern `RepeatCount` times from its offset, in the
    /// COPY / COPY_DEST scope whatever the route. Overlapping fills land in any order.
    pub fn fill_buffers(&mut self, fills: &[FillBufferDesc<&Resource>]) {
        self.async_command(
            API,
            Gate::Outside(DIRECT_COMPUTE),
            None,
            |l| {
                let mut resolved = Vec::with_capacity(fills.len());
                for (i, f) in fills.iter().enumerate() {
                    resolved.extend(l.validate_fill(i, f)?);
                }
                if l.tracks_uses() {
                    let write = Access::COPY_WRITE.unordered();
                    let uses: Vec<Use> = resolved.iter().map(|f| Use::one(f.buffer, 0, write)).collect();
                    l.uses(API, &uses)?;
                }
                Ok(resolved)
            },
            |resolved| Command::FillBuffers(resolved.iter().map(|f| f.map(|b| b.id())).collect()),
            |l, fills| {
                let facts = l.list_facts();
                if let Err(e) = fallback::fill::lower(&mut l.lowering(), fills, &facts) {
                    l.remove(e);
                }
            },
        );
    }
}

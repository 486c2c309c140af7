//! `FillBuffers`: validation, native recording, and the plan that picks a fallback route per fill
//! (the routes themselves are in `fallback::fill`).

use super::async_cmd::Gate;
use super::semantics::Use;
use super::{CommandList, DIRECT_COMPUTE};
use crate::err;
use crate::fallback::plan::{plan_fill, DeviceFacts, FillFacts, FillRoute};
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::{Command, FormatSupport};
use asyncmd_types::{
    encode_texel, ClearElement, FillBufferDesc, Format, HeapType, MessageId, ResolvedFill, ResourceFlags, Result,
};

const API: &str = "FillBuffers";
const ID: MessageId = MessageId::FillBuffersInvalidParameters;

impl CommandList {
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
        if f.offset % align != 0 {
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
            Self::lower_fills,
        );
    }

    /// The fallback's fills: each planned on its route, runs of one route recorded together.
    fn lower_fills(&mut self, planned: Vec<ResolvedFill<&Resource>>) {
        // Fills that continue each other are joined; a batch of separate buffers (the usual
        // one) skips the pass.
        let planned = if planned.windows(2).any(|w| w[0].buffer.same(w[1].buffer)) {
            crate::fallback::fill::join_runs(planned, |a, b| a.same(b))
        } else {
            planned
        };
        // Runs of one route go together. Planning is pure, so each fill's route is worked out
        // where the run loop needs it, with no vector of routes.
        let device = DeviceFacts::of(self.device.ddi.capabilities());
        let ty = self.ty;
        let route = |f: &ResolvedFill<&Resource>| {
            let facts = FillFacts {
                list: ty,
                heap: f.buffer.heap_type(),
                uav: f.buffer.desc().flags.contains(ResourceFlags::ALLOW_UNORDERED_ACCESS),
                protected: f.buffer.is_protected(),
                offset: f.offset,
                bytes: f.bytes,
            };
            plan_fill(&facts, &device)
        };
        let mut start = 0;
        while start < planned.len() {
            let compute = route(&planned[start]) == FillRoute::Compute;
            let len = planned[start..].iter().position(|f| (route(f) == FillRoute::Compute) != compute);
            let end = len.map_or(planned.len(), |n| start + n);
            let run = &planned[start..end];
            tracing::trace!(compute, fills = run.len(), "FillBuffers: fallback run");
            let r = if compute {
                self.lowering().fill_compute(run)
            } else {
                run.iter().try_for_each(|f| {
                    let staged = route(f) == FillRoute::Upload { staged: true };
                    self.lowering().fill_upload(f, staged)
                })
            };
            if let Err(e) = r {
                return self.remove(e);
            }
            start = end;
        }
    }
}

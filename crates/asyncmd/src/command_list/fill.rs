//! `FillBuffers`: validation, native recording, and the fallback's compute and upload routes.

use super::{CommandList, RootArg, DIRECT_COMPUTE};
use crate::device::Device;
use crate::fallback::fill::{chunk_bytes, chunk_len, fill_constants, fill_groups, Fill, COMPUTE_UAV};
use crate::fallback::ledger::Scope;
use crate::fallback::plan::{plan_fill, DeviceFacts, FillFacts, FillRoute};
use crate::fallback::pools::size_class;
use crate::objects::{PipelineState, RootSignature};
use crate::resource::Resource;
use asyncmd_ddi::{
    Command, ComputePipelineDesc, FormatSupport, PipelineDesc, RootParameter, RootSignatureDesc, ShaderId,
    FILL_CONSTANT_COUNT,
};
use asyncmd_types::{
    encode_texel, AsyncCommandsImpl, BarrierGroup, BarrierLayout, BufferBarrier, BufferCopyRegion, Error,
    FillBufferDesc, Format, HeapType, MessageId, ResourceDesc, ResourceFlags, Result,
};

fn invalid(text: String) -> Error {
    Error::invalid_arg(MessageId::FillBuffersInvalidParameters, format!("FillBuffers: {text}"))
}

impl CommandList {
    /// Checks one fill and returns what it writes (`None` when it writes nothing).
    fn validate_fill(&self, i: usize, f: &FillBufferDesc<&Resource>) -> Result<Option<Fill>> {
        let b = f.buffer;
        if !self.owns(b) || !b.desc().is_buffer() {
            return Err(invalid(format!("fill {i}: the destination must be a buffer of this device")));
        }
        if b.heap_type() == HeapType::Upload {
            return Err(invalid(format!("fill {i}: an UPLOAD buffer cannot be written by the GPU")));
        }
        let pattern: Vec<u8> = if f.format == Format::Unknown {
            let n = f.raw_pattern_size;
            if ![1, 2, 4, 8, 12, 16].contains(&n) {
                return Err(invalid(format!("fill {i}: RawPatternSizeInBytes {n} is not 1, 2, 4, 8, 12 or 16")));
            }
            if n == 12 && b.is_reserved() {
                return Err(invalid(format!("fill {i}: 12-byte patterns are not allowed on reserved buffers")));
            }
            f.fill_value.bytes[..n as usize].to_vec()
        } else {
            if f.raw_pattern_size != 0 {
                return Err(invalid(format!("fill {i}: RawPatternSizeInBytes must be 0 with a format")));
            }
            if f.format.is_typeless() {
                return Err(invalid(format!("fill {i}: typeless format {}", f.format)));
            }
            if !self.device.ddi.format_caps(f.format).support.contains(FormatSupport::BUFFER) {
                return Err(invalid(format!("fill {i}: {} does not support buffers", f.format)));
            }
            let (bytes, n) = encode_texel(f.format, &f.fill_value)
                .ok_or_else(|| invalid(format!("fill {i}: {} cannot be encoded", f.format)))?;
            if b.is_reserved() && ![1, 2, 4, 8, 16].contains(&n) {
                return Err(invalid(format!("fill {i}: {}-byte elements are not allowed on reserved buffers", n)));
            }
            bytes[..n].to_vec()
        };
        let len = pattern.len() as u64;
        let align = len.min(4);
        if f.offset % align != 0 {
            return Err(invalid(format!("fill {i}: Offset {} is not a multiple of {align}", f.offset)));
        }
        let width = b.desc().width;
        if f.offset > width {
            return Err(invalid(format!("fill {i}: Offset {} is past the buffer's {width} bytes", f.offset)));
        }
        // Patterns that do not fit are skipped, never written in part.
        let patterns = (f.repeat_count as u64).min((width - f.offset) / len);
        let bytes = patterns * len;
        Ok((bytes > 0).then(|| Fill { buffer: b.clone(), offset: f.offset, pattern, bytes }))
    }

    /// `FillBuffers`: writes each fill's pattern `RepeatCount` times from its offset, in the
    /// COPY / COPY_DEST scope whatever the route. Overlapping fills land in any order.
    pub fn fill_buffers(&mut self, fills: &[FillBufferDesc<&Resource>]) {
        const API: &str = "FillBuffers";
        let Some(imp) = self.begin_async(API, DIRECT_COMPUTE) else { return };
        let planned: Result<Vec<Option<Fill>>> =
            fills.iter().enumerate().map(|(i, f)| self.validate_fill(i, f)).collect();
        let planned = match planned {
            Ok(p) => p,
            Err(e) => return self.remove(e),
        };
        if imp == AsyncCommandsImpl::Native {
            let ids = fills
                .iter()
                .map(|f| FillBufferDesc {
                    buffer: f.buffer.id(),
                    offset: f.offset,
                    fill_value: f.fill_value,
                    format: f.format,
                    raw_pattern_size: f.raw_pattern_size,
                    repeat_count: f.repeat_count,
                })
                .collect();
            return self.record(Command::FillBuffers(ids));
        }
        // Every fill is planned before anything is recorded; runs of one route go together.
        let caps = self.device.ddi.capabilities();
        let device = DeviceFacts { compute_fill_shader: caps.compute_fill_shader, uma: caps.uma };
        let mut runs: Vec<(FillRoute, Vec<Fill>)> = Vec::new();
        for f in planned.into_iter().flatten() {
            let facts = FillFacts {
                list: self.ty,
                heap: f.buffer.heap_type(),
                uav: f.buffer.desc().flags.contains(ResourceFlags::ALLOW_UNORDERED_ACCESS),
                protected: f.buffer.is_protected(),
                offset: f.offset,
                bytes: f.bytes,
            };
            let route = plan_fill(&facts, &device);
            let same_kind = |r: &FillRoute| {
                matches!(
                    (r, route),
                    (FillRoute::Compute, FillRoute::Compute) | (FillRoute::Upload { .. }, FillRoute::Upload { .. })
                )
            };
            match runs.last_mut() {
                Some((r, run)) if same_kind(r) => run.push(f),
                _ => runs.push((route, vec![f])),
            }
        }
        for (route, run) in runs {
            let r = match route {
                FillRoute::Compute => self.fill_compute(&run),
                FillRoute::Upload { .. } => run.iter().try_for_each(|f| {
                    let staged = plan_fill(
                        &FillFacts {
                            list: self.ty,
                            heap: f.buffer.heap_type(),
                            uav: false,
                            protected: f.buffer.is_protected(),
                            offset: f.offset,
                            bytes: f.bytes,
                        },
                        &device,
                    ) == FillRoute::Upload { staged: true };
                    self.fill_upload(f, staged)
                }),
            };
            if let Err(e) = r {
                return self.remove(e);
            }
        }
    }

    /// The device's fill root signature and pipeline, made on first use.
    fn fill_pipeline(&self) -> Result<(RootSignature, PipelineState)> {
        if let Some(p) = self.device.fill_pipeline.get() {
            return Ok(p.clone());
        }
        let device = Device::from_shared(self.device.clone());
        let root = device.create_root_signature(&RootSignatureDesc {
            parameters: vec![
                RootParameter::Constants { shader_register: 0, count: FILL_CONSTANT_COUNT },
                RootParameter::Uav { shader_register: 0 },
            ],
        })?;
        let pso = device.create_pipeline_state(&PipelineDesc::Compute(ComputePipelineDesc {
            root_signature: root.id(),
            cs: ShaderId::FillCs,
        }))?;
        Ok(self.device.fill_pipeline.get_or_init(|| (root, pso)).clone())
    }

    fn buffer_barriers(
        fills: &[Fill],
        from: impl Fn(&Fill) -> Scope,
        to: Scope,
    ) -> BarrierGroup<asyncmd_ddi::ResourceId> {
        let mut seen = Vec::new();
        let mut barriers = Vec::new();
        for f in fills {
            let id = f.buffer.id();
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let s = from(f);
            barriers.push(BufferBarrier {
                sync_before: s.sync,
                sync_after: to.sync,
                access_before: s.access,
                access_after: to.access,
                resource: id,
                offset: 0,
                size: u64::MAX,
            });
        }
        BarrierGroup::Buffer(barriers)
    }

    /// The compute route: the buffers move from their tracked scope to compute/UAV, the fill
    /// shader writes each pattern, they move back to COPY/COPY_DEST, and the app's compute
    /// state is restored.
    fn fill_compute(&mut self, fills: &[Fill]) -> Result<()> {
        let (root, pso) = self.fill_pipeline()?;
        let ledger = &self.ledger;
        let to_compute =
            Self::buffer_barriers(fills, |f| ledger.scope_or(f.buffer.id(), Scope::COPY_DEST), COMPUTE_UAV);
        self.record(Command::Barrier(vec![to_compute]));
        self.record(Command::SetComputeRootSignature(root.id()));
        self.record(Command::SetPipelineState(pso.0.id));
        for f in fills {
            // The shader counts dwords in 32 bits: larger fills take several dispatches, each
            // starting at a whole dword pattern.
            let step = 4 * crate::fallback::fill::dword_pattern(&f.pattern).len() as u64;
            let max = u32::MAX as u64 * 4 / step * step;
            let mut done = 0u64;
            while done < f.bytes {
                let bytes = (f.bytes - done).min(max);
                let dwords = (bytes / 4) as u32;
                let constants = fill_constants(&f.pattern, dwords);
                self.record(Command::SetComputeRootConstants { parameter: 0, offset: 0, values: constants.to_vec() });
                self.record(Command::SetComputeRootUav {
                    parameter: 1,
                    address: f.buffer.gpu_address(f.offset + done),
                });
                let (x, y) = fill_groups(dwords);
                self.record(Command::Dispatch { x, y, z: 1 });
                done += bytes;
            }
        }
        let back = Self::buffer_barriers(fills, |_| COMPUTE_UAV, Scope::COPY_DEST);
        self.record(Command::Barrier(vec![back]));
        for f in fills {
            self.ledger.set(f.buffer.id(), Scope::COPY_DEST);
        }
        self.restore_compute_state();
        Ok(())
    }

    /// Rebinds the app's compute root signature, root arguments and pipeline.
    fn restore_compute_state(&mut self) {
        if let Some(sig) = self.shadow.compute_root.clone() {
            self.record(Command::SetComputeRootSignature(sig.id()));
            for (parameter, arg) in self.shadow.compute_args.clone().into_iter().enumerate() {
                let parameter = parameter as u32;
                match arg {
                    RootArg::Unset => {}
                    RootArg::Constants(values) => {
                        self.record(Command::SetComputeRootConstants { parameter, offset: 0, values })
                    }
                    RootArg::Uav(address) => self.record(Command::SetComputeRootUav { parameter, address }),
                }
            }
        }
        if let Some(p) = self.shadow.pipeline.clone() {
            self.record(Command::SetPipelineState(p.0.id));
        }
    }

    /// A fallback buffer of at least `size` bytes in `heap`, owned by the list's allocator.
    fn fallback_buffer(&mut self, heap: HeapType, size: u64) -> Result<Resource> {
        let b = match self.device.pools.take(heap, size) {
            Some(b) => b,
            None => Device::from_shared(self.device.clone()).create_committed_resource(
                heap,
                &ResourceDesc::buffer(size_class(size)),
                BarrierLayout::Undefined,
            )?,
        };
        self.allocator.own(b.clone());
        Ok(b)
    }

    /// The upload route: copies from a chunk of whole patterns written on the CPU, reusing the
    /// last chunk when the pattern repeats; staged through a VRAM block when `staged`.
    fn fill_upload(&mut self, f: &Fill, staged: bool) -> Result<()> {
        let len = chunk_len(f.pattern.len() as u64, f.bytes);
        let chunk = match &self.last_chunk {
            Some((pattern, chunk, chunk_len)) if *pattern == f.pattern && *chunk_len >= len => chunk.clone(),
            _ => {
                let chunk = self.fallback_buffer(HeapType::Upload, len)?;
                chunk.write(0, &chunk_bytes(&f.pattern, len))?;
                self.last_chunk = Some((f.pattern.clone(), chunk.clone(), len));
                chunk
            }
        };
        let source = if staged {
            let staging = self.fallback_buffer(HeapType::Default, len)?;
            self.record(Command::CopyBufferRegion(BufferCopyRegion {
                dest: staging.id(),
                dest_offset: 0,
                source: chunk.id(),
                source_offset: 0,
                size: len,
            }));
            self.record(Command::Barrier(vec![BarrierGroup::Buffer(vec![BufferBarrier {
                sync_before: asyncmd_types::BarrierSync::COPY,
                sync_after: asyncmd_types::BarrierSync::COPY,
                access_before: asyncmd_types::BarrierAccess::COPY_DEST,
                access_after: asyncmd_types::BarrierAccess::COPY_SOURCE,
                resource: staging.id(),
                offset: 0,
                size: u64::MAX,
            }])]));
            staging
        } else {
            chunk
        };
        let mut done = 0;
        while done < f.bytes {
            let size = len.min(f.bytes - done);
            self.record(Command::CopyBufferRegion(BufferCopyRegion {
                dest: f.buffer.id(),
                dest_offset: f.offset + done,
                source: source.id(),
                source_offset: 0,
                size,
            }));
            done += size;
        }
        Ok(())
    }
}

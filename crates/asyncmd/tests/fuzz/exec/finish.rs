//! The end of a sequence: every fence released, all work waited for, and what is compared read
//! back.

use super::*;

impl World {
    /// Releases every fence, waits for all work, and reads back what is compared: every
    /// untainted resource through one list of copies into readback buffers.
    pub(super) fn finish(&mut self) -> std::result::Result<(), String> {
        // As an app releases a fence: up to the highest value waited for where no signal
        // reached it. Wild sequences may also have a queue wait before its own queue's signal
        // of the same value; just past it releases that.
        for (f, highest, signalled) in &self.fences {
            if highest > signalled {
                let _ = f.signal(*highest);
            } else if !self.valid && f.completed_value() < *highest {
                let _ = f.signal(highest.saturating_add(1));
            }
        }
        if !self.idle(FINAL_WAIT) {
            return Err(format!(
                "the queues did not go idle within {FINAL_WAIT:?} after every fence was released; {}",
                self.stuck()
            ));
        }
        let Ok(allocator) = self.device.create_command_allocator(CommandListType::Direct) else { return Ok(()) };
        let Ok(mut list) = self.device.create_command_list(CommandListType::Direct, &allocator) else { return Ok(()) };
        let mut reads = Vec::new();
        for (i, res) in self.resources.iter().enumerate() {
            let r = &res.resource;
            if res.tainted
                || (!r.desc().is_buffer()
                    && (0..r.desc().subresource_count())
                        .any(|s| r.layout(s).is_some_and(|l| l != BarrierLayout::Common)))
            {
                continue;
            }
            // Readback buffers are read in place. Upload buffers go through a copy like the
            // rest: on a GPU their memory can be write-combined device memory, where the CPU
            // reads a 4 GiB buffer for minutes (seed 6167 on the H200).
            if r.desc().is_buffer() && r.heap_type() == HeapType::Readback {
                reads.push((i, None));
                continue;
            }
            let subs = if r.desc().is_buffer() { 1 } else { r.desc().subresource_count() };
            let Ok(fp) = self.device.copyable_footprints(r.desc(), 0, subs, 0) else { continue };
            let Ok(rb) = self.device.create_committed_resource(
                HeapType::Readback,
                &ResourceDesc::buffer(fp.total_bytes.max(1)),
                BarrierLayout::Undefined,
            ) else {
                continue;
            };
            if r.desc().is_buffer() {
                list.copy_buffer_region(&rb, 0, r, 0, r.desc().width);
            } else {
                for sub in 0..subs {
                    let dst = TextureCopyLocation::footprint(&rb, fp.layouts[sub as usize]);
                    list.copy_texture_region(&dst, 0, 0, 0, &TextureCopyLocation::subresource(r, sub), None);
                }
            }
            reads.push((i, Some((rb, fp))));
        }
        if list.close().is_err() || self.queues[0].execute_command_lists(&[&list]).is_err() {
            return Ok(());
        }
        if self.queues[0].wait_idle(FINAL_WAIT).is_err() {
            return Err("the readback did not finish".into());
        }
        for (i, read) in reads {
            let r = &self.resources[i].resource;
            let bytes = match read {
                None => r.read_vec(0, r.desc().width as usize).ok(),
                Some((rb, fp)) if r.desc().is_buffer() => rb.read_vec(0, fp.total_bytes as usize).ok(),
                Some((rb, fp)) => packed(&rb, &fp),
            };
            if let Some(b) = bytes {
                self.out.contents.push((i, b));
            }
        }
        Ok(())
    }
}

/// The rows of every footprint in `rb`, without pitch padding (which is not the texture's).
fn packed(rb: &Resource, fp: &CopyableFootprints) -> Option<Vec<u8>> {
    let raw = rb.read_vec(0, fp.total_bytes as usize).ok()?;
    let mut out = Vec::new();
    for (k, placed) in fp.layouts.iter().enumerate() {
        let (rows, row, pitch) =
            (fp.num_rows[k] as usize, fp.row_sizes[k] as usize, placed.footprint.row_pitch as usize);
        let base = (placed.offset - fp.layouts[0].offset) as usize;
        for z in 0..placed.footprint.depth as usize {
            for y in 0..rows {
                let s = base + (z * rows + y) * pitch;
                out.extend_from_slice(raw.get(s..s + row)?);
            }
        }
    }
    Some(out)
}

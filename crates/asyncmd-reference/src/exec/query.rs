//! Queries: begin, end and `ResolveQueryData`.

use super::{ActiveQuery, Exec};
use asyncmd_ddi::QueryResolve;
use asyncmd_types::{PipelineStatistics, QueryType};

impl Exec<'_> {
    pub(crate) fn begin_query(&mut self, heap: u64, ty: QueryType, index: u32) {
        let Some(heap) = self.query_heap(heap) else { return };
        let stats = (ty == QueryType::PipelineStatistics).then(PipelineStatistics::default);
        self.queries.retain(|q| !(std::sync::Arc::ptr_eq(&q.heap, &heap) && q.index == index));
        self.queries.push(ActiveQuery { heap, index, binary: ty == QueryType::BinaryOcclusion, samples: 0, stats });
    }

    pub(crate) fn end_query(&mut self, heap: u64, ty: QueryType, index: u32) {
        let Some(heap) = self.query_heap(heap) else { return };
        let stride = heap.stride();
        let mut data = heap.data();
        let base = index as usize * stride;
        if ty == QueryType::Timestamp {
            if let Some(v) = data.get_mut(base) {
                *v = self.shared.timestamp();
            }
            return;
        }
        let Some(pos) = self.queries.iter().position(|q| std::sync::Arc::ptr_eq(&q.heap, &heap) && q.index == index)
        else {
            return;
        };
        let q = self.queries.swap_remove(pos);
        match q.stats {
            Some(stats) => {
                let values: [u64; 11] = bytemuck::cast(stats);
                if let Some(dst) = data.get_mut(base..base + 11) {
                    dst.copy_from_slice(&values);
                }
            }
            None => {
                if let Some(v) = data.get_mut(base) {
                    *v = if q.binary { (q.samples > 0) as u64 } else { q.samples };
                }
            }
        }
    }

    pub(crate) fn resolve_query_data(&self, q: &QueryResolve) {
        let (Some(heap), Some(dest)) = (self.query_heap(q.heap.0), self.resource(q.dest)) else { return };
        let stride = heap.stride();
        let values: Vec<u64> = {
            let data = heap.data();
            let start = q.start as usize * stride;
            let end = start + q.count as usize * stride;
            match data.get(start..end) {
                Some(v) => v.to_vec(),
                None => return,
            }
        };
        let mut d = dest.write();
        let mut offset = q.dest_offset as usize;
        for v in values {
            // Binary occlusion results are exactly 0 or 1.
            let v = if q.ty == QueryType::BinaryOcclusion { (v != 0) as u64 } else { v };
            if let Some(t) = d.get_mut(offset..offset + 8) {
                t.copy_from_slice(&v.to_le_bytes());
            }
            offset += 8;
        }
    }

    /// Adds a draw's counts to every active query.
    pub(crate) fn count_draw(&mut self, samples_passed: u64, stats: &PipelineStatistics) {
        for q in &mut self.queries {
            q.samples += samples_passed;
            if let Some(s) = &mut q.stats {
                s.ia_vertices += stats.ia_vertices;
                s.ia_primitives += stats.ia_primitives;
                s.vs_invocations += stats.vs_invocations;
                s.c_invocations += stats.c_invocations;
                s.c_primitives += stats.c_primitives;
                s.ps_invocations += stats.ps_invocations;
                s.cs_invocations += stats.cs_invocations;
            }
        }
    }
}

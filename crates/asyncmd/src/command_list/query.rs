//! Queries, `ResolveQueryData` and predication.

use super::semantics::Use;
use super::{CommandRecorder, Lists, ALL_QUEUES, DIRECT_COMPUTE};
use crate::err;
use crate::objects::QueryHeap;
use crate::resource::Resource;
use crate::track::hazards::Access;
use asyncmd_ddi::{Command, QueryResolve};
use asyncmd_types::{CommandListType, HeapType, MessageId, PredicationOp, QueryHeapType, QueryType, Result};

/// Whether a query type may live in a heap type.
fn type_matches_heap(ty: QueryType, heap: QueryHeapType) -> bool {
    match ty {
        QueryType::Timestamp => matches!(heap, QueryHeapType::Timestamp | QueryHeapType::CopyQueueTimestamp),
        _ => ty.heap_type() == heap,
    }
}

/// Checks a `ResolveQueryData`-shaped call on a list of type `list` (shared by the async form).
pub(crate) fn validate_resolve_query_data(
    api: &str,
    list: CommandListType,
    q: &QueryResolve<&QueryHeap, &Resource>,
) -> Result<()> {
    let QueryResolve { heap, ty, start, count, dest, dest_offset } = *q;
    let err = |t: String| err::invalid(MessageId::ResolveQueryDataInvalidParameters, api, t);
    if !type_matches_heap(ty, heap.desc().ty) {
        return Err(err(format!("{ty:?} queries do not live in a {:?} heap", heap.desc().ty)));
    }
    if !heap.legal_on(list) || (list == CommandListType::Copy && ty != QueryType::Timestamp) {
        return Err(err(format!(
            "{ty:?} queries of a {:?} heap cannot be resolved on a {} list",
            heap.desc().ty,
            list.name()
        )));
    }
    if start.checked_add(count).is_none_or(|end| end > heap.desc().count) {
        return Err(err(format!("queries {start}..{start}+{count} exceed the heap's {}", heap.desc().count)));
    }
    if !dest.desc().is_buffer() {
        return Err(err("the destination must be a buffer".into()));
    }
    if dest.heap_type() == HeapType::Upload {
        return Err(err("an UPLOAD buffer cannot be the destination".into()));
    }
    if dest_offset % 8 != 0 {
        return Err(err(format!("destination offset {dest_offset} is not a multiple of 8")));
    }
    let bytes = count as u64 * ty.result_size();
    if dest_offset.checked_add(bytes).is_none_or(|end| end > dest.desc().width) {
        return Err(err(format!("{bytes} bytes at {dest_offset} exceed the buffer's {}", dest.desc().width)));
    }
    Ok(())
}

impl CommandRecorder {
    fn check_query(&self, api: &str, heap: &QueryHeap, ty: QueryType, index: u32) -> Result<()> {
        if !type_matches_heap(ty, heap.desc().ty) {
            return Err(err::invalid(
                MessageId::QueryInvalidParameters,
                api,
                format!("{ty:?} queries do not live in a {:?} heap", heap.desc().ty),
            ));
        }
        if !heap.legal_on(self.ty) {
            return Err(err::invalid(
                MessageId::QueryInvalidParameters,
                api,
                format!("a {:?} heap cannot be used on a {} list", heap.desc().ty, self.ty.name()),
            ));
        }
        if self.ty == CommandListType::Copy && ty != QueryType::Timestamp {
            return Err(err::invalid(MessageId::QueryInvalidParameters, api, "copy lists only write timestamps"));
        }
        if self.ty == CommandListType::Compute && matches!(ty, QueryType::Occlusion | QueryType::BinaryOcclusion) {
            return Err(err::invalid(MessageId::QueryInvalidParameters, api, "occlusion queries need a direct list"));
        }
        if index >= heap.desc().count {
            return Err(err::invalid(
                MessageId::QueryInvalidParameters,
                api,
                format!("query {index} is past the heap's {}", heap.desc().count),
            ));
        }
        Ok(())
    }

    /// `BeginQuery` (not for timestamps).
    pub fn begin_query(&mut self, heap: &QueryHeap, ty: QueryType, index: u32) {
        const API: &str = "BeginQuery";
        if !self.begin(API, ALL_QUEUES, true) {
            return;
        }
        let mut r = self.check_query(API, heap, ty, index);
        if r.is_ok() && ty == QueryType::Timestamp {
            r = Err(err::invalid(MessageId::QueryInvalidParameters, API, "timestamps are written by EndQuery alone"));
        }
        if r.is_ok() && self.queries.iter().any(|(h, _, i)| *h == heap.0.id && *i == index) {
            r = Err(err::invalid(MessageId::QueryInvalidParameters, API, format!("query {index} is already active")));
        }
        if !self.check(r) {
            return;
        }
        self.queries.push((heap.0.id, ty, index));
        self.record(Command::BeginQuery { heap: heap.0.id, ty, index });
    }

    /// `EndQuery`.
    pub fn end_query(&mut self, heap: &QueryHeap, ty: QueryType, index: u32) {
        const API: &str = "EndQuery";
        if !self.begin(API, ALL_QUEUES, true) {
            return;
        }
        let mut r = self.check_query(API, heap, ty, index);
        if r.is_ok() && ty != QueryType::Timestamp {
            match self.queries.iter().position(|(h, t, i)| *h == heap.0.id && *i == index && *t == ty) {
                Some(p) => {
                    self.queries.swap_remove(p);
                }
                None => {
                    r = Err(err::invalid(
                        MessageId::QueryInvalidParameters,
                        API,
                        format!("{ty:?} query {index} was not begun on this list"),
                    ))
                }
            }
        }
        if self.check(r) {
            self.record(Command::EndQuery { heap: heap.0.id, ty, index });
        }
    }

    /// `ResolveQueryData`: writes 64-bit results (88 bytes per pipeline-statistics query) into
    /// a buffer at an 8-aligned offset.
    pub fn resolve_query_data(
        &mut self,
        heap: &QueryHeap,
        ty: QueryType,
        start: u32,
        count: u32,
        dest: &Resource,
        dest_offset: u64,
    ) {
        const API: &str = "ResolveQueryData";
        if !self.begin(API, ALL_QUEUES, false) {
            return;
        }
        if !self.owns(dest) {
            return self.remove(err::invalid(
                MessageId::QueryInvalidParameters,
                API,
                "the buffer belongs to another device",
            ));
        }
        let q = QueryResolve { heap, ty, start, count, dest, dest_offset };
        let r = validate_resolve_query_data(API, self.ty, &q)
            .and_then(|()| self.uses(API, &[Use::one(dest, 0, Access::COPY_WRITE)]));
        if self.check(r) {
            self.record(Command::ResolveQueryData(q.map(|h| h.0.id, |d| d.id())));
        }
    }

    /// `SetPredication`: later work is skipped when the 64-bit value at `buffer`+`offset`
    /// compares as `op` says; `None` turns predication off.
    pub fn set_predication(&mut self, buffer: Option<(&Resource, u64)>, op: PredicationOp) {
        const API: &str = "SetPredication";
        if !self.begin(API, DIRECT_COMPUTE.union(Lists::DIRECT), true) {
            return;
        }
        let err = |t: String| err::invalid(MessageId::PredicationInvalidParameters, API, t);
        let predicate = match buffer {
            None => None,
            Some((res, offset)) => {
                if !self.owns(res) || !res.desc().is_buffer() {
                    return self.remove(err("the predicate must be a buffer of this device".into()));
                }
                if offset % 8 != 0 || offset.checked_add(8).is_none_or(|e| e > res.desc().width) {
                    return self
                        .remove(err(format!("offset {offset} is not an 8-aligned 64-bit value inside the buffer")));
                }
                Some((res.gpu_address(offset), op))
            }
        };
        self.shadow.predicated = predicate.is_some();
        self.record(Command::SetPredication(predicate));
    }
}

//! What a command buffer can keep alive until the GPU has executed it. A leaf module: legacy
//! semantics keeps these objects while a list records, below the command buffers that own them.

use crate::allocator::CommandAllocator;
use crate::descriptor::DescriptorHeap;
use crate::objects::{Heap, PipelineState, QueryHeap, RootSignature};
use crate::resource::Resource;

/// An object a command buffer keeps alive until the queue has passed its submission's fence
/// ([`CommandBuffer::track`](crate::command_buffer::CommandBuffer::track)).
#[derive(Clone)]
pub enum Tracked {
    /// A buffer or texture.
    Resource(Resource),
    /// A pipeline state object.
    Pipeline(PipelineState),
    /// A root signature.
    RootSignature(RootSignature),
    /// A descriptor heap (the views in it).
    DescriptorHeap(DescriptorHeap),
    /// A query heap.
    QueryHeap(QueryHeap),
    /// A heap that reserved resources map tiles of.
    Heap(Heap),
    /// The memory of a secondary command buffer a primary executed (what the fallback made
    /// for its commands lives there).
    Secondary(CommandAllocator),
}

impl Tracked {
    /// What tells the object from others: the address of its shared state, so that a buffer
    /// keeps each object once however often it is named.
    pub(crate) fn key(&self) -> u64 {
        fn addr<T>(arc: &std::sync::Arc<T>) -> u64 {
            std::sync::Arc::as_ptr(arc) as *const () as u64
        }
        match self {
            Tracked::Resource(r) => addr(&r.shared),
            Tracked::Pipeline(p) => addr(&p.0),
            Tracked::RootSignature(r) => addr(&r.0),
            Tracked::DescriptorHeap(h) => h.identity(),
            Tracked::QueryHeap(q) => addr(&q.0),
            Tracked::Heap(h) => h.identity(),
            Tracked::Secondary(a) => addr(&a.0),
        }
    }
}

impl std::fmt::Debug for Tracked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tracked::Resource(r) => write!(f, "Resource({:?})", r.id()),
            Tracked::Pipeline(_) => write!(f, "Pipeline"),
            Tracked::RootSignature(_) => write!(f, "RootSignature"),
            Tracked::DescriptorHeap(_) => write!(f, "DescriptorHeap"),
            Tracked::QueryHeap(_) => write!(f, "QueryHeap"),
            Tracked::Heap(_) => write!(f, "Heap"),
            Tracked::Secondary(_) => write!(f, "SecondaryCommandBuffer"),
        }
    }
}

impl From<&Resource> for Tracked {
    fn from(r: &Resource) -> Self {
        Tracked::Resource(r.clone())
    }
}

/// `From` for each object a command buffer tracks, into its variant.
macro_rules! tracked_from {
    ($($ty:ty => $variant:ident),* $(,)?) => {
        $(impl From<$ty> for Tracked {
            fn from(object: $ty) -> Self {
                Tracked::$variant(object)
            }
        })*
    };
}

tracked_from! {
    Resource => Resource,
    PipelineState => Pipeline,
    RootSignature => RootSignature,
    DescriptorHeap => DescriptorHeap,
    QueryHeap => QueryHeap,
    Heap => Heap,
}

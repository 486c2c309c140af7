//! Opaque handles a device gives out for its objects.

macro_rules! id_type {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u64);
    )*};
}

id_type! {
    /// A resource (buffer or texture) of a device.
    ResourceId;
    /// A query heap.
    QueryHeapId;
    /// A root signature.
    RootSignatureId;
    /// A pipeline state object.
    PipelineId;
    /// A fence (timeline value).
    FenceId;
    /// A heap that reserved resources map their tiles into.
    HeapId;
}

/// A GPU virtual address: a resource and a byte offset in it (root UAVs, predication).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GpuAddress {
    /// The buffer.
    pub resource: ResourceId,
    /// Byte offset in the buffer.
    pub offset: u64,
}

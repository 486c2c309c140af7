//! Error codes, message ids and the error type every layer returns.

/// The HRESULT-like class of an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `E_FAIL`: the call is valid but cannot be carried out (e.g. the fallback cannot lower it).
    Fail,
    /// `E_INVALIDARG`: the call breaks an API rule.
    InvalidArg,
    /// `E_OUTOFMEMORY`: an allocation failed.
    OutOfMemory,
    /// `DXGI_ERROR_UNSUPPORTED`: the device or feature does not exist here.
    Unsupported,
    /// `DXGI_ERROR_DEVICE_REMOVED`: the device was removed (`RemoveDevice`) or lost.
    DeviceRemoved,
}

/// Severity of a debug message (`D3D12_MESSAGE_SEVERITY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MessageSeverity {
    /// Memory may be corrupted.
    Corruption,
    /// An error.
    Error,
    /// A warning.
    Warning,
    /// Information.
    Info,
    /// Other messages.
    Message,
}

/// Category of a debug message (`D3D12_MESSAGE_CATEGORY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageCategory {
    /// Set by the application.
    ApplicationDefined,
    /// Anything else.
    Miscellaneous,
    /// Device and object creation.
    Initialization,
    /// Object destruction.
    Cleanup,
    /// Pipeline and resource description checks.
    StateCreation,
    /// Setting state on a command list.
    StateSetting,
    /// Reading state.
    StateGetting,
    /// Copies, clears, resolves and barriers.
    ResourceManipulation,
    /// Recording and execution.
    Execution,
}

macro_rules! message_ids {
    ($($(#[$doc:meta])* $name:ident => $category:ident,)*) => {
        /// Identifies a debug message (`D3D12_MESSAGE_ID`), named as in D3D12 where it has one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum MessageId {
            $($(#[$doc])* $name,)*
        }

        impl MessageId {
            /// The category messages with this id belong to.
            pub fn category(self) -> MessageCategory {
                match self {
                    $(MessageId::$name => MessageCategory::$category,)*
                }
            }
        }
    };
}

message_ids! {
    /// The fallback cannot lower an Async Command (`D3D12_MESSAGE_ID_ASYNC_COMMANDS_FALLBACK_UNSUPPORTED`).
    AsyncCommandsFallbackUnsupported => Execution,
    /// Invalid `ResolveQueryData` parameters (`RESOLVE_QUERY_DATA_INVALID_PARAMETERS`).
    ResolveQueryDataInvalidParameters => ResourceManipulation,
    /// Invalid device creation (settings, singleton rule).
    CreateDeviceInvalidArgs => Initialization,
    /// An invalid resource description.
    CreateResourceInvalidDesc => StateCreation,
    /// An invalid heap or placement.
    CreateResourceInvalidHeap => StateCreation,
    /// An invalid query heap description.
    CreateQueryHeapInvalidParameters => StateCreation,
    /// An invalid pipeline, or a pipeline whose shader and root signature disagree.
    CreatePipelineStateInvalid => StateCreation,
    /// A root signature D3D12's serializer refuses (size, tables, flags, overlapping registers).
    CreateRootSignatureInvalid => StateCreation,
    /// A shader module that does not parse or validate, or has no such entry point.
    CreateShaderModuleInvalid => StateCreation,
    /// A command signature D3D12 refuses (`CREATECOMMANDSIGNATURE_INVALID`).
    CreateCommandSignatureInvalid => StateCreation,
    /// An `ExecuteIndirect` whose buffers, signature or state do not fit (`EXECUTE_INDIRECT_INVALID_PARAMETERS`).
    ExecuteIndirectInvalid => Execution,
    /// An invalid view description.
    CreateViewInvalidDesc => StateCreation,
    /// An invalid descriptor handle.
    InvalidDescriptorHandle => StateSetting,
    /// A command not allowed on this command list type.
    CommandListTypeMismatch => Execution,
    /// A command recorded on a closed list, or a close of a closed list.
    CommandListClosed => Execution,
    /// A command list used while open, or executed while not closed.
    CommandListNotClosed => Execution,
    /// Reset of a list whose allocator is used by another recording list.
    CommandAllocatorInUse => Execution,
    /// Reset of an allocator whose work the GPU may still be using.
    CommandAllocatorResetWhileInFlight => Execution,
    /// Invalid `CopyBufferRegion` parameters.
    CopyBufferRegionInvalidParameters => ResourceManipulation,
    /// Invalid `CopyTextureRegion` parameters.
    CopyTextureRegionInvalidParameters => ResourceManipulation,
    /// Invalid `CopyResource` parameters.
    CopyResourceInvalidParameters => ResourceManipulation,
    /// Invalid `CopyTiles` parameters.
    CopyTilesInvalidParameters => ResourceManipulation,
    /// Invalid `ResolveSubresourceRegion` parameters.
    ResolveSubresourceInvalidParameters => ResourceManipulation,
    /// Invalid `ClearRenderTargetView` parameters.
    ClearRenderTargetViewInvalidParameters => ResourceManipulation,
    /// Invalid `ClearDepthStencilView` parameters.
    ClearDepthStencilViewInvalidParameters => ResourceManipulation,
    /// An invalid barrier (sync/access/layout combination, queue rule, range).
    IncompatibleBarrierValues => ResourceManipulation,
    /// A barrier's `LayoutBefore` does not match the subresource's layout.
    IncompatibleBarrierLayout => ResourceManipulation,
    /// A resource accessed in a layout that does not allow the access.
    InvalidSubresourceLayout => ResourceManipulation,
    /// A subresource index out of range.
    InvalidSubresourceIndex => ResourceManipulation,
    /// An invalid query begin, end or heap use.
    QueryInvalidParameters => Execution,
    /// Invalid predication.
    PredicationInvalidParameters => Execution,
    /// An invalid render-pass begin or end, or a command not allowed inside a pass.
    RenderPassInvalid => Execution,
    /// An invalid draw or dispatch (pipeline, root signature, targets).
    DrawInvalid => Execution,
    /// Invalid graphics or compute state setting.
    StateSettingInvalid => StateSetting,
    /// An invalid bundle execution.
    ExecuteBundleInvalid => Execution,
    /// Invalid `ExecuteCommandLists` parameters.
    ExecuteCommandListsInvalid => Execution,
    /// A command buffer used against its rules: a secondary buffer submitted or recorded into
    /// after it ended, a buffer of another queue, mixed semantics in one submission.
    CommandBufferInvalid => Execution,
    /// A command buffer's `transfer` between resources without the transfer usage it needs.
    TransferUsageInvalid => ResourceManipulation,
    /// A get-call on a command buffer with fast semantics, which keeps no shadow of its state.
    StateNotShadowed => StateGetting,
    /// Fast semantics, debug layer: an access races with an earlier one in its submission
    /// (read-after-write, write-after-write or write-after-read) with no barrier between them;
    /// legacy semantics would have inserted one. A warning.
    HazardWithoutBarrier => ResourceManipulation,
    /// Legacy semantics: a hazard inside a render pass or a secondary buffer, where no barrier
    /// can be inserted. A warning; end the pass first, or split the secondary buffer.
    HazardNotFixable => ResourceManipulation,
    /// Fast semantics, debug layer: an object was dropped while submitted work that uses it is
    /// pending. Its memory stays valid until the work is done. A warning.
    ObjectDroppedWhilePending => Cleanup,
    /// The debug layer: a list uses a resource that another queue writes in work not done yet,
    /// with no fence wait between them on the list's queue (spec 004). A warning.
    CrossQueueWriteNotAwaited => Execution,
    /// The debug layer: a descriptor a recorded dispatch read from a table changed before the
    /// list executed (static descriptors: D3D12 leaves it undefined; the dispatch runs with the
    /// view it read). A warning. For a `DESCRIPTORS_VOLATILE` range, the execution is refused
    /// with `ExecuteCommandListsInvalid` instead.
    DescriptorChangedAfterRecord => Execution,
    /// A streaming upload refused: its destination, range, subresource, layout or data size.
    StreamingUploadInvalid => ResourceManipulation,
    /// Fast semantics, debug layer: the CPU reads a resource that submitted, unfinished work
    /// writes (legacy semantics would have waited). A warning.
    CpuReadOfPendingWrite => ResourceManipulation,
    /// An invalid fence operation.
    FenceInvalidOperation => Execution,
    /// Invalid CPU access to a resource (map of a default heap, out of range).
    ResourceMapInvalid => ResourceManipulation,
    /// Invalid `CopyBufferRegions` parameters.
    CopyBufferRegionsInvalidParameters => ResourceManipulation,
    /// Overlapping destinations or source/destination conflicts within one `CopyBufferRegions`.
    CopyBufferRegionsOverlappingRegions => ResourceManipulation,
    /// Invalid `FillBuffers` parameters.
    FillBuffersInvalidParameters => ResourceManipulation,
    /// Invalid `ClearTextureSubresources` parameters.
    ClearTextureSubresourcesInvalidParameters => ResourceManipulation,
    /// Invalid bound-clear parameters.
    ClearBoundViewsInvalidParameters => ResourceManipulation,
    /// A selected bound-clear slot has nothing bound.
    ClearBoundViewsUnboundOutput => ResourceManipulation,
    /// An Async Command on a device where `Impl` is `NotSupported`.
    AsyncCommandsNotSupported => Execution,
    /// An allocation failed.
    OutOfMemory => Execution,
    /// A device operation the device does not support.
    DeviceUnsupported => Initialization,
    /// A call on a removed or lost device.
    DeviceRemoved => Execution,
}

/// An error: its class, the message id reported to the info queue, and a text naming the API
/// and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code:?} ({id:?}): {text}")]
pub struct Error {
    /// Error class.
    pub code: ErrorCode,
    /// Message id.
    pub id: MessageId,
    /// What went wrong, naming the API.
    pub text: String,
}

impl Error {
    /// An error of class `code`.
    pub fn new(code: ErrorCode, id: MessageId, text: impl Into<String>) -> Self {
        Self { code, id, text: text.into() }
    }

    /// An `E_INVALIDARG` error.
    pub fn invalid_arg(id: MessageId, text: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArg, id, text)
    }

    /// An `E_FAIL` error.
    pub fn fail(id: MessageId, text: impl Into<String>) -> Self {
        Self::new(ErrorCode::Fail, id, text)
    }

    /// An out-of-memory error.
    pub fn out_of_memory(text: impl Into<String>) -> Self {
        Self::new(ErrorCode::OutOfMemory, MessageId::OutOfMemory, text)
    }

    /// A `DXGI_ERROR_DEVICE_REMOVED` error.
    pub fn device_removed(text: impl Into<String>) -> Self {
        Self::new(ErrorCode::DeviceRemoved, MessageId::DeviceRemoved, text)
    }

    /// An unsupported-feature error.
    pub fn unsupported(text: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unsupported, MessageId::DeviceUnsupported, text)
    }
}

/// A result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

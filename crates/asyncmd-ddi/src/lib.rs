//! The asyncmd driver interface (DDI): what a device implements so that the runtime can run on
//! it.
//!
//! Two parts, as in the specification: the **legacy DDIs** every device has (resource, heap,
//! view, pipeline, root-signature and query-heap creation; and on a command list the
//! [`Command`]s from `CopyBufferRegion` to `ExecuteBundle`), and the optional **native async
//! DDIs** ([`Command::is_async`]), which a device announces with
//! [`Capabilities::native_async_commands`]. Legacy copies, clears and resolves are serialized
//! against each other by the device; native async commands have no implicit ordering between
//! their independent parts.
//!
//! [`spy::SpyDevice`] wraps any device and logs each recorded command for route tests.

mod caps;
mod command;
mod device;
mod ids;
mod pipeline;
mod shader;
pub mod spy;
mod table;

pub use caps::*;
pub use command::*;
pub use device::*;
pub use ids::*;
pub use pipeline::*;
pub use shader::*;
pub use table::Table;
// Root signatures and the comparison live with the plain data; the driver interface names them
// where it always did.
pub use asyncmd_types::{ComparisonFunc, RootParameter, RootSignatureDesc};

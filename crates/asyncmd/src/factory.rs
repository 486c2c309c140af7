//! The device factory: the app's opt-in to the Async Commands fallback, the developer's forced
//! setting, the singleton-device rule, and the choice of [`AsyncCommandsImpl`].

use crate::config::force_fallback_setting;
use crate::device::{Device, DeviceShared};
use crate::err;
use asyncmd_ddi::{Capabilities, DeviceDdi, ASYNC_COMMANDS_DDI_VERSION};
use asyncmd_types::{AsyncCommandsImpl, MessageId, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

/// A device implementation the runtime can create devices on (an `IDXGIAdapter`).
///
/// Each adapter wraps one driver device; devices created from clones of one adapter go through
/// the same singleton path.
#[derive(Clone)]
pub struct Adapter {
    pub(crate) ddi: Arc<dyn DeviceDdi>,
}

impl Adapter {
    /// An adapter over a driver device.
    pub fn new(ddi: Arc<dyn DeviceDdi>) -> Self {
        Self { ddi }
    }

    /// The driver's capabilities.
    pub fn capabilities(&self) -> &Capabilities {
        self.ddi.capabilities()
    }

    fn key(&self) -> *const () {
        Arc::as_ptr(&self.ddi) as *const ()
    }
}

/// Startup options read when a device is created (`D3D_RUNTIME_STARTUP_OPTIONS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StartupOptions {
    /// The app opted in to the fallback (`bAsyncCommandsFallbackEnabled`).
    pub async_commands_fallback_enabled: bool,
    /// A developer forces the fallback (`bAsyncCommandsForceFallback`).
    pub async_commands_force_fallback: bool,
    /// The fallback clears as the D3D12 runtime's does where a legacy view clear cannot store
    /// the value exactly: with the closest value that clear takes
    /// ([`AsyncCommandsFallback::set_closest_clear_values`]).
    pub async_commands_closest_clear_values: bool,
}

/// Chooses the Async Commands implementation, once, at device creation:
/// FALLBACK if the device has enhanced barriers and the fallback is forced, or the app opted
/// in and the driver has no native support; else NATIVE if the driver reports the DDI and
/// feature version; else NOT_SUPPORTED.
pub fn select_impl(caps: &Capabilities, options: StartupOptions) -> AsyncCommandsImpl {
    let native = caps.native_async_commands.is_some_and(|v| v >= ASYNC_COMMANDS_DDI_VERSION);
    let wants_fallback = options.async_commands_force_fallback || (options.async_commands_fallback_enabled && !native);
    if caps.enhanced_barriers && wants_fallback {
        AsyncCommandsImpl::Fallback
    } else if native {
        AsyncCommandsImpl::Native
    } else {
        AsyncCommandsImpl::NotSupported
    }
}

/// The factory's configuration interface for the fallback (`ID3D12AsyncCommandsFallback`).
#[derive(Default)]
pub struct AsyncCommandsFallback {
    enabled: AtomicBool,
    closest: AtomicBool,
}

impl AsyncCommandsFallback {
    /// Opts in to (or out of) the fallback for devices this factory creates from now on.
    pub fn set_fallback_layer_enabled(&self, enable: bool) {
        self.enabled.store(enable, Ordering::Relaxed);
    }

    /// Whether the app opted in.
    pub fn fallback_layer_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Makes the fallback of devices this factory creates from now on clear as the D3D12
    /// runtime's fallback does: multisampled `ClearTextureSubresources` and the bound clears'
    /// legacy shortcut outside a render pass take the closest value a legacy view clear can
    /// store (integers above 2^24 in magnitude may round, subnormals flush, NaN payloads are
    /// not kept). Off by default: asyncmd's fallback then draws those clears, which stores
    /// every value exactly, as native clears do. For apps that compare against results the
    /// D3D12 runtime produced.
    pub fn set_closest_clear_values(&self, closest: bool) {
        self.closest.store(closest, Ordering::Relaxed);
    }

    /// Whether new devices clear with the closest value ([`Self::set_closest_clear_values`]).
    pub fn closest_clear_values(&self) -> bool {
        self.closest.load(Ordering::Relaxed)
    }
}

/// Factory flags (`D3D12_DEVICE_FACTORY_FLAGS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceFactoryFlags {
    /// `DISALLOW_STORING_NEW_DEVICE_AS_SINGLETON`: a new device is neither matched against
    /// nor stored as the adapter's singleton.
    pub disallow_storing_new_device_as_singleton: bool,
}

/// Creates devices (`ID3D12DeviceFactory`). Each factory keeps its own singleton devices, one
/// per adapter; [`DeviceFactory::global`] is the process-wide path.
#[derive(Default)]
pub struct DeviceFactory {
    fallback: AsyncCommandsFallback,
    flags: Mutex<DeviceFactoryFlags>,
    singletons: Mutex<Vec<(usize, Weak<DeviceShared>)>>,
}

impl DeviceFactory {
    /// A factory with its own singleton table (`D3D12GetInterface(CLSID_D3D12DeviceFactory)`).
    pub fn new() -> Self {
        Self::default()
    }

    /// The process-wide factory (the path `D3D12CreateDevice` takes).
    pub fn global() -> &'static DeviceFactory {
        static GLOBAL: OnceLock<DeviceFactory> = OnceLock::new();
        GLOBAL.get_or_init(DeviceFactory::new)
    }

    /// The fallback configuration interface (`GetConfigurationInterface(CLSID_D3D12AsyncCommandsFallback)`).
    pub fn async_commands_fallback(&self) -> &AsyncCommandsFallback {
        &self.fallback
    }

    /// Sets the factory flags.
    pub fn set_flags(&self, flags: DeviceFactoryFlags) {
        *self.flags.lock().unwrap_or_else(PoisonError::into_inner) = flags;
    }

    /// The factory flags.
    pub fn flags(&self) -> DeviceFactoryFlags {
        *self.flags.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The startup options a device created now would get.
    pub fn startup_options(&self) -> Result<StartupOptions> {
        Ok(StartupOptions {
            async_commands_fallback_enabled: self.fallback.fallback_layer_enabled(),
            async_commands_force_fallback: force_fallback_setting()?,
            async_commands_closest_clear_values: self.fallback.closest_clear_values(),
        })
    }

    /// Creates a device on `adapter`, or returns the adapter's singleton device when one exists
    /// with the same settings. A singleton with different settings makes this fail, unless the
    /// factory disallows storing singletons.
    pub fn create_device(&self, adapter: &Adapter) -> Result<Device> {
        let options = self.startup_options()?;
        let key = adapter.key() as usize;
        let singleton = !self.flags().disallow_storing_new_device_as_singleton;
        let mut table = self.singletons.lock().unwrap_or_else(PoisonError::into_inner);
        table.retain(|(_, w)| w.strong_count() > 0);
        if singleton {
            if let Some(existing) = table.iter().find(|(k, _)| *k == key).and_then(|(_, w)| w.upgrade()) {
                if existing.options == options {
                    return Ok(Device::for_app(existing));
                }
                return Err(err::invalid(MessageId::CreateDeviceInvalidArgs, "CreateDevice", format!("a singleton device already exists on this adapter with different settings \
                         ({:?}, asked for {:?}); create it with DISALLOW_STORING_NEW_DEVICE_AS_SINGLETON or from a separate factory",
                        existing.options, options)));
            }
        }
        let shared =
            Arc::new(DeviceShared::new(adapter.ddi.clone(), options, select_impl(adapter.capabilities(), options)));
        if singleton {
            table.push((key, Arc::downgrade(&shared)));
        }
        tracing::info!(impl_ = ?shared.async_impl, ?options, "created device on {}", adapter.capabilities().name);
        Ok(Device::for_app(shared))
    }
}

//! The Vulkan instance: run-time loading of libvulkan, the validation layer and its messages.

use ash::vk;
use asyncmd_types::{Error, Result};
use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex, PoisonError};

/// Whether to run with the Khronos validation layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Validation {
    /// No validation layer.
    #[default]
    Off,
    /// The validation layer with synchronization validation, where it is installed.
    IfAvailable,
    /// The validation layer; device creation fails without it.
    Required,
}

/// Error and warning messages the validation layer reported.
#[derive(Clone, Default)]
pub struct ValidationLog(Arc<Mutex<Vec<(bool, String)>>>);

impl ValidationLog {
    /// The error messages so far.
    pub fn messages(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).iter().filter(|m| m.0).map(|m| m.1.clone()).collect()
    }

    /// The warning messages so far.
    pub fn warnings(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).iter().filter(|m| !m.0).map(|m| m.1.clone()).collect()
    }

    /// Forgets the messages so far.
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

thread_local! {
    /// Messages the call in progress on this thread is known not to deserve (see
    /// [`disproven`]).
    static DISPROVEN: std::cell::Cell<&'static [&'static str]> = const { std::cell::Cell::new(&[]) };
}

/// Runs `call` with the messages that contain one of `texts` counted as warnings: for a call
/// the device has proved valid where the layer cannot tell, or a failure the device handles
/// itself. The layer and the loader report their messages on the calling thread, inside the
/// call.
pub(crate) fn disproven<R>(texts: &'static [&'static str], call: impl FnOnce() -> R) -> R {
    let before = DISPROVEN.with(|d| d.replace(texts));
    let r = call();
    DISPROVEN.with(|d| d.set(before));
    r
}

pub(crate) struct Instance {
    /// Keeps libvulkan loaded for as long as the instance lives.
    _entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// Keeps the callback's user data alive as long as the messenger.
    log_box: Option<*mut ValidationLog>,
    pub(crate) log: ValidationLog,
    pub(crate) validation: bool,
}

// SAFETY: the raw pointer is only the messenger's user data: written once at creation, read by
// the driver's callback, freed at drop after the messenger is destroyed.
unsafe impl Send for Instance {}
// SAFETY: as above; every other field is Sync.
unsafe impl Sync for Instance {}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if data.is_null() || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the layer passes a valid callback-data struct for the duration of the call.
    let data = unsafe { &*data };
    let text = if data.p_message.is_null() {
        String::new()
    } else {
        // SAFETY: `p_message` is a NUL-terminated string owned by the layer during the call.
        unsafe { CStr::from_ptr(data.p_message) }.to_string_lossy().into_owned()
    };
    // SAFETY: `user` is the `ValidationLog` boxed by `Instance::new`, alive until the messenger
    // is destroyed.
    let log = unsafe { &*(user as *const ValidationLog) };
    // The layer reports its own tracking timing out when one thread waits on a timeline value
    // another thread signals from the host (it says "most likely a validation bug"): the
    // application did nothing wrong, so it counts as a warning.
    let layer_bug = text.contains("UNASSIGNED-VkSemaphore-state-timeout")
        || DISPROVEN.with(|d| d.get().iter().any(|t| text.contains(t)));
    let error = severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) && !layer_bug;
    if error {
        tracing::error!("vulkan validation: {text}");
    } else {
        tracing::warn!("vulkan validation: {text}");
    }
    log.0.lock().unwrap_or_else(PoisonError::into_inner).push((error, text));
    vk::FALSE
}

impl Instance {
    pub(crate) fn new(validation: Validation) -> Result<Self> {
        // SAFETY: loading libvulkan runs its initialisers; we trust the system's loader.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| Error::unsupported(format!("Vulkan: no Vulkan loader (libvulkan) could be loaded: {e}")))?;
        // SAFETY: plain enumeration through a loaded entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
        let has_layer = layers.iter().any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER));
        let enable = match validation {
            Validation::Off => false,
            Validation::IfAvailable => has_layer,
            Validation::Required if has_layer => true,
            Validation::Required => {
                return Err(Error::unsupported("Vulkan: the Khronos validation layer is required but not installed"));
            }
        };
        let app = vk::ApplicationInfo::default()
            .application_name(c"asyncmd")
            .engine_name(c"asyncmd")
            .api_version(vk::API_VERSION_1_3);
        let layer_names = [VALIDATION_LAYER.as_ptr()];
        let extension_names = [ash::ext::debug_utils::NAME.as_ptr()];
        let enabled_validation = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_validation);
        let mut info = vk::InstanceCreateInfo::default().application_info(&app);
        if enable {
            info = info
                .enabled_layer_names(&layer_names)
                .enabled_extension_names(&extension_names)
                .push_next(&mut features);
        }
        if enable {
            crate::gate::layer_loading();
        }
        // SAFETY: every pointer in `info` refers to locals that outlive the call.
        let instance = crate::gate::exclusive(|| unsafe { entry.create_instance(&info, None) })
            .map_err(|e| Error::unsupported(format!("Vulkan: cannot create a Vulkan 1.3 instance: {e}")))?;
        let log = ValidationLog::default();
        let (debug, log_box) = if enable {
            let user = Box::into_raw(Box::new(log.clone()));
            let utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::ERROR | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(on_message))
                .user_data(user as *mut c_void);
            // SAFETY: the callback and its user data stay valid until the messenger is destroyed.
            match unsafe { utils.create_debug_utils_messenger(&messenger_info, None) } {
                Ok(m) => (Some((utils, m)), Some(user)),
                Err(e) => {
                    // SAFETY: the box was made above and not handed to anyone.
                    drop(unsafe { Box::from_raw(user) });
                    tracing::warn!("Vulkan: no debug messenger: {e}");
                    (None, None)
                }
            }
        } else {
            (None, None)
        };
        Ok(Self { _entry: entry, instance, debug, log_box, log, validation: enable })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // On a pooled thread, as its creation (`ThreadExit`); the closure takes the instance
        // whole (its log pointer alone is not `Send`).
        let this = &mut *self;
        crate::threads::on_pooled(move || {
            if let Some((utils, messenger)) = this.debug.take() {
                // SAFETY: the messenger was created from this instance and is destroyed once.
                unsafe { utils.destroy_debug_utils_messenger(messenger, None) };
            }
            if let Some(user) = this.log_box.take() {
                // SAFETY: the messenger that used the pointer is gone; the box is freed once.
                drop(unsafe { Box::from_raw(user) });
            }
            // SAFETY: every child object of the instance was destroyed before (devices own an Arc).
            crate::gate::exclusive(|| unsafe { this.instance.destroy_instance(None) });
        })
    }
}

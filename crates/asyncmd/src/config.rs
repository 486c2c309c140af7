//! Persisted developer settings (`d3dconfig`'s role): `force-async-commands-fallback`.
//!
//! The forced setting comes, in order of precedence, from a [`ForceFallbackGuard`] alive on the
//! current thread, the `ASYNCMD_FORCE_ASYNC_COMMANDS_FALLBACK` environment variable, and the
//! persisted config file. It is kept apart from the app's opt-in.

use asyncmd_types::{Error, MessageId, Result};
use std::cell::RefCell;
use std::path::PathBuf;

/// Name of the forcing setting in the config file and on the command line.
pub const FORCE_FALLBACK_KEY: &str = "force-async-commands-fallback";
/// Environment variable that overrides the persisted forcing setting (`1`/`true` or `0`/`false`).
pub const FORCE_FALLBACK_ENV: &str = "ASYNCMD_FORCE_ASYNC_COMMANDS_FALLBACK";
/// Environment variable that moves the config file (used by tests and CI).
pub const CONFIG_PATH_ENV: &str = "ASYNCMD_CONFIG";

/// The persisted developer settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeveloperConfig {
    /// Force the Async Commands fallback on devices that support enhanced barriers.
    pub force_async_commands_fallback: bool,
}

/// Where the config file lives: `$ASYNCMD_CONFIG`, else `<user config dir>/asyncmd/config`.
pub fn config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(CONFIG_PATH_ENV) {
        return Some(PathBuf::from(p));
    }
    dirs::config_dir().map(|d| d.join("asyncmd").join("config"))
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

impl DeveloperConfig {
    /// Reads the config file; a missing file gives the defaults.
    pub fn load() -> Result<Self> {
        let Some(path) = config_path() else { return Ok(Self::default()) };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(config_error(format!("cannot read {}: {e}", path.display()))),
        };
        let mut config = Self::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            config.set(line).map_err(|e| config_error(format!("{}:{}: {}", path.display(), n + 1, e.text)))?;
        }
        Ok(config)
    }

    /// Applies one `key=value` setting.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let (key, value) =
            assignment.split_once('=').ok_or_else(|| config_error(format!("`{assignment}` is not key=value")))?;
        match key.trim() {
            FORCE_FALLBACK_KEY => {
                self.force_async_commands_fallback =
                    parse_bool(value).ok_or_else(|| config_error(format!("`{}` is not true or false", value.trim())))?
            }
            other => return Err(config_error(format!("unknown setting `{other}`"))),
        }
        Ok(())
    }

    /// Writes the config file, creating its folder.
    pub fn save(&self) -> Result<PathBuf> {
        let path = config_path().ok_or_else(|| config_error("no user config directory".into()))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| config_error(format!("cannot create {}: {e}", dir.display())))?;
        }
        std::fs::write(&path, format!("{FORCE_FALLBACK_KEY}={}\n", self.force_async_commands_fallback))
            .map_err(|e| config_error(format!("cannot write {}: {e}", path.display())))?;
        Ok(path)
    }
}

fn config_error(text: String) -> Error {
    Error::invalid_arg(MessageId::CreateDeviceInvalidArgs, format!("config: {text}"))
}

thread_local! {
    static GUARDS: RefCell<Vec<bool>> = const { RefCell::new(Vec::new()) };
}

/// Forces the fallback on (or off) for devices created on this thread while it lives, then
/// restores the previous setting. Tests use it to rerun against the fallback without changing
/// machine settings.
pub struct ForceFallbackGuard {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl ForceFallbackGuard {
    /// Sets the forced setting to `force` until the guard is dropped.
    pub fn new(force: bool) -> Self {
        GUARDS.with(|g| g.borrow_mut().push(force));
        Self { _not_send: std::marker::PhantomData }
    }
}

impl Drop for ForceFallbackGuard {
    fn drop(&mut self) {
        GUARDS.with(|g| {
            g.borrow_mut().pop();
        });
    }
}

/// The forced setting in effect on this thread: guard, then environment, then config file.
pub fn force_fallback_setting() -> Result<bool> {
    if let Some(v) = GUARDS.with(|g| g.borrow().last().copied()) {
        return Ok(v);
    }
    if let Ok(v) = std::env::var(FORCE_FALLBACK_ENV) {
        return parse_bool(&v).ok_or_else(|| config_error(format!("{FORCE_FALLBACK_ENV}=`{v}` is not true or false")));
    }
    Ok(DeveloperConfig::load()?.force_async_commands_fallback)
}

//! The `Impl` truth table, opt-in, forcing and the singleton-device rules.

mod common;

use asyncmd::ddi::{Capabilities, ASYNC_COMMANDS_DDI_VERSION};
use asyncmd::*;
use asyncmd_reference::ReferenceConfig;
use common::*;

fn caps(enhanced: bool, native: bool) -> Capabilities {
    Capabilities {
        name: "test".into(),
        enhanced_barriers: enhanced,
        native_async_commands: native.then_some(ASYNC_COMMANDS_DDI_VERSION),
        uma: false,
        programmable_sample_positions: false,
        tiled_resources_tier: 0,
        compute_fill_shader: true,
        compute_fills_win: true,
        protected_content: false,
        resolve_min_max: true,
        timestamp_frequency: 1,
        dedicated_copy_queue: true,
        copy_queue_timestamps: true,
        indirect_root_constants: true,
    }
}

/// The spec's rule, written out cell by cell.
fn expected(enhanced: bool, native: bool, opt_in: bool, forced: bool) -> AsyncCommandsImpl {
    use AsyncCommandsImpl::*;
    match (enhanced, native, opt_in, forced) {
        (true, _, _, true) => Fallback,
        (true, false, true, false) => Fallback,
        (_, true, _, _) => Native,
        _ => NotSupported,
    }
}

#[test]
fn truth_table_of_select_impl_matches_the_spec_in_every_cell() {
    for bits in 0..16u8 {
        let (e, n, o, f) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0);
        let options = StartupOptions {
            async_commands_fallback_enabled: o,
            async_commands_force_fallback: f,
            ..Default::default()
        };
        assert_eq!(
            select_impl(&caps(e, n), options),
            expected(e, n, o, f),
            "enhanced {e} native {n} opt-in {o} forced {f}"
        );
    }
}

#[test]
fn truth_table_holds_on_real_devices() {
    for bits in 0..16u8 {
        let (e, n, o, f) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0, bits & 8 != 0);
        let _guard = ForceFallbackGuard::new(f);
        let factory = DeviceFactory::new();
        factory.async_commands_fallback().set_fallback_layer_enabled(o);
        let adapter =
            reference_adapter(ReferenceConfig { enhanced_barriers: e, native_async_commands: n, ..Default::default() });
        let device = factory.create_device(&adapter).unwrap();
        assert_eq!(device.async_commands_impl(), expected(e, n, o, f), "enhanced {e} native {n} opt-in {o} forced {f}");
        assert_eq!(device.configuration().async_commands_fallback_enabled, o);
        assert_eq!(device.configuration().async_commands_force_fallback, f);
    }
}

#[test]
fn named_cells_of_the_spec() {
    let make = |e: bool, n: bool, o: bool| {
        let factory = DeviceFactory::new();
        factory.async_commands_fallback().set_fallback_layer_enabled(o);
        factory
            .create_device(&reference_adapter(ReferenceConfig {
                enhanced_barriers: e,
                native_async_commands: n,
                ..Default::default()
            }))
            .unwrap()
            .async_commands_impl()
    };
    {
        let _g = ForceFallbackGuard::new(true);
        // Forcing on a device without enhanced barriers changes nothing.
        assert_eq!(make(false, false, false), AsyncCommandsImpl::NotSupported);
        assert_eq!(make(false, true, false), AsyncCommandsImpl::Native);
    }
    let _g = ForceFallbackGuard::new(false);
    // A native device without enhanced barriers reports NATIVE.
    assert_eq!(make(false, true, false), AsyncCommandsImpl::Native);
    // Opting in on a native device still gets NATIVE: opt-in is a permission.
    assert_eq!(make(true, true, true), AsyncCommandsImpl::Native);
    // Without opt-in or forcing, a device without native support has nothing.
    assert_eq!(make(true, false, false), AsyncCommandsImpl::NotSupported);
}

#[test]
fn scoped_guard_restores_the_previous_setting() {
    let _outer = ForceFallbackGuard::new(false);
    assert!(!config::force_fallback_setting().unwrap());
    {
        let _inner = ForceFallbackGuard::new(true);
        assert!(config::force_fallback_setting().unwrap());
        let device = reference_device(ReferenceConfig { native_async_commands: true, ..Default::default() });
        assert_eq!(device.async_commands_impl(), AsyncCommandsImpl::Fallback);
    }
    assert!(!config::force_fallback_setting().unwrap());
    let device = reference_device(ReferenceConfig { native_async_commands: true, ..Default::default() });
    assert_eq!(device.async_commands_impl(), AsyncCommandsImpl::Native);
}

#[test]
fn forcing_is_kept_apart_from_the_opt_in() {
    let factory = DeviceFactory::new();
    factory.async_commands_fallback().set_fallback_layer_enabled(false);
    {
        let _g = ForceFallbackGuard::new(true);
        let d = factory.create_device(&reference_adapter(ReferenceConfig::default())).unwrap();
        assert_eq!(d.async_commands_impl(), AsyncCommandsImpl::Fallback);
        assert!(!d.configuration().async_commands_fallback_enabled, "forcing must not change the app's opt-in");
    }
    assert!(!factory.async_commands_fallback().fallback_layer_enabled());
}

#[test]
fn singleton_with_different_settings_fails_through_the_same_path() {
    let _g = ForceFallbackGuard::new(false);
    let factory = DeviceFactory::new();
    let adapter = reference_adapter(ReferenceConfig::default());
    let first = factory.create_device(&adapter).unwrap();
    // The same settings give back the singleton.
    let again = factory.create_device(&adapter).unwrap();
    assert!(first.same(&again));
    // Different settings through the same path fail.
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    let err = factory.create_device(&adapter).err().expect("must fail");
    assert_eq!((err.code, err.id), (ErrorCode::InvalidArg, MessageId::CreateDeviceInvalidArgs));
    assert!(err.text.contains("DISALLOW_STORING_NEW_DEVICE_AS_SINGLETON"), "{}", err.text);
    // The flag that disallows storing the new device as singleton makes it work.
    factory.set_flags(DeviceFactoryFlags { disallow_storing_new_device_as_singleton: true });
    let second = factory.create_device(&adapter).unwrap();
    assert_eq!(second.async_commands_impl(), AsyncCommandsImpl::Fallback);
    assert!(!second.same(&first));
    assert_eq!(first.async_commands_impl(), AsyncCommandsImpl::NotSupported);
}

#[test]
fn a_separate_factory_has_its_own_singletons() {
    let _g = ForceFallbackGuard::new(false);
    let adapter = reference_adapter(ReferenceConfig::default());
    let a = DeviceFactory::new();
    let _first = a.create_device(&adapter).unwrap();
    let b = DeviceFactory::new();
    b.async_commands_fallback().set_fallback_layer_enabled(true);
    let other = b.create_device(&adapter).unwrap();
    assert_eq!(other.async_commands_impl(), AsyncCommandsImpl::Fallback);
}

#[test]
fn a_dropped_singleton_no_longer_blocks_new_settings() {
    let _g = ForceFallbackGuard::new(false);
    let factory = DeviceFactory::new();
    let adapter = reference_adapter(ReferenceConfig::default());
    drop(factory.create_device(&adapter).unwrap());
    factory.async_commands_fallback().set_fallback_layer_enabled(true);
    assert_eq!(factory.create_device(&adapter).unwrap().async_commands_impl(), AsyncCommandsImpl::Fallback);
}

#[test]
fn config_settings_parse_and_reject_garbage() {
    let mut c = DeveloperConfig::default();
    c.set("force-async-commands-fallback=true").unwrap();
    assert!(c.force_async_commands_fallback);
    c.set(" force-async-commands-fallback = 0 ").unwrap();
    assert!(!c.force_async_commands_fallback);
    for bad in ["force-async-commands-fallback=maybe", "no-such-key=true", "novalue"] {
        let e = c.set(bad).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArg, "{bad}");
    }
}

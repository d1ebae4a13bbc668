//! The `wasi:*` functions a ruleset links but may not use, each defined as a host function that
//! fails its call with a typed [`ForbiddenImportCalled`].
//!
//! Rust's standard library links pieces of WASI (clocks, files, the environment) into every
//! component, and a component that does not link cannot be loaded: so the host defines them all,
//! and any call fails the ruleset's call. wasmtime's own `define_unknown_imports_as_traps` does
//! the same but fails with an untyped message ("unknown import: ..."), which the host would then
//! have to recognise by its wording; a wasmtime upgrade that changed the wording would have
//! turned a ruleset reaching for the clock into an unexplained fault. This module's error is a
//! type the failure classification downcasts to.
//!
//! The few functions a panic needs (standard error, the environment) are answered properly by
//! `panic_output`, defined after these stubs and shadowing them.

use std::fmt;

use anyhow::Result;
use wasmtime::Engine;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, Linker, ResourceType};

use crate::store::StoreState;

/// A ruleset called a WASI function the host gives no ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ForbiddenImportCalled {
    /// The function, as `interface#function` (`wasi:clocks/wall-clock@0.2.6#now`).
    pub(crate) import: String,
}

impl fmt::Display for ForbiddenImportCalled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "it called `{}`, which a ruleset cannot use", self.import)
    }
}

impl std::error::Error for ForbiddenImportCalled {}

/// Defines every function and resource of every `wasi:*` interface `component` imports as a
/// stub whose call fails with [`ForbiddenImportCalled`]. Leaves the linker allowing shadowing,
/// so `panic_output` can then answer the few functions a panic's message needs.
///
/// Only `wasi:*` interfaces are stubbed: the contract's own are defined by the bindings, and a
/// component importing anything else was refused before it got here (`check_component`).
pub(crate) fn define_as_failing(
    linker: &mut Linker<StoreState>,
    engine: &Engine,
    component: &Component,
) -> Result<()> {
    linker.allow_shadowing(true);
    for (name, import) in component.component_type().imports(engine) {
        if !name.starts_with("wasi:") {
            continue;
        }
        let ComponentItem::ComponentInstance(instance) = import.ty else {
            continue;
        };
        let mut stubs = linker.instance(name)?;
        for (export, item) in instance.exports(engine) {
            match item.ty {
                ComponentItem::ComponentFunc(_) => {
                    let called = ForbiddenImportCalled {
                        import: format!("{name}#{export}"),
                    };
                    stubs.func_new(export, move |_, _, _, _| {
                        Err(wasmtime::Error::new(called.clone()))
                    })?;
                }
                ComponentItem::Resource(_) => {
                    stubs.resource(export, ResourceType::host::<()>(), |_, _| Ok(()))?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

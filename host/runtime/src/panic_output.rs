//! Just enough of WASI for Rust's panic hook to tell the host what went wrong.
//!
//! A ruleset never does I/O, and every `wasi:*` function it links is defined to trap. But Rust's
//! standard library, when a ruleset panics, first reads the environment (for
//! `RUST_BACKTRACE`) and then writes the message to standard error: with both trapping, the
//! host only ever saw "unknown import `wasi:cli/environment...`" and the message was lost. So
//! the host answers exactly these three functions: the environment is empty, and standard
//! error is a stream whose bytes (at most [`MOST_PANIC_BYTES`] per call) are kept in the store,
//! where a failed call reads them as its panic message. Nothing reaches the host's own output,
//! and nothing else of WASI is provided.

use anyhow::Result;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, Linker, Resource, ResourceAny, ResourceType, Val};
use wasmtime::{AsContextMut, Engine, StoreContextMut};

use crate::store::StoreState;

/// The most bytes of panic output one call keeps.
pub(crate) const MOST_PANIC_BYTES: usize = 4096;

/// The standard error stream a ruleset is handed: it only collects bytes.
struct PanicStream;

/// What the stream hands out to wait on: it is always ready.
struct PanicPollable;

/// Keeps what a write puts on the stream, up to [`MOST_PANIC_BYTES`] per call.
fn keep(state: &mut StoreState, bytes: Option<&Val>) {
    if let Some(Val::List(bytes)) = bytes {
        let room = MOST_PANIC_BYTES.saturating_sub(state.panic_output.len());
        state
            .panic_output
            .extend(bytes.iter().take(room).filter_map(|byte| match byte {
                Val::U8(byte) => Some(*byte),
                _ => None,
            }));
    }
}

/// Ends the borrows a method was handed (its `self`, the pollables of `poll`): a host function
/// typed at run time must hand each back before it returns.
fn end_borrows(mut store: StoreContextMut<'_, StoreState>, params: &[Val]) -> wasmtime::Result<()> {
    for param in params {
        match param {
            Val::Resource(resource) => resource.resource_drop(&mut store)?,
            Val::List(items) => end_borrows(store.as_context_mut(), items)?,
            _ => {}
        }
    }
    Ok(())
}

/// Defines the environment and standard error for `component`, at the exact versions it
/// imports, before the rest of WASI is defined to trap. Rust's standard library writes the
/// way WASI's C library does: wait until the stream is ready, ask how much it takes, write,
/// flush; so those few calls are answered too, always ready, always taking everything.
pub(crate) fn define(
    linker: &mut Linker<StoreState>,
    engine: &Engine,
    component: &Component,
) -> Result<()> {
    let component_type = component.component_type();
    let mut imports = Vec::new();
    for (name, import) in component_type.imports(engine) {
        // A resource type appears in every interface that uses it (`wasi:cli/stdout` too):
        // each must name the same resource, or the component does not type-check.
        if let ComponentItem::ComponentInstance(instance) = import.ty {
            for (export, item) in instance.exports(engine) {
                if !matches!(item.ty, ComponentItem::Resource(_)) {
                    continue;
                }
                let ty = match export {
                    "output-stream" => ResourceType::host::<PanicStream>(),
                    "pollable" => ResourceType::host::<PanicPollable>(),
                    _ => continue,
                };
                linker.instance(name)?.resource(export, ty, |_, _| Ok(()))?;
            }
        }
        imports.push(name.to_owned());
    }
    for name in &imports {
        if name.starts_with("wasi:cli/environment@") {
            linker
                .instance(name)?
                .func_new("get-environment", |_, _, _, results| {
                    results[0] = Val::List(Vec::new());
                    Ok(())
                })?;
        } else if name.starts_with("wasi:cli/stderr@") {
            linker
                .instance(name)?
                .func_new("get-stderr", |mut store, _, _, results| {
                    let stream = Resource::<PanicStream>::new_own(0);
                    results[0] = Val::Resource(ResourceAny::try_from_resource(stream, &mut store)?);
                    Ok(())
                })?;
        } else if name.starts_with("wasi:io/poll@") {
            let mut poll = linker.instance(name)?;
            poll.func_new("[method]pollable.block", |store, _, params, _| {
                end_borrows(store, params)
            })?;
            poll.func_new("[method]pollable.ready", |store, _, params, results| {
                results[0] = Val::Bool(true);
                end_borrows(store, params)
            })?;
            poll.func_new("poll", |store, _, params, results| {
                let count = match params.first() {
                    Some(Val::List(pollables)) => pollables.len(),
                    _ => 0,
                };
                let ready = (0..count)
                    .map(|index| Val::U32(u32::try_from(index).unwrap_or(u32::MAX)))
                    .collect();
                results[0] = Val::List(ready);
                end_borrows(store, params)
            })?;
        } else if name.starts_with("wasi:io/streams@") {
            let mut streams = linker.instance(name)?;
            let ok = || Val::Result(Ok(None));
            for write in [
                "[method]output-stream.blocking-write-and-flush",
                "[method]output-stream.write",
            ] {
                streams.func_new(write, move |mut store, _, params, results| {
                    keep(store.data_mut(), params.get(1));
                    results[0] = ok();
                    end_borrows(store, params)
                })?;
            }
            streams.func_new(
                "[method]output-stream.check-write",
                |store, _, params, results| {
                    results[0] = Val::Result(Ok(Some(Box::new(Val::U64(4096)))));
                    end_borrows(store, params)
                },
            )?;
            for flush in [
                "[method]output-stream.flush",
                "[method]output-stream.blocking-flush",
            ] {
                streams.func_new(flush, move |store, _, params, results| {
                    results[0] = ok();
                    end_borrows(store, params)
                })?;
            }
            streams.func_new(
                "[method]output-stream.subscribe",
                |mut store, _, params, results| {
                    let pollable = Resource::<PanicPollable>::new_own(0);
                    results[0] =
                        Val::Resource(ResourceAny::try_from_resource(pollable, &mut store)?);
                    end_borrows(store, params)
                },
            )?;
        }
    }
    Ok(())
}

/// The panic message in what a ruleset wrote to standard error: std writes
/// "thread '...' panicked at <file:line:column>:\n<message>\nnote: ...".
pub(crate) fn panic_message(output: &[u8]) -> Option<String> {
    if output.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(output);
    let text = text.trim();
    let text = text
        .split_once("panicked at ")
        .map_or(text, |(_, rest)| rest);
    let text = text
        .split_once("\nnote: ")
        .map_or(text, |(message, _)| message);
    let message: String = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(message.chars().take(1000).collect())
}

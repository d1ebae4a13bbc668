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
use wasmtime::Engine;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, Linker, Resource, ResourceAny, ResourceType, Val};

use super::StoreState;

/// The most bytes of panic output one call keeps.
pub(crate) const MOST_PANIC_BYTES: usize = 4096;

/// The standard error stream a ruleset is handed: it only collects bytes.
struct PanicStream;

/// Defines the environment and standard error for `component`, at the exact versions it
/// imports, before the rest of WASI is defined to trap.
pub(crate) fn define(
    linker: &mut Linker<StoreState>,
    engine: &Engine,
    component: &Component,
) -> Result<()> {
    let component_type = component.component_type();
    let mut imports = Vec::new();
    for (name, import) in component_type.imports(engine) {
        // The stream type appears in every interface that uses it (`wasi:cli/stdout` too):
        // each must name the same resource, or the component does not type-check.
        if let ComponentItem::ComponentInstance(instance) = import.ty {
            let has_stream = instance.exports(engine).any(|(export, item)| {
                export == "output-stream" && matches!(item.ty, ComponentItem::Resource(_))
            });
            if has_stream {
                linker.instance(name)?.resource(
                    "output-stream",
                    ResourceType::host::<PanicStream>(),
                    |_, _| Ok(()),
                )?;
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
        } else if name.starts_with("wasi:io/streams@") {
            linker.instance(name)?.func_new(
                "[method]output-stream.blocking-write-and-flush",
                |mut store, _, params, results| {
                    if let Some(Val::List(bytes)) = params.get(1) {
                        let kept = &mut store.data_mut().panic_output;
                        let room = MOST_PANIC_BYTES.saturating_sub(kept.len());
                        kept.extend(bytes.iter().take(room).filter_map(|byte| match byte {
                            Val::U8(byte) => Some(*byte),
                            _ => None,
                        }));
                    }
                    results[0] = Val::Result(Ok(None));
                    Ok(())
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

//! The misbehaviours themselves, one per cargo feature.

use sdk::Table;

/// How many bytes a huge output has: more than the host accepts.
pub(crate) const HUGE_BYTES: usize = 32 << 20;

/// How many entries a huge list has: more than the host accepts.
pub(crate) const HUGE_ITEMS: usize = 200_000;

/// Calls itself with no end; the frame's array keeps the compiler from turning it into a loop.
/// The array is small, so wasmtime's call stack runs out before the stack Rust keeps in linear
/// memory (which would end as an out-of-bounds access instead).
#[cfg(feature = "deep-recursion")]
#[allow(
    unconditional_recursion,
    reason = "the endless recursion is the misbehaviour"
)]
fn dive(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 2]);
    dive(std::hint::black_box(depth + 1)).wrapping_add(frame[1])
}

/// Misbehaves in `export` as the component's feature says; `table` is the table of the calls
/// that have one.
pub(crate) fn misbehave(export: &str, table: Option<&mut dyn Table>) {
    let _ = (export, &table);
    #[cfg(feature = "endless-loop")]
    {
        let mut counter: u64 = 0;
        loop {
            counter = std::hint::black_box(counter.wrapping_add(1));
        }
    }
    #[cfg(feature = "memory-bomb")]
    {
        let mut hoard: Vec<Vec<u8>> = Vec::new();
        loop {
            hoard.push(std::hint::black_box(vec![1u8; 1 << 20]));
        }
    }
    #[cfg(all(feature = "trap", target_arch = "wasm32"))]
    core::arch::wasm32::unreachable();
    #[cfg(feature = "deep-recursion")]
    {
        std::hint::black_box(dive(0));
    }
    #[cfg(feature = "panic")]
    panic!("the hostile ruleset panics on purpose in `{export}`");
    #[cfg(feature = "forbidden-import")]
    {
        // The standard library asks WASI's wall clock, which the host gives no ruleset.
        #[expect(
            clippy::disallowed_methods,
            reason = "reading the clock a ruleset may not see is the misbehaviour"
        )]
        let now = std::time::SystemTime::now();
        std::hint::black_box(now);
    }
    #[cfg(feature = "slow-host-calls")]
    if let Some(table) = table {
        // Each drop is one host call, a few units of fuel here and a lot of work on the host.
        let handful = [sdk::CubeCount {
            owner: sdk::CubeOwner::Neutral("flood".into()),
            count: 1_000,
        }];
        loop {
            std::hint::black_box(table.drop_cubes(&handful));
        }
    }
}

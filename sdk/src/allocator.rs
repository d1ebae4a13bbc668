//! The component's memory allocator: freed small blocks are kept by size class and handed out
//! again, in front of the system allocator (wasi-libc's dlmalloc).
//!
//! Why: a ruleset allocates and frees many small blocks per call (strings of labels, vectors of
//! decisions, the copy of the game the SDK keeps to undo a refused action). In a component every
//! one went through four calls (`__rust_alloc`, `__rdl_alloc`, `malloc`, `dlmalloc`), each paying
//! the engine's checks on runaway code at its entry and loops; in the whole-game benchmark
//! (BENCHMARKS.md) allocation was about two fifths of the time spent in the component. Here the common case is a pop from
//! or a push onto a list, with no loop.
//!
//! What it costs: a block freed to its class is only reused by that class, never merged or given
//! back, so a game's memory stays at the largest it was for each class (blocks are powers of two
//! from 16 bytes to 4 KiB, so up to twice what was asked). Larger or more aligned blocks go to
//! the system allocator as before. A component runs on one thread, so no lock is needed.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr::{self, null_mut};

/// The smallest block, as a power of two: 16 bytes, the system allocator's alignment.
const SMALLEST: u32 = 4;
/// The largest block kept by class, as a power of two: 4 KiB.
const LARGEST: u32 = 12;
const CLASSES: usize = (LARGEST - SMALLEST + 1) as usize;
/// New blocks are cut from chunks of this size taken from the system allocator.
const CHUNK_BYTES: usize = 64 << 10;
const CHUNK: Layout = match Layout::from_size_align(CHUNK_BYTES, 1 << SMALLEST) {
    Ok(layout) => layout,
    Err(_) => panic!("the chunk layout is valid"),
};

/// See the module documentation.
pub struct SizeClassAllocator {
    state: UnsafeCell<State>,
}

struct State {
    /// The first free block of each class; each free block holds the address of the next.
    free: [*mut u8; CLASSES],
    /// The rest of the current chunk: new blocks are cut from `next` up to `end`.
    next: *mut u8,
    end: *mut u8,
}

// SAFETY: a WebAssembly component without the threads proposal runs on one thread; this is
// only compiled for such targets (see `lib.rs`).
unsafe impl Sync for SizeClassAllocator {}

impl SizeClassAllocator {
    pub const fn new() -> SizeClassAllocator {
        SizeClassAllocator {
            state: UnsafeCell::new(State {
                free: [null_mut(); CLASSES],
                next: null_mut(),
                end: null_mut(),
            }),
        }
    }
}

/// The class of a block for `layout`, or `None` if the system allocator takes it. Powers of two:
/// four classes per doubling (a quarter wasted at most) measured 5 % slower in the whole-game
/// benchmark, and the games' memory was no smaller.
fn class_of(layout: Layout) -> Option<usize> {
    if layout.size() > 1 << LARGEST || layout.align() > 1 << SMALLEST {
        return None;
    }
    let bits = layout.size().next_power_of_two().trailing_zeros();
    Some((bits.max(SMALLEST) - SMALLEST) as usize)
}

fn block_bytes(class: usize) -> usize {
    1 << (class as u32 + SMALLEST)
}

unsafe impl GlobalAlloc for SizeClassAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else {
            // SAFETY: the caller's layout is passed on unchanged.
            return unsafe { System.alloc(layout) };
        };
        // SAFETY: one thread, and no call below re-enters this allocator.
        let state = unsafe { &mut *self.state.get() };
        let head = state.free[class];
        if !head.is_null() {
            // SAFETY: a free block holds the address of the next free block of its class.
            state.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let bytes = block_bytes(class);
        if (state.end as usize) - (state.next as usize) < bytes {
            // SAFETY: `CHUNK` has a non-zero size.
            let chunk = unsafe { System.alloc(CHUNK) };
            if chunk.is_null() {
                return null_mut();
            }
            state.next = chunk;
            // SAFETY: the chunk is `CHUNK_BYTES` long.
            state.end = unsafe { chunk.add(CHUNK_BYTES) };
        }
        let block = state.next;
        // SAFETY: at least `bytes` remain before `end`.
        state.next = unsafe { block.add(bytes) };
        block
    }

    #[inline]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = class_of(layout) else {
            // SAFETY: a block of this layout came from the system allocator.
            return unsafe { System.dealloc(block, layout) };
        };
        // SAFETY: one thread, and no call below re-enters this allocator.
        let state = unsafe { &mut *self.state.get() };
        // SAFETY: the block is at least 16 bytes, 16-aligned, and no longer the caller's.
        unsafe { block.cast::<*mut u8>().write(state.free[class]) };
        state.free[class] = block;
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if class_of(layout).is_none() {
            // SAFETY: as for `alloc`; fresh memory from the system comes zeroed for less.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // SAFETY: as for `alloc`; a reused block holds old bytes, so it is cleared.
        unsafe {
            let block = self.alloc(layout);
            if !block.is_null() {
                block.write_bytes(0, layout.size());
            }
            block
        }
    }

    #[inline]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size` with `layout.align()` is a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class_of(layout), class_of(new_layout)) {
            (Some(old), Some(new)) if old == new => block,
            // SAFETY: both layouts belong to the system allocator.
            (None, None) => unsafe { System.realloc(block, layout, new_size) },
            _ => {
                // SAFETY: as for `alloc` and `dealloc`; the copy stays within both blocks.
                unsafe {
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_blocks_get_the_power_of_two_class_that_holds_them() {
        let class = |size, align| class_of(Layout::from_size_align(size, align).unwrap());
        assert_eq!(class(1, 1), Some(0));
        assert_eq!(class(16, 8), Some(0));
        assert_eq!(class(17, 8), Some(1));
        assert_eq!(class(4096, 16), Some(CLASSES - 1));
        assert_eq!(block_bytes(CLASSES - 1), 4096);
        // Too large or too aligned: the system allocator's.
        assert_eq!(class(4097, 8), None);
        assert_eq!(class(64, 32), None);
    }

    #[test]
    fn a_freed_block_is_handed_out_again_and_blocks_never_overlap() {
        let allocator = SizeClassAllocator::new();
        let layout = Layout::from_size_align(24, 8).unwrap();
        unsafe {
            let first = allocator.alloc(layout);
            let second = allocator.alloc(layout);
            assert!(!first.is_null() && !second.is_null());
            assert!((second as usize).abs_diff(first as usize) >= 32);
            assert_eq!(first as usize % 16, 0);
            allocator.dealloc(first, layout);
            assert_eq!(allocator.alloc(layout), first);
            // Growing within the class keeps the block; past it moves the contents.
            second.write_bytes(7, 24);
            assert_eq!(allocator.realloc(second, layout, 30), second);
            let grown = allocator.realloc(second, layout, 100);
            assert_ne!(grown, second);
            assert_eq!(std::slice::from_raw_parts(grown, 24), &[7; 24]);
            let large = Layout::from_size_align(10_000, 8).unwrap();
            let big = allocator.realloc(grown, Layout::from_size_align(100, 8).unwrap(), 10_000);
            assert_eq!(std::slice::from_raw_parts(big, 24), &[7; 24]);
            allocator.dealloc(big, large);
        }
    }
}

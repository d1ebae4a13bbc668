//! The component's memory allocator: small blocks come from free lists by size class.
//!
//! Every decision Honshu offers is a list of choices, each a handful of small strings (an id, a
//! catalogue key, argument names), and the host asks for the decisions several times per action:
//! a placement step of every seat can hold a hundred choices. Inside the component those
//! allocations went to the C library's general-purpose `malloc` and were most of a decision's
//! time. Here a block of up to [`LARGEST`] bytes is rounded up to a power of two and taken from
//! that size's free list, or cut from a chunk; freeing it puts it back on the list. Larger blocks
//! go to the system allocator. Memory of small blocks is reused, never returned: the most the
//! game ever held at once.
//!
//! The allocator is installed only in the WebAssembly build (see `lib.rs`), where a component
//! runs on one thread; natively the tests drive an instance of it directly.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

/// The smallest block: room for the free list's link.
const SMALLEST_SHIFT: u32 = 3;
/// The largest block served from a free list; larger ones go to [`System`].
pub const LARGEST: usize = 2048;
/// Size classes: 8, 16, ... [`LARGEST`] bytes.
const CLASSES: usize = (LARGEST.trailing_zeros() - SMALLEST_SHIFT + 1) as usize;
/// Blocks are cut from chunks of this size taken from [`System`].
const CHUNK: usize = 64 * 1024;

struct Pools {
    /// Per size class, the first free block; each free block holds the address of the next.
    free: [*mut u8; CLASSES],
    /// The unused rest of the current chunk.
    next: *mut u8,
    end: *mut u8,
}

/// Free lists by size class in front of the system allocator. Not for threads: see the module
/// documentation.
pub struct SizeClasses(UnsafeCell<Pools>);

// SAFETY: the allocator is global only in the WebAssembly component, which has a single thread;
// native tests use an instance from one thread at a time.
unsafe impl Sync for SizeClasses {}

impl SizeClasses {
    /// An allocator with no memory yet.
    pub const fn new() -> SizeClasses {
        SizeClasses(UnsafeCell::new(Pools {
            free: [ptr::null_mut(); CLASSES],
            next: ptr::null_mut(),
            end: ptr::null_mut(),
        }))
    }
}

impl Default for SizeClasses {
    fn default() -> Self {
        SizeClasses::new()
    }
}

/// The size class of a layout, if it is small enough for one. A block of class `c` is
/// `8 << c` bytes and aligned to its size, so it suits any alignment up to its size.
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size().max(layout.align());
    if size > LARGEST {
        return None;
    }
    let block = size.next_power_of_two().max(1 << SMALLEST_SHIFT);
    Some((block.trailing_zeros() - SMALLEST_SHIFT) as usize)
}

fn block_size(class: usize) -> usize {
    1 << (class as u32 + SMALLEST_SHIFT)
}

impl Pools {
    /// A block of `class`: a freed one, or a new one cut from the chunk.
    ///
    /// # Safety
    /// The free lists hold only blocks of their class, each holding the next one's address.
    unsafe fn take(&mut self, class: usize) -> *mut u8 {
        let head = self.free[class];
        if !head.is_null() {
            // SAFETY: a free block of at least 8 bytes, aligned to its size, holding its link.
            self.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let size = block_size(class);
        let start = (self.next as usize).next_multiple_of(size);
        if self.next.is_null() || start + size > self.end as usize {
            // SAFETY: CHUNK is a valid non-zero size and LARGEST a valid alignment.
            let chunk = unsafe { System.alloc(Layout::from_size_align_unchecked(CHUNK, LARGEST)) };
            if chunk.is_null() {
                return ptr::null_mut();
            }
            self.next = chunk;
            // SAFETY: one past the end of the chunk just allocated.
            self.end = unsafe { chunk.add(CHUNK) };
            // A chunk is aligned to LARGEST, so any block fits at its start.
            // SAFETY: size <= LARGEST < CHUNK, inside the chunk.
            self.next = unsafe { chunk.add(size) };
            return chunk;
        }
        let block = start as *mut u8;
        // SAFETY: start + size <= end, inside the current chunk.
        self.next = unsafe { block.add(size) };
        block
    }

    /// Puts a block back on its class's free list.
    ///
    /// # Safety
    /// `block` was taken for `class` and is no longer used.
    unsafe fn give(&mut self, class: usize, block: *mut u8) {
        // SAFETY: the block is at least 8 bytes, aligned to its size, and ours again.
        unsafe { block.cast::<*mut u8>().write(self.free[class]) };
        self.free[class] = block;
    }
}

// SAFETY: a block of a class is at least as large and as aligned as the layouts mapped to the
// class, and is handed out once until it is freed; other layouts go to the system allocator.
unsafe impl GlobalAlloc for SizeClasses {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match class_of(layout) {
            // SAFETY: one thread at a time (see `Sync` above); the lists hold only their class.
            Some(class) => unsafe { (*self.0.get()).take(class) },
            // SAFETY: the caller's layout contract carries over.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match class_of(layout) {
            // SAFETY: the block was allocated with this layout, so from this class.
            Some(class) => unsafe { (*self.0.get()).give(class, block) },
            // SAFETY: allocated by the system allocator with this layout.
            None => unsafe { System.dealloc(block, layout) },
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees a valid size for this alignment.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class_of(layout), class_of(new_layout)) {
            // The block already has room.
            (Some(old), Some(new)) if old == new => block,
            // SAFETY: both from the system allocator; the caller's contract carries over.
            (None, None) => unsafe { System.realloc(block, layout, new_size) },
            _ => {
                // SAFETY: as in `alloc` and `dealloc`; the copy stays inside both blocks.
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
    fn classes_cover_sizes_and_alignments() {
        let class = |size, align| class_of(Layout::from_size_align(size, align).unwrap());
        assert_eq!(class(1, 1), Some(0));
        assert_eq!(class(8, 8), Some(0));
        assert_eq!(class(9, 1), Some(1));
        assert_eq!(class(4, 64), Some(3));
        assert_eq!(class(LARGEST, 8), Some(CLASSES - 1));
        assert_eq!(class(LARGEST + 1, 8), None);
    }

    #[test]
    fn blocks_are_aligned_distinct_reused_and_keep_their_bytes() {
        let pools = SizeClasses::new();
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        let mut seed = 12345u32;
        for round in 0..4_000u32 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let pick = (seed >> 8) as usize;
            if pick.is_multiple_of(3) && !live.is_empty() {
                let (block, layout, fill) = live.swap_remove(pick % live.len());
                for i in 0..layout.size() {
                    // SAFETY: inside the live block.
                    assert_eq!(unsafe { *block.add(i) }, fill);
                }
                // SAFETY: allocated from `pools` with this layout.
                unsafe { pools.dealloc(block, layout) };
                continue;
            }
            let size = 1 + pick % 3000;
            let align = 1 << (pick % 7);
            let layout = Layout::from_size_align(size, align).unwrap();
            // SAFETY: a non-zero size.
            let mut block = unsafe { pools.alloc(layout) };
            assert!(!block.is_null());
            assert_eq!(block as usize % align, 0);
            let fill = round as u8;
            // SAFETY: inside the new block.
            unsafe { ptr::write_bytes(block, fill, size) };
            let mut layout = layout;
            if pick.is_multiple_of(5) {
                let new_size = 1 + (pick / 7) % 3000;
                // SAFETY: allocated from `pools` with `layout`; a non-zero size.
                block = unsafe { pools.realloc(block, layout, new_size) };
                assert_eq!(block as usize % align, 0);
                for i in 0..size.min(new_size) {
                    // SAFETY: inside the moved block.
                    assert_eq!(unsafe { *block.add(i) }, fill, "realloc keeps the bytes");
                }
                layout = Layout::from_size_align(new_size, align).unwrap();
                // SAFETY: inside the moved block.
                unsafe { ptr::write_bytes(block, fill, new_size) };
            }
            for &(other, other_layout, _) in &live {
                let (a, b) = (block as usize, other as usize);
                assert!(
                    a + layout.size() <= b || b + other_layout.size() <= a,
                    "blocks overlap"
                );
            }
            live.push((block, layout, fill));
        }
        for (block, layout, _) in live {
            // SAFETY: allocated from `pools` with this layout.
            unsafe { pools.dealloc(block, layout) };
        }
    }
}

//! wasmgpu.rs: the kernel-side module for Rust kernels, the counterpart of
//! wasmgpu.h. A `#![no_std]` cdylib for `wasm32-unknown-unknown` includes it
//! with `#[path]`:
//!
//! ```ignore
//! #![no_std]
//! #[macro_use]
//! #[path = "wasmgpu.rs"] // where this file is
//! mod wasmgpu;
//! use wasmgpu::*;
//!
//! wasmgpu_kernel_record!(SAXPY_RECORD, "saxpy", value::<i32>("i"), value::<f32>("a"),
//!     const_ptr::<f32>("x"), ptr::<f32>("y"), value::<u32>("n"));
//!
//! #[no_mangle]
//! pub unsafe extern "C" fn saxpy(i: i32, a: f32, x: *const f32, y: *mut f32, n: u32) { ... }
//! ```
//!
//! and is built with Debian's rustc: `/usr/bin/rustc --crate-type cdylib
//! --target wasm32-unknown-unknown -O -C panic=abort kernel.rs -o kernel.wasm`.
//! The module must be named `wasmgpu` at the crate root (the record macro
//! names `$crate::wasmgpu`).
//!
//! A kernel is an exported `extern "C"` function whose first parameter is the
//! invocation index (`i32`); pointers into buffers arrive as `*const T` /
//! `*mut T` (32-bit addresses) and become slices with `slice_of`/`slice_of_mut`.
//! Everything below is an import from the wasm module "wasmgpu" with the
//! signature wasmgpu.h gives it; docs/kernel-guide.md describes each one.
#![allow(dead_code)]

#[link(wasm_import_module = "wasmgpu")]
extern "C" {
    #[link_name = "global_id"]
    fn wasmgpu_global_id(dimension: u32) -> u32;
    #[link_name = "local_id"]
    fn wasmgpu_local_id(dimension: u32) -> u32;
    #[link_name = "workgroup_id"]
    fn wasmgpu_workgroup_id(dimension: u32) -> u32;
    #[link_name = "workgroup_size"]
    fn wasmgpu_workgroup_size(dimension: u32) -> u32;
    #[link_name = "workgroup_count"]
    fn wasmgpu_workgroup_count(dimension: u32) -> u32;
    #[link_name = "local_index"]
    fn wasmgpu_local_index() -> u32;
    #[link_name = "barrier"]
    fn wasmgpu_barrier();
    #[link_name = "memory_barrier"]
    fn wasmgpu_memory_barrier();
    #[link_name = "workgroup_memory_barrier"]
    fn wasmgpu_workgroup_memory_barrier();
    #[link_name = "subgroup_size"]
    fn wasmgpu_subgroup_size() -> u32;
    #[link_name = "subgroup_invocation_id"]
    fn wasmgpu_subgroup_invocation_id() -> u32;
    #[link_name = "subgroup_add_i32"]
    fn wasmgpu_subgroup_add_i32(value: i32) -> i32;
    #[link_name = "subgroup_add_f32"]
    fn wasmgpu_subgroup_add_f32(value: f32) -> f32;
    #[link_name = "atomic_add_i32"]
    fn wasmgpu_atomic_add(p: *mut i32, v: i32) -> i32;
    #[link_name = "atomic_min_i32"]
    fn wasmgpu_atomic_min(p: *mut i32, v: i32) -> i32;
    #[link_name = "atomic_max_i32"]
    fn wasmgpu_atomic_max(p: *mut i32, v: i32) -> i32;
    #[link_name = "atomic_and_i32"]
    fn wasmgpu_atomic_and(p: *mut i32, v: i32) -> i32;
    #[link_name = "atomic_or_i32"]
    fn wasmgpu_atomic_or(p: *mut i32, v: i32) -> i32;
    #[link_name = "atomic_exchange_i32"]
    fn wasmgpu_atomic_exchange(p: *mut i32, v: i32) -> i32;
    #[link_name = "atomic_compare_exchange_i32"]
    fn wasmgpu_atomic_compare_exchange(p: *mut i32, expected: i32, desired: i32) -> i32;
    #[link_name = "atomic_add_f32"]
    fn wasmgpu_atomic_add_f32(p: *mut f32, v: f32) -> f32;
}

/// Ids and sizes; dimensions are 0 (x), 1 (y) and 2 (z). global_id(0) is the
/// kernel's index in a 1-D launch.
#[inline]
pub fn global_id(dimension: u32) -> u32 {
    unsafe { wasmgpu_global_id(dimension) }
}
#[inline]
pub fn local_id(dimension: u32) -> u32 {
    unsafe { wasmgpu_local_id(dimension) }
}
#[inline]
pub fn workgroup_id(dimension: u32) -> u32 {
    unsafe { wasmgpu_workgroup_id(dimension) }
}
#[inline]
pub fn workgroup_size(dimension: u32) -> u32 {
    unsafe { wasmgpu_workgroup_size(dimension) }
}
#[inline]
pub fn workgroup_count(dimension: u32) -> u32 {
    unsafe { wasmgpu_workgroup_count(dimension) }
}
/// local_id linearised: x + y * size_x + z * size_x * size_y.
#[inline]
pub fn local_index() -> u32 {
    unsafe { wasmgpu_local_index() }
}

/// Every invocation of the workgroup waits here; shared-memory writes before
/// it are visible after it. All invocations of the workgroup must reach it.
#[inline]
pub fn barrier() {
    unsafe { wasmgpu_barrier() }
}
#[inline]
pub fn memory_barrier() {
    unsafe { wasmgpu_memory_barrier() }
}
#[inline]
pub fn workgroup_memory_barrier() {
    unsafe { wasmgpu_workgroup_memory_barrier() }
}

#[inline]
pub fn subgroup_size() -> u32 {
    unsafe { wasmgpu_subgroup_size() }
}
#[inline]
pub fn subgroup_invocation_id() -> u32 {
    unsafe { wasmgpu_subgroup_invocation_id() }
}
#[inline]
pub fn subgroup_add_i32(value: i32) -> i32 {
    unsafe { wasmgpu_subgroup_add_i32(value) }
}
#[inline]
pub fn subgroup_add_f32(value: f32) -> f32 {
    unsafe { wasmgpu_subgroup_add_f32(value) }
}

/// Atomics on 4-byte aligned words (a misaligned address traps); each returns
/// the old value. Relaxed: order other accesses with barriers.
#[inline]
pub fn atomic_add(p: &mut i32, v: i32) -> i32 {
    unsafe { wasmgpu_atomic_add(p, v) }
}
#[inline]
pub fn atomic_min(p: &mut i32, v: i32) -> i32 {
    unsafe { wasmgpu_atomic_min(p, v) }
}
#[inline]
pub fn atomic_max(p: &mut i32, v: i32) -> i32 {
    unsafe { wasmgpu_atomic_max(p, v) }
}
#[inline]
pub fn atomic_exchange(p: &mut i32, v: i32) -> i32 {
    unsafe { wasmgpu_atomic_exchange(p, v) }
}
#[inline]
pub fn atomic_compare_exchange(p: &mut i32, expected: i32, desired: i32) -> i32 {
    unsafe { wasmgpu_atomic_compare_exchange(p, expected, desired) }
}
#[inline]
pub fn atomic_add_f32(p: &mut f32, v: f32) -> f32 {
    unsafe { wasmgpu_atomic_add_f32(p, v) }
}

/// A buffer parameter as a slice of `len` elements.
///
/// # Safety
/// `p` must point to `len` elements of a buffer the host bound.
#[inline]
pub unsafe fn slice_of<'a, T>(p: *const T, len: usize) -> &'a [T] {
    core::slice::from_raw_parts(p, len)
}
/// # Safety
/// As `slice_of`, and no other invocation accesses these elements meanwhile.
#[inline]
pub unsafe fn slice_of_mut<'a, T>(p: *mut T, len: usize) -> &'a mut [T] {
    core::slice::from_raw_parts_mut(p, len)
}

// ---- Panics (docs/kernel-guide.md, "Rust panics"): the trap carries the
// panic's location, and with `--cfg wasmgpu_panic_message` its message. ----

/// The print slot of include/wasmgpu_runtime.c, found by the runtime by its
/// magic words; it writes the print ring's wasm address into `ring` when it
/// loads the module. Only a kernel that can panic links it (the panic handler
/// is its only user), so one that cannot gets no ring.
#[repr(C)]
pub struct PrintSlot {
    magic: [u32; 2],
    ring: *mut u32,
}
unsafe impl Sync for PrintSlot {}
#[allow(non_upper_case_globals)]
static mut wasmgpu_print_slot_: PrintSlot = PrintSlot { magic: [0x5250_4757, 0x544e_4952], ring: core::ptr::null_mut() };

const RING_HEADER_WORDS: usize = 12;
const KIND_PANIC: u32 = 5;
#[cfg(wasmgpu_panic_message)]
const KIND_PANIC_TEXT: u32 = 6;

fn invocation_index() -> u32 {
    let nx = workgroup_count(0) * workgroup_size(0);
    let ny = workgroup_count(1) * workgroup_size(1);
    global_id(0) + nx * (global_id(1) + ny * global_id(2))
}

fn print_ring() -> *mut u32 {
    unsafe { core::ptr::read_volatile(core::ptr::addr_of!(wasmgpu_print_slot_.ring)) }
}

/// The first panic of a launch claims the ring's trap words ([4] = 1), as a
/// C assert does: [5] kind, [6] invocation, [7] line, [8] file address,
/// [9] file length, [10] column. The host turns them into the trap's text.
fn claim_panic(location: Option<&core::panic::Location>) -> bool {
    let ring = print_ring();
    if ring.is_null() {
        return false;
    }
    unsafe {
        if atomic_compare_exchange(&mut *(ring.add(4) as *mut i32), 0, 1) != 0 {
            return false;
        }
        let (file, line, column) = match location {
            Some(l) => (l.file(), l.line(), l.column()),
            None => ("", 0, 0),
        };
        let words = [KIND_PANIC, invocation_index(), line, file.as_ptr() as u32, file.len() as u32, column];
        for (k, w) in words.iter().enumerate() {
            core::ptr::write_volatile(ring.add(5 + k), *w);
        }
    }
    true
}

/// The message of the panic that claimed the trap words, formatted on the
/// device by `core::fmt` into one record of kind 6 ([1] invocation, [3] byte
/// count, then the bytes). Formatting is
/// what makes it opt-in: it brings core's formatting machinery (recursive,
/// with indirect calls) into every kernel that can panic
/// (docs/kernel-guide.md has the cost).
#[cfg(wasmgpu_panic_message)]
fn record_panic_text(info: &core::panic::PanicInfo) {
    struct Text {
        bytes: [u8; 256],
        len: usize,
    }
    impl core::fmt::Write for Text {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            for &b in s.as_bytes() {
                if self.len < self.bytes.len() {
                    self.bytes[self.len] = b;
                    self.len += 1;
                }
            }
            Ok(())
        }
    }
    let ring = print_ring();
    if ring.is_null() {
        return;
    }
    let mut text = Text { bytes: [0; 256], len: 0 };
    let _ = core::fmt::write(&mut text, format_args!("{}", info));
    let words = 4 + (text.len + 3) / 4;
    unsafe {
        let at = atomic_add(&mut *(ring as *mut i32), words as i32) as usize;
        let capacity = core::ptr::read_volatile(ring.add(1)) as usize;
        if at > capacity || words > capacity - at {
            if at < capacity {
                core::ptr::write_volatile(ring.add(RING_HEADER_WORDS + at), ((capacity - at) << 8) as u32);
            }
            atomic_add(&mut *(ring.add(2) as *mut i32), words as i32);
            atomic_add(&mut *(ring.add(3) as *mut i32), 1);
            return;
        }
        let record = ring.add(RING_HEADER_WORDS + at);
        core::ptr::write_volatile(record, KIND_PANIC_TEXT | ((words as u32) << 8));
        core::ptr::write_volatile(record.add(1), invocation_index());
        core::ptr::write_volatile(record.add(2), 0);
        core::ptr::write_volatile(record.add(3), text.len as u32);
        for w in 0..(text.len + 3) / 4 {
            let mut word = 0u32;
            for b in 0..4 {
                let k = 4 * w + b;
                if k < text.len {
                    word |= (text.bytes[k] as u32) << (8 * b);
                }
            }
            core::ptr::write_volatile(record.add(4 + w), word);
        }
    }
}

/// A panic (a failed bounds check, an overflow in a debug build, `panic!`)
/// traps as wasm's `unreachable`; the trap's text says where it panicked
/// ("panicked at src/k.rs:12:9"), and its message when the kernel is built
/// with `--cfg wasmgpu_panic_message`.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    if claim_panic(info.location()) {
        #[cfg(wasmgpu_panic_message)]
        record_panic_text(info);
    }
    core::arch::wasm32::unreachable()
}

// ---- The device heap (docs/kernel-guide.md, "Heap allocation"): with
// `--cfg wasmgpu_heap`, a global allocator over the module's device heap, so
// that `alloc`'s Vec, Box and String work in kernels, many invocations at
// once. It is include/wasmgpu_heap.c's allocator with the same layout (that
// file describes it); the runtime finds the slot by its magic words
// "WGPUHEAP" and writes the heap's address and page count into it. Debian's
// rustc 1.63 needs the kernel's crate root to say
// `#![cfg_attr(wasmgpu_heap, feature(alloc_error_handler))]` and the build
// RUSTC_BOOTSTRAP=1, for the handler of a failed allocation below (a Vec
// that cannot grow): it panics, which traps, naming the heap. ----

#[cfg(wasmgpu_heap)]
pub mod heap {
    use core::alloc::{GlobalAlloc, Layout};
    use core::ptr::{addr_of, read_volatile, write_volatile};

    #[repr(C)]
    pub struct HeapSlot {
        magic: [u32; 2],
        heap: u32,
        pages: u32,
    }
    #[used]
    #[allow(non_upper_case_globals)]
    // All ones until the runtime writes them, as in wasmgpu_heap.c.
    static mut wasmgpu_heap_slot_: HeapSlot = HeapSlot { magic: [0x5550_4757, 0x5041_4548], heap: !0, pages: !0 };

    const PAGE_SHIFT: u32 = 12;
    const PAGE_BYTES: u32 = 1 << PAGE_SHIFT;
    const CLASSES: u32 = 8;
    const SMALL_MAX: u32 = 16 << (CLASSES - 1);
    const BITMAP_WORDS: u32 = PAGE_BYTES / 16 / 32;
    const HEADER_WORDS: u32 = 16;
    const LARGE_HEAD: u32 = 0x8000_0000;
    const LARGE_TAIL: u32 = 0x4000_0000;

    struct Heap {
        base: *mut i32, // hints [0..8), tickets [8..16), the page table from word 16
        pages: u32,
        first: u32,
    }
    impl Heap {
        fn open() -> Option<Heap> {
            let (base, pages) =
                unsafe { (read_volatile(addr_of!(wasmgpu_heap_slot_.heap)), read_volatile(addr_of!(wasmgpu_heap_slot_.pages))) };
            if pages == 0 || pages == !0 {
                return None;
            }
            let metadata = HEADER_WORDS * 4 + pages * 4 * (1 + BITMAP_WORDS);
            Some(Heap { base: base as *mut i32, pages, first: base + ((metadata + PAGE_BYTES - 1) & !(PAGE_BYTES - 1)) })
        }
        fn word(&self, index: u32) -> *mut i32 {
            unsafe { self.base.add(index as usize) }
        }
        fn table(&self, page: u32) -> *mut i32 {
            self.word(HEADER_WORDS + page)
        }
        fn bitmap(&self, page: u32, w: u32) -> *mut i32 {
            self.word(HEADER_WORDS + self.pages + page * BITMAP_WORDS + w)
        }
    }

    fn class_of(n: u32) -> u32 {
        let mut c = 0;
        while (16u32 << c) < n {
            c += 1;
        }
        c
    }

    unsafe fn alloc_small(h: &Heap, c: u32) -> *mut u8 {
        let blocks = PAGE_BYTES >> (4 + c);
        let words = if blocks < 32 { 1 } else { blocks / 32 };
        let valid = if blocks < 32 { (1u32 << blocks) - 1 } else { !0u32 };
        let ticket = super::wasmgpu_atomic_add(h.word(CLASSES + c), 1) as u32;
        let mut start = read_volatile(h.word(c)) as u32;
        if start >= h.pages {
            start = 0;
        }
        // Own pages first, then (from i = pages on) free ones too.
        for i in 0..2 * h.pages {
            let mut p = start + i % h.pages;
            if p >= h.pages {
                p -= h.pages;
            }
            let mut kind = read_volatile(h.table(p)) as u32;
            if kind == 0 && i >= h.pages {
                kind = super::wasmgpu_atomic_compare_exchange(h.table(p), 0, (c + 1) as i32) as u32;
                if kind == 0 {
                    kind = c + 1;
                }
            }
            if kind != c + 1 {
                continue;
            }
            for k in 0..words {
                let w = (ticket + k) % words;
                let bits = h.bitmap(p, w);
                let mut used = read_volatile(bits) as u32;
                while !used & valid != 0 {
                    let free_bits = !used & valid;
                    let later = free_bits & (!0u32 << ((ticket / words) & 31));
                    let bit = if later != 0 { later } else { free_bits }.trailing_zeros();
                    used = super::wasmgpu_atomic_or(bits, (1u32 << bit) as i32) as u32;
                    if used & (1u32 << bit) == 0 {
                        if p != start {
                            write_volatile(h.word(c), p as i32);
                        }
                        return (h.first + (p << PAGE_SHIFT) + ((w * 32 + bit) << (4 + c))) as *mut u8;
                    }
                }
            }
        }
        core::ptr::null_mut()
    }

    unsafe fn alloc_large(h: &Heap, bytes: u32) -> *mut u8 {
        let n = (bytes + PAGE_BYTES - 1) >> PAGE_SHIFT;
        if n > h.pages {
            return core::ptr::null_mut();
        }
        let mut end = h.pages;
        while end >= n {
            let mut claimed = 0;
            while claimed < n {
                let p = end - 1 - claimed;
                let mark = if claimed == n - 1 { LARGE_HEAD | n } else { LARGE_TAIL };
                if super::wasmgpu_atomic_compare_exchange(h.table(p), 0, mark as i32) != 0 {
                    break;
                }
                claimed += 1;
            }
            if claimed == n {
                return (h.first + ((end - n) << PAGE_SHIFT)) as *mut u8;
            }
            for k in 0..claimed {
                super::wasmgpu_atomic_exchange(h.table(end - 1 - k), 0);
            }
            end -= claimed + 1;
        }
        core::ptr::null_mut()
    }

    /// `bytes` from the heap, aligned to the block's size (small) or 4 KiB;
    /// null when the heap is full or the module has none.
    pub fn malloc(bytes: usize) -> *mut u8 {
        let h = match Heap::open() {
            Some(h) => h,
            None => return core::ptr::null_mut(),
        };
        if bytes > u32::MAX as usize / 2 {
            return core::ptr::null_mut();
        }
        unsafe {
            if bytes as u32 <= SMALL_MAX {
                alloc_small(&h, class_of(bytes as u32))
            } else {
                alloc_large(&h, bytes as u32)
            }
        }
    }

    /// The block's size and page, or 0 when `p` is no block of the heap.
    unsafe fn block_size(h: &Heap, p: *mut u8) -> (u32, u32) {
        let a = p as u32;
        if a < h.first || (a - h.first) >> PAGE_SHIFT >= h.pages {
            return (0, 0);
        }
        let page = (a - h.first) >> PAGE_SHIFT;
        let kind = read_volatile(h.table(page)) as u32;
        if (1..=CLASSES).contains(&kind) {
            (16 << (kind - 1), page)
        } else if kind & LARGE_HEAD != 0 {
            ((kind & !LARGE_HEAD) << PAGE_SHIFT, page)
        } else {
            (0, page)
        }
    }

    /// The usable size of a block malloc gave (0 for null or no block).
    pub fn usable_size(p: *mut u8) -> usize {
        match Heap::open() {
            Some(h) if !p.is_null() => unsafe { block_size(&h, p).0 as usize },
            _ => 0,
        }
    }

    /// Gives back a block malloc gave; null and addresses outside the heap are ignored.
    pub fn free(p: *mut u8) {
        let h = match Heap::open() {
            Some(h) if !p.is_null() => h,
            _ => return,
        };
        unsafe {
            let (size, page) = block_size(&h, p);
            if size == 0 {
                return;
            }
            if size <= SMALL_MAX {
                let c = class_of(size);
                let block = ((p as u32 - h.first) & (PAGE_BYTES - 1)) >> (4 + c);
                super::wasmgpu_atomic_and(h.bitmap(page, block / 32), !(1u32 << (block & 31)) as i32);
                write_volatile(h.word(c), page as i32);
                return;
            }
            let mut k = (size >> PAGE_SHIFT) - 1;
            while k > 0 {
                super::wasmgpu_atomic_exchange(h.table(page + k), 0);
                k -= 1;
            }
            super::wasmgpu_atomic_exchange(h.table(page), 0);
        }
    }

    /// The global allocator: alignments up to 4 KiB (a block of at least the
    /// alignment's size is aligned to it).
    pub struct DeviceHeap;
    unsafe impl GlobalAlloc for DeviceHeap {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if layout.align() > PAGE_BYTES as usize {
                return core::ptr::null_mut();
            }
            malloc(core::cmp::max(layout.size(), layout.align()))
        }
        unsafe fn dealloc(&self, p: *mut u8, _layout: Layout) {
            free(p)
        }
        unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let have = usable_size(p);
            if new_size <= have {
                return p; // the block already holds it
            }
            let q = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !q.is_null() {
                core::ptr::copy_nonoverlapping(p, q, core::cmp::min(have, new_size));
                free(p);
            }
            q
        }
    }

    #[global_allocator]
    static WASMGPU_HEAP: DeviceHeap = DeviceHeap;

    /// A failed allocation of `alloc`'s collections: a panic with a fixed
    /// message (core's formatting of the size would enter every kernel).
    #[alloc_error_handler]
    fn alloc_error(_layout: Layout) -> ! {
        panic!("the device heap is full (raise WASMGPU_HEAP or --heap)")
    }
}

// ---- The kernel metadata section (docs/kernel-guide.md, "Declaring the
// parameters"): the records WASMGPU_DEFINE_KERNEL writes, built by const fns
// into a static placed in the custom section "wasmgpu.kernels". ----

/// One parameter of a kernel record: kind 0 integer, 1 float, 2 pointer,
/// 3 pointer to const; size and alignment are the value's, or the pointee's.
#[derive(Clone, Copy)]
pub struct Param {
    pub kind: u8,
    pub size: u32,
    pub align: u32,
    pub name: &'static str,
    pub ty: &'static str,
    pub pointee: &'static str,
}

/// What the record needs to know of a parameter type: its C spelling and
/// whether it is floating point. Sizes and alignments come from the type.
pub trait KernelType {
    const C_NAME: &'static str;
    const IS_FLOAT: bool = false;
}
impl KernelType for i32 {
    const C_NAME: &'static str = "int";
}
impl KernelType for u32 {
    const C_NAME: &'static str = "unsigned";
}
impl KernelType for i64 {
    const C_NAME: &'static str = "long long";
}
impl KernelType for u64 {
    const C_NAME: &'static str = "unsigned long long";
}
impl KernelType for f32 {
    const C_NAME: &'static str = "float";
    const IS_FLOAT: bool = true;
}
impl KernelType for f64 {
    const C_NAME: &'static str = "double";
    const IS_FLOAT: bool = true;
}

pub const fn value<T: KernelType>(name: &'static str) -> Param {
    Param {
        kind: if T::IS_FLOAT { 1 } else { 0 },
        size: core::mem::size_of::<T>() as u32,
        align: core::mem::align_of::<T>() as u32,
        name,
        ty: T::C_NAME,
        pointee: "",
    }
}
/// A buffer the kernel may write (`*mut T`); its type is spelled "T *".
pub const fn ptr<T: KernelType>(name: &'static str) -> Param {
    Param {
        kind: 2,
        size: core::mem::size_of::<T>() as u32,
        align: core::mem::align_of::<T>() as u32,
        name,
        ty: "",
        pointee: T::C_NAME,
    }
}
/// A buffer the kernel only reads (`*const T`); spelled "const T *".
pub const fn const_ptr<T: KernelType>(name: &'static str) -> Param {
    let mut p = ptr::<T>(name);
    p.kind = 3;
    p
}

const fn type_len(p: &Param) -> usize {
    match p.kind {
        2 => p.pointee.len() + 2,
        3 => p.pointee.len() + 8,
        _ => p.ty.len(),
    }
}

/// The bytes of one kernel's record.
pub const fn record_len(kernel: &str, params: &[Param]) -> usize {
    let mut n = 1 + kernel.len() + 1 + 1;
    let mut i = 0;
    while i < params.len() {
        let p = &params[i];
        n += 1 + 4 + 4 + p.name.len() + 1 + type_len(p) + 1 + p.pointee.len() + 1;
        i += 1;
    }
    n
}

const fn put_str<const N: usize>(mut out: [u8; N], mut at: usize, s: &str) -> ([u8; N], usize) {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        out[at] = bytes[i];
        at += 1;
        i += 1;
    }
    (out, at)
}

const fn put_u32<const N: usize>(mut out: [u8; N], at: usize, v: u32) -> ([u8; N], usize) {
    let b = v.to_le_bytes();
    out[at] = b[0];
    out[at + 1] = b[1];
    out[at + 2] = b[2];
    out[at + 3] = b[3];
    (out, at + 4)
}

/// The record (version 1) of `kernel` with `params`, the invocation index first.
pub const fn record<const N: usize>(kernel: &str, params: &[Param]) -> [u8; N] {
    let mut out = [0u8; N];
    out[0] = 1;
    let (o, mut at) = put_str(out, 1, kernel);
    out = o;
    at += 1; // NUL
    out[at] = params.len() as u8;
    at += 1;
    let mut i = 0;
    while i < params.len() {
        let p = &params[i];
        out[at] = p.kind;
        at += 1;
        let (o, a) = put_u32(out, at, p.size);
        let (o, a) = put_u32(o, a, p.align);
        let (o, a) = put_str(o, a, p.name);
        out = o;
        at = a + 1;
        let (o, a) = match p.kind {
            2 => {
                let (o, a) = put_str(out, at, p.pointee);
                put_str(o, a, " *")
            }
            3 => {
                let (o, a) = put_str(out, at, "const ");
                let (o, a) = put_str(o, a, p.pointee);
                put_str(o, a, " *")
            }
            _ => put_str(out, at, p.ty),
        };
        let (o, a) = put_str(o, a + 1, p.pointee);
        out = o;
        at = a + 1;
        i += 1;
    }
    out
}

/// Records a kernel's parameters in the custom section "wasmgpu.kernels", as
/// WASMGPU_DEFINE_KERNEL does in C: `wasmgpu_kernel_record!(STATIC_NAME,
/// "export", value::<i32>("i"), const_ptr::<f32>("x"), ...)`. The list must
/// match the exported function's parameters; `Module::load` checks it
/// against the wasm signature.
#[macro_export]
macro_rules! wasmgpu_kernel_record {
    ($static_name:ident, $kernel:expr, $($param:expr),+ $(,)?) => {
        #[link_section = "wasmgpu.kernels"]
        #[used]
        static $static_name: [u8; $crate::wasmgpu::record_len($kernel, &[$($param),+])] =
            $crate::wasmgpu::record($kernel, &[$($param),+]);
    };
}

// heap_runtime.ts: an AssemblyScript runtime whose `new` allocates from the
// module's device heap, shared by every invocation of every launch
// (docs/kernel-guide.md, "Heap allocation"). Build a kernel with it in place
// of the stub runtime:
//
//   asc kernel.ts -O2 --runtime ./heap_runtime --use abort= -o kernel.wasm
//
// (the path to this file, without .ts, relative to the directory asc runs in).
// The stub runtime bumps a pointer kept in a mutable global, which every
// invocation of a launch would share (docs/memory-model.md, "Globals": such a
// launch is refused). This one keeps no global state: its allocator is
// include/wasmgpu_heap.c's, with the same heap layout (that file describes
// it), on the atomics of wasmgpu.ts. The runtime finds the slot below by its
// magic words "WGPUHEAP" and writes the heap's address and page count into
// it. Like the stub, it has no garbage collector: objects live until the
// module is destroyed, or until __free. A `new` the full heap cannot hold
// traps (unreachable): AssemblyScript has no null result for `new`.
import { atomic_add, atomic_and, atomic_compare_exchange, atomic_exchange, atomic_or } from "./wasmgpu";

// The heap slot: magic words, then the heap's wasm address and page count,
// all ones until the runtime writes them (binaryen would drop trailing zeros
// of the data segment, and the runtime would find no bytes to write).
// @ts-ignore: decorator
@inline const SLOT: usize = memory.data<u32>([0x55504757, 0x50414548, 0xffffffff, 0xffffffff]);

// @ts-ignore: decorator
@inline const PAGE_SHIFT: u32 = 12;
// @ts-ignore: decorator
@inline const PAGE_BYTES: u32 = 4096;
// @ts-ignore: decorator
@inline const CLASSES: u32 = 8;
// @ts-ignore: decorator
@inline const SMALL_MAX: u32 = 2048;
// @ts-ignore: decorator
@inline const BITMAP_WORDS: u32 = 8;
// @ts-ignore: decorator
@inline const HEADER_WORDS: u32 = 16;
// @ts-ignore: decorator
@inline const LARGE_HEAD: u32 = 0x80000000;
// @ts-ignore: decorator
@inline const LARGE_TAIL: u32 = 0x40000000;
// AssemblyScript's block and object headers (std/assembly/rt/common.ts): a
// block's payload follows its 4-byte mmInfo; an object's 16 header bytes
// (gcInfo, gcInfo2, rtId, rtSize) follow, and objects are 16-byte aligned.
// @ts-ignore: decorator
@inline const BLOCK_OVERHEAD: usize = 4;
// @ts-ignore: decorator
@inline const OBJECT_OVERHEAD: usize = 16;
// @ts-ignore: decorator
@inline const BLOCK_PREFIX: usize = 16; // heap bytes before a payload: keeps it 16-byte aligned

// @ts-ignore: decorator
@inline function heap_base(): usize { return load<u32>(SLOT + 8); }
// @ts-ignore: decorator
@inline function heap_pages(): u32 { return load<u32>(SLOT + 12); }
// @ts-ignore: decorator
@inline function table(base: usize, page: u32): usize { return base + ((HEADER_WORDS + page) << 2); }
// @ts-ignore: decorator
@inline function bitmap(base: usize, pages: u32, page: u32, w: u32): usize {
  return base + ((HEADER_WORDS + pages + page * BITMAP_WORDS + w) << 2);
}
function first_page(base: usize, pages: u32): usize {
  const metadata = HEADER_WORDS * 4 + pages * 4 * (1 + BITMAP_WORDS);
  return base + ((metadata + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1));
}
function class_of(n: u32): u32 {
  let c: u32 = 0;
  while ((<u32>16 << c) < n) ++c;
  return c;
}

function alloc_small(base: usize, pages: u32, c: u32): usize {
  const blocks = PAGE_BYTES >> (4 + c);
  const words: u32 = blocks < 32 ? 1 : blocks / 32;
  const valid: u32 = blocks < 32 ? (<u32>1 << blocks) - 1 : 0xffffffff;
  const ticket = <u32>atomic_add(base + ((CLASSES + c) << 2), 1);
  let start = load<u32>(base + (c << 2));
  if (start >= pages) start = 0;
  for (let i: u32 = 0; i < 2 * pages; ++i) { // own pages first, then free ones too
    let p = start + i % pages;
    if (p >= pages) p -= pages;
    let kind = load<u32>(table(base, p));
    if (kind == 0 && i >= pages) {
      kind = <u32>atomic_compare_exchange(table(base, p), 0, <i32>(c + 1));
      if (kind == 0) kind = c + 1;
    }
    if (kind != c + 1) continue;
    for (let k: u32 = 0; k < words; ++k) {
      const w = (ticket + k) % words;
      const bits = bitmap(base, pages, p, w);
      let used = load<u32>(bits);
      while ((~used & valid) != 0) {
        const free_bits = ~used & valid;
        const later = free_bits & (<u32>0xffffffff << ((ticket / words) & 31));
        const bit = ctz<u32>(later != 0 ? later : free_bits);
        used = <u32>atomic_or(bits, <i32>(<u32>1 << bit));
        if ((used & (<u32>1 << bit)) == 0) {
          if (p != start) store<u32>(base + (c << 2), p);
          return first_page(base, pages) + (<usize>p << PAGE_SHIFT) + (<usize>(w * 32 + bit) << (4 + c));
        }
      }
    }
  }
  return 0;
}

function alloc_large(base: usize, pages: u32, bytes: u32): usize {
  const n = (bytes + PAGE_BYTES - 1) >> PAGE_SHIFT;
  if (n > pages) return 0;
  let end = pages;
  while (end >= n) {
    let claimed: u32 = 0;
    while (claimed < n) {
      const mark = claimed == n - 1 ? LARGE_HEAD | n : LARGE_TAIL;
      if (atomic_compare_exchange(table(base, end - 1 - claimed), 0, <i32>mark) != 0) break;
      ++claimed;
    }
    if (claimed == n) return first_page(base, pages) + (<usize>(end - n) << PAGE_SHIFT);
    for (let k: u32 = 0; k < claimed; ++k) atomic_exchange(table(base, end - 1 - k), 0);
    end -= claimed + 1;
  }
  return 0;
}

/** A heap block of at least `bytes`, or 0 when the heap is full. */
function heap_malloc(bytes: usize): usize {
  const base = heap_base(), pages = heap_pages();
  if (pages == 0 || pages == 0xffffffff || bytes > 0x40000000) return 0;
  return <u32>bytes <= SMALL_MAX ? alloc_small(base, pages, class_of(<u32>bytes)) : alloc_large(base, pages, <u32>bytes);
}

/** Gives back a block of heap_malloc; addresses outside the heap are ignored. */
function heap_free(block: usize): void {
  const base = heap_base(), pages = heap_pages();
  if (pages == 0 || pages == 0xffffffff || block == 0) return;
  const first = first_page(base, pages);
  if (block < first || ((block - first) >> PAGE_SHIFT) >= pages) return;
  const page = <u32>((block - first) >> PAGE_SHIFT);
  const kind = load<u32>(table(base, page));
  if (kind >= 1 && kind <= CLASSES) {
    const c = kind - 1;
    const index = <u32>((block - first) & (PAGE_BYTES - 1)) >> (4 + c);
    atomic_and(bitmap(base, pages, page, index / 32), ~(<i32>1 << (index & 31)));
    store<u32>(base + (c << 2), page);
  } else if (kind & LARGE_HEAD) {
    for (let k = (kind & ~LARGE_HEAD) - 1; k > 0; --k) atomic_exchange(table(base, page + k), 0);
    atomic_exchange(table(base, page), 0);
  }
}

// ---- The runtime interface (std/assembly/rt/index.d.ts), as the stub's ----

// @ts-ignore: decorator
@unsafe @global
function __alloc(size: usize): usize {
  const block = heap_malloc(BLOCK_PREFIX + size);
  if (block == 0) unreachable(); // the device heap is full (WASMGPU_HEAP, --heap)
  const ptr = block + BLOCK_PREFIX;
  store<u32>(ptr - BLOCK_OVERHEAD, <u32>size); // mmInfo: the payload's size
  return ptr;
}

// @ts-ignore: decorator
@unsafe @global
function __realloc(ptr: usize, size: usize): usize {
  const have = <usize>load<u32>(ptr - BLOCK_OVERHEAD);
  if (size <= have) return ptr;
  const moved = __alloc(size);
  memory.copy(moved, ptr, have);
  __free(ptr);
  return moved;
}

// @ts-ignore: decorator
@unsafe @global
function __free(ptr: usize): void {
  if (ptr != 0) heap_free(ptr - BLOCK_PREFIX);
}

// @ts-ignore: decorator
@unsafe @global
function __reset(): void {} // the heap is the module's, not the program's

// @ts-ignore: decorator
@unsafe @global
function __new(size: usize, id: u32): usize {
  const ptr = __alloc(OBJECT_OVERHEAD + size);
  store<u32>(ptr, 0); // gcInfo
  store<u32>(ptr, 0, 4); // gcInfo2
  store<u32>(ptr, id, 8); // rtId
  store<u32>(ptr, <u32>size, 12); // rtSize
  return ptr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
function __renew(oldPtr: usize, size: usize): usize {
  const ptr = __realloc(oldPtr - OBJECT_OVERHEAD, OBJECT_OVERHEAD + size);
  store<u32>(ptr, <u32>size, 12);
  return ptr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@global @unsafe
function __link(parentPtr: usize, childPtr: usize, expectMultiple: bool): void {}

// @ts-ignore: decorator
@global @unsafe
function __pin(ptr: usize): usize {
  return ptr;
}

// @ts-ignore: decorator
@global @unsafe
function __unpin(ptr: usize): void {}

// @ts-ignore: decorator
@global @unsafe
function __visit(ptr: usize, cookie: u32): void {} // eslint-disable-line @typescript-eslint/no-unused-vars

// @ts-ignore: decorator
@global @unsafe
function __collect(): void {}

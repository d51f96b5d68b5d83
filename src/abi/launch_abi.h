// The contract between compiled kernels (spirv/) and the runtime (runtime/):
// how a launch passes its arguments, address map, stacks and trap record to
// the shader. Both sides include this header; docs/memory-model.md explains it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace wasmgpu::abi {

// Push constants of every compiled kernel (128 bytes: Vulkan's guaranteed
// maxPushConstantsSize; offsets in bytes).
//   u64 launch_block    device address of the LaunchBlock below
//   u32 base_index      invocation index of this dispatch's first invocation
//   u32 count           N: invocations of the whole launch; indices >= N return at once
//   u64 memory_address  device address of the module memory (regions[0] of the
//                       LaunchBlock), 0 when the module has none
//   u8  args_copy[104]  kernel launches: a copy of the arguments and
//                       ParamRegions that fit, placed by push_layout()
// Why a copy: a GPU reads push constants from its constant cache (on NVIDIA
// as instruction operands), while every LaunchBlock field read through its
// device address is a memory load per invocation: for a one-element-per-
// invocation kernel those loads cost more than the kernel's own (measured:
// a GLSL triad that read its pointers from a LaunchBlock ran at 0.59 of the
// plain twin on an H200). Arguments and ParamRegions that do not fit are
// read from the LaunchBlock as before.
inline constexpr uint32_t kPushLaunchBlock = 0;
inline constexpr uint32_t kPushBaseIndex = 8;
inline constexpr uint32_t kPushCount = 12;
inline constexpr uint32_t kPushMemoryAddress = 16;
inline constexpr uint32_t kPushArgsCopy = 24;
inline constexpr uint32_t kPushConstantsSize = 128;

// How a kernel argument is passed, for push_layout().
enum class ArgWidth : uint8_t {
  Word,     // f32: 4 bytes
  Pointer,  // i32: 4 bytes, and a ParamRegion (which the runtime fills for any i32)
  Double,   // i64, f64: 8 bytes
};

// Where a kernel's arguments and ParamRegions sit in the push constants
// (byte offsets; nullopt: only in the LaunchBlock). The values first, in
// order (4 or 8 bytes, naturally aligned), then the ParamRegions of the i32
// arguments in order (24 bytes each, 8-aligned), each while it fits in
// kPushConstantsSize. Both sides compute it from the kernel's signature.
struct PushLayout {
  std::vector<std::optional<uint32_t>> value;   // per argument
  std::vector<std::optional<uint32_t>> region;  // per argument (i32 ones only)
};
PushLayout push_layout(std::span<const ArgWidth> args);

// Specialization constants of a kernel's shader besides the workgroup size
// (ids 0, 1 and 2), each describing the launch so that `main` does only what
// it needs (on the H200 each cost the triad about 2% of its bandwidth):
// - kSpecIndexDims: how many dimensions the launch's invocations extend over,
//   index_dims() of its global extent (default 3). `main` leaves the y and z
//   terms out of the linearised invocation index where they are always 0.
// - kSpecMayOverrun: 1 (the default) when the launch may run invocations past
//   its count: a 1-D launch whose count is not a multiple of the workgroup
//   size. With 0, `main` does not compare the index with the count (a grid
//   runs exactly its invocations).
inline constexpr uint32_t kSpecIndexDims = 3;
inline constexpr uint32_t kSpecMayOverrun = 4;
// 1 when the global extent (workgroups times workgroup size) is 1 in y and z,
// 2 when it is 1 in z only, else 3.
inline constexpr uint32_t index_dims(uint64_t extent_y, uint64_t extent_z) {
  return extent_z > 1 ? 3 : extent_y > 1 ? 2 : 1;
}

// LaunchBlock, read by the shader through its device address (8-byte aligned):
//   u64 trap_record     device address of the TrapRecord
//   u64 stack_base      device address of the per-invocation stacks
//   u32 stack_slot_size bytes of one invocation's stack slot (multiple of 16): the
//                       shadow stack window, then the call stacks of recursive functions
//   u32 region_count    entries in the region table
//   u32 args_offset     byte offset of the argument slots (== kLaunchHeaderSize)
//   u32 regions_offset  byte offset of the region table
//   u64 instance_state  device address of the module instance's InstanceState
//                       (below); read only by shaders whose info says
//                       uses_instance_state, which the runtime must then set
//   u64 args[...]       kernel arguments after the invocation index, one 8-byte
//                       slot each: i32/f32 in the low 4 bytes, i64/f64 whole
//   ParamRegion param_regions[...]  kernel launches only: one per argument, at
//                       args_offset + kArgSlotSize * (number of arguments)
//                       (below); vectorised calls have none
//   Region regions[...] sorted by wasm_base, non-overlapping; a shader whose
//                       module has memory (and no instance state) reads the
//                       module memory's device address from regions[0]
inline constexpr uint32_t kLaunchTrapRecord = 0;
inline constexpr uint32_t kLaunchStackBase = 8;
inline constexpr uint32_t kLaunchStackSlotSize = 16;
inline constexpr uint32_t kLaunchRegionCount = 20;
inline constexpr uint32_t kLaunchArgsOffset = 24;
inline constexpr uint32_t kLaunchRegionsOffset = 28;
inline constexpr uint32_t kLaunchInstanceState = 32;
inline constexpr uint32_t kLaunchHeaderSize = 40;
// Bytes the runtime allocates from the LaunchBlock's start at the least,
// whatever its contents: a group of speculative pointer-parameter loads (at
// most 256 bytes, frontend/access_groups.h; exact mode) whose check fails reads
// at offsets from the LaunchBlock instead.
inline constexpr uint32_t kLaunchBlockMinSize = 256;
inline constexpr uint32_t kArgSlotSize = 8;

// One mapped range of the 32-bit wasm address space:
//   u32 wasm_base; u32 size; u64 device_address
// An access [ea, ea+width) is inside region r when ea >= r.wasm_base and
// ea + width <= r.wasm_base + r.size; it then touches device memory at
// r.device_address + (ea - r.wasm_base). An access inside no region traps.
inline constexpr uint32_t kRegionWasmBase = 0;
inline constexpr uint32_t kRegionSize = 4;
inline constexpr uint32_t kRegionDeviceAddress = 8;
inline constexpr uint32_t kRegionStride = 16;

// ParamRegion: the buffer a kernel argument points into, resolved by the
// runtime once per launch, so that accesses the compiler proves to derive
// from that pointer parameter (frontend/pointer_provenance.h) need one compare
// instead of a region-table scan:
//   u64 wasm_base; u64 size; u64 device_address
// Set when the argument is an i32 whose value v lies in a mapped buffer
// (wasm_base >= kBufferAddressBase; wasm_base <= v <= wasm_base + size),
// v is a multiple of kParamRegionAlignment and size >= kParamRegionMinSize;
// otherwise wasm_base = kNoParamRegion and size = kParamRegionMinSize, which
// no access matches. The shader's test for an access [ea, ea + width):
//   ea - wasm_base <= size - width   (u64 arithmetic; size >= width)
// else it takes the general path (region table, traps). Because v is
// 16-aligned and every buffer keeps device and wasm addresses congruent
// modulo 16, an access whose offset from v is proven a multiple of its
// width is aligned on the device too.
inline constexpr uint32_t kParamRegionWasmBase = 0;
inline constexpr uint32_t kParamRegionSize = 8;
inline constexpr uint32_t kParamRegionDeviceAddress = 16;
inline constexpr uint32_t kParamRegionStride = 24;
inline constexpr uint64_t kNoParamRegion = uint64_t(1) << 40;
inline constexpr uint64_t kParamRegionMinSize = 8;
inline constexpr uint64_t kParamRegionAlignment = 16;

// Layout of the wasm address space the runtime builds for a launch:
// the module's own linear memory at [0, memory size); buffers from
// kBufferAddressBase upward, each aligned to kBufferAlignment and followed by
// at least kBufferGuard unmapped bytes so that an overrun traps.
inline constexpr uint64_t kBufferAddressBase = 0x1000'0000;  // 256 MiB
inline constexpr uint64_t kBufferAlignment = 0x1'0000;       // 64 KiB
inline constexpr uint64_t kBufferGuard = 0x1'0000;           // 64 KiB
inline constexpr uint64_t kAddressSpaceEnd = 0x1'0000'0000;  // 4 GiB

// Vectorised calls: a shader compiled for a list of exports (a "call shader")
// runs one call per invocation. Its LaunchBlock's first four argument slots
// hold:
//   args[0] u64  device address of the CallRecords (one per invocation)
//   args[1] u64  device address of the ResultRecords (one per invocation)
//   args[2] u32  call_stride: bytes per CallRecord
//   args[3] u32  result_stride: bytes per ResultRecord
// CallRecord:   u32 function (position in the shader's export list), u32 0,
//               u64 params[...] (8-byte slots as for kernel arguments)
// ResultRecord: u32 status (kCallReturned, or kCallTrapped + TrapKind),
//               u32 site (the trap's module offset, kNoTrapSite when unknown,
//               under CompileOptions::trap_sites; else 0),
//               u64 results[...] (8-byte slots). Under trap_sites a trapped
//               call instead writes its access at results: u64 address
//               (kNoTrapAddress for a trap of no access), u32 byte count, so
//               the record has at least kResultRecordTrapAccessSize bytes.
// The TrapRecord is updated as for kernels, so a launch reports traps both ways.
inline constexpr uint32_t kCallArgRecords = 0;
inline constexpr uint32_t kCallArgResults = 1;
inline constexpr uint32_t kCallArgCallStride = 2;
inline constexpr uint32_t kCallArgResultStride = 3;
inline constexpr uint32_t kCallArgCount = 4;
inline constexpr uint32_t kCallRecordParams = 8;    // byte offset of params[0]
inline constexpr uint32_t kResultRecordValues = 8;  // byte offset of results[0]
inline constexpr uint32_t kResultRecordTrapAddress = kResultRecordValues;
inline constexpr uint32_t kResultRecordTrapBytes = kResultRecordValues + 8;
inline constexpr uint32_t kResultRecordTrapAccessSize = kResultRecordValues + 16;
inline constexpr uint32_t kCallReturned = 0;
inline constexpr uint32_t kCallTrapped = 1;  // status = kCallTrapped + uint32_t(TrapKind)

// InstanceState: the state of one module instance that persists across
// launches and calls, in device memory the runtime allocates per instance
// (8-byte aligned) and initialises with frontend::initial_instance_state()
// (spirv/instance_state.h), then fills in the two device addresses:
//   u32 memory_pages        current size of the module memory, in 64 KiB pages
//   u32 memory_limit_pages  memory.grow succeeds while the new size is <= this:
//                           min(declared max or 65536, reserve / 64 KiB)
//   u64 memory_address      device address of the module memory; the runtime
//                           allocates its reserve (frontend::memory_reserve_bytes)
//                           at once, zero-filled past the initial size
//   u64 data_segments       device address of a read-only buffer holding every
//                           data segment's bytes (frontend::data_segment_bytes), or 0
//   u64 globals[total_globals]  every global in index order (imports first), one
//                           8-byte slot: i32/f32 in the low 4 bytes. Imported
//                           globals are supplied by the runtime. The shadow
//                           stack pointer's slot is unused (it stays private
//                           per invocation in kernels).
//   u32 data_dropped[data segments]  nonzero once a segment is dropped (active
//                           segments start dropped, as after instantiation)
//   u32 elem_dropped[element segments]  the same for element segments (active
//                           and declarative ones start dropped)
//   u32 elem_items[...]     every element segment's items, concatenated: a
//                           function index, or kNullRef (read-only)
//   Table tables[defined tables], each 8-byte aligned:
//     u32 size              current number of elements
//     u32 capacity          slots reserved (frontend::table_capacity); table.grow
//                           fails beyond it
//     u32 slots[capacity]   function index, or kNullRef; past `size` unused
//   ExtraMemory memories[total memories - 1], 8-byte aligned, only in modules
//                           with several memories (multi-memory; frontend/memories.h):
//     u32 pages             memory k's current size, in 64 KiB pages (k = 1 + i)
//     u32 limit_pages       memory.grow on memory k succeeds while the new size is <= this
//     u64 address           device address of memory k's bytes (the runtime fills it in)
// Offsets after globals depend on the module: frontend::instance_layout() gives
// them. Reference values (funcref, and externref, which is always null here)
// are u32 function indices in shaders and slots, kNullRef for null.
// With instance state, bounds checks of module-memory accesses (wasm addresses
// below kBufferAddressBase) use memory_pages, not the region table, so an
// access past the current size traps even inside the reserve. Within one
// launch the state is shared by all invocations (concurrent writes race).
inline constexpr uint32_t kInstanceMemoryPages = 0;
inline constexpr uint32_t kInstanceMemoryLimitPages = 4;
inline constexpr uint32_t kInstanceMemoryAddress = 8;
inline constexpr uint32_t kInstanceDataSegments = 16;
inline constexpr uint32_t kInstanceGlobals = 24;
inline constexpr uint32_t kInstanceGlobalSlotSize = 8;
inline constexpr uint32_t kExtraMemoryPages = 0;
inline constexpr uint32_t kExtraMemoryLimitPages = 4;
inline constexpr uint32_t kExtraMemoryAddress = 8;
inline constexpr uint32_t kExtraMemoryRecordSize = 16;
inline constexpr uint32_t kTableSize = 0;
inline constexpr uint32_t kTableCapacity = 4;
inline constexpr uint32_t kTableSlots = 8;
inline constexpr uint32_t kNullRef = 0xFFFF'FFFFu;
inline constexpr uint64_t kPageSize = 65536;
inline constexpr uint32_t kMaxPages = 65536;

// Why an invocation trapped. Values are stable: they cross the ABI.
enum class TrapKind : uint32_t {
  Unreachable = 0,
  MemoryOutOfBounds = 1,
  IntegerDivideByZero = 2,
  IntegerOverflow = 3,
  InvalidConversionToInteger = 4,
  CallStackExhausted = 5,
  IndirectCallTypeMismatch = 6,
  UndefinedElement = 7,
  UninitializedElement = 8,
  StackOverflow = 9,  // the shadow stack outgrew the per-invocation stack
  TableOutOfBounds = 10,
  InvalidHandle = 11,     // an image or sampler handle that names nothing of the right kind (image_abi.h)
  ImageOutOfBounds = 12,  // integer texel coordinates outside the image
};
inline constexpr uint32_t kTrapKindCount = 13;

const char* to_string(TrapKind kind);

// TrapRecord, in device memory, zeroed/reset by the runtime before a launch:
//   u32 trapped_count                   invocations that trapped (atomic add)
//   u32 lowest_index[kTrapKindCount]    per kind, lowest trapping invocation
//                                       index (atomic min; 0xFFFFFFFF = none)
inline constexpr uint32_t kTrapCount = 0;
inline constexpr uint32_t kTrapLowestIndex = 4;
inline constexpr uint32_t kTrapRecordSize = 4 + 4 * kTrapKindCount;
inline constexpr uint32_t kNoTrapIndex = 0xFFFF'FFFFu;
// Shaders compiled with CompileOptions::trap_sites extend the record: the
// first trapping invocation to claim it (atomic compare-exchange 0 -> 1)
// writes where it trapped, as the byte offset of the trapping instruction
// in the module binary (kNoTrapSite: outside any instruction, e.g. a call
// shader's unknown-export path), its invocation index, and for a trap of a
// memory access the access: its wasm effective address (u64 as two u32
// words, low first; kNoTrapAddress for other traps) and its byte count.
inline constexpr uint32_t kTrapSiteClaimed = kTrapRecordSize;
inline constexpr uint32_t kTrapSiteOffset = kTrapRecordSize + 4;
inline constexpr uint32_t kTrapSiteInvocation = kTrapRecordSize + 8;
inline constexpr uint32_t kTrapSiteAddressLow = kTrapRecordSize + 12;
inline constexpr uint32_t kTrapSiteAddressHigh = kTrapRecordSize + 16;
inline constexpr uint32_t kTrapSiteAccessBytes = kTrapRecordSize + 20;
inline constexpr uint32_t kTrapRecordWithSiteSize = kTrapRecordSize + 24;
inline constexpr uint32_t kNoTrapSite = 0xFFFF'FFFFu;
inline constexpr uint64_t kNoTrapAddress = ~uint64_t(0);
// After the record, the host's clocks in nanoseconds when the runtime
// recorded the launch (or reset it for another submission): u64
// CLOCK_REALTIME (since the Unix epoch) and u64 CLOCK_MONOTONIC, 8-aligned.
// WASI's clock_time_get in a kernel reads them (frontend IntrinsicKind::
// ClockTimeGet): a GPU cannot ask the host while it runs, so every
// invocation of a launch sees the same instant.
inline constexpr uint32_t kHostClockRealtime = (kTrapRecordWithSiteSize + 7) / 8 * 8;
inline constexpr uint32_t kHostClockMonotonic = kHostClockRealtime + 8;
inline constexpr uint32_t kTrapRecordWithClocksSize = kHostClockMonotonic + 8;
// WASI's clock ids and the errno values clock_time_get returns.
inline constexpr uint32_t kWasiClockRealtime = 0;
inline constexpr uint32_t kWasiClockMonotonic = 1;
inline constexpr uint32_t kWasiErrnoSuccess = 0;
inline constexpr uint32_t kWasiErrnoInval = 28;

}  // namespace wasmgpu::abi

// The InstanceState of a module instance (abi/launch_abi.h): its layout for
// one module, its initial contents and the data the runtime uploads beside
// it. Compiled shaders and the runtime both derive offsets from here.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::frontend {

struct InstanceLayout {
  uint32_t globals_offset = 0;       // abi::kInstanceGlobals
  uint32_t data_dropped_offset = 0;  // u32 per data segment
  uint32_t elem_dropped_offset = 0;  // u32 per element segment
  uint32_t size = 0;                 // bytes of the whole InstanceState
  // Byte offset of each data segment in the buffer data_segment_bytes() gives.
  std::vector<uint64_t> data_offsets;
  // Byte offset in the InstanceState of each element segment's items (u32 each).
  std::vector<uint32_t> elem_items_offsets;
  // Byte offset in the InstanceState of each defined table's Table record
  // (abi/launch_abi.h); empty when the module imports a table (refused).
  std::vector<uint32_t> table_offsets;
  // Byte offset of 16 bytes per global (by global index) holding the v128
  // globals' values (their 8-byte slot above is unused); 0 when the module
  // has no v128 global, whose layout then has no such area.
  uint32_t v128_globals_offset = 0;
  // Byte offset of the ExtraMemory records (memories 1..n-1, abi/launch_abi.h);
  // 0 when the module has at most one memory, whose layout then has none.
  uint32_t memories_offset = 0;
};

InstanceLayout instance_layout(const wasm::Module& module);

// Bytes the runtime reserves for the module memory: the declared maximum,
// capped at `cap_without_max` when there is none (and at 4 GiB), and never
// less than the initial size. Zero for a module without memory.
uint64_t memory_reserve_bytes(const wasm::Module& module, uint64_t cap_without_max = 64ull << 20);

// The InstanceState right after instantiation, for a module memory reserved
// at `reserve_bytes`: memory_pages = initial size, the grow limit, every
// global from its constant initialiser (imported globals, and initialisers
// that read them, from `imported_globals`, one raw 8-byte value per imported
// global in import order), active data segments dropped, every table at its
// initial size with the active element segments copied in (in order; one
// that does not fit fails, as instantiation would trap), active and
// declarative element segments dropped. The two device addresses are zero:
// the runtime fills them in.
Result<std::vector<uint8_t>> initial_instance_state(const wasm::Module& module,
                                                    std::span<const uint64_t> imported_globals, uint64_t reserve_bytes);

// Every data segment's bytes, concatenated at InstanceLayout::data_offsets.
std::vector<uint8_t> data_segment_bytes(const wasm::Module& module);

// Whether shaders of this module read InstanceState (KernelInfo::uses_instance_state).
bool module_uses_instance_state(const wasm::Module& module);

}  // namespace wasmgpu::frontend

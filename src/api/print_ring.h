// The host side of kernel output: the print ring that include/wasmgpu_runtime.c
// appends records to (its layout is described there), found in a module by
// its slot's magic words, and the formatting of its records after a launch
// (docs/kernel-guide.md, "Printing and assert").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wasm/module.h"

namespace wasmgpu::detail {

inline constexpr uint32_t kPrintRingHeaderWords = 12;
inline constexpr uint32_t kPrintRingUsed = 0;
inline constexpr uint32_t kPrintRingCapacity = 1;
inline constexpr uint32_t kPrintRingDroppedWords = 2;
inline constexpr uint32_t kPrintRingDroppedRecords = 3;
inline constexpr uint32_t kPrintRingTrapClaimed = 4;
// The default size of a module's print ring (WASMGPU_PRINT_BUFFER, ModuleOptions::print_buffer_bytes).
inline constexpr uint64_t kDefaultPrintBufferBytes = uint64_t(1) << 20;

// Byte offset in `bytes` (a wasm binary) of the print slot's ring field,
// which the runtime sets to the ring's wasm address before loading; nullopt
// when the module has no slot (it never prints). More than one slot is an
// error (returned as a message).
struct PrintSlot {
  std::optional<size_t> ring_field;
  std::string error;
};
PrintSlot find_print_slot(std::span<const uint8_t> bytes);

// The module memory's initial contents as far as active data segments with
// constant offsets give them (for the format strings and %s arguments).
std::vector<uint8_t> static_memory(const wasm::Module& module);

// The first assert or abort of a launch.
struct KernelTrapText {
  std::string text;  // "assertion failed: i != 3 (k.c:12, in function 'k')", "abort() called"
  uint32_t invocation = 0;
};

struct DrainedOutput {
  std::string text;        // fd 1: printf, puts, putchar, fd_write(1)
  std::string error_text;  // fd 2: fd_write(2), fprintf(stderr)
  uint64_t dropped_records = 0;
  uint64_t dropped_bytes = 0;
  std::optional<KernelTrapText> trap;
};

// Formats a ring's header and records (`words` from the ring's start, as
// many as were used) with the module's static memory. `invocation_prefix`
// starts each line with "[N] ".
DrainedOutput format_print_ring(std::span<const uint32_t> words, std::span<const uint8_t> memory,
                                bool invocation_prefix);

}  // namespace wasmgpu::detail

// Which code a linear-memory access gets, decided at compile time from what
// can be proven about its address (docs/compiler.md, "Memory access paths").
// By the address-space layout (abi/launch_abi.h) the module memory is the only
// thing mapped below kBufferAddressBase, so a range known to lie there needs
// no region-table scan; one inside the initial size, which never shrinks,
// needs no bounds check either.
#pragma once

#include <cstdint>
#include <optional>

namespace wasmgpu::spirv {

enum class AccessPath : uint8_t {
  // One access at the module memory's device address + ea: no check at all.
  Direct,
  // Compared with the module memory's current size (it may have grown), then
  // as Direct; out of bounds traps before touching anything.
  BoundsChecked,
  // The general translation: stack window, shared memory, module memory,
  // region table (memory_access.cpp).
  Translated,
  // The address derives from a pointer parameter of the kernel
  // (pointer_provenance.h): one compare against the buffer the argument
  // points into (resolved by the runtime at launch), then one typed access
  // whose alignment is proven; the general path when the compare fails.
  Parameter,
  // As Parameter, but the alignment is not proven: checked at run time, the
  // access is typed when aligned and split into pieces otherwise.
  ParameterUnaligned,
  // The address is a number computed at run time (static data or shared
  // variables indexed): compared with the workgroup-shared range, then with
  // the part of the module memory outside the stack and shared ranges; one
  // access when either holds (typed when the alignment is proven), else the
  // general path.
  Indexed,
  IndexedUnaligned,
};

// What the proofs know about a shader's wasm address space.
struct AddressFacts {
  // Size of the module memory when the shader starts; memory never shrinks.
  uint64_t initial_memory_bytes = 0;
  // Ranges inside the module memory that other paths serve (lo == hi: none):
  // the per-invocation shadow stack region and workgroup-shared variables.
  uint64_t stack_lo = 0, stack_hi = 0;
  uint64_t shared_lo = 0, shared_hi = 0;
};

// The path for an access to [start, start + size). `start` and `size` are
// the compile-time values when known (nullopt: only known at run time).
AccessPath access_path(const AddressFacts& facts, std::optional<uint64_t> start, std::optional<uint64_t> size);

// How many memory access sites of a shader take each path (loads, stores,
// memory.fill/copy/init; a copy counts once, with the slower of its two
// ranges; atomics are not counted).
struct AccessPathCounts {
  uint32_t direct = 0;
  uint32_t bounds_checked = 0;
  uint32_t translated = 0;
  uint32_t parameter = 0;
  uint32_t parameter_unaligned = 0;
  uint32_t indexed = 0;
  uint32_t indexed_unaligned = 0;
  // Of the sites above: those in access groups (access_groups.h), and the
  // vector accesses (16 or 8 bytes) their members became.
  uint32_t grouped = 0;
  uint32_t wide = 0;
  // Of the groups' accesses: four words whose 16-alignment is known only at
  // run time, one 16-byte access when the address turns out aligned.
  uint32_t wide_when_aligned = 0;
  // Of the sites above (and the wasmgpu_atomic_* calls): those whose
  // address is proven to lie in the shared range for small enough
  // workgroups, whose range check the driver then drops (docs/compiler.md,
  // "Proven shared accesses").
  uint32_t proven_shared = 0;

  uint32_t total() const { return fast() + translated; }
  // Sites that skip the region-table scan.
  uint32_t fast() const {
    return direct + bounds_checked + parameter + parameter_unaligned + indexed + indexed_unaligned;
  }
  // Sites that are one typed load or store when their check passes.
  uint32_t typed() const { return direct + bounds_checked + parameter + indexed; }
  void add(AccessPath path);
};

}  // namespace wasmgpu::spirv

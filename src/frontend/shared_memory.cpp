#include "frontend/shared_memory.h"

#include <string_view>

namespace wasmgpu::frontend {

Result<SharedMemory> find_shared_memory(const wasm::Module& module) {
  SharedMemory shared;
  for (const auto& [index, name] : module.names.data_names) {
    if (std::string_view(name).substr(0, std::string_view(kSharedSection).size()) != kSharedSection) continue;
    if (index >= module.data.size()) continue;
    const wasm::DataSegment& segment = module.data[index];
    if (segment.mode != wasm::DataSegment::Mode::Active || segment.memory != 0 || segment.offset.instrs.empty() ||
        segment.offset.instrs[0].op != wasm::Opcode::I32Const)
      return make_error(ErrorCode::Compile, "shared memory segment " + name + " has no constant address");
    for (uint8_t byte : segment.bytes)
      if (byte != 0)
        return make_error(ErrorCode::Compile,
                          "shared memory (" + name +
                              ") has initial values; workgroup-shared variables start undefined on a GPU: "
                              "declare them without initialisers and fill them in the kernel");
    uint32_t lo = uint32_t(segment.offset.instrs[0].imm64);
    uint32_t hi = lo + uint32_t(segment.bytes.size());
    if (shared.hi == shared.lo) {
      shared.lo = lo;
      shared.hi = hi;
    } else if (lo == shared.hi) {
      shared.hi = hi;
    } else if (hi == shared.lo) {
      shared.lo = lo;
    } else {
      return make_error(ErrorCode::Compile, "shared memory is split over data segments that are not adjacent");
    }
  }
  // Whole words: the range's ends round outwards to multiples of 4.
  shared.lo &= ~3u;
  shared.hi = (shared.hi + 3) & ~3u;
  return shared;
}

}  // namespace wasmgpu::frontend

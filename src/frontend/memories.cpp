#include "frontend/memories.h"

#include <algorithm>
#include <cstring>

#include "abi/launch_abi.h"

namespace wasmgpu::frontend {

std::optional<wasm::MemoryType> memory_type(const wasm::Module& module, uint32_t index) {
  uint32_t next = 0;
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory && next++ == index) return import.memory;
  if (index < next || index - next >= module.memories.size()) return std::nullopt;
  return module.memories[index - next];
}

uint64_t reserve_bytes_of(const wasm::MemoryType& memory, uint64_t cap_without_max) {
  const uint64_t initial = memory.limits.min * abi::kPageSize;
  uint64_t max = memory.limits.max ? *memory.limits.max * abi::kPageSize : cap_without_max;
  max = std::min<uint64_t>(max, uint64_t(abi::kMaxPages) * abi::kPageSize);
  return std::max(initial, max);
}

ExtraMemories extra_memories(const wasm::Module& module, uint32_t state_offset) {
  ExtraMemories out;
  for (uint32_t index = 1; index < module.total_memories(); ++index) {
    const wasm::MemoryType type = *memory_type(module, index);
    ExtraMemory m;
    m.index = index;
    m.buffer_offset = out.buffer_bytes;
    const uint64_t initial = type.limits.min * abi::kPageSize;
    m.reserve_bytes =
        std::max(initial, std::min(reserve_bytes_of(type, kExtraMemoryReserveWithoutMaximum), kExtraMemoryReserveCap));
    m.initial_pages = uint32_t(type.limits.min);
    const uint64_t declared = type.limits.max ? *type.limits.max : abi::kMaxPages;
    m.limit_pages = uint32_t(std::min<uint64_t>(declared, m.reserve_bytes / abi::kPageSize));
    m.state_offset = state_offset + abi::kExtraMemoryRecordSize * (index - 1);
    // 64 KiB apart, so that each memory's device bytes are as aligned as memory 0's.
    out.buffer_bytes += (m.reserve_bytes + abi::kPageSize - 1) / abi::kPageSize * abi::kPageSize;
    out.memories.push_back(m);
  }
  return out;
}

Result<std::vector<uint8_t>> initial_memory_image(const wasm::Module& module, uint32_t index) {
  const std::optional<wasm::MemoryType> type = memory_type(module, index);
  const uint64_t bytes = type ? type->limits.min * abi::kPageSize : 0;
  std::vector<uint8_t> image(bytes);
  for (size_t i = 0; i < module.data.size(); ++i) {
    const wasm::DataSegment& segment = module.data[i];
    if (segment.mode != wasm::DataSegment::Mode::Active || segment.memory != index) continue;
    const auto& instrs = segment.offset.instrs;
    const bool constant = !instrs.empty() && instrs[0].op == wasm::Opcode::I32Const &&
                          (instrs.size() == 1 || (instrs.size() == 2 && instrs[1].op == wasm::Opcode::End));
    if (!constant)
      return make_error(ErrorCode::Compile, "data segment " + std::to_string(i) +
                                                ": its offset is not a constant i32 (i32.const); wasmgpu does not "
                                                "support offsets computed from globals");
    const uint64_t offset = uint32_t(instrs[0].imm64);
    if (offset + segment.bytes.size() > bytes)
      return make_error(ErrorCode::Compile,
                        "data segment " + std::to_string(i) + " (" + std::to_string(segment.bytes.size()) +
                            " bytes at offset " + std::to_string(offset) + ") does not fit in " +
                            (index == 0 ? std::string("the module's") : "memory " + std::to_string(index) + "'s") +
                            " " + std::to_string(bytes) + "-byte memory");
    if (!segment.bytes.empty()) std::memcpy(image.data() + offset, segment.bytes.data(), segment.bytes.size());
  }
  return image;
}

}  // namespace wasmgpu::frontend

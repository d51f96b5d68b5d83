#include "wasm/opcode.h"

#include <array>
#include <unordered_map>

namespace wasmgpu::wasm {
namespace {

constexpr std::array<OpcodeInfo, kOpcodeCount> kInfos = {{
#define WASM_OPCODE(name, text, prefix, code, imm, sig) \
  OpcodeInfo{text, prefix, code, ImmediateKind::imm, sig},
#include "wasm/opcodes.def"
#undef WASM_OPCODE
}};

uint64_t encoding_key(uint8_t prefix, uint32_t code) { return (uint64_t(prefix) << 32) | code; }

}  // namespace

const OpcodeInfo& info(Opcode op) { return kInfos[static_cast<size_t>(op)]; }

std::optional<Opcode> lookup_opcode(uint8_t prefix, uint32_t code) {
  static const auto* table = [] {
    auto* map = new std::unordered_map<uint64_t, Opcode>();
    for (size_t i = 0; i < kInfos.size(); ++i)
      map->emplace(encoding_key(kInfos[i].prefix, kInfos[i].code), static_cast<Opcode>(i));
    return map;
  }();
  auto it = table->find(encoding_key(prefix, code));
  if (it == table->end()) return std::nullopt;
  return it->second;
}

}  // namespace wasmgpu::wasm

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

uint32_t atomic_access_bytes(Opcode op) {
  const OpcodeInfo& i = info(op);
  if (i.prefix != 0xFE || op == Opcode::AtomicFence) return 0;
  std::string_view text = i.text;
  if (text == "memory.atomic.notify" || text == "memory.atomic.wait32") return 4;
  if (text == "memory.atomic.wait64") return 8;
  // "i64.atomic.rmw16.add_u", "i32.atomic.load8_u", "i64.atomic.store32", "i32.atomic.rmw.add"
  std::string_view rest = text.substr(text.find('.', 4) + 1);  // after "iNN.atomic."
  size_t digits = rest.find_first_of("0123456789");
  size_t end = rest.find_first_of("._", digits);
  if (digits != std::string_view::npos) {
    std::string_view bits = rest.substr(digits, end == std::string_view::npos ? end : end - digits);
    return bits == "8" ? 1 : bits == "16" ? 2 : 4;
  }
  return text.starts_with("i64") ? 8 : 4;
}

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

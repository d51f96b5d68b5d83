#include "wasm/opcode.h"

#include <unordered_map>

namespace wasmgpu::wasm {
namespace {

// The words opcodes.def spells its facts with.
constexpr ValType I32 = ValType::I32, I64 = ValType::I64, F32 = ValType::F32, F64 = ValType::F64, V128 = ValType::V128;
constexpr Extend Full = Extend::Full, Zero = Extend::Zero, Sign = Extend::Sign;
constexpr AccessKind Add = AccessKind::Add, Sub = AccessKind::Sub, And = AccessKind::And, Or = AccessKind::Or,
                     Xor = AccessKind::Xor, Exchange = AccessKind::Exchange,
                     CompareExchange = AccessKind::CompareExchange;
constexpr bool Typed = false, ByHand = true;
constexpr bool NoTrap = false, MayTrap = true;
constexpr MemoryAccess NoAccess{};
constexpr MemoryAccess Load(uint8_t bytes, Extend extend) { return {bytes, AccessKind::Load, extend}; }
constexpr MemoryAccess Store(uint8_t bytes) { return {bytes, AccessKind::Store, Extend::Full}; }
constexpr MemoryAccess Rmw(uint8_t bytes, AccessKind kind, Extend extend) { return {bytes, kind, extend}; }
constexpr MemoryAccess Wait(uint8_t bytes) { return {bytes, AccessKind::Wait, Extend::Full}; }
constexpr MemoryAccess Notify(uint8_t bytes) { return {bytes, AccessKind::Notify, Extend::Full}; }

#define WASM_TYPE_LIST(...) \
  ValTypes { __VA_ARGS__ }
constexpr std::array<OpcodeInfo, kOpcodeCount> kInfos = {{
#define WASM_OPCODE(name, text, prefix, code, imm, cls, typing, params, results, access, trap) \
  OpcodeInfo{text,                                                                             \
             prefix,                                                                           \
             code,                                                                             \
             ImmediateKind::imm,                                                               \
             OpcodeClass::cls,                                                                 \
             typing,                                                                           \
             WASM_TYPE_LIST params,                                                            \
             WASM_TYPE_LIST results,                                                           \
             access,                                                                           \
             trap},
#include "wasm/opcodes.def"
#undef WASM_OPCODE
}};
#undef WASM_TYPE_LIST

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

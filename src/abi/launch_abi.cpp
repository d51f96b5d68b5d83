#include "abi/launch_abi.h"

namespace wasmgpu::abi {

PushLayout push_layout(std::span<const ArgWidth> args) {
  PushLayout layout;
  layout.value.resize(args.size());
  layout.region.resize(args.size());
  uint32_t at = kPushArgsCopy;
  auto place = [&](uint32_t size, uint32_t alignment) -> std::optional<uint32_t> {
    const uint32_t start = (at + alignment - 1) / alignment * alignment;
    if (start + size > kPushConstantsSize) return std::nullopt;
    at = start + size;
    return start;
  };
  for (size_t i = 0; i < args.size(); ++i) layout.value[i] = args[i] == ArgWidth::Double ? place(8, 8) : place(4, 4);
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] == ArgWidth::Pointer) layout.region[i] = place(kParamRegionStride, 8);
  return layout;
}

const char* to_string(TrapKind kind) {
  switch (kind) {
    case TrapKind::Unreachable: return "unreachable executed";
    case TrapKind::MemoryOutOfBounds: return "out of bounds memory access";
    case TrapKind::IntegerDivideByZero: return "integer divide by zero";
    case TrapKind::IntegerOverflow: return "integer overflow";
    case TrapKind::InvalidConversionToInteger: return "invalid conversion to integer";
    case TrapKind::CallStackExhausted: return "call stack exhausted";
    case TrapKind::IndirectCallTypeMismatch: return "indirect call type mismatch";
    case TrapKind::UndefinedElement: return "undefined element";
    case TrapKind::UninitializedElement: return "uninitialized element";
    case TrapKind::StackOverflow: return "shadow stack overflow";
    case TrapKind::TableOutOfBounds: return "out of bounds table access";
    case TrapKind::InvalidHandle: return "invalid image or sampler handle";
    case TrapKind::ImageOutOfBounds: return "out of bounds image access";
  }
  return "unknown trap";
}

}  // namespace wasmgpu::abi

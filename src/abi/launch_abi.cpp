#include "abi/launch_abi.h"

namespace wasmgpu::abi {

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

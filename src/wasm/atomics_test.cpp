// The threads proposal's atomics (0xFE prefix): decoding, alignment rules and
// shared memories.
#include <gtest/gtest.h>

#include "wasm/decoder.h"
#include "wasm/opcode.h"
#include "wasm/test_module_builder.h"
#include "wasm/validator.h"

namespace wasmgpu::wasm {
namespace {

using namespace testing;  // NOLINT: the builder helpers

// A module with a memory of type `limits` (flags, min[, max]) and one
// function [] -> [] whose body is `code`.
Bytes module_with_memory(const Bytes& limits, const Bytes& code) {
  return module_of({type_section_void(), function_section(1), section(5, concat({Bytes{0x01}, limits})),
                    code_section({body(concat({Bytes{0x00}, code}))})});
}

std::string decode_and_validate(const Bytes& bytes) {
  auto module = decode(bytes);
  if (!module.ok()) return module.error().message;
  Status status = validate(*module);
  return status.ok() ? "ok" : status.error().message;
}

TEST(Atomics, OpcodeTableMatchesTheThreadsProposal) {
  int atomics = 0;
  for (uint32_t i = 0; i < kOpcodeCount; ++i) {
    if (info(Opcode(i)).cls == OpcodeClass::Atomic) {
      EXPECT_EQ(info(Opcode(i)).prefix, 0xFE) << info(Opcode(i)).text;
      ++atomics;
    }
  }
  EXPECT_EQ(atomics, 4 + 14 + 7 * 7);
  EXPECT_EQ(lookup_opcode(0xFE, 0x10), Opcode::I32AtomicLoad);
  EXPECT_EQ(lookup_opcode(0xFE, 0x1E), Opcode::I32AtomicRmwAdd);
  EXPECT_EQ(lookup_opcode(0xFE, 0x4E), Opcode::I64AtomicRmw32CmpxchgU);
  EXPECT_EQ(lookup_opcode(0xFE, 0x4F), std::nullopt);
  EXPECT_EQ(info(Opcode::I64AtomicRmw16XchgU).access.bytes, 2u);
  EXPECT_EQ(info(Opcode::I64AtomicLoad32U).access.bytes, 4u);
  EXPECT_EQ(info(Opcode::I64AtomicStore).access.bytes, 8u);
  EXPECT_EQ(info(Opcode::I32AtomicRmw8CmpxchgU).access.bytes, 1u);
  EXPECT_EQ(info(Opcode::MemoryAtomicWait64).access.bytes, 8u);
  EXPECT_EQ(info(Opcode::AtomicFence).access.bytes, 0u);
  EXPECT_EQ(info(Opcode::I32Load).cls, OpcodeClass::Memory);
}

TEST(Atomics, DecodesMemArgAndFence) {
  // i32.const 0; i32.const 1; i32.atomic.rmw.add align=2 offset=8; drop; atomic.fence; end
  auto module = decode(module_with_memory(
      {0x03, 0x01, 0x02}, {0x41, 0x00, 0x41, 0x01, 0xFE, 0x1E, 0x02, 0x08, 0x1A, 0xFE, 0x03, 0x00, 0x0B}));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const auto& code = module->functions[0].body;
  ASSERT_EQ(code.size(), 6u);
  EXPECT_EQ(code[2].op, Opcode::I32AtomicRmwAdd);
  EXPECT_EQ(code[2].imm0, 2u);
  EXPECT_EQ(code[2].imm1, 8u);
  EXPECT_EQ(code[4].op, Opcode::AtomicFence);
  EXPECT_TRUE(module->memories[0].limits.shared);
  EXPECT_EQ(module->memories[0].limits.max, 2u);
  EXPECT_TRUE(validate(*module).ok());
}

TEST(Atomics, FenceNeedsAZeroByte) {
  EXPECT_EQ(decode_and_validate(module_with_memory({0x00, 0x01}, {0xFE, 0x03, 0x01, 0x0B})), "zero byte expected");
}

TEST(Atomics, AlignmentMustEqualNatural) {
  // i32.const 0; i64.atomic.load align=<a>; drop
  auto with_align = [](uint8_t align) {
    return module_with_memory({0x00, 0x01}, {0x41, 0x00, 0xFE, 0x11, align, 0x00, 0x1A, 0x0B});
  };
  EXPECT_EQ(decode_and_validate(with_align(3)), "ok");
  EXPECT_EQ(decode_and_validate(with_align(2)), "alignment must be equal to natural");
  EXPECT_EQ(decode_and_validate(with_align(4)), "alignment must be equal to natural");
  // i32.const 0; i32.atomic.load8_u align=0 is natural; align=1 is not.
  EXPECT_EQ(decode_and_validate(module_with_memory({0x00, 0x01}, {0x41, 0x00, 0xFE, 0x12, 0x00, 0x00, 0x1A, 0x0B})),
            "ok");
  EXPECT_EQ(decode_and_validate(module_with_memory({0x00, 0x01}, {0x41, 0x00, 0xFE, 0x12, 0x01, 0x00, 0x1A, 0x0B})),
            "alignment must be equal to natural");
}

TEST(Atomics, AtomicsNeedAMemory) {
  EXPECT_EQ(decode_and_validate(single_function_module({0x41, 0x00, 0xFE, 0x10, 0x02, 0x00, 0x1A, 0x0B})),
            "unknown memory 0");
}

TEST(Atomics, SharedMemoryNeedsAMaximum) {
  EXPECT_EQ(decode_and_validate(module_with_memory({0x02, 0x01}, {0x0B})), "shared memory must have maximum");
  EXPECT_EQ(decode_and_validate(module_with_memory({0x03, 0x01, 0x01}, {0x0B})), "ok");
  EXPECT_EQ(decode_and_validate(module_with_memory({0x04, 0x01}, {0x0B})), "integer too large: malformed limits flags");
  // Tables cannot be shared.
  EXPECT_EQ(decode_and_validate(module_of({section(4, {0x01, 0x70, 0x03, 0x01, 0x01})})),
            "integer too large: malformed limits flags");
}

}  // namespace
}  // namespace wasmgpu::wasm

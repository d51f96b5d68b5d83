// The opcode table's facts (opcodes.def): types, memory accesses, traps and
// classes, and that no stage works them out from names or encodings again.
#include "wasm/opcode.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace wasmgpu::wasm {
namespace {

std::vector<ValType> types(const ValTypes& list) { return {list.begin(), list.end()}; }

void expect_access(Opcode op, uint32_t bytes, AccessKind kind, Extend extend) {
  const MemoryAccess& access = info(op).access;
  EXPECT_EQ(access.bytes, bytes) << info(op).text;
  EXPECT_EQ(access.kind, kind) << info(op).text;
  EXPECT_EQ(access.extend, extend) << info(op).text;
}

TEST(OpcodeFacts, LoadsAndStoresHaveTheirWidthAndSignedness) {
  expect_access(Opcode::I32Load, 4, AccessKind::Load, Extend::Full);
  expect_access(Opcode::I64Load, 8, AccessKind::Load, Extend::Full);
  expect_access(Opcode::F64Load, 8, AccessKind::Load, Extend::Full);
  expect_access(Opcode::I32Load8S, 1, AccessKind::Load, Extend::Sign);
  expect_access(Opcode::I32Load8U, 1, AccessKind::Load, Extend::Zero);
  expect_access(Opcode::I32Load16S, 2, AccessKind::Load, Extend::Sign);
  expect_access(Opcode::I64Load16U, 2, AccessKind::Load, Extend::Zero);
  expect_access(Opcode::I64Load32S, 4, AccessKind::Load, Extend::Sign);
  expect_access(Opcode::I64Load32U, 4, AccessKind::Load, Extend::Zero);
  expect_access(Opcode::I32Store8, 1, AccessKind::Store, Extend::Full);
  expect_access(Opcode::I64Store32, 4, AccessKind::Store, Extend::Full);
  expect_access(Opcode::F32Store, 4, AccessKind::Store, Extend::Full);
  expect_access(Opcode::V128Load, 16, AccessKind::Load, Extend::Full);
  expect_access(Opcode::V128Load8x8S, 8, AccessKind::Load, Extend::Sign);
  expect_access(Opcode::V128Load32x2U, 8, AccessKind::Load, Extend::Zero);
  expect_access(Opcode::V128Load16Splat, 2, AccessKind::Load, Extend::Full);
  expect_access(Opcode::V128Load64Zero, 8, AccessKind::Load, Extend::Zero);
  expect_access(Opcode::V128Store16Lane, 2, AccessKind::Store, Extend::Full);
  expect_access(Opcode::I32AtomicLoad8U, 1, AccessKind::Load, Extend::Zero);
  expect_access(Opcode::I64AtomicStore, 8, AccessKind::Store, Extend::Full);
  expect_access(Opcode::I32AtomicRmwAdd, 4, AccessKind::Add, Extend::Full);
  expect_access(Opcode::I64AtomicRmw16XchgU, 2, AccessKind::Exchange, Extend::Zero);
  expect_access(Opcode::I64AtomicRmw32CmpxchgU, 4, AccessKind::CompareExchange, Extend::Zero);
  expect_access(Opcode::I32AtomicRmw8OrU, 1, AccessKind::Or, Extend::Zero);
  expect_access(Opcode::MemoryAtomicWait64, 8, AccessKind::Wait, Extend::Full);
  expect_access(Opcode::MemoryAtomicNotify, 4, AccessKind::Notify, Extend::Full);
  for (Opcode op : {Opcode::I32Add, Opcode::MemorySize, Opcode::MemoryFill, Opcode::AtomicFence, Opcode::Call})
    expect_access(op, 0, AccessKind::None, Extend::Full);
  EXPECT_TRUE(info(Opcode::I32AtomicRmwSub).access.reads());
  EXPECT_TRUE(info(Opcode::I32AtomicRmwSub).access.writes());
  EXPECT_FALSE(info(Opcode::I32Store).access.reads());
  EXPECT_FALSE(info(Opcode::F32Load).access.writes());
}

TEST(OpcodeFacts, EveryMemoryArgumentIsAnAccessAtTheFirstOperand) {
  int accesses = 0;
  for (uint32_t i = 0; i < kOpcodeCount; ++i) {
    const OpcodeInfo& op = info(Opcode(i));
    const bool mem_arg = op.immediate == ImmediateKind::MemArg || op.immediate == ImmediateKind::MemArgLane;
    EXPECT_EQ(mem_arg, op.access.bytes != 0) << op.text;
    if (!mem_arg) continue;
    ++accesses;
    EXPECT_TRUE(op.may_trap) << op.text;  // out of bounds
    ASSERT_FALSE(op.params.empty()) << op.text;
    EXPECT_EQ(op.params[0], ValType::I32) << op.text;
    EXPECT_EQ(op.access.kind == AccessKind::Store, op.results.empty()) << op.text;
  }
  // 23 plain loads and stores, 67 atomics less the fence, 22 SIMD ones.
  EXPECT_EQ(accesses, 23 + 66 + 22);
}

TEST(OpcodeFacts, TrapsAreMarked) {
  for (Opcode op : {Opcode::Unreachable,    Opcode::I32DivS,      Opcode::I32DivU,
                    Opcode::I64RemS,        Opcode::I64RemU,      Opcode::I32TruncF32S,
                    Opcode::I64TruncF64U,   Opcode::CallIndirect, Opcode::Call,
                    Opcode::MemoryCopy,     Opcode::MemoryFill,   Opcode::MemoryInit,
                    Opcode::TableGet,       Opcode::TableSet,     Opcode::TableFill,
                    Opcode::TableCopy,      Opcode::TableInit,    Opcode::I32Load,
                    Opcode::I32AtomicStore, Opcode::ReturnCall,   Opcode::ReturnCallIndirect})
    EXPECT_TRUE(info(op).may_trap) << info(op).text;
  for (Opcode op : {Opcode::Nop, Opcode::Br, Opcode::I32Add, Opcode::I32Mul, Opcode::F32Div, Opcode::I32TruncSatF32S,
                    Opcode::I64TruncSatF64U, Opcode::MemoryGrow, Opcode::MemorySize, Opcode::TableGrow,
                    Opcode::DataDrop, Opcode::I32Const, Opcode::LocalGet, Opcode::AtomicFence, Opcode::I32Eqz})
    EXPECT_FALSE(info(op).may_trap) << info(op).text;
  int numeric_traps = 0;
  for (uint32_t i = 0; i < kOpcodeCount; ++i)
    numeric_traps += info(Opcode(i)).cls == OpcodeClass::Numeric && info(Opcode(i)).may_trap;
  EXPECT_EQ(numeric_traps, 8 + 8);  // div and rem; the trapping truncations
}

TEST(OpcodeFacts, ClassesFollowTheSpec) {
  const std::vector<std::pair<Opcode, OpcodeClass>> expected = {
      {Opcode::Block, OpcodeClass::Control},           {Opcode::CallIndirect, OpcodeClass::Control},
      {Opcode::Select, OpcodeClass::Parametric},       {Opcode::Drop, OpcodeClass::Parametric},
      {Opcode::LocalTee, OpcodeClass::Variable},       {Opcode::GlobalSet, OpcodeClass::Variable},
      {Opcode::TableGrow, OpcodeClass::Table},         {Opcode::ElemDrop, OpcodeClass::Table},
      {Opcode::RefFunc, OpcodeClass::Reference},       {Opcode::I64Store16, OpcodeClass::Memory},
      {Opcode::MemoryGrow, OpcodeClass::Memory},       {Opcode::DataDrop, OpcodeClass::Memory},
      {Opcode::I64Const, OpcodeClass::Numeric},        {Opcode::I64Extend32S, OpcodeClass::Numeric},
      {Opcode::I32TruncSatF32S, OpcodeClass::Numeric}, {Opcode::I32Eqz, OpcodeClass::Comparison},
      {Opcode::F64Ge, OpcodeClass::Comparison},        {Opcode::I64LtU, OpcodeClass::Comparison},
      {Opcode::V128Load, OpcodeClass::Vector},         {Opcode::I8x16Eq, OpcodeClass::Vector},
      {Opcode::AtomicFence, OpcodeClass::Atomic},      {Opcode::I64AtomicLoad, OpcodeClass::Atomic}};
  for (const auto& [op, cls] : expected) EXPECT_EQ(info(op).cls, cls) << info(op).text;
  for (uint32_t i = 0; i < kOpcodeCount; ++i) {
    const OpcodeInfo& op = info(Opcode(i));
    EXPECT_EQ(op.cls == OpcodeClass::Vector, op.prefix == 0xFD) << op.text;
    EXPECT_EQ(op.cls == OpcodeClass::Atomic, op.prefix == 0xFE) << op.text;
    if (op.cls == OpcodeClass::Comparison) EXPECT_EQ(types(op.results), std::vector{ValType::I32}) << op.text;
  }
}

TEST(OpcodeFacts, TailCallsAreControlWithCallImmediates) {
  // The tail-call proposal's encodings: 0x12 names a function, 0x13 a type and a table.
  EXPECT_EQ(lookup_opcode(0, 0x12), Opcode::ReturnCall);
  EXPECT_EQ(lookup_opcode(0, 0x13), Opcode::ReturnCallIndirect);
  EXPECT_EQ(info(Opcode::ReturnCall).immediate, info(Opcode::Call).immediate);
  EXPECT_EQ(info(Opcode::ReturnCallIndirect).immediate, info(Opcode::CallIndirect).immediate);
  EXPECT_EQ(info(Opcode::ReturnCall).cls, OpcodeClass::Control);
  EXPECT_TRUE(info(Opcode::ReturnCallIndirect).typed_by_hand);
  EXPECT_EQ(info(Opcode::ReturnCallIndirect).text, "return_call_indirect");
}

TEST(OpcodeFacts, TypesAreArrays) {
  using V = std::vector<ValType>;
  EXPECT_EQ(types(info(Opcode::I32Add).params), (V{ValType::I32, ValType::I32}));
  EXPECT_EQ(types(info(Opcode::I32Add).results), (V{ValType::I32}));
  EXPECT_EQ(types(info(Opcode::F64ConvertI64U).params), (V{ValType::I64}));
  EXPECT_EQ(types(info(Opcode::F64ConvertI64U).results), (V{ValType::F64}));
  EXPECT_EQ(types(info(Opcode::I64Store).params), (V{ValType::I32, ValType::I64}));
  EXPECT_TRUE(info(Opcode::I64Store).results.empty());
  EXPECT_EQ(types(info(Opcode::I64AtomicRmwCmpxchg).params), (V{ValType::I32, ValType::I64, ValType::I64}));
  EXPECT_EQ(types(info(Opcode::V128Bitselect).params), (V{ValType::V128, ValType::V128, ValType::V128}));
  EXPECT_EQ(types(info(Opcode::I32x4RelaxedDotI8x16I7x16AddS).params),
            (V{ValType::V128, ValType::V128, ValType::V128}));
  EXPECT_EQ(types(info(Opcode::I8x16RelaxedSwizzle).params), (V{ValType::V128, ValType::V128}));
  EXPECT_EQ(types(info(Opcode::I32Const).results), (V{ValType::I32}));
  EXPECT_TRUE(info(Opcode::I32Const).params.empty());
  EXPECT_FALSE(info(Opcode::DataDrop).typed_by_hand);
  EXPECT_TRUE(info(Opcode::DataDrop).params.empty());
  for (Opcode op : {Opcode::Call, Opcode::LocalGet, Opcode::Select, Opcode::Block, Opcode::TableGet, Opcode::RefNull}) {
    EXPECT_TRUE(info(op).typed_by_hand) << info(op).text;
    EXPECT_TRUE(info(op).params.empty() && info(op).results.empty()) << info(op).text;
  }
}

// A search in an opcode's name (its OpcodeInfo named info or op, or info(op)).
constexpr const char* kNameSearched =
    R"((\binfo\([^;]*\)|\binfo|\bop)\.text\s*\.\s*(find|rfind|find_first_of|starts_with|ends_with|substr|contains|compare)\s*\()";

// The done-when of issue 19, item 1: no stage reads opcode facts off an
// instruction's name, an old signature string or ranges of encodings.
TEST(OpcodeFacts, NoSourceParsesOpcodeFacts) {
  const std::vector<std::pair<std::regex, const char*>> forbidden = {
      {std::regex(kNameSearched), "an opcode's name searched"},
      {std::regex(R"(string_view\s+\w+\s*=\s*((wasm::)?info\([^;]*\)|\w+)\.text\s*;)"), "an opcode's name taken apart"},
      {std::regex(R"(\.signature\s*(;|\.|\[|==))"), "a signature string"},
      {std::regex(R"(\.code\s*(<|>|<=|>=)\s*0x)"), "a range of encodings"},
      {std::regex(R"(\.prefix\s*(==|!=)\s*0x)"), "an encoding prefix as a class"},
      {std::regex(R"((<|>|<=|>=)\s*(wasm::)?Opcode::[A-Z]\w*\b\s*(&&|\|\||;|\)))"), "a range of opcodes"},
  };
  const std::filesystem::path self = std::filesystem::path(__FILE__).filename();
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(WASMGPU_SOURCE_DIR)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h") || entry.path().filename() == self) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      for (const auto& [pattern, what] : forbidden)
        EXPECT_FALSE(std::regex_search(line, pattern))
            << what << " at " << entry.path().string() << ":" << number << ": " << line;
  }
  EXPECT_GT(files, 100);  // the sources were found
}

TEST(OpcodeFacts, TheGrepCatchesWhatItLooksFor) {
  // The patterns above, on the lines this item removed.
  const std::regex name(kNameSearched);
  EXPECT_TRUE(std::regex_search("bool is_i64(Opcode op) { return wasm::info(op).text.starts_with(\"i64\"); }", name));
  EXPECT_TRUE(std::regex_search("if (op.text.substr(0, 4) == \"i32.\")", name));
  EXPECT_FALSE(std::regex_search("if (c.text.starts_with(\"trunc(\"))", name));  // not an opcode's
  const std::regex bound(R"(string_view\s+\w+\s*=\s*((wasm::)?info\([^;]*\)|\w+)\.text\s*;)");
  EXPECT_TRUE(std::regex_search("const std::string_view text = info.text;", bound));
  const std::regex range(R"((<|>|<=|>=)\s*(wasm::)?Opcode::[A-Z]\w*\b\s*(&&|\|\||;|\)))");
  EXPECT_TRUE(std::regex_search("return op >= Opcode::I32Eqz && op <= Opcode::F64Ge;", range));
  EXPECT_FALSE(std::regex_search("static_cast<Opcode>(i); std::map<Opcode, int> m;", range));
  const std::regex code(R"(\.code\s*(<|>|<=|>=)\s*0x)");
  EXPECT_TRUE(std::regex_search("if (i.prefix != 0 || i.code < 0x45 || i.code > 0xC4) return false;", code));
}

}  // namespace
}  // namespace wasmgpu::wasm

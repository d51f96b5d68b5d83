// The inlining budget: which functions a shader over it keeps out of line,
// and that a shader within it is left byte for byte as it was.
#include "spirv/inline_budget.h"

#include <regex>

#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

// Only the instructions the pass reads, in a module's shape: the header,
// OpEntryPoint, then each function as OpFunction, its calls, `filler` other
// instructions and OpFunctionEnd. Function ids are 1 + their index.
struct FakeFunction {
  std::vector<uint32_t> calls;  // callee indices, one per call site
  uint32_t filler = 0;
};

std::vector<uint32_t> fake_module(const std::vector<FakeFunction>& functions) {
  std::vector<uint32_t> words = {0x07230203, 0x00010500, 0, 1000, 0};
  words.insert(words.end(), {(4u << 16) | 15u, 5u /* GLCompute */, 1u, 0u /* name "" */});
  for (size_t f = 0; f < functions.size(); ++f) {
    words.insert(words.end(), {(5u << 16) | 54u, 100u, uint32_t(f + 1), 0u, 101u});
    uint32_t next_result = 200;
    for (uint32_t callee : functions[f].calls)
      words.insert(words.end(), {(4u << 16) | 57u, 100u, next_result++, callee + 1});
    for (uint32_t i = 0; i < functions[f].filler; ++i) words.push_back((1u << 16) | 0u /* OpNop */);
    words.push_back((1u << 16) | 56u);
  }
  return words;
}

uint32_t control_of(const std::vector<uint32_t>& words, uint32_t function_id) {
  for (size_t i = 5; i < words.size(); i += words[i] >> 16)
    if ((words[i] & 0xFFFF) == 54 && words[i + 2] == function_id) return words[i + 3];
  ADD_FAILURE() << "no function " << function_id;
  return 0;
}

TEST(InlineBudget, SizesCountEveryInlinedCopy) {
  // main calls A 10 times, A calls B 10 times: B's body is copied 100 times.
  std::vector<uint32_t> words = fake_module({{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 8},  // main
                                             {{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, 8},  // A
                                             {{}, 998}});                          // B: 1000 instructions
  const std::vector<uint32_t> before = words;
  InlineBudgetResult within = apply_inline_budget(words, 200'000);
  // main: 2 + 10 calls + 8; A: 20 each, 10 copies; B: 1000 each, 100 copies.
  EXPECT_EQ(within.inlined_instructions, 20u + 10 * 20 + 100 * 1000);
  EXPECT_EQ(within.functions_kept_out_of_line, 0u);
  EXPECT_EQ(words, before);  // within the budget: untouched

  InlineBudgetResult over = apply_inline_budget(words, 10'000);
  // B, called 100 times, saves most: then B is compiled once, A's 10 copies stay.
  EXPECT_EQ(over.functions_kept_out_of_line, 1u);
  EXPECT_EQ(control_of(words, 3), 0x2u);  // DontInline
  EXPECT_EQ(control_of(words, 2), 0u);
  EXPECT_EQ(control_of(words, 1), 0u);  // the entry point is never marked
  EXPECT_EQ(over.instructions_after, 20u + 10 * 20 + 1000);
}

TEST(InlineBudget, StopsWhenNoMarkSaves) {
  // Each function is called once: keeping any out of line saves nothing.
  std::vector<uint32_t> words = fake_module({{{1}, 0}, {{2}, 0}, {{}, 5000}});
  const std::vector<uint32_t> before = words;
  InlineBudgetResult result = apply_inline_budget(words, 100);
  EXPECT_EQ(result.functions_kept_out_of_line, 0u);
  EXPECT_EQ(result.instructions_after, result.inlined_instructions);
  EXPECT_EQ(words, before);
  EXPECT_EQ(apply_inline_budget(words, 0).functions_kept_out_of_line, 0u);  // 0: never mark
}

TEST(InlineBudget, LeavesWordsItCannotReadUnchanged) {
  std::vector<uint32_t> cyclic = fake_module({{{1, 1}, 0}, {{1, 1}, 4000}});  // A calls itself
  const std::vector<uint32_t> before = cyclic;
  EXPECT_EQ(apply_inline_budget(cyclic, 10).functions_kept_out_of_line, 0u);
  EXPECT_EQ(cyclic, before);
  std::vector<uint32_t> truncated = fake_module({{{1, 1}, 0}, {{}, 4000}});
  truncated.resize(truncated.size() - 3);  // the last function has no end
  const std::vector<uint32_t> cut = truncated;
  EXPECT_EQ(apply_inline_budget(truncated, 10).functions_kept_out_of_line, 0u);
  EXPECT_EQ(truncated, cut);
}

// A kernel that calls a helper with a loop from many places, as Csmith's
// transparent_crc is called: over a small budget, the compiler keeps the
// helper out of line and the shader still passes spirv-val.
TEST(InlineBudget, CompilerMarksTheCostliestHelpers) {
  std::string calls;
  for (int i = 0; i < 40; ++i) calls += "(call $mix (local.get 0))\n";
  const std::string wat = R"((module
    (memory 1)
    (func $mix (param i32)
      (local i32)
      (loop $l
        (i32.store (local.get 0) (i32.add (i32.load (local.get 0)) (i32.mul (local.get 1) (i32.const 31))))
        (local.set 1 (i32.add (local.get 1) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get 1) (i32.const 8)))))
    (func (export "k") (param i32) )" +
                          calls + "))";
  std::vector<uint8_t> bytes = wat_to_wasm(wat);
  Result<wasm::Module> module = wasm::decode(bytes);
  ASSERT_TRUE(module.ok());
  Result<CompiledKernel> full = compile_kernel(*module, "k");
  ASSERT_TRUE(full.ok()) << full.error().to_string();
  EXPECT_EQ(full->info.functions_kept_out_of_line, 0u);
  EXPECT_EQ(disassembly(*full).find("DontInline"), std::string::npos);

  CompileOptions small;
  small.inline_budget = full->info.inlined_instructions / 4;
  Result<CompiledKernel> budgeted = compile_kernel(*module, "k", small);
  ASSERT_TRUE(budgeted.ok()) << budgeted.error().to_string();  // validated by spirv-val
  const KernelInfo& info = budgeted->info;
  EXPECT_EQ(info.inlined_instructions, full->info.inlined_instructions);
  EXPECT_GE(info.functions_kept_out_of_line, 1u);
  EXPECT_LE(info.instructions_after_inlining, small.inline_budget);
  const std::string text = disassembly(*budgeted);
  // $mix is called 40 times: it is the one to keep out of line.
  EXPECT_TRUE(std::regex_search(text, std::regex("OpFunction %void DontInline"))) << text.substr(0, 4000);
  EXPECT_EQ(budgeted->words.size(), full->words.size());  // only function-control bits change
}

}  // namespace
}  // namespace wasmgpu::spirv::testing

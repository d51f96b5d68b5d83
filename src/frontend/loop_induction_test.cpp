#include "frontend/loop_induction.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "frontend/test_util.h"
#include "wasm/decoder.h"
#include "wasm/opcode.h"

namespace wasmgpu::frontend {
namespace {

using LoopTest = LoopInduction::Test;
constexpr uint32_t kI = 1, kJ = 2, kP = 3;  // the locals after parameter $n (0)

// A function around `code` (flat wat), with parameter $n and locals $i, $j, $p.
std::string function_around(std::string_view code) {
  return "(module (memory 1) (func (param $n i32) (local $i i32) (local $j i32) (local $p i32)\n" + std::string(code) +
         "))";
}

// find_loop_induction on the `which`-th loop (in code order) of the function.
std::optional<LoopInduction> induction_of(std::string_view code, int which = 0) {
  auto module = wasm::decode_and_validate(testing::wat_to_wasm(function_around(code)));
  if (!module.ok()) {
    ADD_FAILURE() << module.error().to_string();
    return std::nullopt;
  }
  const auto& body = module->functions.at(0).body;
  for (size_t ip = 0; ip < body.size(); ++ip)
    if (body[ip].op == wasm::Opcode::Loop && which-- == 0) return find_loop_induction(body, ip);
  ADD_FAILURE() << "no such loop";
  return std::nullopt;
}

// Every variable's (local, step), and the control variable's alone.
using Steps = std::vector<std::pair<uint32_t, int64_t>>;
Steps steps_of(const LoopInduction& induction) {
  Steps steps;
  for (const LoopInduction::Variable& v : induction.variables) steps.push_back({v.local, v.step});
  return steps;
}
std::pair<uint32_t, int64_t> control_of(const LoopInduction& induction) {
  return steps_of(induction).at(induction.control);
}

TEST(LoopInduction, ClangShapeCountingUpToZero) {
  auto induction = induction_of(R"(
    i32.const -4096  local.set $i
    loop
      local.get $i  i32.load offset=4096  drop
      local.get $i  i32.const 512  i32.add  local.tee $i
      br_if 0
    end)");
  ASSERT_TRUE(induction);
  EXPECT_EQ(steps_of(*induction), (Steps{{kI, 512}}));
  EXPECT_EQ(induction->control, 0u);
  EXPECT_EQ(induction->test, LoopTest::NotEqual);
  EXPECT_EQ(induction->end, 0);
  EXPECT_EQ(header_visits(*induction, uint32_t(-4096)), 8u);  // -4096, -3584, ..., -512
  EXPECT_EQ(header_visits(*induction, uint32_t(-512)), 1u);
  EXPECT_EQ(header_visits(*induction, 0), std::nullopt);                // round the whole circle
  EXPECT_EQ(header_visits(*induction, uint32_t(-4000)), std::nullopt);  // 512 does not divide 4000
}

TEST(LoopInduction, CountingDownWithSub) {
  auto induction = induction_of("loop  local.get $i  i32.const 2  i32.sub  local.tee $i  br_if 0  end");
  ASSERT_TRUE(induction);
  EXPECT_EQ(control_of(*induction), std::pair(kI, int64_t(-2)));
  EXPECT_EQ(header_visits(*induction, 10), 5u);  // 10, 8, 6, 4, 2
  EXPECT_EQ(header_visits(*induction, 11), std::nullopt);
}

TEST(LoopInduction, NotEqualToAConstant) {
  auto induction = induction_of(R"(
    block
      loop
        local.get $n  br_if 1                ;; an exit does not matter
        local.get $i  i32.const 1  i32.add  local.tee $i
        i32.const 10  i32.ne
        br_if 0
      end
    end)");
  ASSERT_TRUE(induction);
  EXPECT_EQ(control_of(*induction), std::pair(kI, int64_t(1)));
  EXPECT_EQ(induction->test, LoopTest::NotEqual);
  EXPECT_EQ(induction->end, 10);
  EXPECT_EQ(header_visits(*induction, 0), 10u);
  EXPECT_EQ(header_visits(*induction, 7), 3u);
  EXPECT_EQ(header_visits(*induction, 11), uint64_t(0xFFFFFFFF));  // wraps round to 10
  EXPECT_EQ(header_visits(*induction, 10), std::nullopt);
}

TEST(LoopInduction, LessUnsigned) {
  auto induction = induction_of(R"(loop
      local.get $i  i32.const 4  i32.add  local.set $i
      local.get $i  i32.const 100  i32.lt_u  br_if 0  end)");
  ASSERT_TRUE(induction);
  EXPECT_EQ(control_of(*induction), std::pair(kI, int64_t(4)));
  EXPECT_EQ(induction->test, LoopTest::LessUnsigned);
  EXPECT_EQ(induction->end, 100);
  EXPECT_EQ(header_visits(*induction, 0), 25u);
  EXPECT_EQ(header_visits(*induction, 1), 25u);  // 1, 5, ..., 97
  EXPECT_EQ(header_visits(*induction, 99), 1u);
  EXPECT_EQ(header_visits(*induction, 100), std::nullopt);
  EXPECT_EQ(header_visits(*induction, uint32_t(-8)), std::nullopt);  // -8 is huge unsigned
}

TEST(LoopInduction, LessSigned) {
  auto induction = induction_of(R"(loop
      local.get $i  i32.const 2  i32.add  local.tee $i  i32.const 8  i32.lt_s  br_if 0  end)");
  ASSERT_TRUE(induction);
  EXPECT_EQ(induction->test, LoopTest::LessSigned);
  EXPECT_EQ(induction->end, 8);
  EXPECT_EQ(header_visits(*induction, uint32_t(-8)), 8u);  // -8, -6, ..., 6
  EXPECT_EQ(header_visits(*induction, 8), std::nullopt);
}

TEST(LoopInduction, BoundsWhoseLastStepWouldWrap) {
  // end + step must not pass 2^32 (2^31 signed): the last value would wrap.
  auto wraps_u = induction_of(R"(loop
      local.get $i  i32.const 512  i32.add  local.tee $i  i32.const -256  i32.lt_u  br_if 0  end)");
  ASSERT_TRUE(wraps_u);
  EXPECT_EQ(wraps_u->end, -256);
  EXPECT_EQ(header_visits(*wraps_u, 0), std::nullopt);
  auto fits_u = induction_of(R"(loop
      local.get $i  i32.const 256  i32.add  local.tee $i  i32.const -256  i32.lt_u  br_if 0  end)");
  ASSERT_TRUE(fits_u);
  EXPECT_EQ(header_visits(*fits_u, uint32_t(-512)), 1u);     // end + step == 2^32 exactly
  EXPECT_EQ(header_visits(*fits_u, 0), uint64_t(0xFFFFFF));  // (2^32 - 256) / 256
  auto wraps_s = induction_of(R"(loop
      local.get $i  i32.const 32  i32.add  local.tee $i  i32.const 0x7FFFFFF0  i32.lt_s  br_if 0  end)");
  ASSERT_TRUE(wraps_s);
  EXPECT_EQ(header_visits(*wraps_s, 0), std::nullopt);
}

TEST(LoopInduction, StrengthReducedCompanionsAreVariables) {
  auto induction = induction_of(R"(
    loop
      local.get $p  i32.const 16  i32.add  local.set $p
      local.get $i  i32.const -4  i32.add  local.set $i
      local.get $n  local.set $n             ;; written once, but not stepped
      local.get $j  i32.const 1  i32.add  local.tee $j
      i32.const 64  i32.ne
      br_if 0
    end)");
  ASSERT_TRUE(induction);
  EXPECT_EQ(steps_of(*induction), (Steps{{kI, -4}, {kJ, 1}, {kP, 16}}));  // in local order
  EXPECT_EQ(induction->control, 1u);
  EXPECT_EQ(header_visits(*induction, 0), 64u);
}

TEST(LoopInduction, CompanionsStepOnlyAtTopLevelBeforeTheBackEdge) {
  auto induction = induction_of(R"(
    loop
      local.get $n  if  local.get $p  i32.const 4  i32.add  local.set $p  end  ;; not every trip
      local.get $i  i32.const 1  i32.add  local.tee $i
      br_if 0
      local.get $j  i32.const 1  i32.add  local.set $j  ;; after the back-edge
    end)");
  ASSERT_TRUE(induction);
  EXPECT_EQ(steps_of(*induction), (Steps{{kI, 1}}));
}

TEST(LoopInduction, NestedLoopsEachFindTheirOwn) {
  const char* code = R"(
    loop
      i32.const 0  local.set $j
      loop
        local.get $j  i32.const 1  i32.add  local.tee $j  i32.const 8  i32.lt_u
        br_if 0                                ;; the inner loop's back-edge
      end
      local.get $i  i32.const 1  i32.add  local.tee $i  i32.const 4  i32.ne
      br_if 0
    end)";
  auto outer = induction_of(code, 0), inner = induction_of(code, 1);
  ASSERT_TRUE(outer);
  EXPECT_EQ(steps_of(*outer), (Steps{{kI, 1}}));  // $j is written twice in the outer loop
  ASSERT_TRUE(inner);
  EXPECT_EQ(control_of(*inner), std::pair(kJ, int64_t(1)));
  EXPECT_EQ(header_visits(*inner, 0), 8u);
}

// Shapes that must be rejected: each is the clang loop with one thing changed.
std::optional<LoopInduction> clang_loop_with(std::string_view before_update, std::string_view after_update = "") {
  return induction_of("loop\n" + std::string(before_update) + "\nlocal.get $i  i32.const 512  i32.add  local.tee $i\n" +
                      std::string(after_update) + "\nbr_if 0\nend");
}

TEST(LoopInduction, TheUnchangedClangLoopIsFound) { EXPECT_TRUE(clang_loop_with("nop")); }

TEST(LoopInduction, RejectsASecondBranchBack) {
  EXPECT_FALSE(clang_loop_with("local.get $n  br_if 0"));
  EXPECT_FALSE(clang_loop_with("block  local.get $n  br_if 1  end"));  // from a nested block
  EXPECT_FALSE(clang_loop_with("local.get $n  if  br 1  end"));
}

TEST(LoopInduction, RejectsABackEdgeThatIsNotATopLevelBrIf) {
  // The only branch back, but unconditional: it says nothing about the trips.
  EXPECT_FALSE(induction_of("loop  local.get $i  i32.const 1  i32.add  local.tee $i  br 0  end"));
  // The only branch back, but inside a block: it need not run every trip.
  EXPECT_FALSE(induction_of(R"(
    loop
      local.get $i  i32.const 1  i32.add  local.set $i
      block  local.get $i  i32.const 8  i32.ne  br_if 1  end
    end)"));
  EXPECT_FALSE(induction_of(R"(
    loop
      local.get $i  i32.const 1  i32.add  local.tee $i
      if  i32.const 1  br_if 1  end
    end)"));
}

TEST(LoopInduction, RejectsABrTable) {
  // Even one that only leaves: telling the targets apart is not worth it.
  EXPECT_FALSE(clang_loop_with("block  local.get $n  br_table 0 0  end"));
}

TEST(LoopInduction, RejectsAnUpdateInsideANestedBlockOrIf) {
  EXPECT_FALSE(induction_of(R"(loop
      block  local.get $i  i32.const 1  i32.add  local.set $i  end
      local.get $i  i32.const 9  i32.ne  br_if 0  end)"));
  EXPECT_FALSE(induction_of(R"(loop
      local.get $n  if  local.get $i  i32.const 1  i32.add  local.set $i  end
      local.get $i  i32.const 9  i32.ne  br_if 0  end)"));
}

TEST(LoopInduction, RejectsASecondWrite) {
  EXPECT_FALSE(clang_loop_with("local.get $n  local.set $i"));
  EXPECT_FALSE(clang_loop_with("local.get $n  if  i32.const 0  local.set $i  end"));
  EXPECT_FALSE(clang_loop_with("", "local.tee $i"));
}

TEST(LoopInduction, RejectsANonConstantBound) {
  EXPECT_FALSE(clang_loop_with("", "local.get $n  i32.ne"));
  EXPECT_FALSE(clang_loop_with("", "drop  local.get $i  local.get $n  i32.lt_u"));
  EXPECT_FALSE(clang_loop_with("", "i32.const 8  i32.le_u"));  // a test it does not know
}

TEST(LoopInduction, RejectsATestOfTheValueBeforeTheUpdate) {
  // The condition is computed from the old $i, then $i is stepped.
  EXPECT_FALSE(induction_of(R"(loop
      local.get $i  i32.const 10  i32.ne
      local.get $i  i32.const 1  i32.add  local.set $i
      br_if 0  end)"));
  // The update after the back-edge never runs before the test.
  EXPECT_FALSE(induction_of(R"(loop
      local.get $i  i32.const 10  i32.ne  br_if 0
      local.get $i  i32.const 1  i32.add  local.set $i  end)"));
  // The tested copy is taken before the step.
  EXPECT_FALSE(induction_of(R"(loop
      local.get $i  local.set $j
      local.get $i  i32.const 1  i32.add  local.set $i
      local.get $j  i32.const 10  i32.ne  br_if 0  end)"));
}

TEST(LoopInduction, RejectsLoopsWithoutABackEdgeOrAConstantStep) {
  EXPECT_FALSE(induction_of("loop  local.get $i  i32.const 1  i32.add  local.set $i  end"));
  EXPECT_FALSE(induction_of("loop  local.get $n  i32.const 1  i32.add  local.tee $i  br_if 0  end"));
  EXPECT_FALSE(induction_of("loop  local.get $i  i32.const 0  i32.add  local.tee $i  br_if 0  end"));
  EXPECT_FALSE(induction_of("loop  i32.const 1  local.get $i  i32.add  local.tee $i  br_if 0  end"));
  EXPECT_FALSE(induction_of("loop  local.get $i  i32.const 2  i32.mul  local.tee $i  br_if 0  end"));
}

TEST(LoopInduction, OnlyLoopInstructionsHaveOne) {
  auto module = wasm::decode_and_validate(testing::wat_to_wasm(function_around("nop")));
  ASSERT_TRUE(module.ok());
  const auto& body = module->functions.at(0).body;
  EXPECT_FALSE(find_loop_induction(body, 0));
  EXPECT_FALSE(find_loop_induction(body, body.size()));
}

}  // namespace
}  // namespace wasmgpu::frontend

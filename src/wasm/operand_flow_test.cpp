// The def-use view of the operand stack: producers, joins, dead code.
#include "wasm/operand_flow.h"

#include <gtest/gtest.h>

#include "wasm/decoder.h"
#include "wasm/test_module_builder.h"
#include "wasm/validator.h"

namespace wasmgpu::wasm {
namespace {

using namespace testing;  // NOLINT: the builder helpers

// The validated module of one function (locals declared by `locals`, e.g.
// {0x01, 0x01, 0x7F} for one i32) and its operand flow.
struct Flow {
  Module module;
  OperandFlow flow;
};
Flow flow_of(const Bytes& locals, const Bytes& code, bool returns_i32 = false) {
  Bytes bytes = module_of({returns_i32 ? type_section_to_i32() : type_section_void(), function_section(1),
                           code_section({body(concat({locals, code}))})});
  auto module = decode(bytes);
  EXPECT_TRUE(module.ok()) << module.error().to_string();
  EXPECT_TRUE(validate(*module).ok());
  OperandFlow flow = OperandFlow::build(*module, module->functions.at(0));
  return {std::move(*module), std::move(flow)};
}

std::vector<ValueId> ids(std::span<const ValueId> s) { return {s.begin(), s.end()}; }

TEST(OperandFlow, OperandsNameTheirProducers) {
  // 0 i32.const 1; 1 i32.const 2; 2 i32.add; 3 drop; 4 end
  Flow f = flow_of({0x00}, {0x41, 0x01, 0x41, 0x02, 0x6A, 0x1A, 0x0B});
  const OperandFlow& flow = f.flow;
  ASSERT_EQ(flow.operands(2).size(), 2u);
  EXPECT_EQ(flow.producer(2, 0), 0u);
  EXPECT_EQ(flow.producer(2, 1), 1u);
  EXPECT_EQ(flow.producer(3, 0), 2u);
  EXPECT_EQ(flow.producer(3, 1), std::nullopt);
  EXPECT_TRUE(flow.operands(0).empty());
  ASSERT_EQ(flow.results(2).size(), 1u);
  const StackValue& sum = flow.value(flow.results(2)[0]);
  EXPECT_EQ(sum.kind, StackValue::Kind::Result);
  EXPECT_EQ(sum.ip, 2u);
  for (size_t ip = 0; ip < 5; ++ip) EXPECT_TRUE(flow.reachable(ip)) << ip;
}

TEST(OperandFlow, BlockResultsJoinBranchesAndFallthrough) {
  // 0 block (result i32); 1 i32.const 7; 2 i32.const 1; 3 br_if 0; 4 drop;
  // 5 i32.const 9; 6 end; 7 end
  Flow f = flow_of({0x00}, {0x02, 0x7F, 0x41, 0x07, 0x41, 0x01, 0x0D, 0x00, 0x1A, 0x41, 0x09, 0x0B, 0x0B}, true);
  const OperandFlow& flow = f.flow;
  // br_if pops what it carries and the condition, and gives the carried back.
  ASSERT_EQ(flow.operands(3).size(), 2u);
  EXPECT_EQ(flow.producer(3, 0), 1u);
  EXPECT_EQ(flow.producer(3, 1), 2u);
  EXPECT_EQ(ids(flow.results(3)), std::vector{flow.operands(3)[0]});
  EXPECT_EQ(flow.producer(4, 0), 1u);  // drop: the value br_if carried
  EXPECT_EQ(flow.producer(6, 0), 5u);  // the fallthrough
  ASSERT_EQ(flow.results(6).size(), 1u);
  const ValueId join = flow.results(6)[0];
  EXPECT_EQ(flow.value(join).kind, StackValue::Kind::Join);
  EXPECT_EQ(flow.value(join).ip, 6u);
  EXPECT_EQ(ids(flow.incoming(join)), (std::vector{flow.operands(3)[0], flow.operands(6)[0]}));
  // The function's end pops the block's result: no instruction produced it alone.
  EXPECT_EQ(ids(flow.operands(7)), std::vector{join});
  EXPECT_EQ(flow.producer(7, 0), std::nullopt);
}

TEST(OperandFlow, DeadCodePopsUnknownValues) {
  // 0 block; 1 br 0; 2 i32.add; 3 drop; 4 end; 5 unreachable; 6 i32.eqz; 7 drop; 8 end
  Flow f = flow_of({0x00}, {0x02, 0x40, 0x0C, 0x00, 0x6A, 0x1A, 0x0B, 0x00, 0x45, 0x1A, 0x0B});
  const OperandFlow& flow = f.flow;
  EXPECT_TRUE(flow.reachable(1));
  EXPECT_FALSE(flow.reachable(2));
  EXPECT_FALSE(flow.reachable(3));
  EXPECT_TRUE(flow.reachable(4));  // the br reaches the block's end
  EXPECT_TRUE(flow.reachable(5));
  EXPECT_FALSE(flow.reachable(6));
  EXPECT_FALSE(flow.reachable(8));  // nothing reaches the function's end
  EXPECT_EQ(ids(flow.operands(2)), (std::vector{OperandFlow::kUnknown, OperandFlow::kUnknown}));
  EXPECT_EQ(flow.value(OperandFlow::kUnknown).kind, StackValue::Kind::Unknown);
  EXPECT_EQ(flow.producer(3, 0), 2u);  // dead code still has results
  EXPECT_EQ(ids(flow.operands(6)), std::vector{OperandFlow::kUnknown});
}

TEST(OperandFlow, LoopsAndLocals) {
  // local 0: i32. 0 loop; 1 local.get 0; 2 i32.const 1; 3 i32.add; 4 local.tee 0;
  // 5 i32.const 10; 6 i32.lt_u; 7 br_if 0; 8 end; 9 end
  Flow f = flow_of({0x01, 0x01, 0x7F},
                   {0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6A, 0x22, 0x00, 0x41, 0x0A, 0x49, 0x0D, 0x00, 0x0B, 0x0B});
  const OperandFlow& flow = f.flow;
  EXPECT_EQ(flow.producer(3, 0), 1u);
  EXPECT_EQ(flow.producer(4, 0), 3u);
  EXPECT_EQ(flow.producer(6, 0), 4u);  // the tee's result
  EXPECT_EQ(flow.producer(6, 1), 5u);
  EXPECT_EQ(flow.producer(7, 0), 6u);  // the condition; a loop without parameters carries nothing back
  EXPECT_TRUE(flow.results(0).empty());
  EXPECT_TRUE(flow.operands(8).empty());
  EXPECT_TRUE(flow.reachable(9));
}

TEST(OperandFlow, IfWithoutElseAndCalls) {
  // type 0: [] -> []; type 1: [i32] -> [i32]. func 0 (type 0):
  // 0 i32.const 1; 1 if; 2 i32.const 5; 3 call 1; 4 drop; 5 end; 6 end. func 1 (type 1): local.get 0; end
  Bytes types = section(1, {0x02, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7F, 0x01, 0x7F});
  Bytes functions = section(3, {0x02, 0x00, 0x01});
  Bytes bytes = module_of({types, functions,
                           code_section({body({0x00, 0x41, 0x01, 0x04, 0x40, 0x41, 0x05, 0x10, 0x01, 0x1A, 0x0B, 0x0B}),
                                         body({0x00, 0x20, 0x00, 0x0B})})});
  auto module = decode(bytes);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  ASSERT_TRUE(validate(*module).ok());
  OperandFlow flow = OperandFlow::build(*module, module->functions.at(0));
  EXPECT_EQ(flow.producer(1, 0), 0u);  // the if's condition
  EXPECT_EQ(flow.producer(3, 0), 2u);  // the call's argument
  EXPECT_EQ(flow.producer(4, 0), 3u);  // its result
  EXPECT_TRUE(flow.reachable(5));
  OperandFlow callee = OperandFlow::build(*module, module->functions.at(1));
  EXPECT_EQ(callee.producer(1, 0), 0u);  // the function's end pops the local.get
}

TEST(OperandFlow, LoopParametersJoinTheEntryAndTheBackEdge) {
  // type 0: [] -> []; type 1: [i32] -> [i32].
  // 0 i32.const 3; 1 loop (type 1); 2 i32.const 1; 3 i32.add; 4 i32.const 0; 5 br_if 0; 6 end; 7 drop; 8 end
  Bytes types = section(1, {0x02, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7F, 0x01, 0x7F});
  Bytes bytes = module_of({types, function_section(1),
                           code_section({body({0x00, 0x41, 0x03, 0x03, 0x01, 0x41, 0x01, 0x6A, 0x41, 0x00, 0x0D, 0x00,
                                               0x0B, 0x1A, 0x0B})})});
  auto module = decode(bytes);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  ASSERT_TRUE(validate(*module).ok());
  OperandFlow flow = OperandFlow::build(*module, module->functions.at(0));
  EXPECT_EQ(flow.producer(1, 0), 0u);  // the loop pops its parameter
  ASSERT_EQ(flow.results(1).size(), 1u);
  const ValueId header = flow.results(1)[0];
  EXPECT_EQ(flow.value(header).kind, StackValue::Kind::Join);
  EXPECT_EQ(flow.value(header).ip, 1u);
  EXPECT_EQ(flow.operands(3)[0], header);
  EXPECT_EQ(flow.producer(3, 0), std::nullopt);
  const ValueId sum = flow.results(3)[0];
  EXPECT_EQ(ids(flow.incoming(header)), (std::vector{flow.operands(1)[0], sum}));
  EXPECT_EQ(ids(flow.results(5)), std::vector{sum});
  EXPECT_EQ(ids(flow.operands(6)), std::vector{sum});
  const ValueId after = flow.results(6)[0];
  EXPECT_EQ(ids(flow.incoming(after)), std::vector{sum});  // a loop's end: the fallthrough only
  EXPECT_EQ(ids(flow.operands(7)), std::vector{after});
}

}  // namespace
}  // namespace wasmgpu::wasm

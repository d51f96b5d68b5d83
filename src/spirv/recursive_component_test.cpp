// Recursive components: the call graph finds them, the compiler lowers each
// to one state machine (every output validated with spirv-val), sizes its call
// stack from the depth option, and leaves code without recursion unchanged.
#include "frontend/call_graph.h"
#include "spirv/recursive_component.h"
#include "frontend/table.h"
#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

const char* kMutual = R"((module
  (type $t (func (param i32) (result i32)))
  (table funcref (elem $even $odd $leaf))
  (func $leaf (type $t) (i32.add (local.get 0) (i32.const 1)))
  (func $even (type $t)
    (if (result i32) (i32.eqz (local.get 0)) (then (call $leaf (i32.const 0)))
      (else (call_indirect (type $t) (i32.sub (local.get 0) (i32.const 1)) (i32.const 1)))))
  (func $odd (type $t)
    (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
      (else (call $even (i32.sub (local.get 0) (i32.const 1))))))
  (func $fac (param i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0)) (then (i64.const 1))
      (else (i64.mul (local.get 0) (call $fac (i64.sub (local.get 0) (i64.const 1)))))))
  (func (export "k") (param i32)
    (drop (call $even (local.get 0)))
    (drop (call $fac (i64.extend_i32_u (local.get 0))))))
)";

TEST(CallGraph, FindsRecursiveComponentsThroughCallIndirect) {
  Result<wasm::Module> module = wasm::decode(wat_to_wasm(kMutual));
  ASSERT_TRUE(module.ok());
  Result<IndirectCallTargets> targets = indirect_call_targets(*module);
  ASSERT_TRUE(targets.ok());
  Result<CallGraph> graph = build_call_graph(*module, 4, &*targets);
  ASSERT_TRUE(graph.ok()) << graph.error().to_string();
  ASSERT_EQ(graph->recursive_components.size(), 2u);
  // $even and $odd (through call_indirect) form one component, $fac another;
  // $leaf, reached from the cycle, and the kernel are in none.
  EXPECT_EQ(graph->recursive_components[graph->component_of.at(1)], (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(graph->recursive_components[graph->component_of.at(3)], (std::vector<uint32_t>{3}));
  EXPECT_FALSE(graph->is_recursive(0));
  EXPECT_FALSE(graph->is_recursive(4));
  // Callees first: the leaf before the component that calls it, the kernel last.
  const std::vector<uint32_t>& order = graph->functions;
  EXPECT_EQ(order.back(), 4u);
  EXPECT_LT(std::find(order.begin(), order.end(), 0u), std::find(order.begin(), order.end(), 1u));
}

Result<CompiledKernel> compile_with_depth(const std::vector<uint8_t>& bytes, uint32_t depth) {
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module module, wasm::decode(bytes));
  CompileOptions options;
  options.max_call_depth = depth;
  return compile_kernel(module, "k", options);
}

TEST(RecursiveComponent, EachComponentGetsACallStackSizedByTheDepth) {
  std::vector<uint8_t> bytes = wat_to_wasm(kMutual);
  Result<CompiledKernel> shallow = compile_with_depth(bytes, 10);
  Result<CompiledKernel> deep = compile_with_depth(bytes, 1000);
  ASSERT_TRUE(shallow.ok()) << shallow.error().to_string();
  ASSERT_TRUE(deep.ok()) << deep.error().to_string();
  EXPECT_TRUE(validate(shallow->words).ok());
  EXPECT_TRUE(validate(deep->words).ok());
  // Two components; the call stacks grow with the depth, the code does not.
  EXPECT_GT(shallow->info.call_stack_bytes, 0u);
  EXPECT_EQ(deep->info.call_stack_bytes, 100 * shallow->info.call_stack_bytes);
  EXPECT_EQ(deep->words.size(), shallow->words.size());
  // No shadow stack here: the slot holds the call stacks only.
  EXPECT_GE(deep->info.stack_slot_size, deep->info.call_stack_bytes);
  EXPECT_EQ(deep->info.stack_slot_size % 16, 0u);
  EXPECT_EQ(deep->info.stack_window_lo, 0u);
}

TEST(RecursiveComponent, ACallStackTooLargeIsRefusedNamingTheFunction) {
  auto bytes = wat_to_wasm(kMutual);
  Result<CompiledKernel> huge = compile_with_depth(bytes, 1u << 24);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("call stack"), std::string::npos) << huge.error().message;
  EXPECT_NE(huge.error().message.find("even"), std::string::npos) << huge.error().message;
}

// return_call and return_call_indirect are call edges: $even and $odd form a
// component through them. A tail call to a member pushes no frame, so with
// tail calls only the frames stay the one-word minimum whatever the locals;
// the same component with one plain call saves its locals in a frame.
TEST(RecursiveComponent, TailCallsToMembersPushNoFrame) {
  auto module_with = [](const std::string& odd_call) {
    return wat_to_wasm(R"((module
      (type $t (func (param i64) (result i32)))
      (table funcref (elem $even $odd))
      (func $even (type $t) (local $a i64) (local $b f64)
        (local.set $a (i64.mul (local.get 0) (i64.const 3)))
        (if (result i32) (i64.eqz (local.get 0)) (then (i32.const 44))
          (else (return_call_indirect (type $t) (i64.sub (local.get 0) (i64.const 1)) (i32.const 1)))))
      (func $odd (type $t) (local $c i64)
        (if (result i32) (i64.eqz (local.get 0)) (then (i32.const 99))
          (else ()" + odd_call +
                       R"( $even (i64.sub (local.get 0) (i64.const 1))))))
      (func (export "k") (param i32) (drop (call $even (i64.extend_i32_u (local.get 0)))))))");
  };
  std::vector<uint8_t> tail = module_with("return_call"), plain = module_with("call");
  Result<wasm::Module> decoded = wasm::decode(tail);
  ASSERT_TRUE(decoded.ok());
  Result<IndirectCallTargets> targets = indirect_call_targets(*decoded);
  ASSERT_TRUE(targets.ok());
  Result<CallGraph> graph = build_call_graph(*decoded, 2, &*targets);
  ASSERT_TRUE(graph.ok()) << graph.error().to_string();
  ASSERT_EQ(graph->recursive_components.size(), 1u);
  EXPECT_EQ(graph->recursive_components[0], (std::vector<uint32_t>{0, 1}));

  Result<CompiledKernel> tail_kernel = compile_with_depth(tail, 100);
  Result<CompiledKernel> plain_kernel = compile_with_depth(plain, 100);
  ASSERT_TRUE(tail_kernel.ok()) << tail_kernel.error().to_string();
  ASSERT_TRUE(plain_kernel.ok()) << plain_kernel.error().to_string();
  EXPECT_TRUE(validate(tail_kernel->words).ok());
  EXPECT_TRUE(validate(plain_kernel->words).ok());
  EXPECT_EQ(tail_kernel->info.call_stack_bytes, 100u * 4);
  // $odd's frame: its two i64 locals (the parameter and $c) and the resume state.
  EXPECT_EQ(plain_kernel->info.call_stack_bytes, 100u * 4 * 5);
}

TEST(RecursiveComponent, CodeWithoutRecursionDoesNotDependOnTheDepth) {
  auto bytes = wat_to_wasm(R"((module
    (func $sq (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
    (func (export "k") (param i32) (drop (call $sq (local.get 0))))))");
  Result<CompiledKernel> a = compile_with_depth(bytes, 1);
  Result<CompiledKernel> b = compile_with_depth(bytes, 100000);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->words, b->words);
  EXPECT_EQ(a->info.call_stack_bytes, 0u);
  EXPECT_EQ(a->info.stack_slot_size, 0u);
}

TEST(RecursiveComponent, ControlFlowShapesValidate) {
  // Multi-value results, block parameters, br_table, a loop around the
  // recursive call, unreachable and dead code after returns, v128-free f32/f64.
  CompiledKernel kernel = compile_wat(R"((module
    (func $r (param $n i32) (param $x f64) (result i32 f32)
      (local $f f32)
      (i32.const 9)
      (block $b (param i32) (result i32)
        (br_table $b $b 0 (local.get $n)))
      (drop)
      (if (i32.eqz (local.get $n)) (then (return (i32.const 0) (f32.const 1))))
      (loop $l
        (call $r (i32.sub (local.get $n) (i32.const 1)) (local.get $x))
        (local.set $f)
        (br_if $l (i32.gt_u (i32.const 3)))
        (br_if $l (f32.lt (local.get $f) (f32.const 0))))
      (if (f64.lt (local.get $x) (f64.const 0)) (then (unreachable) (drop (i32.const 1))))
      (i32.const 1) (local.get $f))
    (func (export "k") (param i32)
      (drop (drop (call $r (local.get 0) (f64.const 2))))))
  )");
  EXPECT_GT(kernel.info.call_stack_bytes, 0u);
  EXPECT_NE(disassembly(kernel).find("OpSwitch"), std::string::npos);
}

}  // namespace
}  // namespace wasmgpu::spirv::testing

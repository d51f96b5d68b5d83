// The WGSL back end on small wat modules: what it writes for control flow,
// memory and traps, and what it refuses. Dawn validates every example's and
// e2e kernel's WGSL in the webgpu.validate test (js/test/validate_kernels.mjs).
#include "wgsl/wgsl_compiler.h"

#include <gtest/gtest.h>

#include "frontend/test_util.h"
#include "wasm/decoder.h"
#include "wasm/validator.h"

namespace wasmgpu::wgsl {
namespace {

Result<WgslKernel> compile_wat(std::string_view wat, std::string_view kernel = "k") {
  std::vector<uint8_t> bytes = frontend::testing::wat_to_wasm(wat);
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module module, wasm::decode(bytes));
  WASMGPU_TRY(wasm::validate(module));
  return compile_kernel(module, kernel);
}

std::string source_of(std::string_view wat) {
  Result<WgslKernel> kernel = compile_wat(wat);
  EXPECT_TRUE(kernel.ok()) << kernel.error().to_string();
  return kernel.ok() ? kernel->source : "";
}

TEST(WgslCompiler, WritesTheAbiLineAndOneBufferBindingPerPointerParameter) {
  std::string wgsl = source_of(R"wat((module (memory 1)
    (func (export "k") (param i32 f32 i32 i32)
      (f32.store (local.get 3) (f32.mul (local.get 1) (f32.load (local.get 2)))))))wat");
  EXPECT_EQ(wgsl.rfind(kAbiHeaderPrefix, 0), 0u);
  EXPECT_NE(wgsl.find("\"params\": [\"f32\", \"i32\", \"i32\"]"), std::string::npos);
  EXPECT_NE(wgsl.find("\"memory_bytes\": 65536"), std::string::npos);
  EXPECT_NE(wgsl.find("var<storage, read_write> buf1: array<atomic<u32>>"), std::string::npos);
  EXPECT_EQ(wgsl.find("buf2"), std::string::npos);
  // The product is hidden from contraction; the store goes through the region table.
  EXPECT_NE(wgsl.find("f32_rounded("), std::string::npos);
  EXPECT_NE(wgsl.find("store_bytes("), std::string::npos);
}

// A -O0 style frame: the stack pointer moved down by 16, a local stored and
// loaded through it, the stack pointer put back.
constexpr std::string_view kStackKernel = R"wat((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param i32 i32)
      (local $frame i32)
      (local.set $frame (i32.sub (global.get $__stack_pointer) (i32.const 16)))
      (global.set $__stack_pointer (local.get $frame))
      (i32.store offset=12 (local.get $frame) (local.get 0))
      (i32.store8 offset=3 (local.get $frame) (i32.const 9))
      (i32.store (local.get 1) (i32.load offset=12 (local.get $frame)))
      (global.set $__stack_pointer (i32.add (local.get $frame) (i32.const 16))))))wat";

TEST(WgslCompiler, TheShadowStackLivesInAStorageBindingAfterTheBuffers) {
  Result<WgslKernel> kernel = compile_wat(kStackKernel);
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  const std::string& wgsl = kernel->source;
  // One buffer binding (buf0 at 3), then the stack at 4, as the ABI line says.
  EXPECT_EQ(kernel->buffer_bindings, 1u);
  EXPECT_EQ(kernel->stack_binding, kFirstBufferBinding + 1);
  EXPECT_EQ(kernel->stack_slot_bytes % 16, 0u);
  EXPECT_GE(kernel->stack_slot_bytes, 16u);
  EXPECT_NE(wgsl.find("@group(0) @binding(4) var<storage, read_write> stk: array<u32>;"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("\"stack_slot_bytes\": " + std::to_string(kernel->stack_slot_bytes) + ", \"stack_binding\": 4"),
            std::string::npos)
      << wgsl;
  // The window ends at the initial stack pointer; the stack pointer is the
  // invocation's own, starting there; stack words resolve to slot 2.
  EXPECT_NE(wgsl.find("const stack_hi: u32 = 66560u;"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("var<private> g0: u32 = 0x10400u;"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("return vec2<u32>(2u, stack_slot * stack_slot_bytes + (ea - stack_window_lo));"),
            std::string::npos)
      << wgsl;
  EXPECT_NE(wgsl.find("case 2u: { stk[w] = (stk[w] & ~mask) | bits; }"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("stack_slot = index - launch_word(0u);"), std::string::npos) << wgsl;
  // A bounded frame leaves the rest of the stack region below the window:
  // an access there is a shadow stack overflow (abi::TrapKind 9).
  EXPECT_NE(wgsl.find("if (ea >= stack_lo && ea < stack_window_lo) {\n    trap(9u);"), std::string::npos) << wgsl;

  // With room for only the fixed bindings and the stack, no buffer binding is left.
  std::vector<uint8_t> bytes = frontend::testing::wat_to_wasm(kStackKernel);
  Result<wasm::Module> module = wasm::decode(bytes);
  ASSERT_TRUE(module.ok());
  WgslOptions three;
  three.max_storage_buffers = 3;
  Result<WgslKernel> tight = compile_kernel(*module, "k", three);
  ASSERT_TRUE(tight.ok()) << tight.error().to_string();
  EXPECT_EQ(tight->buffer_bindings, 0u);
  EXPECT_EQ(tight->stack_binding, kFirstBufferBinding);
}

TEST(WgslCompiler, AKernelWithoutTheStackHasNoStackBinding) {
  Result<WgslKernel> kernel = compile_wat(R"wat((module (memory 1)
    (func (export "k") (param i32) (i32.store (local.get 0) (i32.const 1)))))wat");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  EXPECT_EQ(kernel->stack_slot_bytes, 0u);
  EXPECT_EQ(kernel->source.find("stk"), std::string::npos);
  EXPECT_NE(kernel->source.find("\"stack_slot_bytes\": 0, \"stack_binding\": null"), std::string::npos);
}

TEST(WgslCompiler, BranchesOutOfSeveralLabelsGoThroughPending) {
  std::string wgsl = source_of(R"wat((module (memory 1)
    (func (export "k") (param i32)
      (block $out
        (loop $again
          (block $inner
            (br_if $out (i32.eq (local.get 0) (i32.const 7)))
            (br_if $inner (i32.eq (local.get 0) (i32.const 3))))
          (local.set 0 (i32.add (local.get 0) (i32.const 1)))
          (br_if $again (i32.lt_u (local.get 0) (i32.const 100)))))
      (i32.store (i32.const 0) (local.get 0)))))wat");
  EXPECT_NE(wgsl.find("pending = "), std::string::npos);
  EXPECT_NE(wgsl.find("if (pending != 0u)"), std::string::npos);
  // Every WGSL loop of a wasm loop leaves once the invocation has trapped.
  EXPECT_NE(wgsl.find("break if trapped;"), std::string::npos);
  EXPECT_NE(wgsl.find("continue;"), std::string::npos);
}

TEST(WgslCompiler, BrTableIsASwitch) {
  std::string wgsl = source_of(R"wat((module (memory 1)
    (func (export "k") (param i32)
      (block $c (block $b (block $a
        (br_table $a $b $c $a (local.get 0)))
        (i32.store (i32.const 0) (i32.const 1)) (return))
        (i32.store (i32.const 0) (i32.const 2)) (return))
      (i32.store (i32.const 0) (i32.const 3)))))wat");
  // Entries 0 and 3 go where the default goes, and get no case.
  EXPECT_NE(wgsl.find("case 1u: {"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("case 2u: {"), std::string::npos) << wgsl;
  EXPECT_EQ(wgsl.find("case 0u"), wgsl.find("case 0u: { return atomicLoad"));
  EXPECT_EQ(wgsl.find("case 3u"), std::string::npos);
  EXPECT_NE(wgsl.find("default: {\n"), std::string::npos);
}

TEST(WgslCompiler, TrappingOperationsCallTheirCheckedHelpers) {
  std::string wgsl = source_of(R"wat((module (memory 1)
    (func (export "k") (param i32)
      (i32.store (i32.const 0) (i32.div_s (i32.const 1) (local.get 0)))
      (i32.store (i32.const 4) (i32.trunc_f32_u (f32.convert_i32_u (local.get 0))))
      (if (local.get 0) (then unreachable)))))wat");
  EXPECT_NE(wgsl.find("i32_div_s("), std::string::npos);
  EXPECT_NE(wgsl.find("i32_trunc_f32_u("), std::string::npos);
  EXPECT_NE(wgsl.find("f32_from_u32("), std::string::npos);
  EXPECT_NE(wgsl.find("trap(0u);"), std::string::npos);
}

TEST(WgslCompiler, NonFiniteConstantsAreNotConstantExpressions) {
  // WGSL rejects a NaN or an infinity that it computes from constants.
  std::string wgsl = source_of(R"wat((module (memory 1)
    (func (export "k") (param i32)
      (f32.store (i32.const 0) (f32.add (f32.const nan) (f32.const inf))))))wat");
  EXPECT_EQ(wgsl.find("bitcast<f32>(0x7fc00000u)"), std::string::npos);
  EXPECT_EQ(wgsl.find("bitcast<f32>(0x7f800000u)"), std::string::npos);
}

// i64 values are vec2<u32> (low word, high word), with the prelude's i64_*
// functions, which only shaders that use i64 carry. Dawn validates and runs
// them (webgpu.validate, webgpu.compare_vulkan's integer_ops).
TEST(WgslCompiler, WritesI64AsPairsOfWords) {
  Result<WgslKernel> wide = compile_wat(R"wat((module (memory 1)
    (func $mix (param i64 i64) (result i64) (i64.rotl (i64.mul (local.get 0) (local.get 1)) (i64.const 7)))
    (func (export "k") (param i32)
      (i64.store (i32.const 8) (call $mix (i64.load (i32.const 0)) (i64.const 0x123456789abcdef))))))wat");
  ASSERT_TRUE(wide.ok()) << wide.error().to_string();
  EXPECT_NE(wide->source.find("fn i64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32>"), std::string::npos);
  EXPECT_NE(wide->source.find("vec2<u32>(0x89abcdefu, 0x1234567u)"), std::string::npos) << wide->source;
  EXPECT_NE(wide->source.find("i64_rotl("), std::string::npos);
  Result<WgslKernel> narrow = compile_wat(R"wat((module (memory 1)
    (func (export "k") (param i32) (i32.store (i32.const 0) (local.get 0)))))wat");
  ASSERT_TRUE(narrow.ok()) << narrow.error().to_string();
  EXPECT_EQ(narrow->source.find("i64_"), std::string::npos);
}

// Without recursion a tail call is a call and a return.
TEST(WgslCompiler, WritesATailCallOutsideRecursionAsACallAndAReturn) {
  Result<WgslKernel> kernel = compile_wat(R"wat((module (memory 1)
    (func $twice (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
    (func $tail (param i32) (result i32) (return_call $twice (i32.add (local.get 0) (i32.const 1))))
    (func (export "k") (param i32) (i32.store (i32.const 0) (call $tail (local.get 0))))))wat");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  // $tail (func1) calls $twice (func0) on its argument plus one and returns what it gives.
  EXPECT_NE(kernel->source.find("  let t3 = func0(t2);\n  return t3;\n}"), std::string::npos) << kernel->source;
}

TEST(WgslCompiler, RefusesWhatItDoesNotWriteNamingTheFunction) {
  auto refusal = [](std::string_view wat) {
    Result<WgslKernel> kernel = compile_wat(wat);
    EXPECT_FALSE(kernel.ok());
    return kernel.ok() ? std::string() : kernel.error().message;
  };
  std::string recursive = refusal(R"wat((module (memory 1)
    (func $down (param i32) (result i32)
      (if (result i32) (local.get 0) (then (call $down (i32.sub (local.get 0) (i32.const 1)))) (else (i32.const 0))))
    (func (export "k") (param i32) (i32.store (i32.const 0) (call $down (local.get 0))))))wat");
  EXPECT_NE(recursive.find("function 'down' is recursive"), std::string::npos) << recursive;

  std::string tail_recursive = refusal(R"wat((module (memory 1)
    (func $down (param i32) (result i32)
      (if (result i32) (local.get 0) (then (return_call $down (i32.sub (local.get 0) (i32.const 1))))
        (else (i32.const 0))))
    (func (export "k") (param i32) (i32.store (i32.const 0) (call $down (local.get 0))))))wat");
  EXPECT_NE(tail_recursive.find("function 'down' is recursive through return_call"), std::string::npos)
      << tail_recursive;

  std::string wide_atomic = refusal(R"wat((module (memory 1)
    (func (export "k") (param i32) (drop (i64.atomic.rmw.add (i32.const 0) (i64.const 1))))))wat");
  EXPECT_NE(wide_atomic.find("function 'k' uses i64.atomic.rmw.add (64-bit atomics"), std::string::npos) << wide_atomic;

  std::string clock = refusal(R"wat((module
    (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
    (memory 1)
    (func (export "k") (param i32) (drop (call $clock (i32.const 0) (i64.const 1) (i32.const 0))))))wat");
  EXPECT_NE(clock.find("function 'k' calls wasi_snapshot_preview1.clock_time_get (the launch's host clocks"),
            std::string::npos)
      << clock;
}

// Barriers: written where every invocation of a workgroup provably reaches
// them, refused where not (WGSL's uniformity rule, uniformity.h).
TEST(WgslCompiler, WritesBarriersInUniformControlFlowAndRefusesTheOthers) {
  auto compile = [](std::string_view body) {
    return compile_wat(std::string(R"wat((module (import "wasmgpu" "barrier" (func $barrier))
      (import "wasmgpu" "local_index" (func $local (result i32)))
      (import "wasmgpu" "workgroup_size" (func $size (param i32) (result i32)))
      (memory 1)
      (func $k (export "k") (param $i i32) (param $n i32) (local $half i32) )wat") +
                       std::string(body) + "))");
  };
  // A tree reduction's loop: its bound is the workgroup size, the `if`
  // inside it on the local index holds no barrier.
  Result<WgslKernel> uniform = compile(R"wat(
      (local.set $half (i32.shr_u (call $size (i32.const 0)) (i32.const 1)))
      (block $done (loop $level
        (br_if $done (i32.eqz (local.get $half)))
        (if (i32.lt_u (call $local) (local.get $half)) (then (i32.store (i32.const 0) (local.get $half))))
        (call $barrier)
        (local.set $half (i32.shr_u (local.get $half) (i32.const 1)))
        (br $level))))wat");
  ASSERT_TRUE(uniform.ok()) << uniform.error().to_string();
  EXPECT_NE(uniform->source.find("workgroupBarrier();"), std::string::npos);
  // The loop that holds the barrier has no trapped exit; the ABI line says
  // a launch must cover whole workgroups; main returns per workgroup.
  EXPECT_EQ(uniform->source.find("break if trapped"), std::string::npos) << uniform->source;
  EXPECT_NE(uniform->abi_json.find("\"barriers\": true"), std::string::npos) << uniform->abi_json;
  EXPECT_TRUE(uniform->barriers);
  EXPECT_NE(uniform->source.find("if (first >= launch_word(1u))"), std::string::npos);

  auto refused = [&](std::string_view body) {
    Result<WgslKernel> kernel = compile(body);
    EXPECT_FALSE(kernel.ok());
    if (kernel.ok()) return std::string();
    EXPECT_NE(kernel.error().message.find("not handled by the WGSL back end yet"), std::string::npos);
    return kernel.error().message;
  };
  std::string in_branch = refused(R"wat((if (i32.lt_u (call $local) (i32.const 4)) (then (call $barrier))))wat");
  EXPECT_NE(in_branch.find("function 'k' calls wasmgpu.barrier inside an if on a value that may differ"),
            std::string::npos)
      << in_branch;
  std::string after_return = refused(R"wat((if (i32.ge_u (local.get $i) (local.get $n)) (then (return)))
      (call $barrier))wat");
  EXPECT_NE(after_return.find("after a return that some invocations may take"), std::string::npos) << after_return;
  // A loop bound loaded from memory may differ between invocations.
  std::string loaded = refused(R"wat((local.set $half (i32.load (local.get $i)))
      (loop $l (call $barrier) (local.set $half (i32.sub (local.get $half) (i32.const 1)))
        (br_if $l (local.get $half))))wat");
  EXPECT_NE(loaded.find("inside a loop that invocations may leave at different iterations"), std::string::npos)
      << loaded;
  // A local once uniform, then set from the local index, is not.
  std::string reassigned = refused(R"wat((local.set $half (i32.const 4)) (local.set $half (call $local))
      (if (local.get $half) (then (call $barrier))))wat");
  EXPECT_NE(reassigned.find("inside an if on a value that may differ"), std::string::npos) << reassigned;
  // Through a call: the callee's parameter is uniform when every caller passes a uniform value.
  Result<WgslKernel> callee = compile_wat(R"wat((module (import "wasmgpu" "barrier" (func $barrier))
    (memory 1)
    (func $step (param i32) (if (local.get 0) (then (call $barrier))))
    (func (export "k") (param i32 i32) (call $step (local.get 1)))))wat");
  EXPECT_TRUE(callee.ok()) << callee.error().to_string();
  Result<WgslKernel> divergent_callee = compile_wat(R"wat((module (import "wasmgpu" "barrier" (func $barrier))
    (memory 1)
    (func $step (param i32) (if (local.get 0) (then (call $barrier))))
    (func (export "k") (param i32 i32) (call $step (local.get 0)))))wat");
  ASSERT_FALSE(divergent_callee.ok());
  EXPECT_NE(divergent_callee.error().message.find("function 'step' calls wasmgpu.barrier inside an if"),
            std::string::npos)
      << divergent_callee.error().message;
}

// Workgroup-shared memory is a var<workgroup> array at the Vulkan back end's
// addresses: resolve() sends the shared range there first; atomics on it go
// through the same slots.
TEST(WgslCompiler, SharedMemoryIsAWorkgroupArrayAndAtomicsUseItsSlot) {
  std::string source =
      source_of(R"wat((module (import "wasmgpu" "atomic_max_i32" (func $max (param i32 i32) (result i32)))
    (import "wasmgpu" "atomic_compare_exchange_i32" (func $cas (param i32 i32 i32) (result i32)))
    (memory 1)
    (data $.wasmgpu_shared.bins (i32.const 1024) "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00")
    (func (export "k") (param i32 i32)
      (i32.store8 (i32.add (i32.const 1024) (local.get 0)) (i32.const 1))
      (drop (call $max (i32.const 1028) (local.get 0)))
      (drop (call $cas (local.get 1) (i32.const 0) (local.get 0))))))wat");
  EXPECT_NE(source.find("var<workgroup> shm: array<atomic<u32>, 4>;"), std::string::npos) << source;
  EXPECT_NE(source.find("const shared_lo: u32 = 1024u;"), std::string::npos);
  EXPECT_NE(source.find("return vec2<u32>(shared_slot, ea - shared_lo);"), std::string::npos);
  EXPECT_NE(source.find("case shared_slot: { atomicAnd(&shm[w], ~mask); atomicOr(&shm[w], bits); }"),
            std::string::npos);
  // Signed max has no WGSL atomic on u32 words: a compare-exchange loop.
  EXPECT_NE(source.find("fn atomic_max_s_4(addr: u32, offset: u32, v: u32) -> u32 {"), std::string::npos);
  EXPECT_NE(source.find("atomicCompareExchangeWeak(&shm[w], o, bitcast<u32>(max(bitcast<i32>(c), bitcast<i32>(v))))"),
            std::string::npos)
      << source;
  // A strong compare-exchange from the weak one.
  EXPECT_NE(source.find("if (x.exchanged || x.old_value != v) { return x.old_value; }"), std::string::npos);
  EXPECT_NE(source.find("\"shared_bytes\": 16"), std::string::npos);
  EXPECT_NE(source.find("\"barriers\": false"), std::string::npos);
}

// Subgroup operations: `enable subgroups`, the built-ins through main, the
// feature named in the ABI line for the launcher to request.
TEST(WgslCompiler, SubgroupOperationsEnableTheFeature) {
  Result<WgslKernel> kernel = compile_wat(R"wat((module
    (import "wasmgpu" "subgroup_add_i32" (func $add (param i32) (result i32)))
    (import "wasmgpu" "subgroup_broadcast_i32" (func $bcast (param i32 i32) (result i32)))
    (import "wasmgpu" "subgroup_id" (func $id (result i32)))
    (memory 1)
    (func (export "k") (param i32)
      (i32.store (i32.const 0) (call $add (local.get 0)))
      (i32.store (i32.const 4) (call $bcast (local.get 0) (call $id))))))wat");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  const std::string& source = kernel->source;
  EXPECT_NE(source.find("enable subgroups;\ndiagnostic(off, subgroup_uniformity);"), std::string::npos);
  EXPECT_NE(source.find("subgroupAdd("), std::string::npos);
  EXPECT_NE(source.find("subgroupShuffle("), std::string::npos);
  EXPECT_NE(source.find("@builtin(subgroup_id) sg_id: u32"), std::string::npos);
  EXPECT_NE(kernel->abi_json.find("\"features\": [\"subgroups\"]"), std::string::npos) << kernel->abi_json;
  EXPECT_TRUE(kernel->subgroups);
  EXPECT_EQ(source_of(kStackKernel).find("subgroups"), std::string::npos);
}

// f64 values are their bits in a vec2<u32>; each operation calls the f64
// prelude's integer helper (its results are compared with the Vulkan back
// end's exact mode, bit for bit, in webgpu.compare_vulkan), and a shader
// without f64 carries no f64 helper.
TEST(WgslCompiler, WritesF64AsBitsWithIntegerHelpers) {
  std::string wgsl = source_of(R"wat((module (memory 1)
    (global $scale f64 (f64.const 0.5))
    (func (export "k") (param i32)
      (local $x f64)
      (local.set $x (f64.load (i32.const 8)))
      (f64.store (i32.const 16) (f64.div (f64.mul (local.get $x) (global.get $scale)) (f64.sqrt (local.get $x))))
      (f32.store (i32.const 24) (f32.demote_f64 (f64.nearest (local.get $x))))
      (i32.store (i32.const 28) (i32.trunc_f64_s (local.get $x))))))wat");
  EXPECT_NE(wgsl.find("var l1: vec2<u32> = vec2<u32>(0u, 0u);"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("const g0: vec2<u32> = vec2<u32>(0u, 1071644672u);"), std::string::npos);
  for (const char* call : {"f64_mul(", "f64_div(", "f64_sqrt(", "f64_round(", "f32_demote(", "i32_trunc_f64_s("})
    EXPECT_NE(wgsl.find(call), std::string::npos) << call;
  EXPECT_NE(wgsl.find("fn f64_round_pack("), std::string::npos);
  EXPECT_NE(wgsl.find("fn i64_add("), std::string::npos);  // the words the f64 helpers use

  EXPECT_EQ(source_of(kStackKernel).find("f64_"), std::string::npos);
  Result<WgslKernel> mutable_global = compile_wat(R"wat((module (memory 1) (global $g (mut f64) (f64.const 1))
    (func (export "k") (param i32) (global.set $g (f64.const 2)))))wat");
  ASSERT_FALSE(mutable_global.ok());
  EXPECT_NE(mutable_global.error().message.find("mutable global 'g'"), std::string::npos)
      << mutable_global.error().message;
}

// A 64-bit argument fills both of its launch words (low word first), as the
// runtime package and run_wgsl.mjs write them; the next argument starts two
// words on (webgpu.compare_vulkan runs kernels with f64 and i64 parameters).
TEST(WgslCompiler, I64AndF64ParametersReadBothOfTheirLaunchWords) {
  std::string wgsl = source_of(R"wat((module (memory 1)
    (func (export "k") (param i32 i64 f64 f32)
      (i64.store (i32.const 0) (local.get 1))
      (f64.store (i32.const 8) (local.get 2))
      (f32.store (i32.const 16) (local.get 3)))))wat");
  EXPECT_NE(wgsl.find("\"params\": [\"i64\", \"f64\", \"f32\"]"), std::string::npos) << wgsl;
  EXPECT_NE(wgsl.find("func0(index, vec2<u32>(launch_word(4u), launch_word(5u)), vec2<u32>(launch_word(6u), "
                      "launch_word(7u)), bitcast<f32>(launch_word(8u)));"),
            std::string::npos)
      << wgsl;
}

// The bundle's launcher cannot run a start function at instantiation: the
// module is refused, naming it, rather than loaded without it.
TEST(WgslCompiler, RefusesAModuleWithAStartFunctionNamingIt) {
  Result<WgslKernel> kernel = compile_wat(R"wat((module (memory 1)
    (func $init (i32.store (i32.const 0) (i32.const 1)))
    (start $init)
    (func (export "k") (param i32) (i32.store (i32.const 4) (i32.load (i32.const 0))))))wat");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.error().code, ErrorCode::Unsupported);
  const std::string& message = kernel.error().message;
  EXPECT_NE(message.find("the start function 'init' (function 0)"), std::string::npos) << message;
  EXPECT_NE(message.find("not handled by the WGSL back end yet"), std::string::npos) << message;
}

// Memories after the first (multi-memory) are not written: the module is
// refused, naming the count, whichever memory the kernel touches.
TEST(WgslCompiler, RefusesAModuleWithSeveralMemories) {
  Result<WgslKernel> kernel = compile_wat(R"wat((module (memory 1) (memory $b 1)
    (func (export "k") (param i32) (i32.store (i32.const 0) (local.get 0)))))wat");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.error().code, ErrorCode::Unsupported);
  const std::string& message = kernel.error().message;
  EXPECT_NE(message.find("a module with 2 memories (multi-memory"), std::string::npos) << message;
  EXPECT_NE(message.find("not handled by the WGSL back end yet"), std::string::npos) << message;
}

TEST(WgslCompiler, RefusesAModuleThatPrints) {
  // The print slot of the kernels' libc (include/wasmgpu_runtime.c) in the data.
  Result<WgslKernel> kernel = compile_wat(R"wat((module (memory 1) (data (i32.const 1024) "WGPRRINT\00\00\00\00")
    (func (export "k") (param i32))))wat");
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.error().message.find("printf, puts, putchar, fd_write, assert or abort in the module's kernels"),
            std::string::npos)
      << kernel.error().message;
  // The same module without the slot compiles.
  EXPECT_TRUE(compile_wat(R"wat((module (memory 1) (data (i32.const 1024) "WGPRINT\00")
    (func (export "k") (param i32))))wat")
                  .ok());
}

}  // namespace
}  // namespace wasmgpu::wgsl

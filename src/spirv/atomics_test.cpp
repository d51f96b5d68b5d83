// Threads-proposal atomics (0xFE) in kernels: every instruction compiles to
// valid SPIR-V, on device and shared memory; wait is refused.
#include "spirv/test_util.h"
#include "wasm/opcode.h"

namespace wasmgpu::spirv::testing {
namespace {

const std::string kHeader = std::string("-I") + WASMGPU_INCLUDE_DIR;

// Every 0xFE instruction but wait, applied to the address in $p.
std::string every_atomic_wat() {
  std::string body;
  for (uint32_t i = 0; i < wasm::kOpcodeCount; ++i) {
    wasm::Opcode op = wasm::Opcode(i);
    const wasm::OpcodeInfo& info = wasm::info(op);
    const wasm::AccessKind kind = info.access.kind;
    if (info.cls != wasm::OpcodeClass::Atomic || kind == wasm::AccessKind::Wait) continue;
    if (op == wasm::Opcode::AtomicFence) {
      body += "(atomic.fence)\n";
      continue;
    }
    std::string expr = "(" + std::string(info.text) + " offset=8 (local.get $p)";
    for (size_t p = 1; p < info.params.size(); ++p)
      expr += info.params[p] == wasm::ValType::I32 ? " (local.get $i)" : " (local.get $l)";
    expr += ")";
    body += !info.results.empty() ? "(drop " + expr + ")\n" : expr + "\n";
  }
  return "(module (memory 1) (func (export \"k\") (param $index i32) (param $p i32) (param $i i32) (param $l i64)\n" +
         body + "))";
}

TEST(Atomics, EveryThreadsInstructionValidates) {
  CompiledKernel k = compile_wat(every_atomic_wat());
  std::string text = disassembly(k);
  for (const char* expected : {"OpAtomicLoad", "OpAtomicStore", "OpAtomicIAdd", "OpAtomicISub", "OpAtomicAnd",
                               "OpAtomicOr", "OpAtomicXor", "OpAtomicExchange", "OpAtomicCompareExchange",
                               "OpMemoryBarrier", "Int64Atomics", "wasmgpu.memory.atomic.notify"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected;
}

// C11 atomics as clang-19 -matomics emits them, on buffers, module memory and
// shared memory, at -O0 and -O2.
constexpr const char* kC11Atomics = R"(
#include <stdatomic.h>
#include <wasmgpu.h>
WASMGPU_SHARED _Atomic int shared_counts[8];
WASMGPU_SHARED _Atomic unsigned char shared_bytes[8];
WASMGPU_SHARED _Atomic unsigned short shared_halves[8];
_Atomic long long total;
WASMGPU_KERNEL(k) void k(int i, _Atomic int *counts, _Atomic long long *wide, _Atomic unsigned char *bytes) {
  atomic_fetch_add(&shared_counts[i & 7], 1);
  atomic_fetch_or(&shared_bytes[i & 7], (unsigned char)(1u << (i & 7)));
  atomic_fetch_add_explicit(&shared_halves[i & 7], 3, memory_order_relaxed);
  atomic_thread_fence(memory_order_seq_cst);
  wasmgpu_barrier();
  int expected = 0;
  atomic_compare_exchange_strong(&counts[i & 3], &expected, atomic_load(&shared_counts[i & 7]));
  atomic_fetch_sub(&wide[i & 1], (long long)i);
  atomic_fetch_xor(&bytes[i], atomic_load(&shared_bytes[i & 7]));
  atomic_store(&total, atomic_exchange(&wide[2], i) + atomic_load(&shared_halves[i & 7]));
}
)";

TEST(Atomics, C11AtomicsOnDeviceAndSharedMemoryValidate) {
  for (const char* opt : {"-O0", "-O2"}) {
    CompiledKernel k = expect_compiles(c_to_wasm(kC11Atomics, opt, kHeader + " -matomics"), "k");
    std::string text = disassembly(k);
    EXPECT_NE(text.find("OpAtomicCompareExchange"), std::string::npos) << opt;
    EXPECT_NE(text.find("Workgroup"), std::string::npos) << opt;
  }
}

// wasmgpu_atomic_* on a shared word is inline in the kernel (the helper
// stays for other memory, misaligned addresses and trapped invocations).
TEST(Atomics, IntrinsicAtomicsOnSharedWordsAreInline) {
  CompiledKernel k = expect_compiles(c_to_wasm(R"(
#include <wasmgpu.h>
WASMGPU_SHARED int bins[256];
WASMGPU_KERNEL(k) void k(int i, const unsigned char *data) { wasmgpu_atomic_add(&bins[data[i]], 1); }
)",
                                               "-O2", kHeader),
                                     "k");
  std::string text = disassembly(k);
  std::string kernel = text.substr(text.find("%k = OpFunction"));
  kernel = kernel.substr(0, kernel.find("OpFunctionEnd"));
  EXPECT_NE(kernel.find("OpAtomicIAdd %uint"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("OpFunctionCall %uint %wasmgpu_atomic0"), std::string::npos);  // the rest
}

std::string wait_notify_error(const std::string& instruction) {
  return compile_error(wat_to_wasm(R"((module (memory 1 1 shared)
    (func $helper (param i32) (result i32) (local.get 0) )" +
                                   instruction + R"( )
    (func (export "k") (param i32) (drop (call $helper (local.get 0))))))"),
                       "k");
}

TEST(Atomics, RefusesWaitNamingInstructionAndFunction) {
  std::string error = wait_notify_error("(i32.const 0) (i64.const -1) (memory.atomic.wait32)");
  EXPECT_NE(error.find("function helper uses memory.atomic.wait32 (a GPU invocation cannot block"), std::string::npos)
      << error;
  error = wait_notify_error("(i64.const 0) (i64.const -1) (memory.atomic.wait64)");
  EXPECT_NE(error.find("function helper uses memory.atomic.wait64 (a GPU invocation cannot block"), std::string::npos)
      << error;
}

// No invocation can wait, so memory.atomic.notify wakes none: its helper
// returns 0 after the alignment and bounds checks (a trap), on shared and
// device memory alike.
TEST(Atomics, NotifyChecksItsAddressAndWakesNone) {
  const std::string wat = R"((module (memory 1 1 shared)
    (func $helper (param i32) (result i32) (memory.atomic.notify offset=4 (local.get 0) (i32.const 1)))
    (func (export "k") (param i32) (drop (call $helper (local.get 0))))))";
  CompiledKernel k = compile_wat(wat);
  std::string text = disassembly(k);
  size_t helper = text.find("%wasmgpu_memory_atomic_notify = OpFunction %uint");
  ASSERT_NE(helper, std::string::npos) << text;
  std::string body = text.substr(helper, text.find("OpFunctionEnd", helper) - helper);
  EXPECT_NE(body.find("OpReturnValue %uint_0"), std::string::npos) << body;
  EXPECT_NE(body.find("OpBitwiseAnd %ulong"), std::string::npos) << body;  // the alignment check
  EXPECT_EQ(body.find("OpAtomic"), std::string::npos) << body;             // no memory is touched
}

}  // namespace
}  // namespace wasmgpu::spirv::testing

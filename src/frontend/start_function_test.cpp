// frontend::start_function_module: the waits of a start function, which
// runs alone, become a compare with an atomic load; the result still
// validates, and a module without a shared memory is left alone.
#include "frontend/start_function.h"

#include <gtest/gtest.h>

#include "frontend/test_util.h"
#include "wasm/decoder.h"
#include "wasm/validator.h"

namespace wasmgpu::frontend::testing {
namespace {

size_t waits_in(const wasm::Module& module) {
  size_t waits = 0;
  for (const wasm::Function& function : module.functions)
    for (const wasm::Instr& instr : function.body)
      waits += instr.op == wasm::Opcode::MemoryAtomicWait32 || instr.op == wasm::Opcode::MemoryAtomicWait64;
  return waits;
}

TEST(StartFunctionModule, WaitsOnASharedMemoryBecomeLoadsAndTheModuleStillValidates) {
  const wasm::Module module = decode_wat(R"((module
    (memory 1 1 shared)
    (func $init (param $p i32) (local $x i32)
      (block $out
        (loop $again
          (br_if $out (i32.eqz (local.get $p)))
          (if (i32.eq (memory.atomic.wait32 offset=8 (i32.const 0) (i32.const 1) (i64.const -1)) (i32.const 1))
            (then (local.set $x (i32.const 1)))
            (else (local.set $x (memory.atomic.wait64 (i32.const 16) (i64.const 0) (i64.const 5)))))
          (local.set $p (i32.sub (local.get $p) (i32.const 1)))
          (br $again))))
    (func $run (call $init (i32.const 2)))
    (start $run)))");
  ASSERT_TRUE(wasm::validate(module).ok());
  ASSERT_EQ(waits_in(module), 2u);
  const wasm::Module rewritten = start_function_module(module);
  EXPECT_EQ(waits_in(rewritten), 0u);
  Status valid = wasm::validate(rewritten);
  EXPECT_TRUE(valid.ok()) << valid.error().to_string();
  // Three locals more (timeout, expected i32, expected i64) in the function
  // that waits; the other is untouched.
  EXPECT_EQ(rewritten.functions[0].locals.size(), module.functions[0].locals.size() + 3);
  EXPECT_EQ(rewritten.functions[1].body.size(), module.functions[1].body.size());
  // The loads keep the waits' memargs (offset 8 for the first).
  bool offset_kept = false;
  for (const wasm::Instr& instr : rewritten.functions[0].body)
    offset_kept |= instr.op == wasm::Opcode::I32AtomicLoad && instr.imm1 == 8;
  EXPECT_TRUE(offset_kept);
}

TEST(StartFunctionModule, WaitsOnAnUnsharedMemoryStay) {
  const wasm::Module module = decode_wat(R"((module
    (memory 1)
    (func $init (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const 0))))
    (start $init)))");
  EXPECT_EQ(waits_in(start_function_module(module)), 1u);
}

}  // namespace
}  // namespace wasmgpu::frontend::testing

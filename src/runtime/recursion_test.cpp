// Recursive functions whose control flow crosses the state machine's states
// in every way (multi-value results, floats across calls, br_table, loops with
// parameters, br_if with values, call_indirect into and out of the cycle,
// returns from nested blocks), called on the device and compared with wabt's
// wasm-interp running the same module.
#include <gtest/gtest.h>

#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;

const char* kShapes = R"WAT((module
  (type $t (func (param i32) (result i32)))
  (table funcref (elem $ia $ib $leaf))
  ;; Multi-value results; f32, f64 and i64 values live across the call.
  (func $mv (param $n i32) (result i64 f64)
    (local $x f64) (local $y f32)
    (local.set $x (f64.div (f64.convert_i32_u (local.get $n)) (f64.const 3)))
    (local.set $y (f32.mul (f32.convert_i32_u (local.get $n)) (f32.const 1.5)))
    (if (result i64 f64) (i32.eqz (local.get $n))
      (then (i64.const 1) (f64.const 0.5))
      (else
        (i64.const 3)
        (call $mv (i32.sub (local.get $n) (i32.const 1)))
        (local.set $x (f64.add (local.get $x)))
        (i64.mul)
        (i64.mul (i64.extend_i32_u (local.get $n)))
        (i64.add (i64.trunc_f32_s (local.get $y)))
        (local.get $x))))
  ;; br_table over blocks with results, a value below the blocks.
  (func $bt (param $n i32) (result i32)
    (i32.const 100)
    (block $b2 (result i32)
      (block $b1 (result i32)
        (block $b0 (result i32)
          (i32.add (local.get $n) (i32.const 7))
          (br_table $b0 $b1 $b2 (i32.rem_u (local.get $n) (i32.const 3))))
        (if (result i32) (i32.gt_u (local.get $n) (i32.const 2))
          (then (call $bt (i32.sub (local.get $n) (i32.const 2))))
          (else (i32.const 1)))
        (i32.add)
        (br $b2))
      (if (result i32) (local.get $n)
        (then (call $bt (i32.sub (local.get $n) (i32.const 1))))
        (else (i32.const 3)))
      (i32.mul))
    (i32.add))
  ;; A loop with a parameter around a recursive call, left by br_if with a value.
  (func $loopy (param $n i32) (result i32) (local $i i32) (local $acc i32)
    (if (i32.lt_u (local.get $n) (i32.const 2)) (then (return (i32.add (local.get $n) (i32.const 1)))))
    (i32.const 5)
    (loop $l (param i32) (result i32)
      (local.set $acc (i32.add (local.get $acc) (call $loopy (i32.shr_u (local.get $n) (i32.const 1)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (i32.add (i32.const 1))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 3))))
    (block (param i32) (result i32)
      (br_if 0 (i32.const 7) (i32.and (local.get $n) (i32.const 1)))
      (drop) (drop) (local.get $acc))
    (i32.mul (local.get $acc)))
  ;; Mutual recursion through call_indirect; $leaf is no member of the cycle.
  (func $ia (type $t)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
      (then (call_indirect (type $t) (local.get 0) (i32.const 2)))
      (else (i32.add (i32.const 1)
              (call_indirect (type $t) (i32.sub (local.get 0) (i32.const 1)) (i32.const 1))))))
  (func $ib (type $t)
    (i32.mul (i32.const 2) (call_indirect (type $t) (i32.sub (local.get 0) (i32.const 1)) (i32.const 0))))
  (func $leaf (type $t) (i32.add (local.get 0) (i32.const 1000)))
  ;; Returns from inside nested blocks and a select over a recursive result.
  (func $nested (param $n i32) (result i32)
    (block $out
      (loop $again
        (br_if $out (i32.eqz (local.get $n)))
        (if (i32.eq (i32.rem_u (local.get $n) (i32.const 5)) (i32.const 0))
          (then (return (i32.add (i32.const 11) (call $nested (i32.sub (local.get $n) (i32.const 1)))))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $again)))
    (select (i32.const 1) (i32.const 2) (local.get $n)))
  (func (export "mv") (result i64 i64)
    (call $mv (i32.const 20)) (i64.reinterpret_f64))
  (func (export "bt") (result i32) (call $bt (i32.const 17)))
  (func (export "bt0") (result i32) (call $bt (i32.const 0)))
  (func (export "loopy") (result i32) (call $loopy (i32.const 37)))
  (func (export "loopy1") (result i32) (call $loopy (i32.const 64)))
  (func (export "indirect") (result i32) (call $ia (i32.const 25)))
  (func (export "nested") (result i32) (call $nested (i32.const 23)))
)
)WAT";

// Tail calls inside recursive components: a self tail call and
// return_call_indirect chains a million calls long (far past the call stack
// depth: a tail call to a member takes no frame), an indirect tail call that
// leaves the component at a non-member, and a component mixing real calls,
// which push frames, with a tail call to a member of another signature.
const char* kTailCalls = R"WAT((module
  (type $t (func (param i32 i32) (result i32)))
  (table funcref (elem $ta $tb $plain))
  (func $count (param $n i32) (param $acc i32) (result i32) (local $x i32)
    (local.set $x (i32.mul (local.get $n) (i32.const 3)))
    (if (i32.eqz (local.get $n)) (then (return (local.get $acc))))
    (return_call $count (i32.sub (local.get $n) (i32.const 1)) (i32.add (local.get $acc) (local.get $x))))
  (func $ta (type $t)
    (if (i32.eqz (local.get 0)) (then (return (local.get 1))))
    (return_call_indirect (type $t)
      (i32.sub (local.get 0) (i32.const 1))
      (i32.add (i32.mul (local.get 1) (i32.const 3)) (local.get 0))
      (select (i32.const 2) (i32.and (local.get 0) (i32.const 1)) (i32.eq (local.get 0) (i32.const 5)))))
  (func $tb (type $t)
    (if (result i32) (i32.eqz (local.get 0))
      (then (i32.xor (local.get 1) (i32.const 255)))
      (else (return_call $ta (i32.sub (local.get 0) (i32.const 1)) (i32.add (local.get 1) (i32.const 1))))))
  (func $plain (type $t) (i32.add (local.get 0) (i32.mul (local.get 1) (i32.const 1000))))
  (func $fib (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (return_call $leaf (local.get $n)))
      (else (return_call $fib2 (local.get $n) (call $fib (i32.sub (local.get $n) (i32.const 2)))))))
  (func $fib2 (param $n i32) (param $b i32) (result i32)
    (i32.add (i32.const 1000) (call $fib (i32.sub (local.get $n) (i32.const 1))))
    (i32.sub (i32.const 1000))
    (i32.add (local.get $b)))
  (func $leaf (param i32) (result i32) (local.get 0))
  (func (export "count") (result i32) (call $count (i32.const 1000000) (i32.const 0)))
  (func (export "indirect") (result i32) (call $ta (i32.const 1000000) (i32.const 1)))
  (func (export "indirect_short") (result i32) (call $ta (i32.const 4) (i32.const 1)))
  (func (export "direct_into") (result i32) (call $tb (i32.const 999999) (i32.const 2)))
  (func (export "fib") (result i32) (call $fib (i32.const 20)))
  (func (export "from_outside") (result i32) (return_call $count (i32.const 10) (i32.const 1)))
)
)WAT";

class RecursionTest : public VulkanTest {};

TEST_F(RecursionTest, ControlFlowAcrossCallsMatchesWasmInterp) {
  EXPECT_EQ(testing::expect_exports_match_wasm_interp(*device, kShapes), 7);
}

TEST_F(RecursionTest, TailCallsTakeNoFrameAndMatchWasmInterp) {
  EXPECT_EQ(testing::expect_exports_match_wasm_interp(*device, kTailCalls), 6);
}

}  // namespace
}  // namespace wasmgpu::runtime

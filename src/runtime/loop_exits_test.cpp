// Loops left early for the end of their parent block, the shape clang gives a
// `break` out of a counted loop (`block B ... loop L ... br_if B ... br_if L
// end T end`): the code T between the two ends runs only when the loop falls
// through (spirv/control_flow.cpp lowers it there, unless
// CompileOptions::loop_exit_breaks is off). Each shape runs on the device
// and is compared with wabt's wasm-interp.
#include <gtest/gtest.h>

#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;

const char* kLoopExits = R"WAT((module
  (global $tails (mut i32) (i32.const 0))
  (func $bump (param $x i32) (result i32)
    (global.set $tails (i32.add (global.get $tails) (i32.const 1)))
    (i32.mul (local.get $x) (i32.const 3)))
  ;; Mandelbrot's escape loop: the count, or the limit when nothing escaped.
  (func $escape (param $c i32) (param $limit i32) (result i32) (local $k i32) (local $x i32)
    (block $b
      (br_if $b (i32.eqz (local.get $limit)))
      (loop $l
        (local.set $x (i32.add (i32.mul (local.get $x) (local.get $x)) (local.get $c)))
        (br_if $b (i32.gt_u (local.get $x) (i32.const 1000)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br_if $l (i32.ne (local.get $k) (local.get $limit))))
      ;; The tail: only when the loop ran out, with a call that counts.
      (local.set $k (call $bump (local.get $limit))))
    (i32.add (i32.mul (local.get $k) (i32.const 100000)) (global.get $tails)))
  ;; The parent block has a result: the early exit carries one, the tail
  ;; computes the other from the loop's own result.
  (func $search (param $key i32) (param $n i32) (result i32) (local $i i32)
    (block $found (result i32)
      (loop $l (result i32)
        (br_if $found (i32.add (local.get $i) (i32.const 1000))
          (i32.eq (i32.rem_u (i32.mul (local.get $i) (i32.const 7)) (i32.const 13)) (local.get $key)))
        (drop)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (local.get $i)
        (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
      (i32.const 2)
      (i32.mul)))
  ;; Exits from a block and an if nested in the loop reach the parent through
  ;; the loop's merge; an exit further out passes the parent on.
  (func $deep (param $v i32) (param $limit i32) (result i32) (local $i i32) (local $r i32)
    (block $outer
      (block $b
        (loop $l
          (block $inner
            (br_if $inner (i32.and (local.get $i) (i32.const 1)))
            (if (i32.eq (local.get $i) (local.get $v)) (then (local.set $r (i32.const 11)) (br $b)))
            (br_if $outer (i32.eq (local.get $i) (i32.sub (local.get $limit) (i32.const 4)))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $b (i32.gt_u (local.get $i) (i32.const 40)))
          (br_if $l (i32.lt_u (local.get $i) (local.get $limit))))
        (local.set $r (i32.add (local.get $r) (i32.const 500))))
      (local.set $r (i32.add (local.get $r) (i32.const 7000))))
    (i32.add (i32.mul (local.get $r) (i32.const 1000)) (local.get $i)))
  ;; A loop that never falls through: its tail is dead, its exits all early.
  (func $no_fallthrough (param $n i32) (result i32) (local $i i32)
    (block $b
      (loop $l
        (local.set $i (i32.add (local.get $i) (i32.const 3)))
        (br_if $b (i32.gt_u (local.get $i) (local.get $n)))
        (br $l))
      (local.set $i (i32.const 99999)))
    (local.get $i))
  (func (export "escape_runs_out") (result i32) (call $escape (i32.const 0) (i32.const 50)))
  (func (export "escape_escapes") (result i32) (call $escape (i32.const 2) (i32.const 50)))
  (func (export "escape_never_loops") (result i32) (call $escape (i32.const 2) (i32.const 0)))
  (func (export "search_finds") (result i32) (call $search (i32.const 5) (i32.const 20)))
  (func (export "search_misses") (result i32) (call $search (i32.const 20) (i32.const 20)))
  (func (export "deep_at_v") (result i32) (call $deep (i32.const 6) (i32.const 30)))
  (func (export "deep_runs_out") (result i32) (call $deep (i32.const 7) (i32.const 31)))
  (func (export "deep_outer") (result i32) (call $deep (i32.const 7) (i32.const 30)))
  (func (export "deep_past_40") (result i32) (call $deep (i32.const 45) (i32.const 61)))
  (func (export "no_fallthrough") (result i32) (call $no_fallthrough (i32.const 20)))
))WAT";

class LoopExitsTest : public VulkanTest {};

TEST_F(LoopExitsTest, EarlyExitsAndTailsMatchWasmInterp) {
  EXPECT_EQ(testing::expect_exports_match_wasm_interp(*device, kLoopExits), 10);
}

// The lowering NVIDIA's driver gets (runtime/device_compile_options.h).
TEST_F(LoopExitsTest, ThroughPendingTheyMatchToo) {
  spirv::CompileOptions options;
  options.loop_exit_breaks = false;
  EXPECT_EQ(testing::expect_exports_match_wasm_interp(*device, kLoopExits, options), 10);
}

}  // namespace
}  // namespace wasmgpu::runtime

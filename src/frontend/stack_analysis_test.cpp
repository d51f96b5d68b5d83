#include "frontend/stack_analysis.h"

#include "spirv/test_util.h"

namespace wasmgpu::frontend {
namespace {

// Checked through what the SPIR-V back end makes of the facts.
using spirv::CompiledKernel;
using namespace spirv::testing;

// A kernel at -O0 keeps its locals in a stack frame through __stack_pointer.
constexpr const char* kStackKernel = R"(
static int helper(int *v, int n) {
  int tmp[8];
  for (int i = 0; i < 8; ++i) tmp[i] = v[i % n] * i;
  int s = 0;
  for (int i = 0; i < 8; ++i) s += tmp[i];
  return s;
}
__attribute__((export_name("k"))) void k(int index, int *out, int n) {
  int local[4] = {index, n, 3, 4};
  out[index] = helper(local, 4);
}
)";

TEST(StackAnalysis, LeafFramesAtO0) {
  {
    CompiledKernel k = expect_compiles(c_to_wasm(kStackKernel, "-O0"), "k");
    // wasm-ld: data from 1024, 64 KiB of stack above it.
    EXPECT_EQ(k.info.stack_hi % 16, 0u);
    EXPECT_GT(k.info.stack_hi, 65536u);
    EXPECT_NE(k.info.stack_slot_size, 0u);
    EXPECT_EQ(k.info.stack_slot_size % 16, 0u);
    EXPECT_EQ(k.info.stack_hi - k.info.stack_window_lo, k.info.stack_slot_size);
    // k's 32-byte frame, then helper's 64 bytes below it (a leaf: it never
    // stores sp), plus the margin.
    EXPECT_EQ(k.info.stack_slot_size, 32u + 64u + kStackMargin);
  }
  // At -O2 everything lives in registers.
  CompiledKernel k = expect_compiles(c_to_wasm(kStackKernel, "-O2"), "k");
  EXPECT_EQ(k.info.stack_slot_size, 0u);
}

TEST(StackAnalysis, FrameSizesAddUpAlongCalls) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func $leaf (local $fp i32)
      (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 48)))
      (global.set $__stack_pointer (local.get $fp))
      (i32.store (local.get $fp) (i32.const 1))
      (global.set $__stack_pointer (i32.add (local.get $fp) (i32.const 48))))
    (func $mid (local $fp i32)
      (global.set $__stack_pointer (local.tee $fp (i32.sub (global.get $__stack_pointer) (i32.const 100))))
      (call $leaf)
      (global.set $__stack_pointer (i32.add (local.get $fp) (i32.const 100))))
    (func (export "k") (param i32) (call $mid) (call $leaf))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_hi, 66560u);
  // 148 bytes -> 160, plus the 16-byte margin.
  EXPECT_EQ(k.info.stack_slot_size, 176u);
  EXPECT_EQ(k.info.stack_window_lo, 66560u - 176u);
}

TEST(StackAnalysis, UnboundedUsesWholeRegion) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (data (i32.const 1024) "hello")
    (func (export "k") (param $n i32)
      (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (local.get $n))))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_window_lo, 1040u);  // end of data, rounded up to 16
  EXPECT_EQ(k.info.stack_slot_size, 66560u - 1040u);
}

// clang's alloca in a leaf function (-O0 and -O2): the memory below sp less
// a run-time amount is used without sp ever being stored.
TEST(StackAnalysis, LeafAllocaWithoutStoringSpUsesWholeRegion) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $n i32) (local $p i32)
      (local.set $p (i32.sub (global.get $__stack_pointer)
                             (i32.and (i32.add (i32.shl (local.get $n) (i32.const 2)) (i32.const 15))
                                      (i32.const -16))))
      (i32.store (local.get $p) (i32.const 1)))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_window_lo, 1024u);
  EXPECT_EQ(k.info.stack_slot_size, 66560u - 1024u);
}

// An alloca per iteration in a leaf function: a copy of sp in a local that
// the loop moves down by a run-time amount, never stored back.
TEST(StackAnalysis, LeafAllocaInALoopUsesWholeRegion) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $n i32) (local $p i32)
      (local.set $p (global.get $__stack_pointer))
      (loop $again
        (local.set $p (i32.sub (local.get $p) (local.get $n)))
        (i32.store (local.get $p) (i32.const 1))
        (br_if $again (i32.load (i32.const 2048)))))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_slot_size, 66560u - 1024u);
}

// -O2 reuses locals: a frame address plus an index, less another index, is
// an element of the frame's array (`&a[k - i]`), not an allocation.
TEST(StackAnalysis, AnIndexIntoAFrameIsNotAnAllocation) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $i i32) (param $k i32) (local $p i32)
      (global.set $__stack_pointer (local.tee $p (i32.sub (global.get $__stack_pointer) (i32.const 256))))
      (local.set $p (i32.add (local.get $p) (i32.shl (local.get $k) (i32.const 2))))
      (i32.store (i32.sub (local.get $p) (i32.shl (local.get $i) (i32.const 2))) (i32.const 1))
      (local.set $p (i32.const 7))
      (global.set $__stack_pointer (i32.add (global.get $__stack_pointer) (i32.const 256))))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_slot_size, 256u + kStackMargin);
}

TEST(StackAnalysis, NoDataMeansRegionFrom1024) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $n i32)
      (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (local.get $n))))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_window_lo, 1024u);
}

TEST(StackAnalysis, ConstantAddressesInStackRegionExtendWindow) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $x i32)
      (i32.store (i32.const 0) (local.get $x))            ;; below the region: not stack
      (i32.store offset=66400 (i32.const 0) (local.get $x)))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_window_lo, 66400u);
  EXPECT_EQ(k.info.stack_slot_size, 160u);
}

TEST(StackAnalysis, NoStackUse) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $p i32) (i32.store (local.get $p) (i32.const 1)))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_slot_size, 0u);
}

// wasm-ld writes no segment for zero-initialised data (.bss): it lies between
// the segments and the 64 KiB stack. Its variables are not stack: a constant
// address there neither widens the window nor counts as the region (before,
// bss accesses below a small window trapped as a shadow stack overflow).
TEST(StackAnalysis, BssBelowTheStackIsNotStack) {
  // Data ends at 1032; bss up to 2112; the stack is [2112, 67648).
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 67648))
    (data (i32.const 1024) "12345678")
    (func (export "k") (param $x i32) (local $fp i32)
      (global.set $__stack_pointer (local.tee $fp (i32.sub (global.get $__stack_pointer) (i32.const 32))))
      (i32.store offset=1088 (i32.const 0) (local.get $x))   ;; a bss variable
      (global.set $__stack_pointer (i32.add (local.get $fp) (i32.const 32))))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_slot_size, 32u + kStackMargin);
  EXPECT_EQ(k.info.stack_window_lo, 67648u - 48u);
}

// An alloca after the prologue: the second read of the stack pointer sees
// the moved one, so the frames add up (before, the larger of the two counted).
TEST(StackAnalysis, AllocaAfterPrologueAddsToFrame) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func $leaf (local $fp i32)
      (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 64)))
      (i32.store (local.get $fp) (i32.const 1)))
    (func (export "k") (param i32) (local $fp i32) (local $p i32) (local $n i32)
      (local.set $fp (global.get $__stack_pointer))
      (local.set $n (i32.const 96))                          ;; the constant comes through a local
      (global.set $__stack_pointer (i32.sub (local.get $fp) (local.get $n)))
      (global.set $__stack_pointer (local.tee $p (i32.sub (global.get $__stack_pointer) (i32.const 48))))
      (call $leaf)
      (global.set $__stack_pointer (local.get $fp)))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  // 96 + 48 + the leaf's 64 below the alloca = 208, plus the margin.
  EXPECT_EQ(k.info.stack_slot_size, 208u + kStackMargin);
}

// The arms of an `if` start from the stack pointer at the `if`; the end keeps
// the lower of the two.
TEST(StackAnalysis, IfArmsJoinToTheLowerStackPointer) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func $leaf (local $fp i32)
      (local.set $fp (i32.sub (global.get $__stack_pointer) (i32.const 16)))
      (i32.store (local.get $fp) (i32.const 1)))
    (func (export "k") (param $c i32)
      (if (local.get $c)
        (then (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (i32.const 128))))
        (else (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (i32.const 32)))))
      (call $leaf))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_slot_size, 128u + 16u + kStackMargin);
}

// An alloca in a loop lowers the stack pointer once per iteration: nothing
// in the code bounds it, so the whole region is the window.
TEST(StackAnalysis, AllocaInLoopUsesWholeRegion) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $n i32) (local $p i32)
      (loop $again
        (global.set $__stack_pointer (local.tee $p (i32.sub (global.get $__stack_pointer) (i32.const 16))))
        (i32.store (local.get $p) (local.get $n))
        (br_if $again (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_window_lo, 1024u);
  EXPECT_EQ(k.info.stack_slot_size, 66560u - 1024u);
}

// A local assigned twice is not followed: its value at a read depends on the
// path. Storing it to the stack pointer makes the frame unbounded.
TEST(StackAnalysis, LocalAssignedTwiceIsUnknown) {
  auto bytes = wat_to_wasm(R"((module (memory 2)
    (global $__stack_pointer (mut i32) (i32.const 66560))
    (func (export "k") (param $c i32) (local $n i32)
      (local.set $n (i32.const 16))
      (if (local.get $c) (then (local.set $n (i32.const 4096))))
      (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (local.get $n))))))");
  CompiledKernel k = expect_compiles(bytes, "k");
  EXPECT_EQ(k.info.stack_window_lo, 1024u);
}

}  // namespace
}  // namespace wasmgpu::frontend

#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

TEST(ControlFlow, EmptyKernel) {
  CompiledKernel k = compile_wat(R"((module (func (export "k") (param i32))))");
  EXPECT_EQ(k.info.export_name, "k");
  EXPECT_EQ(k.info.stack_slot_size, 0u);
  EXPECT_EQ(k.info.compiled_functions, 1u);
}

TEST(ControlFlow, NestedBranchesOutOfSeveralLevels) {
  compile_wat(R"((module
    (global $g (mut i32) (i32.const 0))
    (func (export "k") (param $i i32)
      (block $a
        (block $b
          (loop $c
            (block $d
              (br_if $a (i32.eq (local.get $i) (i32.const 1)))
              (br_if $b (i32.eq (local.get $i) (i32.const 2)))
              (br_if $c (i32.eq (local.get $i) (i32.const 3)))
              (br_if $d (i32.eq (local.get $i) (i32.const 4)))
              (if (i32.eq (local.get $i) (i32.const 5)) (then (br $a)) (else (br $c))))
            (global.set $g (i32.const 7))))
        (global.set $g (i32.const 8))))))");
}

// clang's `break` out of a counted loop: a branch from the loop to its
// parent block, whose tail (after the loop) runs only when the loop falls
// through. The tail is lowered on that path and the branch is a plain break:
// no `pending` (runtime/loop_exits_test.cpp runs these shapes). A branch
// further out still sets it.
TEST(ControlFlow, EarlyExitFromALoopToItsParentNeedsNoPending) {
  const char* wat = R"((module
    (global $g (mut i32) (i32.const 0))
    (func (export "k") (param $n i32) (local $k i32)
      (block $out
        (block $b
          (br_if $b (i32.eqz (local.get $n)))
          (loop $l
            (br_if $b (i32.gt_u (local.get $k) (i32.const 1000)))
            %s
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br_if $l (i32.ne (local.get $k) (local.get $n))))
          (local.set $k (local.get $n)))
        (global.set $g (local.get $k))))))";
  auto with = [&](const std::string& extra, bool breaks = true) {
    std::string text(wat);
    text.replace(text.find("%s"), 2, extra);
    CompileOptions options;
    options.loop_exit_breaks = breaks;
    auto module = wasm::decode(wat_to_wasm(text));
    if (!module.ok()) return std::string();
    auto kernel = compile_kernel(*module, "k", options);
    EXPECT_TRUE(kernel.ok()) << kernel.error().to_string();
    return kernel.ok() ? disassembly(*kernel) : std::string();
  };
  const std::string plain = with("");
  EXPECT_NE(plain.find("OpName %pending"), std::string::npos);
  EXPECT_EQ(plain.find("OpStore %pending %uint_1"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("OpStore %pending %uint_2"), std::string::npos) << plain;
  // A branch past the parent still travels through `pending`.
  const std::string further = with("(br_if $out (i32.eq (local.get $k) (i32.const 77)))");
  EXPECT_NE(further.find("OpStore %pending %uint_1"), std::string::npos) << further;
  // Without CompileOptions::loop_exit_breaks (NVIDIA's driver) the exit to
  // the parent goes through `pending` too.
  const std::string flagged = with("", false);
  EXPECT_NE(flagged.find("OpStore %pending %uint_2"), std::string::npos) << flagged;
}

TEST(ControlFlow, BranchOutOfSeveralLoops) {
  compile_wat(R"((module
    (func (export "k") (param $n i32) (local $i i32) (local $j i32)
      (block $done
        (loop $outer
          (local.set $j (i32.const 0))
          (loop $inner
            (br_if $done (i32.gt_u (local.get $j) (i32.const 100)))
            (br_if $outer (i32.eq (local.get $j) (local.get $n)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $inner))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $outer (i32.lt_u (local.get $i) (local.get $n))))))))");
}

TEST(ControlFlow, BrTable) {
  compile_wat(R"((module
    (func $f (param $x i32) (result i32)
      (block $c (block $b (block $a
        (br_table $a $b $c $a (local.get $x)))
        (return (i32.const 10)))
        (return (i32.const 20)))
      (i32.const 30))
    (func (export "k") (param i32) (drop (call $f (local.get 0))))))");
}

TEST(ControlFlow, BrTableWithValuesAndLoopTargets) {
  compile_wat(R"((module
    (func $f (param $x i32) (result i32) (local $n i32)
      (block $out (result i32)
        (loop $again
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (br_if $out (i32.const 99) (i32.gt_u (local.get $n) (i32.const 10)))
          (block $inner (result i32)
            (i32.const 5)
            (br_table $inner $out $inner (local.get $x)))  ;; a value to $inner or $out
          (drop)
          (block $skip
            (br_table $again $skip $again (local.get $x)))  ;; continue or break
          (br $again))
        (unreachable)))
    (func (export "k") (param i32) (drop (call $f (local.get 0))))))");
}

TEST(ControlFlow, BrTableDefaultOnly) {
  compile_wat(R"((module
    (func (export "k") (param $x i32)
      (block $a (br_table $a (local.get $x))))))");
}

// A br_table of 40,000 entries branching to depth i % 3 (default 2): more
// cases than one OpSwitch may hold, so it becomes two levels of switches.
TEST(ControlFlow, BrTableWithMoreCasesThanOneSwitchHolds) {
  std::string wat = R"((module
    (func $f (param $x i32) (result i32)
      (block (block (block
        (br_table )";
  for (int i = 0; i < 40000; ++i) wat += std::to_string(i % 3) + " ";
  wat += R"(2 (local.get $x)))
        (return (i32.const 100)))
        (return (i32.const 101)))
      (i32.const 102))
    (func (export "k") (param i32) (drop (call $f (local.get 0))))))";
  CompiledKernel k = compile_wat(wat);
  std::string text = disassembly(k);
  size_t switches = 0;
  for (size_t at = text.find("OpSwitch"); at != std::string::npos; at = text.find("OpSwitch", at + 1)) ++switches;
  EXPECT_EQ(switches, 1u + (40000 + 8191) / 8192) << "an outer switch and one per chunk";
}

TEST(ControlFlow, IfElseWithResultsAndParams) {
  compile_wat(R"((module
    (type $ii_i (func (param i32 i32) (result i32)))
    (func $f (param $x i32) (result i32)
      (local.get $x) (i32.const 3)
      (if (type $ii_i) (local.get $x)
        (then (i32.add))
        (else (i32.sub))))
    (func $g (param $x i32) (result i32)
      (local.get $x)
      (if (param i32) (result i32) (local.get $x) (then (i32.const 1) (i32.add))))
    (func (export "k") (param i32) (drop (i32.add (call $f (local.get 0)) (call $g (local.get 0)))))))");
}

TEST(ControlFlow, BranchToIfLabel) {
  compile_wat(R"((module
    (func $f (param $x i32) (result i32)
      (if (result i32) (local.get $x)
        (then (drop (br_if 0 (i32.const 1) (i32.eq (local.get $x) (i32.const 2)))) (i32.const 3))
        (else (br 0 (i32.const 4)))))
    (func (export "k") (param i32) (drop (call $f (local.get 0))))))");
}

TEST(ControlFlow, MultiValueBlocksAndLoopParams) {
  compile_wat(R"((module
    (func $sum (param $n i32) (result i32 i32)
      (i32.const 0) (local.get $n)
      (loop $l (param i32 i32) (result i32 i32)
        ;; (acc, k) -> (acc + k, k - 1) while k != 0
        (local.set $n) (local.get $n)
        (block $b (param i32 i32) (result i32 i32)
          (br_if $b (i32.eqz (local.get $n)))  ;; passes and keeps both values
          (i32.add)
          (i32.sub (local.get $n) (i32.const 1))
          (br $l))))
    (func $pair (result i32 i64) (i32.const 1) (i64.const 2))
    (func (export "k") (param i32)
      (call $sum (local.get 0)) (drop) (drop)
      (call $pair) (drop) (drop))))");
}

TEST(ControlFlow, EarlyReturnsAndDeadCode) {
  compile_wat(R"((module
    (func $f (param $x i32) (result i32)
      (block
        (loop
          (br_if 1 (local.get $x))
          (return (i32.const 1))
          (i32.const 5) (drop) (br 0)))   ;; dead after return
      (if (local.get $x) (then (return (i32.const 2)) (unreachable)) (else (br 1 (i32.const 9))))
      (i32.const 3))
    (func (export "k") (param i32)
      (drop (call $f (local.get 0)))
      (return)
      (drop (i32.const 1)))))");
}

TEST(ControlFlow, InfiniteLoopWithExitOnlyByReturn) {
  compile_wat(R"((module
    (func $f (param $x i32) (result i32)
      (loop $l
        (local.set $x (i32.add (local.get $x) (i32.const 1)))
        (if (i32.gt_s (local.get $x) (i32.const 10)) (then (return (local.get $x))))
        (br $l))
      (unreachable))
    (func (export "k") (param i32) (drop (call $f (local.get 0))))))");
}

TEST(ControlFlow, UnreachableTraps) {
  CompiledKernel k = compile_wat(R"((module (func (export "k") (param i32)
    (if (local.get 0) (then (unreachable))))))");
  EXPECT_NE(disassembly(k).find("OpAtomicUMin"), std::string::npos);
}

TEST(ControlFlow, DeepNestingMixed) {
  compile_wat(R"((module
    (func (export "k") (param $x i32) (local $y i32)
      (block $l0
        (if (local.get $x) (then
          (block $l1
            (loop $l2
              (if (i32.eq (local.get $y) (i32.const 3)) (then
                (block $l3
                  (br_table $l0 $l1 $l2 $l3 (local.get $x))))
                (else
                  (local.set $y (i32.add (local.get $y) (i32.const 1)))
                  (br $l2)))
              (br_if $l0 (local.get $y))))
          (local.set $y (i32.const 100))))
        (local.set $y (i32.const 200))))))");
}

}  // namespace
}  // namespace wasmgpu::spirv::testing

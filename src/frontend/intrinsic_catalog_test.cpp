// The intrinsic catalog against include/wasmgpu.h, and the check of calls to
// imports that every back end relies on.
#include "frontend/intrinsic_catalog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "frontend/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::frontend {
namespace {

using testing::decode_wat;

TEST(IntrinsicCatalog, NamesEveryImportOfTheKernelHeader) {
  std::ifstream in(std::string(WASMGPU_INCLUDE_DIR) + "/wasmgpu.h");
  const std::string header{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_FALSE(header.empty());
  std::set<std::string> declared;
  const std::regex import(R"(WASMGPU_IMPORT\((\w+)\))");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), import); it != std::sregex_iterator(); ++it)
    if ((*it)[1] != "name") declared.insert((*it)[1]);  // the macro's own definition
  std::set<std::string> catalog;
  for (const Intrinsic& intrinsic : intrinsics()) EXPECT_TRUE(catalog.insert(std::string(intrinsic.name)).second);
  EXPECT_EQ(declared, catalog);
}

TEST(IntrinsicCatalog, FindsImportsByModuleAndNameWithTheirKinds) {
  wasm::Module module = decode_wat(R"((module
    (import "wasmgpu" "atomic_add_f32" (func (param i32 f32) (result f32)))
    (import "wasmgpu" "subgroup_add_f32" (func (param f32) (result f32)))
    (import "env" "global_id" (func (param i32) (result i32)))
    (func (export "k") (param i32))))");
  const Intrinsic* atomic = find_intrinsic(module, 0);
  ASSERT_NE(atomic, nullptr);
  EXPECT_EQ(atomic->kind, IntrinsicKind::AtomicAddF32);
  EXPECT_TRUE(is_atomic(atomic->kind));
  const Intrinsic* add = find_intrinsic(module, 1);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->kind, IntrinsicKind::SubgroupAdd);
  EXPECT_FALSE(is_atomic(add->kind));
  EXPECT_EQ(add->signature.result, wasm::ValType::F32);
  EXPECT_TRUE(add->signature.matches(module.function_type(1)));
  EXPECT_FALSE(add->signature.matches(module.function_type(0)));
  EXPECT_EQ(find_intrinsic(module, 2), nullptr);  // another module
  EXPECT_EQ(find_intrinsic(module, 3), nullptr);  // a defined function
}

TEST(IntrinsicCatalog, RefusesOtherImportsAndWrongSignaturesNamingTheCaller) {
  wasm::Module module = decode_wat(R"((module
    (import "wasmgpu" "barrier" (func))
    (import "wasmgpu" "global_id" (func (param i64) (result i32)))
    (import "wasmgpu" "no_such_thing" (func))
    (import "env" "puts" (func))
    (func $caller (export "k") (param i32))))");
  EXPECT_TRUE(check_import_call(module, 4, 0).ok());
  EXPECT_TRUE(check_import_call(module, 4, 4).ok());  // not an import: nothing to check
  EXPECT_EQ(check_import_call(module, 4, 1).error().message,
            "function caller calls imported function wasmgpu.global_id with signature (i64) -> i32; "
            "wasmgpu.global_id has signature (i32) -> i32");
  EXPECT_EQ(check_import_call(module, 4, 2).error().message,
            "function caller calls imported function wasmgpu.no_such_thing, which is not a wasmgpu intrinsic "
            "(see include/wasmgpu.h)");
  EXPECT_NE(
      check_import_call(module, 4, 3)
          .error()
          .message.find("function caller calls imported function env.puts (only wasmgpu.* imports run on the GPU"),
      std::string::npos);
}

TEST(IntrinsicCatalog, RefusesWasiCallsNamingThem) {
  wasm::Module module = decode_wat(R"((module
    (import "wasi_snapshot_preview1" "random_get" (func (param i32 i32) (result i32)))
    (func $caller (export "k") (param i32))))");
  EXPECT_EQ(check_import_call(module, 1, 0).error().message,
            "function caller calls imported function wasi_snapshot_preview1.random_get: WASI calls do not run "
            "on the GPU (kernels print with printf, puts, putchar and write to fd 1 and 2, and assert and abort, "
            "from the libc of `wasmgpu cc`, and read the clock with clock_gettime or time; docs/kernel-guide.md, "
            "\"Printing and assert\" and \"Clocks\")");
}

// clock_time_get is the one WASI call kernels make: the launch's host clocks.
TEST(IntrinsicCatalog, ServesWasiClockTimeGetWithItsSignature) {
  wasm::Module module = decode_wat(R"((module
    (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i64 i32) (result i32)))
    (import "wasi_snapshot_preview1" "clock_time_get" (func (param i32 i32 i32) (result i32)))
    (import "env" "clock_time_get" (func (param i32 i64 i32) (result i32)))
    (func $caller (export "k") (param i32))))");
  const Intrinsic* clock = find_intrinsic(module, 0);
  ASSERT_NE(clock, nullptr);
  EXPECT_EQ(clock->kind, IntrinsicKind::ClockTimeGet);
  EXPECT_TRUE(check_import_call(module, 3, 0).ok());
  EXPECT_EQ(check_import_call(module, 3, 1).error().message,
            "function caller calls imported function wasi_snapshot_preview1.clock_time_get with signature "
            "(i32, i32, i32) -> i32; WASI's clock_time_get has signature (i32, i64, i32) -> i32");
  EXPECT_EQ(find_intrinsic(module, 2), nullptr);  // another module's import of the name
}

}  // namespace
}  // namespace wasmgpu::frontend

// frontend::written_globals: the mutable globals a kernel or call may write
// (through calls and call_indirect), which the runtime refuses to share
// between the invocations of one launch (docs/memory-model.md, "Globals").
#include <gtest/gtest.h>

#include "frontend/call_graph.h"
#include "frontend/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::frontend::testing {
namespace {

wasm::Module decode_wat(std::string_view wat) { return frontend::testing::decode_wat(wat, ""); }

constexpr std::string_view kModule = R"((module
  (type $v (func))
  (memory 1)
  (global $__stack_pointer (mut i32) (i32.const 65536))
  (global $heap (mut i32) (i32.const 1024))
  (global $hits (mut i64) (i64.const 0))
  (global $scale (mut f32) (f32.const 1))
  (table 1 funcref)
  (elem (i32.const 0) $count)
  (func $count (global.set $hits (i64.add (global.get $hits) (i64.const 1))))
  (func $alloc (param i32) (result i32)
    (global.get $heap)
    (global.set $heap (i32.add (global.get $heap) (local.get 0))))
  (func (export "allocates") (param i32)
    (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (i32.const 16)))
    (drop (call $alloc (i32.const 8)))
    (global.set $__stack_pointer (i32.add (global.get $__stack_pointer) (i32.const 16))))
  (func (export "indirect") (param i32) (call_indirect (type $v) (i32.const 0)))
  (func (export "reads") (param i32) (i32.store (i32.const 0) (global.get $heap)))
  (func (export "stack_only") (param i32)
    (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (i32.const 16)))
    (global.set $__stack_pointer (i32.add (global.get $__stack_pointer) (i32.const 16))))
  (func (export "everything") (param i32)
    (call $count)
    (drop (call $alloc (i32.const 4)))
    (global.set $scale (f32.const 2))))
)";

std::vector<uint32_t> written_by(const wasm::Module& module, const std::string& name) {
  const wasm::Export* e = module.find_export(name, wasm::ExternalKind::Func);
  EXPECT_NE(e, nullptr) << name;
  if (!e) return {};
  Result<std::vector<uint32_t>> written = written_globals(module, std::span(&e->index, 1));
  EXPECT_TRUE(written.ok()) << written.error().to_string();
  return written.ok() ? *written : std::vector<uint32_t>{};
}

TEST(WrittenGlobals, FollowCallsAndCallIndirectButNotTheStackPointer) {
  const wasm::Module module = decode_wat(kModule);
  // Globals: 0 __stack_pointer, 1 heap, 2 hits, 3 scale.
  EXPECT_EQ(written_by(module, "allocates"), (std::vector<uint32_t>{1}));
  EXPECT_EQ(written_by(module, "indirect"), (std::vector<uint32_t>{2}));
  EXPECT_EQ(written_by(module, "reads"), std::vector<uint32_t>{});
  EXPECT_EQ(written_by(module, "stack_only"), std::vector<uint32_t>{});
  EXPECT_EQ(written_by(module, "everything"), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(describe_global(module, 1), "global 'heap' (global 1)");
}

TEST(WrittenGlobals, OverSeveralRootsAreTheirUnion) {
  const wasm::Module module = decode_wat(kModule);
  const uint32_t roots[] = {module.find_export("allocates", wasm::ExternalKind::Func)->index,
                            module.find_export("indirect", wasm::ExternalKind::Func)->index};
  Result<std::vector<uint32_t>> written = written_globals(module, roots);
  ASSERT_TRUE(written.ok()) << written.error().to_string();
  EXPECT_EQ(*written, (std::vector<uint32_t>{1, 2}));
}

}  // namespace
}  // namespace wasmgpu::frontend::testing

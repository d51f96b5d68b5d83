#include "spirv/load_groups.h"

#include <gtest/gtest.h>

#include "spirv/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::spirv {
namespace {

// Each group of the module's first function as (delta, width) pairs of its
// members, in code order.
using Members = std::vector<std::pair<int64_t, uint32_t>>;
std::vector<Members> groups_of(std::string_view wat) {
  auto module = wasm::decode(testing::wat_to_wasm(wat));
  if (!module.ok()) {
    ADD_FAILURE() << module.error().to_string();
    return {};
  }
  LoadGroups found = find_load_groups(module->functions.at(0).body);
  std::vector<Members> result;
  for (const LoadGroup& g : found.groups) {
    Members members;
    for (const LoadGroupMember& m : g.members) {
      members.push_back({m.delta, m.width});
      EXPECT_EQ(found.group_of[m.ip], int32_t(&g - found.groups.data()));
    }
    result.push_back(members);
  }
  std::sort(result.begin(), result.end());
  return result;
}

TEST(LoadGroups, OffsetsAndConstantsFromOneLocal) {
  // p[0..3] through load offsets; q's words through i32.add of constants,
  // with pure arithmetic and other loads in between.
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $q i32) (result f32)
      (f32.add
        (f32.add (f32.load offset=4 (local.get $p)) (f32.load (local.get $p)))
        (f32.mul (f32.load (i32.add (local.get $q) (i32.const -8)))
                 (f32.add (f32.load offset=12 (local.get $p))
                          (f32.add (f32.load (i32.add (local.get $q) (i32.const 4)))
                                   (f32.convert_i64_s (i64.load offset=8 (local.get $p))))))))))");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {-4, 4}, {8, 4}, {4, 8}}));  // p, led by offset 4
  EXPECT_EQ(groups[1], (Members{{0, 4}, {12, 4}}));                  // q - 8, q + 4
}

TEST(LoadGroups, EffectsAndWritesOfTheBaseEndAGroup) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $n i32) (result i32)
      (local $s i32)
      (local.set $s (i32.load (local.get $p)))
      (i32.store (local.get $n) (i32.const 0))         ;; a store: p's group ends
      (local.set $s (i32.add (local.get $s) (i32.load offset=4 (local.get $p))))
      (local.set $s (i32.add (local.get $s) (i32.load offset=8 (local.get $p))))
      (local.set $s (i32.div_u (local.get $s) (local.get $n)))  ;; may trap: ends it
      (local.set $s (i32.add (local.get $s) (i32.load offset=12 (local.get $p))))
      (local.set $p (i32.const 64))                     ;; p written: ends it
      (local.set $s (i32.add (local.get $s) (i32.load offset=16 (local.get $p))))
      (local.set $s (i32.add (local.get $s) (i32.load offset=20 (local.get $p))))
      (if (local.get $n) (then (local.set $s (i32.const 1))))  ;; control flow
      (i32.add (local.get $s) (i32.load offset=24 (local.get $p))))))");
  // Only {4, 8} and {16, 20} share a stretch without an effect.
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {4, 4}}));
  EXPECT_EQ(groups[1], (Members{{0, 4}, {4, 4}}));
}

TEST(LoadGroups, MixedConstantsAndOffsetsSplit) {
  // p and p + 4 (offsets 0) group; p + 8 with offset 8 has both another
  // constant and an offset, so its address could wrap where theirs do not:
  // it leads a new group, which p + 8 with offset 12 joins.
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (result i32)
      (i32.add (i32.add (i32.load (local.get $p)) (i32.load (i32.add (local.get $p) (i32.const 4))))
        (i32.add (i32.load offset=8 (i32.add (local.get $p) (i32.const 8)))
                 (i32.load offset=12 (i32.add (local.get $p) (i32.const 8))))))))");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {4, 4}}));
  EXPECT_EQ(groups[1], (Members{{0, 4}, {4, 4}}));
}

TEST(LoadGroups, SpansAreBounded) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (result i32)
      (i32.add (i32.load (local.get $p)) (i32.load offset=4096 (local.get $p))))))");
  EXPECT_TRUE(groups.empty());
}

}  // namespace
}  // namespace wasmgpu::spirv

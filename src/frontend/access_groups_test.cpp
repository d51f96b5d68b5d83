#include "frontend/access_groups.h"

#include <gtest/gtest.h>

#include "frontend/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::frontend {
namespace {

// Each load (or store) group of the module's first function as (delta,
// width) pairs of its members, in code order.
using Members = std::vector<std::pair<int64_t, uint32_t>>;
std::vector<Members> groups_of(std::string_view wat, bool stores = false) {
  auto module = wasm::decode(testing::wat_to_wasm(wat));
  if (!module.ok()) {
    ADD_FAILURE() << module.error().to_string();
    return {};
  }
  const wasm::Function& function = module->functions.at(0);
  const wasm::OperandFlow flow = wasm::OperandFlow::build(*module, function);
  AccessGroups found = stores ? find_store_groups(function.body, flow) : find_load_groups(function.body, flow);
  std::vector<Members> result;
  for (const AccessGroup& g : found.groups) {
    Members members;
    for (const GroupMember& m : g.members) {
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

TEST(LoadGroups, EnteringABlockKeepsAGroupOpen) {
  // A struct read before and inside a block (clang's shape for an `if`
  // whose condition is a field): entering a block is no branch.
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (result i32)
      (local $a i32)
      (local.set $a (i32.load (local.get $p)))
      (block
        (br_if 0 (i32.and (i32.load offset=4 (local.get $p)) (i32.const 1)))
        (local.set $a (i32.add (local.get $a) (i32.load offset=8 (local.get $p)))))
      (local.get $a))))");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {4, 4}}));  // br_if ends it before offset 8
}

// clang's shape for a loop reading p[k], p[k + 1], p[k + 2]: p + 4 and
// p + 8 kept in locals set before the loop, each added to the loop's byte
// offset (the first through a tee). The sums relate through the aliases.
TEST(LoadGroups, SumsOfTwoLocalsGroupThroughAliases) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $n i32) (result f32)
      (local $p4 i32) (local $p8 i32) (local $k i32) (local $s f32) (local $o i32)
      (local.set $p4 (i32.add (local.get $p) (i32.const 4)))
      (local.set $p8 (i32.add (local.get $p4) (i32.const 4)))  ;; p + 8, through p4
      (loop $l
        (local.set $s (f32.add (local.get $s)
          (f32.add (f32.load (i32.add (local.get $p8) (local.tee $o (i32.shl (local.get $k) (i32.const 2)))))
                   (f32.add (f32.load (i32.add (local.get $p4) (local.get $o)))
                            (f32.load (i32.add (local.get $o) (local.get $p)))))))
        (local.set $k (i32.add (local.get $k) (local.get $n)))
        (br_if $l (i32.lt_u (local.get $k) (i32.const 64))))
      (local.get $s))))");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {-4, 4}, {-8, 4}}));
}

// `local.get P; <code that writes P>; local.tee Q; i32.add`: the sum used
// P's old value, which a later `local.get P` no longer reads.
TEST(LoadGroups, ASumWhoseOperandCodeWritesItsFirstLocalDoesNotGroup) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $k i32) (result i32)
      (local $o i32)
      (i32.add
        (i32.load (i32.add (local.get $p) (local.tee $o (i32.add (local.get $k) (local.tee $p (i32.const 64))))))
        (i32.load offset=4 (i32.add (local.get $p) (local.get $o)))))))");
  EXPECT_TRUE(groups.empty());
}

// An alias holds where every path to the read kept it: not after an `if`
// arm that set it, nor in a loop that changes it.
TEST(LoadGroups, AnAliasHoldsOnlyWhereEveryPathKeptIt) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $c i32) (result i32)
      (local $q i32) (local $r i32) (local $s i32)
      (local.set $q (i32.add (local.get $p) (i32.const 4)))
      (if (local.get $c) (then (local.set $r (i32.add (local.get $p) (i32.const 8)))))
      (local.set $s (i32.add (i32.add (i32.load (local.get $p)) (i32.load (local.get $q)))
                             (i32.load (local.get $r))))  ;; r: p + 8 only where the arm ran
      (loop $l
        (local.set $s (i32.add (i32.load (local.get $p)) (i32.load (local.get $q))))  ;; q changes below
        (local.set $q (i32.add (local.get $p) (i32.const 12)))
        (br_if $l (local.get $s)))
      (local.get $s))))");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {4, 4}}));  // p and q = p + 4, before the loop
}

// The address's parts are found by what computes each operand (the operand
// flow), not by where they stand: here other code lies between the base and
// its constant, and the constant comes first in the second sum.
TEST(LoadGroups, TheAddressIsFoundWhereverItsOperandsAreComputed) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $q i32) (result i32)
      (local $s i32)
      local.get $p
      local.get $q        ;; unrelated code between p and its constant
      local.set $s
      i32.const 4
      i32.add
      i32.load
      i32.const 8
      local.get $s
      local.set $s
      local.get $p
      i32.add
      i32.load
      i32.add
      local.get $p
      i32.load
      i32.add)))");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {4, 4}, {-4, 4}}));  // p + 4, p + 8, p
}

// A tee of a local's value plus a constant leaves that value: the load
// through the tee, the load through the teed local and one through its
// base are one group.
TEST(LoadGroups, ATeeOfABasePlusAConstantGroupsWithItsBase) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (result i32)
      (local $a i32)
      (i32.add (i32.load (local.tee $a (i32.add (local.get $p) (i32.const 8))))
        (i32.add (i32.load (local.get $p)) (i32.load (i32.add (local.get $a) (i32.const 4))))))))");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {-8, 4}, {4, 4}}));  // p + 8, p, p + 12
}

// The base read before a write of it: the first load's address is p's old
// value plus 4, the second load reads the new p.
TEST(LoadGroups, ABaseWrittenBetweenItsReadAndTheAccessDoesNotGroup) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (result i32)
      local.get $p
      i32.const 64
      local.set $p
      i32.const 4
      i32.add
      i32.load
      local.get $p
      i32.load
      i32.add)))");
  EXPECT_TRUE(groups.empty());
}

TEST(StoreGroups, StoresThatFollowOneAnotherGroup) {
  // A struct written back field by field, the first address through a tee
  // and the values computed in between.
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $i i32) (param $x f32) (param $n i32)
      (local $q i32)
      (i32.store offset=12 (local.tee $q (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 4))))
                           (i32.add (i32.load (local.get $n)) (i32.const 2)))  ;; the first value may load
      (f32.store offset=8 (local.get $q) (f32.mul (local.get $x) (local.get $x)))
      (f32.store offset=4 (local.get $q) (local.get $x))
      (f32.store (local.get $q) (f32.neg (local.get $x)))
      (call 0 (local.get $p) (local.get $i) (local.get $x) (local.get $n))  ;; ends the run
      (i64.store (local.get $q) (i64.const 1))
      (i64.store offset=8 (local.get $q) (i64.const 2)))))",
                          /*stores=*/true);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {-4, 4}, {-8, 4}, {-12, 4}}));
  EXPECT_EQ(groups[1], (Members{{0, 8}, {8, 8}}));
}

// The first store's address is a tee of p + 16: the later stores, through
// the teed local and through p + 16 written the other way round, relate to
// it through p.
TEST(StoreGroups, AStoreThroughATeeOfABasePlusAConstantLeadsTheRun) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32)
      (local $a i32)
      (i32.store (local.tee $a (i32.add (local.get $p) (i32.const 16))) (i32.const 1))
      (i32.store offset=4 (local.get $a) (i32.const 2))
      (i32.store offset=8 (i32.add (i32.const 16) (local.get $p)) (i32.const 3)))))",
                          /*stores=*/true);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {4, 4}, {8, 4}}));
}

TEST(StoreGroups, LoadsOrWritesOfTheBaseBetweenStoresEndTheRun) {
  auto groups = groups_of(R"((module (memory 1)
    (func (param $p i32) (param $r i32)
      (i32.store (local.get $p) (i32.const 1))
      (i32.store offset=4 (local.get $p) (i32.load (local.get $r)))          ;; a load in a later value
      (i32.store offset=8 (local.get $p) (i32.const 3))
      (i32.store offset=12 (local.get $p) (local.tee $p (i32.const 64)))     ;; writes the base
      (i32.store offset=16 (local.get $p) (i32.const 5)))))",
                          /*stores=*/true);
  // The store whose value loads starts a run (its operands run before any
  // held store), which the next joins; the write of p ends it.
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (Members{{0, 4}, {4, 4}}));
}

}  // namespace
}  // namespace wasmgpu::frontend

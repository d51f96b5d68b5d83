#include "frontend/value_range.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <vector>

namespace wasmgpu::frontend {
namespace {

constexpr int64_t k2to31 = int64_t(1) << 31;
constexpr int64_t k2to32 = int64_t(1) << 32;

ValueRange constant(int64_t value) { return ValueRange::constant(value); }
ValueRange between(int64_t lo, int64_t hi) { return ValueRange::between(lo, hi); }

TEST(ValueRange, ConstantsIncludingNegativeOnes) {
  EXPECT_EQ(constant(7).as_constant(), 7u);
  EXPECT_EQ(constant(-4096).as_constant(), 0xFFFFF000u);
  // The same value written either side of 2^32 is the same range.
  EXPECT_EQ(constant(-1), constant(0xFFFFFFFF));
  EXPECT_EQ(constant(-1), between(k2to32 - 1, k2to32 - 1));
  EXPECT_EQ(constant(-4096).unsigned_bounds(), std::pair(0xFFFFF000u, 0xFFFFF000u));
  EXPECT_EQ(constant(-4096).signed_bounds(), std::pair(-4096, -4096));
  EXPECT_FALSE(between(0, 1).as_constant());
  EXPECT_FALSE(ValueRange::full().as_constant());
}

// i64.const values reach constant() (pointer_provenance.cpp): the low 32
// bits of any int64, without signed overflow on the way.
TEST(ValueRange, HugeI64ConstantsKeepTheirLow32Bits) {
  EXPECT_EQ(constant(INT64_MAX).as_constant(), 0xFFFFFFFFu);
  EXPECT_EQ(constant(INT64_MAX - 0x7FFFFFFF).as_constant(), 0x80000000u);
}

TEST(ValueRange, FullnessAtTheEdgeOfTheCircle) {
  EXPECT_TRUE(ValueRange().is_full());
  EXPECT_TRUE(between(0, 0xFFFFFFFF).is_full());  // hi - lo == 2^32 - 1
  EXPECT_TRUE(between(-5, k2to32 - 6).is_full());
  EXPECT_TRUE(between(-k2to32, k2to32).is_full());
  EXPECT_EQ(between(-5, k2to32 - 6), ValueRange::full());  // one canonical form
  ValueRange all_but_one = between(0, 0xFFFFFFFE);
  EXPECT_FALSE(all_but_one.is_full());
  EXPECT_TRUE(all_but_one.contains(0xFFFFFFFE));
  EXPECT_FALSE(all_but_one.contains(0xFFFFFFFF));
  EXPECT_TRUE(between(5, 4).is_full());  // hi < lo: nothing better to say
}

TEST(ValueRange, BoundsOfAnIndexCountingUpToZero) {
  // -4096 + 512*k for k = 0..7, as clang's loops keep their index.
  ValueRange index = between(-4096, -512);
  EXPECT_EQ(index.unsigned_bounds(), std::pair(0xFFFFF000u, 0xFFFFFE00u));
  EXPECT_EQ(index.signed_bounds(), std::pair(-4096, -512));
  EXPECT_EQ(index.add(constant(4096)), between(0, 3584));
  EXPECT_EQ(index.add(constant(4096)).unsigned_bounds(), std::pair(0u, 3584u));
  EXPECT_EQ(index.shl(constant(2)), between(-16384, -2048));
  EXPECT_TRUE(index.contains(0xFFFFF000u));
  EXPECT_FALSE(index.contains(0));
  EXPECT_FALSE(index.contains(0xFFFFEFFFu));
}

TEST(ValueRange, BoundsOfRangesThatWrap) {
  ValueRange around_zero = between(-1, 1);
  EXPECT_EQ(around_zero.unsigned_bounds(), std::pair(0u, 0xFFFFFFFFu));  // crosses 0
  EXPECT_EQ(around_zero.signed_bounds(), std::pair(-1, 1));
  ValueRange around_half = between(k2to31 - 1, k2to31 + 1);
  EXPECT_EQ(around_half.unsigned_bounds(), std::pair(0x7FFFFFFFu, 0x80000001u));
  EXPECT_EQ(around_half.signed_bounds(), std::pair(INT32_MIN, INT32_MAX));  // crosses 2^31
}

TEST(ValueRange, AddAndSubWrapPastZeroAndTwoToThe32) {
  ValueRange sum = between(0xFFFFFFF0, 0xFFFFFFFF).add(between(8, 32));
  for (uint32_t v : {0xFFFFFFF8u, 0u, 31u}) EXPECT_TRUE(sum.contains(v)) << v;
  EXPECT_FALSE(sum.contains(32));
  EXPECT_FALSE(sum.contains(0xFFFFFFF7u));
  ValueRange difference = between(0, 4).sub(between(2, 10));
  EXPECT_EQ(difference, between(-10, 2));
  EXPECT_EQ(difference.unsigned_bounds(), std::pair(0u, 0xFFFFFFFFu));
  EXPECT_EQ(constant(0).sub(constant(1)).as_constant(), 0xFFFFFFFFu);
  EXPECT_EQ(constant(0x7FFFFFFF).add(constant(1)).signed_bounds(), std::pair(INT32_MIN, INT32_MIN));
  // Sums that together span the circle say nothing.
  EXPECT_TRUE(between(0, k2to31).add(between(0, k2to31)).is_full());
}

TEST(ValueRange, MulWithNegativeRanges) {
  EXPECT_EQ(between(-3, -1).mul(between(-2, 2)), between(-6, 6));
  EXPECT_EQ(between(-3, -1).mul(constant(-4)), between(4, 12));
  EXPECT_EQ(between(0xFFFFFFFD, 0xFFFFFFFF).mul(constant(4)), between(-12, -4));
  EXPECT_EQ(constant(0x10000).mul(constant(0x10000)).as_constant(), 0u);  // 2^32 wraps to 0
  EXPECT_EQ(constant(0x10001).mul(constant(0x10001)).as_constant(), 0x20001u);
  EXPECT_TRUE(between(0, 0x10000).mul(between(0, 0x10000)).is_full());
  EXPECT_EQ(ValueRange::full().mul(constant(0)), constant(0));  // zero absorbs even unknowns
}

TEST(ValueRange, ShiftsByConstantsAndByUnknownCounts) {
  EXPECT_EQ(between(1, 3).shl(constant(4)), between(16, 48));
  EXPECT_EQ(between(1, 3).shl(constant(36)), between(16, 48));  // counts are taken mod 32
  EXPECT_EQ(constant(1).shl(constant(31)).as_constant(), 0x80000000u);
  EXPECT_TRUE(between(1, 3).shl(between(0, 1)).is_full());

  EXPECT_EQ(between(0x100, 0x1FF).shr_u(constant(4)), between(0x10, 0x1F));
  EXPECT_EQ(between(-8, -1).shr_u(constant(28)), constant(15));
  EXPECT_EQ(between(0x100, 0x1FF).shr_u(between(0, 40)), between(0, 0x1FF));  // never grows
  EXPECT_EQ(ValueRange::full().shr_u(constant(1)), between(0, 0x7FFFFFFF));

  EXPECT_EQ(between(-8, -1).shr_s(constant(1)), between(-4, -1));
  EXPECT_EQ(between(-8, 8).shr_s(constant(33)), between(-4, 4));
  EXPECT_EQ(ValueRange::full().shr_s(constant(31)), between(-1, 0));
  EXPECT_TRUE(between(-8, -1).shr_s(between(1, 2)).is_full());
}

TEST(ValueRange, BitwiseBounds) {
  EXPECT_EQ(ValueRange::full().bit_and(constant(0xFF)), between(0, 0xFF));
  EXPECT_EQ(between(0, 1000).bit_and(between(0, 100)), between(0, 100));
  EXPECT_EQ(between(1, 5).bit_or(between(8, 9)), between(8, 15));
  EXPECT_EQ(constant(0).bit_or(constant(0)), constant(0));
  EXPECT_EQ(between(1, 5).bit_xor(between(8, 9)), between(0, 15));
  EXPECT_EQ(constant(0x80000000).bit_xor(constant(1)), ValueRange::full());
  // A range crossing 0 has 0xFFFFFFFF among its unsigned values.
  EXPECT_TRUE(between(-1, 1).bit_and(constant(0xF0)).contains(0xF0));
}

TEST(ValueRange, DivAndRemWithDivisorsThatMayBeZero) {
  EXPECT_EQ(between(100, 200).div_u(between(2, 4)), between(25, 100));
  EXPECT_EQ(between(100, 200).div_u(between(0, 10)), between(10, 200));  // 0 traps
  EXPECT_TRUE(between(100, 200).div_u(constant(0)).is_full());           // always traps
  EXPECT_EQ(constant(-1).div_u(constant(16)).as_constant(), 0x0FFFFFFFu);

  EXPECT_EQ(between(3, 5).rem_u(between(10, 20)), between(3, 5));  // x % y == x
  EXPECT_EQ(between(0, 100).rem_u(constant(8)), between(0, 7));
  EXPECT_EQ(between(0, 5).rem_u(between(0, 3)), between(0, 2));
  EXPECT_EQ(between(0, 5).rem_u(between(0, 100)), between(0, 5));
  EXPECT_TRUE(between(0, 5).rem_u(constant(0)).is_full());
}

TEST(ValueRange, JoinTakesTheShortWayRound) {
  EXPECT_EQ(constant(-5).join(constant(5)), between(-5, 5));
  EXPECT_EQ(constant(5).join(constant(-5)), between(-5, 5));
  EXPECT_EQ(constant(0x7FFFFFF0).join(constant(0x80000010)), between(0x7FFFFFF0, 0x80000010));
  EXPECT_EQ(between(10, 20).join(between(-20, -10)), between(-20, 20));
  EXPECT_EQ(between(-4096, -512).join(constant(0)), between(-4096, 0));
  EXPECT_EQ(between(0, 10).join(between(5, 7)), between(0, 10));
  // Two arcs that together cover the circle leave nothing out.
  EXPECT_TRUE(between(0, k2to31).join(between(k2to31, k2to32)).is_full());
}

TEST(ValueRange, FullStaysFull) {
  const ValueRange full = ValueRange::full();
  EXPECT_TRUE(full.add(constant(1)).is_full());
  EXPECT_TRUE(constant(1).sub(full).is_full());
  EXPECT_TRUE(full.mul(constant(2)).is_full());
  EXPECT_TRUE(full.shl(constant(0)).is_full());
  EXPECT_TRUE(full.join(constant(3)).is_full());
  EXPECT_TRUE(constant(3).join(full).is_full());
  EXPECT_TRUE(full.contains(0) && full.contains(0xFFFFFFFF));
  EXPECT_EQ(full.unsigned_bounds(), std::pair(0u, 0xFFFFFFFFu));
  EXPECT_EQ(full.signed_bounds(), std::pair(INT32_MIN, INT32_MAX));
}

// Brute force: small ranges placed near the circle's interesting points.
struct Operand {
  int64_t lo = 0, width = 0;
  ValueRange range;
  std::vector<uint32_t> members() const {
    std::vector<uint32_t> result;
    for (int64_t i = 0; i <= width; ++i) result.push_back(uint32_t(lo + i));
    return result;
  }
};

Operand random_operand(std::mt19937& rng) {
  const int64_t anchors[] = {0, 32, k2to31, k2to32, -4096, int64_t(rng())};
  Operand o;
  const int64_t anchor = anchors[rng() % std::size(anchors)];
  o.lo = anchor + int64_t(rng() % 17) - 8;
  o.width = rng() % 4 == 0 ? 0 : rng() % 12;  // constants often
  o.range = between(o.lo, o.lo + o.width);
  return o;
}

using Method = ValueRange (ValueRange::*)(const ValueRange&) const;
struct BinaryOperation {
  const char* name;
  Method method;
  uint32_t (*exact)(uint32_t, uint32_t);
  bool divides = false;  // a zero right operand traps: no result
  bool exact_on_constants = true;
};

const BinaryOperation kOperations[] = {
    {"add", &ValueRange::add, [](uint32_t a, uint32_t b) { return a + b; }},
    {"sub", &ValueRange::sub, [](uint32_t a, uint32_t b) { return a - b; }},
    {"mul", &ValueRange::mul, [](uint32_t a, uint32_t b) { return a * b; }},
    {"shl", &ValueRange::shl, [](uint32_t a, uint32_t b) { return a << (b & 31); }},
    {"shr_u", &ValueRange::shr_u, [](uint32_t a, uint32_t b) { return a >> (b & 31); }},
    {"shr_s", &ValueRange::shr_s, [](uint32_t a, uint32_t b) { return uint32_t(int32_t(a) >> (b & 31)); }},
    {"and", &ValueRange::bit_and, [](uint32_t a, uint32_t b) { return a & b; }, false, false},
    {"or", &ValueRange::bit_or, [](uint32_t a, uint32_t b) { return a | b; }, false, false},
    {"xor", &ValueRange::bit_xor, [](uint32_t a, uint32_t b) { return a ^ b; }, false, false},
    {"div_u", &ValueRange::div_u, [](uint32_t a, uint32_t b) { return a / b; }, true},
    {"rem_u", &ValueRange::rem_u, [](uint32_t a, uint32_t b) { return a % b; }, true, false},
};

TEST(ValueRange, BruteForceEveryOperationIsSound) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 2000; ++trial) {
    const Operand a = random_operand(rng), b = random_operand(rng);
    for (const BinaryOperation& op : kOperations) {
      const ValueRange result = (a.range.*op.method)(b.range);
      for (uint32_t x : a.members())
        for (uint32_t y : b.members()) {
          if (op.divides && y == 0) continue;
          const uint32_t exact = op.exact(x, y);
          ASSERT_TRUE(result.contains(exact))
              << op.name << "(" << x << ", " << y << ") = " << exact << " with a = [" << a.lo << ", +" << a.width
              << "], b = [" << b.lo << ", +" << b.width << "]";
          if (op.exact_on_constants && a.width == 0 && b.width == 0) {
            EXPECT_EQ(result.as_constant(), exact) << op.name << "(" << x << ", " << y << ")";
          }
        }
    }
    const ValueRange joined = a.range.join(b.range);
    for (uint32_t x : a.members()) ASSERT_TRUE(joined.contains(x)) << "join keeps " << x;
    for (uint32_t y : b.members()) ASSERT_TRUE(joined.contains(y)) << "join keeps " << y;
  }
}

TEST(ValueRange, BruteForceBoundsAndMembership) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const Operand a = random_operand(rng);
    const std::vector<uint32_t> members = a.members();
    uint32_t umin = UINT32_MAX, umax = 0;
    int32_t smin = INT32_MAX, smax = INT32_MIN;
    for (uint32_t x : members) {
      ASSERT_TRUE(a.range.contains(x));
      umin = std::min(umin, x), umax = std::max(umax, x);
      smin = std::min(smin, int32_t(x)), smax = std::max(smax, int32_t(x));
    }
    EXPECT_FALSE(a.range.contains(uint32_t(a.lo - 1)));
    EXPECT_FALSE(a.range.contains(uint32_t(a.lo + a.width + 1)));
    // Exact whenever the members do not cross 0 (2^31 for signed), else the
    // whole type, which still holds them.
    auto [ulo, uhi] = a.range.unsigned_bounds();
    if (int64_t(umax) - umin == a.width)
      EXPECT_EQ(std::pair(ulo, uhi), std::pair(umin, umax));
    else
      EXPECT_EQ(std::pair(ulo, uhi), std::pair(0u, UINT32_MAX));
    auto [slo, shi] = a.range.signed_bounds();
    if (int64_t(smax) - smin == a.width)
      EXPECT_EQ(std::pair(slo, shi), std::pair(smin, smax));
    else
      EXPECT_EQ(std::pair(slo, shi), std::pair(INT32_MIN, INT32_MAX));
  }
}

}  // namespace
}  // namespace wasmgpu::frontend

#include "frontend/value_range.h"

#include <algorithm>
#include <bit>

namespace wasmgpu::frontend {

namespace {
constexpr int64_t kModulus = int64_t(1) << 32;
constexpr int64_t kHalf = int64_t(1) << 31;

// Products of 32-bit ranges need more than 64 bits before they are reduced.
ValueRange between_wide(__int128 lo, __int128 hi) {
  if (hi - lo >= kModulus - 1) return ValueRange::full();
  __int128 shift = lo - (((lo % kModulus) + kModulus) % kModulus);  // a multiple of 2^32
  return ValueRange::between(int64_t(lo - shift), int64_t(hi - shift));
}

std::optional<uint32_t> shift_count(const ValueRange& count) {
  std::optional<uint32_t> c = count.as_constant();
  if (!c) return std::nullopt;
  return *c & 31;
}

// The smallest 2^k - 1 at least x.
uint32_t ones_covering(uint32_t x) { return x == 0 ? 0 : ~0u >> std::countl_zero(x); }
}  // namespace

ValueRange ValueRange::between(int64_t lo, int64_t hi) {
  ValueRange r;
  // Unsigned arithmetic: any int64 pair (an i64.const's) without overflow.
  const uint64_t span = uint64_t(hi) - uint64_t(lo);
  if (hi < lo || span >= uint64_t(kMask)) return r;
  // Shift by a multiple of 2^32 so that lo lies in [-2^31, 2^31).
  const uint32_t low_bits = uint32_t(uint64_t(lo));
  r.lo_ = low_bits >= uint32_t(kHalf) ? int64_t(low_bits) - kModulus : int64_t(low_bits);
  r.hi_ = r.lo_ + int64_t(span);
  return r;
}

std::optional<uint32_t> ValueRange::as_constant() const {
  if (lo_ != hi_) return std::nullopt;
  return uint32_t(lo_);
}

std::pair<uint32_t, uint32_t> ValueRange::unsigned_bounds() const {
  if (lo_ >= 0 && hi_ <= kMask) return {uint32_t(lo_), uint32_t(hi_)};
  if (hi_ < 0) return {uint32_t(lo_ + kModulus), uint32_t(hi_ + kModulus)};
  return {0, uint32_t(kMask)};  // wraps past 0
}

std::pair<int32_t, int32_t> ValueRange::signed_bounds() const {
  if (hi_ < kHalf) return {int32_t(lo_), int32_t(hi_)};
  return {INT32_MIN, INT32_MAX};  // wraps past 2^31
}

bool ValueRange::contains(uint32_t value) const {
  int64_t distance = ((int64_t(value) - lo_) % kModulus + kModulus) % kModulus;
  return distance <= hi_ - lo_;
}

ValueRange ValueRange::join(const ValueRange& other) const {
  if (*this == other) return *this;
  if (is_full() || other.is_full()) return full();
  ValueRange best;
  for (int64_t shift : {-kModulus, int64_t(0), kModulus}) {
    ValueRange candidate = between(std::min(lo_, other.lo_ + shift), std::max(hi_, other.hi_ + shift));
    if (!candidate.is_full() && (best.is_full() || candidate.hi_ - candidate.lo_ < best.hi_ - best.lo_))
      best = candidate;
  }
  return best;
}

ValueRange ValueRange::add(const ValueRange& b) const {
  if (is_full() || b.is_full()) return full();
  return between(lo_ + b.lo_, hi_ + b.hi_);
}

ValueRange ValueRange::sub(const ValueRange& b) const {
  if (is_full() || b.is_full()) return full();
  return between(lo_ - b.hi_, hi_ - b.lo_);
}

ValueRange ValueRange::mul(const ValueRange& b) const {
  if (as_constant() == 0u || b.as_constant() == 0u) return constant(0);
  if (is_full() || b.is_full()) return full();
  __int128 corners[] = {__int128(lo_) * b.lo_, __int128(lo_) * b.hi_, __int128(hi_) * b.lo_, __int128(hi_) * b.hi_};
  return between_wide(std::min({corners[0], corners[1], corners[2], corners[3]}),
                      std::max({corners[0], corners[1], corners[2], corners[3]}));
}

ValueRange ValueRange::shl(const ValueRange& count) const {
  std::optional<uint32_t> c = shift_count(count);
  if (!c) return full();
  return mul(constant(int64_t(1) << *c));
}

ValueRange ValueRange::shr_u(const ValueRange& count) const {
  auto [lo, hi] = unsigned_bounds();
  std::optional<uint32_t> c = shift_count(count);
  if (!c) return between(0, hi);  // a shift right never makes a value larger
  return between(lo >> *c, hi >> *c);
}

ValueRange ValueRange::shr_s(const ValueRange& count) const {
  std::optional<uint32_t> c = shift_count(count);
  if (!c) return full();
  auto [lo, hi] = signed_bounds();
  return between(lo >> *c, hi >> *c);
}

ValueRange ValueRange::bit_and(const ValueRange& b) const {
  // x & y is at most the smaller of x and y.
  return between(0, std::min(unsigned_bounds().second, b.unsigned_bounds().second));
}

ValueRange ValueRange::bit_or(const ValueRange& b) const {
  auto [alo, ahi] = unsigned_bounds();
  auto [blo, bhi] = b.unsigned_bounds();
  return between(std::max(alo, blo), ones_covering(std::max(ahi, bhi)));
}

ValueRange ValueRange::bit_xor(const ValueRange& b) const {
  return between(0, ones_covering(std::max(unsigned_bounds().second, b.unsigned_bounds().second)));
}

ValueRange ValueRange::div_u(const ValueRange& b) const {
  auto [alo, ahi] = unsigned_bounds();
  auto [blo, bhi] = b.unsigned_bounds();
  if (bhi == 0) return full();  // always traps
  return between(alo / bhi, ahi / std::max<uint32_t>(blo, 1));
}

ValueRange ValueRange::rem_u(const ValueRange& b) const {
  auto [alo, ahi] = unsigned_bounds();
  auto [blo, bhi] = b.unsigned_bounds();
  if (bhi == 0) return full();              // always traps
  if (ahi < blo) return between(alo, ahi);  // x % y == x when x < y
  return between(0, std::min(ahi, bhi - 1));
}

}  // namespace wasmgpu::frontend

// Ranges of 32-bit integer values, for proving at compile time that an
// address lies in a known range (docs/compiler.md, "Proven shared
// accesses"). A ValueRange is the set {x mod 2^32 : lo <= x <= hi}: an
// interval on the circle of 32-bit values, so that an index that counts up
// to 0 from -4096 (clang's loops do) is as precise as one counting from 0.
// The operations give a range containing every result of the operation on
// members of the operands' ranges, modulo 2^32, as wasm's i32 arithmetic
// wraps; they also hold for the low 32 bits of i64 add, sub, mul, shl and
// the bitwise operations.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace wasmgpu::frontend {

class ValueRange {
 public:
  ValueRange() = default;  // every value
  static ValueRange full() { return {}; }
  static ValueRange constant(int64_t value) { return between(value, value); }
  // {x mod 2^32 : lo <= x <= hi}; every value when hi - lo >= 2^32 - 1.
  static ValueRange between(int64_t lo, int64_t hi);

  bool is_full() const { return hi_ - lo_ >= kMask; }
  std::optional<uint32_t> as_constant() const;
  // The least and greatest member as unsigned (signed) 32-bit numbers.
  std::pair<uint32_t, uint32_t> unsigned_bounds() const;
  std::pair<int32_t, int32_t> signed_bounds() const;
  bool contains(uint32_t value) const;

  // The smallest range holding both.
  ValueRange join(const ValueRange& other) const;

  ValueRange add(const ValueRange& b) const;
  ValueRange sub(const ValueRange& b) const;
  ValueRange mul(const ValueRange& b) const;
  ValueRange shl(const ValueRange& count) const;
  ValueRange shr_u(const ValueRange& count) const;
  ValueRange shr_s(const ValueRange& count) const;
  ValueRange bit_and(const ValueRange& b) const;
  ValueRange bit_or(const ValueRange& b) const;
  ValueRange bit_xor(const ValueRange& b) const;
  ValueRange div_u(const ValueRange& b) const;
  ValueRange rem_u(const ValueRange& b) const;

  bool operator==(const ValueRange&) const = default;

 private:
  static constexpr int64_t kMask = 0xFFFF'FFFF;
  int64_t lo_ = 0, hi_ = kMask;  // lo_ in [-2^31, 2^32)
};

}  // namespace wasmgpu::frontend

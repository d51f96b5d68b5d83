// C++ in a kernel: classes with constructors and operators, a class
// template, lambdas capturing by reference, std::array, a constexpr table
// computed at compile time and constexpr functions. Checked by
// tests/e2e/languages_test.cpp against a CPU reference at -O0 and -O2.
#include <wasmgpu.h>

#include <array>
#include <cstdint>

namespace {

// The CRC-32 table, computed by the compiler.
constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();
static_assert(kCrcTable[1] == 0x77073096u, "the CRC-32 table");

template <class T>
class Vec2 {
 public:
  constexpr Vec2(T x, T y) : x_(x), y_(y) {}
  constexpr Vec2 operator+(const Vec2& o) const { return {x_ + o.x_, y_ + o.y_}; }
  constexpr Vec2 operator*(T s) const { return {x_ * s, y_ * s}; }
  constexpr T dot(const Vec2& o) const { return x_ * o.x_ + y_ * o.y_; }

 private:
  T x_, y_;
};

template <class T, size_t N, class F>
constexpr T fold(const std::array<T, N>& values, T init, F f) {
  for (const T& v : values) init = f(init, v);
  return init;
}

}  // namespace

// out[i] = CRC-32 of the 4 bytes of words[i], and f[i] = a dot product of
// template vectors built from x[i], plus a lambda fold over a std::array.
WASMGPU_DEFINE_KERNEL(cxx_features, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(uint32_t, words),
                      WASMGPU_PTR(uint32_t, crc), WASMGPU_CONST_PTR(int, x), WASMGPU_PTR(int, f)) {
  uint32_t c = 0xFFFFFFFFu;
  uint32_t w = words[i];
  for (int b = 0; b < 4; ++b) c = kCrcTable[(c ^ (w >> (8 * b))) & 0xFF] ^ (c >> 8);
  crc[i] = ~c;

  int v = x[i];
  Vec2<int> p(v, v + 1), q(3, -2);
  Vec2<int> r = (p + q) * 2;
  std::array<int, 4> parts = {v, v * 3, -v, 7};
  int scale = 2;
  int sum = fold(parts, 0, [&scale](int acc, int e) { return acc + e * scale; });
  f[i] = r.dot(q) + sum;
}

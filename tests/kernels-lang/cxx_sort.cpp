// <algorithm> in a kernel: each invocation sorts 16 ints of its own with
// std::sort (libc++'s introsort, partly compiled into libc++.a), and with a
// heap sort (std::make_heap/std::sort_heap, header-only), then writes the
// median with std::nth_element's neighbour check. Checked by
// tests/e2e/languages_test.cpp against std::sort on the host.
#include <wasmgpu.h>

#include <algorithm>
#include <array>

namespace {
constexpr int kCount = 16;

std::array<int, kCount> gather(int i, const int* in) {
  std::array<int, kCount> a{};
  std::copy(in + i * kCount, in + (i + 1) * kCount, a.begin());
  return a;
}
}  // namespace

WASMGPU_KERNEL(introsort16) void introsort16(int i, const int* in, int* out) {
  std::array<int, kCount> a = gather(i, in);
  std::sort(a.begin(), a.end());
  std::copy(a.begin(), a.end(), out + i * kCount);
}

WASMGPU_KERNEL(heapsort16) void heapsort16(int i, const int* in, int* out) {
  std::array<int, kCount> a = gather(i, in);
  std::make_heap(a.begin(), a.end(), [](int x, int y) { return x > y; });
  std::sort_heap(a.begin(), a.end(), [](int x, int y) { return x > y; });
  std::reverse(a.begin(), a.end());
  std::copy(a.begin(), a.end(), out + i * kCount);
}

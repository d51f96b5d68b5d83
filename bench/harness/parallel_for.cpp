#include "harness/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "support/environment.h"

namespace wasmgpu::bench {

unsigned thread_count() {
  static const unsigned count = [] {
    if (std::optional<unsigned> n = environment::bench_threads()) return *n;
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return count;
}

void parallel_for(uint64_t n, uint64_t grain, const std::function<void(uint64_t, uint64_t)>& fn) {
  if (n == 0) return;
  grain = std::max<uint64_t>(grain, 1);
  const uint64_t chunks = (n + grain - 1) / grain;
  const unsigned threads = unsigned(std::min<uint64_t>(thread_count(), chunks));
  if (threads <= 1) {
    for (uint64_t begin = 0; begin < n; begin += grain) fn(begin, std::min(n, begin + grain));
    return;
  }
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> failed{std::numeric_limits<uint64_t>::max()};  // lowest chunk that threw
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (;;) {
      // Chunks are taken in increasing order: once one after a failed chunk
      // is taken, every later one is too.
      const uint64_t k = next.fetch_add(1, std::memory_order_relaxed);
      if (k >= chunks || k > failed.load(std::memory_order_relaxed)) return;
      try {
        fn(k * grain, std::min(n, (k + 1) * grain));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (k < failed.load(std::memory_order_relaxed)) {
          failed.store(k, std::memory_order_relaxed);
          error = std::current_exception();
        }
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace wasmgpu::bench

// The bench's host work (input generation, CPU references, checks) spread
// over the machine's cores with std::thread. Work is cut into chunks that do
// not depend on the number of threads, so every result is the same however
// many run.
#pragma once

#include <cstdint>
#include <functional>

namespace wasmgpu::bench {

// Threads parallel_for uses: WASMGPU_BENCH_THREADS when set (>= 1), else
// std::thread::hardware_concurrency() (at least 1).
unsigned thread_count();

// Calls fn(begin, end) for each chunk [k * grain, min((k + 1) * grain, n)) of
// [0, n), on up to thread_count() threads (on the calling thread alone when
// there is one chunk). When fn throws, the chunks after it are skipped and the
// exception of the lowest throwing chunk is rethrown once all threads end: the
// error names the first wrong element whatever the thread count.
void parallel_for(uint64_t n, uint64_t grain, const std::function<void(uint64_t begin, uint64_t end)>& fn);

}  // namespace wasmgpu::bench

#include "cpu/thread_pool.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "support/environment.h"

namespace wasmgpu::cpu {

namespace {

// Kernels rely on IEEE subnormals and round-to-nearest: every worker runs
// with the default floating-point environment, whatever the host set.
struct DefaultFloatEnvironment {
#if defined(__x86_64__)
  DefaultFloatEnvironment() : saved(_mm_getcsr()) { _mm_setcsr(0x1F80); }
  ~DefaultFloatEnvironment() { _mm_setcsr(saved); }
  unsigned saved;
#endif
};

}  // namespace

uint32_t cpu_thread_count() {
  if (std::optional<uint32_t> threads = environment::cpu_threads()) return *threads;
  const uint32_t cores = std::thread::hardware_concurrency();
  return cores ? cores : 1;
}

ThreadPool::ThreadPool(uint32_t threads) {
  for (uint32_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::run(const std::function<void(uint32_t)>& job) {
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    running_ = uint32_t(workers_.size());
    ++generation_;
  }
  start_.notify_all();
  {
    DefaultFloatEnvironment environment;
    job(0);
  }
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
}

void ThreadPool::work(uint32_t worker) {
  uint64_t seen = 0;
  DefaultFloatEnvironment environment;
  for (;;) {
    const std::function<void(uint32_t)>* job = nullptr;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
    }
    (*job)(worker);
    std::lock_guard lock(mutex_);
    if (--running_ == 0) finished_.notify_all();
  }
}

}  // namespace wasmgpu::cpu

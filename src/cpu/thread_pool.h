// The cpu device's workers: WASMGPU_CPU_THREADS of them (default: every
// core), the calling thread counted as one, running one job at a time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wasmgpu::cpu {

class ThreadPool {
 public:
  explicit ThreadPool(uint32_t threads);
  ~ThreadPool();
  uint32_t size() const { return uint32_t(workers_.size()) + 1; }
  // Runs job(worker) on every worker (0 .. size()-1) and returns when all have.
  void run(const std::function<void(uint32_t worker)>& job);

 private:
  void work(uint32_t worker);
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, finished_;
  const std::function<void(uint32_t)>* job_ = nullptr;
  uint64_t generation_ = 0;
  uint32_t running_ = 0;
  bool stopping_ = false;
};

// The threads the cpu device uses: WASMGPU_CPU_THREADS, else the cores.
uint32_t cpu_thread_count();

}  // namespace wasmgpu::cpu

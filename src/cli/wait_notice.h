// A notice on standard error while a long first launch runs: what is being
// waited for and for how long, from 2 s on, so that a kernel whose pipeline
// takes the driver minutes to compile (lavapipe and big kernels) is not
// silence. On a terminal the line updates in place every second; elsewhere
// (WASMGPU_PROGRESS=1 forces it on) one line is written when it starts and
// one when the wait ends. WASMGPU_PROGRESS=0 turns it off, and "always"
// writes the first line at once (for logs and tests).
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "wasmgpu/device.hpp"

namespace wasmgpu::cli {

class WaitNotice {
 public:
  // `what`: "saxpy", "the calls of checksum"; `device`: where it runs.
  WaitNotice(std::string what, const DeviceInfo& device);
  ~WaitNotice();  // ends the notice (and the line it wrote, if any)
  WaitNotice(const WaitNotice&) = delete;
  WaitNotice& operator=(const WaitNotice&) = delete;

 private:
  void watch();

  std::string what_;
  std::string hint_;
  bool terminal_ = false;
  bool at_once_ = false;
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace wasmgpu::cli

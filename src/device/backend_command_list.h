// A list of device commands recorded once and submitted, possibly many
// times; one submission at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "device/backend_buffer.h"
#include "support/result.h"

namespace wasmgpu::device {

class BackendCommandList {
 public:
  virtual ~BackendCommandList() = default;
  // Starts a new recording, dropping the previous one; work submitted
  // before on the device comes first.
  virtual Status begin() = 0;
  // Orders every earlier command's memory accesses before every later one's.
  virtual void barrier() = 0;
  virtual void copy(BackendBuffer& src, BackendBuffer& dst, uint64_t src_offset, uint64_t dst_offset,
                    uint64_t bytes) = 0;
  virtual void fill(BackendBuffer& dst, uint32_t pattern) = 0;
  // GPU timestamps: start_timing() right after begin() and stop_timing()
  // right before end() put one around everything recorded between them;
  // once the submission has finished, elapsed_seconds() is the device time
  // from the first to the second. Devices without timestamps refuse
  // (Unsupported) at start_timing().
  virtual Status start_timing() { return make_error(ErrorCode::Unsupported, "this device has no GPU timestamps"); }
  virtual void stop_timing() {}
  virtual Result<double> elapsed_seconds() {
    return make_error(ErrorCode::Unsupported, "this device has no GPU timestamps");
  }
  // Ends the recording; the host may read what it wrote once it finished.
  virtual Status end() = 0;
  // Submits the recording.
  virtual Status submit() = 0;
  // Whether the submission has finished, waiting up to `timeout` (0: a
  // poll); an error when the device was lost, naming `what`.
  virtual Result<bool> wait(std::chrono::nanoseconds timeout, std::string_view what) = 0;
};

}  // namespace wasmgpu::device

// A raw Vulkan baseline for the synchronous-call row: its own instance and
// device on the physical device the bench runs on, with one compute
// pipeline of a twin (push constants only: the buffer as its device
// address), dispatched the way hand-written code runs a kernel and waits:
// record, submit, wait for the fence. Nothing of wasmgpu in between, so the
// row compares kernel(...) with the least a synchronous dispatch costs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace wasmgpu {
struct DeviceInfo;
}

namespace wasmgpu::bench {

class RawVulkan {
 public:
  // `device`: the bench's device (found again by its index, vendor and
  // device id); `spirv`: a twin whose push constants are one buffer address
  // (bump.plain.spv); its buffer is 16 zeroed bytes of host-visible memory.
  RawVulkan(const DeviceInfo& device, std::span<const uint8_t> spirv);
  ~RawVulkan();
  RawVulkan(const RawVulkan&) = delete;
  RawVulkan& operator=(const RawVulkan&) = delete;

  // One synchronous dispatch of `groups` workgroups: records the command
  // buffer, submits it and waits for its fence.
  void call(uint32_t groups = 1);
  // The first word of the buffer (after the calls have finished).
  uint32_t counter() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wasmgpu::bench

// Host-visible memory for the LaunchBlocks and trap records of launches
// recorded into a caller's command buffer (Kernel::record).
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/buffer.h"
#include "support/result.h"

namespace wasmgpu::runtime {

class Device;
struct DeviceState;

// A RawBuffer that launches recorded into command buffers may still use: the
// per-invocation stacks. Whoever records a launch keeps a reference (its
// LaunchArena does), so that a later launch needing larger stacks can replace
// the device's stacks without freeing memory a recorded command buffer still
// points at. The memory is freed (DeviceState::destroy_later) with the last
// reference.
struct SharedRawBuffer {
  DeviceState* device = nullptr;
  RawBuffer raw;
  SharedRawBuffer(DeviceState* device, RawBuffer raw) : device(device), raw(raw) {}
  SharedRawBuffer(const SharedRawBuffer&) = delete;
  SharedRawBuffer& operator=(const SharedRawBuffer&) = delete;
  ~SharedRawBuffer();
};

// Bump allocator over host-visible, host-coherent chunks with device
// addresses; one per command buffer being recorded. Allocations keep their
// address until reset(): when a chunk is full a new one is added, the full
// one is never moved, because recorded commands point into it.
//
// Lifetime: the caller resets or destroys an arena only after every command
// buffer recorded with its allocations has finished executing (the caller
// waited for its fence or semaphore); destroying it while one runs is
// undefined behaviour, like freeing any memory the GPU still uses. An arena
// must be destroyed before its Device. Move-only; not thread-safe.
class LaunchArena {
 public:
  static Result<LaunchArena> create(Device& device);
  static Result<LaunchArena> create(DeviceState& device);

  LaunchArena(LaunchArena&& other) noexcept;
  LaunchArena& operator=(LaunchArena&& other) noexcept;
  ~LaunchArena();

  struct Allocation {
    uint8_t* host = nullptr;      // mapped pointer
    VkDeviceAddress address = 0;  // the same bytes for shaders
  };
  // `size` bytes, 16-byte aligned, contents unspecified.
  Result<Allocation> allocate(uint64_t size);

  // Forgets every allocation and the stacks kept (see above for when).
  void reset();

  // Keeps `buffer` alive until reset() or destruction.
  void keep(std::shared_ptr<SharedRawBuffer> buffer);

  // Bytes handed out since the last reset, and the chunks' total size.
  uint64_t used_bytes() const;
  uint64_t capacity_bytes() const;

  DeviceState* device_state() const { return device_; }

 private:
  explicit LaunchArena(DeviceState* device);
  void release();

  struct Chunk {
    RawBuffer raw;
    uint64_t used = 0;
  };
  DeviceState* device_ = nullptr;
  std::vector<Chunk> chunks_;
  size_t current_ = 0;  // the chunk allocations come from
  std::vector<std::shared_ptr<SharedRawBuffer>> kept_;
};

}  // namespace wasmgpu::runtime

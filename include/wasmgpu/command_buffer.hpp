// Command buffers: record launches, copies, fills and barriers; submit; wait
// or poll. Nothing waits unless you call Submission::wait.
//
//   wasmgpu::CommandBuffer commands = device.command_buffer();
//   auto scaled = commands.launch(scale, n, x, 2.0f);    // scale(i, float* data, float factor)
//   commands.launch(add, n, x, y, out);                  // reads what scale wrote: a barrier
//   commands.copy(out, copy_of_out);
//   wasmgpu::Submission done = commands.submit();        // returns at once
//   ...                                                  // the CPU is free meanwhile
//   done.wait();                                         // throws TrapError naming the launch
//   commands.set_argument(scaled, "factor", 3.0f);
//   commands.submit().wait();                            // the same commands again
//
// Barriers: with auto barriers on (the default), a command that reads or
// writes a resource an earlier command of the buffer wrote, or writes one an
// earlier command read, waits for it. What a launch accesses:
// - its buffer arguments: read and written, or only read for const pointers
//   (WASMGPU_CONST_PTR) and NonWritable / read-only SPIR-V bindings;
// - the linear memory (and globals, table) of its module: written, so that
//   launches of kernels of one module run in order;
// - NOT buffers the kernel reaches only through pointers stored in memory or
//   in other buffers (the library cannot see those): put an explicit
//   barrier() between a launch that writes such a buffer and one that uses it.
// Copies read their source and write their destination; fills write.
// set_auto_barriers(false) leaves ordering to explicit barrier() calls
// (independent launches then may overlap on the GPU). Each submission is also
// ordered after the work submitted before it on the device, and its writes
// are visible to the host once it has finished.
//
// Lifetime: a CommandBuffer refers to the kernels and buffers recorded into
// it. A buffer destroyed before submit() makes submit() throw (UseAfterMove
// naming the command and the argument); buffers in use by a running
// submission stay allocated until it finishes, even when destroyed.
//
// States: recording (launch/copy/fill/barrier allowed) -> submitted (the
// commands are fixed: submit() again, set_argument(), or reset() to record
// anew). submit() while the previous submission of the same CommandBuffer is
// still running throws InvalidArgument: wait for it (or use another
// CommandBuffer). Move-only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "wasmgpu/argument.hpp"
#include "wasmgpu/error.hpp"
#include "wasmgpu/launch.hpp"

namespace wasmgpu {

class BufferBase;
class Kernel;

namespace detail {
struct CommandBufferImpl;
struct DeviceImpl;
struct SubmissionState;
struct Access;
}  // namespace detail

// A launch within its CommandBuffer: its position among the buffer's
// launches (0, 1, ...), the number TrapError::launch_index reports.
struct LaunchId {
  uint32_t index = 0;
};

// One submission of a CommandBuffer. Move-only; destroying it does not wait
// (the work continues; its trap, if any, is then not reported).
class Submission {
 public:
  Submission(Submission&&) noexcept;
  Submission& operator=(Submission&&) noexcept;
  ~Submission();
  Submission(const Submission&) = delete;
  Submission& operator=(const Submission&) = delete;

  // Waits up to `timeout` for the submission to finish. The timeout counts
  // the work's execution: pipelines are compiled when submit() records them
  // (under WASMGPU_COMPILE_TIMEOUT where the driver compiles at the first
  // dispatch; docs/host-api.md). Throws Timeout when it has not finished
  // (the work keeps running: wait again or poll done()), TrapError
  // for the first launch (lowest LaunchId) that trapped, DeviceLost.
  // Waiting again after it finished reports the same outcome.
  void wait(std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max()) const;
  // Whether it has finished. Never blocks, never throws a trap (wait() does).
  bool done() const;
  // The device time of the submission's commands, in seconds, from GPU
  // timestamps written before the first and after the last of them
  // (CommandBuffer::set_gpu_timing): what the GPU spent, without the host's
  // recording, submission and wait. Call it after wait() returned. Throws
  // InvalidArgument before the submission finished or when its
  // CommandBuffer did not time it.
  double gpu_seconds() const;

 private:
  friend class CommandBuffer;
  friend struct detail::Access;
  Submission(std::shared_ptr<detail::DeviceImpl> device, std::shared_ptr<detail::SubmissionState> state);
  std::shared_ptr<detail::DeviceImpl> device_;
  std::shared_ptr<detail::SubmissionState> state_;
};

class CommandBuffer {
 public:
  CommandBuffer(CommandBuffer&&) noexcept;
  CommandBuffer& operator=(CommandBuffer&&) noexcept;
  ~CommandBuffer();
  CommandBuffer(const CommandBuffer&) = delete;
  CommandBuffer& operator=(const CommandBuffer&) = delete;

  // Records a launch; checks its arguments now (as Kernel::launch does).
  template <class... Args>
  LaunchId launch(const Kernel& kernel, Launch shape, Args&&... args) {
    const Argument arguments[] = {Argument(std::forward<Args>(args))..., Argument(0)};
    return launch_dynamic(kernel, shape, std::span<const Argument>(arguments, sizeof...(Args)));
  }
  LaunchId launch_dynamic(const Kernel& kernel, Launch shape, std::span<const Argument> args);

  // Copies `bytes` bytes (default: all of src from src_offset) from src to
  // dst. Throws BufferTooSmall when a range does not fit, InvalidArgument for
  // overlapping ranges of one buffer. A copy of 0 bytes records nothing.
  void copy(const BufferBase& src, const BufferBase& dst, std::optional<uint64_t> bytes = std::nullopt,
            uint64_t src_offset = 0, uint64_t dst_offset = 0);
  // Sets every 32-bit word of `buffer` to `pattern`.
  void fill(const BufferBase& buffer, uint32_t pattern);
  // Orders everything recorded before against everything after.
  void barrier();
  // On by default; applies to the commands recorded after the call.
  void set_auto_barriers(bool enabled);
  bool auto_barriers() const;
  // Off by default: with it on, every submission of this buffer writes GPU
  // timestamps around its commands and Submission::gpu_seconds() reports
  // the time between them. Takes effect at the next submit(). Throws
  // Unsupported (at that submit) on a device without timestamps on its
  // queue (the cpu device).
  void set_gpu_timing(bool enabled);
  bool gpu_timing() const;

  // Replaces a scalar argument of a recorded launch, for the next submit():
  // by position (0 = the first parameter) or by parameter name. The value is
  // checked like a launch argument. Throws InvalidArgument while a submission
  // of this buffer is running, or for a non-scalar parameter.
  void set_argument(LaunchId launch, uint32_t index, const Argument& value);
  void set_argument(LaunchId launch, std::string_view name, const Argument& value);

  // Submits the commands and returns at once. Throws UseAfterMove for a
  // resource destroyed since it was recorded, InvalidArgument while the
  // previous submission still runs or for an empty command buffer.
  Submission submit();

  // Forgets every command (the buffer records anew). Throws InvalidArgument
  // while a submission runs.
  void reset();

  // Recorded launches and commands (launches, copies, fills, barriers).
  uint32_t launch_count() const;
  uint32_t command_count() const;

 private:
  friend class Device;
  friend struct detail::Access;
  CommandBuffer(std::shared_ptr<detail::DeviceImpl> device, std::shared_ptr<detail::CommandBufferImpl> impl);
  std::shared_ptr<detail::DeviceImpl> device_;
  std::shared_ptr<detail::CommandBufferImpl> impl_;
};

}  // namespace wasmgpu

// Errors of the wasmgpu host API.
//
// Every operation of the public API that can fail throws wasmgpu::Exception
// (or its subclass TrapError); nothing returns error codes, and misuse (a
// buffer too small, a resource of another device, a wrong argument) is an
// exception naming what was wrong, never undefined behaviour.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wasmgpu {

// Why an operation failed.
enum class ErrorKind {
  InvalidArgument,  // wrong argument count or type, bad size, unknown name
  BufferTooSmall,   // a buffer smaller than the launch, copy or read needs
  WrongDevice,      // a resource of one Device used on another
  UseAfterMove,     // a moved-from (or destroyed) handle
  NotFound,         // no such device, kernel, parameter or file
  Unsupported,      // the device or the module cannot do what was asked
  Compile,          // the module was rejected (decode, validation, compiler)
  Trap,             // a kernel trapped (see TrapError)
  Timeout,          // a wait ran out of time; the work may still be running
  DeviceLost,       // VK_ERROR_DEVICE_LOST: the device takes no more work
  Vulkan,           // any other Vulkan failure (the message keeps the VkResult)
  Io,               // a file could not be read or written
};

// "invalid argument", "buffer too small", ...
const char* to_string(ErrorKind kind);

class Exception : public std::runtime_error {
 public:
  Exception(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// A kernel trapped. what() reads like "kernel 'k' (launch 2 of the command
// buffer) trapped: integer divide by zero at invocation 17 (3 invocations
// trapped)"; a failed C assert or abort() adds its text: "... trapped:
// unreachable at invocation 3 (1 invocation trapped): assertion failed: i != 3
// (k.c:12, in function 'k') at invocation 3".
class TrapError : public Exception {
 public:
  TrapError(const std::string& message, std::string kernel, std::string trap,
            uint32_t invocation, uint32_t trapped_invocations, uint32_t launch_index, std::string reason = {})
      : Exception(ErrorKind::Trap, message),
        kernel_(std::move(kernel)),
        trap_(std::move(trap)),
        reason_(std::move(reason)),
        invocation_(invocation),
        trapped_invocations_(trapped_invocations),
        launch_index_(launch_index) {}

  const std::string& kernel() const { return kernel_; }
  // The trap's name: "unreachable", "out of bounds memory access", ...
  const std::string& trap() const { return trap_; }
  // The kernel's own account of the trap, from the first failed assert or
  // abort() of the launch: "assertion failed: i != 3 (k.c:12, in function
  // 'k') at invocation 3", "abort() called at invocation 5"; empty otherwise.
  const std::string& reason() const { return reason_; }
  // The lowest trapping invocation index.
  uint32_t invocation() const { return invocation_; }
  uint32_t trapped_invocations() const { return trapped_invocations_; }
  // Position of the trapping launch among the launches of its command buffer
  // (0 for a direct launch).
  uint32_t launch_index() const { return launch_index_; }

 private:
  std::string kernel_;
  std::string trap_;
  std::string reason_;
  uint32_t invocation_;
  uint32_t trapped_invocations_;
  uint32_t launch_index_;
};

}  // namespace wasmgpu

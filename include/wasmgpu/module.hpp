// Modules and their kernels.
//
//   wasmgpu::Module module = device.load_file("saxpy.wasm");
//   wasmgpu::Kernel saxpy = module.kernel("saxpy");
//   saxpy(n, 2.0f, x, y);              // runs and waits; throws on a bad argument or a trap
//
// A wasm module keeps one linear memory (and, for modules that have them,
// mutable globals and a table) on its device: every launch of its kernels
// sees the same memory, as calls of one wasm instance would. Loading the
// same bytes on two Devices gives two independent modules.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wasmgpu/argument.hpp"
#include "wasmgpu/call.hpp"
#include "wasmgpu/error.hpp"
#include "wasmgpu/interface.hpp"
#include "wasmgpu/launch.hpp"

namespace wasmgpu {

class Device;
class CommandBuffer;

namespace detail {
struct DeviceImpl;
struct ModuleImpl;
struct KernelImpl;
struct Access;
}  // namespace detail

// How wasm kernels are compiled (ignored for SPIR-V).
struct ModuleOptions {
  enum class FloatMode {
    Exact,  // wasm's float results bit for bit on every device (the default)
    Fast,   // the device's own float instructions (docs/float-modes.md)
  };
  FloatMode float_mode = FloatMode::Exact;
  // Calls that may be active at once in one recursive cycle of functions;
  // one more traps. 0: the compiler's default (docs/compiler.md, "Recursion").
  uint32_t max_call_depth = 0;
  // The instructions a kernel may reach with every call inlined (drivers
  // inline every call before they optimise) before the functions whose
  // copies cost most are marked DontInline; 0 marks none. Unset: the
  // environment's WASMGPU_INLINE_BUDGET, else 32,768 (docs/compiler.md,
  // "Inlining budget"). Only the SPIR-V a driver compiles depends on it.
  std::optional<uint64_t> inline_budget;
  // The values of the module's imported globals (bits, i32 and f32 in the
  // low 32 bits), in import order: a module that imports globals needs one
  // per import (the wasm spec tests' `spectest` module, for one).
  std::vector<uint64_t> imported_globals;
  // Bytes of the module's print buffer, the device ring that printf, puts,
  // putchar and WASI fd_write of its kernels append records to, formatted on
  // the host at every wait (docs/kernel-guide.md, "Printing and assert").
  // Only a module whose kernels print has one. Unset: WASMGPU_PRINT_BUFFER,
  // else 1 MiB. What does not fit is dropped and counted (KernelOutput).
  std::optional<uint64_t> print_buffer_bytes;
  // Start each printed line with "[N] ", N the invocation index that printed
  // it. Unset: WASMGPU_PRINT_INVOCATION.
  std::optional<bool> print_invocation;
  // Record where kernels trap: a TrapError's message and a trapped call's
  // CallResult::trap_site name the function and the module offset of the
  // trapping instruction (as `wasm-objdump -d` prints it). It costs a store
  // before each instruction that may trap. Unset: WASMGPU_TRAP_SITES=1 turns
  // it on. Vulkan devices record it; the cpu device does not yet.
  std::optional<bool> trap_sites;
  // Bytes of the module's device heap, which malloc/free (C), a Rust kernel's
  // global allocator and AssemblyScript's `new` allocate from, shared by
  // every invocation of every launch (docs/kernel-guide.md, "Heap
  // allocation"). Only a module whose kernels allocate has one. Unset:
  // WASMGPU_HEAP, else 8 MiB; 8 KiB to 1 GiB. A full heap gives NULL.
  std::optional<uint64_t> heap_bytes;
};

// A kernel of a Module: a reference to it, copyable, keeping its Module (and
// Device) alive.
class Kernel {
 public:
  const KernelInterface& interface() const;
  const std::string& name() const;

  // Runs the kernel and waits for it: records a one-off command buffer,
  // submits it and waits (up to WASMGPU_LAUNCH_TIMEOUT seconds, default 60,
  // for it to run: compiling its pipeline is bounded apart, by
  // WASMGPU_COMPILE_TIMEOUT; docs/host-api.md).
  // This is the one synchronous launch of the API; CommandBuffer records
  // launches without waiting. Throws InvalidArgument (wrong count or types,
  // see argument.hpp), WrongDevice, UseAfterMove, TrapError, Timeout.
  template <class... Args>
  void operator()(Launch launch, Args&&... args) const {
    const Argument arguments[] = {Argument(std::forward<Args>(args))..., dummy()};
    this->launch(launch, std::span<const Argument>(arguments, sizeof...(Args)));
  }
  // The same with a dynamic list of arguments.
  void launch(Launch launch, std::span<const Argument> args) const;
  // The same, waiting up to `timeout` for the kernel to run (instead of
  // WASMGPU_LAUNCH_TIMEOUT); Timeout when it runs longer.
  void launch(Launch launch, std::span<const Argument> args, std::chrono::nanoseconds timeout) const;

  // The workgroup size `launch` would get now, and why: the launch's own
  // size, the shader's, the device heuristic's or the autotuner's
  // (docs/host-api.md, "Launch shapes"). A grid gets its size as launch.hpp
  // says. Asking changes nothing.
  LaunchChoice launch_shape(const Launch& launch) const;

 private:
  friend class Module;
  friend struct detail::Access;
  // Keeps `arguments` non-empty for launches without arguments.
  static Argument dummy() { return Argument(0); }
  Kernel(std::shared_ptr<detail::DeviceImpl> device, std::shared_ptr<detail::KernelImpl> impl);

  std::shared_ptr<detail::DeviceImpl> device_;
  std::shared_ptr<detail::KernelImpl> impl_;
};

// Move-only. Kernels handed out keep the module alive after it is destroyed.
class Module {
 public:
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  bool valid() const { return impl_ != nullptr; }
  KernelSource source() const;
  // The kernel named `name` (a wasm export or a SPIR-V entry point), compiled
  // for the device on first use. Throws NotFound listing the kernels there
  // are, Compile when the compiler refuses it.
  Kernel kernel(std::string_view name);
  // The interfaces of every kernel: for wasm, each exported function whose
  // first parameter is an i32 invocation index and which returns nothing.
  std::vector<KernelInterface> kernels() const;

  // Calls the exported function `function` once per tuple of `tuples`, all
  // in one launch (call.hpp), and waits up to `timeout` (default:
  // WASMGPU_LAUNCH_TIMEOUT, else 60 s) for it. Returns one result per tuple,
  // in tuple order. Runs nothing and throws NotFound for an unknown export,
  // InvalidArgument for arguments of the wrong count or types, Compile for
  // an export the compiler refuses; Timeout, DeviceLost; Unsupported for a
  // SPIR-V module.
  std::vector<CallResult> call(std::string_view function, std::span<const std::vector<Value>> tuples,
                               std::optional<std::chrono::nanoseconds> timeout = std::nullopt);
  // What calling `function` takes and may do; throws NotFound for an
  // unknown export, Compile naming why an export cannot be called (a
  // parameter or result that is not a number, a construct the compiler
  // refuses), Unsupported for a SPIR-V module.
  FunctionInfo function_info(std::string_view function);
  // The same for calls of several exports, in one launch.
  std::vector<CallResult> call(std::span<const Call> calls,
                               std::optional<std::chrono::nanoseconds> timeout = std::nullopt);

 private:
  friend class Device;
  friend struct detail::Access;
  Module(std::shared_ptr<detail::DeviceImpl> device, std::shared_ptr<detail::ModuleImpl> impl);

  std::shared_ptr<detail::DeviceImpl> device_;
  std::shared_ptr<detail::ModuleImpl> impl_;
};

}  // namespace wasmgpu

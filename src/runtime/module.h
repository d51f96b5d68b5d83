// A WebAssembly module loaded onto a Device: its linear memory lives in a
// device buffer, and its exported kernels are compiled on first use.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "runtime/buffer.h"
#include "runtime/call.h"
#include "runtime/kernel.h"
#include "runtime/launch.h"
#include "spirv/compiler.h"
#include "support/result.h"
#include "wasm/kernel_metadata.h"
#include "wasm/module.h"

namespace wasmgpu::runtime {

class Device;

// Move-only. Must be destroyed before its Device; Kernel pointers it hands out
// live as long as the Module.
class Module {
 public:
  // Decodes and validates `wasm` and reads its kernel parameter metadata
  // (wasm/kernel_metadata.h; refused when it is malformed or disagrees with an
  // export's signature), then creates the linear memory (initial
  // pages x 64 KiB, zeroed) and copies the active data segments into it.
  // Data segment offsets must be constant i32 expressions. When the module
  // keeps instance state (frontend::module_uses_instance_state: memory.grow,
  // mutable globals, ...), the memory is allocated at its reserve and the
  // InstanceState buffer is created; `imported_globals` gives each imported
  // global's raw 8-byte value, in import order. A module with a start
  // function then runs it once, as one invocation, before load returns: its
  // writes to memory, globals and tables stay for every later launch and
  // call. A start function the device cannot run fails the load with the
  // reason, and one that traps fails it with the trap (ErrorCode::Trap).
  static Result<Module> load(Device& device, std::span<const uint8_t> wasm,
                             const spirv::CompileOptions& compile_options = {},
                             std::span<const uint64_t> imported_globals = {});

  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;
  ~Module();

  // The kernel exported as `name`, compiled (and its pipeline layout checked
  // against the device) on first use.
  Result<Kernel*> kernel(std::string_view name);

  // kernel(name) then Kernel::launch.
  Status launch(std::string_view kernel_name, uint32_t n, uint32_t workgroup_size, std::span<const Arg> args,
                const LaunchOptions& options = {});
  Status launch(std::string_view kernel_name, uint32_t n, uint32_t workgroup_size, std::initializer_list<Arg> args,
                const LaunchOptions& options = {}) {
    return launch(kernel_name, n, workgroup_size, std::span<const Arg>(args.begin(), args.size()), options);
  }

  // Vectorised calls: runs the exported function once per tuple of
  // `tuples`, all in one launch, and returns each call's results or trap.
  // Calls run concurrently in no defined order: tuples whose calls write
  // state another reads give unspecified results (see call_info()).
  // Instance state (memory, mutable globals) persists across calls and
  // launches. Fails without running anything on an unknown export, an export
  // the compiler refuses, or arguments of the wrong count or types.
  Result<std::vector<CallResult>> call(std::string_view export_name, std::span<const std::vector<Value>> tuples,
                                       const LaunchOptions& options = {});
  // The same for calls of different exports, in one launch.
  Result<std::vector<CallResult>> call(std::span<const CallRequest> calls, const LaunchOptions& options = {});
  // The compiled facts of a callable export (params, results, whether it may
  // have side effects), compiling every export on first use (to SPIR-V only).
  // Callable are the exported functions with scalar params and results that
  // the compiler accepts; the others fail here with the reason. A launch of
  // calls uses a call shader holding just the exports it calls, compiled and
  // kept on first use of that set of exports.
  Result<const spirv::CallInfo*> call_info(std::string_view export_name);

  const wasm::Module& wasm() const;
  // The options kernels are compiled with: the caller's, as the device and
  // the device probe's cached results adjust them (device_compile_options.h).
  const spirv::CompileOptions& compile_options() const;
  // The parameters of the kernels declared with WASMGPU_DEFINE_KERNEL.
  std::span<const wasm::KernelMetadata> kernel_metadata() const;
  // The linear memory every launch of this module maps at wasm address 0;
  // null when the module has no memory.
  Buffer* memory();
  uint64_t memory_bytes() const;

 private:
  struct State;
  explicit Module(std::unique_ptr<State> state);
  Status run_start();
  std::unique_ptr<State> state_;
};

// The module's initial linear memory: zeros with the active data segments
// copied in. Fails on a non-constant offset or a segment that does not fit.
Result<std::vector<uint8_t>> initial_memory(const wasm::Module& module);

// "the start function 'name' (function 3)", for messages about the module's
// start function (which it must have).
std::string start_function_text(const wasm::Module& module);

}  // namespace wasmgpu::runtime

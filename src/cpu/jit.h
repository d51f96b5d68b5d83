// Native code for a kernel or a module's calls: the lowered IR
// (ir_lowering.h) optimised at -O2 with LLVM's new pass manager, emitted as an
// object file for the host CPU (which the disk cache keeps) and linked by
// ORC's LLJIT, once per kernel of a loaded module. No fused multiply-add is
// formed in exact mode (contraction off, no fast-math flags).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cpu/ir_lowering.h"
#include "cpu/kernel_abi.h"
#include "frontend/float_mode.h"
#include "frontend/front_end_facts.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::cpu {

class NativeKernel {
 public:
  ~NativeKernel();
  NativeKernel(const NativeKernel&) = delete;
  NativeKernel& operator=(const NativeKernel&) = delete;

  // The kernel's entry point; null for code compiled only for calls.
  KernelEntry entry() const { return entry_; }
  // The call entries, in the order of the `calls` compiled.
  const std::vector<CallEntry>& calls() const { return calls_; }
  // The optimised IR, for tests and `--emit`-style inspection.
  const std::string& optimised_ir() const { return ir_; }

  struct Jit;  // the LLJIT instance that owns the code

 private:
  friend Result<std::unique_ptr<NativeKernel>> compile_native(const wasm::Module&, const frontend::FrontEndFacts&,
                                                              const LoweringOptions&, std::span<const uint32_t>,
                                                              const std::vector<uint8_t>*, std::vector<uint8_t>*, bool);
  NativeKernel() = default;
  std::unique_ptr<Jit> jit_;
  KernelEntry entry_ = nullptr;
  std::vector<CallEntry> calls_;
  std::string ir_;
};

// Lowers, optimises and compiles the kernel `facts.kernel_function` (when
// set) and a call entry for each function of `calls` (lower_module; all
// accepted by check_cpu_support) into an object file for the host CPU, and
// links it into the JIT. With `cached_object` (an object this function
// emitted before for the same input, from the disk cache) it links that
// instead and compiles nothing; `object_out` receives the object compiled.
// Keeps the optimised IR's text when `keep_ir`.
Result<std::unique_ptr<NativeKernel>> compile_native(const wasm::Module& module, const frontend::FrontEndFacts& facts,
                                                     const LoweringOptions& options, std::span<const uint32_t> calls,
                                                     const std::vector<uint8_t>* cached_object = nullptr,
                                                     std::vector<uint8_t>* object_out = nullptr, bool keep_ir = false);

// What native code depends on beyond the wasm and the options: the LLVM
// version and the host CPU's name and features (part of the disk cache key).
std::string native_target_fingerprint();

}  // namespace wasmgpu::cpu

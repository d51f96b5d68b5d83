// Native code for a kernel: the lowered IR (ir_lowering.h) optimised at -O2
// with LLVM's new pass manager and compiled by ORC's LLJIT for the host CPU,
// once per kernel of a loaded module. No fused multiply-add is formed in
// exact mode (contraction off, no fast-math flags).
#pragma once

#include <memory>
#include <string>

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

  KernelEntry entry() const { return entry_; }
  // The optimised IR, for tests and `--emit`-style inspection.
  const std::string& optimised_ir() const { return ir_; }

  struct Jit;  // the LLJIT instance that owns the code

 private:
  friend Result<std::unique_ptr<NativeKernel>> compile_native_kernel(const wasm::Module&, const frontend::FrontEndFacts&,
                                                                     frontend::FloatMode, bool);
  NativeKernel() = default;
  std::unique_ptr<Jit> jit_;
  KernelEntry entry_ = nullptr;
  std::string ir_;
};

// Lowers, optimises and compiles the kernel `facts.kernel_function`
// (accepted by check_cpu_support); keeps the optimised IR's text when
// `keep_ir`.
Result<std::unique_ptr<NativeKernel>> compile_native_kernel(const wasm::Module& module,
                                                            const frontend::FrontEndFacts& facts,
                                                            frontend::FloatMode float_mode, bool keep_ir = false);

}  // namespace wasmgpu::cpu

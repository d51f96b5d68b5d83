// The KernelInterface of each kernel of a wasm module: from the export's
// signature, with names, C types and pointee types from the
// "wasmgpu.kernels" metadata (WASMGPU_DEFINE_KERNEL) where the module has it.
#pragma once

#include "interface/kernel_interface.h"

#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::reflect {

// One interface per export that can run as a kernel (see
// frontend::check_kernel_signature), in export order. The invocation index is
// not a parameter. With metadata: parameters named as declared; pointers are
// Buffers of their pointee (writable unless const); integers are signed
// unless their C type is unsigned (unsigned, uint32_t, size_t ...).
// Without: "arg1", "arg2"..., scalars typed by the signature (a pointer
// cannot be told from an i32 and is a Scalar I32). Fails when the metadata
// is malformed or disagrees with the signature.
Result<std::vector<KernelInterface>> wasm_interfaces(const wasm::Module& module);

}  // namespace wasmgpu::reflect

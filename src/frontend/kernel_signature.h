// What makes an export a kernel, for every back end.
#pragma once

#include <string_view>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::frontend {

// Ok when an export can be launched as a kernel, else why not (NotFound for a
// missing export, InvalidArgument for another signature). A kernel is an
// exported function whose first parameter is the i32 invocation index, whose
// other parameters are i32/i64/f32/f64 and which returns nothing, and which
// is not a toolchain's runtime helper (toolchain_helpers.h) unless the
// module's metadata section records it as a kernel.
Status check_kernel_signature(const wasm::Module& module, std::string_view export_name);

}  // namespace wasmgpu::frontend

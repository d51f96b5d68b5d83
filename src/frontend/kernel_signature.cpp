#include "frontend/kernel_signature.h"

#include <string>

#include "frontend/toolchain_helpers.h"
#include "wasm/kernel_metadata.h"

namespace wasmgpu::frontend {
namespace {

using wasm::ValType;

bool is_kernel_scalar(ValType type) {
  return type == ValType::I32 || type == ValType::I64 || type == ValType::F32 || type == ValType::F64;
}

// Whether the module's "wasmgpu.kernels" section records `name`: the source
// declared it a kernel, whatever its name.
bool recorded_kernel(const wasm::Module& module, std::string_view name) {
  auto metadata = wasm::read_kernel_metadata(module);
  if (!metadata) return false;
  for (const wasm::KernelMetadata& record : *metadata)
    if (record.kernel == name) return true;
  return false;
}

}  // namespace

Status check_kernel_signature(const wasm::Module& module, std::string_view export_name) {
  std::string name(export_name);
  const wasm::Export* found = nullptr;
  for (const wasm::Export& e : module.exports)
    if (e.name == export_name) found = &e;
  if (!found) return make_error(ErrorCode::NotFound, "the module has no export named '" + name + "'");
  auto refuse = [](std::string why) { return make_error(ErrorCode::InvalidArgument, std::move(why)); };
  if (found->kind != wasm::ExternalKind::Func)
    return refuse("'" + name + "' is a " + wasm::to_string(found->kind) + ", not a function");
  if (found->index >= module.total_functions()) return refuse("'" + name + "' names a function that does not exist");
  if (module.imported_function(found->index))
    return refuse("'" + name + "' is an imported function, which cannot run on the GPU");
  // Before the shape: stackRestore has a kernel's, stackSave does not; both are helpers.
  if (std::optional<std::string> helper = toolchain_helper(name); helper && !recorded_kernel(module, name))
    return refuse("'" + name + "' is " + *helper + ", not a kernel (a kernel named so must be recorded with " +
                  "WASMGPU_DEFINE_KERNEL)");
  const wasm::FuncType& type = module.function_type(found->index);
  if (type.params.empty())
    return refuse("'" + name + "' takes no parameters; a kernel's first parameter is the i32 invocation index");
  if (type.params[0] != ValType::I32)
    return refuse("'" + name + "' takes " + wasm::to_string(type.params[0]) +
                  " first; a kernel's first parameter is the i32 invocation index");
  if (!type.results.empty())
    return refuse("'" + name + "' returns values; a kernel returns nothing and writes results through pointers");
  for (size_t i = 1; i < type.params.size(); ++i)
    if (!is_kernel_scalar(type.params[i]))
      return refuse("parameter " + std::to_string(i) + " of '" + name + "' is " + wasm::to_string(type.params[i]) +
                    "; kernel parameters are i32, i64, f32 or f64");
  return {};
}

}  // namespace wasmgpu::frontend

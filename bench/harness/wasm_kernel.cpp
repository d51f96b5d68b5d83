#include "harness/wasm_kernel.h"

#include <stdexcept>

namespace wasmgpu::bench {

namespace {

template <class T>
T unwrap(Result<T> result, const std::string& what) {
  if (!result) throw std::runtime_error(what + ": " + result.error().to_string());
  return std::move(result).value();
}

runtime::Module load(runtime::Device& device, std::span<const uint8_t> wasm, spirv::FloatMode mode,
                     const std::string& name) {
  spirv::CompileOptions options;
  options.float_mode = mode;
  return unwrap(runtime::Module::load(device, wasm, options), "loading " + name);
}

}  // namespace

WasmLaunch::WasmLaunch(Gpu& gpu, runtime::Kernel& kernel, runtime::LaunchShape shape, std::vector<runtime::Arg> args)
    : gpu_(gpu), kernel_(kernel), shape_(shape), args_(std::move(args)) {
  // The checks (and the pipeline) now, so that recording cannot fail later.
  if (Status s = kernel_.check_launch(shape_, args_); !s) throw std::runtime_error(s.error().to_string());
}

void WasmLaunch::record(VkCommandBuffer cmd) {
  runtime::RecordOptions options;
  options.barrier_before = false;
  options.host_barrier_after = false;
  gpu_.add_recorded(unwrap(kernel_.record(cmd, shape_, args_, gpu_.arena(), options), "recording " + kernel_.name()));
}

WasmKernel::WasmKernel(Gpu& gpu, std::span<const uint8_t> wasm, std::string export_name, spirv::FloatMode mode)
    : gpu_(gpu), module_(load(gpu.device(), wasm, mode, export_name)) {
  kernel_ = unwrap(module_.kernel(export_name), "compiling " + export_name);
}

WasmLaunch WasmKernel::prepare(runtime::Grid grid, runtime::WorkgroupSize size, std::vector<runtime::Arg> args) {
  return WasmLaunch(gpu_, *kernel_, runtime::LaunchShape::of_grid(grid, size), std::move(args));
}

}  // namespace wasmgpu::bench

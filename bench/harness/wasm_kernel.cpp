#include "harness/wasm_kernel.h"

namespace wasmgpu::bench {
namespace {

ModuleOptions options_for(ModuleOptions::FloatMode mode) {
  ModuleOptions options;
  options.float_mode = mode;
  return options;
}

}  // namespace

WasmLaunch::WasmLaunch(const Kernel& kernel, Launch shape, std::vector<Argument> args)
    : kernel_(kernel), shape_(shape), args_(std::move(args)) {}

void WasmLaunch::record(CommandBuffer& commands) const { commands.launch_dynamic(kernel_, shape_, args_); }

WasmKernel::WasmKernel(Gpu& gpu, std::span<const uint8_t> wasm, const std::string& export_name,
                       ModuleOptions::FloatMode mode)
    : start_(std::chrono::steady_clock::now()),
      module_(gpu.device().load(wasm, options_for(mode))),
      kernel_(module_.kernel(export_name)) {
  gpu.compile_times().push_back({export_name, mode == ModuleOptions::FloatMode::Exact,
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()});
}

WasmLaunch WasmKernel::prepare(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> size,
                               std::vector<Argument> args) const {
  return WasmLaunch(kernel_, Launch::grid(groups, size), std::move(args));
}

}  // namespace wasmgpu::bench

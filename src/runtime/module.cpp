#include "runtime/module.h"

#include <cstring>

#include "abi/launch_abi.h"
#include "runtime/device.h"
#include "runtime/device_state.h"
#include "runtime/vk_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::runtime {

namespace {

constexpr uint64_t kPageBytes = 64 * 1024;

// Initial pages of memory 0, imported or defined, or nullopt without memory.
std::optional<uint64_t> initial_pages(const wasm::Module& module) {
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) return import.memory.limits.min;
  if (!module.memories.empty()) return module.memories[0].limits.min;
  return std::nullopt;
}

}  // namespace

Result<std::vector<uint8_t>> initial_memory(const wasm::Module& module) {
  const uint64_t bytes = initial_pages(module).value_or(0) * kPageBytes;
  if (bytes > abi::kBufferAddressBase)
    return make_error("the module's memory starts at " + format_bytes(bytes) + "; at most " +
                      format_bytes(abi::kBufferAddressBase) +
                      " fit below the buffers in the wasm address space");
  std::vector<uint8_t> image(bytes);
  for (size_t i = 0; i < module.data.size(); ++i) {
    const wasm::DataSegment& segment = module.data[i];
    if (segment.mode != wasm::DataSegment::Mode::Active) continue;
    const auto& instrs = segment.offset.instrs;
    const bool constant = !instrs.empty() && instrs[0].op == wasm::Opcode::I32Const &&
                          (instrs.size() == 1 || (instrs.size() == 2 &&
                                                  instrs[1].op == wasm::Opcode::End));
    if (!constant)
      return make_error("data segment " + std::to_string(i) +
                        ": its offset is not a constant i32 (i32.const); wasmgpu does not "
                        "support offsets computed from globals");
    const uint64_t offset = uint32_t(instrs[0].imm64);
    if (offset + segment.bytes.size() > bytes)
      return make_error("data segment " + std::to_string(i) + " (" +
                        std::to_string(segment.bytes.size()) + " bytes at offset " +
                        std::to_string(offset) + ") does not fit in the module's " +
                        std::to_string(bytes) + "-byte memory");
    if (!segment.bytes.empty())
      std::memcpy(image.data() + offset, segment.bytes.data(), segment.bytes.size());
  }
  return image;
}

struct Module::State {
  DeviceState* device = nullptr;
  wasm::Module module;
  spirv::CompileOptions compile_options;
  // Declared before the kernels, which refer to it: destroyed after them.
  std::optional<Buffer> memory;
  std::map<std::string, Kernel, std::less<>> kernels;
};

Result<Module> Module::load(Device& device, std::span<const uint8_t> wasm,
                            const spirv::CompileOptions& compile_options) {
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module decoded, wasm::decode_and_validate(wasm));
  WASMGPU_ASSIGN_OR_RETURN(std::vector<uint8_t> image, initial_memory(decoded));
  auto state = std::make_unique<State>();
  state->device = &device.state();
  state->module = std::move(decoded);
  state->compile_options = compile_options;
  if (!image.empty()) {
    WASMGPU_ASSIGN_OR_RETURN(Buffer memory, create_buffer(device.state(), image.size(),
                                                          /*assign_wasm_address=*/false));
    WASMGPU_TRY(memory.write(image.data(), image.size()));
    state->memory.emplace(std::move(memory));
  }
  return Module(std::move(state));
}

Module::Module(std::unique_ptr<State> state) : state_(std::move(state)) {}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

const wasm::Module& Module::wasm() const { return state_->module; }
Buffer* Module::memory() { return state_->memory ? &*state_->memory : nullptr; }
uint64_t Module::memory_bytes() const { return state_->memory ? state_->memory->size() : 0; }

Result<Kernel*> Module::kernel(std::string_view name) {
  if (auto it = state_->kernels.find(name); it != state_->kernels.end()) return &it->second;
  WASMGPU_ASSIGN_OR_RETURN(spirv::CompiledKernel compiled,
                           spirv::compile_kernel(state_->module, name, state_->compile_options));
  WASMGPU_ASSIGN_OR_RETURN(Kernel kernel,
                           Kernel::create(*state_->device, std::move(compiled), memory()));
  auto [it, inserted] = state_->kernels.emplace(std::string(name), std::move(kernel));
  return &it->second;
}

Status Module::launch(std::string_view kernel_name, uint32_t n, uint32_t workgroup_size,
                      std::span<const Arg> args, const LaunchOptions& options) {
  WASMGPU_ASSIGN_OR_RETURN(Kernel * kernel, this->kernel(kernel_name));
  return kernel->launch(n, workgroup_size, args, options);
}

}  // namespace wasmgpu::runtime

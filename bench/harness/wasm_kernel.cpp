#include "harness/wasm_kernel.h"

#include <cstring>
#include <stdexcept>

#include "abi/launch_abi.h"
#include "runtime/device_state.h"

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

void put32(uint8_t* base, uint64_t offset, uint32_t value) { std::memcpy(base + offset, &value, 4); }
void put64(uint8_t* base, uint64_t offset, uint64_t value) { std::memcpy(base + offset, &value, 8); }

// Records a launch with a LaunchBlock of its own (abi/launch_abi.h) in a
// host-visible buffer written once: the trap record, then the block with the
// arguments and the region table.
class BlockLaunch final : public WasmLaunch {
 public:
  BlockLaunch(runtime::Kernel& kernel, runtime::Grid grid, runtime::WorkgroupSize size,
              const std::vector<runtime::Arg>& args)
      : device_(*kernel.device_state()), grid_(grid) {
    const spirv::KernelInfo& info = kernel.info();
    const std::string name = "kernel '" + info.export_name + "'";
    if (args.size() != info.params.size()) throw std::runtime_error(name + ": wrong argument count");
    if (info.stack_slot_size > 0)
      throw std::runtime_error(name + " needs a shadow stack, which the bench's launches do not provide");
    if (info.uses_instance_state) throw std::runtime_error(name + " needs instance state");
    pipeline_ = unwrap(kernel.pipeline(size.x, size.y, size.z), name);
    n_ = grid.x * size.x * grid.y * size.y * grid.z * size.z;
    struct Region {
      uint32_t base, size;
      uint64_t address;
    };
    std::vector<Region> regions;
    if (info.memory_bytes > 0)
      regions.push_back({0, uint32_t(info.memory_bytes), kernel.linear_memory()->device_address()});
    for (const auto& [base, range] : device_.mapped) regions.push_back({base, uint32_t(range.size), range.device_address});
    const uint64_t args_offset = abi::kLaunchHeaderSize;
    const uint64_t regions_offset = args_offset + uint64_t(abi::kArgSlotSize) * args.size();
    const uint64_t block_size = regions_offset + uint64_t(abi::kRegionStride) * regions.size();
    block_ = unwrap(device_.create_raw_buffer(kBlockOffset + block_size,
                                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                                  VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                              runtime::MemoryKind::Host),
                    name);
    auto* mapped = static_cast<uint8_t*>(block_.mapped);
    put32(mapped, abi::kTrapCount, 0);
    for (uint32_t kind = 0; kind < abi::kTrapKindCount; ++kind)
      put32(mapped, abi::kTrapLowestIndex + 4 * kind, abi::kNoTrapIndex);
    uint8_t* block = mapped + kBlockOffset;
    put64(block, abi::kLaunchTrapRecord, block_.address);
    put64(block, abi::kLaunchStackBase, 0);
    put32(block, abi::kLaunchStackSlotSize, 0);
    put32(block, abi::kLaunchRegionCount, uint32_t(regions.size()));
    put32(block, abi::kLaunchArgsOffset, uint32_t(args_offset));
    put32(block, abi::kLaunchRegionsOffset, uint32_t(regions_offset));
    put64(block, abi::kLaunchInstanceState, 0);
    for (size_t i = 0; i < args.size(); ++i) {
      const runtime::Arg& arg = args[i];
      uint64_t value = arg.bits();
      if (arg.kind() == runtime::Arg::Kind::Buffer) {
        if (!arg.buffer()->wasm_address()) throw std::runtime_error(name + ": a buffer has no wasm address");
        value = *arg.buffer()->wasm_address();
      }
      put64(block, args_offset + abi::kArgSlotSize * i, value);
    }
    for (size_t i = 0; i < regions.size(); ++i) {
      const uint64_t at = regions_offset + abi::kRegionStride * i;
      put32(block, at + abi::kRegionWasmBase, regions[i].base);
      put32(block, at + abi::kRegionSize, regions[i].size);
      put64(block, at + abi::kRegionDeviceAddress, regions[i].address);
    }
  }
  ~BlockLaunch() override { device_.destroy_raw_buffer(block_); }

  void record(VkCommandBuffer cmd) override {
    uint8_t push[abi::kPushConstantsSize];
    put64(push, abi::kPushLaunchBlock, block_.address + kBlockOffset);
    put32(push, abi::kPushBaseIndex, 0);
    put32(push, abi::kPushCount, n_);
    device_.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
    device_.vk.vkCmdPushConstants(cmd, device_.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                  abi::kPushConstantsSize, push);
    device_.vk.vkCmdDispatch(cmd, grid_.x, grid_.y, grid_.z);
  }

  void check_traps() override {
    uint32_t trapped = 0;
    std::memcpy(&trapped, static_cast<uint8_t*>(block_.mapped) + abi::kTrapCount, 4);
    if (trapped) throw std::runtime_error("a wasm kernel trapped in " + std::to_string(trapped) + " invocation(s)");
  }

 private:
  static constexpr uint64_t kBlockOffset = 64;
  runtime::DeviceState& device_;
  runtime::Grid grid_;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  uint32_t n_ = 0;
  runtime::RawBuffer block_;
};

}  // namespace

WasmKernel::WasmKernel(runtime::Device& device, std::span<const uint8_t> wasm, std::string export_name,
                       spirv::FloatMode mode)
    : device_(device), module_(load(device, wasm, mode, export_name)) {
  kernel_ = unwrap(module_.kernel(export_name), "compiling " + export_name);
}

WasmKernel::~WasmKernel() = default;

std::unique_ptr<WasmLaunch> WasmKernel::prepare(runtime::Grid grid, runtime::WorkgroupSize size,
                                                std::vector<runtime::Arg> args) {
  return std::make_unique<BlockLaunch>(*kernel_, grid, size, args);
}

}  // namespace wasmgpu::bench

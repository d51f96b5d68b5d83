// Kernel::launch: checks arguments, builds the LaunchBlock (abi/launch_abi.h),
// records the dispatches and reads back the trap record.
#include "runtime/launch.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "abi/launch_abi.h"
#include "runtime/device_state.h"
#include "runtime/kernel.h"
#include "runtime/vk_util.h"

namespace wasmgpu::runtime {

std::chrono::nanoseconds default_launch_timeout() {
  static const std::chrono::nanoseconds timeout = [] {
    const char* text = std::getenv("WASMGPU_LAUNCH_TIMEOUT");
    char* end = nullptr;
    double seconds = text ? std::strtod(text, &end) : 0.0;
    if (text && end != text && *end == '\0' && seconds > 0.0 && seconds < 1e9)
      return std::chrono::nanoseconds(int64_t(seconds * 1e9));
    return std::chrono::nanoseconds(std::chrono::seconds(60));
  }();
  return timeout;
}

const char* to_string(Arg::Kind kind) {
  switch (kind) {
    case Arg::Kind::I32: return "i32";
    case Arg::Kind::I64: return "i64";
    case Arg::Kind::F32: return "f32";
    case Arg::Kind::F64: return "f64";
    case Arg::Kind::Buffer: return "buffer";
  }
  return "?";
}

namespace {

// The trap record sits at the start of the launch-block buffer, the
// LaunchBlock after it.
constexpr uint64_t kLaunchBlockOffset = 64;
static_assert(abi::kTrapRecordSize <= kLaunchBlockOffset);

constexpr VkBufferUsageFlags kLaunchBlockUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
constexpr VkBufferUsageFlags kStackUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

std::string param_list(const std::vector<wasm::ValType>& params) {
  std::string text;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) text += ", ";
    text += wasm::to_string(params[i]);
  }
  return text;
}

std::string describe_mapped(const DeviceState& device, const Buffer* memory,
                            uint64_t memory_bytes) {
  std::string text = "mapped now: ";
  if (memory && memory_bytes) text += "module memory " + format_bytes(memory_bytes) + ", ";
  text += std::to_string(device.mapped.size()) + " buffer(s) reserving " +
          format_bytes(device.addresses.reserved_bytes()) + " of the " +
          format_bytes(abi::kAddressSpaceEnd - abi::kBufferAddressBase) +
          " buffer address space (largest free gap " +
          format_bytes(device.addresses.largest_free_size()) + ")";
  return text;
}

Status check_args(const Kernel& kernel, const DeviceState& device, std::span<const Arg> args) {
  const spirv::KernelInfo& info = kernel.info();
  const std::string name = "kernel '" + info.export_name + "'";
  if (args.size() != info.params.size())
    return make_error(name + " takes " + std::to_string(info.params.size()) +
                      " argument(s) after the invocation index (" + param_list(info.params) +
                      "), but " + std::to_string(args.size()) + " were given");
  for (size_t i = 0; i < args.size(); ++i) {
    const wasm::ValType expected = info.params[i];
    const Arg& arg = args[i];
    // Position counted among the kernel's parameters: the invocation index is parameter 0.
    const std::string where = name + ": argument " + std::to_string(i + 1) + " (parameter " +
                              std::to_string(i + 1) + " of the wasm function)";
    if (arg.kind() == Arg::Kind::Buffer) {
      if (expected != wasm::ValType::I32)
        return make_error(where + " is " + wasm::to_string(expected) +
                          ", but a Buffer was given (buffers are passed as i32 addresses)");
      const Buffer* buffer = arg.buffer();
      if (!buffer->device_state())
        return make_error(where + ": the Buffer was moved from");
      if (buffer->device_state() != &device)
        return make_error(where + ": the Buffer belongs to another Device");
      if (!buffer->wasm_address())
        return make_error(where + ": the " + format_bytes(buffer->size()) +
                          " Buffer has no wasm address, because it did not fit in the 32-bit "
                          "wasm address space when it was created; " +
                          describe_mapped(device, kernel.linear_memory(), info.memory_bytes));
      continue;
    }
    const bool match = (arg.kind() == Arg::Kind::I32 && expected == wasm::ValType::I32) ||
                       (arg.kind() == Arg::Kind::I64 && expected == wasm::ValType::I64) ||
                       (arg.kind() == Arg::Kind::F32 && expected == wasm::ValType::F32) ||
                       (arg.kind() == Arg::Kind::F64 && expected == wasm::ValType::F64);
    if (!match)
      return make_error(where + " is " + wasm::to_string(expected) + ", but " +
                        to_string(arg.kind()) + " was given");
  }
  return {};
}

void put32(uint8_t* base, uint64_t offset, uint32_t value) {
  std::memcpy(base + offset, &value, 4);
}
void put64(uint8_t* base, uint64_t offset, uint64_t value) {
  std::memcpy(base + offset, &value, 8);
}
uint32_t get32(const uint8_t* base, uint64_t offset) {
  uint32_t value;
  std::memcpy(&value, base + offset, 4);
  return value;
}

}  // namespace

Status Kernel::launch(uint32_t n, uint32_t workgroup_size, std::span<const Arg> args,
                      const LaunchOptions& options) {
  const uint32_t size[3] = {workgroup_size, 1, 1}, groups[3] = {0, 0, 0};
  return launch_shape(n, size, groups, args, options);
}

Status Kernel::launch(Grid grid, WorkgroupSize workgroup_size, std::span<const Arg> args,
                      const LaunchOptions& options) {
  if (!device_) return make_error("launch of a moved-from Kernel");
  const DeviceLimits& limits = device_->info.limits;
  const std::string name = "kernel '" + info_.export_name + "'";
  uint32_t size[3] = {workgroup_size.x, workgroup_size.y, workgroup_size.z};
  const uint32_t groups[3] = {grid.x, grid.y, grid.z};
  if (size[0] == 0) size[0] = std::min(kDefaultWorkgroupSize, limits.max_workgroup_invocations);
  const char* axis = "xyz";
  uint64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    if (size[d] == 0 || groups[d] == 0)
      return make_error(name + ": grid and workgroup size must be at least 1 in every dimension");
    if (groups[d] > limits.max_workgroup_count[d])
      return make_error(name + ": grid of " + std::to_string(groups[d]) + " workgroups in " + axis[d] +
                        " exceeds the device's limit of " + std::to_string(limits.max_workgroup_count[d]) +
                        " (maxComputeWorkGroupCount)");
    invocations *= uint64_t(groups[d]) * size[d];
  }
  if (invocations > 0xFFFF'FFFFull)
    return make_error(name + ": grid of " + std::to_string(invocations) +
                      " invocations exceeds the 32-bit invocation index");
  return launch_shape(uint32_t(invocations), size, groups, args, options);
}

Status Kernel::launch_shape(uint32_t n, const uint32_t size[3], const uint32_t groups[3],
                            std::span<const Arg> args, const LaunchOptions& options) {
  if (!device_) return make_error("launch of a moved-from Kernel");
  DeviceState& device = *device_;
  const std::string name = "kernel '" + info_.export_name + "'";
  WASMGPU_TRY(device.ready());
  WASMGPU_TRY(check_args(*this, device, args));

  const DeviceLimits& limits = device.info.limits;
  const uint32_t max_size = std::min(limits.max_workgroup_size[0], limits.max_workgroup_invocations);
  uint32_t workgroup_size = size[0];
  if (workgroup_size == 0) workgroup_size = std::min(kDefaultWorkgroupSize, max_size);
  if (workgroup_size > max_size && size[1] == 1 && size[2] == 1)
    return make_error(name + ": workgroup size " + std::to_string(workgroup_size) +
                      " exceeds the device's limit of " + std::to_string(max_size));
  const char* axis = "xyz";
  for (int d = 0; d < 3; ++d)
    if ((d == 0 ? workgroup_size : size[d]) > limits.max_workgroup_size[d])
      return make_error(name + ": workgroup size " + std::to_string(d == 0 ? workgroup_size : size[d]) + " in " +
                        axis[d] + " exceeds the device's limit of " + std::to_string(limits.max_workgroup_size[d]) +
                        " (maxComputeWorkGroupSize)");
  if (uint64_t(workgroup_size) * size[1] * size[2] > limits.max_workgroup_invocations)
    return make_error(name + ": workgroup of " + std::to_string(uint64_t(workgroup_size) * size[1] * size[2]) +
                      " invocations exceeds the device's limit of " +
                      std::to_string(limits.max_workgroup_invocations) + " (maxComputeWorkGroupInvocations)");
  if (info_.shared_memory_bytes > limits.max_shared_memory_bytes)
    return make_error(name + " declares " + std::to_string(info_.shared_memory_bytes) +
                      " bytes of shared memory; the device allows " +
                      std::to_string(limits.max_shared_memory_bytes) + " (maxComputeSharedMemorySize)");
  const bool is_grid = groups[0] != 0;
  if (!is_grid && info_.uses_barriers && n % workgroup_size != 0)
    return make_error(name + " uses wasmgpu_barrier, which every invocation of a workgroup must reach: n (" +
                      std::to_string(n) + ") must be a multiple of the workgroup size (" +
                      std::to_string(workgroup_size) + "), or launch a Grid of workgroups");
  if (n == 0) return {};
  WASMGPU_ASSIGN_OR_RETURN(VkPipeline pipeline, this->pipeline(workgroup_size, size[1], size[2]));

  // Invocations per dispatch: bounded by the workgroup-count limit and, for
  // kernels with a shadow stack, by the stack slots allocated.
  uint64_t per_dispatch = is_grid ? uint64_t(n) : uint64_t(limits.max_workgroup_count[0]) * workgroup_size;
  const uint64_t slot = info_.stack_slot_size;
  if (slot > 0 && is_grid) {  // a grid is one dispatch: one slot per invocation
    if (uint64_t(n) * slot > kStackBudgetBytes)
      return make_error(name + " needs " + std::to_string(slot) + " bytes of stack per invocation; a grid of " +
                        std::to_string(n) + " invocations exceeds the stack budget of " +
                        std::to_string(kStackBudgetBytes >> 20) + " MiB (use a 1-D launch, which is split)");
    WASMGPU_TRY(device.ensure_raw_buffer(device.stacks, uint64_t(n) * slot, kStackUsage, MemoryKind::Device));
  } else if (slot > 0) {
    uint64_t slots = std::max<uint64_t>(kStackBudgetBytes / slot / workgroup_size, 1) *
                     workgroup_size;
    slots = std::min(slots, round_up(n, workgroup_size));
    per_dispatch = std::min(per_dispatch, slots);
    WASMGPU_TRY(device.ensure_raw_buffer(device.stacks, slots * slot, kStackUsage,
                                         MemoryKind::Device));
  }

  // Region table: the module's memory at 0, then every buffer with a wasm
  // address (sorted by address), so that pointers stored in memory work.
  struct Region {
    uint32_t base;
    uint32_t size;
    uint64_t address;
  };
  std::vector<Region> regions;
  if (info_.memory_bytes > 0)
    regions.push_back({0, uint32_t(info_.memory_bytes), memory_->device_address()});
  for (const auto& [base, range] : device.mapped)
    regions.push_back({base, uint32_t(range.size), range.device_address});

  const uint64_t args_offset = abi::kLaunchHeaderSize;
  const uint64_t param_regions_offset = args_offset + uint64_t(abi::kArgSlotSize) * args.size();
  const uint64_t regions_offset = param_regions_offset + uint64_t(abi::kParamRegionStride) * args.size();
  const uint64_t block_size = regions_offset + uint64_t(abi::kRegionStride) * regions.size();
  WASMGPU_TRY(device.ensure_raw_buffer(device.launch_block, kLaunchBlockOffset + block_size,
                                       kLaunchBlockUsage, MemoryKind::Host));

  // Host writes before vkQueueSubmit are visible to the submitted work.
  auto* mapped = static_cast<uint8_t*>(device.launch_block.mapped);
  const VkDeviceAddress trap_address = device.launch_block.address;
  const VkDeviceAddress block_address = device.launch_block.address + kLaunchBlockOffset;
  put32(mapped, abi::kTrapCount, 0);
  for (uint32_t kind = 0; kind < abi::kTrapKindCount; ++kind)
    put32(mapped, abi::kTrapLowestIndex + 4 * kind, abi::kNoTrapIndex);
  uint8_t* block = mapped + kLaunchBlockOffset;
  put64(block, abi::kLaunchTrapRecord, trap_address);
  put64(block, abi::kLaunchStackBase, slot > 0 ? device.stacks.address : 0);
  put32(block, abi::kLaunchStackSlotSize, uint32_t(slot));
  put32(block, abi::kLaunchRegionCount, uint32_t(regions.size()));
  put32(block, abi::kLaunchArgsOffset, uint32_t(args_offset));
  put32(block, abi::kLaunchRegionsOffset, uint32_t(regions_offset));
  put64(block, abi::kLaunchInstanceState, instance_state_);
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& arg = args[i];
    const uint64_t value = arg.kind() == Arg::Kind::Buffer ? *arg.buffer()->wasm_address()
                                                           : arg.bits();
    put64(block, args_offset + abi::kArgSlotSize * i, value);
  }
  // ParamRegions: the buffer each pointer argument points into, so that
  // accesses proven to derive from it skip the region-table scan.
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& arg = args[i];
    std::optional<uint32_t> value;
    if (arg.kind() == Arg::Kind::Buffer) value = *arg.buffer()->wasm_address();
    if (arg.kind() == Arg::Kind::I32) value = uint32_t(arg.bits());
    uint64_t base = abi::kNoParamRegion, size = abi::kParamRegionMinSize, address = 0;
    const auto region = std::find_if(regions.begin(), regions.end(), [&](const Region& r) {
      return value && r.base >= abi::kBufferAddressBase && *value >= r.base &&
             *value <= uint64_t(r.base) + r.size;
    });
    if (region != regions.end() && *value % abi::kParamRegionAlignment == 0 &&
        region->size >= abi::kParamRegionMinSize) {
      base = region->base;
      size = region->size;
      address = region->address;
    }
    const uint64_t at = param_regions_offset + abi::kParamRegionStride * i;
    put64(block, at + abi::kParamRegionWasmBase, base);
    put64(block, at + abi::kParamRegionSize, size);
    put64(block, at + abi::kParamRegionDeviceAddress, address);
  }
  for (size_t i = 0; i < regions.size(); ++i) {
    const uint64_t at = regions_offset + abi::kRegionStride * i;
    put32(block, at + abi::kRegionWasmBase, regions[i].base);
    put32(block, at + abi::kRegionSize, regions[i].size);
    put64(block, at + abi::kRegionDeviceAddress, regions[i].address);
  }

  WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, device.begin());
  // Earlier uploads and launches before this one's shader accesses.
  memory_barrier(device, cmd,
                 VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  device.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  for (uint64_t base = 0; base < n; base += per_dispatch) {
    if (base > 0 && slot > 0)  // the next dispatch reuses the stack slots
      memory_barrier(device, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const uint64_t count = std::min<uint64_t>(per_dispatch, n - base);
    uint8_t push[abi::kPushConstantsSize];
    put64(push, abi::kPushLaunchBlock, block_address);
    put32(push, abi::kPushBaseIndex, uint32_t(base));
    put32(push, abi::kPushCount, n);
    device.vk.vkCmdPushConstants(cmd, device.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                 abi::kPushConstantsSize, push);
    if (is_grid)
      device.vk.vkCmdDispatch(cmd, groups[0], groups[1], groups[2]);
    else
      device.vk.vkCmdDispatch(cmd, uint32_t((count + workgroup_size - 1) / workgroup_size), 1, 1);
  }
  // Results and the trap record become visible to the host (and to later work).
  memory_barrier(device, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  WASMGPU_TRY(device.submit_and_wait(name, options.timeout));

  const uint32_t trapped = get32(mapped, abi::kTrapCount);
  if (trapped == 0 || !options.fail_on_trap) return {};
  uint32_t lowest = abi::kNoTrapIndex;
  uint32_t lowest_kind = 0;
  for (uint32_t kind = 0; kind < abi::kTrapKindCount; ++kind) {
    const uint32_t index = get32(mapped, abi::kTrapLowestIndex + 4 * kind);
    if (index < lowest) {
      lowest = index;
      lowest_kind = kind;
    }
  }
  std::string message = name + " trapped: ";
  if (lowest == abi::kNoTrapIndex)
    message += "trap of unknown kind";
  else
    message += std::string(abi::to_string(abi::TrapKind(lowest_kind))) + " at invocation " +
               std::to_string(lowest);
  message += " (" + std::to_string(trapped) +
             (trapped == 1 ? " invocation trapped)" : " invocations trapped)");
  return make_error(message);
}

}  // namespace wasmgpu::runtime

// Kernel::launch and Kernel::record: check arguments and the shape, build the
// LaunchBlock (abi/launch_abi.h) in a LaunchArena, record the dispatches; a
// launch then submits, waits and reads back the trap record.
#include "runtime/launch.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "abi/image_abi.h"
#include "abi/launch_abi.h"
#include "abi/launch_proof.h"
#include "runtime/bindless.h"
#include "runtime/device_state.h"
#include "runtime/kernel.h"
#include "runtime/launch_arena.h"
#include "runtime/recorded_launch.h"
#include "runtime/vk_util.h"
#include "support/environment.h"
#include "support/host_clock.h"

namespace wasmgpu::runtime {

std::chrono::nanoseconds default_launch_timeout() {
  static const std::chrono::nanoseconds timeout =
      environment::launch_timeout().value_or(std::chrono::nanoseconds(std::chrono::seconds(60)));
  return timeout;
}

const char* to_string(Arg::Kind kind) {
  switch (kind) {
    case Arg::Kind::I32: return "i32";
    case Arg::Kind::I64: return "i64";
    case Arg::Kind::F32: return "f32";
    case Arg::Kind::F64: return "f64";
    case Arg::Kind::Buffer: return "buffer";
    case Arg::Kind::Image: return "image";
    case Arg::Kind::Sampler: return "sampler";
  }
  return "?";
}

// Fills RecordedLaunch's private members.
struct LaunchRecorder {
  static RecordedLaunch make(const spirv::KernelInfo& info, const DeviceState& device) {
    RecordedLaunch launch;
    launch.kernel_name_ = info.export_name;
    launch.params_ = info.params;
    launch.device_ = &device;
    launch.push_layout_ = abi::push_layout(spirv::push_arg_widths(info.params));
    return launch;
  }
  static void place(RecordedLaunch& launch, uint8_t* trap_record, uint8_t* arg_slots, uint64_t block_address,
                    uint64_t memory_address, uint32_t invocations, bool uses_stacks) {
    launch.trap_record_ = trap_record;
    launch.arg_slots_ = arg_slots;
    launch.block_address_ = block_address;
    launch.memory_address_ = memory_address;
    launch.invocations_ = invocations;
    launch.uses_stacks_ = uses_stacks;
  }
  // `proven`: the pipeline relies on the arguments (abi::kSpecProvenParams).
  static void set_recorded_push(RecordedLaunch& launch, const std::array<uint8_t, abi::kPushConstantsSize>& push,
                                bool proven) {
    launch.recorded_push_ = push;
    launch.recorded_args_.clear();
    if (proven && launch.arg_slots_)
      launch.recorded_args_.assign(launch.arg_slots_, launch.arg_slots_ + abi::kArgSlotSize * launch.params_.size());
  }
  static void set_dispatches(RecordedLaunch& launch, uint32_t dispatches) { launch.dispatches_ = dispatches; }
};

namespace {

// The trap record sits at the start of the launch-block buffer, the
// LaunchBlock after it.
constexpr uint64_t kLaunchBlockOffset = 128;
static_assert(abi::kTrapRecordWithClocksSize <= kLaunchBlockOffset);

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

std::string describe_mapped(const DeviceState& device, const Buffer* memory, uint64_t memory_bytes) {
  std::string text = "mapped now: ";
  if (memory && memory_bytes) text += "module memory " + format_bytes(memory_bytes) + ", ";
  text += std::to_string(device.mapped.size()) + " buffer(s) reserving " +
          format_bytes(device.addresses.reserved_bytes()) + " of the " +
          format_bytes(abi::kAddressSpaceEnd - abi::kBufferAddressBase) + " buffer address space (largest free gap " +
          format_bytes(device.addresses.largest_free_size()) + ")";
  return text;
}

Status check_args(const Kernel& kernel, const DeviceState& device, std::span<const Arg> args) {
  const spirv::KernelInfo& info = kernel.info();
  const std::string name = "kernel '" + info.export_name + "'";
  if (args.size() != info.params.size())
    return make_error(ErrorCode::InvalidArgument, name + " takes " + std::to_string(info.params.size()) +
                                                      " argument(s) after the invocation index (" +
                                                      param_list(info.params) + "), but " +
                                                      std::to_string(args.size()) + " were given");
  for (size_t i = 0; i < args.size(); ++i) {
    const wasm::ValType expected = info.params[i];
    const Arg& arg = args[i];
    // Position counted among the kernel's parameters: the invocation index is parameter 0.
    const std::string where = name + ": argument " + std::to_string(i + 1) + " (parameter " + std::to_string(i + 1) +
                              " of the wasm function)";
    if (arg.kind() == Arg::Kind::Buffer) {
      if (expected != wasm::ValType::I32)
        return make_error(ErrorCode::InvalidArgument,
                          where + " is " + wasm::to_string(expected) +
                              ", but a Buffer was given (buffers are passed as i32 addresses)");
      const Buffer* buffer = arg.buffer();
      if (!buffer->device_state()) return make_error(ErrorCode::InvalidArgument, where + ": the Buffer was moved from");
      if (buffer->device_state() != &device)
        return make_error(ErrorCode::InvalidArgument, where + ": the Buffer belongs to another Device");
      if (!buffer->wasm_address())
        return make_error(ErrorCode::InvalidArgument,
                          where + ": the " + format_bytes(buffer->size()) +
                              " Buffer has no wasm address, because it did not fit in the 32-bit "
                              "wasm address space when it was created; " +
                              describe_mapped(device, kernel.linear_memory(), info.memory_bytes));
      continue;
    }
    if (arg.kind() == Arg::Kind::Image || arg.kind() == Arg::Kind::Sampler) {
      const char* what = arg.kind() == Arg::Kind::Image ? "an Image" : "a Sampler";
      if (expected != wasm::ValType::I32)
        return make_error(ErrorCode::InvalidArgument, where + " is " + wasm::to_string(expected) + ", but " + what +
                                                          " was given (images and samplers are passed as i32 handles)");
      const DeviceState* owner =
          arg.kind() == Arg::Kind::Image ? arg.image()->device_state() : arg.sampler()->device_state();
      if (!owner) return make_error(ErrorCode::InvalidArgument, where + ": " + what + " was moved from");
      if (owner != &device)
        return make_error(ErrorCode::InvalidArgument, where + ": " + what + " belongs to another Device");
      continue;
    }
    const bool match = (arg.kind() == Arg::Kind::I32 && expected == wasm::ValType::I32) ||
                       (arg.kind() == Arg::Kind::I64 && expected == wasm::ValType::I64) ||
                       (arg.kind() == Arg::Kind::F32 && expected == wasm::ValType::F32) ||
                       (arg.kind() == Arg::Kind::F64 && expected == wasm::ValType::F64);
    if (!match)
      return make_error(ErrorCode::InvalidArgument,
                        where + " is " + wasm::to_string(expected) + ", but " + to_string(arg.kind()) + " was given");
  }
  return {};
}

void put32(uint8_t* base, uint64_t offset, uint32_t value) { std::memcpy(base + offset, &value, 4); }
void put64(uint8_t* base, uint64_t offset, uint64_t value) { std::memcpy(base + offset, &value, 8); }
uint32_t get32(const uint8_t* base, uint64_t offset) {
  uint32_t value;
  std::memcpy(&value, base + offset, 4);
  return value;
}

// The mapped buffer an argument's i32 value points into, as its ParamRegion
// (abi/launch_abi.h) describes it: none when the value is not 16-aligned or
// the buffer is smaller than kParamRegionMinSize.
struct ParamBuffer {
  uint64_t wasm_base = 0, size = 0, device_address = 0;
};
std::optional<ParamBuffer> param_buffer(const DeviceState& device, uint32_t value) {
  if (value % abi::kParamRegionAlignment != 0) return std::nullopt;
  for (const auto& [start, range] : device.mapped) {
    if (start < abi::kBufferAddressBase || value < start || value > uint64_t(start) + range.size) continue;
    if (range.size < abi::kParamRegionMinSize) return std::nullopt;
    return ParamBuffer{start, range.size, range.device_address};
  }
  return std::nullopt;
}

// The kernel parameters whose recorded accesses this launch keeps inside
// their buffers (abi/launch_proof.h): its abi::kSpecProvenParams.
uint32_t proven_params(const spirv::KernelInfo& info, const DeviceState& device, const LaunchShape& shape, uint32_t n,
                       const uint32_t size[3], std::span<const Arg> args) {
  if (info.launch_proof.accesses.empty()) return 0;
  abi::LaunchRanges ranges;
  ranges.count = n;
  ranges.grid = shape.grid.has_value();
  for (int d = 0; d < 3; ++d) ranges.workgroup_size[d] = size[d];
  if (shape.grid) {
    ranges.workgroups[0] = shape.grid->x, ranges.workgroups[1] = shape.grid->y, ranges.workgroups[2] = shape.grid->z;
  } else {
    ranges.workgroups[0] = uint32_t((uint64_t(n) + size[0] - 1) / size[0]);
  }
  std::vector<uint64_t> values(args.size());
  std::vector<std::optional<abi::ProvenRegion>> regions(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& arg = args[i];
    const bool buffer = arg.kind() == Arg::Kind::Buffer;
    if (buffer && !arg.buffer()->wasm_address()) continue;
    values[i] = buffer ? *arg.buffer()->wasm_address() : arg.bits();
    if (!buffer && arg.kind() != Arg::Kind::I32) continue;
    if (std::optional<ParamBuffer> found = param_buffer(device, uint32_t(values[i])))
      regions[i] = abi::ProvenRegion{found->wasm_base, found->size, found->device_address};
  }
  return abi::proven_params(info.launch_proof, ranges, values, regions);
}

// What the checks of a launch decided, for recording it.
struct Prepared {
  uint32_t n = 0;
  uint32_t size[3] = {0, 1, 1};    // workgroup size
  uint32_t groups[3] = {0, 0, 0};  // non-zero for a grid
  bool is_grid = false;
  uint64_t per_dispatch = 0;  // invocations per dispatch (1-D)
  uint64_t slot = 0;          // stack slot bytes, 0 without stacks
  uint32_t proven = 0;        // abi::kSpecProvenParams of the pipeline
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;  // Kernel::pipeline_layout()
  bool uses_images = false;                  // bind the bindless set 0
};

// Every check of a launch, the pipeline, and stacks large enough; records nothing.
Result<Prepared> prepare(Kernel& kernel, DeviceState& device, const LaunchShape& shape, std::span<const Arg> args) {
  const spirv::KernelInfo& info = kernel.info();
  const DeviceLimits& limits = device.info.limits;
  const std::string name = "kernel '" + info.export_name + "'";
  WASMGPU_TRY(device.ready());
  Prepared p;
  p.size[0] = shape.workgroup_size.x;
  p.size[1] = shape.workgroup_size.y;
  p.size[2] = shape.workgroup_size.z;
  const char* axis = "xyz";
  if (shape.grid) {
    p.is_grid = true;
    p.groups[0] = shape.grid->x;
    p.groups[1] = shape.grid->y;
    p.groups[2] = shape.grid->z;
    if (p.size[0] == 0) p.size[0] = std::min(kDefaultWorkgroupSize, limits.max_workgroup_invocations);
    uint64_t invocations = 1;
    for (int d = 0; d < 3; ++d) {
      if (p.size[d] == 0 || p.groups[d] == 0)
        return make_error(ErrorCode::InvalidArgument,
                          name + ": grid and workgroup size must be at least 1 in every dimension");
      if (p.groups[d] > limits.max_workgroup_count[d])
        return make_error(ErrorCode::InvalidArgument,
                          name + ": grid of " + std::to_string(p.groups[d]) + " workgroups in " + axis[d] +
                              " exceeds the device's limit of " + std::to_string(limits.max_workgroup_count[d]) +
                              " (maxComputeWorkGroupCount)");
      invocations *= uint64_t(p.groups[d]) * p.size[d];
    }
    if (invocations > 0xFFFF'FFFFull)
      return make_error(ErrorCode::InvalidArgument, name + ": grid of " + std::to_string(invocations) +
                                                        " invocations exceeds the 32-bit invocation index");
    p.n = uint32_t(invocations);
  } else {
    p.n = shape.n;
    p.size[1] = p.size[2] = 1;
  }
  if (p.n > 1 && !kernel.shared_global_write().empty())
    return make_error(ErrorCode::Unsupported,
                      name + " may write the mutable " + kernel.shared_global_write() +
                          ", which every invocation of a launch shares: a launch of " + std::to_string(p.n) +
                          " invocations could lose updates to it and is refused (one invocation at a time "
                          "writes the instance's value; docs/memory-model.md, \"Globals\")");
  WASMGPU_TRY(check_args(kernel, device, args));

  const uint32_t max_size = std::min(limits.max_workgroup_size[0], limits.max_workgroup_invocations);
  if (p.size[0] == 0) p.size[0] = std::min(kDefaultWorkgroupSize, max_size);
  const uint32_t workgroup_size = p.size[0];
  if (workgroup_size > max_size && p.size[1] == 1 && p.size[2] == 1)
    return make_error(ErrorCode::InvalidArgument, name + ": workgroup size " + std::to_string(workgroup_size) +
                                                      " exceeds the device's limit of " + std::to_string(max_size));
  for (int d = 0; d < 3; ++d)
    if (p.size[d] > limits.max_workgroup_size[d])
      return make_error(ErrorCode::InvalidArgument, name + ": workgroup size " + std::to_string(p.size[d]) + " in " +
                                                        axis[d] + " exceeds the device's limit of " +
                                                        std::to_string(limits.max_workgroup_size[d]) +
                                                        " (maxComputeWorkGroupSize)");
  const uint64_t group_invocations = uint64_t(p.size[0]) * p.size[1] * p.size[2];
  if (group_invocations > limits.max_workgroup_invocations)
    return make_error(ErrorCode::InvalidArgument, name + ": workgroup of " + std::to_string(group_invocations) +
                                                      " invocations exceeds the device's limit of " +
                                                      std::to_string(limits.max_workgroup_invocations) +
                                                      " (maxComputeWorkGroupInvocations)");
  if (info.shared_memory_bytes > limits.max_shared_memory_bytes)
    return make_error(ErrorCode::InvalidArgument, name + " declares " + std::to_string(info.shared_memory_bytes) +
                                                      " bytes of shared memory; the device allows " +
                                                      std::to_string(limits.max_shared_memory_bytes) +
                                                      " (maxComputeSharedMemorySize)");
  if (!p.is_grid && info.uses_barriers && p.n % workgroup_size != 0)
    return make_error(ErrorCode::InvalidArgument,
                      name + " uses wasmgpu_barrier, which every invocation of a workgroup must reach: n (" +
                          std::to_string(p.n) + ") must be a multiple of the workgroup size (" +
                          std::to_string(workgroup_size) + "), or launch a Grid of workgroups");
  if (p.n == 0) return p;
  // A 1-D launch's invocations extend over x only; a grid's as far as its
  // extent. A grid runs exactly its invocations; a 1-D launch's last
  // workgroup (its dispatches hold whole workgroups) may run past n.
  const uint32_t index_dims =
      p.is_grid ? abi::index_dims(uint64_t(p.groups[1]) * p.size[1], uint64_t(p.groups[2]) * p.size[2]) : 1;
  const bool may_overrun = !p.is_grid && p.n % workgroup_size != 0;
  p.proven = proven_params(info, device, shape, p.n, p.size, args);
  WASMGPU_ASSIGN_OR_RETURN(p.pipeline,
                           kernel.pipeline(workgroup_size, p.size[1], p.size[2], index_dims, may_overrun, p.proven));
  p.layout = kernel.pipeline_layout();
  p.uses_images = info.uses_images;

  // Invocations per dispatch: bounded by the workgroup-count limit and, for
  // kernels with a shadow stack, by the stack slots allocated.
  p.per_dispatch = p.is_grid ? uint64_t(p.n) : uint64_t(limits.max_workgroup_count[0]) * workgroup_size;
  p.slot = info.stack_slot_size;
  uint64_t stack_bytes = 0;
  if (p.slot > 0 && p.is_grid) {  // a grid is one dispatch: one slot per invocation
    if (uint64_t(p.n) * p.slot > kStackBudgetBytes)
      return make_error(ErrorCode::InvalidArgument,
                        name + " needs " + std::to_string(p.slot) + " bytes of stack per invocation; a grid of " +
                            std::to_string(p.n) + " invocations exceeds the stack budget of " +
                            std::to_string(kStackBudgetBytes >> 20) + " MiB (use a 1-D launch, which is split)");
    stack_bytes = uint64_t(p.n) * p.slot;
  } else if (p.slot > 0) {
    uint64_t slots = std::max<uint64_t>(kStackBudgetBytes / p.slot / workgroup_size, 1) * workgroup_size;
    slots = std::min(slots, round_up(p.n, workgroup_size));
    p.per_dispatch = std::min(p.per_dispatch, slots);
    stack_bytes = slots * p.slot;
  }
  if (stack_bytes > 0 && (!device.stacks || device.stacks->raw.size < stack_bytes)) {
    // Launches recorded earlier keep the old stacks alive through their arenas.
    device.stacks.reset();
    WASMGPU_ASSIGN_OR_RETURN(RawBuffer raw, device.create_raw_buffer(stack_bytes, kStackUsage, MemoryKind::Device));
    device.stacks = std::make_shared<SharedRawBuffer>(&device, raw);
  }
  return p;
}

// Allocates and fills the trap record and LaunchBlock of a prepared launch.
Result<RecordedLaunch> write_launch_block(Kernel& kernel, DeviceState& device, const Prepared& p,
                                          std::span<const Arg> args, LaunchArena& arena,
                                          VkDeviceAddress& block_address) {
  const spirv::KernelInfo& info = kernel.info();
  // Region table: the module's memory at 0, then every buffer with a wasm
  // address (sorted by address), so that pointers stored in memory work.
  struct Region {
    uint32_t base;
    uint32_t size;
    uint64_t address;
  };
  std::vector<Region> regions;
  if (info.memory_bytes > 0)
    regions.push_back({0, uint32_t(info.memory_bytes), kernel.linear_memory()->device_address()});
  for (const auto& [base, range] : device.mapped) regions.push_back({base, uint32_t(range.size), range.device_address});

  const uint64_t args_offset = abi::kLaunchHeaderSize;
  // The argument slots, then one ParamRegion per argument (set_arg fills both).
  const uint64_t regions_offset = args_offset + uint64_t(abi::kArgSlotSize + abi::kParamRegionStride) * args.size();
  const uint64_t block_size =
      std::max<uint64_t>(regions_offset + uint64_t(abi::kRegionStride) * regions.size(), abi::kLaunchBlockMinSize);
  WASMGPU_ASSIGN_OR_RETURN(LaunchArena::Allocation at, arena.allocate(kLaunchBlockOffset + block_size));

  // Host writes before vkQueueSubmit are visible to the submitted work.
  uint8_t* mapped = at.host;
  const VkDeviceAddress trap_address = at.address;
  block_address = at.address + kLaunchBlockOffset;
  uint8_t* block = mapped + kLaunchBlockOffset;
  put64(block, abi::kLaunchTrapRecord, trap_address);
  put64(block, abi::kLaunchStackBase, p.slot > 0 ? device.stacks->raw.address : 0);
  put32(block, abi::kLaunchStackSlotSize, uint32_t(p.slot));
  put32(block, abi::kLaunchRegionCount, uint32_t(regions.size()));
  put32(block, abi::kLaunchArgsOffset, uint32_t(args_offset));
  put32(block, abi::kLaunchRegionsOffset, uint32_t(regions_offset));
  put64(block, abi::kLaunchInstanceState, kernel.instance_state());
  for (size_t i = 0; i < regions.size(); ++i) {
    const uint64_t region = regions_offset + abi::kRegionStride * i;
    put32(block, region + abi::kRegionWasmBase, regions[i].base);
    put32(block, region + abi::kRegionSize, regions[i].size);
    put64(block, region + abi::kRegionDeviceAddress, regions[i].address);
  }
  if (p.slot > 0) arena.keep(device.stacks);

  RecordedLaunch launch = LaunchRecorder::make(info, device);
  LaunchRecorder::place(launch, mapped, block + args_offset, block_address,
                        info.memory_bytes > 0 ? regions[0].address : 0, p.n, p.slot > 0);
  launch.reset_trap();
  for (size_t i = 0; i < args.size(); ++i) WASMGPU_TRY(launch.set_arg(i, args[i]));
  return launch;
}

// Records the barriers and dispatches of a prepared launch; returns the
// number of dispatches.
uint32_t record_commands(DeviceState& device, VkCommandBuffer cmd, const Prepared& p, RecordedLaunch& launch,
                         const RecordOptions& options) {
  constexpr VkAccessFlags kShaderAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  if (options.barrier_before) {
    // Earlier uploads and launches before this one's shader accesses.
    memory_barrier(device, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   kShaderAccess);
  } else if (p.slot > 0) {
    // Another launch may have used the stacks just before (WAR/WAW).
    VkBufferMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.srcAccessMask = kShaderAccess;
    barrier.dstAccessMask = kShaderAccess;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = device.stacks->raw.buffer;
    barrier.offset = 0;
    barrier.size = VK_WHOLE_SIZE;
    device.vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                                   0, nullptr, 1, &barrier, 0, nullptr);
  }
  device.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  if (p.uses_images)  // the bindless set of images and samplers (bindless.h)
    device.vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, abi::kImageSet, 1,
                                      &device.bindless->set, 0, nullptr);
  // Every dispatch pushes the same bytes but for its base_index.
  std::array<uint8_t, abi::kPushConstantsSize> push = launch.push_constants();
  LaunchRecorder::set_recorded_push(launch, push, p.proven != 0);
  uint32_t dispatches = 0;
  for (uint64_t base = 0; base < p.n; base += p.per_dispatch) {
    if (base > 0 && p.slot > 0)  // the next dispatch reuses the stack slots
      memory_barrier(device, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, kShaderAccess,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, kShaderAccess);
    const uint64_t count = std::min<uint64_t>(p.per_dispatch, p.n - base);
    put32(push.data(), abi::kPushBaseIndex, uint32_t(base));
    device.vk.vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, abi::kPushConstantsSize, push.data());
    if (p.is_grid)
      device.vk.vkCmdDispatch(cmd, p.groups[0], p.groups[1], p.groups[2]);
    else
      device.vk.vkCmdDispatch(cmd, uint32_t((count + p.size[0] - 1) / p.size[0]), 1, 1);
    ++dispatches;
  }
  if (options.host_barrier_after)
    // Results and the trap record become visible to the host (and to later work).
    memory_barrier(device, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  return dispatches;
}

}  // namespace

// -------------------------------------------------------------- RecordedLaunch

std::optional<TrapReport> RecordedLaunch::trap() const {
  if (!trap_record_) return std::nullopt;
  const uint32_t trapped = get32(trap_record_, abi::kTrapCount);
  if (trapped == 0) return std::nullopt;
  TrapReport report;
  report.trapped_invocations = trapped;
  for (uint32_t kind = 0; kind < abi::kTrapKindCount; ++kind) {
    const uint32_t index = get32(trap_record_, abi::kTrapLowestIndex + 4 * kind);
    if (index < report.invocation) {
      report.invocation = index;
      report.kind = abi::TrapKind(kind);
    }
  }
  // Only shaders compiled with trap sites claim the site words.
  if (get32(trap_record_, abi::kTrapSiteClaimed) != 0) {
    report.site = get32(trap_record_, abi::kTrapSiteOffset);
    report.site_invocation = get32(trap_record_, abi::kTrapSiteInvocation);
    report.access_address = uint64_t(get32(trap_record_, abi::kTrapSiteAddressLow)) |
                            uint64_t(get32(trap_record_, abi::kTrapSiteAddressHigh)) << 32;
    report.access_bytes = get32(trap_record_, abi::kTrapSiteAccessBytes);
  }
  return report;
}

void RecordedLaunch::reset_trap() {
  if (!trap_record_) return;
  put32(trap_record_, abi::kTrapCount, 0);
  for (uint32_t kind = 0; kind < abi::kTrapKindCount; ++kind)
    put32(trap_record_, abi::kTrapLowestIndex + 4 * kind, abi::kNoTrapIndex);
  put32(trap_record_, abi::kTrapSiteClaimed, 0);
  put64(trap_record_, abi::kHostClockRealtime, host_clock_ns(CLOCK_REALTIME));
  put64(trap_record_, abi::kHostClockMonotonic, host_clock_ns(CLOCK_MONOTONIC));
}

namespace {

// The ParamRegion (abi/launch_abi.h) of an argument whose i32 value is
// `value` (nullopt for other types): the mapped buffer it points into, so
// that accesses the compiler proved to derive from it skip the region-table
// scan; kNoParamRegion when there is none, or the value is not 16-aligned.
void put_param_region(uint8_t* at, const DeviceState& device, std::optional<uint32_t> value) {
  std::optional<ParamBuffer> buffer = value ? param_buffer(device, *value) : std::nullopt;
  put64(at, abi::kParamRegionWasmBase, buffer ? buffer->wasm_base : abi::kNoParamRegion);
  put64(at, abi::kParamRegionSize, buffer ? buffer->size : abi::kParamRegionMinSize);
  put64(at, abi::kParamRegionDeviceAddress, buffer ? buffer->device_address : 0);
}

}  // namespace

Status RecordedLaunch::set_arg(size_t index, const Arg& arg) {
  const std::string name = "kernel '" + kernel_name_ + "'";
  if (index >= params_.size())
    return make_error(ErrorCode::InvalidArgument, name + " has " + std::to_string(params_.size()) +
                                                      " argument(s) after the invocation index; there is no argument " +
                                                      std::to_string(index + 1));
  const wasm::ValType expected = params_[index];
  uint64_t value = arg.bits();
  if (arg.kind() == Arg::Kind::Buffer) {
    const Buffer* buffer = arg.buffer();
    if (expected != wasm::ValType::I32 || !buffer->device_state() || buffer->device_state() != device_ ||
        !buffer->wasm_address())
      return make_error(ErrorCode::InvalidArgument,
                        name + ": argument " + std::to_string(index + 1) +
                            " cannot be replaced by this Buffer (moved from, of another Device, "
                            "without a wasm address, or not an i32 parameter)");
    value = *buffer->wasm_address();
  } else if (arg.kind() == Arg::Kind::Image || arg.kind() == Arg::Kind::Sampler) {
    const bool image = arg.kind() == Arg::Kind::Image;
    const DeviceState* owner = image ? arg.image()->device_state() : arg.sampler()->device_state();
    if (expected != wasm::ValType::I32 || !owner || owner != device_)
      return make_error(ErrorCode::InvalidArgument, name + ": argument " + std::to_string(index + 1) +
                                                        " cannot be replaced by this " + (image ? "Image" : "Sampler") +
                                                        " (moved from, of another Device, or not an i32 parameter)");
    value = image ? arg.image()->handle() : arg.sampler()->handle();
  } else {
    const bool match = (arg.kind() == Arg::Kind::I32 && expected == wasm::ValType::I32) ||
                       (arg.kind() == Arg::Kind::I64 && expected == wasm::ValType::I64) ||
                       (arg.kind() == Arg::Kind::F32 && expected == wasm::ValType::F32) ||
                       (arg.kind() == Arg::Kind::F64 && expected == wasm::ValType::F64);
    if (!match)
      return make_error(ErrorCode::InvalidArgument, name + ": argument " + std::to_string(index + 1) + " is " +
                                                        wasm::to_string(expected) + ", but " + to_string(arg.kind()) +
                                                        " was given");
  }
  if (arg_slots_) {
    put64(arg_slots_, abi::kArgSlotSize * index, value);
    // The ParamRegions follow the argument slots, one per argument.
    const bool pointer = arg.kind() == Arg::Kind::Buffer || arg.kind() == Arg::Kind::I32;
    put_param_region(arg_slots_ + abi::kArgSlotSize * params_.size() + abi::kParamRegionStride * index, *device_,
                     pointer ? std::optional<uint32_t>(uint32_t(value)) : std::nullopt);
  }
  return {};
}

std::array<uint8_t, abi::kPushConstantsSize> RecordedLaunch::push_constants() const {
  std::array<uint8_t, abi::kPushConstantsSize> push{};
  put64(push.data(), abi::kPushLaunchBlock, block_address_);
  put32(push.data(), abi::kPushCount, invocations_);
  put64(push.data(), abi::kPushMemoryAddress, memory_address_);
  if (!arg_slots_) return push;
  const uint8_t* regions = arg_slots_ + abi::kArgSlotSize * params_.size();
  for (size_t i = 0; i < params_.size(); ++i) {
    const bool wide = params_[i] == wasm::ValType::I64 || params_[i] == wasm::ValType::F64;
    if (push_layout_.value[i])
      std::memcpy(push.data() + *push_layout_.value[i], arg_slots_ + abi::kArgSlotSize * i, wide ? 8 : 4);
    if (push_layout_.region[i])
      std::memcpy(push.data() + *push_layout_.region[i], regions + abi::kParamRegionStride * i,
                  abi::kParamRegionStride);
  }
  return push;
}

bool RecordedLaunch::push_copy_current() const {
  // A pipeline chosen for its arguments' proofs holds only for them.
  if (!recorded_args_.empty() &&
      (!arg_slots_ || std::memcmp(arg_slots_, recorded_args_.data(), recorded_args_.size()) != 0))
    return false;
  // Both leave base_index 0: each dispatch sets its own.
  return push_constants() == recorded_push_;
}

std::string trap_message(const std::string& kernel_name, const TrapReport& report) {
  std::string message = "kernel '" + kernel_name + "' trapped: ";
  if (!report.kind)
    message += "trap of unknown kind";
  else
    message += std::string(abi::to_string(*report.kind)) + " at invocation " + std::to_string(report.invocation);
  message += " (" + std::to_string(report.trapped_invocations) +
             (report.trapped_invocations == 1 ? " invocation trapped)" : " invocations trapped)");
  return message;
}

Status read_trap(const RecordedLaunch& launch) {
  std::optional<TrapReport> report = launch.trap();
  if (!report) return {};
  return make_error(ErrorCode::Trap, trap_message(launch.kernel_name(), *report));
}

void record_host_read_barrier(DeviceState& device, VkCommandBuffer cmd) {
  memory_barrier(device, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_HOST_READ_BIT);
}

// ---------------------------------------------------------------------- Kernel

Status Kernel::launch(uint32_t n, uint32_t workgroup_size, std::span<const Arg> args, const LaunchOptions& options) {
  return launch(LaunchShape::linear(n, workgroup_size), args, options);
}

Status Kernel::launch(Grid grid, WorkgroupSize workgroup_size, std::span<const Arg> args,
                      const LaunchOptions& options) {
  return launch(LaunchShape::of_grid(grid, workgroup_size), args, options);
}

Status Kernel::launch(const LaunchShape& shape, std::span<const Arg> args, const LaunchOptions& options) {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "launch of a moved-from Kernel");
  DeviceState& device = *device_;
  WASMGPU_ASSIGN_OR_RETURN(Prepared p, prepare(*this, device, shape, args));
  if (p.n == 0) return {};
  if (!device.launch_arena) {
    WASMGPU_ASSIGN_OR_RETURN(LaunchArena arena, LaunchArena::create(device));
    device.launch_arena = std::make_unique<LaunchArena>(std::move(arena));
    --device.live_children;  // the device's own, destroyed with it
  }
  // ready() passed in prepare(): no earlier launch still uses the arena.
  device.launch_arena->reset();
  VkDeviceAddress block_address = 0;
  WASMGPU_ASSIGN_OR_RETURN(RecordedLaunch recorded,
                           write_launch_block(*this, device, p, args, *device.launch_arena, block_address));
  WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, device.begin());
  record_commands(device, cmd, p, recorded, RecordOptions{});
  WASMGPU_TRY(device.submit_and_wait("kernel '" + info_.export_name + "'", options.timeout));
  if (!options.fail_on_trap) return {};
  return read_trap(recorded);
}

Status Kernel::check_launch(const LaunchShape& shape, std::span<const Arg> args) {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "launch of a moved-from Kernel");
  WASMGPU_TRY(prepare(*this, *device_, shape, args));
  return {};
}

Result<RecordedLaunch> Kernel::record(VkCommandBuffer cmd, const LaunchShape& shape, std::span<const Arg> args,
                                      LaunchArena& arena, const RecordOptions& options) {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "record of a moved-from Kernel");
  DeviceState& device = *device_;
  if (!arena.device_state())
    return make_error(ErrorCode::InvalidArgument, "kernel '" + info_.export_name + "': the LaunchArena was moved from");
  if (arena.device_state() != &device)
    return make_error(ErrorCode::InvalidArgument,
                      "kernel '" + info_.export_name + "': the LaunchArena belongs to another Device");
  WASMGPU_ASSIGN_OR_RETURN(Prepared p, prepare(*this, device, shape, args));
  if (p.n == 0) return LaunchRecorder::make(info_, device);
  VkDeviceAddress block_address = 0;
  WASMGPU_ASSIGN_OR_RETURN(RecordedLaunch recorded, write_launch_block(*this, device, p, args, arena, block_address));
  LaunchRecorder::set_dispatches(recorded, record_commands(device, cmd, p, recorded, options));
  return recorded;
}

}  // namespace wasmgpu::runtime

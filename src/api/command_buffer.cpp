// CommandBuffer and Submission: commands kept as a list, recorded into a
// Vulkan command buffer at the first submit (and again when the device's
// buffers changed, which the launches' region tables list), submitted with a
// fence, retired when the fence is seen signalled.
#include "wasmgpu/command_buffer.hpp"

#include <algorithm>
#include <set>

#include "api/impl.h"
#include "runtime/pipeline_warmup.h"
#include "runtime/vk_util.h"

namespace wasmgpu {
namespace detail {

namespace {

uint64_t timeout_ns(std::chrono::nanoseconds timeout) {
  return timeout.count() < 0 ? 0 : uint64_t(timeout.count());
}

constexpr VkPipelineStageFlags kWorkStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

// Orders every earlier compute and transfer access before every later one.
void full_barrier(runtime::DeviceState& state, VkCommandBuffer cmd) {
  runtime::memory_barrier(state, cmd, kWorkStages, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          kWorkStages,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                              VK_ACCESS_TRANSFER_WRITE_BIT);
}

std::string command_label(const Command& command, size_t position) {
  switch (command.type) {
    case Command::Type::Launch:
      return "launch " + std::to_string(command.launch_index) + " (kernel '" + command.kernel->interface().name + "')";
    case Command::Type::Copy: return "the copy at command " + std::to_string(position);
    case Command::Type::Fill: return "the fill at command " + std::to_string(position);
    case Command::Type::Barrier: return "barrier";
  }
  return "?";
}

// What a command reads and writes.
std::vector<AccessedResource> accesses(const Command& command) {
  std::vector<AccessedResource> out;
  switch (command.type) {
    case Command::Type::Launch: {
      const KernelInterface& interface = command.kernel->interface();
      for (size_t i = 0; i < command.launch.args.size(); ++i) {
        const BoundArg& arg = command.launch.args[i];
        if (!arg.buffer) continue;
        const Param& param = interface.params[i];
        const bool write = param.kind == ParamKind::UniformBuffer ? false
                           : param.kind == ParamKind::Buffer      ? param.writable
                                                                  : true;  // an untyped i32 pointer
        out.push_back({arg.buffer.get(), write});
      }
      // Images: a kernel may store into any image it is given (the handle
      // reaches every call), so each counts as written.
      for (const BoundArg& arg : command.launch.args)
        if (arg.image) out.push_back({arg.image.get(), true});
      command.kernel->extra_accesses(out);
      break;
    }
    case Command::Type::Copy:
      out.push_back({command.src.get(), false});
      out.push_back({command.dst.get(), true});
      break;
    case Command::Type::Fill: out.push_back({command.dst.get(), true}); break;
    case Command::Type::Barrier: break;
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------------ GpuState

GpuState::~GpuState() {
  items.clear();
  arena.reset();
  if (!device) return;
  runtime::DeviceState& state = device->state();
  if (fence) state.vk.vkDestroyFence(state.device, fence, nullptr);
  if (pool) state.vk.vkDestroyCommandPool(state.device, pool, nullptr);
}

std::shared_ptr<CommandBufferImpl> DeviceImpl::new_command_buffer() {
  runtime::DeviceState& st = state();
  check(st.ready(), ErrorKind::Vulkan);
  auto gpu = std::make_shared<GpuState>();
  gpu->device = this;
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = st.queue_family;
  check(st.check("vkCreateCommandPool", st.vk.vkCreateCommandPool(st.device, &pool_info, nullptr, &gpu->pool)),
        ErrorKind::Vulkan);
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = gpu->pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  check(st.check("vkAllocateCommandBuffers", st.vk.vkAllocateCommandBuffers(st.device, &alloc, &gpu->cmd)),
        ErrorKind::Vulkan);
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(st.check("vkCreateFence", st.vk.vkCreateFence(st.device, &fence_info, nullptr, &gpu->fence)),
        ErrorKind::Vulkan);
  gpu->arena.emplace(check(runtime::LaunchArena::create(st), ErrorKind::Vulkan));
  auto commands = std::make_shared<CommandBufferImpl>();
  commands->device = this;
  commands->gpu = std::move(gpu);
  return commands;
}

// ---------------------------------------------------------- SubmissionState

bool SubmissionState::poll(std::chrono::nanoseconds timeout) {
  if (finished) {
    if (lost) raise(ErrorKind::DeviceLost, lost_message);
    return true;
  }
  runtime::DeviceState& st = device->state();
  const VkResult r = timeout.count() == 0 ? st.vk.vkGetFenceStatus(st.device, gpu->fence)
                                          : st.vk.vkWaitForFences(st.device, 1, &gpu->fence, VK_TRUE,
                                                                  timeout_ns(timeout));
  if (r == VK_NOT_READY || r == VK_TIMEOUT) return false;
  finished = true;
  if (r != VK_SUCCESS) {
    lost = true;
    lost_message = st.fail(description + ": waiting for its fence", r).message;
  } else {
    // The first trapping launch, in launch order.
    for (size_t i = 0; i < gpu->items.size(); ++i) {
      if (std::optional<runtime::TrapReport> report = gpu->items[i]->trap()) {
        trap = TrapInfo{uint32_t(i), gpu->item_kernels[i], *report};
        break;
      }
    }
  }
  gpu.reset();  // before the modules: recorded items refer to their kernels
  for (const std::shared_ptr<BufferImpl>& buffer : buffers) buffer->retire_use();
  buffers.clear();
  for (const std::shared_ptr<ImageImpl>& image : images) image->retire_use();
  images.clear();
  for (const std::shared_ptr<SamplerImpl>& sampler : samplers) sampler->retire_use();
  samplers.clear();
  modules.clear();
  if (lost) raise(ErrorKind::DeviceLost, lost_message);
  return true;
}

// -------------------------------------------------------- CommandBufferImpl

bool CommandBufferImpl::running() {
  if (!last) return false;
  try {
    return !last->poll(std::chrono::nanoseconds(0));
  } catch (const Exception&) {
    return false;  // lost: nothing runs any more
  }
}

void CommandBufferImpl::clear() {
  gpu->items.clear();  // before the commands, which keep their kernels alive
  gpu->item_kernels.clear();
  commands.clear();
  launches = 0;
  submitted = false;
  recorded = false;
}

void CommandBufferImpl::record_vulkan() {
  runtime::DeviceState& st = device->state();
  recorded = false;
  gpu->items.clear();
  gpu->item_kernels.clear();
  gpu->arena->reset();
  VkCommandBuffer cmd = gpu->cmd;
  check(st.check("vkResetCommandBuffer", st.vk.vkResetCommandBuffer(cmd, 0)), ErrorKind::Vulkan);
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  check(st.check("vkBeginCommandBuffer", st.vk.vkBeginCommandBuffer(cmd, &begin)), ErrorKind::Vulkan);
  // Work submitted earlier on the device comes first.
  full_barrier(st, cmd);
  std::set<const void*> read, written;  // since the last barrier
  auto_barrier_positions.clear();
  for (size_t position = 0; position < commands.size(); ++position) {
    const Command& command = commands[position];
    if (command.type == Command::Type::Barrier) {
      full_barrier(st, cmd);
      read.clear();
      written.clear();
      continue;
    }
    const std::vector<AccessedResource> used = accesses(command);
    bool depends = false;
    for (const AccessedResource& a : used)
      depends |= written.count(a.key) || (a.write && read.count(a.key));
    if (depends && command.auto_barrier) {
      full_barrier(st, cmd);
      auto_barrier_positions.push_back(position);
      read.clear();
      written.clear();
    }
    for (const AccessedResource& a : used) (a.write ? written : read).insert(a.key);
    switch (command.type) {
      case Command::Type::Launch:
        gpu->items.push_back(command.kernel->record(cmd, command.launch, *gpu->arena));
        gpu->item_kernels.push_back(command.kernel->interface().name);
        break;
      case Command::Type::Copy: {
        VkBufferCopy region{command.src_offset, command.dst_offset, command.bytes};
        st.vk.vkCmdCopyBuffer(cmd, command.src->buffer->handle(), command.dst->buffer->handle(), 1, &region);
        break;
      }
      case Command::Type::Fill:
        st.vk.vkCmdFillBuffer(cmd, command.dst->buffer->handle(), 0, VK_WHOLE_SIZE, command.pattern);
        break;
      case Command::Type::Barrier: break;
    }
  }
  runtime::record_host_read_barrier(st, cmd);
  check(st.check("vkEndCommandBuffer", st.vk.vkEndCommandBuffer(cmd)), ErrorKind::Vulkan);
  recorded = true;
  recorded_generation = st.mapping_generation;
}

std::shared_ptr<SubmissionState> CommandBufferImpl::submit() {
  device->collect();
  if (running())
    raise(ErrorKind::InvalidArgument,
          "submit of a CommandBuffer whose previous submission is still running; wait for it "
          "(Submission::wait) before submitting it again");
  if (commands.empty()) raise(ErrorKind::InvalidArgument, "submit of an empty CommandBuffer");
  runtime::DeviceState& st = device->state();
  check(st.ready(), ErrorKind::Vulkan);
  // Everything recorded must still exist.
  auto check_live = [&](const std::shared_ptr<BufferImpl>& buffer, const std::string& what) {
    if (buffer && (!buffer->buffer || buffer->released))
      raise(ErrorKind::UseAfterMove, "submit: " + what + " was destroyed after it was recorded");
  };
  for (size_t i = 0; i < commands.size(); ++i) {
    const Command& command = commands[i];
    if (command.type == Command::Type::Launch) {
      const KernelInterface& interface = command.kernel->interface();
      for (size_t a = 0; a < command.launch.args.size(); ++a) {
        const BoundArg& arg = command.launch.args[a];
        check_live(arg.buffer, command_label(command, i) + ": the Buffer for parameter '" +
                                   interface.params[a].name + "'");
        const bool image_gone = arg.image && (!arg.image->image || arg.image->released);
        const bool sampler_gone = arg.sampler && (!arg.sampler->sampler || arg.sampler->released);
        if (image_gone || sampler_gone)
          raise(ErrorKind::UseAfterMove, "submit: " + command_label(command, i) + ": the " +
                                             (image_gone ? "Image" : "Sampler") + " for parameter '" +
                                             interface.params[a].name + "' was destroyed after it was recorded");
      }
    }
    check_live(command.src, command_label(command, i) + ": its source Buffer");
    check_live(command.dst, command_label(command, i) + ": its destination Buffer");
  }
  bool fresh = recorded && recorded_generation == st.mapping_generation;
  if (fresh) {
    size_t item = 0;
    for (const Command& command : commands)
      if (command.type == Command::Type::Launch) fresh = gpu->items[item++]->rebind(command.launch) && fresh;
  }
  if (!fresh) record_vulkan();

  auto submission = std::make_shared<SubmissionState>();
  submission->device = device;
  submission->gpu = gpu;
  submission->description = "a CommandBuffer of " + std::to_string(commands.size()) + " command(s)";
  if (commands.size() == 1 && commands[0].type == Command::Type::Launch)
    submission->description = "kernel '" + commands[0].kernel->interface().name + "'";
  std::set<BufferImpl*> seen_buffers;
  std::set<ImageImpl*> seen_images;
  std::set<SamplerImpl*> seen_samplers;
  std::set<ModuleImpl*> seen_modules;
  for (const Command& command : commands) {
    auto add = [&](const std::shared_ptr<BufferImpl>& buffer) {
      if (buffer && seen_buffers.insert(buffer.get()).second) submission->buffers.push_back(buffer);
    };
    for (const BoundArg& arg : command.launch.args) {
      add(arg.buffer);
      if (arg.image && seen_images.insert(arg.image.get()).second) submission->images.push_back(arg.image);
      if (arg.sampler && seen_samplers.insert(arg.sampler.get()).second)
        submission->samplers.push_back(arg.sampler);
    }
    add(command.src);
    add(command.dst);
    if (command.module && seen_modules.insert(command.module.get()).second)
      submission->modules.push_back(command.module);
  }

  check(st.check("vkResetFences", st.vk.vkResetFences(st.device, 1, &gpu->fence)), ErrorKind::Vulkan);
  VkSubmitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &gpu->cmd;
  check(st.check("vkQueueSubmit", st.vk.vkQueueSubmit(st.queue, 1, &info, gpu->fence)), ErrorKind::Vulkan);
  for (const std::shared_ptr<BufferImpl>& buffer : submission->buffers) ++buffer->in_flight;
  for (const std::shared_ptr<ImageImpl>& image : submission->images) ++image->in_flight;
  for (const std::shared_ptr<SamplerImpl>& sampler : submission->samplers) ++sampler->in_flight;
  submitted = true;
  last = submission;
  device->in_flight.push_back(submission);
  return submission;
}

}  // namespace detail

using detail::CommandBufferImpl;
using detail::DeviceImpl;

// ---------------------------------------------------------------- Submission

Submission::Submission(std::shared_ptr<DeviceImpl> device, std::shared_ptr<detail::SubmissionState> state)
    : device_(std::move(device)), state_(std::move(state)) {}
Submission::Submission(Submission&&) noexcept = default;
Submission& Submission::operator=(Submission&&) noexcept = default;
Submission::~Submission() = default;

void Submission::wait(std::chrono::nanoseconds timeout) const {
  if (!state_) detail::raise(ErrorKind::UseAfterMove, "wait on a moved-from Submission");
  if (!state_->poll(timeout)) {
    // Pipelines were compiled (warmed up) when the work was recorded, at
    // submit(): the wait is the work's own time.
    detail::raise(ErrorKind::Timeout,
                  state_->description + " did not finish: it ran longer than " + runtime::format_seconds(timeout) +
                      "; it keeps running" +
                      (state_->direct ? " (its buffers stay in use until it finishes; Device::wait_idle waits for it)"
                                      : " (wait again, or poll done())"));
  }
  device_->collect();
  if (!state_->trap) return;
  const detail::TrapInfo& trap = *state_->trap;
  const std::string trap_name =
      trap.report.kind ? abi::to_string(*trap.report.kind) : "trap of unknown kind";
  std::string message = "kernel '" + trap.kernel + "'";
  if (!state_->direct) message += " (launch " + std::to_string(trap.launch_index) + " of the command buffer)";
  message += " trapped: " + trap_name;
  if (trap.report.kind) message += " at invocation " + std::to_string(trap.report.invocation);
  message += " (" + std::to_string(trap.report.trapped_invocations) +
             (trap.report.trapped_invocations == 1 ? " invocation trapped)" : " invocations trapped)");
  throw TrapError(message, trap.kernel, trap_name, trap.report.invocation, trap.report.trapped_invocations,
                  trap.launch_index);
}

bool Submission::done() const {
  if (!state_) detail::raise(ErrorKind::UseAfterMove, "done() on a moved-from Submission");
  return state_->poll(std::chrono::nanoseconds(0));
}

// ------------------------------------------------------------- CommandBuffer

CommandBuffer::CommandBuffer(std::shared_ptr<DeviceImpl> device, std::shared_ptr<CommandBufferImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}
CommandBuffer::CommandBuffer(CommandBuffer&&) noexcept = default;
CommandBuffer& CommandBuffer::operator=(CommandBuffer&&) noexcept = default;
CommandBuffer::~CommandBuffer() = default;

namespace {

CommandBufferImpl& recording(const std::shared_ptr<CommandBufferImpl>& impl, const char* what) {
  if (!impl) detail::raise(ErrorKind::UseAfterMove, std::string("CommandBuffer::") + what + " on a moved-from CommandBuffer");
  if (impl->submitted)
    detail::raise(ErrorKind::InvalidArgument,
                  std::string("CommandBuffer::") + what +
                      " after submit(): the commands of a submitted CommandBuffer are fixed; reset() it "
                      "to record anew (set_argument() changes scalars for the next submit)");
  return *impl;
}

std::shared_ptr<detail::BufferImpl> own_buffer(DeviceImpl& device, const BufferBase& buffer, const std::string& where) {
  const std::shared_ptr<detail::BufferImpl>& impl = detail::Access::buffer(buffer);
  if (!impl || !impl->buffer)
    detail::raise(ErrorKind::UseAfterMove, where + ": the Buffer was moved from or destroyed");
  if (impl->device != &device)
    detail::raise(ErrorKind::WrongDevice, where + ": the Buffer belongs to " + detail::device_label(*impl->device) +
                                              ", but the CommandBuffer to " + detail::device_label(device));
  return impl;
}

}  // namespace

LaunchId CommandBuffer::launch_dynamic(const Kernel& kernel, Launch shape, std::span<const Argument> args) {
  CommandBufferImpl& impl = recording(impl_, "launch");
  const std::shared_ptr<detail::KernelImpl>& k = detail::Access::kernel(kernel);
  DeviceImpl& device = *impl.device;
  if (detail::Access::device(kernel).get() != &device)
    detail::raise(ErrorKind::WrongDevice, "kernel '" + k->interface().name + "' was loaded on " +
                                              detail::device_label(*detail::Access::device(kernel)) +
                                              ", but the CommandBuffer belongs to " + detail::device_label(device));
  detail::Command command;
  command.type = detail::Command::Type::Launch;
  command.kernel = k;
  command.module = std::shared_ptr<detail::ModuleImpl>(k, k->module());
  command.launch = k->bind(device, shape, args);
  k->check(command.launch);
  command.launch_index = impl.launches;
  command.auto_barrier = impl.auto_barriers;
  impl.commands.push_back(std::move(command));
  return LaunchId{impl.launches++};
}

void CommandBuffer::copy(const BufferBase& src, const BufferBase& dst, std::optional<uint64_t> bytes,
                         uint64_t src_offset, uint64_t dst_offset) {
  CommandBufferImpl& impl = recording(impl_, "copy");
  detail::Command command;
  command.type = detail::Command::Type::Copy;
  command.src = own_buffer(*impl.device, src, "copy source");
  command.dst = own_buffer(*impl.device, dst, "copy destination");
  const uint64_t src_size = command.src->size, dst_size = command.dst->size;
  if (src_offset > src_size)
    detail::raise(ErrorKind::BufferTooSmall, "copy from offset " + std::to_string(src_offset) + " of a " +
                                                 std::to_string(src_size) + "-byte source buffer");
  const uint64_t count = bytes.value_or(src_size - src_offset);
  if (count > src_size - src_offset)
    detail::raise(ErrorKind::BufferTooSmall, "copy of " + std::to_string(count) + " bytes from offset " +
                                                 std::to_string(src_offset) + " of a " + std::to_string(src_size) +
                                                 "-byte source buffer");
  if (dst_offset > dst_size || count > dst_size - dst_offset)
    detail::raise(ErrorKind::BufferTooSmall, "copy of " + std::to_string(count) + " bytes to offset " +
                                                 std::to_string(dst_offset) + " of a " + std::to_string(dst_size) +
                                                 "-byte destination buffer");
  if (command.src == command.dst && src_offset < dst_offset + count && dst_offset < src_offset + count)
    detail::raise(ErrorKind::InvalidArgument, "copy within one buffer between overlapping ranges (" +
                                                  std::to_string(count) + " bytes from offset " +
                                                  std::to_string(src_offset) + " to offset " +
                                                  std::to_string(dst_offset) + ")");
  if (count == 0) return;
  command.bytes = count;
  command.src_offset = src_offset;
  command.dst_offset = dst_offset;
  command.auto_barrier = impl.auto_barriers;
  impl.commands.push_back(std::move(command));
}

void CommandBuffer::fill(const BufferBase& buffer, uint32_t pattern) {
  CommandBufferImpl& impl = recording(impl_, "fill");
  detail::Command command;
  command.type = detail::Command::Type::Fill;
  command.dst = own_buffer(*impl.device, buffer, "fill");
  command.pattern = pattern;
  command.auto_barrier = impl.auto_barriers;
  impl.commands.push_back(std::move(command));
}

void CommandBuffer::barrier() {
  CommandBufferImpl& impl = recording(impl_, "barrier");
  detail::Command command;
  command.type = detail::Command::Type::Barrier;
  impl.commands.push_back(std::move(command));
}

void CommandBuffer::set_auto_barriers(bool enabled) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "set_auto_barriers on a moved-from CommandBuffer");
  impl_->auto_barriers = enabled;
}

bool CommandBuffer::auto_barriers() const {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "auto_barriers on a moved-from CommandBuffer");
  return impl_->auto_barriers;
}

void CommandBuffer::set_argument(LaunchId launch, uint32_t index, const Argument& value) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "set_argument on a moved-from CommandBuffer");
  CommandBufferImpl& impl = *impl_;
  impl.device->collect();
  if (impl.running())
    detail::raise(ErrorKind::InvalidArgument,
                  "set_argument while a submission of the CommandBuffer is running; wait for it first");
  detail::Command* command = nullptr;
  for (detail::Command& c : impl.commands)
    if (c.type == detail::Command::Type::Launch && c.launch_index == launch.index) command = &c;
  if (!command)
    detail::raise(ErrorKind::InvalidArgument, "set_argument: the CommandBuffer has no launch " +
                                                  std::to_string(launch.index) + " (it has " +
                                                  std::to_string(impl.launches) + ")");
  const KernelInterface& interface = command->kernel->interface();
  if (index >= interface.params.size())
    detail::raise(ErrorKind::InvalidArgument, "set_argument: kernel '" + interface.name + "' has " +
                                                  std::to_string(interface.params.size()) +
                                                  " parameter(s); there is no argument " + std::to_string(index + 1));
  const Param& param = interface.params[index];
  if (param.kind != ParamKind::Scalar || value.kind() == Argument::Kind::Buffer ||
      command->launch.args[index].buffer)
    detail::raise(ErrorKind::InvalidArgument,
                  "set_argument: parameter '" + param.name + "' of kernel '" + interface.name +
                      "' (launch " + std::to_string(launch.index) +
                      ") is not a scalar; only scalars can change between submissions (record the launch anew)");
  command->launch.args[index] = command->kernel->bind_one(*impl.device, index, value);
}

void CommandBuffer::set_argument(LaunchId launch, std::string_view name, const Argument& value) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "set_argument on a moved-from CommandBuffer");
  for (const detail::Command& c : impl_->commands)
    if (c.type == detail::Command::Type::Launch && c.launch_index == launch.index)
      return set_argument(launch, c.kernel->param_index(name), value);
  set_argument(launch, uint32_t(0), value);  // reports the missing launch
}

Submission CommandBuffer::submit() {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "submit of a moved-from CommandBuffer");
  return Submission(device_, impl_->submit());
}

void CommandBuffer::reset() {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "reset of a moved-from CommandBuffer");
  impl_->device->collect();
  if (impl_->running())
    detail::raise(ErrorKind::InvalidArgument, "reset of a CommandBuffer whose submission is still running; wait for it first");
  impl_->clear();
}

uint32_t CommandBuffer::launch_count() const {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "launch_count of a moved-from CommandBuffer");
  return impl_->launches;
}

uint32_t CommandBuffer::command_count() const {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "command_count of a moved-from CommandBuffer");
  return uint32_t(impl_->commands.size());
}

}  // namespace wasmgpu

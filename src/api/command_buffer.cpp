// CommandBuffer and Submission: commands kept as a list, recorded into the
// device's command list at the first submit (and again when the device says
// recordings went stale: Vulkan launches record the table of buffer
// addresses), submitted, retired when the device reports it finished.
#include "wasmgpu/command_buffer.hpp"

#include <algorithm>
#include <set>

#include "api/impl.h"
#include "support/units.h"

namespace wasmgpu {
namespace detail {

namespace {

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
  items.clear();  // before the list they were recorded into
  list.reset();
}

std::shared_ptr<CommandBufferImpl> DeviceImpl::new_command_buffer() {
  auto gpu = std::make_shared<GpuState>();
  gpu->list = check(backend->create_command_list(), ErrorKind::Vulkan);
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
  Result<bool> done = gpu->list->wait(timeout, description);
  if (done.ok() && !done.value()) return false;
  finished = true;
  if (!done.ok()) {
    lost = true;
    lost_message = done.error().message;
  } else {
    if (timed) {
      Result<double> seconds = gpu->list->elapsed_seconds();
      if (seconds.ok())
        gpu_seconds = seconds.value();
      else
        timing_error = seconds.error().message;
    }
    // The first trapping launch, in launch order.
    for (size_t i = 0; i < gpu->items.size(); ++i) {
      if (std::optional<device::TrapReport> report = gpu->items[i]->trap()) {
        trap = TrapInfo{uint32_t(i), gpu->item_kernels[i], *report, {}};
        break;
      }
    }
  }
  // What the kernels printed, and the text of a failed assert. A module that
  // another unfinished submission also runs is drained when the last one
  // finishes: its launches may still be writing records.
  if (!lost) {
    for (const std::shared_ptr<ModuleImpl>& module : modules) {
      if (!module->print_ring) continue;
      bool running_elsewhere = false;
      for (const std::shared_ptr<SubmissionState>& other : device->in_flight)
        if (other.get() != this && !other->finished &&
            std::find(other->modules.begin(), other->modules.end(), module) != other->modules.end())
          running_elsewhere = true;
      if (running_elsewhere) continue;
      std::string reason = drain_print_ring(*module);
      if (trap && trap->reason.empty()) trap->reason = std::move(reason);
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

void CommandBufferImpl::record() {
  device::BackendCommandList& list = *gpu->list;
  recorded = false;
  gpu->items.clear();
  gpu->item_kernels.clear();
  // Work submitted earlier on the device comes first.
  check(list.begin(), ErrorKind::Vulkan);
  recorded_timing = false;
  if (gpu_timing) {
    if (Status s = list.start_timing(); !s.ok()) {
      (void)list.end();  // leaves the list ready for the next begin()
      raise(classify(s.error(), ErrorKind::Unsupported), s.error());
    }
    recorded_timing = true;
  }
  std::set<const void*> read, written;  // since the last barrier
  auto_barrier_positions.clear();
  for (size_t position = 0; position < commands.size(); ++position) {
    const Command& command = commands[position];
    if (command.type == Command::Type::Barrier) {
      list.barrier();
      read.clear();
      written.clear();
      continue;
    }
    const std::vector<AccessedResource> used = accesses(command);
    bool depends = false;
    for (const AccessedResource& a : used) depends |= written.count(a.key) || (a.write && read.count(a.key));
    if (depends && command.auto_barrier) {
      list.barrier();
      auto_barrier_positions.push_back(position);
      read.clear();
      written.clear();
    }
    for (const AccessedResource& a : used) (a.write ? written : read).insert(a.key);
    switch (command.type) {
      case Command::Type::Launch:
        gpu->items.push_back(command.kernel->record(list, command.launch));
        gpu->item_kernels.push_back(command.kernel->interface().name);
        break;
      case Command::Type::Copy:
        list.copy(*command.src->buffer, *command.dst->buffer, command.src_offset, command.dst_offset, command.bytes);
        break;
      case Command::Type::Fill: list.fill(*command.dst->buffer, command.pattern); break;
      case Command::Type::Barrier: break;
    }
  }
  if (recorded_timing) list.stop_timing();
  check(list.end(), ErrorKind::Vulkan);
  recorded = true;
  recorded_generation = device->backend->recording_generation();
}

std::shared_ptr<SubmissionState> CommandBufferImpl::submit() {
  device->collect();
  if (running())
    raise(ErrorKind::InvalidArgument,
          "submit of a CommandBuffer whose previous submission is still running; wait for it "
          "(Submission::wait) before submitting it again");
  if (commands.empty()) raise(ErrorKind::InvalidArgument, "submit of an empty CommandBuffer");
  check(device->backend->ready(), ErrorKind::Vulkan);
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
        check_live(arg.buffer,
                   command_label(command, i) + ": the Buffer for parameter '" + interface.params[a].name + "'");
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
  bool fresh =
      recorded && recorded_generation == device->backend->recording_generation() && recorded_timing == gpu_timing;
  if (fresh) {
    size_t item = 0;
    for (const Command& command : commands)
      if (command.type == Command::Type::Launch)
        fresh = command.kernel->rebind(*gpu->items[item++], command.launch) && fresh;
  }
  if (!fresh) record();

  auto submission = std::make_shared<SubmissionState>();
  submission->device = device;
  submission->gpu = gpu;
  submission->timed = recorded_timing;
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
      if (arg.sampler && seen_samplers.insert(arg.sampler.get()).second) submission->samplers.push_back(arg.sampler);
    }
    add(command.src);
    add(command.dst);
    if (command.module && seen_modules.insert(command.module.get()).second)
      submission->modules.push_back(command.module);
  }

  check(gpu->list->submit(), ErrorKind::Vulkan);
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
                  state_->description + " did not finish: it ran longer than " + format_seconds(timeout) +
                      "; it keeps running" +
                      (state_->direct ? " (its buffers stay in use until it finishes; Device::wait_idle waits for it)"
                                      : " (wait again, or poll done())"));
  }
  device_->collect();
  if (!state_->trap) return;
  const detail::TrapInfo& trap = *state_->trap;
  const std::string trap_name = trap.report.kind ? abi::to_string(*trap.report.kind) : "trap of unknown kind";
  std::string message = "kernel '" + trap.kernel + "'";
  if (!state_->direct) message += " (launch " + std::to_string(trap.launch_index) + " of the command buffer)";
  message += " trapped: " + trap_name;
  if (trap.report.kind) message += " at invocation " + std::to_string(trap.report.invocation);
  message += " (" + std::to_string(trap.report.trapped_invocations) +
             (trap.report.trapped_invocations == 1 ? " invocation trapped)" : " invocations trapped)");
  if (!trap.reason.empty()) message += ": " + trap.reason;
  if (!trap.report.site.empty())
    message += "; invocation " + std::to_string(trap.report.site_invocation) + " trapped in " + trap.report.site;
  throw TrapError(message, trap.kernel, trap_name, trap.report.invocation, trap.report.trapped_invocations,
                  trap.launch_index, trap.reason);
}

double Submission::gpu_seconds() const {
  if (!state_) detail::raise(ErrorKind::UseAfterMove, "gpu_seconds() on a moved-from Submission");
  if (!state_->timed)
    detail::raise(ErrorKind::InvalidArgument, "gpu_seconds() of " + state_->description +
                                                  ", submitted without GPU timing (CommandBuffer::set_gpu_timing)");
  if (!state_->finished)
    detail::raise(ErrorKind::InvalidArgument,
                  "gpu_seconds() of " + state_->description + " before it finished; wait() for it first");
  if (!state_->gpu_seconds)
    detail::raise(ErrorKind::Vulkan, "gpu_seconds() of " + state_->description + ": " + state_->timing_error);
  return *state_->gpu_seconds;
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
  if (!impl)
    detail::raise(ErrorKind::UseAfterMove, std::string("CommandBuffer::") + what + " on a moved-from CommandBuffer");
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
  // Recorded launches are not timed: they get the autotuner's winner where
  // there is one, else the heuristic.
  command.launch = k->bind(device, detail::KernelImpl::with_choice(shape, k->choose(device, shape, nullptr)), args);
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

void CommandBuffer::set_gpu_timing(bool enabled) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "set_gpu_timing on a moved-from CommandBuffer");
  impl_->gpu_timing = enabled;
}

bool CommandBuffer::gpu_timing() const {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "gpu_timing on a moved-from CommandBuffer");
  return impl_->gpu_timing;
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
  if (param.kind != ParamKind::Scalar || value.kind() == Argument::Kind::Buffer || command->launch.args[index].buffer)
    detail::raise(ErrorKind::InvalidArgument,
                  "set_argument: parameter '" + param.name + "' of kernel '" + interface.name + "' (launch " +
                      std::to_string(launch.index) +
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
    detail::raise(ErrorKind::InvalidArgument,
                  "reset of a CommandBuffer whose submission is still running; wait for it first");
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

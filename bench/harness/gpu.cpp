#include "harness/gpu.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "harness/staging.h"

namespace wasmgpu::bench {
namespace {

Device open_device(const std::optional<std::string>& name, bool cache) {
  DeviceOptions options;
  options.name = name;
  options.cache = cache;
  return Device::open(options);
}

// The push-constant parameter `param` read from the block's bytes.
Argument push_argument(const Param& param, const uint8_t* block) {
  const uint8_t* at = block + *param.push_offset;
  auto read = [&](auto value) {
    std::memcpy(&value, at, sizeof value);
    return value;
  };
  if (param.kind == ParamKind::Bytes) {
    // Buffer references (GL_EXT_buffer_reference): the 8-byte device address.
    if (param.size != 8)
      throw std::logic_error("twin parameter '" + param.name + "': only 8-byte buffer references are passed as bytes");
    return Argument::bytes(read(uint64_t(0)));
  }
  switch (param.scalar) {
    case ScalarType::I32:
    case ScalarType::U32: return Argument(read(uint32_t(0)));
    case ScalarType::I64:
    case ScalarType::U64: return Argument(read(uint64_t(0)));
    case ScalarType::F32: return Argument(read(0.0f));
    case ScalarType::F64: return Argument(read(0.0));
  }
  throw std::logic_error("twin parameter '" + param.name + "': unknown scalar type");
}

}  // namespace

void TwinLaunch::record(CommandBuffer& commands) const { commands.launch_dynamic(*kernel, Launch::grid(groups), args); }

Gpu::Gpu(const std::optional<std::string>& device, bool cache) : device_(open_device(device, cache)) {}

Gpu::~Gpu() {
  staging_.reset();
  device_.wait_idle();
}

const Kernel& Gpu::twin(std::span<const uint8_t> spirv) {
  std::vector<uint32_t> words((spirv.size() + 3) / 4);
  std::memcpy(words.data(), spirv.data(), spirv.size());
  twins_.push_back(device_.load_spirv(words));
  twin_kernels_.push_back(std::make_unique<Kernel>(twins_.back().kernel("main")));
  return *twin_kernels_.back();
}

TwinLaunch Gpu::twin_launch(const Kernel& twin, const void* push, uint32_t push_size, std::array<uint32_t, 3> groups) {
  const KernelInterface& interface = twin.interface();
  // The C++ struct may be longer than the block by its tail padding.
  std::vector<uint8_t> block(interface.push_constant_size, 0);
  std::memcpy(block.data(), push, std::min<size_t>(push_size, block.size()));
  TwinLaunch launch;
  launch.kernel = &twin;
  launch.groups = groups;
  for (const Param& param : interface.params) {
    if (!param.push_offset) throw std::logic_error("twin parameter '" + param.name + "' is not a push constant");
    if (*param.push_offset + param.size > push_size)
      throw std::logic_error("twin parameter '" + param.name + "' lies past the " + std::to_string(push_size) +
                             " bytes of push constants given");
    launch.args.push_back(push_argument(param, block.data()));
  }
  return launch;
}

Submission Gpu::submit(const Recorder& record, bool timed) {
  CommandBuffer commands = device_.command_buffer();
  // The command buffer orders its work after earlier submissions (uploads)
  // and makes its writes visible to the host; within it, the Recorder's
  // barriers order the work.
  commands.set_auto_barriers(false);
  commands.set_gpu_timing(timed);
  record(commands);
  Submission submission = commands.submit();
  submission.wait();  // throws TrapError for a wasm launch that trapped
  return submission;
}

void Gpu::run(const Recorder& record) { submit(record, false); }

double Gpu::time_ms(const Recorder& record) {
  if (!is_cpu()) return submit(record, true).gpu_seconds() * 1e3;
  const auto start = std::chrono::steady_clock::now();
  submit(record, false);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

Staging& Gpu::staging() {
  if (!staging_) staging_ = std::make_unique<Staging>(*this);
  return *staging_;
}

}  // namespace wasmgpu::bench

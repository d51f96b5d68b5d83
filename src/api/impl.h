// Internal: what the public handles of include/wasmgpu/ point at.
//
// Ownership graph (no cycles): user handles hold shared_ptr<DeviceImpl> and
// their own impl; impls hold a raw DeviceImpl* (the handles keep the device
// alive). The device's list of submissions in flight holds the resources
// those submissions use, so that destroying a handle never frees memory the
// GPU still uses; ~DeviceImpl waits for them before closing the device.
#pragma once

#include <chrono>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/launch_shape.h"
#include "device/device_backend.h"
#include "device/device_platform.h"
#include "support/result.h"
#include "wasmgpu/buffer.hpp"
#include "wasmgpu/command_buffer.hpp"
#include "wasmgpu/device.hpp"
#include "wasmgpu/error.hpp"
#include "wasmgpu/image.hpp"
#include "wasmgpu/interface.hpp"
#include "wasmgpu/module.hpp"

namespace wasmgpu::detail {

struct DeviceImpl;
struct SubmissionState;
struct CommandBufferImpl;

// Throws Exception(kind, error.to_string()) ...
[[noreturn]] void raise(ErrorKind kind, const Error& error);
[[noreturn]] void raise(ErrorKind kind, const std::string& message);
// ... or the value of a Result.
template <class T>
T unwrap(Result<T> result, ErrorKind kind) {
  if (!result.ok()) raise(kind, result.error());
  return std::move(result).value();
}
inline void unwrap(Status status, ErrorKind kind) {
  if (!status.ok()) raise(kind, status.error());
}
// The public kind of an internal error's code (DeviceLost for a lost device,
// Vulkan for another failed Vulkan call, ...); `fallback`, the failing
// operation's own kind, for an error its origin left Unspecified.
ErrorKind classify(const Error& error, ErrorKind fallback);
inline void check(Status status, ErrorKind fallback) {
  if (!status.ok()) raise(classify(status.error(), fallback), status.error());
}
template <class T>
T check(Result<T> result, ErrorKind fallback) {
  if (!result.ok()) raise(classify(result.error(), fallback), result.error());
  return std::move(result).value();
}
// The loading of a kernel, which throws Compile (module.hpp) also where the
// device cannot run it (f64, float controls, images, its workgroup size, a
// property the device probe found wrong: Unsupported internally).
template <class T>
T check_kernel_load(Result<T> result) {
  if (!result.ok() && result.error().code == ErrorCode::Unsupported) raise(ErrorKind::Compile, result.error());
  return check(std::move(result), ErrorKind::Compile);
}

// The platform Device::open chooses from, once it is known to work; throws
// Unsupported when it cannot run (no Vulkan loader or driver).
device::DevicePlatform& available_platform();

// ------------------------------------------------------------------ buffers

struct BufferImpl {
  DeviceImpl* device = nullptr;
  std::unique_ptr<device::BackendBuffer> buffer;  // empty once freed
  uint64_t size = 0;
  uint32_t element_size = 1;
  uint32_t in_flight = 0;  // submissions not yet retired that use it
  bool released = false;   // the user's handle is gone
  bool staging = false;    // a StagingBuffer: host memory, no kernel argument

  // Freed now when no submission uses it, else when the last one retires.
  void release();
  void retire_use();
};

// ------------------------------------------------------------------ images

// As BufferImpl: alive while a handle or a submission uses it.
struct ImageImpl {
  DeviceImpl* device = nullptr;
  std::unique_ptr<device::BackendImage> image;  // empty once freed
  ImageFormat format = ImageFormat::Rgba8;
  ImageUsage usage = ImageUsage::Storage;
  uint32_t in_flight = 0;
  bool released = false;
  void release();
  void retire_use();
};

struct SamplerImpl {
  DeviceImpl* device = nullptr;
  std::unique_ptr<device::BackendSampler> sampler;
  Filter filter = Filter::Nearest;
  AddressMode address_mode = AddressMode::ClampToEdge;
  uint32_t in_flight = 0;
  bool released = false;
  void release();
  void retire_use();
};

// ------------------------------------------------------------------ kernels

// A resource commands read or write, for auto barriers: a BufferImpl or a
// ModuleImpl (its memory and instance state).
struct AccessedResource {
  const void* key = nullptr;
  bool write = false;
};

// One argument after binding to its parameter.
struct BoundArg {
  Argument::Kind kind = Argument::Kind::Integer;
  uint64_t bits = 0;  // scalars: the value converted to the parameter's type
  std::shared_ptr<BufferImpl> buffer;
  std::vector<uint8_t> bytes;
  std::shared_ptr<ImageImpl> image;
  std::shared_ptr<SamplerImpl> sampler;
};

// A launch with its arguments checked and bound in parameter order.
struct BoundLaunch {
  Launch shape = Launch(0u);
  std::vector<BoundArg> args;
};

struct ModuleImpl;

// One kernel of a module: its interface, the API's checks, and the device's
// kernel (a compiled wasm export, owned by the module's backend, or a SPIR-V
// entry point, owned here).
class KernelImpl {
 public:
  KernelImpl(ModuleImpl* module, KernelInterface interface, device::BackendKernel* backend, bool has_metadata)
      : module_(module), interface_(std::move(interface)), backend_(backend), has_metadata_(has_metadata) {}
  KernelImpl(ModuleImpl* module, KernelInterface interface, std::unique_ptr<device::BackendKernel> backend)
      : module_(module), interface_(std::move(interface)), owned_(std::move(backend)), backend_(owned_.get()) {}

  const KernelInterface& interface() const { return interface_; }
  ModuleImpl* module() const { return module_; }

  // Binds by position or name and checks every argument against the
  // interface; throws InvalidArgument / WrongDevice / UseAfterMove.
  BoundLaunch bind(DeviceImpl& device, const Launch& shape, std::span<const Argument> args) const;
  // Checks one replacement value for parameter `index` (set_argument).
  BoundArg bind_one(DeviceImpl& device, uint32_t index, const Argument& value) const;
  // Parameter position of `name`; throws NotFound listing the names.
  uint32_t param_index(std::string_view name) const;

  // The device's checks (shape limits, the compile) before recording.
  void check(const BoundLaunch& launch);
  std::unique_ptr<device::BackendRecordedLaunch> record(device::BackendCommandList& list, const BoundLaunch& launch);
  // New arguments for a recorded launch; false when it must be recorded anew.
  bool rebind(device::BackendRecordedLaunch& recorded, const BoundLaunch& launch) const;
  // What the launch reads and writes besides its buffer arguments.
  void extra_accesses(std::vector<AccessedResource>& out) const;
  // Wasm kernels without metadata take buffers for any i32 parameter.
  bool buffer_fits_scalar(const Param& param) const;

  // The workgroup size `launch` gets (launch_shape.h). With `tuning` set, a
  // launch of a tunable kernel may be the autotuner's timing of a candidate:
  // then *tuning holds its key, and the caller reports its time.
  LaunchChoice choose(DeviceImpl& device, const Launch& launch, std::optional<Sha256Digest>* tuning);
  // `launch` with the chosen size filled in (unchanged where the user set it).
  static Launch with_choice(const Launch& launch, const LaunchChoice& choice);

 private:
  // The arguments as the device takes them (pointing into `launch`).
  std::vector<device::BackendArg> device_args(const BoundLaunch& launch) const;

  const SizeDependence& size_dependence();

  ModuleImpl* module_;
  KernelInterface interface_;
  std::optional<SizeDependence> size_dependence_;  // computed on first use
  std::unique_ptr<device::BackendKernel> owned_;
  device::BackendKernel* backend_ = nullptr;
  bool has_metadata_ = false;
};

struct ModuleImpl {
  DeviceImpl* device = nullptr;
  KernelSource source = KernelSource::Wasm;
  std::unique_ptr<device::BackendModule> wasm;  // wasm modules
  std::vector<uint32_t> spirv;                  // SPIR-V modules: the words
  std::vector<KernelInterface> interfaces;
  // What the module's code is (its bytes and compile options), for the
  // autotuner's keys; unset when the autotuner was off at load.
  std::optional<Sha256Digest> identity;
  std::map<std::string, std::unique_ptr<KernelImpl>, std::less<>> kernels;  // created on first use
  // The device heap (api/heap.h), when the module's kernels allocate: it
  // lives as long as the module, so blocks outlive the launch that made them.
  std::unique_ptr<device::BackendBuffer> heap;
  uint64_t heap_bytes = 0;
  // Kernel output (api/print_ring.h): the ring, when the module prints, and
  // its static memory for the format strings.
  std::unique_ptr<device::BackendBuffer> print_ring;
  uint64_t print_ring_bytes = 0;
  bool print_invocation = false;
  std::vector<uint8_t> static_memory;
};

// Formats and delivers what the module's kernels printed, empties the ring,
// and returns the first assert's or abort's text ("" when none).
std::string drain_print_ring(ModuleImpl& module);

// The kernel `name` of a module, created on first use; throws NotFound.
KernelImpl& kernel_of(ModuleImpl& module, std::string_view name);

// ------------------------------------------------------ command buffers

// The device's command list of a CommandBuffer, shared with its submissions
// so that it outlives the handle while the device uses it.
struct GpuState {
  std::unique_ptr<device::BackendCommandList> list;
  // What the current recording holds: per launch, its recorded item and its
  // kernel's name, in launch order (read when a submission finishes).
  std::vector<std::unique_ptr<device::BackendRecordedLaunch>> items;
  std::vector<std::string> item_kernels;
  ~GpuState();
};

struct Command {
  enum class Type { Launch, Copy, Fill, Barrier };
  Type type = Type::Launch;
  // Launch
  std::shared_ptr<KernelImpl> kernel;  // aliases its ModuleImpl's lifetime
  std::shared_ptr<ModuleImpl> module;
  BoundLaunch launch;
  uint32_t launch_index = 0;
  // Copy / Fill
  std::shared_ptr<BufferImpl> src, dst;
  uint64_t bytes = 0, src_offset = 0, dst_offset = 0;
  uint32_t pattern = 0;
  // Recorded with auto barriers on.
  bool auto_barrier = true;
};

struct TrapInfo {
  uint32_t launch_index = 0;
  std::string kernel;
  device::TrapReport report;
  std::string reason;  // a failed assert's or abort()'s text
};

struct SubmissionState {
  DeviceImpl* device = nullptr;
  // Declared before `gpu`, destroyed after it: recorded items (SPIR-V
  // descriptor sets) go before the kernels of the modules that made them.
  std::vector<std::shared_ptr<BufferImpl>> buffers;
  std::vector<std::shared_ptr<ImageImpl>> images;
  std::vector<std::shared_ptr<SamplerImpl>> samplers;
  std::vector<std::shared_ptr<ModuleImpl>> modules;
  std::shared_ptr<GpuState> gpu;
  bool finished = false;
  bool lost = false;
  std::string lost_message;
  bool direct = false;  // a Kernel call: traps read "kernel 'k' trapped"
  std::optional<TrapInfo> trap;
  std::string description;  // "a command buffer of 3 launches"
  // GPU timing (CommandBuffer::set_gpu_timing): whether the recording has
  // timestamps, and, once finished, the time between them or why not.
  bool timed = false;
  std::optional<double> gpu_seconds;
  std::string timing_error;

  // Polls (timeout 0) or waits; on completion reads the traps and releases
  // the resources. Returns whether it has finished; throws DeviceLost.
  bool poll(std::chrono::nanoseconds timeout);
};

struct CommandBufferImpl {
  DeviceImpl* device = nullptr;
  std::vector<Command> commands;
  bool auto_barriers = true;
  bool gpu_timing = false;       // set_gpu_timing
  bool recorded_timing = false;  // the recording in gpu->list has timestamps
  bool submitted = false;        // commands fixed until reset()
  uint32_t launches = 0;
  std::shared_ptr<GpuState> gpu;
  // The recording in gpu->cmd: valid while `recorded_generation` equals the
  // device's mapping generation (region tables are current).
  bool recorded = false;
  uint64_t recorded_generation = 0;
  std::shared_ptr<SubmissionState> last;  // the latest submission
  // Positions of the commands the last recording put an auto barrier before
  // (tests check the dependency analysis with it: synchronization validation
  // cannot see kernels' accesses through buffer device addresses).
  std::vector<size_t> auto_barrier_positions;

  bool running();  // the latest submission has not finished
  void clear();    // forgets the commands (not while running)
  void record();
  std::shared_ptr<SubmissionState> submit();
};

// ------------------------------------------------------------------ device

struct DeviceImpl {
  // Declared first: destroyed last.
  std::unique_ptr<device::DeviceBackend> backend;
  DeviceInfo info;
  uint32_t serial = 0;  // 1, 2, ...: which Device::open of the process
  std::vector<std::shared_ptr<SubmissionState>> in_flight;
  std::shared_ptr<CommandBufferImpl> direct;  // reused by Kernel calls
  std::unique_ptr<LaunchTuner> tuner;         // over `backend`
  // Where kernel output goes (Device::set_output_handler); empty: stdout and stderr.
  std::function<void(const KernelOutput&)> output_handler;

  explicit DeviceImpl(std::unique_ptr<device::DeviceBackend> backend);
  ~DeviceImpl();
  // Retires finished submissions (never blocks).
  void collect();
  std::shared_ptr<CommandBufferImpl> new_command_buffer();
};

// Lets the api layer reach the handles' internals.
struct Access {
  static const std::shared_ptr<BufferImpl>& buffer(const BufferBase& b) { return b.impl_; }
  static const std::shared_ptr<ImageImpl>& image(const Image& i) { return i.impl_; }
  static const std::shared_ptr<SamplerImpl>& sampler(const Sampler& s) { return s.impl_; }
  static const std::shared_ptr<DeviceImpl>& device(const BufferBase& b) { return b.device_; }
  static const std::shared_ptr<KernelImpl>& kernel(const Kernel& k) { return k.impl_; }
  static const std::shared_ptr<DeviceImpl>& device(const Kernel& k) { return k.device_; }
  static const std::shared_ptr<DeviceImpl>& device(const Device& d) { return d.impl_; }
  static const std::shared_ptr<CommandBufferImpl>& commands(const CommandBuffer& c) { return c.impl_; }
  static Submission submission(std::shared_ptr<DeviceImpl> device, std::shared_ptr<SubmissionState> state) {
    return Submission(std::move(device), std::move(state));
  }
  // A Device over `backend` (Device::open; tests open doubles).
  static Device open(std::unique_ptr<device::DeviceBackend> backend);
};

// The public DeviceInfo of a device's description.
DeviceInfo public_info(const device::DeviceDescription& description);

// The device for messages: "Device #2 (0 'llvmpipe (...)')": the serial
// tells apart two opens of one physical device.
std::string device_label(const DeviceImpl& device);

}  // namespace wasmgpu::detail

#include "cpu/cpu_device.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#include "abi/launch_abi.h"
#include "cpu/jit.h"
#include "cpu/kernel_support.h"
#include "cpu/lowerable.h"
#include "cpu/workgroup_fibers.h"
#include "frontend/kernel_signature.h"
#include "frontend/shared_memory.h"
#include "wasm/decoder.h"
#include "wasm/kernel_metadata.h"

namespace wasmgpu::cpu {

namespace {

constexpr uint32_t kDefaultWorkgroupSize = 64;
constexpr uint32_t kMaxWorkgroupInvocations = 1024;
constexpr uint64_t kMaxModuleMemory = abi::kBufferAddressBase;

class CpuBuffer : public device::BackendBuffer {
 public:
  CpuBuffer(AddressSpace& space, uint64_t address, uint64_t bytes) : space_(space), address_(address), bytes_(bytes) {}
  ~CpuBuffer() override { space_.release(address_); }
  uint64_t size() const override { return bytes_; }
  Status read(void* out, uint64_t bytes, uint64_t offset) const override {
    std::memcpy(out, space_.host(address_ + offset), bytes);
    return {};
  }
  Status write(const void* data, uint64_t bytes, uint64_t offset) override {
    std::memcpy(space_.host(address_ + offset), data, bytes);
    return {};
  }
  Status fill(uint32_t pattern) override {
    uint8_t* host = space_.host(address_);
    for (uint64_t i = 0; i + 4 <= bytes_; i += 4) std::memcpy(host + i, &pattern, 4);
    return {};
  }
  std::optional<uint64_t> wasm_address() const override { return address_; }
  uint8_t* host() const { return space_.host(address_); }

 private:
  AddressSpace& space_;
  uint64_t address_, bytes_;
};

// A module's own linear memory, apart from the buffers: every module has
// its own wasm addresses [0, size).
class ModuleMemory {
 public:
  static Result<std::unique_ptr<ModuleMemory>> create(uint64_t bytes) {
    auto memory = std::unique_ptr<ModuleMemory>(new ModuleMemory());
    memory->bytes_ = bytes;
    if (bytes == 0) return memory;
    void* host = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED)
      return make_error(ErrorCode::Unsupported, "cpu device: allocating " + std::to_string(bytes) +
                                                    " bytes of module memory failed: " + std::strerror(errno));
    memory->host_ = static_cast<uint8_t*>(host);
    return memory;
  }
  ~ModuleMemory() {
    if (host_) munmap(host_, bytes_);
  }
  uint8_t* host() const { return host_; }
  uint64_t bytes() const { return bytes_; }

 private:
  ModuleMemory() = default;
  uint8_t* host_ = nullptr;
  uint64_t bytes_ = 0;
};

// The traps of one launch: how many invocations trapped, and the lowest.
struct TrapRecord {
  std::mutex mutex;
  uint32_t count = 0;
  uint32_t lowest = abi::kNoTrapIndex;
  abi::TrapKind kind = abi::TrapKind::Unreachable;

  static void record(InvocationState* state, uint32_t invocation, uint32_t kind) {
    auto* self = static_cast<TrapRecord*>(state->owner);
    std::lock_guard lock(self->mutex);
    ++self->count;
    if (invocation < self->lowest) {
      self->lowest = invocation;
      self->kind = abi::TrapKind(kind);
    }
  }
  void reset() {
    count = 0;
    lowest = abi::kNoTrapIndex;
  }
};

struct Shape {
  uint32_t size[3] = {1, 1, 1};
  uint32_t groups[3] = {1, 1, 1};
  uint32_t count = 0;
  bool grid = false;
};

class CpuKernel;

class CpuRecordedLaunch : public device::BackendRecordedLaunch {
 public:
  CpuRecordedLaunch(CpuKernel& kernel, Shape shape, std::vector<device::BackendArg> args)
      : kernel_(kernel), shape_(shape), args_(std::move(args)) {}
  std::optional<device::TrapReport> trap() const override {
    if (trap_.count == 0) return std::nullopt;
    return device::TrapReport{trap_.count, trap_.kind, trap_.lowest};
  }
  Result<bool> rebind(std::span<const device::BackendArg> args) override {
    args_.assign(args.begin(), args.end());
    trap_.reset();
    return true;
  }
  void run();

 private:
  CpuKernel& kernel_;
  Shape shape_;
  std::vector<device::BackendArg> args_;
  TrapRecord trap_;
};

// Commands kept in order and run at submit; nothing runs in the background,
// so a submission has finished when submit() returns.
class CpuCommandList : public device::BackendCommandList {
 public:
  Status begin() override {
    steps_.clear();
    return {};
  }
  void barrier() override {}  // steps run one after another
  void copy(device::BackendBuffer& src, device::BackendBuffer& dst, uint64_t src_offset, uint64_t dst_offset,
            uint64_t bytes) override {
    steps_.push_back([&src, &dst, src_offset, dst_offset, bytes] {
      std::memmove(static_cast<CpuBuffer&>(dst).host() + dst_offset, static_cast<CpuBuffer&>(src).host() + src_offset,
                   bytes);
    });
  }
  void fill(device::BackendBuffer& dst, uint32_t pattern) override {
    steps_.push_back([&dst, pattern] { (void)dst.fill(pattern); });
  }
  void launch(CpuRecordedLaunch* recorded) {
    steps_.push_back([recorded] { recorded->run(); });
  }
  Status end() override { return {}; }
  Status submit() override {
    for (const auto& step : steps_) step();
    return {};
  }
  Result<bool> wait(std::chrono::nanoseconds, std::string_view) override { return true; }

 private:
  std::vector<std::function<void()>> steps_;
};

class CpuKernel : public device::BackendKernel {
 public:
  CpuKernel(CpuDevice& device, std::string name, const ModuleMemory& memory, frontend::FrontEndFacts facts,
            std::unique_ptr<NativeKernel> native, uint32_t shared_bytes, bool barriers)
      : device_(device),
        name_(std::move(name)),
        memory_(memory),
        facts_(std::move(facts)),
        native_(std::move(native)),
        shared_bytes_(shared_bytes),
        barriers_(barriers) {}

  Status check(const device::LaunchShape& shape, std::span<const device::BackendArg> args) override {
    Result<Shape> prepared = prepare(shape, args);
    if (!prepared.ok()) return prepared.error();
    return {};
  }
  Result<std::unique_ptr<device::BackendRecordedLaunch>> record(device::BackendCommandList& list,
                                                                const device::LaunchShape& shape,
                                                                std::span<const device::BackendArg> args) override {
    WASMGPU_ASSIGN_OR_RETURN(Shape prepared, prepare(shape, args));
    auto recorded =
        std::make_unique<CpuRecordedLaunch>(*this, prepared, std::vector<device::BackendArg>(args.begin(), args.end()));
    static_cast<CpuCommandList&>(list).launch(recorded.get());
    return std::unique_ptr<device::BackendRecordedLaunch>(std::move(recorded));
  }
  bool uses_module_state() const override { return memory_.bytes() > 0; }

  // Runs every invocation of `shape` with `args`, recording traps in `traps`.
  void run(const Shape& shape, std::span<const device::BackendArg> args, TrapRecord& traps);

 private:
  Result<Shape> prepare(const device::LaunchShape& shape, std::span<const device::BackendArg> args) const;
  std::string label() const { return "kernel '" + name_ + "' on the cpu device"; }

  CpuDevice& device_;
  std::string name_;
  const ModuleMemory& memory_;
  frontend::FrontEndFacts facts_;
  std::unique_ptr<NativeKernel> native_;
  uint32_t shared_bytes_;  // the WASMGPU_SHARED block each workgroup gets
  bool barriers_;          // invocations run as fibers (workgroup_fibers.h)
};

void CpuRecordedLaunch::run() { kernel_.run(shape_, args_, trap_); }

Result<Shape> CpuKernel::prepare(const device::LaunchShape& shape, std::span<const device::BackendArg> args) const {
  for (const device::BackendArg& arg : args)
    if (arg.kind != device::BackendArg::Kind::Scalar && arg.kind != device::BackendArg::Kind::Buffer)
      return make_error(ErrorCode::Unsupported, label() + ": only scalar and buffer arguments run on the cpu device");
  Shape out;
  for (int d = 0; d < 3; ++d) out.size[d] = shape.workgroup_size[d] ? shape.workgroup_size[d] : 1;
  if (shape.workgroup_size[0] == 0) out.size[0] = kDefaultWorkgroupSize;
  const uint64_t group = uint64_t(out.size[0]) * out.size[1] * out.size[2];
  if (group > kMaxWorkgroupInvocations)
    return make_error(ErrorCode::InvalidArgument, label() + ": workgroup of " + std::to_string(group) +
                                                      " invocations exceeds the device's limit of " +
                                                      std::to_string(kMaxWorkgroupInvocations));
  if (shape.groups) {
    out.grid = true;
    uint64_t invocations = 1;
    for (int d = 0; d < 3; ++d) {
      out.groups[d] = (*shape.groups)[d];
      if (out.groups[d] == 0)
        return make_error(ErrorCode::InvalidArgument,
                          label() + ": grid and workgroup size must be at least 1 in every dimension");
      invocations *= uint64_t(out.groups[d]) * out.size[d];
    }
    if (invocations > 0xFFFF'FFFFull)
      return make_error(ErrorCode::InvalidArgument, label() + ": grid of " + std::to_string(invocations) +
                                                        " invocations exceeds the 32-bit invocation index");
    out.count = uint32_t(invocations);
  } else {
    out.size[1] = out.size[2] = 1;
    out.count = shape.n;
    out.groups[0] = uint32_t((uint64_t(shape.n) + out.size[0] - 1) / out.size[0]);
  }
  return out;
}

void CpuKernel::run(const Shape& shape, std::span<const device::BackendArg> args, TrapRecord& traps) {
  if (shape.count == 0) return;
  std::vector<uint64_t> slots;
  for (const device::BackendArg& arg : args)
    slots.push_back(arg.kind == device::BackendArg::Kind::Buffer ? *static_cast<CpuBuffer*>(arg.buffer)->wasm_address()
                                                                 : arg.bits);
  LaunchContext launch;
  launch.memory_base = memory_.host();
  launch.memory_size = memory_.bytes();
  launch.buffer_base = device_.space().base();
  launch.page_end = device_.space().page_end();
  launch.args = slots.data();
  launch.record_trap = &TrapRecord::record;
  launch.barrier = &WorkgroupFibers::barrier;
  launch.subgroup = &WorkgroupFibers::subgroup;
  launch.count = shape.count;
  for (int d = 0; d < 3; ++d) {
    launch.workgroup_size[d] = shape.size[d];
    launch.workgroups[d] = shape.groups[d];
  }
  const uint64_t total_groups = uint64_t(shape.groups[0]) * shape.groups[1] * shape.groups[2];
  const uint64_t extent_x = uint64_t(shape.groups[0]) * shape.size[0];
  const uint64_t extent_y = uint64_t(shape.groups[1]) * shape.size[1];
  const uint32_t slot_size = facts_.stack.slot_size;
  const KernelEntry entry = native_->entry();
  std::atomic<uint64_t> next_group{0};
  // Workgroups in chunks, so that small kernels do not pay a fetch each.
  const uint64_t chunk = std::max<uint64_t>(1, total_groups / (uint64_t(device_.pool().size()) * 16));
  const uint32_t group_size = shape.size[0] * shape.size[1] * shape.size[2];
  device_.pool().run([&](uint32_t) {
    std::vector<uint8_t> stack(slot_size + 16);
    // Shared memory starts as zeros in every workgroup (a GPU leaves it
    // undefined; zeros make runs repeatable).
    std::vector<uint8_t> shared(shared_bytes_);
    std::optional<WorkgroupFibers> fibers;
    if (barriers_) fibers.emplace(group_size, slot_size);
    InvocationState state;
    state.launch = &launch;
    state.stack_slot = stack.data();
    state.owner = &traps;
    state.shared = shared.data();
    for (;;) {
      const uint64_t first = next_group.fetch_add(chunk);
      if (first >= total_groups) return;
      const uint64_t last = std::min(total_groups, first + chunk);
      for (uint64_t g = first; g < last; ++g) {
        const uint64_t gx = g % shape.groups[0];
        const uint64_t gy = g / shape.groups[0] % shape.groups[1];
        const uint64_t gz = g / (uint64_t(shape.groups[0]) * shape.groups[1]);
        if (!shared.empty()) std::memset(shared.data(), 0, shared.size());
        for (uint32_t lz = 0; lz < shape.size[2]; ++lz)
          for (uint32_t ly = 0; ly < shape.size[1]; ++ly) {
            const uint64_t y = gy * shape.size[1] + ly, z = gz * shape.size[2] + lz;
            const uint64_t row_base = y * extent_x + z * extent_x * extent_y;
            uint64_t begin = row_base + gx * shape.size[0];
            uint64_t end = std::min<uint64_t>(begin + shape.size[0], shape.count);
            if (begin >= end) continue;
            state.row_base = uint32_t(row_base);
            state.global_y = uint32_t(y);
            state.global_z = uint32_t(z);
            if (fibers) {
              for (uint64_t i = begin; i < end; ++i) fibers->add(state, uint32_t(i));
            } else {
              entry(&state, uint32_t(begin), uint32_t(end));
            }
          }
        if (fibers) fibers->run(entry);
      }
    }
  });
}

class CpuModule : public device::BackendModule {
 public:
  CpuModule(CpuDevice& device, wasm::Module module, std::vector<wasm::KernelMetadata> metadata,
            std::unique_ptr<ModuleMemory> memory, frontend::FloatMode float_mode)
      : device_(device),
        module_(std::move(module)),
        metadata_(std::move(metadata)),
        memory_(std::move(memory)),
        float_mode_(float_mode) {}
  const wasm::Module& wasm() const override { return module_; }
  std::span<const wasm::KernelMetadata> kernel_metadata() const override { return metadata_; }
  Result<device::BackendKernel*> kernel(std::string_view name) override {
    if (auto it = kernels_.find(name); it != kernels_.end()) return it->second.get();
    WASMGPU_TRY(frontend::check_kernel_signature(module_, name));
    const uint32_t index = module_.find_export(name, wasm::ExternalKind::Func)->index;
    const uint32_t roots[] = {index};
    WASMGPU_ASSIGN_OR_RETURN(frontend::FrontEndFacts facts, frontend::analyse_module(module_, roots, index, limits()));
    WASMGPU_TRY(check_cpu_support(module_, facts, name));
    WASMGPU_ASSIGN_OR_RETURN(frontend::SharedMemory shared, frontend::find_shared_memory(module_));
    const bool barriers = needs_fibers(module_, facts);
    WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<NativeKernel> native, compile_native_kernel(module_, facts, float_mode_));
    auto kernel = std::make_unique<CpuKernel>(device_, std::string(name), *memory_, std::move(facts), std::move(native),
                                              shared.hi - shared.lo, barriers);
    return kernels_.emplace(std::string(name), std::move(kernel)).first->second.get();
  }

 private:
  CpuDevice& device_;
  wasm::Module module_;
  std::vector<wasm::KernelMetadata> metadata_;
  std::unique_ptr<ModuleMemory> memory_;
  frontend::FloatMode float_mode_;
  std::map<std::string, std::unique_ptr<CpuKernel>, std::less<>> kernels_;
};

uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

// The cpu device as a platform of one device, opened by name.
class CpuPlatform : public device::DevicePlatform {
 public:
  CpuPlatform() : devices_{describe_cpu_device(cpu_thread_count())} {}
  Status available() override { return {}; }
  const std::vector<device::DeviceDescription>& devices() override { return devices_; }
  Result<uint32_t> choose(const std::optional<std::string>& spec) override {
    if (!spec) return 0u;
    std::string lower = *spec;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "cpu") return 0u;
    return make_error(ErrorCode::NotFound, "'" + *spec + "' does not name the cpu device (\"cpu\")");
  }
  std::string describe_devices() override { return "devices: " + devices_[0].summary; }
  Result<std::unique_ptr<device::DeviceBackend>> open(const device::OpenOptions&) override {
    WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<CpuDevice> device, CpuDevice::create(cpu_thread_count()));
    return std::unique_ptr<device::DeviceBackend>(std::move(device));
  }
  bool validation_enabled() override { return false; }
  std::vector<std::string> validation_messages() override { return {}; }
  void clear_validation_messages() override {}

 private:
  std::vector<device::DeviceDescription> devices_;
};

}  // namespace

device::DeviceDescription describe_cpu_device(uint32_t threads) {
  device::DeviceDescription d;
  d.name = "cpu";
  d.type = "CPU";
  d.driver = "wasmgpu native (LLVM 19 ORC JIT), " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  d.api_version = "-";
  d.float64 = true;
  d.int64 = true;
  d.max_buffer_bytes = abi::kAddressSpaceEnd - abi::kBufferAddressBase - abi::kBufferGuard;
  d.max_allocation_bytes = d.max_buffer_bytes;
  d.max_storage_buffer_range = d.max_buffer_bytes;
  d.max_workgroup_invocations = kMaxWorkgroupInvocations;
  d.max_workgroup_count_x = 0x7FFF'FFFF;
  d.subgroup_size = kSubgroupSize;
  d.device_local_memory_bytes = host_memory_bytes();
  d.summary = "'cpu' (CPU, " + d.driver + ")";
  return d;
}

Result<std::unique_ptr<CpuDevice>> CpuDevice::create(uint32_t threads) {
  WASMGPU_ASSIGN_OR_RETURN(AddressSpace * space, AddressSpace::create());
  return std::unique_ptr<CpuDevice>(new CpuDevice(space, threads));
}

CpuDevice::CpuDevice(AddressSpace* space, uint32_t threads)
    : space_(space), pool_(threads), description_(describe_cpu_device(threads)) {}

CpuDevice::~CpuDevice() = default;

Result<std::unique_ptr<device::BackendBuffer>> CpuDevice::create_buffer(uint64_t bytes) {
  WASMGPU_ASSIGN_OR_RETURN(uint64_t address, space_->allocate(bytes));
  return std::unique_ptr<device::BackendBuffer>(std::make_unique<CpuBuffer>(*space_, address, bytes));
}

Result<std::unique_ptr<device::BackendImage>> CpuDevice::create_image(const device::ImageDesc&) {
  return make_error(ErrorCode::Unsupported, "images are not on the cpu device yet (docs/cpu-device.md)");
}

Result<std::unique_ptr<device::BackendSampler>> CpuDevice::create_sampler(const device::SamplerDesc&) {
  return make_error(ErrorCode::Unsupported, "samplers are not on the cpu device yet (docs/cpu-device.md)");
}

Result<std::unique_ptr<device::BackendModule>> CpuDevice::load_wasm(std::span<const uint8_t> bytes,
                                                                    const spirv::CompileOptions& options) {
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module module, wasm::decode_and_validate(bytes));
  WASMGPU_ASSIGN_OR_RETURN(std::vector<wasm::KernelMetadata> metadata, wasm::read_kernel_metadata(module));
  uint64_t memory_bytes = module.memories.empty() ? 0 : module.memories[0].limits.min * abi::kPageSize;
  if (memory_bytes > kMaxModuleMemory)
    return make_error(ErrorCode::Unsupported, "the module's memory of " + std::to_string(memory_bytes) +
                                                  " bytes exceeds the 256 MiB a module may have");
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<ModuleMemory> memory, ModuleMemory::create(memory_bytes));
  for (const wasm::DataSegment& segment : module.data) {
    if (segment.mode != wasm::DataSegment::Mode::Active || segment.offset.instrs.empty() ||
        segment.offset.instrs[0].op != wasm::Opcode::I32Const)
      continue;  // kernels of such modules are refused (kernel_support.h)
    const uint64_t offset = uint32_t(segment.offset.instrs[0].imm64);
    if (offset + segment.bytes.size() > memory_bytes)
      return make_error(ErrorCode::Validation, "a data segment lies outside the module's memory");
    std::memcpy(memory->host() + offset, segment.bytes.data(), segment.bytes.size());
  }
  return std::unique_ptr<device::BackendModule>(std::make_unique<CpuModule>(
      *this, std::move(module), std::move(metadata), std::move(memory), options.float_mode));
}

Result<std::unique_ptr<device::BackendKernel>> CpuDevice::create_spirv_kernel(std::span<const uint32_t>,
                                                                              const KernelInterface& interface) {
  return make_error(ErrorCode::Unsupported, "SPIR-V kernel '" + interface.name +
                                                "' cannot run on the cpu device: foreign SPIR-V (GLSL, HLSL, ...) "
                                                "is a GPU shader; the cpu device runs wasm kernels");
}

Result<std::unique_ptr<device::BackendCommandList>> CpuDevice::create_command_list() {
  return std::unique_ptr<device::BackendCommandList>(std::make_unique<CpuCommandList>());
}

}  // namespace wasmgpu::cpu

namespace wasmgpu::device {

DevicePlatform* cpu_platform() {
  static DevicePlatform* platform = new cpu::CpuPlatform();
  return platform;
}

}  // namespace wasmgpu::device

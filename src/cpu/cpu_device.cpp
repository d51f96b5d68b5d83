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
#include "cpu/ir_lowering.h"
#include "cpu/jit.h"
#include "cpu/kernel_support.h"
#include "cpu/lowerable.h"
#include "cpu/workgroup_fibers.h"
#include "device/device_backend.h"  // spirv::CompileOptions, CallInfo: the device interface's types
#include "frontend/instance_state.h"
#include "frontend/kernel_signature.h"
#include "frontend/shared_memory.h"
#include "frontend/start_function.h"
#include "support/host_clock.h"
#include "wasm/code_site.h"
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
// its own wasm addresses [0, size). The mapping holds the whole reserve
// memory.grow may reach (pages are only backed once touched).
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

// A module instance's InstanceState (abi/launch_abi.h's layout): host
// addresses where the layout has device addresses.
class ModuleInstance {
 public:
  static Result<std::unique_ptr<ModuleInstance>> create(const wasm::Module& module,
                                                        std::span<const uint64_t> imported_globals,
                                                        ModuleMemory& memory) {
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint8_t> initial,
                             frontend::initial_instance_state(module, imported_globals, memory.bytes()));
    auto instance = std::unique_ptr<ModuleInstance>(new ModuleInstance());
    instance->words_.resize((initial.size() + 7) / 8 + 1, 0);
    std::memcpy(instance->words_.data(), initial.data(), initial.size());
    instance->data_ = frontend::data_segment_bytes(module);
    const uint8_t* memory_host = memory.host();
    const uint8_t* data_host = instance->data_.data();
    std::memcpy(instance->bytes() + abi::kInstanceMemoryAddress, &memory_host, 8);
    std::memcpy(instance->bytes() + abi::kInstanceDataSegments, &data_host, 8);
    return instance;
  }
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(words_.data()); }

  // LaunchContext::memory_grow.
  static int32_t grow(uint8_t* instance, uint32_t delta) {
    std::atomic_ref<uint32_t> pages(*reinterpret_cast<uint32_t*>(instance + abi::kInstanceMemoryPages));
    uint32_t limit;
    std::memcpy(&limit, instance + abi::kInstanceMemoryLimitPages, 4);
    uint32_t old = pages.load();
    for (;;) {
      const uint64_t grown = uint64_t(old) + delta;
      if (grown > limit) return -1;
      if (pages.compare_exchange_weak(old, uint32_t(grown))) return int32_t(old);
    }
  }

 private:
  ModuleInstance() = default;
  std::vector<uint64_t> words_;  // 8-byte aligned
  std::vector<uint8_t> data_;    // every data segment's bytes (memory.init reads them)
};

// The traps of one launch: how many invocations trapped, and the lowest.
struct TrapRecord {
  std::mutex mutex;
  uint32_t count = 0;
  uint32_t lowest = abi::kNoTrapIndex;
  abi::TrapKind kind = abi::TrapKind::Unreachable;
  uint32_t site = abi::kNoTrapSite;        // the lowest invocation's trapping instruction
  uint64_t address = abi::kNoTrapAddress;  // and its access (InvocationState::trap_address)
  uint32_t bytes = 0;

  static void record(InvocationState* state, uint32_t invocation, uint32_t kind) {
    auto* self = static_cast<TrapRecord*>(state->owner);
    std::lock_guard lock(self->mutex);
    ++self->count;
    if (invocation < self->lowest) {
      self->lowest = invocation;
      self->kind = abi::TrapKind(kind);
      self->site = state->trap_site;
      self->address = state->trap_address;
      self->bytes = state->trap_bytes;
    }
  }
  void reset() {
    count = 0;
    lowest = abi::kNoTrapIndex;
    site = abi::kNoTrapSite;
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
  std::optional<device::TrapReport> trap() const override;
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
  CpuKernel(CpuDevice& device, std::string name, const ModuleMemory& memory, ModuleInstance& instance,
            bool uses_instance, frontend::FrontEndFacts facts, std::unique_ptr<NativeKernel> native,
            uint32_t shared_bytes, bool barriers, std::string shared_global_write, const wasm::Module* trap_sites)
      : device_(device),
        name_(std::move(name)),
        memory_(memory),
        instance_(instance),
        uses_instance_(uses_instance),
        facts_(std::move(facts)),
        native_(std::move(native)),
        shared_bytes_(shared_bytes),
        barriers_(barriers),
        shared_global_write_(std::move(shared_global_write)),
        trap_sites_(trap_sites) {}

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
  bool uses_module_state() const override { return memory_.bytes() > 0 || uses_instance_; }

  // Runs every invocation of `shape` with `args`, recording traps in `traps`.
  void run(const Shape& shape, std::span<const device::BackendArg> args, TrapRecord& traps);
  // The module whose offsets trap sites name, under CompileOptions::trap_sites; else null.
  const wasm::Module* trap_sites_module() const { return trap_sites_; }

 private:
  Result<Shape> prepare(const device::LaunchShape& shape, std::span<const device::BackendArg> args) const;
  std::string label() const { return "kernel '" + name_ + "' on the cpu device"; }

  CpuDevice& device_;
  std::string name_;
  const ModuleMemory& memory_;
  ModuleInstance& instance_;
  bool uses_instance_;
  frontend::FrontEndFacts facts_;
  std::unique_ptr<NativeKernel> native_;
  uint32_t shared_bytes_;  // the WASMGPU_SHARED block each workgroup gets
  bool barriers_;          // invocations run as fibers (workgroup_fibers.h)
  // A mutable global the kernel may write, described; empty when none
  // (runtime::Kernel::shared_global_write, the same rule as on Vulkan).
  std::string shared_global_write_;
  const wasm::Module* trap_sites_;
};

void CpuRecordedLaunch::run() { kernel_.run(shape_, args_, trap_); }

std::optional<device::TrapReport> CpuRecordedLaunch::trap() const {
  if (trap_.count == 0) return std::nullopt;
  device::TrapReport report{trap_.count, trap_.kind, trap_.lowest};
  if (const wasm::Module* module = kernel_.trap_sites_module(); module && trap_.site != abi::kNoTrapSite) {
    report.site = wasm::describe_code_site(*module, trap_.site);
    if (trap_.address != abi::kNoTrapAddress) report.site += ", " + wasm::describe_access(trap_.address, trap_.bytes);
    report.site_invocation = trap_.lowest;
  }
  return report;
}

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
  if (out.count > 1 && !shared_global_write_.empty())
    return make_error(ErrorCode::Unsupported,
                      label() + " may write the mutable " + shared_global_write_ +
                          ", which every invocation of a launch shares: a launch of " + std::to_string(out.count) +
                          " invocations could lose updates to it and is refused (one invocation at a time "
                          "writes the instance's value; docs/memory-model.md, \"Globals\")");
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
  launch.instance = instance_.bytes();
  launch.memory_grow = &ModuleInstance::grow;
  launch.count = shape.count;
  launch.host_clock[0] = host_clock_ns(CLOCK_REALTIME);
  launch.host_clock[1] = host_clock_ns(CLOCK_MONOTONIC);
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
    std::vector<uint32_t> depths(facts_.graph.recursive_components.size());
    InvocationState state;
    state.launch = &launch;
    state.stack_slot = stack.data();
    state.owner = &traps;
    state.shared = shared.data();
    state.call_depths = depths.data();
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
              run_compiled(entry, &state, uint32_t(begin), uint32_t(end));
            }
          }
        if (fibers) fibers->run(entry);
      }
    }
  });
}

// The types a call passes: the scalars and v128.
bool is_callable(wasm::ValType type) {
  return type == wasm::ValType::I32 || type == wasm::ValType::I64 || type == wasm::ValType::F32 ||
         type == wasm::ValType::F64 || type == wasm::ValType::V128;
}

// A call's values as 8-byte slots: a v128 takes two, its low 8 bytes first,
// listed as two i64 (as the Vulkan device's CallInfo lists them).
std::vector<wasm::ValType> call_slots(const std::vector<wasm::ValType>& types) {
  std::vector<wasm::ValType> slots;
  for (wasm::ValType t : types) {
    if (t == wasm::ValType::V128)
      slots.insert(slots.end(), {wasm::ValType::I64, wasm::ValType::I64});
    else
      slots.push_back(t);
  }
  return slots;
}

// Calls that run on the calling thread rather than the pool: waking the
// workers costs more than a few calls.
constexpr size_t kCallsOnCaller = 64;

// Every callable export compiled into one native module at the first
// call; the exports the cpu device refuses are kept with the reason.
// At namespace scope rather than nested in CpuModule: clang decides whether a
// nested class with default member initializers is default-constructible
// before the enclosing class is complete, and std::optional<Calls>::emplace()
// then does not compile.
struct ModuleCalls {
  std::vector<spirv::CallInfo> infos;
  std::vector<uint32_t> entry_of;  // per info: index into native->calls()
  std::map<std::string, uint32_t, std::less<>> index;
  std::map<std::string, Error, std::less<>> refused;
  std::optional<Error> error;  // the whole compile failed
  frontend::StackLayout stack;
  size_t recursive_components = 0;
  uint32_t shared_bytes = 0;
  std::unique_ptr<NativeKernel> native;
};

class CpuModule : public device::BackendModule {
 public:
  CpuModule(CpuDevice& device, wasm::Module module, std::vector<wasm::KernelMetadata> metadata,
            std::unique_ptr<ModuleMemory> memory, std::unique_ptr<ModuleInstance> instance,
            const spirv::CompileOptions& options, const Sha256Digest& wasm_sha256)
      : device_(device),
        options_(options),
        wasm_sha256_(wasm_sha256),
        module_(std::move(module)),
        metadata_(std::move(metadata)),
        memory_(std::move(memory)),
        instance_(std::move(instance)),
        lowering_{options.float_mode, options.max_call_depth},
        uses_instance_(frontend::module_uses_instance_state(module_)) {}
  const wasm::Module& wasm() const override { return module_; }
  std::span<const wasm::KernelMetadata> kernel_metadata() const override { return metadata_; }
  bool runs_start_function() const override { return true; }
  Result<device::BackendKernel*> kernel(std::string_view name) override {
    if (auto it = kernels_.find(name); it != kernels_.end()) return it->second.get();
    WASMGPU_TRY(frontend::check_kernel_signature(module_, name));
    const uint32_t index = module_.find_export(name, wasm::ExternalKind::Func)->index;
    const uint32_t roots[] = {index};
    WASMGPU_ASSIGN_OR_RETURN(frontend::FrontEndFacts facts, frontend::analyse_module(module_, roots, index, limits()));
    WASMGPU_TRY(check_cpu_support(module_, facts, name));
    WASMGPU_ASSIGN_OR_RETURN(frontend::SharedMemory shared, frontend::find_shared_memory(module_));
    const bool barriers = needs_fibers(module_, facts);
    const std::string names[] = {std::string(name)};
    WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<NativeKernel> native, compile(facts, {}, "kernel", names));
    WASMGPU_ASSIGN_OR_RETURN(std::string written, shared_global_write(index));
    auto kernel = std::make_unique<CpuKernel>(device_, std::string(name), *memory_, *instance_, uses_instance_,
                                              std::move(facts), std::move(native), shared.hi - shared.lo, barriers,
                                              std::move(written), options_.trap_sites ? &module_ : nullptr);
    return kernels_.emplace(std::string(name), std::move(kernel)).first->second.get();
  }

  Result<const spirv::CallInfo*> call_info(std::string_view name) override {
    {
      // Built once, whichever host thread calls first.
      std::lock_guard lock(calls_mutex_);
      if (!calls_) build_calls();
    }
    if (calls_->error) return *calls_->error;
    if (auto it = calls_->index.find(name); it != calls_->index.end()) return &calls_->infos[it->second];
    if (auto it = calls_->refused.find(name); it != calls_->refused.end()) return it->second;
    return make_error(ErrorCode::NotFound, "the module exports no function named '" + std::string(name) + "'");
  }

  Result<std::vector<device::CallResult>> call(std::span<const device::CallRequest> calls,
                                               std::chrono::nanoseconds timeout) override;

  // Runs the module's start function once, as one call: what it writes to
  // memory, globals and tables stays for later launches and calls.
  Status run_start();

 private:
  // The first mutable global but the stack pointer that `function` may
  // write, described (empty when none); kept per function.
  Result<std::string> shared_global_write(uint32_t function) {
    std::lock_guard lock(written_mutex_);
    if (auto it = written_.find(function); it != written_.end()) return it->second;
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> written,
                             frontend::written_globals(module_, std::span(&function, 1)));
    std::string text;
    if (!written.empty()) {
      text = frontend::describe_global(module_, written[0]);
      if (written.size() > 1) text += " (and " + std::to_string(written.size() - 1) + " other global(s))";
    }
    return written_.emplace(function, std::move(text)).first->second;
  }

  using Calls = ModuleCalls;
  void build_calls();
  // Runs `calls` (entries[i] with calls[i].args, results typed by infos[i])
  // with `layout`'s stack and shared memory, into `out`: on the calling
  // thread in order when `on_caller`, else over the device's workers.
  void run_calls(const Calls& layout, std::span<const CallEntry> entries, std::span<const device::CallRequest> calls,
                 std::span<const spirv::CallInfo* const> infos, std::vector<device::CallResult>& out, bool on_caller);
  std::string start_function_text() const {
    const uint32_t function = module_.start.value_or(0);
    return "the start function '" + module_.function_name(function) + "' (function " + std::to_string(function) + ")";
  }
  // compile_native through the device's native code cache.
  Result<std::unique_ptr<NativeKernel>> compile(const frontend::FrontEndFacts& facts, std::span<const uint32_t> calls,
                                                std::string_view kind, std::span<const std::string> names);

  CpuDevice& device_;
  spirv::CompileOptions options_;
  Sha256Digest wasm_sha256_;
  wasm::Module module_;
  std::vector<wasm::KernelMetadata> metadata_;
  std::unique_ptr<ModuleMemory> memory_;
  std::unique_ptr<ModuleInstance> instance_;
  LoweringOptions lowering_;
  bool uses_instance_;
  std::map<std::string, std::unique_ptr<CpuKernel>, std::less<>> kernels_;
  std::mutex calls_mutex_;
  std::optional<Calls> calls_;
  std::mutex written_mutex_;
  std::map<uint32_t, std::string> written_;
};

void CpuModule::build_calls() {
  Calls& out = calls_.emplace();
  auto refuse = [&](const std::string& name, const std::string& why, ErrorCode code) {
    out.refused.emplace(name, make_error(code, "export '" + name + "' cannot be called: " + why));
  };
  std::vector<uint32_t> functions;  // distinct function indices, in export order
  for (const wasm::Export& e : module_.exports) {
    if (e.kind != wasm::ExternalKind::Func) continue;
    if (e.index < module_.imported_functions) {
      refuse(e.name, "it re-exports an imported function", ErrorCode::Compile);
      continue;
    }
    const wasm::FuncType& type = module_.function_type(e.index);
    bool callable = true;
    for (wasm::ValType t : type.params) callable = callable && is_callable(t);
    for (wasm::ValType t : type.results) callable = callable && is_callable(t);
    if (!callable) {
      refuse(e.name, "its signature has a reference type (calls pass i32, i64, f32, f64 and v128 only)",
             ErrorCode::Compile);
      continue;
    }
    const uint32_t roots[] = {e.index};
    Result<frontend::FrontEndFacts> facts = frontend::analyse_module(module_, roots, std::nullopt, limits());
    if (!facts.ok()) {
      refuse(e.name, facts.error().to_string(), ErrorCode::Compile);
      continue;
    }
    if (Status supported = check_cpu_support(module_, *facts, e.name); !supported.ok()) {
      refuse(e.name, supported.error().to_string(), ErrorCode::Unsupported);
      continue;
    }
    if (needs_fibers(module_, *facts)) {
      refuse(e.name,
             "the cpu device does not run barriers or subgroup operations in calls (a call is one invocation alone)",
             ErrorCode::Unsupported);
      continue;
    }
    spirv::CallInfo info{e.name, e.index, call_slots(type.params), call_slots(type.results),
                         facts->side_effects.at(e.index)};
    auto found = std::find(functions.begin(), functions.end(), e.index);
    out.entry_of.push_back(uint32_t(found - functions.begin()));
    if (found == functions.end()) functions.push_back(e.index);
    out.index.emplace(e.name, uint32_t(out.infos.size()));
    out.infos.push_back(std::move(info));
  }
  if (functions.empty()) return;
  Result<frontend::FrontEndFacts> facts = frontend::analyse_module(module_, functions, std::nullopt, limits());
  if (!facts.ok()) {
    out.error = facts.error();
    return;
  }
  Result<frontend::SharedMemory> shared = frontend::find_shared_memory(module_);
  if (!shared.ok()) {
    out.error = shared.error();
    return;
  }
  out.shared_bytes = shared->hi - shared->lo;
  out.stack = facts->stack;
  out.recursive_components = facts->graph.recursive_components.size();
  std::vector<std::string> names;
  for (const spirv::CallInfo& info : out.infos) names.push_back(info.export_name);
  Result<std::unique_ptr<NativeKernel>> native = compile(*facts, functions, "calls", names);
  if (!native.ok()) {
    out.error = native.error();
    return;
  }
  out.native = std::move(native.value());
}

Result<std::unique_ptr<NativeKernel>> CpuModule::compile(const frontend::FrontEndFacts& facts,
                                                         std::span<const uint32_t> calls, std::string_view kind,
                                                         std::span<const std::string> names) {
  NativeCodeCache& cache = device_.native_cache();
  const Sha256Digest key = NativeCodeCache::key(kind, wasm_sha256_, options_, names);
  if (std::optional<std::vector<uint8_t>> object = cache.read(key)) {
    Result<std::unique_ptr<NativeKernel>> linked = compile_native(module_, facts, lowering_, calls, &*object);
    if (linked.ok()) return linked;
    cache.reject(key);
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint8_t> object;
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<NativeKernel> native,
                           compile_native(module_, facts, lowering_, calls, nullptr, &object));
  cache.wrote_compile(key, object, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return native;
}

Result<std::vector<device::CallResult>> CpuModule::call(std::span<const device::CallRequest> calls,
                                                        std::chrono::nanoseconds) {
  // Calls run to their end on the host's threads: there is nothing to time
  // out (a call in an endless loop never returns, as a kernel's would not).
  std::vector<const spirv::CallInfo*> infos;
  std::vector<CallEntry> entries;
  bool side_effects = false;
  for (size_t i = 0; i < calls.size(); ++i) {
    WASMGPU_ASSIGN_OR_RETURN(const spirv::CallInfo* info, call_info(calls[i].export_name));
    const std::string where = "call " + std::to_string(i) + " of '" + calls[i].export_name + "'";
    if (calls[i].args.size() != info->params.size())
      return make_error(ErrorCode::InvalidArgument, where + ": it takes " + std::to_string(info->params.size()) +
                                                        " argument(s), but " + std::to_string(calls[i].args.size()) +
                                                        " were given");
    for (size_t a = 0; a < info->params.size(); ++a)
      if (calls[i].args[a].type != info->params[a])
        return make_error(ErrorCode::InvalidArgument, where + ": argument " + std::to_string(a + 1) + " is " +
                                                          wasm::to_string(info->params[a]) + ", but " +
                                                          wasm::to_string(calls[i].args[a].type) + " was given");
    infos.push_back(info);
    entries.push_back(calls_->native->calls()[calls_->entry_of[calls_->index.find(calls[i].export_name)->second]]);
    side_effects = side_effects || info->has_side_effects;
  }
  std::vector<device::CallResult> out(calls.size());
  if (calls.empty()) return out;
  if (calls.size() > 1)
    for (size_t i = 0; i < calls.size(); ++i) {
      if (!infos[i]->has_side_effects) continue;
      WASMGPU_ASSIGN_OR_RETURN(std::string written, shared_global_write(infos[i]->function_index));
      if (written.empty()) continue;
      return make_error(ErrorCode::Unsupported,
                        "call " + std::to_string(i) + " of '" + calls[i].export_name + "' may write the mutable " +
                            written + ", which every call of a launch shares: a launch of " +
                            std::to_string(calls.size()) +
                            " calls could lose updates to it and is refused (one call at a time writes the "
                            "instance's value; docs/memory-model.md, \"Globals\")");
    }
  // Calls with side effects run one after another in their order (one of
  // the orders a GPU may give them); others spread over the workers.
  run_calls(*calls_, entries, calls, infos, out, side_effects || calls.size() <= kCallsOnCaller);
  return out;
}

void CpuModule::run_calls(const Calls& layout, std::span<const CallEntry> entries,
                          std::span<const device::CallRequest> calls, std::span<const spirv::CallInfo* const> infos,
                          std::vector<device::CallResult>& out, bool on_caller) {
  LaunchContext launch;
  launch.memory_base = memory_->host();
  launch.memory_size = memory_->bytes();
  launch.buffer_base = device_.space().base();
  launch.page_end = device_.space().page_end();
  launch.instance = instance_->bytes();
  launch.memory_grow = &ModuleInstance::grow;
  launch.count = uint32_t(calls.size());
  launch.workgroups[0] = uint32_t(calls.size());
  launch.host_clock[0] = host_clock_ns(CLOCK_REALTIME);
  launch.host_clock[1] = host_clock_ns(CLOCK_MONOTONIC);
  std::atomic<size_t> next{0};
  auto worker = [&](uint32_t) {
    std::vector<uint8_t> stack(layout.stack.slot_size + 16);
    std::vector<uint8_t> shared(layout.shared_bytes);
    std::vector<uint32_t> depths(layout.recursive_components);
    InvocationState state;
    state.launch = &launch;
    state.stack_slot = stack.data();
    state.shared = shared.data();
    state.call_depths = depths.data();
    std::vector<uint64_t> params, results;
    for (size_t i; (i = next.fetch_add(1)) < calls.size();) {
      params.clear();
      for (const device::CallValue& v : calls[i].args) params.push_back(v.bits);
      results.assign(infos[i]->results.size() + 1, 0);
      state.invocation = uint32_t(i);
      run_compiled(entries[i], &state, params.data(), results.data());
      device::CallResult& result = out[i];
      if (state.trap != 0) {
        result.trapped = true;
        result.trap = abi::TrapKind(state.trap - 1);
        if (options_.trap_sites) {
          result.trap_site = wasm::describe_code_site(module_, state.trap_site);
          if (state.trap_address != abi::kNoTrapAddress)
            result.trap_site += ", " + wasm::describe_access(state.trap_address, state.trap_bytes);
        }
        continue;
      }
      for (size_t r = 0; r < infos[i]->results.size(); ++r) {
        const wasm::ValType type = infos[i]->results[r];
        const bool narrow = type == wasm::ValType::I32 || type == wasm::ValType::F32;
        result.values.push_back(device::CallValue{type, narrow ? results[r] & 0xFFFF'FFFFu : results[r]});
      }
    }
  };
  if (on_caller)
    worker(0);
  else
    device_.pool().run(worker);
}

Status CpuModule::run_start() {
  const uint32_t function = *module_.start;
  const std::string what = start_function_text();
  auto refuse = [&](const Error& error) {
    Error out = error;
    out.message = what + " cannot run on the cpu device, so the module cannot be instantiated: " + error.message;
    return out;
  };
  if (const wasm::Import* import = module_.imported_function(function))
    return make_error(ErrorCode::Unsupported, what + " is the imported function " + import->module + "." +
                                                  import->name + ", which cannot run on the device");
  // Its waits lowered as in an invocation that runs alone (start_function.h);
  // declared before the native code compiled from it.
  const wasm::Module start_module = frontend::start_function_module(module_);
  const uint32_t roots[] = {function};
  Result<frontend::FrontEndFacts> facts = frontend::analyse_module(start_module, roots, std::nullopt, limits());
  if (!facts.ok()) return refuse(facts.error());
  if (Status supported = check_cpu_support(start_module, *facts, start_module.function_name(function)); !supported.ok())
    return refuse(supported.error());
  if (needs_fibers(start_module, *facts))
    return make_error(ErrorCode::Unsupported,
                      what + " uses barriers or subgroup operations, which need a workgroup; it runs alone");
  WASMGPU_ASSIGN_OR_RETURN(frontend::SharedMemory shared, frontend::find_shared_memory(start_module));
  Calls layout;
  layout.shared_bytes = shared.hi - shared.lo;
  layout.stack = facts->stack;
  layout.recursive_components = facts->graph.recursive_components.size();
  Result<std::unique_ptr<NativeKernel>> native = compile_native(start_module, *facts, lowering_, roots);
  if (!native.ok()) return refuse(native.error());
  layout.native = std::move(native.value());
  const std::string name = "<start function>";
  const CallEntry entries[] = {layout.native->calls()[0]};
  const device::CallRequest calls[] = {device::CallRequest{name, {}}};
  const spirv::CallInfo info{name, function, {}, {}, true};
  const spirv::CallInfo* infos[] = {&info};
  std::vector<device::CallResult> out(1);
  run_calls(layout, entries, calls, infos, out, true);
  if (out[0].trapped)
    return make_error(ErrorCode::Trap,
                      what + " trapped: " + abi::to_string(out[0].trap) + "; the module cannot be instantiated");
  return {};
}

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
  Result<std::unique_ptr<device::DeviceBackend>> open(const device::OpenOptions& options) override {
    WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<CpuDevice> device, CpuDevice::create(cpu_thread_count(), options));
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

Result<std::unique_ptr<CpuDevice>> CpuDevice::create(uint32_t threads, const device::OpenOptions& options) {
  WASMGPU_ASSIGN_OR_RETURN(AddressSpace * space, AddressSpace::create());
  return std::unique_ptr<CpuDevice>(new CpuDevice(space, threads, options));
}

CpuDevice::CpuDevice(AddressSpace* space, uint32_t threads, const device::OpenOptions& options)
    : space_(space), pool_(threads), native_cache_(options), description_(describe_cpu_device(threads)) {}

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
  return load_wasm_with_globals(bytes, options, {});
}

Result<std::unique_ptr<device::BackendModule>> CpuDevice::load_wasm_with_globals(
    std::span<const uint8_t> bytes, const spirv::CompileOptions& options, std::span<const uint64_t> imported_globals) {
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module module, wasm::decode_and_validate(bytes));
  // The native code addresses memory 0 through one base register and one
  // bound; memories after it (multi-memory) are not lowered here.
  if (module.total_memories() > 1)
    return make_error(ErrorCode::Unsupported, "the module has " + std::to_string(module.total_memories()) +
                                                  " memories (multi-memory): the cpu device supports one memory; "
                                                  "the Vulkan device runs modules with several");
  WASMGPU_ASSIGN_OR_RETURN(std::vector<wasm::KernelMetadata> metadata, wasm::read_kernel_metadata(module));
  size_t imported_global_count = 0;
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Global) ++imported_global_count;
  if (imported_globals.size() != imported_global_count)
    return make_error(ErrorCode::Compile, "the module imports " + std::to_string(imported_global_count) +
                                              " global(s), but " + std::to_string(imported_globals.size()) +
                                              " value(s) were given");
  // An imported memory is the module's own, of the imported limits (as on
  // Vulkan: nothing is shared between modules).
  const std::optional<wasm::Limits> limits = memory_limits(module);
  const uint64_t memory_bytes = limits ? limits->min * abi::kPageSize : 0;
  if (memory_bytes > kMaxModuleMemory)
    return make_error(ErrorCode::Unsupported, "the module's memory of " + std::to_string(memory_bytes) +
                                                  " bytes exceeds the 256 MiB a module may have");
  // The reserve memory.grow may reach: the Vulkan device's, within the
  // module memory's range below the buffers.
  const uint64_t reserve = std::min(frontend::memory_reserve_bytes(module), kMaxModuleMemory);
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<ModuleMemory> memory, ModuleMemory::create(reserve));
  for (const wasm::DataSegment& segment : module.data) {
    if (segment.mode != wasm::DataSegment::Mode::Active || segment.offset.instrs.empty() ||
        segment.offset.instrs[0].op != wasm::Opcode::I32Const)
      continue;  // kernels of such modules are refused (kernel_support.h)
    const uint64_t offset = uint32_t(segment.offset.instrs[0].imm64);
    if (offset + segment.bytes.size() > memory_bytes)
      return make_error(ErrorCode::Validation, "a data segment lies outside the module's memory");
    // An empty segment copies nothing (and memcpy may not be given the null
    // pointers of an empty vector or a memory of no pages).
    if (!segment.bytes.empty()) std::memcpy(memory->host() + offset, segment.bytes.data(), segment.bytes.size());
  }
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<ModuleInstance> instance,
                           ModuleInstance::create(module, imported_globals, *memory));
  auto loaded = std::make_unique<CpuModule>(*this, std::move(module), std::move(metadata), std::move(memory),
                                            std::move(instance), options, sha256(bytes));
  if (loaded->wasm().start) WASMGPU_TRY(loaded->run_start());
  return std::unique_ptr<device::BackendModule>(std::move(loaded));
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

// Modules, kernels and loading, over the device's modules and kernels.
#include "wasmgpu/module.hpp"

#include <fstream>
#include <iterator>

#include <cstdio>
#include <cstring>

#include "api/heap.h"
#include "api/impl.h"
#include "api/print_ring.h"
#include "api/wasi_fd_write.h"
#include "support/units.h"
#include "wasm/decoder.h"
#include "abi/launch_abi.h"
#include "reflect/spirv_reflect.h"
#include "reflect/wasm_interface.h"
#include "support/environment.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace detail {

namespace {

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) raise(ErrorKind::Io, "cannot open '" + path.string() + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) raise(ErrorKind::Io, "cannot read '" + path.string() + "'");
  return bytes;
}

}  // namespace

std::string drain_print_ring(ModuleImpl& module) {
  if (!module.print_ring) return {};
  std::vector<uint32_t> words(kPrintRingHeaderWords);
  check(module.print_ring->read(words.data(), words.size() * 4, 0), ErrorKind::Vulkan);
  const uint32_t capacity = words[kPrintRingCapacity];
  const uint64_t used = std::min<uint64_t>(words[kPrintRingUsed], capacity);
  if (used == 0 && words[kPrintRingDroppedRecords] == 0 && words[kPrintRingTrapClaimed] == 0) return {};
  words.resize(kPrintRingHeaderWords + used);
  if (used > 0)
    check(module.print_ring->read(words.data() + kPrintRingHeaderWords, used * 4, kPrintRingHeaderWords * 4),
          ErrorKind::Vulkan);
  DrainedOutput drained = format_print_ring(words, module.static_memory, module.print_invocation);
  // Emptied for the next launch: the capacity stays.
  std::vector<uint32_t> header(kPrintRingHeaderWords, 0);
  header[kPrintRingCapacity] = capacity;
  check(module.print_ring->write(header.data(), header.size() * 4, 0), ErrorKind::Vulkan);
  KernelOutput output;
  output.text = std::move(drained.text);
  output.error_text = std::move(drained.error_text);
  output.dropped_records = drained.dropped_records;
  output.dropped_bytes = drained.dropped_bytes;
  output.buffer_bytes = module.print_ring_bytes;
  if (!output.text.empty() || !output.error_text.empty() || output.dropped_records > 0) {
    if (module.device->output_handler) {
      module.device->output_handler(output);
    } else {
      std::fwrite(output.text.data(), 1, output.text.size(), stdout);
      std::fflush(stdout);
      std::fwrite(output.error_text.data(), 1, output.error_text.size(), stderr);
      if (output.dropped_records > 0)
        std::fprintf(stderr,
                     "wasmgpu: the print buffer (%s) was full: %llu record(s) of kernel output (%llu bytes) were "
                     "dropped; raise WASMGPU_PRINT_BUFFER or ModuleOptions::print_buffer_bytes\n",
                     format_bytes(output.buffer_bytes).c_str(), (unsigned long long)output.dropped_records,
                     (unsigned long long)output.dropped_bytes);
    }
  }
  if (!drained.trap) return {};
  return drained.trap->text + " at invocation " + std::to_string(drained.trap->invocation);
}

KernelImpl& kernel_of(ModuleImpl& module, std::string_view name) {
  if (auto it = module.kernels.find(name); it != module.kernels.end()) return *it->second;
  const KernelInterface* interface = nullptr;
  for (const KernelInterface& k : module.interfaces)
    if (k.name == name) interface = &k;
  if (!interface) {
    std::string names;
    for (const KernelInterface& k : module.interfaces) names += (names.empty() ? "'" : ", '") + k.name + "'";
    raise(ErrorKind::NotFound, "the module has no kernel named '" + std::string(name) +
                                   "' (its kernels: " + (names.empty() ? "none" : names) + ")");
  }
  std::unique_ptr<KernelImpl> kernel;
  if (module.source == KernelSource::Wasm) {
    device::BackendKernel* compiled = check_kernel_load(module.wasm->kernel(name));
    bool has_metadata = false;
    for (const wasm::KernelMetadata& m : module.wasm->kernel_metadata()) has_metadata |= m.kernel == name;
    kernel = std::make_unique<KernelImpl>(&module, *interface, compiled, has_metadata);
  } else {
    kernel = std::make_unique<KernelImpl>(
        &module, *interface, check_kernel_load(module.device->backend->create_spirv_kernel(module.spirv, *interface)));
  }
  return *module.kernels.emplace(std::string(name), std::move(kernel)).first->second;
}

}  // namespace detail

using detail::DeviceImpl;
using detail::ModuleImpl;

// ------------------------------------------------------------------ Kernel

Kernel::Kernel(std::shared_ptr<DeviceImpl> device, std::shared_ptr<detail::KernelImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}

const KernelInterface& Kernel::interface() const { return impl_->interface(); }
const std::string& Kernel::name() const { return impl_->interface().name; }

void Kernel::launch(Launch shape, std::span<const Argument> args) const {
  launch(shape, args, device_->backend->default_launch_timeout());
}

void Kernel::launch(Launch shape, std::span<const Argument> args, std::chrono::nanoseconds timeout) const {
  DeviceImpl& device = *device_;
  device.collect();
  // One command buffer kept for these calls; a new one while it still runs
  // (after a timeout).
  if (!device.direct || device.direct->running()) device.direct = device.new_command_buffer();
  detail::CommandBufferImpl& commands = *device.direct;
  commands.clear();
  detail::Command command;
  command.type = detail::Command::Type::Launch;
  command.module = std::shared_ptr<ModuleImpl>(impl_, impl_->module());
  command.kernel = impl_;
  std::optional<Sha256Digest> tuning;
  const LaunchChoice choice = impl_->choose(device, shape, &tuning);
  command.launch = impl_->bind(device, detail::KernelImpl::with_choice(shape, choice), args);
  impl_->check(command.launch);
  commands.commands.push_back(std::move(command));
  commands.launches = 1;
  std::shared_ptr<detail::SubmissionState> submission = commands.submit();
  submission->direct = true;
  // A tuning launch is timed from its submission (recording and pipeline
  // warm-ups are behind it) until it has finished, once: it is the user's
  // launch, not a repetition.
  const std::chrono::nanoseconds start = tuning ? device.tuner->clock() : std::chrono::nanoseconds(0);
  detail::Access::submission(device_, std::move(submission)).wait(timeout);
  if (tuning) device.tuner->report(*tuning, choice.workgroup_size[0], shape.n, device.tuner->clock() - start);
}

LaunchChoice Kernel::launch_shape(const Launch& launch) const { return impl_->choose(*device_, launch, nullptr); }

// ------------------------------------------------------------------ Module

Module::Module(std::shared_ptr<DeviceImpl> device, std::shared_ptr<ModuleImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

static ModuleImpl& live(const std::shared_ptr<ModuleImpl>& impl) {
  if (!impl) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Module");
  return *impl;
}

KernelSource Module::source() const { return live(impl_).source; }

Kernel Module::kernel(std::string_view name) {
  detail::KernelImpl& kernel = detail::kernel_of(live(impl_), name);
  // Aliasing: the handle keeps the module (which owns the kernel) alive.
  return Kernel(device_, std::shared_ptr<detail::KernelImpl>(impl_, &kernel));
}

std::vector<KernelInterface> Module::kernels() const { return live(impl_).interfaces; }

// ------------------------------------------------------------------ calls

namespace {

wasm::ValType wasm_type(ScalarType type) {
  switch (type) {
    case ScalarType::I32:
    case ScalarType::U32: return wasm::ValType::I32;
    case ScalarType::I64:
    case ScalarType::U64: return wasm::ValType::I64;
    case ScalarType::F32: return wasm::ValType::F32;
    case ScalarType::F64: return wasm::ValType::F64;
  }
  return wasm::ValType::I32;
}

ScalarType scalar_type(wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I64: return ScalarType::I64;
    case wasm::ValType::F32: return ScalarType::F32;
    case wasm::ValType::F64: return ScalarType::F64;
    default: return ScalarType::I32;
  }
}

}  // namespace

std::vector<CallResult> Module::call(std::string_view function, std::span<const std::vector<Value>> tuples,
                                     std::optional<std::chrono::nanoseconds> timeout) {
  std::vector<Call> calls;
  calls.reserve(tuples.size());
  for (const std::vector<Value>& args : tuples) calls.push_back(Call{std::string(function), args});
  return call(calls, timeout);
}

FunctionInfo Module::function_info(std::string_view function) {
  ModuleImpl& module = live(impl_);
  if (!module.wasm)
    detail::raise(ErrorKind::Unsupported, "a SPIR-V module has no exported functions to call (only kernels)");
  const spirv::CallInfo* info = detail::check(module.wasm->call_info(function), ErrorKind::Compile);
  FunctionInfo out;
  for (wasm::ValType type : info->params) out.params.push_back(scalar_type(type));
  for (wasm::ValType type : info->results) out.results.push_back(scalar_type(type));
  out.has_side_effects = info->has_side_effects;
  return out;
}

std::vector<CallResult> Module::call(std::span<const Call> calls, std::optional<std::chrono::nanoseconds> timeout) {
  ModuleImpl& module = live(impl_);
  if (!module.wasm)
    detail::raise(ErrorKind::Unsupported, "a SPIR-V module has no exported functions to call (only kernels)");
  std::vector<device::CallRequest> requests;
  requests.reserve(calls.size());
  for (const Call& call : calls) {
    device::CallRequest request{call.function, {}};
    for (const Value& v : call.args) request.args.push_back(device::CallValue{wasm_type(v.type), v.bits});
    requests.push_back(std::move(request));
  }
  device_->collect();
  std::vector<device::CallResult> results =
      detail::check(module.wasm->call(requests, timeout.value_or(device_->backend->default_launch_timeout())),
                    ErrorKind::InvalidArgument);
  detail::drain_print_ring(module);
  std::vector<CallResult> out;
  out.reserve(results.size());
  for (const device::CallResult& result : results) {
    CallResult converted;
    converted.trapped = result.trapped;
    if (result.trapped) converted.trap = abi::to_string(result.trap);
    converted.trap_site = result.trap_site;
    for (const device::CallValue& v : result.values) converted.values.push_back(Value{scalar_type(v.type), v.bits});
    out.push_back(std::move(converted));
  }
  return out;
}

// ------------------------------------------------------------------ loading

Module Device::load(std::span<const uint8_t> bytes, const ModuleOptions& options) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  if (reflect::is_spirv(bytes))
    return load_spirv(detail::check(reflect::spirv_words(bytes), ErrorKind::Compile), options);
  if (bytes.size() < 4 || bytes[0] != 0x00 || bytes[1] != 'a' || bytes[2] != 's' || bytes[3] != 'm')
    detail::raise(ErrorKind::Compile,
                  "neither a wasm module (\\0asm) nor SPIR-V (0x07230203): the first bytes "
                  "are not a known magic number");
  spirv::CompileOptions compile;
  compile.float_mode =
      options.float_mode == ModuleOptions::FloatMode::Fast ? spirv::FloatMode::Fast : spirv::FloatMode::Exact;
  if (options.max_call_depth) compile.max_call_depth = options.max_call_depth;
  if (std::optional<uint64_t> budget = options.inline_budget ? options.inline_budget : environment::inline_budget())
    compile.inline_budget = *budget;
  compile.trap_sites = options.trap_sites.value_or(environment::trap_sites());
  auto impl = std::make_shared<ModuleImpl>();
  // A module that prints (its libc has wasmgpu_runtime.c's print slot) gets
  // its ring, whose wasm address goes into the slot before the module's
  // memory is made from its data segments.
  std::vector<uint8_t> patched;
  // A module that allocates (its libc has wasmgpu_heap.c's heap slot, or
  // rust/wasmgpu.rs's or heap_runtime.ts's) gets its device heap the same way.
  const detail::HeapSlot heap_slot = detail::find_heap_slot(bytes);
  if (!heap_slot.error.empty()) detail::raise(ErrorKind::Compile, heap_slot.error);
  if (heap_slot.heap_field) {
    const uint64_t heap_bytes =
        options.heap_bytes.value_or(environment::heap_bytes().value_or(detail::kDefaultHeapBytes));
    if (heap_bytes < detail::kMinHeapBytes || heap_bytes > detail::kMaxHeapBytes)
      detail::raise(ErrorKind::InvalidArgument, "device heap of " + std::to_string(heap_bytes) +
                                                    " bytes (WASMGPU_HEAP, ModuleOptions::heap_bytes, --heap): it "
                                                    "must hold 8 KiB to 1 GiB");
    std::unique_ptr<device::BackendBuffer> heap =
        detail::check(impl_->backend->create_buffer(heap_bytes), ErrorKind::Unsupported);
    const std::optional<uint64_t> address = heap->wasm_address();
    if (!address || *address >= abi::kAddressSpaceEnd)
      detail::raise(ErrorKind::Unsupported,
                    "the module's kernels allocate (malloc, Rust's alloc, AssemblyScript's "
                    "new), but " +
                        detail::device_label(*impl_) +
                        " gives its device heap no wasm address, so kernels cannot reach it");
    detail::check(heap->fill(0), ErrorKind::Vulkan);  // every page free
    patched.assign(bytes.begin(), bytes.end());
    const uint32_t words[2] = {uint32_t(*address), detail::heap_pages(heap_bytes)};
    std::memcpy(patched.data() + *heap_slot.heap_field, words, sizeof words);
    impl->heap = std::move(heap);
    impl->heap_bytes = heap_bytes;
  }
  const detail::PrintSlot slot = detail::find_print_slot(bytes);
  if (!slot.error.empty()) detail::raise(ErrorKind::Compile, slot.error);
  // A module that imports WASI's fd_write itself gets the ring too, and a
  // definition of fd_write that writes to it (api/wasi_fd_write.h).
  std::optional<wasm::Module> imports_fd_write;
  static constexpr std::string_view kFdWrite = "fd_write";
  if (std::search(bytes.begin(), bytes.end(), kFdWrite.begin(), kFdWrite.end()) != bytes.end())
    if (Result<wasm::Module> decoded = wasm::decode(bytes); decoded.ok() && detail::imports_wasi_fd_write(*decoded))
      imports_fd_write = std::move(decoded).value();
  if (slot.ring_field || imports_fd_write) {
    const uint64_t ring_bytes = options.print_buffer_bytes.value_or(
        environment::print_buffer_bytes().value_or(detail::kDefaultPrintBufferBytes));
    if (ring_bytes < (detail::kPrintRingHeaderWords + 4) * 4 || ring_bytes > (uint64_t(1) << 32))
      detail::raise(ErrorKind::InvalidArgument, "print buffer of " + std::to_string(ring_bytes) +
                                                    " bytes (WASMGPU_PRINT_BUFFER, ModuleOptions::print_buffer_bytes): "
                                                    "it must hold 64 bytes to 4 GiB");
    std::unique_ptr<device::BackendBuffer> ring =
        detail::check(impl_->backend->create_buffer(ring_bytes), ErrorKind::Unsupported);
    const std::optional<uint64_t> address = ring->wasm_address();
    if (!address || *address >= abi::kAddressSpaceEnd)
      detail::raise(ErrorKind::Unsupported, "the module's kernels print (printf, puts, fd_write, assert), but " +
                                                detail::device_label(*impl_) +
                                                " gives its print buffer no wasm address, so kernels cannot reach it");
    std::vector<uint32_t> header(detail::kPrintRingHeaderWords, 0);
    header[detail::kPrintRingCapacity] = uint32_t(ring_bytes / 4 - detail::kPrintRingHeaderWords);
    detail::check(ring->fill(0), ErrorKind::Vulkan);
    detail::check(ring->write(header.data(), header.size() * 4, 0), ErrorKind::Vulkan);
    if (patched.empty()) patched.assign(bytes.begin(), bytes.end());
    const uint32_t value = uint32_t(*address);
    if (slot.ring_field) std::memcpy(patched.data() + *slot.ring_field, &value, 4);
    if (imports_fd_write) {
      detail::LinkedModule linked = detail::link_wasi_fd_write(patched, *imports_fd_write, value);
      if (!linked.error.empty()) detail::raise(ErrorKind::Compile, linked.error);
      if (!linked.bytes.empty()) patched = std::move(linked.bytes);
    }
    impl->print_ring = std::move(ring);
    impl->print_ring_bytes = ring_bytes;
    impl->print_invocation = options.print_invocation.value_or(environment::print_invocation());
  }
  const std::span<const uint8_t> code = patched.empty() ? bytes : std::span<const uint8_t>(patched);
  std::unique_ptr<device::BackendModule> module =
      detail::check(options.imported_globals.empty()
                        ? impl_->backend->load_wasm(code, compile)
                        : impl_->backend->load_wasm_with_globals(code, compile, options.imported_globals),
                    ErrorKind::Compile);
  if (module->wasm().start && !module->runs_start_function()) {
    const uint32_t start = *module->wasm().start;
    detail::raise(ErrorKind::Unsupported, "the start function '" + module->wasm().function_name(start) +
                                              "' (function " + std::to_string(start) +
                                              ") cannot run on this device, so the module cannot be instantiated");
  }
  if (impl->print_ring) impl->static_memory = detail::static_memory(module->wasm());
  impl->device = impl_.get();
  impl->source = KernelSource::Wasm;
  impl->interfaces = detail::check(reflect::wasm_interfaces(module->wasm()), ErrorKind::Compile);
  impl->wasm = std::move(module);
  if (environment::autotune()) {
    Sha256 identity;
    identity.update(bytes);
    const char* mode = options.float_mode == ModuleOptions::FloatMode::Fast ? "fast" : "exact";
    const std::string options_text = std::string(mode) + " " + std::to_string(options.max_call_depth);
    identity.update(options_text);
    impl->identity = identity.finish();
  }
  return Module(impl_, std::move(impl));
}

Module Device::load_file(const std::filesystem::path& path, const ModuleOptions& options) {
  const std::vector<uint8_t> bytes = detail::read_file(path);
  try {
    return load(bytes, options);
  } catch (const Exception& e) {
    if (e.kind() != ErrorKind::Compile) throw;
    throw Exception(e.kind(), path.string() + ": " + e.what());
  }
}

}  // namespace wasmgpu

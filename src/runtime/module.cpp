#include "runtime/module.h"

#include <algorithm>
#include <cstring>

#include "abi/launch_abi.h"
#include "runtime/device.h"
#include "runtime/device_compile_options.h"
#include "runtime/device_probe_cache.h"
#include "runtime/device_state.h"
#include "runtime/host_cpu.h"
#include "runtime/vk_util.h"
#include "frontend/call_graph.h"
#include "frontend/instance_state.h"
#include "frontend/memories.h"
#include "frontend/start_function.h"
#include "wasm/decoder.h"

namespace wasmgpu::runtime {

namespace {

constexpr uint64_t kPageBytes = 64 * 1024;

// Initial pages of memory 0, imported or defined, or nullopt without memory.
std::optional<uint64_t> initial_pages(const wasm::Module& module) {
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) return import.memory.limits.min;
  if (!module.memories.empty()) return module.memories[0].limits.min;
  return std::nullopt;
}

}  // namespace

Result<std::vector<uint8_t>> initial_memory(const wasm::Module& module) {
  const uint64_t bytes = initial_pages(module).value_or(0) * kPageBytes;
  if (bytes > abi::kBufferAddressBase)
    return make_error(ErrorCode::Compile, "the module's memory starts at " + format_bytes(bytes) + "; at most " +
                                              format_bytes(abi::kBufferAddressBase) +
                                              " fit below the buffers in the wasm address space");
  return frontend::initial_memory_image(module, 0);
}

// What the compiler says about every exported function: the callable ones
// (their CallInfo) and why the others cannot be called. Compiled once, to
// SPIR-V only: no pipeline is created for it.
struct CallCatalogue {
  std::map<std::string, uint32_t, std::less<>> index;  // export -> position in calls
  std::vector<spirv::CallInfo> calls;
  std::map<std::string, std::string, std::less<>> refused;  // export -> why
};

// A call shader for one set of exports (positions in the catalogue, sorted):
// CallRecord.function is the position within `exports`. A launch compiles
// only the exports its calls need: a driver that inlines every call (NIR)
// and runs every arm of the shader's switch under a mask (llvmpipe) spends
// time superlinear in the whole shader's size, so one shader holding a
// hundred exports took lavapipe minutes to compile.
struct CallShader {
  std::vector<uint32_t> exports;
  Kernel kernel;
  uint32_t call_stride = 8;
  uint32_t result_stride = 8;
};

// The first mutable global but the stack pointer that `roots` may write, as
// Kernel::set_shared_global_write takes it (empty when none).
static Result<std::string> shared_global_write(const wasm::Module& module, std::span<const uint32_t> roots) {
  WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> written, frontend::written_globals(module, roots));
  if (written.empty()) return std::string();
  std::string text = frontend::describe_global(module, written[0]);
  if (written.size() > 1) text += " (and " + std::to_string(written.size() - 1) + " other global(s))";
  return text;
}

static Result<std::vector<CallResult>> launch_call_shader(
    DeviceState& device, std::optional<Buffer>& call_records, std::optional<Buffer>& result_records, Kernel& kernel,
    uint32_t call_stride, uint32_t result_stride, std::span<const uint32_t> functions,
    std::span<const CallRequest> calls, std::span<const spirv::CallInfo* const> infos, const LaunchOptions& options);

struct Module::State {
  DeviceState* device = nullptr;
  wasm::Module module;
  // The compiled-SPIR-V cache's name for the wasm bytes (compile_cache.h);
  // computed only when the Device has a cache.
  Sha256Digest wasm_sha256{};
  spirv::CompileOptions compile_options;
  // The device probe's cached results (device_probe_cache.h), when the cache
  // holds some for this device and host: they route and refuse.
  std::optional<ProbeResults> probe;
  // Declared before the kernels, which refer to them: destroyed after them.
  std::optional<Buffer> memory;
  std::optional<Buffer> instance_state;  // InstanceState, when the module keeps one
  std::optional<Buffer> data_segments;   // every data segment's bytes, for memory.init
  std::optional<Buffer> extra_memories;  // memories 1..n-1 (frontend/memories.h), when there are several
  std::optional<Buffer> call_records;
  std::optional<Buffer> result_records;
  std::map<std::string, Kernel, std::less<>> kernels;
  std::optional<CallCatalogue> calls;  // compiled on the first call
  std::optional<Error> calls_error;
  std::map<std::vector<uint32_t>, CallShader> call_shaders;  // by exports
  std::vector<wasm::KernelMetadata> kernel_metadata;         // checked against the exports at load

  VkDeviceAddress instance_address() const { return instance_state ? instance_state->device_address() : 0; }
};

namespace {

// Modules without a declared maximum may grow to this much memory.
constexpr uint64_t kReserveWithoutMaximum = 64ull << 20;
// The reserve is allocated at once; larger maxima are capped (memory.grow
// beyond it fails as if the host refused).
constexpr uint64_t kReserveCap = abi::kBufferAddressBase;

}  // namespace

// Memories 1..n-1 of a module with several (frontend/memories.h): one
// zero-filled buffer holding each memory's reserve, its initial bytes
// written, and each memory's device address in its InstanceState record.
static Status load_extra_memories(DeviceState& device, const wasm::Module& module, std::vector<uint8_t>& instance,
                                  std::optional<Buffer>& out) {
  const frontend::ExtraMemories layout =
      frontend::extra_memories(module, frontend::instance_layout(module).memories_offset);
  if (layout.memories.empty()) return {};
  if (layout.buffer_bytes > frontend::kExtraMemoriesMaxBytes)
    return make_error(ErrorCode::Unsupported,
                      "the module's " + std::to_string(layout.memories.size()) + " memories after the first need " +
                          format_bytes(layout.buffer_bytes) + " of reserve; wasmgpu reserves at most " +
                          format_bytes(frontend::kExtraMemoriesMaxBytes) + " for them");
  WASMGPU_ASSIGN_OR_RETURN(Buffer buffer, create_buffer(device, layout.buffer_bytes, /*assign_wasm_address=*/false));
  WASMGPU_TRY(buffer.fill(0));
  for (const frontend::ExtraMemory& memory : layout.memories) {
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint8_t> image, frontend::initial_memory_image(module, memory.index));
    if (!image.empty()) WASMGPU_TRY(buffer.write(image.data(), image.size(), memory.buffer_offset));
    const uint64_t address = buffer.device_address() + memory.buffer_offset;
    std::memcpy(instance.data() + memory.state_offset + abi::kExtraMemoryAddress, &address, 8);
  }
  out.emplace(std::move(buffer));
  return {};
}

Result<Module> Module::load(Device& device, std::span<const uint8_t> wasm, const spirv::CompileOptions& compile_options,
                            std::span<const uint64_t> imported_globals) {
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module decoded, wasm::decode_and_validate(wasm));
  WASMGPU_ASSIGN_OR_RETURN(std::vector<wasm::KernelMetadata> kernel_metadata, wasm::read_kernel_metadata(decoded));
  WASMGPU_ASSIGN_OR_RETURN(std::vector<uint8_t> image, initial_memory(decoded));
  auto state = std::make_unique<State>();
  state->device = &device.state();
  // One small file, never a probe run: without an entry nothing is routed.
  if (device.state().disk_cache)
    state->probe = read_cached_probe(*device.state().disk_cache, device.state().info, host_cpu_features());
  state->compile_options =
      device_compile_options(device.state().info, compile_options, state->probe ? &*state->probe : nullptr);
  if (device.state().compile_cache.enabled()) state->wasm_sha256 = sha256(wasm);
  const bool keeps_state = frontend::module_uses_instance_state(decoded);
  uint64_t memory_size = image.size();
  if (keeps_state)
    memory_size = std::max<uint64_t>(
        memory_size, std::min(frontend::memory_reserve_bytes(decoded, kReserveWithoutMaximum), kReserveCap));
  if (memory_size > 0) {
    WASMGPU_ASSIGN_OR_RETURN(Buffer memory, create_buffer(device.state(), memory_size,
                                                          /*assign_wasm_address=*/false));
    if (memory_size > image.size()) WASMGPU_TRY(memory.fill(0));
    if (!image.empty()) WASMGPU_TRY(memory.write(image.data(), image.size()));
    state->memory.emplace(std::move(memory));
  }
  if (keeps_state) {
    size_t imported_global_count = 0;
    for (const wasm::Import& import : decoded.imports)
      if (import.kind == wasm::ExternalKind::Global) ++imported_global_count;
    if (imported_globals.size() != imported_global_count)
      return make_error(ErrorCode::Compile, "the module imports " + std::to_string(imported_global_count) +
                                                " global(s), but " + std::to_string(imported_globals.size()) +
                                                " value(s) were given");
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint8_t> instance,
                             frontend::initial_instance_state(decoded, imported_globals, memory_size));
    const std::vector<uint8_t> segments = frontend::data_segment_bytes(decoded);
    if (!segments.empty()) {
      WASMGPU_ASSIGN_OR_RETURN(Buffer data, create_buffer(device.state(), segments.size(),
                                                          /*assign_wasm_address=*/false));
      WASMGPU_TRY(data.write(segments.data(), segments.size()));
      const uint64_t address = data.device_address();
      std::memcpy(instance.data() + abi::kInstanceDataSegments, &address, 8);
      state->data_segments.emplace(std::move(data));
    }
    const uint64_t memory_address = state->memory ? state->memory->device_address() : 0;
    std::memcpy(instance.data() + abi::kInstanceMemoryAddress, &memory_address, 8);
    WASMGPU_TRY(load_extra_memories(device.state(), decoded, instance, state->extra_memories));
    WASMGPU_ASSIGN_OR_RETURN(Buffer buffer, create_buffer(device.state(), instance.size(),
                                                          /*assign_wasm_address=*/false));
    WASMGPU_TRY(buffer.write(instance.data(), instance.size()));
    state->instance_state.emplace(std::move(buffer));
  }
  state->module = std::move(decoded);
  state->kernel_metadata = std::move(kernel_metadata);
  Module module(std::move(state));
  if (module.wasm().start) WASMGPU_TRY(module.run_start());
  return module;
}

std::string start_function_text(const wasm::Module& module) {
  const uint32_t function = module.start.value_or(0);
  return "the start function '" + module.function_name(function) + "' (function " + std::to_string(function) + ")";
}

// The start function runs as one call (a call shader of one function, which
// a copy of the module exports under a name no export has), with the
// module's memory and instance state, so that what it writes stays.
Status Module::run_start() {
  State& st = *state_;
  const uint32_t function = *st.module.start;
  const std::string what = start_function_text(st.module);
  if (const wasm::Import* import = st.module.imported_function(function))
    return make_error(ErrorCode::Unsupported, what + " is the imported function " + import->module + "." +
                                                  import->name + ", which cannot run on the device");
  std::string name;
  const wasm::Module exporting = frontend::exporting_start_function(st.module, name);
  const std::string names[] = {name};
  Result<spirv::CompiledCalls> compiled =
      st.device->compile_cache.calls(exporting, st.wasm_sha256, names, st.compile_options);
  if (!compiled.ok()) {
    Error error = compiled.take_error();
    error.message = what + " cannot run on this device, so the module cannot be instantiated: " + error.message;
    return error;
  }
  if (st.probe) WASMGPU_TRY(check_probe_results(*st.probe, compiled->info, st.device->info.name));
  const uint32_t call_stride = compiled->call_record_size, result_stride = compiled->result_record_size;
  const spirv::CallInfo info = compiled->calls.at(0);
  spirv::CompiledKernel kernel{std::move(compiled->words), std::move(compiled->info)};
  kernel.info.export_name = "start function";
  kernel.info.params = {wasm::ValType::I64, wasm::ValType::I64, wasm::ValType::I32, wasm::ValType::I32};
  WASMGPU_ASSIGN_OR_RETURN(Kernel k, Kernel::create(*st.device, std::move(kernel), memory(), st.instance_address()));
  const uint32_t functions[] = {0};
  const CallRequest calls[] = {CallRequest{name, {}}};
  const spirv::CallInfo* infos[] = {&info};
  WASMGPU_ASSIGN_OR_RETURN(std::vector<CallResult> results,
                           launch_call_shader(*st.device, st.call_records, st.result_records, k, call_stride,
                                              result_stride, functions, calls, infos, LaunchOptions{}));
  if (results.at(0).trapped)
    return make_error(ErrorCode::Trap,
                      what + " trapped: " + abi::to_string(results[0].trap) + "; the module cannot be instantiated");
  return {};
}

Module::Module(std::unique_ptr<State> state) : state_(std::move(state)) {}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

const wasm::Module& Module::wasm() const { return state_->module; }
const spirv::CompileOptions& Module::compile_options() const { return state_->compile_options; }

std::span<const wasm::KernelMetadata> Module::kernel_metadata() const { return state_->kernel_metadata; }
Buffer* Module::memory() { return state_->memory ? &*state_->memory : nullptr; }
uint64_t Module::memory_bytes() const { return state_->memory ? state_->memory->size() : 0; }

Result<Kernel*> Module::kernel(std::string_view name) {
  if (auto it = state_->kernels.find(name); it != state_->kernels.end()) return &it->second;
  WASMGPU_ASSIGN_OR_RETURN(
      spirv::CompiledKernel compiled,
      state_->device->compile_cache.kernel(state_->module, state_->wasm_sha256, name, state_->compile_options));
  if (state_->probe) WASMGPU_TRY(check_probe_results(*state_->probe, compiled.info, state_->device->info.name));
  const uint32_t function = compiled.info.function_index;
  WASMGPU_ASSIGN_OR_RETURN(Kernel kernel,
                           Kernel::create(*state_->device, std::move(compiled), memory(), state_->instance_address()));
  WASMGPU_ASSIGN_OR_RETURN(std::string written, shared_global_write(state_->module, std::span(&function, 1)));
  kernel.set_shared_global_write(std::move(written));
  auto [it, inserted] = state_->kernels.emplace(std::string(name), std::move(kernel));
  return &it->second;
}

Status Module::launch(std::string_view kernel_name, uint32_t n, uint32_t workgroup_size, std::span<const Arg> args,
                      const LaunchOptions& options) {
  WASMGPU_ASSIGN_OR_RETURN(Kernel * kernel, this->kernel(kernel_name));
  return kernel->launch(n, workgroup_size, args, options);
}

}  // namespace wasmgpu::runtime

namespace wasmgpu::runtime {

namespace {

// Values a call can pass (a v128 as two i64 slots, spirv::CallInfo).
bool is_scalar(wasm::ValType type) {
  return type == wasm::ValType::I32 || type == wasm::ValType::I64 || type == wasm::ValType::F32 ||
         type == wasm::ValType::F64 || type == wasm::ValType::V128;
}

// Exported functions whose params and results are all scalars or v128, in export order.
std::vector<std::string> callable_exports(const wasm::Module& module,
                                          std::map<std::string, std::string, std::less<>>& refused) {
  const uint32_t imported = module.imported_functions;
  std::vector<std::string> names;
  for (const wasm::Export& e : module.exports) {
    if (e.kind != wasm::ExternalKind::Func) continue;
    if (e.index < imported) {
      refused[e.name] = "it re-exports an imported function";
      continue;
    }
    const wasm::FuncType& type = module.function_type(e.index);
    bool ok = true;
    for (wasm::ValType t : type.params) ok = ok && is_scalar(t);
    for (wasm::ValType t : type.results) ok = ok && is_scalar(t);
    if (!ok) {
      refused[e.name] = "its signature has a reference type";
      continue;
    }
    names.push_back(e.name);
  }
  return names;
}

}  // namespace

// Compiles every callable export once, for the facts call_info() reports.
// Exports the compiler refuses are found by compiling them one at a time and
// left out, with the reason kept.
// The result is kept in the compile cache: a module loaded again skips these
// compiles altogether.
static Result<CallCatalogue> build_call_catalogue(CompileCache& cache, const wasm::Module& module,
                                                  const Sha256Digest& wasm_sha256,
                                                  const spirv::CompileOptions& options) {
  CallCatalogue catalogue;
  if (std::optional<CallCatalogueData> cached = cache.find_catalogue(wasm_sha256, options)) {
    catalogue.calls = std::move(cached->calls);
    for (auto& [name, reason] : cached->refused) catalogue.refused[name] = std::move(reason);
    for (uint32_t i = 0; i < catalogue.calls.size(); ++i) catalogue.index[catalogue.calls[i].export_name] = i;
    return catalogue;
  }
  std::vector<std::string> names = callable_exports(module, catalogue.refused);
  auto compiled = cache.compile_calls_uncached(module, names, options);
  if (!compiled.ok()) {
    std::vector<std::string> accepted;
    for (const std::string& name : names) {
      auto one = cache.compile_calls_uncached(module, std::span<const std::string>(&name, 1), options);
      if (one.ok())
        accepted.push_back(name);
      else
        catalogue.refused[name] = one.error().to_string();
    }
    names = std::move(accepted);
    if (!names.empty()) {
      compiled = cache.compile_calls_uncached(module, names, options);
      if (!compiled.ok()) return compiled.take_error();
    }
  }
  if (!names.empty()) catalogue.calls = std::move(compiled->calls);
  for (uint32_t i = 0; i < catalogue.calls.size(); ++i) catalogue.index[catalogue.calls[i].export_name] = i;
  if (cache.enabled()) {
    CallCatalogueData data;
    data.calls = catalogue.calls;
    data.refused.assign(catalogue.refused.begin(), catalogue.refused.end());
    cache.store_catalogue(wasm_sha256, options, data);
  }
  return catalogue;
}

// One launch of a call shader (`kernel`), call i running its function
// `functions[i]` (CallRecord.function) with calls[i].args; each call's
// results (typed by infos[i]) or trap.
static Result<std::vector<CallResult>> launch_call_shader(
    DeviceState& device, std::optional<Buffer>& call_records, std::optional<Buffer>& result_records, Kernel& kernel,
    uint32_t call_stride, uint32_t result_stride, std::span<const uint32_t> functions,
    std::span<const CallRequest> calls, std::span<const spirv::CallInfo* const> infos, const LaunchOptions& options) {
  const uint64_t n = calls.size();
  const uint64_t records_size = n * call_stride;
  const uint64_t results_size = n * result_stride;
  if (!call_records || call_records->size() < records_size) {
    call_records.reset();
    WASMGPU_ASSIGN_OR_RETURN(Buffer b, create_buffer(device, std::max<uint64_t>(records_size, 4096),
                                                     /*assign_wasm_address=*/false));
    call_records.emplace(std::move(b));
  }
  if (!result_records || result_records->size() < results_size) {
    result_records.reset();
    WASMGPU_ASSIGN_OR_RETURN(Buffer b, create_buffer(device, std::max<uint64_t>(results_size, 4096),
                                                     /*assign_wasm_address=*/false));
    result_records.emplace(std::move(b));
  }
  std::vector<uint8_t> records(records_size, 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* record = records.data() + i * call_stride;
    std::memcpy(record, &functions[i], 4);
    for (size_t a = 0; a < calls[i].args.size(); ++a)
      std::memcpy(record + abi::kCallRecordParams + 8 * a, &calls[i].args[a].bits, 8);
  }
  WASMGPU_TRY(call_records->write(records.data(), records.size()));
  LaunchOptions launch_options = options;
  launch_options.fail_on_trap = false;
  const Arg args[] = {Arg(uint64_t(call_records->device_address())), Arg(uint64_t(result_records->device_address())),
                      Arg(call_stride), Arg(result_stride)};
  WASMGPU_TRY(kernel.launch(uint32_t(n), 0, args, launch_options));
  std::vector<uint8_t> results(results_size);
  WASMGPU_TRY(result_records->read(results.data(), results.size()));
  std::vector<CallResult> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* record = results.data() + i * result_stride;
    uint32_t status;
    std::memcpy(&status, record, 4);
    if (status != abi::kCallReturned) {
      if (status - abi::kCallTrapped >= abi::kTrapKindCount)
        return make_error(ErrorCode::Internal, "call " + std::to_string(i) + " of '" + calls[i].export_name +
                                                   "' left an invalid status " + std::to_string(status) +
                                                   " in its result record");
      out[i].trapped = true;
      out[i].trap = abi::TrapKind(status - abi::kCallTrapped);
      // The site word: 0 without trap sites (no instruction lies at offset
      // 0, the module's magic number), kNoTrapSite outside an instruction.
      uint32_t site;
      std::memcpy(&site, record + 4, 4);
      if (site != 0 && site != abi::kNoTrapSite) out[i].trap_site = site;
      if (site != 0 && result_stride >= abi::kResultRecordTrapAccessSize) {  // compiled with trap sites
        std::memcpy(&out[i].trap_address, record + abi::kResultRecordTrapAddress, 8);
        std::memcpy(&out[i].trap_bytes, record + abi::kResultRecordTrapBytes, 4);
      }
      continue;
    }
    for (size_t r = 0; r < infos[i]->results.size(); ++r) {
      uint64_t bits;
      std::memcpy(&bits, record + abi::kResultRecordValues + 8 * r, 8);
      const wasm::ValType type = infos[i]->results[r];
      if (type == wasm::ValType::I32 || type == wasm::ValType::F32) bits &= 0xFFFF'FFFFu;
      out[i].values.push_back(Value{type, bits});
    }
  }
  return out;
}

Result<const spirv::CallInfo*> Module::call_info(std::string_view export_name) {
  State& st = *state_;
  if (!st.calls && !st.calls_error) {
    auto catalogue = build_call_catalogue(st.device->compile_cache, st.module, st.wasm_sha256, st.compile_options);
    if (catalogue.ok())
      st.calls.emplace(std::move(catalogue.value()));
    else
      st.calls_error = catalogue.take_error();
  }
  if (st.calls_error) return *st.calls_error;
  if (auto it = st.calls->index.find(export_name); it != st.calls->index.end()) return &st.calls->calls[it->second];
  if (auto it = st.calls->refused.find(export_name); it != st.calls->refused.end())
    return make_error(ErrorCode::Compile, "export '" + std::string(export_name) + "' cannot be called: " + it->second);
  return make_error(ErrorCode::NotFound, "the module exports no function named '" + std::string(export_name) + "'");
}

Result<std::vector<CallResult>> Module::call(std::string_view export_name, std::span<const std::vector<Value>> tuples,
                                             const LaunchOptions& options) {
  std::vector<CallRequest> requests;
  requests.reserve(tuples.size());
  for (const std::vector<Value>& tuple : tuples) requests.push_back(CallRequest{std::string(export_name), tuple});
  return call(requests, options);
}

Result<std::vector<CallResult>> Module::call(std::span<const CallRequest> calls, const LaunchOptions& options) {
  State& st = *state_;
  std::vector<const spirv::CallInfo*> infos;
  infos.reserve(calls.size());
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
  }
  if (calls.empty()) return std::vector<CallResult>{};
  if (calls.size() > 0xFFFF'FFFFu) return make_error(ErrorCode::InvalidArgument, "too many calls for one launch");
  std::vector<uint32_t> exports;
  for (const CallRequest& request : calls) exports.push_back(st.calls->index.find(request.export_name)->second);
  std::sort(exports.begin(), exports.end());
  exports.erase(std::unique(exports.begin(), exports.end()), exports.end());
  auto found = st.call_shaders.find(exports);
  if (found == st.call_shaders.end()) {
    std::vector<std::string> names;
    for (uint32_t position : exports) names.push_back(st.calls->calls[position].export_name);
    WASMGPU_ASSIGN_OR_RETURN(spirv::CompiledCalls compiled,
                             st.device->compile_cache.calls(st.module, st.wasm_sha256, names, st.compile_options));
    const uint32_t call_stride = compiled.call_record_size, result_stride = compiled.result_record_size;
    spirv::CompiledKernel kernel{std::move(compiled.words), std::move(compiled.info)};
    kernel.info.export_name = "calls";
    // The shader's own arguments: the record addresses and strides.
    kernel.info.params = {wasm::ValType::I64, wasm::ValType::I64, wasm::ValType::I32, wasm::ValType::I32};
    WASMGPU_ASSIGN_OR_RETURN(Kernel k, Kernel::create(*st.device, std::move(kernel), memory(), st.instance_address()));
    for (uint32_t position : exports) {
      const spirv::CallInfo& call = st.calls->calls[position];
      WASMGPU_ASSIGN_OR_RETURN(std::string written, shared_global_write(st.module, std::span(&call.function_index, 1)));
      if (written.empty()) continue;
      k.set_shared_global_write(written + ", through export '" + call.export_name + "'");
      break;
    }
    found = st.call_shaders.emplace(exports, CallShader{exports, std::move(k), call_stride, result_stride}).first;
  }
  CallShader& shader = found->second;
  std::vector<uint32_t> functions;
  functions.reserve(calls.size());
  for (const CallRequest& request : calls) {
    const uint32_t position = st.calls->index.find(request.export_name)->second;
    functions.push_back(
        uint32_t(std::lower_bound(shader.exports.begin(), shader.exports.end(), position) - shader.exports.begin()));
  }
  return launch_call_shader(*st.device, st.call_records, st.result_records, shader.kernel, shader.call_stride,
                            shader.result_stride, functions, calls, infos, options);
}

}  // namespace wasmgpu::runtime

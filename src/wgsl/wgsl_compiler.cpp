#include "wgsl/wgsl_compiler.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "abi/launch_abi.h"
#include "frontend/front_end_facts.h"
#include "frontend/kernel_signature.h"
#include "frontend/shared_memory.h"
#include "wgsl/atomic_helpers.h"
#include "wgsl/function_writer.h"
#include "wgsl/f64_helpers.h"
#include "wgsl/i64_helpers.h"
#include "wgsl/lowerable.h"
#include "wgsl/runtime_helpers.h"
#include "wgsl/uniformity.h"

namespace wasmgpu::wgsl {
namespace {

using wasm::Opcode;
using wasm::ValType;

Error refuse(const std::string& why) {
  return make_error(ErrorCode::Unsupported, why + ": not handled by the WGSL back end yet (docs/webgpu.md)");
}

std::string hex_bytes(const std::vector<uint8_t>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (uint8_t byte : bytes) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

// The module-scope declaration of global `index`, which reachable code uses.
Result<std::string> global_declaration(const wasm::Module& module, uint32_t index,
                                       std::optional<uint32_t> stack_pointer) {
  std::string name = module.global_name(index);
  if (name.empty()) name = "global " + std::to_string(index);
  if (module.imported_global(index)) return refuse("imported global '" + name + "'");
  const wasm::Global& global = module.globals.at(index - module.imported_globals);
  const char* type = value_type(global.type.type);
  if (!type) return refuse("global '" + name + "' of type " + std::string(wasm::to_string(global.type.type)));
  if (global.type.is_mutable && index != stack_pointer)
    return refuse("mutable global '" + name + "' (the Vulkan back end keeps it across launches)");
  const wasm::Instr& init = global.init.instrs.at(0);
  if (init.op == wasm::Opcode::I64Const || init.op == wasm::Opcode::F64Const) {
    if (global.type.is_mutable)
      return refuse(fmt::format("mutable {} global '{}'", wasm::to_string(global.type.type), name));
    return fmt::format("const g{}: vec2<u32> = vec2<u32>({}u, {}u);\n", index, uint32_t(init.imm64),
                       uint32_t(init.imm64 >> 32));
  }
  if (init.op != wasm::Opcode::I32Const && init.op != wasm::Opcode::F32Const)
    return refuse("global '" + name + "' initialised from another global");
  std::string value = fmt::format("0x{:x}u", uint32_t(init.imm64));
  if (global.type.type == ValType::F32) value = "bitcast<f32>(" + value + ")";
  const bool finite = (uint32_t(init.imm64) & 0x7f800000u) != 0x7f800000u;
  if (global.type.is_mutable || (global.type.type == ValType::F32 && !finite))
    return fmt::format("var<private> g{}: {} = {};\n", index, type, value);
  return fmt::format("const g{}: {} = {};\n", index, type, value);
}

std::string entry_point(const wasm::Module& module, uint32_t kernel, bool barriers, bool subgroups) {
  const wasm::FuncType& type = module.function_type(kernel);
  std::string args = "index";
  for (size_t i = 1; i < type.params.size(); ++i) {
    // Each argument has kLaunchArgWords words; an i64 or f64 one both
    // (low word first, its bits), as the runtime package writes them.
    const uint32_t at = kLaunchArgs + kLaunchArgWords * uint32_t(i - 1);
    std::string word = fmt::format("launch_word({}u)", at);
    if (type.params[i] == ValType::F32) word = "bitcast<f32>(" + word + ")";
    if (type.params[i] == ValType::I64 || type.params[i] == ValType::F64)
      word = fmt::format("vec2<u32>({}, launch_word({}u))", word, at + 1);
    args += ", " + word;
  }
  // Past the count an invocation does nothing. With barriers, Tint needs the
  // kernel called in uniform control flow: a workgroup returns only when all
  // of it is past the count, and the invocations past it in a partial
  // workgroup (which launchers refuse, as the Vulkan runtime does) run as
  // trapped ones, without effects and without a trap record.
  std::string past_count = fmt::format(R"(  if (index >= launch_word({count}u)) {{
    return;
  }}
)",
                                       fmt::arg("count", kLaunchCount));
  if (barriers)
    past_count = fmt::format(
        R"(  let first = launch_word({base}u) + wid.x * wg_x + wid.y * wg_y * grid.x + wid.z * wg_z * grid.x * grid.y;
  if (first >= launch_word({count}u)) {{
    return;
  }}
  if (index >= launch_word({count}u)) {{
    trapped = true;
  }}
)",
        fmt::arg("base", kLaunchBaseIndex), fmt::arg("count", kLaunchCount));
  std::string subgroup_params, subgroup_ids;
  if (subgroups) {
    subgroup_params =
        ",\n        @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_invocation_id) sg_invocation: u32,\n"
        "        @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32";
    subgroup_ids =
        "  id_subgroup_size = sg_size;\n  id_subgroup_invocation = sg_invocation;\n  id_subgroup = sg_id;\n"
        "  id_subgroups = sg_count;\n";
  }
  return fmt::format(R"(// The invocation index is the linearised global id plus the dispatch's
// base, as in the Vulkan back end (docs/compiler.md, "Entry point").
@compute @workgroup_size(wg_x, wg_y, wg_z)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) local_index: u32{subgroup_params}) {{
  let grid = groups * vec3<u32>(wg_x, wg_y, wg_z);
  let index = launch_word({base}u) + gid.x + gid.y * grid.x + gid.z * grid.x * grid.y;
{past_count}  invocation_index = index;
  stack_slot = index - launch_word({base}u);
  opaque_zero = launch_word({zero}u);
  id_global = gid;
  id_local = lid;
  id_workgroup = wid;
  id_workgroups = groups;
  id_local_index = local_index;
{subgroup_ids}  {kernel}({args});
}}
)",
                     fmt::arg("base", kLaunchBaseIndex), fmt::arg("past_count", past_count),
                     fmt::arg("subgroup_params", subgroup_params), fmt::arg("subgroup_ids", subgroup_ids),
                     fmt::arg("zero", kLaunchZero), fmt::arg("kernel", function_symbol(kernel)),
                     fmt::arg("args", args));
}

}  // namespace

Result<WgslKernel> compile_kernel(const wasm::Module& module, std::string_view export_name,
                                  const WgslOptions& options) {
  WASMGPU_TRY(frontend::check_kernel_signature(module, export_name));
  // The bundle's launcher instantiates the module from its initial memory
  // alone: a start function would never run, so the module is refused.
  if (module.start)
    return refuse("the start function '" + module.function_name(*module.start) + "' (function " +
                  std::to_string(*module.start) +
                  "), which must run once at instantiation (a WebGPU launcher cannot run it; the Vulkan and cpu "
                  "devices do)");
  // WGSL keeps memory 0 in one storage array; memories after it (multi-memory)
  // would need arrays, sizes and checks of their own, which are not written.
  if (module.total_memories() > 1)
    return refuse(
        fmt::format("a module with {} memories (multi-memory; the WGSL back end supports one memory, the "
                    "Vulkan device several)",
                    module.total_memories()));
  const uint32_t kernel = module.find_export(export_name, wasm::ExternalKind::Func)->index;
  const wasm::FuncType& type = module.function_type(kernel);
  std::vector<std::string> params;
  uint32_t pointer_params = 0;
  for (size_t i = 1; i < type.params.size(); ++i) {
    if (!value_type(type.params[i]))
      return refuse(fmt::format("parameter {} of kernel '{}' is {}", i, export_name, wasm::to_string(type.params[i])));
    params.push_back(wasm::to_string(type.params[i]));
    if (type.params[i] == ValType::I32) ++pointer_params;
  }
  if (!module.imports.empty())
    for (const wasm::Import& import : module.imports)
      if (import.kind == wasm::ExternalKind::Memory) return refuse("an imported memory");
  // The print slot of wasmgpu_runtime.c (its magic words "WGPRRINT"): the
  // module's kernels print or assert, and WGSL has no print buffer yet.
  static constexpr uint8_t kPrintSlotMagic[8] = {0x57, 0x47, 0x50, 0x52, 0x52, 0x49, 0x4e, 0x54};
  for (const wasm::DataSegment& segment : module.data)
    if (std::search(segment.bytes.begin(), segment.bytes.end(), std::begin(kPrintSlotMagic),
                    std::end(kPrintSlotMagic)) != segment.bytes.end())
      return refuse(
          "printf, puts, putchar, fd_write, assert or abort in the module's kernels (the WGSL back end "
          "has no print buffer; the Vulkan and cpu devices have)");
  // The heap slot of wasmgpu_heap.c, rust/wasmgpu.rs or heap_runtime.ts (its
  // magic words "WGPUHEAP"): the module's kernels allocate, and WGSL has no
  // device heap yet.
  static constexpr uint8_t kHeapSlotMagic[8] = {0x57, 0x47, 0x50, 0x55, 0x48, 0x45, 0x41, 0x50};
  for (const wasm::DataSegment& segment : module.data)
    if (std::search(segment.bytes.begin(), segment.bytes.end(), std::begin(kHeapSlotMagic), std::end(kHeapSlotMagic)) !=
        segment.bytes.end())
      return refuse(
          "malloc, Rust's alloc or AssemblyScript's new in the module's kernels (the WGSL back end has no device "
          "heap; the Vulkan and cpu devices have)");

  const uint32_t roots[] = {kernel};
  WASMGPU_ASSIGN_OR_RETURN(frontend::FrontEndFacts facts, frontend::analyse_module(module, roots, kernel, limits()));
  if (!facts.graph.recursive_components.empty()) {
    // WGSL forbids recursion and this back end has no state machine for it
    // (the SPIR-V one has), tail-recursive loops (return_call) included.
    const std::vector<uint32_t>& component = facts.graph.recursive_components[0];
    for (uint32_t member : component)
      for (const wasm::Instr& instr : module.functions.at(member - module.imported_functions).body)
        if ((instr.op == Opcode::ReturnCall &&
             std::find(component.begin(), component.end(), instr.imm0) != component.end()) ||
            instr.op == Opcode::ReturnCallIndirect)
          return refuse("function '" + module.function_name(member) + "' is recursive through " +
                        std::string(wasm::info(instr.op).text) + " (WGSL has no recursion, tail calls included)");
    return refuse("function '" + module.function_name(component[0]) + "' is recursive");
  }

  uint64_t memory_bytes = 0;
  if (!module.memories.empty()) memory_bytes = module.memories[0].limits.min * abi::kPageSize;
  if (memory_bytes > abi::kBufferAddressBase) return refuse("a module memory over 256 MiB");
  WASMGPU_ASSIGN_OR_RETURN(frontend::SharedMemory shared, frontend::find_shared_memory(module));
  const BarrierFacts barriers = find_barriers(module, facts.graph);

  // Functions first (they refuse what they cannot write), then the globals they use.
  std::string functions;
  std::set<uint32_t> globals;
  // i64 (and f64, whose helpers are built on i64's) gets i64_prelude(), f64 f64_prelude().
  bool uses_i64 = false, uses_f64 = false;
  FunctionUses uses;
  auto is_i64 = [](ValType t) { return t == ValType::I64 || t == ValType::F64; };
  auto is_f64 = [](ValType t) { return t == ValType::F64; };
  for (uint32_t function : facts.graph.functions) {
    if (module.imported_function(function)) continue;
    WASMGPU_ASSIGN_OR_RETURN(std::string text, write_function(module, function, barriers, uses));
    functions += text + "\n";
    const wasm::Function& body = module.functions.at(function - module.imported_functions);
    const wasm::FuncType& signature = module.function_type(function);
    auto signature_uses = [&](auto is) {
      return std::ranges::any_of(signature.params, is) || std::ranges::any_of(signature.results, is) ||
             std::ranges::any_of(body.locals, is);
    };
    uses_i64 = uses_i64 || signature_uses(is_i64);
    uses_f64 = uses_f64 || signature_uses(is_f64);
    for (const wasm::Instr& instr : body.body) {
      if (instr.op == wasm::Opcode::GlobalGet || instr.op == wasm::Opcode::GlobalSet) globals.insert(instr.imm0);
      const wasm::OpcodeInfo& info = wasm::info(instr.op);
      uses_i64 = uses_i64 || std::ranges::any_of(info.params, is_i64) || std::ranges::any_of(info.results, is_i64);
      uses_f64 = uses_f64 || std::ranges::any_of(info.params, is_f64) || std::ranges::any_of(info.results, is_f64);
    }
  }
  // What the writer could write, Tint must accept: barriers in control flow
  // it can prove uniform.
  WASMGPU_TRY(check_barrier_uniformity(module, facts.graph, kernel, barriers));
  const bool kernel_barriers = barriers.kernel_has_barriers(kernel);
  std::string global_decls;
  for (uint32_t global : globals) {
    WASMGPU_ASSIGN_OR_RETURN(std::string decl, global_declaration(module, global, facts.stack.stack_pointer));
    global_decls += decl;
  }

  std::string data;
  for (const wasm::DataSegment& segment : module.data) {
    if (segment.mode != wasm::DataSegment::Mode::Active) continue;
    const wasm::Instr& offset = segment.offset.instrs.at(0);
    if (offset.op != wasm::Opcode::I32Const) return refuse("a data segment placed by a global");
    const uint64_t at = uint32_t(offset.imm64);
    if (at + segment.bytes.size() > memory_bytes) return refuse("a data segment outside the initial memory");
    data +=
        fmt::format("{}{{\"offset\": {}, \"hex\": \"{}\"}}", data.empty() ? "" : ", ", at, hex_bytes(segment.bytes));
  }

  WgslKernel result;
  // The shadow stack takes one storage binding of its own, after the buffers.
  const frontend::StackLayout& stack = facts.stack;
  const uint32_t fixed = kFixedStorageBuffers + (stack.slot_size != 0 ? 1 : 0);
  const uint32_t room = options.max_storage_buffers > fixed ? options.max_storage_buffers - fixed : 0;
  result.buffer_bindings = std::min(pointer_params, room);
  if (stack.slot_size != 0) {
    result.stack_slot_bytes = stack.slot_size;
    result.stack_binding = kFirstBufferBinding + result.buffer_bindings;
  }
  std::string param_list;
  for (const std::string& param : params) param_list += (param_list.empty() ? "\"" : ", \"") + param + "\"";
  result.abi_json = fmt::format(
      "{{\"kernel\": \"{}\", \"params\": [{}], \"memory_bytes\": {}, \"buffer_bindings\": {}, "
      "\"stack_slot_bytes\": {}, \"stack_binding\": {}, \"shared_bytes\": {}, \"barriers\": {}, "
      "\"features\": [{}], \"data\": [{}]}}",
      export_name, param_list, memory_bytes, result.buffer_bindings, result.stack_slot_bytes,
      stack.slot_size != 0 ? std::to_string(result.stack_binding) : "null", shared.hi - shared.lo,
      kernel_barriers ? "true" : "false", uses.subgroups ? "\"subgroups\"" : "", data);
  result.shared_bytes = shared.hi - shared.lo;
  result.barriers = kernel_barriers;
  result.subgroups = uses.subgroups;

  PreludeShape shape;
  shape.buffer_bindings = result.buffer_bindings;
  shape.memory_bytes = memory_bytes;
  shape.arg_count = uint32_t(params.size());
  if (stack.slot_size != 0) {
    shape.stack_slot_bytes = stack.slot_size;
    shape.stack_binding = result.stack_binding;
    shape.stack_lo = stack.stack_lo;
    shape.stack_window_lo = stack.window_lo;
    shape.stack_hi = stack.stack_hi;
  }
  shape.shared_lo = shared.lo;
  shape.shared_bytes = shared.hi - shared.lo;
  shape.subgroups = uses.subgroups;
  result.source = kAbiHeaderPrefix + result.abi_json + "\n";
  result.source += fmt::format("// WGSL for wasm kernel '{}', written by wasmgpu (docs/webgpu.md).\n\n", export_name);
  // Subgroup operations run, as in the Vulkan back end, over the invocations
  // active where they are called: WGSL's uniformity requirement for them is
  // a diagnostic, turned off (the launcher requests the adapter's feature).
  if (uses.subgroups) result.source += "enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n\n";
  result.source += runtime_prelude(shape);
  result.source += atomic_helpers(shape, uses.atomics);
  if (uses_i64) result.source += i64_prelude();
  if (uses_f64) result.source += f64_prelude();
  if (!global_decls.empty()) result.source += global_decls + "\n";
  result.source += functions;
  result.source += entry_point(module, kernel, kernel_barriers, uses.subgroups);
  return result;
}

}  // namespace wasmgpu::wgsl

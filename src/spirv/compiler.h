// Compiles one exported wasm function (a kernel) to a Vulkan compute shader.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "abi/launch_abi.h"
#include "abi/launch_proof.h"
#include "spirv/access_path.h"
#include "spirv/inline_budget.h"
#include "frontend/float_mode.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

// The float mode is the front end's (every back end compiles it); its names
// here keep spirv::CompileOptions' users as they were.
using frontend::float_mode_name;
using frontend::FloatMode;
using frontend::parse_float_mode;

// The default CompileOptions::max_call_depth: deep enough for the spec suite
// (odd(200) recurses 201 deep) with room to spare.
inline constexpr uint32_t kDefaultCallStackDepth = 1024;

struct CompileOptions {
  // Run SPIRV-Tools' validator on the output and fail on any finding.
  bool validate = true;
  // Calls that may be active at once within one recursive component of the
  // call graph (direct or mutual recursion, call_indirect included); one more
  // traps CallStackExhausted. Each component keeps a call stack of this many
  // frames per invocation (docs/compiler.md, "Recursion"). Code without
  // recursion does not depend on it.
  uint32_t max_call_depth = kDefaultCallStackDepth;
  // Exact: wasm's float bits on every device; fast: the device's own float
  // instructions (docs/float-modes.md).
  FloatMode float_mode = FloatMode::Exact;
  // The device can vote across a subgroup in compute shaders
  // (VK_SUBGROUP_FEATURE_VOTE_BIT). Then four words of a pointer argument
  // whose 16-alignment is known only at run time are one 16-byte access
  // where the whole subgroup's addresses are aligned (docs/compiler.md,
  // "Access groups"); else word accesses. The runtime clears it on devices
  // without votes.
  bool subgroup_vote = true;
  // A loop's early exit to the end of its parent block is a plain break, and
  // the code between the two ends is lowered on the loop's fall-through path
  // (docs/compiler.md, "Control flow"); when false, the exit goes through the
  // `pending` variable as other multi-level branches do. Drivers differ:
  // llvmpipe ran mandelbrot at 1.14 of its GLSL twin with the breaks and 0.70
  // without, NVIDIA's at 0.90 and 0.95 (one register copy more per trip). The
  // runtime clears it for NVIDIA's driver (runtime/device_compile_options.h).
  bool loop_exit_breaks = true;
  // The device keeps f64 subnormal operands and results of + - * (Vulkan
  // lets a device without shaderDenormPreserveFloat64 flush them). When
  // false, exact mode keeps each native f64 + - * only where no subnormal can
  // be involved and computes the rest on integers (docs/float-modes.md). The
  // runtime clears it from the device probe (`wasmgpu selftest`).
  bool f64_subnormals_native = true;
  // Instructions the driver may compile after inlining every call; above it
  // the functions whose copies cost most are marked DontInline
  // (spirv/inline_budget.h). 0 never marks.
  uint64_t inline_budget = kDefaultInlineBudget;
  // Record where a trap happened: before each instruction that may trap the
  // shader notes its byte offset in the module, and a trap copies the note
  // into the trap record (abi/launch_abi.h, kTrapSite*) and into a call's
  // result record. Off by default: it costs a store per such instruction,
  // and shaders without it are byte-identical to those of before.
  bool trap_sites = false;
};

// What the runtime needs to know to launch a compiled kernel. The shader's
// interface is fixed by abi/launch_abi.h; this records the module-specific part.
struct KernelInfo {
  std::string export_name;
  uint32_t function_index = 0;
  // Kernel parameters after the invocation index, in order.
  std::vector<wasm::ValType> params;
  // Linear memory the module itself needs (initial pages * 64 KiB).
  uint64_t memory_bytes = 0;
  // Shadow stack. Addresses [stack_window_lo, stack_hi) are private to each
  // invocation and live in a slot of stack_slot_size bytes; zero when the
  // kernel never touches the stack.
  uint32_t stack_hi = 0;
  uint32_t stack_window_lo = 0;
  uint32_t stack_slot_size = 0;
  // Device features the shader relies on. Addressing always needs Int64.
  bool uses_float64 = false;
  bool uses_int8_storage = false;
  // Workgroup-shared memory (WASMGPU_SHARED variables), per workgroup.
  uint32_t shared_memory_bytes = 0;
  // Calls wasmgpu.barrier: every invocation of a workgroup must reach it, so
  // 1-D launches must cover whole workgroups.
  bool uses_barriers = false;
  // Calls a wasmgpu image import: the shader declares the bindless set 0 of
  // abi/image_abi.h, which the runtime must bind (its pipeline layout then
  // has that set; other kernels' layouts have push constants only).
  bool uses_images = false;
  bool uses_int64 = true;
  // A function that uses f64 (for the error when the device lacks
  // shaderFloat64); empty when uses_float64 is false.
  std::string float64_function;
  // The shader reads the module instance's InstanceState (abi/launch_abi.h):
  // the runtime must pass its address in the LaunchBlock. A module-wide
  // property (memory.grow/init, data.drop, tables used, mutable or imported
  // globals anywhere in the module), so every shader of a module agrees on how the
  // module memory is bounds-checked.
  bool uses_instance_state = false;
  FloatMode float_mode = FloatMode::Exact;
  // Private memory per invocation for the call stacks of recursive functions
  // (zero without recursion): CompileOptions::max_call_depth times the largest
  // frame, summed over recursive components.
  uint32_t call_stack_bytes = 0;
  // Functions compiled (reachable from the kernel), for reporting.
  uint32_t compiled_functions = 0;
  // The shader's size as the driver compiles it (spirv/inline_budget.h), for
  // reporting: instructions with every call inlined, after the functions
  // kept out of line, and how many functions were.
  uint64_t inlined_instructions = 0;
  uint64_t instructions_after_inlining = 0;
  uint64_t inlined_blocks = 0;  // basic blocks, counted the same way
  uint64_t blocks_after_inlining = 0;
  uint32_t functions_kept_out_of_line = 0;
  // Memory access sites by path (access_path.h), for reporting: the share on
  // the Direct and BoundsChecked paths skips address translation.
  AccessPathCounts memory_access_paths;
  // The kernel's pointer accesses as expressions for the runtime to prove
  // in bounds at each launch (abi/launch_proof.h): it sets the proven
  // parameters' bits in specialization constant abi::kSpecProvenParams.
  abi::LaunchProof launch_proof;
};

struct CompiledKernel {
  std::vector<uint32_t> words;  // SPIR-V 1.5 (Vulkan 1.2 environment), entry point "main"
  KernelInfo info;
};

// One export of a call shader (vectorised calls, abi/launch_abi.h).
struct CallInfo {
  std::string export_name;
  uint32_t function_index = 0;
  // The values as the CallRecord and ResultRecord hold them, one 8-byte slot
  // each: the function's types, but a v128 is two i64 slots, its low 8 bytes
  // first (so callers pass and receive it as two i64 values).
  std::vector<wasm::ValType> params;
  std::vector<wasm::ValType> results;
  // The call may write linear memory or globals, grow memory or drop a data
  // segment (a conservative analysis over everything it may call). Calls
  // without side effects can be batched in one launch in any order.
  bool has_side_effects = true;
};

struct CompiledCalls {
  std::vector<uint32_t> words;  // SPIR-V 1.5, entry point "main", as for kernels
  // Module-level facts as for a kernel (memory, stack, features, instance
  // state); export_name is empty, params are empty.
  KernelInfo info;
  // In the order of the `exports` given: CallRecord.function indexes this.
  std::vector<CallInfo> calls;
  // Smallest strides that hold every call's params / results.
  uint32_t call_record_size = 8;
  uint32_t result_record_size = 8;
};

// How a kernel's arguments (after the invocation index) are laid out in its
// push constants: the input of abi::push_layout, for the compiler and the
// runtime alike.
std::vector<abi::ArgWidth> push_arg_widths(std::span<const wasm::ValType> args);

// Compiles the exported function `export_name` and every function reachable
// from it. Fails with a message naming the function for what cannot run on a
// GPU (v128, imports, references, ...).
Result<CompiledKernel> compile_kernel(const wasm::Module& module, std::string_view export_name,
                                      const CompileOptions& options = {});

// Compiles one call shader for the listed exported functions (any params and
// results of i32/i64/f32/f64) and every function reachable from them. One
// call per invocation: reads its CallRecord, calls the function, writes the
// ResultRecord (kCallReturned and the results, or kCallTrapped + the first
// trap's kind). Fails, naming the export, for v128/reference params or
// results, an unknown export, or what compile_kernel would refuse.
Result<CompiledCalls> compile_calls(const wasm::Module& module, std::span<const std::string> exports,
                                    const CompileOptions& options = {});

// SPIR-V assembly text of a module (SPIRV-Tools' disassembler), for `--emit spvasm`.
Result<std::string> disassemble(const std::vector<uint32_t>& words);

// Runs SPIRV-Tools' validator for the Vulkan 1.2 environment.
Status validate(const std::vector<uint32_t>& words);

}  // namespace wasmgpu::spirv

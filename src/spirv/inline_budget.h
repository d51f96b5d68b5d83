// Keeps a shader's size after the driver's inlining within a budget.
//
// Vulkan drivers inline every function call before they optimise, so a
// helper called from N places is compiled N times, and a helper it calls
// N x M times. Kernels with many calls to large helpers (Csmith programs
// calling a CRC loop hundreds of times, -O0 builds) then took minutes in the
// driver's pipeline creation, while the same SPIR-V with calls kept as calls
// compiled in seconds on NVIDIA's driver (docs/compiler.md, "Inlining
// budget"). The pass estimates the inlined size and, where it is over the
// budget, marks the functions whose copies cost most `DontInline`, a hint
// the driver may follow. Kernels within the budget are left untouched.
#pragma once

#include <cstdint>
#include <vector>

namespace wasmgpu::spirv {

// Instructions of the fully inlined entry points above which functions are
// kept out of line. Measured on the H200 (docs/compiler.md, "Inlining
// budget"): Csmith programs left at 50,000-130,000 instructions timed out in
// NVIDIA's pipeline creation (80 s), those at or under 32,768 compiled in at
// most 28 s; SGEMM in fast mode (31,733) must stay whole, since marking its
// helpers at a budget of 16,384 cost 37% of its speed. Of the example and
// bench kernels only exact-mode SGEMM (59,703) is over it, with no loss.
inline constexpr uint64_t kDefaultInlineBudget = 32768;

struct InlineBudgetResult {
  // Instructions the driver compiles with full inlining, and after the
  // functions marked DontInline are compiled once each.
  uint64_t inlined_instructions = 0;
  uint64_t instructions_after = 0;
  // The same for basic blocks.
  uint64_t inlined_blocks = 0;
  uint64_t blocks_after = 0;
  // Functions marked DontInline.
  uint32_t functions_kept_out_of_line = 0;
};

// Marks functions of a SPIR-V module DontInline, largest saving first, until
// the estimated compiled size is within `budget` instructions or no mark
// saves more. A budget of 0 marks nothing. The module must be one this
// project wrote (no recursion: SPIR-V forbids it); anything else is left
// unchanged.
InlineBudgetResult apply_inline_budget(std::vector<uint32_t>& words, uint64_t budget);

}  // namespace wasmgpu::spirv

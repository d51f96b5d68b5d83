// The structure of a function body that the WGSL writer and the uniformity
// check both walk the same way: which block, loop and if constructs some
// branch targets (br, br_if, br_table by depth; only those get a label), and
// the skipping of dead code after an unconditional branch.
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/module.h"

namespace wasmgpu::wgsl {

// Per instruction index of `function`'s body: true at a construct's opening
// instruction when a branch inside it targets it.
std::vector<bool> branch_targets(const wasm::Function& function);

// While the code after an unconditional branch is dead: whether `instr` is
// skipped, counting in `depth` the constructs opened inside the dead code.
// The `end` or `else` of the construct the dead code is in is not skipped.
bool skip_dead(const wasm::Instr& instr, uint32_t& depth);

}  // namespace wasmgpu::wgsl

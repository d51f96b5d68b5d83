// Which block, loop and if constructs of a function some branch targets
// (br, br_if, br_table by depth): the writer gives only those a label, and
// the uniformity check follows the same structure.
#pragma once

#include <vector>

#include "wasm/module.h"

namespace wasmgpu::wgsl {

// Per instruction index of `function`'s body: true at a construct's opening
// instruction when a branch inside it targets it.
std::vector<bool> branch_targets(const wasm::Function& function);

}  // namespace wasmgpu::wgsl

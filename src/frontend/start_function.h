// The module a back end compiles a start function from. The start function
// runs as one invocation alone (runtime::Module::load, the cpu device's
// load): no other invocation runs beside it, so memory.atomic.wait32/64,
// which no GPU invocation can do in a kernel, has a meaning there that the
// back ends lower without blocking. This is what lets wasm-ld's
// __wasm_init_memory (--shared-memory) run (docs/memory-model.md, "The
// start function").
#pragma once

#include <string>

#include "wasm/module.h"

namespace wasmgpu::frontend {

// A copy of `module` whose functions have every memory.atomic.wait32/64 on a
// shared memory replaced by what the wait does in an invocation that runs
// alone: the expected value compared with an atomic load of the address
// (which traps as the wait would, out of bounds or misaligned); 1
// ("not-equal") when they differ; when they are equal, no invocation could
// ever notify it, so a finite timeout gives 2 ("timed-out") and an infinite
// one (negative) traps as unreachable rather than hanging. Waits on an
// unshared memory (which trap in wasm) are left as they are, and so are
// refused. Only for compiling the start function: kernels never get it.
wasm::Module start_function_module(const wasm::Module& module);

// A copy of `module` (which must have a start function) that also exports
// the start function, under `export_name` (a name no export has), so that
// spirv::compile_calls compiles it as a call; its name for messages stays.
// Its waits are lowered as start_function_module says. The runtime and
// `inspect` compile the start function from it.
wasm::Module exporting_start_function(const wasm::Module& module, std::string& export_name);

}  // namespace wasmgpu::frontend

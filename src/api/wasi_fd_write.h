// A module that imports WASI's fd_write itself (built without the kernels'
// libc: a hand-written module, another toolchain) gets a definition of it
// that appends to the print ring (api/print_ring.h): the runtime adds a
// function to the module and points the module's calls of the import at it,
// so that the import is never called (docs/kernel-guide.md, "Printing and
// assert").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wasm/module.h"

namespace wasmgpu::detail {

// True when `module` imports wasi_snapshot_preview1.fd_write.
bool imports_wasi_fd_write(const wasm::Module& module);

// `bytes` (decoded as `module`) with a defined fd_write that writes fd 1 and
// 2 into the print ring at wasm address `ring`, and every `call` of the
// import turned into a call of it. Fails (with the reason) where the import
// is used in another way (a table element, ref.func, an export) or has
// another signature.
struct LinkedModule {
  std::vector<uint8_t> bytes;
  std::string error;
};
LinkedModule link_wasi_fd_write(std::span<const uint8_t> bytes, const wasm::Module& module, uint32_t ring);

}  // namespace wasmgpu::detail

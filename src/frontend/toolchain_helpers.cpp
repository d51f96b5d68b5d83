#include "frontend/toolchain_helpers.h"

#include <array>

namespace wasmgpu::frontend {
namespace {

struct Helper {
  std::string_view name;
  std::string_view what;
};

// Exact names, with what they are. Only names no kernel source would choose:
// compilers' reserved spellings (leading underscores) and Emscripten's own.
constexpr std::array kHelpers{
    Helper{"stackSave", "Emscripten's stack helper (reads the stack pointer)"},
    Helper{"stackRestore", "Emscripten's stack helper (sets the stack pointer)"},
    Helper{"stackAlloc", "Emscripten's stack helper (allocates on the stack)"},
    Helper{"_initialize", "the WASI reactor's initialiser (runs constructors)"},
    Helper{"_start", "the WASI command's entry point"},
    Helper{"__wasm_call_ctors", "the linker's constructor runner"},
    Helper{"__errno_location", "libc's errno accessor"},
};

}  // namespace

std::optional<std::string> toolchain_helper(std::string_view export_name) {
  for (const Helper& helper : kHelpers)
    if (export_name == helper.name) return std::string(helper.what);
  // Emscripten: emscripten_stack_init, emscripten_stack_get_free, ... and, in
  // later releases, _emscripten_stack_restore and the like.
  if (export_name.starts_with("emscripten_") || export_name.starts_with("_emscripten_"))
    return std::string("a helper of Emscripten's runtime");
  // AssemblyScript's --exportRuntime (__new, __pin, __unpin, __collect,
  // __setArgumentsLength) and other compilers' reserved names.
  if (export_name.starts_with("__")) return std::string("a compiler runtime's helper (a reserved name)");
  return std::nullopt;
}

}  // namespace wasmgpu::frontend

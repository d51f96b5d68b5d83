#include "cli/kernel_toolchain.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "cli/cli_support.h"

// Set by src/cli/CMakeLists.txt: what the build itself found, the fallbacks
// after the search below.
#ifndef WASMGPU_CC_CONFIGURED_CLANG
#define WASMGPU_CC_CONFIGURED_CLANG ""
#endif
#ifndef WASMGPU_CC_CONFIGURED_WASM_LD
#define WASMGPU_CC_CONFIGURED_WASM_LD ""
#endif
#ifndef WASMGPU_CC_CONFIGURED_WASI_SYSROOT
#define WASMGPU_CC_CONFIGURED_WASI_SYSROOT "/usr"
#endif
#ifndef WASMGPU_CC_SOURCE_INCLUDE_DIR
#define WASMGPU_CC_SOURCE_INCLUDE_DIR ""
#endif

namespace wasmgpu::cli {
namespace {

namespace fs = std::filesystem;

// Debian's LLVM 19 keeps unversioned names here (clang, wasm-ld, llvm-ar).
constexpr const char* kLlvmBin = "/usr/lib/llvm-19/bin";

bool is_executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// `name` on the PATH, as a shell would find it; empty when it is not there.
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    fs::path dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    if (is_executable(dir / name)) return (dir / name).string();
    start = end + 1;
  }
  return {};
}

// The first of `names` on the PATH, else the first of `paths` that exists.
std::string search(const std::vector<std::string>& names, const std::vector<std::string>& paths) {
  for (const std::string& name : names)
    if (std::string found = on_path(name); !found.empty()) return found;
  for (const std::string& path : paths)
    if (!path.empty() && is_executable(path)) return path;
  return {};
}

std::string chosen_tool(const std::optional<std::string>& choice, const std::string& flag, const std::string& what) {
  if (choice->find('/') == std::string::npos) {
    std::string found = on_path(*choice);
    if (found.empty()) fail(flag + " " + *choice + ": no such program on the PATH (" + what + ")");
    return found;
  }
  if (!is_executable(*choice)) fail(flag + " " + *choice + ": not an executable file (" + what + ")");
  return *choice;
}

// The directory of the running wasmgpu executable.
fs::path executable_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

std::string find_include_dir(const ToolchainChoice& choice) {
  if (choice.include_dir) {
    if (!fs::exists(fs::path(*choice.include_dir) / "wasmgpu.h"))
      fail("--include-dir " + *choice.include_dir + ": no wasmgpu.h there");
    return *choice.include_dir;
  }
  // Installed: PREFIX/bin/wasmgpu beside PREFIX/include/wasmgpu.h. In the
  // build tree: the source tree's include/.
  std::vector<fs::path> candidates;
  if (fs::path dir = executable_dir(); !dir.empty()) candidates.push_back(dir.parent_path() / "include");
  if (std::string(WASMGPU_CC_SOURCE_INCLUDE_DIR).size() > 0) candidates.push_back(WASMGPU_CC_SOURCE_INCLUDE_DIR);
  for (const fs::path& dir : candidates)
    if (fs::exists(dir / "wasmgpu.h")) return dir.lexically_normal().string();
  std::string looked;
  for (const fs::path& dir : candidates) looked += (looked.empty() ? "" : ", ") + dir.lexically_normal().string();
  fail("cannot find the kernel header wasmgpu.h (looked in " + looked +
       "): install wasmgpu (cmake --install) or pass --include-dir DIR");
}

}  // namespace

Toolchain find_compile_toolchain(const ToolchainChoice& choice) {
  Toolchain toolchain;
  if (choice.clang) {
    toolchain.clang = chosen_tool(choice.clang, "--clang", "clang 19: Debian's clang-19 package");
  } else {
    toolchain.clang = search({"clang-19"}, {std::string(kLlvmBin) + "/clang", WASMGPU_CC_CONFIGURED_CLANG});
    if (toolchain.clang.empty())
      fail(std::string("clang-19 not found (on the PATH or in ") + kLlvmBin +
           "): install Debian's clang-19 package (apt-get install clang-19), or pass --clang PATH");
  }
  const std::string sysroot = choice.wasi_sysroot.value_or(WASMGPU_CC_CONFIGURED_WASI_SYSROOT);
  const fs::path include = fs::path(sysroot) / "include/wasm32-wasi";
  const fs::path libc = fs::path(sysroot) / "lib/wasm32-wasi/libc.a";
  if (!fs::exists(include / "string.h") || !fs::exists(libc))
    fail("wasi-libc not found (no " + (include / "string.h").string() + " or " + libc.string() +
         "): install Debian's wasi-libc package (apt-get install wasi-libc), or pass --wasi-sysroot DIR "
         "(a wasi-sdk sysroot)");
  toolchain.wasi_include_dir = include.string();
  toolchain.wasi_libc = libc.string();
  toolchain.include_dir = find_include_dir(choice);
  // libc++: the sysroot's (wasi-sdk), else Debian's under LLVM 19's tree.
  for (const fs::path& dir :
       {fs::path(sysroot) / "include/wasm32-wasi/c++/v1", fs::path("/usr/lib/llvm-19/include/wasm32-wasi/c++/v1")})
    if (toolchain.libcxx_include_dir.empty() && fs::exists(dir / "algorithm")) toolchain.libcxx_include_dir = dir;
  for (const fs::path& dir : {fs::path(sysroot) / "lib/wasm32-wasi", fs::path("/usr/lib/llvm-19/lib/wasm32-wasi")})
    if (toolchain.libcxx.empty() && fs::exists(dir / "libc++.a") && fs::exists(dir / "libc++abi.a")) {
      toolchain.libcxx = (dir / "libc++.a").string();
      toolchain.libcxxabi = (dir / "libc++abi.a").string();
    }
  return toolchain;
}

void find_link_tools(const ToolchainChoice& choice, Toolchain& toolchain) {
  if (choice.wasm_ld) {
    toolchain.wasm_ld = chosen_tool(choice.wasm_ld, "--wasm-ld", "wasm-ld 19: Debian's lld-19 package");
  } else {
    toolchain.wasm_ld = search({"wasm-ld-19"}, {std::string(kLlvmBin) + "/wasm-ld", WASMGPU_CC_CONFIGURED_WASM_LD});
    if (toolchain.wasm_ld.empty())
      fail(std::string("wasm-ld-19 not found (on the PATH or in ") + kLlvmBin +
           "): install Debian's lld-19 package (apt-get install lld-19), or pass --wasm-ld PATH");
  }
  if (choice.ar) {
    toolchain.ar = chosen_tool(choice.ar, "--ar", "an archiver: llvm-ar or GNU ar");
  } else {
    toolchain.ar = search({"llvm-ar-19", "ar"}, {std::string(kLlvmBin) + "/llvm-ar"});
    if (toolchain.ar.empty())
      fail(std::string("no archiver found (llvm-ar-19 or ar on the PATH, or ") + kLlvmBin +
           "/llvm-ar) to prepare the kernels' libc: install Debian's binutils or llvm-19 package, or pass --ar PATH");
  }
}

std::vector<std::string> kernel_compile_flags(const Toolchain& toolchain) {
  // -D__wasi__: wasi-libc's <stdio.h> includes <wasi/api.h>, which wants it.
  return {"--target=wasm32",          "-D__wasi__", "-nostdlib",          "-ffreestanding", "-idirafter",
          toolchain.wasi_include_dir, "-I",         toolchain.include_dir};
}

std::vector<std::string> kernel_cxx_flags(const Toolchain& toolchain) {
  std::vector<std::string> flags = {"-fno-exceptions", "-fno-rtti"};
  if (!toolchain.libcxx_include_dir.empty()) flags.insert(flags.end(), {"-isystem", toolchain.libcxx_include_dir});
  return flags;
}

}  // namespace wasmgpu::cli

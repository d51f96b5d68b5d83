// wasmgpu cc: the kernel compiler driver. Compiles C and C++ kernels to
// wasm32 with clang-19 and links them with wasm-ld-19 against the kernels'
// libc (wasi-libc without exit.o), as cmake/WasmKernels.cmake does.
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_support.h"
#include "cli/commands.h"
#include "cli/kernel_toolchain.h"

namespace wasmgpu::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHelp = R"(Compile C and C++ kernels to a wasm module (or wasm objects with -c)
Usage: wasmgpu cc [OPTIONS] FILE... [-o OUT] [CLANG FLAGS...]

FILE is a C source (.c), a C++ source (.cc, .cpp, .cxx, .c++, .C), a wasm object (.o) or an
archive of them (.a). Sources are compiled with clang-19 for wasm32, freestanding, with
wasmgpu.h and wasi-libc's headers (<string.h>, <math.h>, <stdio.h>) on the include path; C++ also gets
-fno-exceptions -fno-rtti and libc++'s headers for wasm32-wasi (<array>, <algorithm>: Debian's
libc++-19-dev-wasm32), and links libc++.a and libc++abi.a. Everything is then linked by wasm-ld-19 (--no-entry) with
wasi-libc's libc.a less exit.o, so the memcpy and memset clang inserts for struct copies,
and libm (expf, sinf, pow ...), link in as plain wasm code. printf, puts, putchar, assert and
abort come from wasmgpu_runtime.c instead: they append records to a device buffer that the
host formats after the launch (docs/kernel-guide.md, "Printing and assert"). malloc, free, calloc and
realloc come from wasmgpu_heap.c: a lock-free allocator over the module's device heap, shared by
every invocation (docs/kernel-guide.md, "Heap allocation"). The kernel parameter records of
WASMGPU_DEFINE_KERNEL stay in the module. The linker runs on its own, never through clang's
driver, which would run binaryen's wasm-opt whenever it is on the PATH.

Options:
  -o FILE            Output (default: the first input's name with .wasm, or .o with -c,
                     in the current directory)
  -c                 Compile only: one wasm object per source
  -O0 -O1 -O2 -O3 -Os -Oz
                     Optimisation level (default -O2)
  -Wl,ARG[,ARG...]   Pass ARGs to wasm-ld-19 (-Wl,-z,stack-size=1048576 for a 1 MiB shadow
                     stack); -Xlinker ARG passes one
  --print-flags      Print the flags sources are compiled with (for other build systems;
                     link their objects with `wasmgpu cc a.o b.o -o k.wasm`) and exit
  --verbose          Print each command before running it
  --clang PATH       clang 19 to compile with (default: clang-19 on the PATH, else
                     /usr/lib/llvm-19/bin/clang)
  --wasm-ld PATH     wasm-ld 19 to link with (default: wasm-ld-19 on the PATH, else
                     /usr/lib/llvm-19/bin/wasm-ld)
  --ar PATH          Archiver for the libc copy (default: llvm-ar-19 or ar on the PATH)
  --wasi-sysroot DIR wasi-libc's sysroot, holding include/wasm32-wasi and lib/wasm32-wasi
                     (default: /usr, Debian's wasi-libc package)
  --include-dir DIR  Where wasmgpu.h is (default: the installed one beside this wasmgpu)
  -h,--help          Print this help message and exit

Every other argument passes to clang unchanged (-DNAME=1, -I DIR, -std=c2x, -matomics,
-mbulk-memory, -g, -Wall ...), and clang's diagnostics come through as they are.
Exits with clang's or wasm-ld's status when they fail.

Example: wasmgpu cc saxpy.c -o saxpy.wasm
Example: wasmgpu cc -O3 -matomics histogram.c util.cpp -o histogram.wasm
Example: clang-19 $(wasmgpu cc --print-flags) -O2 -c k.c -o k.o && wasmgpu cc k.o -o k.wasm
)";

enum class InputKind { C, Cxx, Object };

struct Input {
  std::string path;
  InputKind kind;
};

struct CcArgs {
  std::vector<Input> inputs;
  std::optional<std::string> output;
  bool compile_only = false;
  bool print_flags = false;
  bool verbose = false;
  std::string opt = "-O2";
  std::vector<std::string> clang_flags;
  std::vector<std::string> linker_flags;
  ToolchainChoice tools;
};

// Clang options whose value is the next argument (`-I dir`, `-D X`, ...): the
// value is passed along with it, never taken for an input file.
const std::set<std::string>& clang_options_with_value() {
  static const std::set<std::string> options = {
      "-I", "-D",  "-U",  "-include", "-imacros", "-isystem", "-idirafter", "-iquote",      "-isysroot",
      "-x", "-MF", "-MT", "-MQ",      "-Xclang",  "-mllvm",   "-iprefix",   "-iwithprefix", "-Xpreprocessor"};
  return options;
}

std::optional<InputKind> kind_of(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".c") return InputKind::C;
  if (ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".c++" || ext == ".C") return InputKind::Cxx;
  if (ext == ".o" || ext == ".a") return InputKind::Object;
  return std::nullopt;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

// Returns false after printing the help.
bool parse(const std::vector<std::string>& argv, CcArgs& args) {
  auto value = [&](size_t& i) -> const std::string& {
    if (i + 1 >= argv.size()) fail("cc: " + argv[i] + " needs a value (see `wasmgpu cc --help`)");
    return argv[++i];
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "-h" || a == "--help") {
      fmt::print("{}", kHelp);
      return false;
    }
    if (a == "-o") {
      args.output = value(i);
    } else if (a == "-c") {
      args.compile_only = true;
    } else if (a == "--print-flags") {
      args.print_flags = true;
    } else if (a == "--verbose") {
      args.verbose = true;
    } else if (a == "--clang") {
      args.tools.clang = value(i);
    } else if (a == "--wasm-ld") {
      args.tools.wasm_ld = value(i);
    } else if (a == "--ar") {
      args.tools.ar = value(i);
    } else if (a == "--wasi-sysroot") {
      args.tools.wasi_sysroot = value(i);
    } else if (a == "--include-dir") {
      args.tools.include_dir = value(i);
    } else if (a == "-O" || (a.size() == 3 && a.starts_with("-O"))) {
      args.opt = a;
    } else if (a.starts_with("-Wl,")) {
      for (std::string& part : split_commas(a.substr(4))) args.linker_flags.push_back(std::move(part));
    } else if (a == "-Xlinker") {
      args.linker_flags.push_back(value(i));
    } else if (a.size() > 1 && a[0] == '-') {
      args.clang_flags.push_back(a);
      if (clang_options_with_value().count(a)) args.clang_flags.push_back(value(i));
    } else {
      std::optional<InputKind> kind = kind_of(a);
      if (!kind) fail("cc: " + a + ": not a C (.c), C++ (.cc, .cpp, .cxx) or wasm object (.o, .a) file");
      std::error_code ec;
      if (!fs::is_regular_file(a, ec)) fail("cc: " + a + ": no such file");
      args.inputs.push_back({a, *kind});
    }
  }
  return true;
}

std::string quoted(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "-_./=,:+@%") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& a : argv) text += (text.empty() ? "" : " ") + quoted(a);
  return text;
}

// Runs `argv` with this process's standard streams, so that its diagnostics
// reach the user unchanged; fails when it does not exit with status 0.
void run(const std::vector<std::string>& argv, bool verbose) {
  if (verbose) fmt::print(stderr, "{}\n", command_text(argv));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) fail(fmt::format("cc: cannot start {}: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::fprintf(stderr, "wasmgpu: error: cc: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fail(fmt::format("cc: waiting for {}: {}", argv[0], std::strerror(errno)));
  const std::string tool = fs::path(argv[0]).filename().string();
  if (WIFSIGNALED(status)) fail(fmt::format("cc: {} was killed by signal {}", tool, WTERMSIG(status)));
  if (WEXITSTATUS(status) != 0)
    throw CommandError{fmt::format("cc: {} failed (exit status {})", tool, WEXITSTATUS(status))};
}

// A scratch directory for objects and the libc copy, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/wasmgpu-cc-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
      fail(fmt::format("cc: cannot create a scratch directory {}: {}", pattern, std::strerror(errno)));
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<std::string> compile_command(const Toolchain& toolchain, const CcArgs& args, const Input& input,
                                         const std::string& object) {
  std::vector<std::string> argv = {toolchain.clang};
  for (std::string& flag : kernel_compile_flags(toolchain)) argv.push_back(std::move(flag));
  if (input.kind == InputKind::Cxx)
    for (std::string& flag : kernel_cxx_flags(toolchain)) argv.push_back(std::move(flag));
  argv.push_back(args.opt);
  argv.insert(argv.end(), args.clang_flags.begin(), args.clang_flags.end());
  argv.insert(argv.end(), {"-c", input.path, "-o", object});
  return argv;
}

void run_cc(const CcArgs& args) {
  ToolchainChoice tools = args.tools;
  Toolchain toolchain = find_compile_toolchain(tools);
  if (args.print_flags) {
    fmt::print("{}\n", command_text(kernel_compile_flags(toolchain)));
    return;
  }
  if (args.inputs.empty()) fail("cc: no input files (see `wasmgpu cc --help`)");
  size_t sources = 0;
  for (const Input& input : args.inputs) sources += input.kind != InputKind::Object;

  if (args.compile_only) {
    if (sources != args.inputs.size()) fail("cc: -c compiles sources; an object or archive was given");
    if (args.output && sources > 1) fail("cc: -o with -c names one object; give one source, or leave -o out");
    for (const Input& input : args.inputs) {
      std::string object = args.output.value_or(fs::path(input.path).stem().string() + ".o");
      run(compile_command(toolchain, args, input, object), args.verbose);
    }
    return;
  }

  find_link_tools(tools, toolchain);
  const std::string output = args.output.value_or(fs::path(args.inputs[0].path).stem().string() + ".wasm");
  ScratchDir scratch;
  std::vector<std::string> objects;
  bool cxx = false;  // C++ sources, or objects that may be C++: link libc++
  for (size_t i = 0; i < args.inputs.size(); ++i) {
    const Input& input = args.inputs[i];
    cxx = cxx || input.kind != InputKind::C;
    if (input.kind == InputKind::Object) {
      objects.push_back(input.path);
      continue;
    }
    std::string object = (scratch.path() / fmt::format("{}-{}.o", i, fs::path(input.path).stem().string())).string();
    run(compile_command(toolchain, args, input, object), args.verbose);
    objects.push_back(object);
  }
  // wasi-libc less exit.o: exit.o defines __wasm_call_dtors, and where
  // wasm-ld finds it, it wraps every export in a "command" wrapper that calls
  // it after the kernel. The kernel side of printf, puts, putchar, fd_write,
  // assert and abort (wasmgpu_runtime.c beside wasmgpu.h) replaces
  // wasi-libc's printf.o, puts.o, putchar.o, assert.o and abort.o, and the
  // device heap's malloc and free (wasmgpu_heap.c) replaces dlmalloc.o, as
  // cmake/WasmKernels.cmake does.
  const std::string libc = (scratch.path() / "libc.a").string();
  std::error_code ec;
  fs::copy_file(toolchain.wasi_libc, libc, ec);
  if (ec) fail(fmt::format("cc: cannot copy {}: {}", toolchain.wasi_libc, ec.message()));
  run({toolchain.ar, "d", libc, "exit.o", "printf.o", "puts.o", "putchar.o", "assert.o", "abort.o", "dlmalloc.o"},
      args.verbose);
  std::vector<std::string> add_to_libc = {toolchain.ar, "r", libc};
  for (const char* name : {"wasmgpu_runtime", "wasmgpu_heap"}) {
    const fs::path source = fs::path(toolchain.include_dir) / (std::string(name) + ".c");
    if (!fs::exists(source))
      fail("cc: no " + source.string() + " (the kernel side of printf, assert and malloc) beside wasmgpu.h");
    const std::string object = (scratch.path() / (std::string(name) + ".o")).string();
    std::vector<std::string> compile_runtime = {toolchain.clang};
    for (std::string& flag : kernel_compile_flags(toolchain)) compile_runtime.push_back(std::move(flag));
    compile_runtime.insert(compile_runtime.end(), {"-O2", "-c", source.string(), "-o", object});
    run(compile_runtime, args.verbose);
    add_to_libc.push_back(object);
  }
  run(add_to_libc, args.verbose);
  std::vector<std::string> link = {toolchain.wasm_ld, "--no-entry"};
  link.insert(link.end(), args.linker_flags.begin(), args.linker_flags.end());
  link.insert(link.end(), objects.begin(), objects.end());
  // libc++.a and libc++abi.a (std::sort's instantiations, operator new):
  // only what the kernel references links in.
  if (cxx && !toolchain.libcxx.empty()) link.insert(link.end(), {toolchain.libcxx, toolchain.libcxxabi});
  link.insert(link.end(), {libc, "-o", output});
  run(link, args.verbose);
}

}  // namespace

void add_cc_command(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("cc", "Compile C and C++ kernels to wasm (clang-19, wasm-ld-19, the kernels' libc)");
  // Every argument is the driver's own or clang's: this command parses them
  // itself, so that clang's options (-DX, -I dir, -std=c2x) pass unchanged.
  cmd->prefix_command();
  cmd->set_help_flag();
  cmd->allow_extras();
  cmd->callback([cmd] {
    CcArgs args;
    if (parse(cmd->remaining(), args)) run_cc(args);
  });
}

}  // namespace wasmgpu::cli
